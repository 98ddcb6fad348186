"""`caro review FILE`: the AI's review of a recorded game, its turning points and a summary per
player; `caro review --bench` times the review of a generated 60-move 15x15 game."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from ..analysis.review import DEFAULT_BUDGET_S, DEFAULT_NODE_LIMIT, Review, review_game
from ..game.board import Board
from ..game.notation import MAX_SIDE, parse_size
from ..game.records import GameRecord, RecordError, load_record
from ..game.types import Level, Rule

# Bounds of the options: a review is meant to take seconds to a few minutes, not hours.
MAX_BUDGET_S = 3600.0
MAX_NODE_LIMIT = 10_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        nargs="?",
        help="a caro record (.caro), a piskvork .psq file or a board text line",
    )
    parser.add_argument("--k", type=int, default=None, help="k for .psq files (default 5)")
    parser.add_argument("--rule", default=None, help="rule for .psq files (default freestyle)")
    parser.add_argument(
        "--nodes",
        default=str(DEFAULT_NODE_LIMIT),
        metavar="N",
        help=f"positions the AI may search per move reviewed (default {DEFAULT_NODE_LIMIT}); "
        "the same N gives the same review on any machine",
    )
    parser.add_argument(
        "--budget",
        default=str(DEFAULT_BUDGET_S),
        metavar="S",
        help=f"stop after S seconds, reviewing the moves reached (default {DEFAULT_BUDGET_S:g})",
    )
    parser.add_argument("--json", action="store_true", help="print the review as JSON")
    parser.add_argument(
        "--bench",
        action="store_true",
        help="no FILE: time the review of a 60-move 15x15 game played by the AI",
    )
    parser.add_argument(
        "--bench-moves", type=int, default=60, metavar="N", help="moves of the --bench game"
    )
    parser.add_argument(
        "--bench-size", default="15x15", metavar="SIZE", help="board of the --bench game"
    )


def _number(text: str, what: str, low: float, high: float, whole: bool) -> float:
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise ValueError(f"{what} must be {kind} from {low:g} to {high:g}, not {text!r}") from None
    if not low <= value <= high:
        raise ValueError(f"{what} must be from {low:g} to {high:g}, not {text}")
    return value


def bench_game(rows: int, cols: int, k: int, moves: int, seed: int = 1) -> Board:
    """A game of `moves` plies between two normal AIs, neither having won: the first seed whose
    game lasts that long (games that end sooner are skipped), cut at `moves`."""
    from ..ai import choose_move

    for attempt in range(seed, seed + 200):
        rng = random.Random(attempt)
        board = Board(rows, cols, k, Rule.FREESTYLE)
        while board.ply < moves and not board.is_over():
            board.push(choose_move(board, Level.NORMAL, rng=rng, node_limit=300))
        if board.ply == moves and not board.is_over():
            return board
    raise RuntimeError(f"no game of {moves} moves found on {rows}x{cols}")


def _print_progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\rreviewing move {done}/{total}", end="" if done < total else "\n", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        node_limit = int(_number(args.nodes, "--nodes", 1, MAX_NODE_LIMIT, whole=True))
        budget = _number(args.budget, "--budget", 0.1, MAX_BUDGET_S, whole=False)
        if args.bench and args.file:
            raise ValueError("give either FILE or --bench, not both")
        if not args.bench and not args.file:
            raise ValueError("give the FILE of a game to review (or --bench)")
        if args.bench:
            rows, cols, k = parse_size(args.bench_size).with_k()
            if not 1 <= args.bench_moves < rows * cols:
                raise ValueError(f"--bench-moves must be from 1 to {rows * cols - 1}")
    except ValueError as exc:
        print(f"caro review: {exc}", file=sys.stderr)
        return 2
    if args.bench:
        return _bench(rows, cols, k, args.bench_moves, budget, node_limit)
    if args.k is not None and not 1 <= args.k <= MAX_SIDE:
        print(f"caro review: --k must be from 1 to {MAX_SIDE}, not {args.k}", file=sys.stderr)
        return 2
    try:
        record = load_record(args.file, k=args.k, rule=args.rule)
    except OSError as exc:
        print(f"caro review: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except (RecordError, ValueError) as exc:
        print(f"caro review: {args.file}: {exc}", file=sys.stderr)
        return 1
    review = review_record(record, budget, node_limit)
    if args.json:
        print(json.dumps(review.to_dict(), indent=2))
    else:
        print(review.text((record.x_name, record.o_name)))
    return 0


def review_record(record: GameRecord, budget: float, node_limit: int) -> Review:
    return review_game(
        record.moves,
        record.rows,
        record.cols,
        record.k,
        record.rule,
        budget,
        node_limit=node_limit,
        progress=_print_progress,
    )


def _bench(rows: int, cols: int, k: int, moves: int, budget: float, node_limit: int) -> int:
    board = bench_game(rows, cols, k, moves)
    print(f"game: {board.text()}")
    start, cpu = time.perf_counter(), time.process_time()
    review = review_game(
        board.moves,
        rows,
        cols,
        k,
        board.rule,
        budget,
        node_limit=node_limit,
        progress=_print_progress,
    )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        f"reviewed {len(review.move_reviews)}/{moves} moves of a {rows}x{cols} k{k} game "
        f"in {seconds:.1f} s ({cpu:.1f} s of CPU) at {node_limit} nodes a position "
        f"(cap {budget:g} s): "
        f"{len(review.turning_points)} turning points, complete={review.complete}"
    )
    return 0
