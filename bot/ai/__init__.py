"""The AI turn's home: AiTurns (turn.py) answers "think about this board at this level for this
member" and "how long may a click wait for a quick answer"; pool.py holds the fair CPU pool it
runs on, worker.py what runs in that pool's processes.

Nothing is imported here: a spawned worker process imports only worker.py and what it needs.
"""
