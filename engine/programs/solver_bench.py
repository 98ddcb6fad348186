"""Solver speed figures: `python -m engine.programs.solver_bench [--with-5x5] [--bounded S]`.

Prints, for a cold process: the time and nodes to solve the empty (4,4,4) and (4,5,4) boards
(and (5,5,4) with --with-5x5), the median and 99th-percentile time of perfect_move on
tic-tac-toe after the first call (which builds the whole 3x3 table), and with --bounded S how far
S seconds get on the empty (6,5,4) and (5,6,4) boards. Every line ends with the process's peak
memory so far. Figures, not pass/fail: the machine's load shows in them.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time

from ..game.board import Board
from ..solve import solver


def _peak() -> str:
    # ru_maxrss is in kilobytes on Linux.
    return f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB"


def _warm_up() -> None:
    from ..ai import warm_up

    start = time.perf_counter()
    warm_up()
    print(f"compiled core loaded (or compiled) in {time.perf_counter() - start:.2f} s")


def _solve_empty(rows: int, cols: int, k: int, time_limit: float | None = None) -> None:
    solver.clear_tables()
    try:
        result = solver.analyse(Board(rows, cols, k), time_limit=time_limit)
    except solver.SolveTimeout as timeout:
        rate = timeout.nodes / timeout.seconds if timeout.seconds > 0 else 0.0
        print(
            f"({rows},{cols},{k}): not proven in {timeout.seconds:.1f} s,"
            f" {timeout.nodes:,} nodes, {rate:,.0f} nodes/s; {_peak()}"
        )
        return
    words = {1: "first player wins", 0: "draw", -1: "second player wins"}[result.value]
    best = "-" if result.best_move is None else Board(rows, cols, k).move_name(result.best_move)
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    print(
        f"({rows},{cols},{k}): {words}, best move {best}, {result.plies} plies,"
        f" {result.nodes:,} nodes,"
        f" {result.seconds:.3f} s, {rate:,.0f} nodes/s; {_peak()}"
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
    parser.add_argument(
        "--with-5x5", action="store_true", help="also solve (5,5,4): seconds, ~300 MB"
    )
    parser.add_argument(
        "--bounded",
        type=float,
        metavar="S",
        default=None,
        help="also try (6,5,4) and (5,6,4) for at most S seconds each",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    _warm_up()
    _tic_tac_toe(200, args.seed)
    _solve_empty(4, 4, 4)
    _solve_empty(4, 5, 4)
    if args.with_5x5:
        _solve_empty(5, 5, 4)
    if args.bounded is not None:
        _solve_empty(6, 5, 4, args.bounded)
        _solve_empty(5, 6, 4, args.bounded)


if __name__ == "__main__":
    main()
