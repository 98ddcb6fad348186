"""A member's rating as a chart, as chess sites draw it: one line per pool (against people,
against the AI; all time and this season) over their last rated games, x the games (the newest
on the right), y the rating, the current value written at the end of each line.

The picture has a fixed size, readable at the width Discord shows an embed's image, and the
colours of the member's board theme: each mode has a colour of the theme, the all-time line is
solid and the season line dashed in a paler shade of it. Labels are in the member's language.
Drawn in the CPU pool (bot.ui.picture_jobs.rating_chart_job), never on the event loop; the same
input always gives the same bytes.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from PIL import Image, ImageDraw, ImageFont

from bot.game.model import Mode, RatingLine
from bot.i18n.texts import text_in
from bot.ui.pictures import DEFAULT_THEME, RGB, RenderError, Theme, contrast, theme_named

# Fonts with Vietnamese letters; Pillow's bundled font (the last resort) has only ASCII.
_FONTS = ("DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf")
_BOLD_FONTS = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "NotoSans-Bold.ttf")

# Twice as wide as high, like an embed's image: Discord shows it at about half this size, so
# every text is drawn big enough to stay readable there.
WIDTH, HEIGHT = 800, 400
MARGIN = 18
_LEGEND_SIZE = 19
_TICK_SIZE = 18
_AXIS_SIZE = 18
_VALUE_SIZE = 21
_LEGEND_ROW = 30
_SWATCH = 34  # the length of a line's sample in the legend
_GAP = 10
_LINE_WIDTH = 4
_SEASON_WIDTH = 3
_DASH, _DASH_GAP = 11, 7
# How far a season line's colour moves toward the background: the same hue as its mode's line,
# told apart by shade as well as by its dashes.
SEASON_FADE = 0.4
# Lines of this many games or fewer get a dot on each game.
_DOTS_UP_TO = 30
# A colour shows on the background when its contrast ratio (WCAG) is at least this.
_MIN_CONTRAST = 3.0
_Y_STEPS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
_X_STEPS = (1, 2, 5, 10, 20, 25, 50, 100)

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@dataclass(frozen=True, slots=True)
class ChartTexts:
    """Every word on the chart, in one language: a legend entry per line, in the lines' order."""

    legend: tuple[str, ...]
    rating: str
    games_ago: str
    now: str


def chart_texts(lines: Sequence[RatingLine], locale: str) -> ChartTexts:
    """The chart's words for `lines` in `locale` (English where it has no translation)."""

    def period(line: RatingLine) -> str:
        if line.season is None:
            return text_in(locale, "season.all_time")
        return text_in(locale, "chart.season", season=line.season)

    return ChartTexts(
        legend=tuple(
            text_in(locale, "chart.line", mode=text_in(locale, f"mode.{line.mode}"),
                    period=period(line))
            for line in lines
        ),
        rating=text_in(locale, "chart.rating"),
        games_ago=text_in(locale, "chart.games_ago"),
        now=text_in(locale, "chart.now"),
    )


def mode_colours(look: Theme) -> dict[Mode, RGB]:
    """Each mode's colour in `look`: X's ink against people and O's against the AI, as on the
    boards; where O's barely shows on the background (the white stone on wood), the colour of
    the winning line."""
    ai = look.o_ink if contrast(look.o_ink, look.background) >= _MIN_CONTRAST else look.win_line
    return {Mode.PVP: look.x_ink, Mode.AI: ai}


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def line_colour(look: Theme, line: RatingLine) -> RGB:
    """The colour `line` is drawn in: its mode's, paler for a season."""
    colour = mode_colours(look)[line.mode]
    return colour if line.season is None else _mix(colour, look.background, SEASON_FADE)


@lru_cache(maxsize=16)
def _font(size: int, bold: bool = False) -> Font:
    for name in _BOLD_FONTS + _FONTS if bold else _FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _fit(text: str, font: Font, width: float) -> str:
    """`text` on one line of at most `width` px, cut with "…" when longer."""
    text = " ".join(text.split())
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def _step(span: float, steps: tuple[int, ...], most: int) -> int:
    """The smallest of `steps` that cuts `span` into at most `most` intervals."""
    return next((s for s in steps if span / s <= most), steps[-1])


def _y_range(lines: Sequence[RatingLine]) -> tuple[int, int, int]:
    """(lowest, highest, step) of the rating axis: every point inside, on round numbers."""
    values = [value for line in lines for value in line.ratings]
    low, high = min(values), max(values)
    # A flat line still gets a scale around it rather than a zero-height one.
    pad = max((high - low) * 0.08, 10.0)
    low, high = low - pad, high + pad
    step = _step(high - low, _Y_STEPS, 5)
    return math.floor(low / step) * step, math.ceil(high / step) * step, step


def _dashed(
    draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], fill: RGB, width: int
) -> None:
    """A dashed line through `points`, the dashes running on across the corners."""
    on, left = True, float(_DASH)
    for (x0, y0), (x1, y1) in pairwise(points):
        length = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while done < length:
            step = min(left, length - done)
            if on:
                a, b = done / length, (done + step) / length
                draw.line(
                    (x0 + (x1 - x0) * a, y0 + (y1 - y0) * a, x0 + (x1 - x0) * b,
                     y0 + (y1 - y0) * b),
                    fill=fill, width=width,
                )
            done += step
            left -= step
            if left <= 0:
                on = not on
                left = float(_DASH if on else _DASH_GAP)


def _swatch(draw: ImageDraw.ImageDraw, x: int, y: int, colour: RGB, season: bool) -> None:
    if season:
        _dashed(draw, [(x, y), (x + _SWATCH, y)], colour, _SEASON_WIDTH)
    else:
        draw.line((x, y, x + _SWATCH, y), fill=colour, width=_LINE_WIDTH)


def _rotated_text(canvas: Image.Image, text: str, font: Font, fill: RGB, centre: tuple[int, int],
                  height: int) -> None:
    """`text` read bottom to top, centred on `centre`, cut to `height` px."""
    text = _fit(text, font, height)
    box = font.getbbox(text)
    label = Image.new("L", (max(1, int(box[2]) + 2), max(1, int(box[3]) + 2)), 0)
    ImageDraw.Draw(label).text((0, 0), text, fill=255, font=font)
    upright = label.rotate(90, expand=True)
    ink = Image.new("RGB", upright.size, fill)
    canvas.paste(ink, (centre[0] - upright.width // 2, centre[1] - upright.height // 2), upright)


def _spread(ys: list[float], gap: float, top: float, bottom: float) -> list[float]:
    """Label positions near `ys` (in the same order) at least `gap` apart, within top..bottom."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [0.0] * len(ys)
    last = top - gap
    for i in order:
        placed[i] = max(ys[i], last + gap)
        last = placed[i]
    overflow = last - bottom
    if overflow > 0:
        for i in order:
            placed[i] -= overflow
    return placed


def rating_chart(
    lines: Sequence[RatingLine], locale: str = "en", theme: str = DEFAULT_THEME
) -> bytes:
    """The chart of `lines` (at least one, each of two ratings or more) as PNG bytes, WIDTH x
    HEIGHT px, labelled in `locale` and coloured as `theme`."""
    if not lines or any(len(line.ratings) < 2 for line in lines):
        raise RenderError("a rating chart needs lines of a game or more")
    look = theme_named(theme)
    texts = chart_texts(lines, locale)
    colours = [line_colour(look, line) for line in lines]
    canvas = Image.new("RGB", (WIDTH, HEIGHT), look.background)
    draw = ImageDraw.Draw(canvas)
    legend_font, tick_font = _font(_LEGEND_SIZE), _font(_TICK_SIZE)
    axis_font, value_font = _font(_AXIS_SIZE), _font(_VALUE_SIZE, bold=True)
    grid = _mix(look.line, look.background, 0.6)

    # The legend: two entries a row, in the lines' order (each mode's all-time line, then its
    # season's).
    column = (WIDTH - 2 * MARGIN) // 2
    for index, (line, colour, name) in enumerate(zip(lines, colours, texts.legend, strict=True)):
        x = MARGIN + (index % 2) * column
        y = MARGIN + (index // 2) * _LEGEND_ROW + _LEGEND_ROW // 2
        _swatch(draw, x, y, colour, line.season is not None)
        room = column - _SWATCH - 2 * _GAP
        draw.text((x + _SWATCH + _GAP, y), _fit(name, legend_font, room), fill=look.label,
                  font=legend_font, anchor="lm")
    legend_bottom = MARGIN + math.ceil(len(lines) / 2) * _LEGEND_ROW

    low, high, y_step = _y_range(lines)
    y_ticks = list(range(low, high + 1, y_step))
    tick_width = max(tick_font.getlength(str(tick)) for tick in y_ticks)
    value_width = max(value_font.getlength(str(round(line.ratings[-1]))) for line in lines)
    axis_height = _AXIS_SIZE + 6
    left = round(MARGIN + axis_height + _GAP + tick_width + _GAP)
    right = round(WIDTH - MARGIN - value_width - 2 * _GAP)
    top = legend_bottom + _GAP + _TICK_SIZE // 2
    bottom = HEIGHT - MARGIN - axis_height - _TICK_SIZE - _GAP

    def y_of(rating: float) -> float:
        return bottom - (rating - low) / (high - low) * (bottom - top)

    games = max(len(line.ratings) for line in lines) - 1

    def x_of(ago: int) -> float:
        return right - ago / games * (right - left)

    for tick in y_ticks:
        y = round(y_of(tick))
        draw.line((left, y, right, y), fill=grid, width=1)
        draw.text((left - _GAP, y), str(tick), fill=look.label, font=tick_font, anchor="rm")
    x_step = _step(games, _X_STEPS, 6)
    for ago in range(0, games + 1, x_step):
        x = round(x_of(ago))
        draw.line((x, bottom, x, bottom + 5), fill=look.line, width=2)
        label = texts.now if ago == 0 else str(ago)
        draw.text((x, bottom + 7), label, fill=look.label, font=tick_font, anchor="mt")
    draw.line((left, top, left, bottom), fill=look.line, width=2)
    draw.line((left, bottom, right, bottom), fill=look.line, width=2)
    draw.text(((left + right) // 2, HEIGHT - MARGIN), _fit(texts.games_ago, axis_font, right - left),
              fill=look.label, font=axis_font, anchor="md")
    _rotated_text(canvas, texts.rating, axis_font, look.label,
                  (MARGIN + axis_height // 2, (top + bottom) // 2), bottom - top)

    # Every line ends on the right edge, at the member's rating now.
    ends: list[float] = []
    for line, colour in zip(lines, colours, strict=True):
        count = len(line.ratings)
        points = [(x_of(count - 1 - i), y_of(r)) for i, r in enumerate(line.ratings)]
        if line.season is None:
            draw.line(points, fill=colour, width=_LINE_WIDTH, joint="curve")
        else:
            _dashed(draw, points, colour, _SEASON_WIDTH)
        dot = 3 if count - 1 <= _DOTS_UP_TO else 0
        for px, py in points[:-1] if dot else ():
            draw.ellipse((px - dot, py - dot, px + dot, py + dot), fill=colour)
        end_x, end_y = points[-1]
        draw.ellipse((end_x - 5, end_y - 5, end_x + 5, end_y + 5), fill=colour)
        ends.append(end_y)
    placed = _spread(ends, _VALUE_SIZE + 2, _VALUE_SIZE / 2, HEIGHT - _VALUE_SIZE / 2)
    for line, colour, label_y in zip(lines, colours, placed, strict=True):
        draw.text((right + _GAP, label_y), str(round(line.ratings[-1])), fill=colour, font=value_font,
                  anchor="lm")

    out = io.BytesIO()
    canvas.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


__all__ = [
    "HEIGHT",
    "SEASON_FADE",
    "WIDTH",
    "ChartTexts",
    "chart_texts",
    "line_colour",
    "mode_colours",
    "rating_chart",
]
