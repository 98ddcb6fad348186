"""What the AI and the solver say about games: reviews of a played game (review.py) and puzzles
mined from games, proved and checked move by move (puzzles.py)."""
