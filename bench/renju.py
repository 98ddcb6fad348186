"""Renju's forbidden-move check: time per call of engine.game.renju and of its brute-force reference
(engine.game._renju_reference), and how often the two disagree, over random 15x15 positions.

    python -m bench.renju
    python -m bench.renju --cells 20000 --seed 2 --stones 60-120

Positions are random clusters of stones with black partly laid as short broken rows, so that
threes, fours and overlines arise (see `random_position`). Every empty cell of each position is
checked by both implementations until `--cells` cells have been checked. Printed: positions and
cells checked; microseconds per call for engine.game.renju on a prepared `Stones`, for engine.game.renju
copying a Board's flat grid first (as a Board's own check would), and for the reference; the
time engine.game.renju takes to list a whole position's forbidden points; the forbidden cells by
shape; the allowed cells with two rows that look like threes of which fewer than two are real
(their straight-four points are forbidden or make a five); how many levels the real-three check
reached at most; and the disagreements, each listed.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from engine.game.board import DIRECTIONS
from engine.game.renju import Forbidden, Stones
from engine.game.types import Cell

# Black's pieces of rows, "X" a stone and "." a gap, laid along a random direction.
FRAGMENTS = ("X", "XX", "X.X", "XXX", "XX.X")


def random_position(
    rng: random.Random, size: int = 15, low: int = 20, high: int = 120
) -> list[list[int]]:
    """Rows of cell values (0 empty, 1 X, 2 O) holding `low` to `high` stones.

    Stones fall around one to three centres, scattered as in a game; about half are black, laid
    as the fragments above, and white stones are single. Colours are not balanced as in a real
    game: the check is defined for any position, and more black makes more shapes.
    """
    grid = [[0] * size for _ in range(size)]
    target = rng.randint(low, high)
    centres = [(rng.randrange(size), rng.randrange(size)) for _ in range(rng.randint(1, 3))]
    spread = rng.uniform(2.5, 5.0)
    black_share = rng.uniform(0.4, 0.6)
    placed = 0
    for _ in range(50 * target):
        if placed >= target:
            break
        centre_row, centre_col = rng.choice(centres)
        row = round(rng.gauss(centre_row, spread))
        col = round(rng.gauss(centre_col, spread))
        if rng.random() < black_share:
            dr, dc = rng.choice(DIRECTIONS)
            fragment = rng.choice(FRAGMENTS)
            cells = [(row + i * dr, col + i * dc) for i, ch in enumerate(fragment) if ch == "X"]
            value = 1
        else:
            cells = [(row, col)]
            value = 2
        if placed + len(cells) <= target and all(
            0 <= r < size and 0 <= c < size and grid[r][c] == 0 for r, c in cells
        ):
            for r, c in cells:
                grid[r][c] = value
            placed += len(cells)
    return grid


class _DepthStones(Stones):
    """Stones that record how deep the real-three check nests."""

    __slots__ = ("depth", "deepest")

    def __init__(self, rows: int, cols: int, grid: list[int]) -> None:
        super().__init__(rows, cols, grid)
        self.depth = 0
        self.deepest = 0

    def _verdict(self, index: int) -> int:
        self.depth += 1
        self.deepest = max(self.deepest, self.depth)
        try:
            return super()._verdict(index)
        finally:
            self.depth -= 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=100_000, help="empty cells to check")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stones", default="60-120", help="stones per position, LOW-HIGH")
    args = parser.parse_args()
    low, high = (int(x) for x in args.stones.split("-"))

    from engine.game._renju_reference import reference_forbidden, reference_threes

    rng = random.Random(args.seed)
    positions = cells_checked = 0
    fast_s = copy_s = reference_s = points_s = 0.0
    shapes: Counter[str] = Counter()
    fake = deepest = 0
    disagreements: list[tuple[list[list[int]], Cell, Forbidden | None, Forbidden | None]] = []
    while cells_checked < args.cells:
        grid = random_position(rng, 15, low, high)
        flat = [v for row in grid for v in row]
        empty = [(r, c) for r in range(15) for c in range(15) if grid[r][c] == 0]
        empty = empty[: args.cells - cells_checked]
        positions += 1
        cells_checked += len(empty)

        stones = Stones(15, 15, flat)
        start = time.perf_counter()
        fast = [stones.forbidden(cell) for cell in empty]
        fast_s += time.perf_counter() - start

        start = time.perf_counter()
        Stones.of(grid).forbidden_points()
        points_s += time.perf_counter() - start

        counting = _DepthStones(15, 15, flat)
        for cell in empty:
            counting.is_forbidden(cell)
        deepest = max(deepest, counting.deepest)

        start = time.perf_counter()
        for cell in empty:
            Stones(15, 15, flat).forbidden(cell)
        copy_s += time.perf_counter() - start

        start = time.perf_counter()
        reference = [reference_forbidden(grid, cell) for cell in empty]
        reference_s += time.perf_counter() - start

        for cell, mine, theirs in zip(empty, fast, reference, strict=True):
            if mine != theirs:
                disagreements.append((grid, cell, mine, theirs))
            if mine is not None:
                shapes[mine.shape.value] += 1
            elif len(reference_threes(grid, cell, check_points=False)) >= 2:
                # Allowed with two rows that look like threes: a five, or a three not real.
                fake += len(reference_threes(grid, cell)) < 2

    per = 1e6 / cells_checked
    print(f"positions: {positions} (15x15, {low}-{high} stones, seed {args.seed})")
    print(f"cells checked: {cells_checked}")
    print(f"engine.game.renju, prepared Stones: {fast_s * per:8.1f} us per call")
    print(f"engine.game.renju, copying the grid: {copy_s * per:7.1f} us per call")
    print(f"reference (brute force):       {reference_s * per:8.1f} us per call")
    print(f"engine.game.renju forbidden_points, whole position: {points_s / positions * 1e3:.2f} ms")
    print("forbidden cells: " + ", ".join(f"{k} {v}" for k, v in sorted(shapes.items()))
          + f" (total {sum(shapes.values())})")
    print(f"allowed cells with two rows that look like threes, fewer than two real: {fake}")
    print(f"levels of the real-three check reached (1: the cell alone): {deepest}")
    print(f"disagreements: {len(disagreements)} of {cells_checked} cells")
    for grid, cell, mine, theirs in disagreements[:20]:
        rows = ["".join(".XO"[v] for v in row) for row in grid]
        print(f"  {cell}: renju {mine}, reference {theirs}\n    " + "\n    ".join(rows))
    return 1 if disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
