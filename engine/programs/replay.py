"""`caro replay FILE`: a recorded game (caro record, .psq or a board text line) in the terminal,
stepped through by hand or played back as an animation."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable

from ..game.board import Board
from ..game.notation import MAX_SIDE, cell_name, player_label
from ..game.records import GameRecord, RecordError, load_record
from ..game.types import Cell, Mark
from .play import render

InputFn = Callable[[str], str]
OutputFn = Callable[[str], None]

STEP_HELP = "Enter or n: next move, p: back, f: first, l: last, a number: that move, q: quit"
# ANSI reverse video for the winning stones on a terminal; lower case letters elsewhere.
_REVERSE, _RESET = "\x1b[7m", "\x1b[0m"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", help="a caro record (.caro), a piskvork .psq file or a board text line"
    )
    parser.add_argument("--k", type=int, default=None, help="k for .psq files (default 5)")
    parser.add_argument("--rule", default=None, help="rule for .psq files (default freestyle)")
    parser.add_argument(
        "--animate",
        action="store_true",
        help="play the game back by itself instead of stepping through it",
    )
    parser.add_argument(
        "--delay",
        type=float,
        default=0.8,
        metavar="S",
        help="seconds between moves with --animate (default 0.8)",
    )


def board_text(record: GameRecord, ply: int, *, colour: bool = False) -> str:
    """The position after `ply` moves: a caption, the board (last move in brackets) and, at the
    end, the result with the winning line marked on the board."""
    board = record.board(ply)
    total = len(record.moves)
    if ply == 0:
        caption = f"Start: {record.spec}, {total} move{'' if total == 1 else 's'}"
    else:
        mover = Mark.X if ply % 2 == 1 else Mark.O
        who = player_label(record.name_of(mover), mover)
        caption = f"Move {ply}/{total}: {who} {cell_name(record.moves[ply - 1])}"
    drawing = render(board)
    outcome = board.outcome()
    lines = [caption]
    if outcome is not None and outcome.line:
        drawing = _mark_line(board, drawing, outcome.line, colour)
    lines.append(drawing)
    if ply == total:
        lines.append(result_text(record))
    return "\n".join(lines)


def result_text(record: GameRecord) -> str:
    board = record.board()
    winner = record.winner
    if winner is None:
        return "Draw: the board is full" if board.is_over() else "Not finished"
    who = player_label(record.name_of(winner), winner)
    outcome = board.outcome()
    if outcome is not None and outcome.line:
        return f"{who} wins: " + " ".join(cell_name(c) for c in outcome.line)
    how = {"resign": "the other side resigned", "timeout": "the other side ran out of time"}
    return f"{who} wins: {how.get(record.ending.value, record.ending.value)}"


def _mark_line(board: Board, drawing: str, line: Iterable[Cell], colour: bool) -> str:
    """The winning stones in reverse video (terminal) or lower case (plain text)."""
    rows = drawing.split("\n")
    for row, col in line:
        text = rows[row + 1]
        # Each cell is drawn at a fixed column: width of the row label, then 2 characters a cell.
        at = len(str(board.rows)) + 1 + 2 * col
        symbol = text[at] if at < len(text) else ""
        if symbol not in ("X", "O"):
            continue  # already marked some other way by the board drawing: leave it
        marked = f"{_REVERSE}{symbol}{_RESET}" if colour else symbol.lower()
        rows[row + 1] = text[:at] + marked + text[at + 1 :]
    return "\n".join(rows)


def step(
    record: GameRecord, input_fn: InputFn, output_fn: OutputFn, *, colour: bool = False
) -> None:
    """Step through the game by commands (see STEP_HELP) until q or the end of input."""
    total = len(record.moves)
    ply = 0
    output_fn(STEP_HELP)
    output_fn(board_text(record, ply, colour=colour))
    while True:
        try:
            command = input_fn("> ").strip().lower()
        except EOFError:
            return
        if command in ("", "n", "next"):
            if ply == total:
                output_fn("That was the last move (p: back, f: first, q: quit).")
                continue
            ply += 1
        elif command in ("p", "b", "back", "prev"):
            if ply == 0:
                output_fn("This is the start (n: next, l: last, q: quit).")
                continue
            ply -= 1
        elif command in ("f", "first"):
            ply = 0
        elif command in ("l", "last"):
            ply = total
        elif command in ("q", "quit", "exit"):
            return
        elif command.isdigit() and command.isascii():
            wanted = int(command)
            if wanted > total:
                output_fn(
                    f"The game has {total} move{'' if total == 1 else 's'}: give 0 to {total}."
                )
                continue
            ply = wanted
        else:
            output_fn(STEP_HELP)
            continue
        output_fn(board_text(record, ply, colour=colour))


def animate(
    record: GameRecord,
    output_fn: OutputFn,
    delay: float,
    *,
    clear: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Every position from the start to the end, `delay` seconds apart."""
    for ply in range(len(record.moves) + 1):
        if ply:
            sleep(delay)
        if clear:
            output_fn("\x1b[H\x1b[2J")
        output_fn(board_text(record, ply, colour=clear))


def run(args: argparse.Namespace) -> int:
    if not (args.delay >= 0):
        print("caro replay: --delay must be 0 seconds or more", file=sys.stderr)
        return 2
    if args.k is not None and not 1 <= args.k <= MAX_SIDE:
        print(f"caro replay: --k must be from 1 to {MAX_SIDE}, not {args.k}", file=sys.stderr)
        return 2
    try:
        record = load_record(args.file, k=args.k, rule=args.rule)
    except OSError as exc:
        print(f"caro replay: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except (RecordError, ValueError) as exc:
        print(f"caro replay: {args.file}: {exc}", file=sys.stderr)
        return 1
    tty = sys.stdout.isatty()
    if args.animate:
        animate(record, print, args.delay, clear=tty)
    else:
        step(record, input, print, colour=tty)
    return 0
