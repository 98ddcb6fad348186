"""The pictures that explain a rule in /caro help: renju's forbidden shapes and how swap2 goes.

Each panel is a small board drawn by the bot's own renderer from a real position, and the
renju panels' forbidden points are the engine's (a test asks engine.renju about each), so the
picture cannot teach a rule the bot does not play. Captions are in the reader's language.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from bot.i18n.texts import text_in
from bot.ui.pictures import DEFAULT_THEME, cell_centre, draw_board, layout, theme_named
from engine import Board, Rule
from engine.notation import cell_name
from engine.types import Cell

_FONTS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf")
_SIDE = 9
_GAP = 16
_CAPTION_LINE = 26
_CAPTION_LINES = 3


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
    return lines[:_CAPTION_LINES]


def _no_sign(image: Image.Image, board: Board, cell: Cell, colour: tuple[int, int, int]) -> None:
    """The prohibition sign on the forbidden point: a shape as well as a shade, for colour-blind
    readers, and neither a cross nor a plain ring, which are the stones of some themes."""
    x, y = cell_centre(board.rows, board.cols, cell)
    radius = layout(board.rows, board.cols).cell // 5
    width = max(3, radius // 3)
    draw = ImageDraw.Draw(image)
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), outline=colour, width=width)
    slant = round(radius * 0.7)
    draw.line((x - slant, y - slant, x + slant, y + slant), fill=colour, width=width)


def rule_picture(topic: RuleTopic, locale: str, theme: str = DEFAULT_THEME) -> bytes:
    """The panels of `topic` side by side with their captions, as PNG bytes (the same input
    always gives the same bytes)."""
    look = theme_named(theme)
    panels = PANELS[RuleTopic(topic)]
    images = []
    for panel in panels:
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
            _no_sign(image, board, cell, look.last_mark)
        images.append(image)
    width = sum(image.width for image in images) + _GAP * (len(images) + 1)
    height = max(image.height for image in images) + _GAP * 2 + _CAPTION_LINE * _CAPTION_LINES
    canvas = Image.new("RGB", (width, height), look.background)
    draw = ImageDraw.Draw(canvas)
    font = _font(18)
    x = _GAP
    for panel, image in zip(panels, images, strict=True):
        canvas.paste(image, (x, _GAP))
        point = panel.point or ""
        caption = text_in(locale, panel.caption, cell=point)
        top = _GAP + image.height + _GAP // 2
        for index, line in enumerate(_wrap(caption, font, image.width)):
            draw.text(
                (x + image.width // 2, top + index * _CAPTION_LINE),
                line,
                fill=look.label,
                font=font,
                anchor="mt",
            )
        x += image.width + _GAP
    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


def forbidden_shapes() -> list[tuple[str, str | None]]:
    """(the ringed point, the shape engine.renju finds there) for each renju panel."""
    shapes: list[tuple[str, str | None]] = []
    for panel in PANELS[RuleTopic.RENJU]:
        board = panel.board()
        cell = panel.cell(board)
        assert cell is not None
        forbidden = board.forbidden(cell)
        shapes.append((cell_name(cell), None if forbidden is None else forbidden.shape.value))
    return shapes


__all__ = ["PANELS", "Panel", "RuleTopic", "forbidden_shapes", "rule_picture"]
