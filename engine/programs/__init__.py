"""The `caro` command line: one subcommand per engine tool.

Each tool module exposes `add_arguments(parser)` and `run(args) -> int`. Only the chosen
subcommand's module is imported, so `caro play` never pays for the arena or the solver, and one
tool's import error cannot break the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("engine.programs.play", "play in the terminal, two people or against the AI"),
    "solve": ("engine.programs.solve", "perfect play on small boards: who wins, best move, plies"),
    "arena": ("engine.programs.arena", "round-robin tournament between AI levels, with Elo estimates"),
    "bench": ("engine.programs.bench", "move latency per level and board size, and solver times"),
    "pbrain": ("engine.programs.pbrain", "Gomocup/piskvork engine protocol (pbrain) on stdin/stdout"),
    "review": ("engine.programs.review", "the AI's review of a recorded game: its turning points"),
    "replay": ("engine.programs.replay", "step through or animate a recorded game in the terminal"),
    "puzzle": ("engine.programs.puzzle", "mine puzzles from finished games, solve one, export the hardest"),
    "prepare": ("engine.programs.prepare", "compile the search core into this host's cache, then exit"),
    "doctor": ("engine.programs.doctor", "this installation, and whether the search core is compiled"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The full parser, with arguments filled in for `command` only (all listed in --help)."""
    from engine import __version__
    from engine.support import cores

    parser = argparse.ArgumentParser(
        prog="caro",
        description="m,n,k games: tic-tac-toe, caro, gomoku",
        # Keeps --version's two lines as they are.
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"caro {__version__}\n{cores.status().summary()}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in COMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == command:
            importlib.import_module(module_name).add_arguments(sub_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command).parse_args(argv)
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        return int(module.run(args))
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
