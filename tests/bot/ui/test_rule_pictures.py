"""The pictures /caro help shows for a rule: each renju panel rings a point the engine forbids
for the shape its caption names, the swap2 panels number the stones in the order swap2 places
them, and the captions follow the reader's language."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.i18n.texts import text_in
from bot.ui import rule_pictures
from bot.ui.pictures import THEMES, contrast
from bot.ui.rule_pictures import PANELS, RuleTopic, captions, forbidden_shapes, rule_picture
from engine import Mark
from engine.game.openings import Action, Choice, Opening, OpeningState


def test_each_renju_panel_rings_the_point_the_engine_forbids_for_its_shape() -> None:
    captions = [panel.caption for panel in PANELS[RuleTopic.RENJU]]
    assert captions == ["rules.renju.three", "rules.renju.fours", "rules.renju.overline"]
    assert forbidden_shapes() == [
        ("E5", "double-three"),
        ("D5", "double-four"),
        ("E5", "overline"),
    ]


def test_the_swap2_panels_are_the_stones_swap2_places_in_its_order() -> None:
    three, five = PANELS[RuleTopic.SWAP2]
    state = OpeningState.start(Opening.SWAP2, 9, 9, 5, three.rule)
    for name in three.moves:
        state = state.apply(Action.place(state.board.parse_move(name)))
    assert state.step is not None and Choice.PLACE_TWO in state.step.choices
    state = state.apply(Action.choose(Choice.PLACE_TWO))
    for name in five.moves[3:]:
        state = state.apply(Action.place(state.board.parse_move(name)))
    assert five.moves[:3] == three.moves
    assert state.step is not None and state.step.choices == (Choice.TAKE_X, Choice.TAKE_O)
    assert state.board.turn is Mark.O


def test_a_rule_picture_is_the_same_bytes_each_time_and_captioned_in_the_readers_language() -> None:
    english = rule_picture(RuleTopic.RENJU, "en-US")
    assert english == rule_picture(RuleTopic.RENJU, "en-US")
    assert english != rule_picture(RuleTopic.RENJU, "vi")
    assert rule_picture(RuleTopic.SWAP2, "en-US", "night") != rule_picture(RuleTopic.SWAP2, "en-US")


def shown_scale(width: int, height: int) -> float:
    """How much Discord shrinks a picture to fit its embed box, keeping the shape."""
    box_width, box_height = rule_pictures.SHOWN_BOX
    return min(box_width / width, box_height / height, 1.0)


@pytest.mark.parametrize("locale", ["en-US", "vi"])
@pytest.mark.parametrize("topic", list(RuleTopic))
def test_a_rule_picture_shown_in_discords_embed_box_keeps_its_captions_readable(
    topic: RuleTopic, locale: str
) -> None:
    image = Image.open(io.BytesIO(rule_picture(topic, locale)))
    # Wider than tall, as the box is: a tall picture is shrunk by its height, to a strip.
    assert image.width * 3 >= image.height * 4
    scale = shown_scale(image.width, image.height)
    # Captions of at least 14 px on a desktop and 11 px on a phone, where the box is narrower.
    assert rule_pictures.FONT_PX * scale >= 14
    phone = scale * rule_pictures.PHONE_WIDTH / rule_pictures.SHOWN_BOX[0]
    assert rule_pictures.FONT_PX * phone >= 11
    # Each board still shown at least 110 px wide, about 12 px a cell.
    assert rule_pictures.board_side(topic, locale) * scale >= 110


@pytest.mark.parametrize("locale", ["en-US", "vi"])
@pytest.mark.parametrize("topic", list(RuleTopic))
def test_every_caption_fits_its_panel_whole(topic: RuleTopic, locale: str) -> None:
    font = rule_pictures._font(rule_pictures.FONT_PX)
    width = rule_pictures.panel_width(len(PANELS[topic]))
    for panel, lines in zip(PANELS[topic], captions(topic, locale), strict=True):
        caption = text_in(locale, panel.caption, cell=panel.point or "")
        assert " ".join(lines).split() == caption.split()
        assert all(font.getlength(line) <= width for line in lines)


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_the_forbidden_point_is_marked_in_a_colour_that_is_not_the_last_moves(theme: str) -> None:
    look = THEMES[theme]
    sign = rule_pictures.sign_colour(theme)
    assert sign not in (look.last_mark, look.win_line, look.x_ink, look.o_ink)
    # Plain on its board: WCAG's ratio for a graphic.
    assert contrast(sign, look.background) >= 3.0
    image = Image.open(io.BytesIO(rule_picture(RuleTopic.RENJU, "en-US", theme))).convert("RGB")
    colours = {colour for _, colour in image.getcolors(maxcolors=1 << 20) or []}
    assert sign in colours
