"""A tournament's standings as a picture: the table posted after each round and at the end.

The caller formats every cell (points as "2½", names already resolved and its own language's
column titles), so this module only lays out and draws: the same input always gives the same
bytes. Colours come from the board themes, so the table matches the boards of the server.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from bot.ui.pictures import DEFAULT_THEME, RGB, RenderError, Theme, theme_named

# Fonts with Vietnamese letters; Pillow's bundled font (the last resort) has only ASCII.
_FONTS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf")
_BOLD_FONTS = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "NotoSans-Bold.ttf")

WIDTH = 720  # fixed, so Discord shows every table at the same scale whatever the names
MARGIN = 20
_TITLE_SIZE = 26
_SUBTITLE_SIZE = 16
_TEXT_SIZE = 17
_HEADER_SIZE = 15
_TITLE_HEIGHT = 38
_SUBTITLE_HEIGHT = 28
_HEADER_HEIGHT = 32
ROW_HEIGHT = 28
_PAD = 8  # space between a cell's text and its column's edge
# Column widths of rank, points, Buchholz, Sonneborn-Berger and games; the name takes the rest.
_RANK_WIDTH = 48
_NUMBER_WIDTHS = (72, 108, 80, 68)
PODIUM = 3  # the first ranks drawn on a highlighted row, in bold

_HALVES = {Fraction(0): "", Fraction(1, 4): "¼", Fraction(1, 2): "½", Fraction(3, 4): "¾"}

Headers = tuple[str, str, str, str, str, str]


@dataclass(frozen=True, slots=True)
class StandingLine:
    """One row of the table, every text already formatted by the caller."""

    rank: int
    name: str
    points: str
    buchholz: str
    berger: str
    games: int
    withdrawn: bool = False


def points_text(value: Fraction) -> str:
    """Points as players write them: "0", "½", "1", "2½" (and "1¼" for the quarter points a
    Sonneborn-Berger score can have). Other fractions, which no result gives, as decimals."""
    value = Fraction(value)
    sign = "-" if value < 0 else ""
    whole, part = divmod(abs(value), 1)
    glyph = _HALVES.get(part)
    if glyph is None:
        return sign + f"{float(abs(value)):.2f}".rstrip("0").rstrip(".")
    if whole == 0 and glyph:
        return sign + glyph
    return f"{sign}{whole}{glyph}"


@lru_cache(maxsize=16)
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in _BOLD_FONTS + _FONTS if bold else _FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _fit(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> str:
    """`text` on one line of at most `width` px, cut with "…" when longer."""
    text = " ".join(text.split())
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


@dataclass(frozen=True, slots=True)
class _Column:
    left: int
    right: int
    numeric: bool

    def anchor(self) -> tuple[int, str]:
        """Where a cell's text starts and how it hangs: numbers to the right, names to the left."""
        return (self.right - _PAD, "rm") if self.numeric else (self.left + _PAD, "lm")

    @property
    def room(self) -> int:
        return self.right - self.left - 2 * _PAD


def _columns(widths: tuple[int, ...] = _NUMBER_WIDTHS) -> tuple[_Column, ...]:
    """Rank, name and the number columns of `widths`; the name takes the rest."""
    name_left = MARGIN + _RANK_WIDTH
    name_right = WIDTH - MARGIN - sum(widths)
    columns = [_Column(MARGIN, name_left, True), _Column(name_left, name_right, False)]
    left = name_right
    for width in widths:
        columns.append(_Column(left, left + width, True))
        left += width
    return tuple(columns)


def _layout(headers: Headers, rows: list[StandingLine]) -> tuple[_Column, ...]:
    """The columns for these headers and rows: a number column widens to its title and its
    longest cell, so that no title is cut (a translated one may be longer than the English)."""
    header_font, text_font = _font(_HEADER_SIZE, bold=True), _font(_TEXT_SIZE)
    cells = [
        [line.points for line in rows],
        [line.buchholz for line in rows],
        [line.berger for line in rows],
        [str(line.games) for line in rows],
    ]
    widths = tuple(
        max(
            [base, round(header_font.getlength(title)) + 2 * _PAD + 1]
            + [round(text_font.getlength(cell)) + 2 * _PAD + 1 for cell in column]
        )
        for base, title, column in zip(_NUMBER_WIDTHS, headers[2:], cells, strict=True)
    )
    return _columns(widths)


def picture_height(rows: int) -> int:
    """The picture's height for a table of `rows` players: one ROW_HEIGHT each."""
    return MARGIN + _TITLE_HEIGHT + _SUBTITLE_HEIGHT + _HEADER_HEIGHT + rows * ROW_HEIGHT + MARGIN


def _cells(
    draw: ImageDraw.ImageDraw,
    columns: tuple[_Column, ...],
    texts: tuple[str, ...],
    middle: int,
    fill: RGB,
    fonts: tuple[
        ImageFont.FreeTypeFont | ImageFont.ImageFont, ImageFont.FreeTypeFont | ImageFont.ImageFont
    ],
) -> None:
    """One line of the table; `fonts` are the rank's and the other cells'."""
    for index, (column, text) in enumerate(zip(columns, texts, strict=True)):
        font = fonts[0] if index == 0 else fonts[1]
        x, anchor = column.anchor()
        draw.text((x, middle), _fit(text, font, column.room), fill=fill, font=font, anchor=anchor)


def _row(
    draw: ImageDraw.ImageDraw,
    columns: tuple[_Column, ...],
    look: Theme,
    line: StandingLine,
    top: int,
    odd: bool,
) -> None:
    if line.rank <= PODIUM and not line.withdrawn:
        draw.rectangle((MARGIN, top, WIDTH - MARGIN - 1, top + ROW_HEIGHT - 1), fill=look.highlight)
    elif odd:
        stripe = _mix(look.background, look.line, 0.08)
        draw.rectangle((MARGIN, top, WIDTH - MARGIN - 1, top + ROW_HEIGHT - 1), fill=stripe)
    ink = _mix(look.label, look.background, 0.55) if line.withdrawn else look.label
    text = _font(_TEXT_SIZE)
    rank = _font(_TEXT_SIZE, bold=line.rank <= PODIUM and not line.withdrawn)
    texts = (str(line.rank), line.name, line.points, line.buchholz, line.berger, str(line.games))
    middle = top + ROW_HEIGHT // 2
    _cells(draw, columns, texts, middle, ink, (rank, text))
    if line.withdrawn:
        # Struck through as well as dimmed: a shape, for readers who cannot tell the shades apart.
        name = columns[1]
        length = text.getlength(_fit(line.name, text, name.room))
        x = name.left + _PAD
        draw.line((x, middle, x + length, middle), fill=ink, width=1)


def standings_picture(
    title: str,
    subtitle: str,
    headers: Headers,
    rows: list[StandingLine],
    theme: str = DEFAULT_THEME,
) -> bytes:
    """The standings table as PNG bytes: `title` and `subtitle` above, `headers` (rank, player,
    points, Buchholz, Sonneborn-Berger, games) over one line per row, in `theme`'s colours. The
    picture is WIDTH px wide whatever the names (long ones are cut with "…") and grows by
    ROW_HEIGHT px a row; a number column is as wide as its title and cells need."""
    look = theme_named(theme)
    if len(headers) != len(_columns()):
        raise RenderError(
            f"a standings table has {len(_columns())} column titles, not {len(headers)}"
        )
    columns = _layout(headers, rows)
    canvas = Image.new("RGB", (WIDTH, picture_height(len(rows))), look.background)
    draw = ImageDraw.Draw(canvas)
    room = WIDTH - 2 * MARGIN
    top = MARGIN
    title_font = _font(_TITLE_SIZE, bold=True)
    draw.text(
        (MARGIN, top + _TITLE_HEIGHT // 2),
        _fit(title, title_font, room),
        fill=look.label,
        font=title_font,
        anchor="lm",
    )
    top += _TITLE_HEIGHT
    subtitle_font = _font(_SUBTITLE_SIZE)
    draw.text(
        (MARGIN, top + _SUBTITLE_HEIGHT // 2),
        _fit(subtitle, subtitle_font, room),
        fill=_mix(look.label, look.background, 0.3),
        font=subtitle_font,
        anchor="lm",
    )
    top += _SUBTITLE_HEIGHT
    header_font = _font(_HEADER_SIZE, bold=True)
    _cells(draw, columns, tuple(headers), top + _HEADER_HEIGHT // 2, look.label, (header_font, header_font))
    top += _HEADER_HEIGHT
    draw.line((MARGIN, top - 1, WIDTH - MARGIN - 1, top - 1), fill=look.line, width=2)
    for index, line in enumerate(rows):
        _row(draw, columns, look, line, top, odd=index % 2 == 1)
        top += ROW_HEIGHT
    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


__all__ = [
    "MARGIN",
    "PODIUM",
    "ROW_HEIGHT",
    "WIDTH",
    "StandingLine",
    "picture_height",
    "points_text",
    "standings_picture",
]
