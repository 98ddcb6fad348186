"""How long bot.ui.pictures.render_board takes (PNG bytes included), per board size and stones.

Run: python bench/render_bench.py [--repeats N] [--seed S]
Prints p50/p95/max in milliseconds of warm renders (the cached empty board and stones already
built, as in a running bot) and, separately, the one-off cost of the first render of a size.
The target: a 19x19 mid-game board in <= 30 ms at p95.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bot.ui.pictures import THEMES, clear_caches, render_board
from bot.ui.window import initial_window
from engine import Board, Rule
from engine.support.stats import percentile

SIZES = (9, 15, 19, 26)
FILLS = (0.0, 0.1, 0.3, 0.6)  # share of the cells holding a stone


def position(size: int, stones: int, rng: random.Random) -> Board:
    """A random game of `stones` moves that avoids ending early, so every stone is on the board."""
    board = Board(size, size, 5, Rule.FREESTYLE)
    cells = [(r, c) for r in range(size) for c in range(size)]
    rng.shuffle(cells)
    for cell in cells:
        if board.ply == stones:
            break
        board.push(cell)
        if board.is_over():
            board.pop()
    return board


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=60, help="renders per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--theme", default="wood", choices=sorted(THEMES))
    args = parser.parse_args()
    rng = random.Random(args.seed)

    print(f"{'board':>6} {'stones':>6} {'first':>8} {'p50':>7} {'p95':>7} {'max':>7} {'KiB':>6}")
    for size in SIZES:
        for fill in FILLS:
            board = position(size, round(fill * size * size), rng)
            window = initial_window(board)
            clear_caches()
            start = time.perf_counter()
            png = render_board(board, window=window, theme=args.theme)
            first = (time.perf_counter() - start) * 1000
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                render_board(board, window=window, theme=args.theme)
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            print(
                f"{size:>3}x{size:<2} {board.ply:>6} {first:>8.1f} {statistics.median(times):>7.2f} "
                f"{percentile(times, 0.95):>7.2f} {times[-1]:>7.2f} {len(png) / 1024:>6.1f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
