"""The pictures /caro help shows for a rule: each renju panel rings a point the engine forbids
for the shape its caption names, the swap2 panels number the stones in the order swap2 places
them, and the captions follow the reader's language."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.ui import rule_pictures
from bot.ui.pictures import THEMES
from bot.ui.rule_pictures import PANELS, RuleTopic, forbidden_shapes, rule_picture
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
    image = Image.open(io.BytesIO(english))
    # Three boards one under the other: narrower than tall.
    assert image.height > image.width
    assert rule_picture(RuleTopic.SWAP2, "en-US", "night") != rule_picture(RuleTopic.SWAP2, "en-US")


# Discord shows a picture at about this width (px): a phone, a narrow window.
SHOWN_WIDTH = 450


@pytest.mark.parametrize("topic", list(RuleTopic))
def test_a_rule_picture_shown_at_discords_size_keeps_its_captions_readable(topic: RuleTopic) -> None:
    image = Image.open(io.BytesIO(rule_picture(topic, "en-US")))
    scale = SHOWN_WIDTH / image.width
    # Captions of at least 14 px once scaled, and no strip too wide to shrink that little.
    assert rule_pictures._FONT_PX * scale >= 14
    assert image.width <= 900


@pytest.mark.parametrize("theme", sorted(THEMES))
def test_the_forbidden_point_is_marked_in_a_colour_that_is_not_the_last_moves(theme: str) -> None:
    look = THEMES[theme]
    sign = rule_pictures.sign_colour(theme)
    assert sign not in (look.last_mark, look.win_line, look.x_ink, look.o_ink)
    image = Image.open(io.BytesIO(rule_picture(RuleTopic.RENJU, "en-US", theme))).convert("RGB")
    colours = {colour for _, colour in image.getcolors(maxcolors=1 << 20) or []}
    assert sign in colours
