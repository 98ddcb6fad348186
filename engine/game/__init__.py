"""The game itself, with no search in it: the board and its moves (board.py), the shared types
(types.py), cell names and board sizes (notation.py), renju's forbidden moves (renju.py, checked
against the brute-force _renju_reference.py), opening rules (openings.py) and game records
(records.py). Imports nothing else of the engine."""
