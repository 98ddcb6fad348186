"""What runs in the AI process pool: one AI decision, from plain picklable arguments.

Kept tiny and free of Discord imports so spawned worker processes start quickly.
"""

from __future__ import annotations

import os
import random
import threading
import time

from engine import Board

PARENT_CHECK_INTERVAL = 1.0
WORKER_NICENESS = 10


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


def exit_with_parent(parent: int) -> None:
    """Pool initializer: end this worker when the bot process `parent` is gone.

    After a SIGKILL of the bot nothing tells its workers: each holds its own end of the task
    pipe open, so it never sees EOF, and every crash would leave the workers (and
    multiprocessing's resource tracker, which waits for them) running for ever. The pid comes
    from the bot, not from getppid() here: the bot may already be dead when this runs.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_INTERVAL)
        os._exit(0)

    threading.Thread(target=watch, name="caro-exit-with-parent", daemon=True).start()


def init_worker(parent: int) -> None:
    """Pool initializer: follow the bot's life, and yield the CPU to it.

    Searches are batch work bounded by their own time limit; the bot's event loop answers
    people and must win the CPU when both want it (bench/load.py measures the difference).
    """
    exit_with_parent(parent)
    os.nice(WORKER_NICENESS)
