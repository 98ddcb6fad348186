"""CPU time to draw a board's components, the fast way and the plain way (CARO_FAST_DRAWING).

Run: python -m bench.drawing [--repeats N] [--rounds R]
Draws each board (game_view, then the components discord.py would send) N times per round, the
two ways alternating round by round, inside an event loop as the bot draws; prints the median
microseconds per drawing of each way and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import bot.cogs  # noqa: F401  (the feature cogs register the buttons the drawing makes)
from bot.game import ratings
from bot.game.model import GameRow, GameState, Mode, MoveRow, Status, load_state
from bot.ui import drawing
from bot.ui.render import game_view
from engine.game.types import Level


def board(size: int, k: int, moves: list[str]) -> GameState:
    """Member 42 playing X against "easy" (Hint offered), `moves` played."""
    row = GameRow(
        id=7, guild_id=1, channel_id=2, message_id=3, mode=Mode.AI, x=42, o=Level.EASY,
        started_by=42, rows=size, cols=size, k=k, rule="freestyle", status=Status.ACTIVE,
        winner=None, end_reason=None, rated=ratings.rated(Mode.AI, size, size, k), ply=len(moves),
        moves=tuple(MoveRow(i, cell, i % 2 == 1, None) for i, cell in enumerate(moves)),
    )
    return load_state(row)


BOARDS = {
    "3x3 (plain message)": board(3, 3, ["B2", "A1"]),
    "5x5 (layout)": board(5, 4, ["C3", "B2"]),
    "15x15 (layout, window)": board(15, 5, ["H8", "G7"]),
}


async def measure(state: GameState, repeats: int, rounds: int) -> dict[bool, float]:
    spent: dict[bool, list[float]] = {True: [], False: []}
    for number in range(rounds):
        for fast in (True, False) if number % 2 == 0 else (False, True):
            drawing.use_fast(fast)
            start = time.process_time()
            for _ in range(repeats):
                game_view(state).to_components()
            spent[fast].append((time.process_time() - start) / repeats * 1e6)
    return {fast: statistics.median(times) for fast, times in spent.items()}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.drawing",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000, help="drawings per round")
    parser.add_argument("--rounds", type=int, default=6, help="rounds, the ways alternating")
    args = parser.parse_args()
    print(f"{'board':<24} {'fast':>8} {'plain':>8} {'plain/fast':>10}")
    for name, state in BOARDS.items():
        median = asyncio.run(measure(state, args.repeats, args.rounds))
        print(f"{name:<24} {median[True]:>6.0f}us {median[False]:>6.0f}us "
              f"{median[False] / median[True]:>9.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
