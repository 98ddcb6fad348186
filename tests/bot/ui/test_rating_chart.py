"""The rating chart of /caro stats: a fixed size readable in an embed, a line per pool told apart
by colour and dashes, the colours of the member's theme, labels in their language, and the CPU
pool's job drawing the same bytes from plain values."""

from __future__ import annotations

import io
import pickle

import pytest
from PIL import Image

from bot.game.model import Mode, RatingLine
from bot.i18n.texts import text_in
from bot.ui import picture_jobs
from bot.ui.pictures import THEMES, RenderError, contrast, theme_named
from bot.ui.rating_chart import (
    HEIGHT,
    WIDTH,
    chart_texts,
    line_colour,
    mode_colours,
    rating_chart,
)

RGB = tuple[int, int, int]
PEOPLE = RatingLine(Mode.PVP, None, (1200.0, 1216.0, 1231.0, 1214.0, 1240.0, 1262.0))
PEOPLE_SEASON = RatingLine(Mode.PVP, "2026-07", (1231.0, 1210.0, 1236.0, 1255.0))
AI = RatingLine(Mode.AI, None, (1200.0, 1184.0, 1170.0, 1190.0))
AI_SEASON = RatingLine(Mode.AI, "2026-07", (1190.0, 1205.0))
EVERY_POOL = [PEOPLE, PEOPLE_SEASON, AI, AI_SEASON]


def colours(png: bytes) -> dict[RGB, int]:
    image = Image.open(io.BytesIO(png))
    assert image.mode == "RGB"
    found = image.getcolors(maxcolors=WIDTH * HEIGHT) or []
    return {colour: count for count, colour in found}


def test_the_chart_is_one_size_for_discord_embeds_however_many_games() -> None:
    long = RatingLine(Mode.AI, None, tuple(1200.0 + (i % 7) * 9 for i in range(51)))
    for lines in ([AI], EVERY_POOL, [long]):
        image = Image.open(io.BytesIO(rating_chart(lines, "en", "wood")))
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT) == (800, 400)


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_each_pool_has_a_line_of_its_own_in_the_themes_colours(theme: str) -> None:
    look = theme_named(theme)
    drawn = colours(rating_chart(EVERY_POOL, "en", theme))
    # The background is the theme's, and the most of the picture.
    assert max(drawn, key=lambda c: drawn[c]) == look.background
    shades = [line_colour(look, line) for line in EVERY_POOL]
    assert len(set(shades)) == 4  # every pool its own colour
    for shade in shades:
        assert drawn.get(shade, 0) > 100, (theme, shade)
    # Against people in X's colour, as on the boards; every line shows on the background.
    assert mode_colours(look)[Mode.PVP] == look.x_ink
    assert all(contrast(colour, look.background) >= 2.5 for colour in mode_colours(look).values())
    # The season line is a paler shade of its mode's: further from the ink, nearer the paper.
    ink, season = shades[0], shades[1]
    assert contrast(season, look.background) < contrast(ink, look.background)


def test_only_the_pools_given_are_drawn() -> None:
    look = theme_named("paper")
    drawn = colours(rating_chart([AI], "en", "paper"))
    assert drawn.get(line_colour(look, AI), 0) > 100
    # Antialiased text leaves a few pixels of any shade between its ink and the background.
    for absent in (PEOPLE, PEOPLE_SEASON, AI_SEASON):
        assert drawn.get(line_colour(look, absent), 0) < 40


def test_a_dark_theme_draws_a_dark_chart() -> None:
    night = Image.open(io.BytesIO(rating_chart(EVERY_POOL, "en", "night"))).convert("L")
    paper = Image.open(io.BytesIO(rating_chart(EVERY_POOL, "en", "paper"))).convert("L")
    assert night.getpixel((5, 5)) < 60 < 200 < paper.getpixel((5, 5))


def test_the_labels_speak_the_members_language() -> None:
    english, vietnamese = chart_texts(EVERY_POOL, "en"), chart_texts(EVERY_POOL, "vi")
    assert english.legend == (
        "against people, all time",
        "against people, season 2026-07",
        "against the AI, all time",
        "against the AI, season 2026-07",
    )
    assert (english.rating, english.games_ago, english.now) == ("Rating", "games ago", "now")
    assert vietnamese.legend == (
        "đấu với người, mọi thời gian",
        "đấu với người, mùa 2026-07",
        "đấu với máy, mọi thời gian",
        "đấu với máy, mùa 2026-07",
    )
    assert vietnamese.rating == text_in("vi", "chart.rating") == "Điểm xếp hạng"
    assert (vietnamese.games_ago, vietnamese.now) == ("số ván trước", "hiện tại")
    assert rating_chart(EVERY_POOL, "vi", "wood") != rating_chart(EVERY_POOL, "en", "wood")


def test_a_chart_with_no_game_is_refused() -> None:
    with pytest.raises(RenderError):
        rating_chart([], "en", "wood")
    with pytest.raises(RenderError):
        rating_chart([RatingLine(Mode.AI, None, (1200.0,))], "en", "wood")


def test_the_pool_job_draws_the_same_chart_from_plain_values() -> None:
    rows = picture_jobs.chart_rows(EVERY_POOL)
    assert pickle.loads(pickle.dumps(rows)) == rows
    assert picture_jobs.rating_chart_job(rows, "vi", "night") == rating_chart(
        EVERY_POOL, "vi", "night"
    )
