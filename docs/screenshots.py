"""The pictures of the docs, drawn by the bot's own renderer from fixed games, so a changed board
is a changed picture.

    python docs/screenshots.py [--out docs/images]

Writes big-board.png (a 15x15 caro game with the pan window outlined, as the bot posts it),
replay.gif (the animated replay /caro replay sends), rules-<topic>.png (the picture /caro help
topic: shows) and theme-<name>.png for each board theme: the
picture of a big board in that theme with, under it, its window of buttons in the colours Discord
shows them (styles and labels taken from the bot's own drawing of the message) and the key line
the message carries. tests/test_docs.py runs it into a temporary folder and checks that it
writes the same files as the ones committed here.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from PIL import Image, ImageDraw, ImageFont  # noqa: E402

import bot.cogs  # noqa: E402, F401  (the feature cogs register the buttons the drawing makes)
from bot.game.levels import NO_ENGINE  # noqa: E402
from bot.game.model import GameRow, Mode, MoveRow, Status, load_state  # noqa: E402
from bot.i18n.texts import text_in  # noqa: E402
from bot.ui.pictures import (  # noqa: E402
    BUTTON_RGB,
    THEMES,
    ButtonColour,
    render_board,
    render_replay,
)
from bot.ui.render import game_view  # noqa: E402
from bot.ui.rule_pictures import RuleTopic, rule_picture  # noqa: E402
from bot.ui.window import initial_window  # noqa: E402
from engine import Board, Rule  # noqa: E402
from engine.game.types import Level  # noqa: E402

BIG_GAME = ["H8", "I9", "H9", "H10", "G8", "I8", "I10", "G10", "J9", "F11", "E12", "J7"]
REPLAY_GAME = "15x15 k5 freestyle H8 G8 I8 H9 J8 J9 K8 A1 L8"
PLAYERS = ("alice", "caro AI (hard)")

# The look of Discord's buttons in its dark mode, around the window's cells.
_DISCORD_DARK = (49, 51, 56)
_BUTTON_W, _BUTTON_H, _GAP = 76, 34, 8
_STYLE_COLOURS = {
    1: BUTTON_RGB[ButtonColour.PRIMARY],
    2: BUTTON_RGB[ButtonColour.SECONDARY],
    3: BUTTON_RGB[ButtonColour.SUCCESS],
    4: BUTTON_RGB[ButtonColour.DANGER],
}
_FONTS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf")


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in _FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _big_game() -> Board:
    board = Board(15, 15, 5, Rule.CARO)
    for move in BIG_GAME:
        board.push_name(move)
    return board


def _cell_buttons(theme: str) -> list[list[dict[str, Any]]]:
    """The window's rows of cell buttons as the bot draws them for BIG_GAME in `theme`."""
    row = GameRow(
        id=1, guild_id=1, channel_id=1, message_id=1, mode=Mode.AI, x=42, o=Level.HARD,
        started_by=42, rows=15, cols=15, k=5, rule="caro", status=Status.ACTIVE, winner=None,
        end_reason=None, rated=True, ply=len(BIG_GAME),
        moves=tuple(MoveRow(i, cell, i % 2 == 1, None) for i, cell in enumerate(BIG_GAME)),
    )
    view = game_view(load_state(row), external=NO_ENGINE, theme=theme)
    rows = []
    for component in view.to_components():
        if component.get("type") == 1:
            cells = [b for b in component["components"] if b["custom_id"].startswith("caro:m:")]
            if cells:
                rows.append(cells)
    return rows


def theme_picture(theme: str) -> bytes:
    """The big board in `theme`, its window of buttons under it, and the key line."""
    board = _big_game()
    png = render_board(board, window=initial_window(board), players=PLAYERS, theme=theme)
    picture = Image.open(io.BytesIO(png)).convert("RGB")
    rows = _cell_buttons(theme)
    key = text_in("en-US", f"theme.key.{theme}")
    font, key_font = _font(15), _font(14)
    key_lines = _wrap(key, key_font, picture.width - 2 * _GAP)
    buttons_h = len(rows) * (_BUTTON_H + _GAP) + _GAP
    key_h = len(key_lines) * 20 + _GAP
    sheet = Image.new("RGB", (picture.width, picture.height + buttons_h + key_h), _DISCORD_DARK)
    sheet.paste(picture, (0, 0))
    draw = ImageDraw.Draw(sheet)
    top = picture.height + _GAP
    for r, cells in enumerate(rows):
        for c, button in enumerate(cells):
            x = _GAP + c * (_BUTTON_W + _GAP)
            y = top + r * (_BUTTON_H + _GAP)
            box = (x, y, x + _BUTTON_W, y + _BUTTON_H)
            draw.rounded_rectangle(box, radius=4, fill=_STYLE_COLOURS[button["style"]])
            label = button["label"].replace("\u200b", "")
            draw.text((x + _BUTTON_W // 2, y + _BUTTON_H // 2), label, fill=(255, 255, 255),
                      font=font, anchor="mm")
    y = top + buttons_h - _GAP
    for line in key_lines:
        draw.text((_GAP, y), line, fill=(219, 222, 225), font=key_font)
        y += 20
    out = io.BytesIO()
    sheet.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _wrap(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if line and font.getlength(candidate) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    return [*lines, line]


def pictures() -> dict[str, bytes]:
    board = _big_game()
    big = render_board(board, window=initial_window(board), players=PLAYERS)
    replay = render_replay(Board.from_text(REPLAY_GAME), players=("alice", "bob"))
    drawn = {"big-board.png": big, "replay.gif": replay}
    for name in THEMES:
        drawn[f"theme-{name}.png"] = theme_picture(name)
    for topic in RuleTopic:
        drawn[f"rules-{topic.value}.png"] = rule_picture(topic, "en-US")
    return drawn


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
