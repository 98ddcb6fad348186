"""`caro puzzle`: mine puzzles from finished games (records or AI-vs-AI games), solve one in the
terminal, and export the hardest as a file a person can share (engine.analysis.puzzles)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from ..analysis.puzzles import (
    Limits,
    Puzzle,
    Refutation,
    Verdict,
    check_move,
    dedupe,
    hardest,
    load_puzzles,
    mine,
    self_play,
    share_text,
    write_puzzles,
)
from ..game.board import Board
from ..game.notation import MAX_SIDE, parse_size
from ..game.records import RecordError, load_record
from ..game.types import LEVELS, Cell, MoveError, Rule
from .play import render, terminal_input, terminal_output

MAX_GAMES = 100_000
MAX_NODES = 100_000_000

InputFn = Callable[[str], str]
OutputFn = Callable[[str], None]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    mine_p = sub.add_parser("mine", help="find puzzles in finished games")
    mine_p.add_argument("games", nargs="*", metavar="GAME", help="caro records or .psq files")
    mine_p.add_argument("--out", required=True, metavar="FILE", help="puzzles (JSON lines)")
    mine_p.add_argument("--k", type=int, default=None, help="k for .psq files (default 5)")
    mine_p.add_argument("--rule", default=None, help="rule for .psq files and --self-play")
    mine_p.add_argument("--self-play", type=int, default=0, metavar="N", help="mine N AI games")
    mine_p.add_argument("--size", default="15x15", help="board of the --self-play games")
    mine_p.add_argument(
        "--levels", default="hard,impossible", help="the two AI levels of --self-play"
    )
    mine_p.add_argument("--seed", type=int, default=1, help="seed of the --self-play games")
    mine_p.add_argument(
        "--move-nodes", type=int, default=2000, metavar="N", help="nodes per self-play move"
    )
    mine_p.add_argument(
        "--nodes", type=int, default=Limits().oracle_nodes, metavar="N",
        help="nodes of each threat search in a proof",
    )
    mine_p.add_argument(
        "--min-moves", type=int, default=3, metavar="N", help="attacking moves a puzzle needs"
    )

    play_p = sub.add_parser("play", help="solve a puzzle in the terminal")
    play_p.add_argument("file", metavar="FILE", help="puzzles from `caro puzzle mine` or export")
    play_p.add_argument("--index", type=int, default=1, metavar="N", help="which (from 1)")

    export_p = sub.add_parser("export", help="the hardest puzzles as a file to share")
    export_p.add_argument("file", metavar="FILE")
    export_p.add_argument("--hardest", type=int, default=10, metavar="N")
    export_p.add_argument("--out", required=True, metavar="SHARE")


def run(args: argparse.Namespace) -> int:
    if args.action == "mine":
        return _mine(args)
    if args.action == "play":
        return _play(args)
    return _export(args)


def _fail(text: str, code: int) -> int:
    print(f"caro puzzle: {text}", file=sys.stderr)
    return code


def _load(path: str) -> list[Puzzle] | int:
    try:
        puzzles = load_puzzles(path)
    except OSError as exc:
        return _fail(f"cannot read {path}: {exc.strerror or exc}", 1)
    except (UnicodeDecodeError, ValueError) as exc:
        return _fail(f"{path}: {exc}", 1)
    if not puzzles:
        return _fail(f"{path}: no puzzles in it", 1)
    return puzzles


# ----------------------------------------------------------------------------- mine
def _mine(args: argparse.Namespace) -> int:
    try:
        if not args.games and args.self_play <= 0:
            raise ValueError("give GAME files or --self-play N")
        if not 0 <= args.self_play <= MAX_GAMES:
            raise ValueError(f"--self-play must be from 0 to {MAX_GAMES}")
        if not 1 <= args.nodes <= MAX_NODES or not 1 <= args.move_nodes <= MAX_NODES:
            raise ValueError(f"--nodes and --move-nodes must be from 1 to {MAX_NODES}")
        if args.min_moves < 1:
            raise ValueError("--min-moves must be at least 1")
        if args.k is not None and not 1 <= args.k <= MAX_SIDE:
            raise ValueError(f"--k must be from 1 to {MAX_SIDE}, not {args.k}")
        rule = Rule.parse(args.rule) if args.rule is not None else Rule.FREESTYLE
        rows, cols, k = parse_size(args.size).with_k()
        levels = tuple(part.strip().lower() for part in args.levels.split(","))
        if len(levels) != 2 or any(level not in LEVELS for level in levels):
            raise ValueError(f"--levels must be two of {', '.join(LEVELS)}, like hard,impossible")
        with open(args.out, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}", 2)
    except ValueError as exc:
        return _fail(str(exc), 2)
    limits = Limits(oracle_nodes=args.nodes)
    games: list[tuple[str, Board]] = []
    for path in args.games:
        try:
            record = load_record(path, k=args.k, rule=args.rule)
        except OSError as exc:
            return _fail(f"cannot read {path}: {exc.strerror or exc}", 1)
        except (RecordError, ValueError) as exc:
            return _fail(f"{path}: {exc}", 1)
        games.append((path, record.board()))
    start = time.perf_counter()
    found: list[Puzzle] = []
    played = self_play(
        args.self_play, rows, cols, k, rule,
        levels=(levels[0], levels[1]), node_limit=args.move_nodes, seed=args.seed,
    )
    for name, board in [*games, *played]:
        mined = mine(board, source=name, limits=limits, min_moves=args.min_moves)
        found.extend(mined)
        print(f"{name}: {len(mined)} puzzle{'s' if len(mined) != 1 else ''}", flush=True)
    puzzles = dedupe(found)
    write_puzzles(puzzles, args.out)
    print(f"{len(puzzles)} puzzles written to {args.out} in {time.perf_counter() - start:.1f} s")
    return 0


# ----------------------------------------------------------------------------- play
def _play(args: argparse.Namespace) -> int:
    puzzles = _load(args.file)
    if isinstance(puzzles, int):
        return puzzles
    if not 1 <= args.index <= len(puzzles):
        return _fail(f"--index must be from 1 to {len(puzzles)}", 2)

    solved = play_puzzle(
        puzzles[args.index - 1], args.index, len(puzzles), terminal_input, terminal_output
    )
    return 0 if solved else 1


def play_puzzle(
    puzzle: Puzzle, number: int, total: int, read: InputFn, output: OutputFn
) -> bool:
    """Solve `puzzle` move by move against the engine's defence; True once it is solved."""
    board = puzzle.board()
    me = puzzle.to_move
    output(
        f"Puzzle {number} of {total}: {me.name} to play and win ({puzzle.kind.value}, "
        f"difficulty {puzzle.difficulty}, {puzzle.moves} moves). "
        f"From {puzzle.source or 'a game'}, after move {puzzle.ply}."
    )
    output("Type a cell like H8; 'hint' shows a winning move, 'quit' leaves.")
    while True:
        output(render(board))
        try:
            text = read(f"{me.name} to move: ").strip()
        except EOFError:
            output("")
            output(f"Not solved. A solution: {' '.join(puzzle.line)}")
            return False
        if text.lower() in ("quit", "exit", "q"):
            output(f"Not solved. A solution: {' '.join(puzzle.line)}")
            return False
        if text.lower() == "hint":
            output(_hint(board))
            continue
        try:
            checked = check_move(board, text)
        except (MoveError, ValueError) as exc:
            output(f"{exc}. Try again.")
            continue
        name = board.move_name(checked.move)
        if checked.verdict is Verdict.SOLVED:
            board.push(checked.move)
            outcome = board.outcome()
            output(render(board, outcome.line if outcome is not None else ()))
            output(f"{name} wins. Solved!")
            return True
        if checked.verdict is Verdict.WINNING and checked.reply is not None:
            board.push(checked.move)
            board.push(checked.reply)
            output(f"{name} still wins. The defence: {board.move_name(checked.reply)}.")
            continue
        if checked.verdict is Verdict.UNKNOWN:
            output(f"{name}: the engine could not decide it within its limits. Try another move.")
            continue
        output(f"{name} does not win: {_why(board, checked.reason, checked.line)}")
        output("Try again.")


def _why(board: Board, reason: Refutation | None, line: tuple[Cell, ...]) -> str:
    names = " ".join(board.move_name(c) for c in line)
    if not line:
        return "it ends the game without a win."
    reply = board.move_name(line[0])
    if reason is Refutation.DEFENDER_WINS:
        return f"the defence {reply} wins for the defender ({names})."
    if reason is Refutation.DRAW:
        return f"after {reply} the defender holds a draw ({names})."
    return f"after {reply} no forced win is left (then {names})."


def _hint(board: Board) -> str:
    from ..analysis.puzzles import prove_board

    proof = prove_board(board)
    if proof is None:
        return "No proven win from here within the engine's limits."
    return f"Try {board.move_name(proof.line[0])}."


# ----------------------------------------------------------------------------- export
def _export(args: argparse.Namespace) -> int:
    if args.hardest < 1:
        return _fail("--hardest must be at least 1", 2)
    puzzles = _load(args.file)
    if isinstance(puzzles, int):
        return puzzles
    chosen = hardest(puzzles, args.hardest)
    try:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(share_text(chosen))
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}", 1)
    print(f"{len(chosen)} puzzles written to {args.out}")
    return 0
