"""Review under load: while one member's game review runs in the AI pool, how long does another
member wait for an AI move?

    python -m bench.review_load --moves 60 --slice 1.0 --duration 30 --level impossible

The bot's FairPool (2 spawned workers, as the bot runs it) serves "alice", whose 60-move 15x15
game is reviewed in slices of `--slice` seconds (begin_review / continue_review /
conclude_review, as the /caro review command is meant to run it), and "bob", who asks for
`--level` moves on a 15x15 position one after another. Bob's reply times are measured first with
the pool to himself (the baseline) and then while the review runs.

Printed: bob's reply times (p50/p95/max) without and with the review, and the review's own time.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from bot.cpu.jobs import think
from bot.cpu.jobs import warm_up as start_worker
from bot.cpu.pool import FairPool, process_pool
from engine import Board, Level
from engine.ai import warm_up
from engine.analysis.review import ReviewWork, begin_review, conclude_review, continue_review
from engine.programs.review import bench_game
from engine.support.stats import percentile

BOB_POSITION = "15x15 k5 freestyle H8 I9 I8 G8"


async def bob_moves(pool: FairPool, level: str, until: float, times: list[float]) -> None:
    board = Board.from_text(BOB_POSITION)
    seed = 0
    while time.perf_counter() < until:
        seed += 1
        start = time.perf_counter()
        await pool.run("bob", think, board.text(), level, str(seed), None)
        times.append(time.perf_counter() - start)


async def review(pool: FairPool, board: Board, slice_s: float) -> tuple[float, int]:
    start = time.perf_counter()
    work: ReviewWork = begin_review(board.moves, board.rows, board.cols, board.k, board.rule)
    slices = 0
    while not work.analysed:
        work = await pool.run("alice", continue_review, work, slice_s)
        slices += 1
    result = await pool.run("alice", conclude_review, work, 30.0)
    assert result.complete
    return time.perf_counter() - start, slices


def line(name: str, times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    return (
        f"{name}: n={len(ms)}, p50 {percentile(ms, 0.5):.0f} ms, "
        f"p95 {percentile(ms, 0.95):.0f} ms, max {ms[-1]:.0f} ms"
    )


async def main(args: argparse.Namespace) -> int:
    game = bench_game(15, 15, 5, args.moves)
    # Built before the workers start, as `caro-bot --prepare` does; each worker then loads it.
    warm_up()
    pool = FairPool(lambda: process_pool(2), 2)
    try:
        await pool.broadcast(start_worker)
        alone: list[float] = []
        await bob_moves(pool, args.level, time.perf_counter() + args.duration / 2, alone)
        loaded: list[float] = []
        review_task = asyncio.create_task(review(pool, game, args.slice))
        await bob_moves(pool, args.level, time.perf_counter() + args.duration, loaded)
        seconds, slices = await review_task
    finally:
        await pool.close()
    print(line("bob alone", alone))
    print(line("bob during the review", loaded))
    print(f"review of {args.moves} moves: {seconds:.1f} s in {slices} slices of ~{args.slice:g} s")
    return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.review_load", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--moves", type=int, default=60, help="moves of the reviewed game")
    parser.add_argument("--level", default="impossible", help="bob's AI level")
    parser.add_argument("--slice", type=float, default=1.0, help="seconds per review slice")
    parser.add_argument(
        "--duration", type=float, default=30.0, help="seconds bob plays during the review"
    )
    args = parser.parse_args(argv)
    if not (args.slice > 0 and args.duration > 0 and 1 <= args.moves <= 200):
        parser.error("--slice and --duration must be above 0, --moves from 1 to 200")
    try:
        args.level = Level.parse(args.level).value
    except ValueError as exc:
        parser.error(str(exc))
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
