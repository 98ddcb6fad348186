"""The board as a PNG for boards too big for buttons: coordinates, stones, last move, winning
line and the outline of the pan window whose cells have buttons.

Speed: a big board is drawn on every click, so drawing must stay a small part of a click.
Encoding an RGB PNG of that size is the costly step, so everything is drawn in palette ("P") mode
with one fixed palette per theme, which encodes much faster. Antialiased pieces (labels, stones)
are drawn once in RGB, mapped onto the palette and cached; a render only copies the cached empty
board and pastes the cached stones (docs/benchmarks.md has the figures).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache

from PIL import Image, ImageDraw, ImageFont

from bot.game.model import DEFAULT_STYLE, BoardStyle
from bot.ui.window import Window
from engine import Board, Mark
from engine.game.notation import MAX_SIDE, column_letter

Cell = tuple[int, int]
RGB = tuple[int, int, int]
# Who plays X and who plays O, as shown in the legend: display names, "caro AI (hard)", ...
Players = tuple[str, str]

TARGET_SIDE_PX = 720  # Discord shows bigger pictures scaled down: more pixels only cost upload
MIN_CELL_PX = 24
MAX_CELL_PX = 96
_SUPERSAMPLE = 4  # stones are drawn 4x larger then shrunk, for smooth edges
_RAMP_STEPS = 14  # shades between an ink and the surface under it, for antialiased edges
_PNG_COMPRESS_LEVEL = 1  # higher levels save upload bytes but cost more drawing time per click
LEGEND_NAME_CHARS = 32  # longer names are cut with "…": the legend stays one line per side
FRAME_MS = 700  # each move of an animated replay
LAST_FRAME_MS = 3000  # the final position, with the winning line, stays up longer
# Long games play faster (never under MIN_FRAME_MS a move) so a replay lasts about this long.
REPLAY_MS = 45_000
MIN_FRAME_MS = 100
# Fonts with Vietnamese and most Latin, Greek and Cyrillic letters, for the players' names;
# Pillow's bundled font (used for coordinates and when none of these is installed) has only ASCII.
_NAME_FONTS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf")


class RenderError(ValueError):
    """The image cannot be drawn as asked: unknown theme, cells or window off the board."""


class ButtonColour(StrEnum):
    """Discord's four button styles (discord.ButtonStyle's names), which are all the colours a
    button can have: a theme says which one shows X, O and the marked cells, so that the buttons
    and the picture give a colour the same meaning."""

    PRIMARY = "primary"
    SECONDARY = "secondary"
    SUCCESS = "success"
    DANGER = "danger"


# What each style looks like in Discord's dark mode (its light mode differs only slightly).
BUTTON_RGB: dict[ButtonColour, RGB] = {
    ButtonColour.PRIMARY: (88, 101, 242),
    ButtonColour.SECONDARY: (78, 80, 88),
    ButtonColour.SUCCESS: (36, 128, 70),
    ButtonColour.DANGER: (218, 55, 60),
}



def _luminance(colour: RGB) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """The WCAG contrast ratio of two colours, 1 (the same) to 21 (black on white)."""
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)

@dataclass(frozen=True, slots=True)
class Theme:
    """Colours of one look. `glyphs` draws X and O as a cross and a ring; otherwise they are go
    stones. The buttons of a board in this theme show X, O and the marked cells (the last move
    and the winning line) in `x_button`, `o_button` and `marked_button`; with no
    `marked_button` the marked cells keep their side's colour and say so in their label, for
    players who cannot tell Discord's red from its green."""

    name: str
    background: RGB
    highlight: RGB  # cells passed in `highlight`, e.g. a hint
    line: RGB
    label: RGB
    x_ink: RGB
    o_ink: RGB
    o_edge: RGB  # outline of the light stone, so it shows on a light board
    win_line: RGB
    window: RGB
    last_dot: RGB | None  # a dot on the last stone...
    last_fill: RGB | None  # ...or the last move's cell shaded...
    last_frame: RGB | None  # ...or a square drawn around it (a shape, for colour-blind players)
    glyphs: bool
    x_button: ButtonColour
    o_button: ButtonColour
    marked_button: ButtonColour | None

    @property
    def last_mark(self) -> RGB:
        """The colour that marks the last move on the picture."""
        mark = self.last_dot or self.last_fill or self.last_frame
        assert mark is not None, f"theme {self.name} does not mark the last move"
        return mark


# Keyed by BoardStyle, the choices a member has; a style's value finds it too.
THEMES: dict[str, Theme] = {
    # Go-board look: black X and white O stones on wood, readable in Discord's dark and light modes
    # because the image brings its own background. Green marks the last move and the winning
    # line, as on the buttons; X's blue and O's red are the buttons' only.
    BoardStyle.WOOD: Theme(
        name="wood",
        background=(226, 184, 106),
        highlight=(244, 214, 140),
        line=(92, 64, 30),
        label=(60, 40, 16),
        x_ink=(24, 24, 24),
        o_ink=(246, 244, 238),
        o_edge=(58, 52, 44),
        win_line=(22, 122, 58),
        window=(30, 30, 30),
        last_dot=(40, 170, 80),
        last_fill=None,
        last_frame=None,
        glyphs=False,
        x_button=ButtonColour.PRIMARY,
        o_button=ButtonColour.DANGER,
        marked_button=ButtonColour.SUCCESS,
    ),
    # Squared exercise-book paper, how caro is played at school: red X, blue O, and the buttons
    # follow (X red, O blue).
    BoardStyle.PAPER: Theme(
        name="paper",
        background=(250, 250, 246),
        highlight=(255, 236, 170),
        line=(160, 196, 226),
        label=(73, 80, 87),
        x_ink=(214, 40, 40),
        o_ink=(25, 100, 190),
        o_edge=(25, 100, 190),
        win_line=(30, 130, 60),
        window=(70, 70, 70),
        last_dot=None,
        last_fill=(206, 232, 200),
        last_frame=None,
        glyphs=True,
        x_button=ButtonColour.DANGER,
        o_button=ButtonColour.PRIMARY,
        marked_button=ButtonColour.SUCCESS,
    ),
    # High contrast, safe for colour-blind players: blue crosses and orange rings (a pair that
    # stays apart in every common colour blindness, and in shape too) on white, the last move
    # framed in black and the winning line black. Buttons show no red next to green: the marked
    # cells keep their side's colour and are bracketed instead.
    BoardStyle.CONTRAST: Theme(
        name="contrast",
        background=(255, 255, 255),
        highlight=(255, 232, 120),
        line=(120, 120, 120),
        label=(0, 0, 0),
        x_ink=(0, 90, 181),
        o_ink=(192, 80, 0),
        o_edge=(192, 80, 0),
        win_line=(0, 0, 0),
        window=(0, 0, 0),
        last_dot=None,
        last_fill=None,
        last_frame=(0, 0, 0),
        glyphs=True,
        x_button=ButtonColour.PRIMARY,
        o_button=ButtonColour.DANGER,
        marked_button=None,
    ),
    # Dark, in the buttons' own colours: blurple crosses, red rings, green for the last move
    # and the winning line, on a board as dark as Discord's dark mode.
    BoardStyle.NIGHT: Theme(
        name="night",
        background=(36, 38, 46),
        highlight=(78, 70, 30),
        line=(84, 90, 106),
        label=(186, 192, 206),
        x_ink=(124, 138, 255),
        o_ink=(240, 84, 84),
        o_edge=(240, 84, 84),
        win_line=(72, 200, 110),
        window=(200, 200, 210),
        last_dot=None,
        last_fill=(30, 84, 52),
        last_frame=None,
        glyphs=True,
        x_button=ButtonColour.PRIMARY,
        o_button=ButtonColour.DANGER,
        marked_button=ButtonColour.SUCCESS,
    ),
}
DEFAULT_THEME: str = DEFAULT_STYLE


@dataclass(frozen=True, slots=True)
class Layout:
    """Pixel geometry of one board size. Cell (r, c) spans x from left + c*cell, y likewise."""

    rows: int
    cols: int
    cell: int
    margin: int  # room for the coordinates on each side
    line_width: int
    font_size: int

    @property
    def width(self) -> int:
        return 2 * self.margin + self.cols * self.cell + self.line_width

    @property
    def height(self) -> int:
        return 2 * self.margin + self.rows * self.cell + self.line_width

    def cell_origin(self, cell: Cell) -> tuple[int, int]:
        """Top-left pixel of the cell's grid square (on its grid lines)."""
        row, col = cell
        return self.margin + col * self.cell, self.margin + row * self.cell

    def inner_box(self, cell: Cell) -> tuple[int, int, int, int]:
        """The cell's pixels inside its grid lines, inclusive corners."""
        x, y = self.cell_origin(cell)
        lw = self.line_width
        return x + lw, y + lw, x + self.cell - 1, y + self.cell - 1

    def centre(self, cell: Cell) -> tuple[int, int]:
        x0, y0, x1, y1 = self.inner_box(cell)
        return (x0 + x1 + 1) // 2, (y0 + y1 + 1) // 2


@cache
def layout(rows: int, cols: int) -> Layout:
    """Geometry for a rows x cols board: cells shrink as boards grow so the image stays ~700 px."""
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise RenderError(f"a board is 1x1 to {MAX_SIDE}x{MAX_SIDE}, not {rows}x{cols}")
    side = max(rows, cols)
    cell = min(MAX_CELL_PX, max(MIN_CELL_PX, TARGET_SIDE_PX // (side + 2)))
    margin = min(44, max(28, cell))
    line_width = 1 if cell < 40 else 2
    font_size = min(20, max(13, cell // 2))
    return Layout(rows, cols, cell, margin, line_width, font_size)


def image_size(rows: int, cols: int) -> tuple[int, int]:
    """(width, height) in pixels of the image of a rows x cols board."""
    geometry = layout(rows, cols)
    return geometry.width, geometry.height


def cell_centre(rows: int, cols: int, cell: Cell) -> tuple[int, int]:
    """Pixel (x, y) at the middle of a cell in the image of a rows x cols board."""
    return layout(rows, cols).centre(cell)


def clear_caches() -> None:
    """Forget the cached empty boards and stones (for benchmarks measuring a cold start)."""
    _empty_board.cache_clear()
    _stone.cache_clear()
    _legend.cache_clear()


def warm_up(rows: int = 15, cols: int = 15, theme: str = DEFAULT_THEME) -> None:
    """Draw one board of the most played size, with a legend, and throw it away: the fonts,
    the empty board and the stones are loaded here, at start, and not by the first move after
    it."""
    board = Board(rows, cols, min(5, rows, cols))
    centre = (rows // 2, cols // 2)
    board.push(centre)
    render_board(board, highlight=[centre], players=("X", "O"), theme=theme)


def theme_named(name: str) -> Theme:
    try:
        return THEMES[name]
    except (KeyError, TypeError):
        raise RenderError(f"unknown theme {name!r}: choose one of {', '.join(THEMES)}") from None


def render_board(
    board: Board,
    *,
    last_move: bool = True,
    highlight: Iterable[Cell] | None = None,
    window: Window | None = None,
    theme: str = DEFAULT_THEME,
    players: Players | None = None,
    numbers: bool = False,
    numbered: Sequence[Cell] = (),
) -> bytes:
    """The board as PNG bytes; the same input always gives the same bytes.

    `players` (who plays X, who plays O) adds a legend under the board saying which stones are
    whose; `numbers` writes each stone's move number on it, `numbered` writes 1, 2, … on those
    stones only, in their order (a line of play shown on a position)."""
    image = draw_board(
        board,
        last_move=last_move,
        highlight=highlight,
        window=window,
        theme=theme,
        players=players,
        numbers=numbers,
        numbered=numbered,
    )
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=_PNG_COMPRESS_LEVEL)
    return out.getvalue()


def draw_board(
    board: Board,
    *,
    last_move: bool = True,
    highlight: Iterable[Cell] | None = None,
    window: Window | None = None,
    theme: str = DEFAULT_THEME,
    players: Players | None = None,
    numbers: bool = False,
    numbered: Sequence[Cell] = (),
) -> Image.Image:
    """The board as a palette image, for callers that compose or encode it themselves."""
    look = theme_named(theme)
    geometry = layout(board.rows, board.cols)
    colours = _palette(look)
    marked = set(_on_board(board, highlight or (), "highlighted cell"))
    counted = list(board.moves) if numbers else _stones(board, numbered)
    if window is not None and not window.fits(board.rows, board.cols):
        raise RenderError(
            f"window {window.encode()} goes past the edge of a {board.rows}x{board.cols} board"
        )
    last = board.last_move if last_move else None

    image = _empty_board(board.rows, board.cols, look.name).copy()
    draw = ImageDraw.Draw(image)
    surfaces: dict[Cell, RGB] = {cell: look.highlight for cell in marked}
    if last is not None and look.last_fill is not None:
        surfaces[last] = look.last_fill
    for cell, surface in surfaces.items():
        draw.rectangle(geometry.inner_box(cell), fill=colours.index(surface))

    grid, cols = board.grid, board.cols
    for index, value in enumerate(grid):
        if value:
            cell = divmod(index, cols)
            sprite, mask = _stone(
                geometry.cell,
                geometry.line_width,
                look.name,
                value,
                surfaces.get(cell, look.background),
            )
            x0, y0, _, _ = geometry.inner_box(cell)
            image.paste(sprite, (x0, y0), mask)

    if last is not None and look.last_dot is not None:
        x, y = geometry.centre(last)
        if last in counted:
            # A dot would hide the move number: ring the stone instead.
            radius = round((geometry.cell - geometry.line_width) * 0.47)
            draw.ellipse(
                (x - radius, y - radius, x + radius, y + radius),
                outline=colours.index(look.last_dot),
                width=max(2, geometry.cell // 16),
            )
        else:
            radius = max(3, geometry.cell // 8)
            draw.ellipse(
                (x - radius, y - radius, x + radius, y + radius), fill=colours.index(look.last_dot)
            )
    if last is not None and look.last_frame is not None:
        draw.rectangle(
            geometry.inner_box(last),
            outline=colours.index(look.last_frame),
            width=max(2, geometry.cell // 12),
        )
    if window is not None:
        _outline_window(draw, geometry, window, colours.index(look.window))
    outcome = board.outcome()
    if outcome is not None and outcome.line:
        _strike(draw, geometry, outcome.line, colours.index(look.win_line))
    if counted:
        # After the winning line, so the numbers of its stones stay readable on top of it.
        _number_stones(draw, geometry, board, counted, look, colours)
    if players is not None:
        image = _with_legend(image, geometry, look, players)
    return image


def _on_board(board: Board, cells: Iterable[Cell], what: str) -> Iterable[Cell]:
    for cell in cells:
        if not (
            isinstance(cell, tuple)
            and len(cell) == 2
            and all(isinstance(v, int) for v in cell)
            and 0 <= cell[0] < board.rows
            and 0 <= cell[1] < board.cols
        ):
            raise RenderError(f"{what} {cell!r} is not on a {board.rows}x{board.cols} board")
        yield cell


def _stones(board: Board, cells: Sequence[Cell]) -> list[Cell]:
    found = list(_on_board(board, cells, "numbered cell"))
    for cell in found:
        if board[cell] is None:
            raise RenderError(f"numbered cell {cell!r} has no stone")
    return found


def _outline_window(draw: ImageDraw.ImageDraw, geometry: Layout, window: Window, fill: int) -> None:
    width = max(3, geometry.cell // 9)
    x0, y0 = geometry.cell_origin((window.top, window.left))
    x1, y1 = geometry.cell_origin((window.bottom, window.right))
    x1 += geometry.line_width - 1
    y1 += geometry.line_width - 1
    # Centred on the grid lines, so it neither hides the edge stones nor drifts into the margin.
    grow = width // 2
    draw.rectangle((x0 - grow, y0 - grow, x1 + grow, y1 + grow), outline=fill, width=width)


def _strike(draw: ImageDraw.ImageDraw, geometry: Layout, line: Iterable[Cell], fill: int) -> None:
    # Cells of one straight line sorted row-major: the first and last are its two ends.
    ends = sorted(line)
    start, end = geometry.centre(ends[0]), geometry.centre(ends[-1])
    width = max(4, geometry.cell // 7)
    draw.line((start, end), fill=fill, width=width)
    cap = width // 2
    for x, y in (start, end):
        draw.ellipse((x - cap, y - cap, x + cap, y + cap), fill=fill)


class _Palette:
    """A theme's fixed palette: its colours plus shades between each ink and each surface."""

    def __init__(self, look: Theme) -> None:
        surfaces = [look.background, look.highlight]
        if look.last_fill is not None:
            surfaces.append(look.last_fill)
        inks = [look.line, look.label, look.x_ink, look.o_ink, look.o_edge]
        solids = [look.win_line, look.window]
        for mark in (look.last_dot, look.last_frame):
            if mark is not None:
                solids.append(mark)
        colours: list[RGB] = []
        for colour in surfaces + inks + solids:
            _add(colours, colour)
        pairs = [(ink, surface) for ink in inks for surface in surfaces]
        pairs.append((look.o_edge, look.o_ink))
        for ink, surface in pairs:
            for step in range(1, _RAMP_STEPS + 1):
                t = step / (_RAMP_STEPS + 1)
                _add(colours, _mix(ink, surface, t))
        if len(colours) > 256:
            raise AssertionError(f"theme {look.name} needs {len(colours)} colours, 256 at most")
        self.colours = colours
        self._index = {colour: i for i, colour in enumerate(colours)}
        padded = colours + [colours[0]] * (256 - len(colours))
        self.image = Image.new("P", (1, 1))
        self.image.putpalette([channel for colour in padded for channel in colour])

    def index(self, colour: RGB) -> int:
        return self._index[colour]

    def quantize(self, image: Image.Image) -> Image.Image:
        """An RGB image on this palette, each pixel mapped to the nearest colour (no dithering,
        which would speckle flat areas and bloat the PNG)."""
        return image.quantize(palette=self.image, dither=Image.Dither.NONE)


def _add(colours: list[RGB], colour: RGB) -> None:
    if colour not in colours:
        colours.append(colour)


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        round(a[0] * (1 - t) + b[0] * t),
        round(a[1] * (1 - t) + b[1] * t),
        round(a[2] * (1 - t) + b[2] * t),
    )


@cache
def _palette(look: Theme) -> _Palette:
    return _Palette(look)


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Pillow's bundled font: no font file to ship or find on the host.
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=64)
def _empty_board(rows: int, cols: int, theme: str) -> Image.Image:
    """Background, grid and coordinates of one board size: drawn once, copied by every render.
    Callers must copy it before drawing on it."""
    look = theme_named(theme)
    geometry = layout(rows, cols)
    image = Image.new("RGB", (geometry.width, geometry.height), look.background)
    draw = ImageDraw.Draw(image)
    lw, size, m = geometry.line_width, geometry.cell, geometry.margin
    right, bottom = m + cols * size, m + rows * size
    for c in range(cols + 1):
        x = m + c * size
        draw.rectangle((x, m, x + lw - 1, bottom + lw - 1), fill=look.line)
    for r in range(rows + 1):
        y = m + r * size
        draw.rectangle((m, y, right + lw - 1, y + lw - 1), fill=look.line)
    font = _font(geometry.font_size)
    half = m // 2
    for c in range(cols):
        x = m + c * size + (size + lw) // 2
        for y in (half, bottom + lw + half):
            draw.text((x, y), column_letter(c), fill=look.label, font=font, anchor="mm")
    for r in range(rows):
        y = m + r * size + (size + lw) // 2
        for x in (half, right + lw + half):
            draw.text((x, y), str(r + 1), fill=look.label, font=font, anchor="mm")
    return _palette(look).quantize(image)


@lru_cache(maxsize=256)
def _stone(
    cell: int, line_width: int, theme: str, mark: int, surface: RGB
) -> tuple[Image.Image, Image.Image]:
    """A stone (or glyph) filling one cell's inside over `surface`, and the mask of its pixels."""
    look = theme_named(theme)
    side = cell - line_width
    big = side * _SUPERSAMPLE
    image = Image.new("RGB", (big, big), surface)
    draw = ImageDraw.Draw(image)
    centre = big / 2
    if look.glyphs:
        stroke = max(2, round(cell * 0.11)) * _SUPERSAMPLE
        if mark == Mark.X:
            inset = big * 0.24
            far = big - inset
            draw.line(((inset, inset), (far, far)), fill=look.x_ink, width=stroke)
            draw.line(((inset, far), (far, inset)), fill=look.x_ink, width=stroke)
        else:
            radius = big * 0.30
            box = (centre - radius, centre - radius, centre + radius, centre + radius)
            draw.ellipse(box, outline=look.o_ink, width=stroke)
    else:
        radius = big * 0.44
        box = (centre - radius, centre - radius, centre + radius, centre + radius)
        if mark == Mark.X:
            draw.ellipse(box, fill=look.x_ink)
        else:
            edge = max(1, round(cell / 22)) * _SUPERSAMPLE
            draw.ellipse(box, fill=look.o_ink, outline=look.o_edge, width=edge)
    small = image.resize((side, side), Image.Resampling.LANCZOS)
    sprite = _palette(look).quantize(small)
    background = _palette(look).index(surface)
    mask = Image.frombytes(
        "L", (side, side), bytes(0 if i == background else 255 for i in sprite.tobytes())
    )
    return sprite, mask


# ----------------------------------------------------------------------------- move numbers
def _number_stones(
    draw: ImageDraw.ImageDraw,
    geometry: Layout,
    board: Board,
    cells: Sequence[Cell],
    look: Theme,
    colours: _Palette,
) -> None:
    """1, 2, … on the stones of `cells` in order: on the stone in the other stone's colour
    (wood), or in a corner of the cell in the label colour (paper, where the letters fill the
    cell)."""
    size = max(9, min(geometry.font_size, geometry.cell * 2 // 5))
    font = _font(size)
    for number, cell in enumerate(cells, start=1):
        x, y = geometry.centre(cell)
        if look.glyphs:
            _, _, x1, y1 = geometry.inner_box(cell)
            draw.text((x1 - 1, y1 - 1), str(number), fill=colours.index(look.label), font=font, anchor="rd")
        else:
            ink = look.o_ink if board[cell] is Mark.X else look.x_ink
            draw.text((x, y), str(number), fill=colours.index(ink), font=font, anchor="mm")


# ----------------------------------------------------------------------------- legend
@lru_cache(maxsize=16)
def _name_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in _NAME_FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return _font(size)


def legend_height(rows: int, cols: int) -> int:
    """Pixels the legend adds under the board (one line per side)."""
    geometry = layout(rows, cols)
    return 2 * _legend_line(geometry) + geometry.margin // 2


def _legend_line(geometry: Layout) -> int:
    return max(22, geometry.font_size * 2)


def _fit(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> str:
    """`text` on one line, cut with "…" to at most LEGEND_NAME_CHARS characters and `width` px."""
    text = " ".join(text.split())
    if len(text) > LEGEND_NAME_CHARS:
        text = text[: LEGEND_NAME_CHARS - 1] + "…"
    while text and font.getlength(text) > width:
        text = text[:-2] + "…" if len(text) > 1 else ""
    return text


@lru_cache(maxsize=256)
def _legend(rows: int, cols: int, theme: str, players: Players) -> Image.Image:
    """The strip under the board: one line per side, its stone, its letter and its player."""
    look = theme_named(theme)
    geometry = layout(rows, cols)
    line = _legend_line(geometry)
    image = Image.new("RGB", (geometry.width, legend_height(rows, cols)), look.background)
    draw = ImageDraw.Draw(image)
    icon = min(line - 4, geometry.cell)
    font = _name_font(geometry.font_size)
    x = geometry.margin
    for index, (mark, name) in enumerate(zip((Mark.X, Mark.O), players, strict=True)):
        top = index * line + (line - icon) // 2
        sprite, mask = _stone(icon + 1, 1, look.name, int(mark), look.background)
        image.paste(sprite.convert("RGB"), (x, top), mask)
        label = f"{mark.name}: " + _fit(name, font, geometry.width - x - icon - 2 * geometry.margin)
        draw.text(
            (x + icon + icon // 2, index * line + line // 2),
            label,
            fill=look.label,
            font=font,
            anchor="lm",
        )
    return _palette(look).quantize(image)


def _with_legend(image: Image.Image, geometry: Layout, look: Theme, players: Players) -> Image.Image:
    if not (isinstance(players, tuple) and len(players) == 2 and all(isinstance(p, str) for p in players)):
        raise RenderError(f"players must be two names (X's then O's), not {players!r}")
    strip = _legend(geometry.rows, geometry.cols, look.name, players)
    canvas = Image.new("P", (geometry.width, geometry.height + strip.height))
    palette = image.getpalette()
    if palette is not None:
        canvas.putpalette(palette)
    canvas.paste(image, (0, 0))
    canvas.paste(strip, (0, geometry.height))
    return canvas


# ----------------------------------------------------------------------------- replays
def position_after(game: Board, ply: int) -> Board:
    """The board of `game` after its first `ply` moves."""
    if not 0 <= ply <= game.ply:
        raise RenderError(f"ply must be from 0 to {game.ply}, not {ply!r}")
    board = Board(game.rows, game.cols, game.k, game.rule)
    for cell in game.moves[:ply]:
        board.push(cell)
    return board


def render_step(
    game: Board,
    ply: int,
    *,
    players: Players | None = None,
    theme: str = DEFAULT_THEME,
    numbers: bool = False,
) -> bytes:
    """One position of a replay stepper as PNG: the board after `ply` moves, the last move
    marked, the winning line if the game ends there, and the legend when `players` is given."""
    return render_board(
        position_after(game, ply), last_move=True, theme=theme, players=players, numbers=numbers
    )


def render_turning_point(
    game: Board,
    ply: int,
    better: Cell | None,
    *,
    players: Players | None = None,
    theme: str = DEFAULT_THEME,
) -> bytes:
    """A review's turning point as PNG: the board after move `ply` (the move played marked as
    the last move) with the cell of the `better` move shaded, as a hint is."""
    board = position_after(game, ply)
    if better is not None and (ply < 1 or better == game.moves[ply - 1]):
        raise RenderError(f"the better move {better!r} is the move played at {ply}")
    highlight = [better] if better is not None else []
    return render_board(board, last_move=True, highlight=highlight, theme=theme, players=players)


def render_replay(
    game: Board,
    *,
    players: Players | None = None,
    theme: str = DEFAULT_THEME,
    frame_ms: int = FRAME_MS,
    last_frame_ms: int = LAST_FRAME_MS,
) -> bytes:
    """The whole game as an animated GIF: the final position first, held for `last_frame_ms`,
    then the empty board and one frame per move with move numbers on the stones and the last
    move marked, the winning line on the final frame. Frames: moves + 2. Loops forever, as
    Discord shows GIFs.

    The final position comes first because a client that does not play GIFs (reduced motion,
    link previews) shows only the first frame, and the replay's text names the final move."""
    frames = replay_frames(game, players=players, theme=theme)
    count = len(frames)
    step = max(MIN_FRAME_MS, min(frame_ms, REPLAY_MS // count))
    # The last frame is followed by the first, the same picture: together they are the hold.
    durations = [last_frame_ms] + [step] * count
    out = io.BytesIO()
    frames[-1].save(
        out,
        format="GIF",
        save_all=True,
        append_images=frames,
        duration=durations,
        loop=0,
        disposal=1,
    )
    return out.getvalue()


def replay_frames(
    game: Board, *, players: Players | None = None, theme: str = DEFAULT_THEME
) -> list[Image.Image]:
    """The frames of render_replay, as palette images: the board after 0, 1, ... all moves."""
    board = Board(game.rows, game.cols, game.k, game.rule)
    frames = [draw_board(board, theme=theme, players=players)]
    for cell in game.moves:
        board.push(cell)
        frames.append(draw_board(board, theme=theme, players=players, numbers=True))
    return frames


__all__ = [
    "BUTTON_RGB",
    "DEFAULT_THEME",
    "THEMES",
    "ButtonColour",
    "Layout",
    "Players",
    "RenderError",
    "Theme",
    "cell_centre",
    "clear_caches",
    "warm_up",
    "contrast",
    "draw_board",
    "image_size",
    "layout",
    "legend_height",
    "position_after",
    "render_board",
    "render_replay",
    "render_step",
    "render_turning_point",
    "replay_frames",
    "theme_named",
]
