"""The AI turn's home: AiTurns (turn.py) answers "think about this board at this level for this
member" and "how long may a click wait for a quick answer", and picks where the search runs (the
quick levels' worker or the fair CPU pool of bot.cpu).

Nothing is imported here: a spawned worker process imports only bot.cpu's jobs and what they need.
"""
