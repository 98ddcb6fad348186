"""Solver speed figures: `python -m engine.programs.solver_bench [--with-5x5]`.

Prints, for a cold process: the time and nodes to solve the empty (4,4,4) and (4,5,4) boards,
and the median and 99th-percentile time of perfect_move on tic-tac-toe after the first call
(which builds the whole 3x3 table). Figures, not pass/fail: the machine's load shows in them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from .. import solver
from ..board import Board


def _solve_empty(rows: int, cols: int, k: int) -> None:
    solver.clear_tables()
    result = solver.analyse(Board(rows, cols, k))
    words = {1: "first player wins", 0: "draw", -1: "second player wins"}[result.value]
    best = "-" if result.best_move is None else Board(rows, cols, k).move_name(result.best_move)
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    print(
        f"({rows},{cols},{k}): {words}, best move {best}, {result.plies} plies,"
        f" {result.nodes:,} nodes,"
        f" {result.seconds:.3f} s, {rate:,.0f} nodes/s"
    )


def _tic_tac_toe(games: int, seed: int) -> None:
    solver.clear_tables()
    start = time.perf_counter()
    solver.perfect_move(Board(3, 3, 3))
    build = time.perf_counter() - start
    rng = random.Random(seed)
    times: list[float] = []
    for _ in range(games):
        board = Board(3, 3, 3)
        while not board.is_over():
            start = time.perf_counter()
            cell = solver.perfect_move(board, rng=rng)
            times.append(time.perf_counter() - start)
            board.push(cell)
    times.sort()
    p99 = times[int(len(times) * 0.99) - 1]
    print(
        f"3x3 perfect_move: first call (builds the table) {build * 1000:.1f} ms; then"
        f" {len(times)} moves, median {statistics.median(times) * 1000:.4f} ms,"
        f" p99 {p99 * 1000:.4f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-5x5", action="store_true", help="also solve (5,5,4): minutes")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    _tic_tac_toe(200, args.seed)
    _solve_empty(4, 4, 4)
    _solve_empty(4, 5, 4)
    if args.with_5x5:
        _solve_empty(5, 5, 4)


if __name__ == "__main__":
    main()
