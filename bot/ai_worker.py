"""What runs in the AI process pool: one AI decision, from plain picklable arguments.

Kept tiny and free of Discord imports so spawned worker processes start quickly.
"""

from __future__ import annotations

import random

from engine import Board


def think(board_text: str, level: str, seed: str, time_limit: float | None) -> tuple[int, int, str]:
    """The AI's move on `board_text` and the reason id for it, reproducible from `seed`."""
    from engine.ai import choose_move, explain

    board = Board.from_text(board_text)
    row, col = choose_move(board, level, rng=random.Random(seed), time_limit=time_limit)
    # A fresh copy: explain must see the position before the move, whatever the search left.
    reason = explain(Board.from_text(board_text), (row, col))
    return row, col, reason


def warm_up() -> bool:
    """Imports the engine in a fresh worker so the first real move does not pay for it."""
    import engine.ai  # noqa: F401

    return True
