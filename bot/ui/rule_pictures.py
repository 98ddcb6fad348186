"""The pictures that explain a rule in /caro help: renju's forbidden shapes and how swap2 goes.

Each panel is a small board drawn by the bot's own renderer from a real position, and the
renju panels' forbidden points are the engine's (a test asks engine.game.renju about each), so the
picture cannot teach a rule the bot does not play. Captions are in the reader's language.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from bot.i18n.texts import text_in
from bot.ui.pictures import (
    DEFAULT_THEME,
    cell_centre,
    contrast,
    draw_board,
    layout,
    theme_named,
)
from engine import Board, Rule
from engine.game.notation import cell_name
from engine.game.types import Cell

_FONTS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf")
_SIDE = 9
# Discord shows an embed's image scaled down, keeping its shape, to fit a box about 400 px wide
# and 300 px high on a desktop, and about 300 px wide on a phone. The picture is drawn WIDTH
# wide and at most 3/4 as high, so it fills the box's width: shown at a third of its size.
SHOWN_BOX = (400, 300)
PHONE_WIDTH = 300
WIDTH = 1200
_GAP = 36
# 15 px once shown on a desktop, 11 px on a phone.
FONT_PX = 45
_CAPTION_LINE = 54
# The forbidden point's sign: red, or where a theme's stones or marks are reddish, purple, or on
# a dark board a light magenta; never the colour that marks the last move.
_SIGN_COLOURS = ((200, 30, 30), (130, 40, 170), (255, 80, 220))
_SIGN_DISTANCE = 120
# What WCAG asks of a graphic against what is around it.
_SIGN_CONTRAST = 3.0

class RuleTopic(StrEnum):
    """The rules /caro help can show a picture of."""

    RENJU = "renju"
    SWAP2 = "swap2"


@dataclass(frozen=True, slots=True)
class Panel:
    """One board of a rule picture: its moves in order, the cell to ring, what the caption says
    (a text id of the help, given the ringed cell's name) and whether to number the stones."""

    moves: tuple[str, ...]
    rule: Rule
    caption: str
    point: str | None = None
    numbers: bool = False

    def board(self) -> Board:
        board = Board(_SIDE, _SIDE, 5, self.rule)
        for name in self.moves:
            board.push_name(name)
        return board

    def cell(self, board: Board) -> Cell | None:
        return board.parse_move(self.point) if self.point is not None else None


# X to move in each renju panel; O's stones sit where they block nothing of the shape.
PANELS: dict[RuleTopic, tuple[Panel, ...]] = {
    RuleTopic.RENJU: (
        Panel(("C5", "G7", "D5", "B8", "E3", "H2", "E4", "B2"), Rule.RENJU, "rules.renju.three", "E5"),
        Panel(("A5", "D7", "C5", "F3", "E5", "B3", "G5", "H7"), Rule.RENJU, "rules.renju.fours", "D5"),
        Panel(
            ("B5", "C7", "C5", "G3", "D5", "E2", "F5", "B8", "G5", "H8"),
            Rule.RENJU,
            "rules.renju.overline",
            "E5",
        ),
    ),
    RuleTopic.SWAP2: (
        Panel(("E5", "F6", "D6"), Rule.FREESTYLE, "rules.swap2.three", numbers=True),
        Panel(("E5", "F6", "D6", "D4", "F4"), Rule.FREESTYLE, "rules.swap2.five", numbers=True),
    ),
}


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in _FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def _wrap(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def captions(topic: RuleTopic, locale: str) -> list[list[str]]:
    """Each panel's caption in `locale`, wrapped into the lines drawn under its board."""
    font = _font(FONT_PX)
    panels = PANELS[RuleTopic(topic)]
    width = panel_width(len(panels))
    return [
        _wrap(text_in(locale, panel.caption, cell=panel.point or ""), font, width)
        for panel in panels
    ]


def panel_width(count: int) -> int:
    """The width of each of `count` panels side by side."""
    return (WIDTH - _GAP * (count + 1)) // count


def sign_colour(theme: str) -> tuple[int, int, int]:
    """The colour of the forbidden point's sign in `theme`: far from its stones, its winning
    line and its last-move mark, so it reads as none of them, and plain on its board."""
    look = theme_named(theme)
    taken = [look.x_ink, look.o_ink, look.win_line, look.last_mark]

    def apart(colour: tuple[int, int, int]) -> bool:
        return contrast(colour, look.background) >= _SIGN_CONTRAST and all(
            sum((a - b) ** 2 for a, b in zip(colour, other, strict=True)) ** 0.5 >= _SIGN_DISTANCE
            for other in taken
        )

    return next((c for c in _SIGN_COLOURS if apart(c)), _SIGN_COLOURS[-1])


def _no_sign(image: Image.Image, board: Board, cell: Cell, colour: tuple[int, int, int]) -> None:
    """The prohibition sign on the forbidden point: a shape as well as a shade, for colour-blind
    readers, and neither a cross nor a plain ring, which are the stones of some themes."""
    x, y = cell_centre(board.rows, board.cols, cell)
    # Large enough to read once the board is shrunk to a third of the panel's width.
    radius = layout(board.rows, board.cols).cell * 2 // 5
    width = max(4, radius // 4)
    draw = ImageDraw.Draw(image)
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=colour, width=width)
    slant = round(radius * 0.7)
    draw.line((x - slant, y - slant, x + slant, y + slant), fill=colour, width=width)


def board_side(topic: RuleTopic, locale: str) -> int:
    """The side of each board in pixels: its panel's width, less where the captions need the
    height. The picture is no taller than 3/4 of its width, so Discord's box scales it by its
    width; the boards give way to the captions, which must stay readable."""
    lines = max(len(caption) for caption in captions(topic, locale))
    highest = WIDTH * 3 // 4 - _GAP * 3 - _CAPTION_LINE * lines
    return min(panel_width(len(PANELS[RuleTopic(topic)])), highest)


def rule_picture(topic: RuleTopic, locale: str, theme: str = DEFAULT_THEME) -> bytes:
    """The panels of `topic` side by side, each board with its caption under it, as PNG bytes
    (the same input always gives the same bytes)."""
    look = theme_named(theme)
    panels = PANELS[RuleTopic(topic)]
    lines = captions(topic, locale)
    column = panel_width(len(panels))
    board_px = board_side(topic, locale)
    height = _GAP * 3 + board_px + _CAPTION_LINE * max(len(caption) for caption in lines)
    canvas = Image.new("RGB", (WIDTH, height), look.background)
    draw = ImageDraw.Draw(canvas)
    font = _font(FONT_PX)
    for index, (panel, caption) in enumerate(zip(panels, lines, strict=True)):
        board = panel.board()
        cell = panel.cell(board)
        image = draw_board(
            board,
            last_move=False,
            highlight=() if cell is None else (cell,),
            theme=theme,
            numbers=panel.numbers,
        ).convert("RGB")
        if cell is not None:
            _no_sign(image, board, cell, sign_colour(theme))
        left = _GAP + index * (column + _GAP)
        middle = left + column // 2
        canvas.paste(
            image.resize((board_px, board_px), Image.Resampling.LANCZOS),
            (middle - board_px // 2, _GAP),
        )
        top = _GAP * 2 + board_px
        for row, line in enumerate(caption):
            draw.text(
                (middle, top + row * _CAPTION_LINE), line, fill=look.label, font=font, anchor="mt"
            )
    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


def forbidden_shapes() -> list[tuple[str, str | None]]:
    """(the ringed point, the shape engine.game.renju finds there) for each renju panel."""
    shapes: list[tuple[str, str | None]] = []
    for panel in PANELS[RuleTopic.RENJU]:
        board = panel.board()
        cell = panel.cell(board)
        assert cell is not None
        forbidden = board.forbidden(cell)
        shapes.append((cell_name(cell), None if forbidden is None else forbidden.shape.value))
    return shapes


__all__ = [
    "FONT_PX",
    "PANELS",
    "PHONE_WIDTH",
    "SHOWN_BOX",
    "WIDTH",
    "Panel",
    "RuleTopic",
    "board_side",
    "captions",
    "forbidden_shapes",
    "panel_width",
    "rule_picture",
    "sign_colour",
]
