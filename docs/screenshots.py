"""The pictures of the docs, drawn by the bot's own renderer from fixed games, so a changed board
is a changed picture.

    python docs/screenshots.py [--out docs/images]

Writes big-board.png (a 15x15 caro game with the pan window outlined, as the bot posts it) and
replay.gif (the animated replay /caro replay sends). tests/test_docs.py runs it into a temporary
folder and checks that it writes the same files as the ones committed here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.ui.pictures import render_board, render_replay  # noqa: E402
from bot.ui.window import initial_window  # noqa: E402
from engine import Board, Rule  # noqa: E402

BIG_GAME = ["H8", "I9", "H9", "H10", "G8", "I8", "I10", "G10", "J9", "F11", "E12", "J7"]
REPLAY_GAME = "15x15 k5 freestyle H8 G8 I8 H9 J8 J9 K8 A1 L8"


def pictures() -> dict[str, bytes]:
    board = Board(15, 15, 5, Rule.CARO)
    for move in BIG_GAME:
        board.push_name(move)
    big = render_board(board, window=initial_window(board), players=("alice", "caro AI (hard)"))
    replay = render_replay(Board.from_text(REPLAY_GAME), players=("alice", "bob"))
    return {"big-board.png": big, "replay.gif": replay}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in pictures().items():
        (args.out / name).write_bytes(data)
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
