"""The standings picture a tournament posts after each round: a fixed width, a row per player,
long names cut inside their column, the podium highlighted, withdrawn players dimmed, and the
CPU pool's job drawing the same bytes from plain values."""

from __future__ import annotations

import io
import pickle
from dataclasses import astuple
from fractions import Fraction

import pytest
from PIL import Image, ImageChops, ImageFont

from bot.ui import picture_jobs
from bot.ui.pictures import THEMES, RenderError, theme_named
from bot.ui.standings_picture import (
    MARGIN,
    ROW_HEIGHT,
    WIDTH,
    StandingLine,
    picture_height,
    points_text,
    standings_picture,
)

HEADERS = ("#", "Player", "Points", "Buchholz", "SB", "Games")
DISCORD_LIMIT = 8 * 1024 * 1024


def _line(rank: int, name: str = "", withdrawn: bool = False) -> StandingLine:
    points = Fraction(40 - rank, 2)
    return StandingLine(
        rank,
        name or f"Player {rank}",
        points_text(points),
        points_text(points * 3),
        points_text(points / 2),
        7,
        withdrawn,
    )


def _image(rows: list[StandingLine], theme: str = "wood") -> Image.Image:
    return Image.open(io.BytesIO(standings_picture("Open", "Round 3 of 5", HEADERS, rows, theme)))


def _row_pixels(image: Image.Image, index: int) -> set[tuple[int, int, int]]:
    """The colours of the row at `index` (0 is the first player's)."""
    top = picture_height(0) - MARGIN + index * ROW_HEIGHT
    row = image.crop((MARGIN, top, WIDTH - MARGIN, top + ROW_HEIGHT))
    return {colour for _, colour in row.getcolors(maxcolors=row.width * row.height) or []}


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(0), "0"),
        (Fraction(1, 2), "½"),
        (Fraction(1), "1"),
        (Fraction(5, 2), "2½"),
        (Fraction(21, 2), "10½"),
        (Fraction(5, 4), "1¼"),
        (Fraction(3, 4), "¾"),
        (Fraction(-1, 2), "-½"),
        (Fraction(1, 3), "0.33"),
    ],
)
def test_points_text_writes_halves_as_players_do(value: Fraction, text: str) -> None:
    assert points_text(value) == text


def test_a_standings_picture_grows_a_row_per_player() -> None:
    sizes = [_image([_line(rank) for rank in range(1, n + 1)]).size for n in (0, 1, 8, 9)]
    assert [width for width, _ in sizes] == [WIDTH] * 4
    heights = [height for _, height in sizes]
    assert heights == [picture_height(n) for n in (0, 1, 8, 9)]
    assert heights[1] - heights[0] == ROW_HEIGHT
    assert heights[3] - heights[2] == ROW_HEIGHT


def test_sixty_four_players_fit_in_a_small_readable_picture() -> None:
    rows = [_line(rank) for rank in range(1, 65)]
    data = standings_picture("Arena", "Final standings", HEADERS, rows)
    image = Image.open(io.BytesIO(data))
    assert image.size == (WIDTH, picture_height(64))
    assert image.height < 2500
    assert len(data) < DISCORD_LIMIT // 20
    # The last row is drawn: it holds the label colour, not only the background.
    assert theme_named("wood").label in _row_pixels(image.convert("RGB"), 63)


def test_a_long_name_is_cut_inside_its_column() -> None:
    long_name = "Nguyễn " * 40 + "🎉" * 10
    short = _image([_line(1, "x"), _line(2, "y")]).convert("RGB")
    long = _image([_line(1, long_name), _line(2, long_name)]).convert("RGB")
    assert long.size == short.size == (WIDTH, picture_height(2))
    # Right of the middle only the numbers are drawn: the long name never reaches them.
    right = (WIDTH // 2 + 20, 0, WIDTH, long.height)
    assert long.crop(right).tobytes() == short.crop(right).tobytes()
    assert long.tobytes() != short.tobytes()


def test_vietnamese_names_and_headers_draw() -> None:
    rows = [
        _line(1, "Nguyễn Văn Đức"),
        _line(2, "Trần Thị Ánh Tuyết"),
        _line(3, "Phạm Hoàng Yến 🐉"),
    ]
    headers = ("#", "Người chơi", "Điểm", "Buchholz", "SB", "Ván")
    for theme in THEMES:
        data = standings_picture("Giải cờ caro tháng 11", "Vòng 3/5", headers, rows, theme)
        assert Image.open(io.BytesIO(data)).size == (WIDTH, picture_height(3))
    # The letters with diacritics are drawn as themselves, not as the letters without.
    plain = [_line(1, "Nguyen Van Duc"), *rows[1:]]
    assert standings_picture("Open", "", headers, rows) != standings_picture(
        "Open", "", headers, plain
    )


def test_the_podium_is_highlighted_and_a_withdrawn_player_dimmed() -> None:
    look = theme_named("wood")
    rows = [_line(1), _line(2), _line(3), _line(4), _line(5, withdrawn=True), _line(6)]
    image = _image(rows).convert("RGB")
    for index in range(3):
        assert look.highlight in _row_pixels(image, index)
    assert look.highlight not in _row_pixels(image, 3)
    # A withdrawn player's row has no full-strength ink: every text of it is dimmed.
    assert look.label in _row_pixels(image, 5)
    assert look.label not in _row_pixels(image, 4)
    standing = _image([*rows[:4], _line(5), rows[5]]).convert("RGB")
    assert look.label in _row_pixels(standing, 4)


def test_the_same_table_is_the_same_bytes_and_each_theme_its_own() -> None:
    rows = [_line(rank) for rank in range(1, 5)]
    first = standings_picture("Open", "Round 1", HEADERS, rows)
    assert first == standings_picture("Open", "Round 1", HEADERS, rows)
    assert len(
        {standings_picture("Open", "Round 1", HEADERS, rows, theme) for theme in THEMES}
    ) == len(THEMES)
    with pytest.raises(RenderError):
        standings_picture("Open", "Round 1", HEADERS, rows, "neon")


def test_the_standings_job_draws_the_same_bytes_from_plain_values() -> None:
    rows = [_line(1, "Nguyễn Văn Đức"), _line(2), _line(3, withdrawn=True)]
    plain = [astuple(row) for row in rows]
    # The CPU pool pickles a job and its arguments to send them to a worker process.
    job, arguments = pickle.loads(
        pickle.dumps((picture_jobs.standings_job, ("Open", "Final", HEADERS, plain, "night")))
    )
    assert job(*arguments) == standings_picture("Open", "Final", HEADERS, rows, "night")


@pytest.mark.parametrize(
    "headers",
    [HEADERS, ("#", "Người chơi", "Điểm", "Buchholz", "S-B", "Số ván đã chơi")],
)
def test_every_column_title_is_drawn_whole(headers: tuple[str, str, str, str, str, str]) -> None:
    rows = [_line(rank) for rank in range(1, 4)]

    def header_band(last: str) -> Image.Image:
        titles = (*headers[:5], last)
        drawn = standings_picture("Open", "Round 1", titles, rows)
        image = Image.open(io.BytesIO(drawn)).convert("RGB")
        top = picture_height(0) - MARGIN - 32
        return image.crop((0, top, WIDTH, top + 30))

    # The last title is drawn right-aligned: its ink spans its whole width unless it was cut.
    ink = ImageChops.difference(header_band(headers[5]), header_band("")).getbbox()
    assert ink is not None
    font = ImageFont.truetype("DejaVuSans-Bold.ttf", 15)
    assert ink[2] - ink[0] >= font.getlength(headers[5]) - 3
