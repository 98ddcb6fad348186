"""`caro solve`: the game-theoretic value of an m,n,k game or of a position in it."""

from __future__ import annotations

import argparse
import re
import sys

from ..game.board import Board
from ..game.notation import parse_size
from ..game.types import Mark, Rule
from ..solve.solver import SolveTimeout, analyse

_K_RE = re.compile(r"\s*[0-9]+\s*")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("size", help="board size as ROWSxCOLS, e.g. 4x4")
    parser.add_argument("k", help="stones in a row needed to win, e.g. 4")
    parser.add_argument(
        "--rule",
        default="freestyle",
        help="freestyle (k or more wins), exact (exactly k) or caro (exactly k, not blocked at "
        "both ends); default freestyle",
    )
    parser.add_argument(
        "--time-limit",
        metavar="S",
        default=None,
        help="give up after S seconds (default: no limit; 5x5 takes seconds, 6x5 about a "
        "minute, larger boards rarely finish)",
    )
    parser.add_argument(
        "--moves",
        default="",
        help='moves already played, X first, e.g. "B2 A1"; the value is then for the side to move',
    )


def _board_from_args(args: argparse.Namespace) -> tuple[Board, float | None]:
    """The position and time limit the arguments describe; ValueError with the reason if bad."""
    size = parse_size(str(args.size))
    if _K_RE.fullmatch(str(args.k)) is None:
        raise ValueError(f"k must be a whole number, not {args.k!r}")
    rows, cols, k = size.with_k(int(str(args.k)))
    board = Board(rows, cols, k, Rule.parse(str(args.rule)))
    time_limit: float | None = None
    if args.time_limit is not None:
        try:
            time_limit = float(args.time_limit)
        except ValueError:
            raise ValueError(
                f"--time-limit must be a number of seconds, not {args.time_limit!r}"
            ) from None
        if not time_limit > 0:
            raise ValueError(f"--time-limit must be more than 0 seconds, not {args.time_limit}")
    for name in str(args.moves).replace(",", " ").split():
        if board.is_over():
            raise ValueError(f"the game is already over before {name}")
        board.push_name(name)
    if board.is_over():
        outcome = board.outcome()
        winner = None if outcome is None else outcome.winner
        result = "a draw" if winner is None else f"won by {winner}"
        raise ValueError(f"the game is already over ({result}): nothing to solve")
    return board, time_limit


def _verdict(board: Board, value: int) -> str:
    if board.ply == 0:
        return {1: "first player wins", 0: "draw", -1: "second player wins"}[value]
    mover: Mark = board.turn
    if value == 0:
        return f"draw ({mover} to move)"
    winner = mover if value == 1 else mover.other
    return f"{winner} wins ({mover} to move)"


def run(args: argparse.Namespace) -> int:
    try:
        board, time_limit = _board_from_args(args)
    except ValueError as error:
        print(f"caro solve: {error}", file=sys.stderr)
        return 2
    title = board.text()
    try:
        result = analyse(board, time_limit=time_limit)
    except SolveTimeout as timeout:
        print(f"{title}: not proven ({timeout}).", file=sys.stderr)
        rate = timeout.nodes / timeout.seconds if timeout.seconds > 0 else 0.0
        print(
            f"nodes: {timeout.nodes:,} in {timeout.seconds:.2f} s ({rate:,.0f} nodes/s)",
            file=sys.stderr,
        )
        return 1
    best = board.move_name(result.best_move) if result.best_move is not None else "-"
    rate = result.nodes / result.seconds if result.seconds > 0 else 0.0
    print(f"{title}: {_verdict(board, result.value)}")
    print(f"best move: {best}")
    print(f"plies to the end: {result.plies}")
    known = " (taken from the table of solved positions)" if result.nodes == 0 else ""
    print(f"nodes: {result.nodes:,}{known}")
    print(f"time: {result.seconds:.3f} s ({rate:,.0f} nodes/s)")
    return 0
