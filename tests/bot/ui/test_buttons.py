"""The specs of the buttons and the form: each action's custom_id is parsed once into typed fields
by the template its fields make, every id the drawing makes is read back by exactly one spec, ids
the bot could not have made match none, and every spec is answered by exactly one cog method."""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest

from bot.cogs import FEATURES
from bot.ui import buttons, drawing
from bot.ui.buttons import (
    Accept,
    Action,
    Cell,
    Click,
    Decide,
    Decline,
    Export,
    Hint,
    HistoryPage,
    MoveForm,
    Pan,
    PuzzleCell,
    PuzzleForm,
    PuzzleGiveUp,
    PuzzlePan,
    PuzzleType,
    QueueLeave,
    Rematch,
    Replay,
    ReplayStep,
    Resign,
    ResignConfirm,
    ResignKeep,
    Review,
    Stop,
    TakebackAccept,
    TakebackDecline,
    TournamentJoin,
    TournamentLeave,
    TypeMove,
    answered_by,
    parse,
    specs,
    typed_cell,
)

# The templates of the version before the specs, verbatim: a spec's fields must make exactly
# these, so every id already on a board in a channel is read as it was.
ID, PLY, SNOWFLAKE = r"[1-9][0-9]{0,17}", r"0|[1-9][0-9]{0,2}", r"[1-9][0-9]{0,19}"
PREVIOUS_TEMPLATES = {
    Cell: rf"caro:m:(?P<game>{ID}):(?P<ply>{PLY}):(?P<cell>[A-Z][1-9][0-9]?)",
    Resign: rf"caro:r:(?P<game>{ID}):(?P<ply>{PLY})",
    Hint: rf"caro:h:(?P<game>{ID}):(?P<ply>{PLY})",
    Rematch: rf"caro:rm:(?P<game>{ID}):(?P<ply>{PLY})",
    TypeMove: rf"caro:t:(?P<game>{ID}):(?P<ply>{PLY})",
    MoveForm: rf"caro:tm:(?P<game>{ID}):(?P<ply>{PLY})",
    Pan: (
        rf"caro:p:(?P<game>{ID}):(?P<ply>{PLY})"
        r":(?P<window>w(?:0|[1-9][0-9]?)\.(?:0|[1-9][0-9]?)(?:\.[1-5]x[1-5])?)"
        r":(?P<direction>up|down|left|right)"
    ),
    Stop: rf"caro:s:(?P<game>{ID})",
    Accept: rf"caro:ca:(?P<challenge>{ID})",
    Decline: rf"caro:cd:(?P<challenge>{ID})",
    ReplayStep: rf"caro:rs:(?P<game>{ID}):(?P<ply>{PLY}):(?P<step>[fbnl])",
    Export: rf"caro:ex:(?P<game>{ID})",
    Replay: rf"caro:ro:(?P<game>{ID})",
    Review: rf"caro:rv:(?P<game>{ID})",
    HistoryPage: rf"caro:hp:(?P<user>{SNOWFLAKE}):(?P<page>0|[1-9][0-9]{{0,2}})",
    TakebackAccept: rf"caro:ta:(?P<game>{ID}):(?P<ply>{PLY})",
    TakebackDecline: rf"caro:td:(?P<game>{ID}):(?P<ply>{PLY})",
    PuzzleCell: rf"caro:pm:(?P<attempt>{ID}):(?P<ply>{PLY}):(?P<cell>[A-Z][1-9][0-9]?)",
    PuzzlePan: (
        rf"caro:pp:(?P<attempt>{ID}):(?P<ply>{PLY})"
        r":(?P<window>w(?:0|[1-9][0-9]?)\.(?:0|[1-9][0-9]?)(?:\.[1-5]x[1-5])?)"
        r":(?P<direction>up|down|left|right)"
    ),
    PuzzleType: rf"caro:pt:(?P<attempt>{ID}):(?P<ply>{PLY})",
    PuzzleForm: rf"caro:ptm:(?P<attempt>{ID}):(?P<ply>{PLY})",
    PuzzleGiveUp: rf"caro:pg:(?P<attempt>{ID}):(?P<ply>{PLY})",
    Decide: (
        rf"caro:oc:(?P<game>{ID}):(?P<ply>{PLY}):(?P<stage>{PLY})"
        r":(?P<choice>take_x|take_o|place_two)"
    ),
    TournamentJoin: rf"caro:tj:(?P<tournament>{ID})",
    TournamentLeave: rf"caro:tl:(?P<tournament>{ID})",
    # Newer than that version: their templates are kept from here on.
    ResignConfirm: rf"caro:rc:(?P<game>{ID}):(?P<ply>{PLY})",
    ResignKeep: rf"caro:rk:(?P<game>{ID})",
    QueueLeave: rf"caro:ql:(?P<entry>{ID})",
}


def test_every_action_has_exactly_one_spec() -> None:
    by_action = {spec.action: spec for spec in specs()}
    assert set(by_action) == set(Action)
    assert len(specs()) == len(Action)


def test_every_spec_makes_the_template_of_the_previous_version() -> None:
    assert set(PREVIOUS_TEMPLATES) == set(specs())
    for spec, template in PREVIOUS_TEMPLATES.items():
        assert spec.pattern.pattern == template, spec


def test_every_spec_is_answered_by_exactly_one_cog_method() -> None:
    answered: dict[type[Click], list[str]] = {}
    for feature in FEATURES:
        assert isinstance(feature, type)
        for spec, name in answered_by(feature).items():
            answered.setdefault(spec, []).append(f"{feature.__name__}.{name}")
    assert set(answered) == set(specs())
    assert all(len(owners) == 1 for owners in answered.values()), answered


def test_a_router_refuses_to_start_without_an_answer_for_every_spec() -> None:
    router = buttons.Router()
    with pytest.raises(LookupError, match="no cog answers"):
        router.require_every_action()


@pytest.mark.parametrize(
    ("spec", "fields", "expected"),
    [
        (Cell, {"game": 12, "ply": 3, "cell": "B2"}, "caro:m:12:3:B2"),
        (Resign, {"game": 7, "ply": 0}, "caro:r:7:0"),
        (ResignConfirm, {"game": 7, "ply": 5}, "caro:rc:7:5"),
        (ResignKeep, {"game": 7}, "caro:rk:7"),
        (Hint, {"game": 7, "ply": 4}, "caro:h:7:4"),
        (Rematch, {"game": 7, "ply": 9}, "caro:rm:7:9"),
        (TypeMove, {"game": 7, "ply": 2}, "caro:t:7:2"),
        (Pan, {"game": 7, "ply": 2, "window": "w5.5", "direction": "up"}, "caro:p:7:2:w5.5:up"),
        (Stop, {"game": 7}, "caro:s:7"),
        (Accept, {"challenge": 3}, "caro:ca:3"),
        (Decline, {"challenge": 3}, "caro:cd:3"),
        (ReplayStep, {"game": 7, "ply": 0, "step": "n"}, "caro:rs:7:0:n"),
        (Export, {"game": 7}, "caro:ex:7"),
        (Replay, {"game": 7}, "caro:ro:7"),
        (Review, {"game": 7}, "caro:rv:7"),
        (HistoryPage, {"user": 10**19, "page": 2}, f"caro:hp:{10**19}:2"),
    ],
)
def test_ids_round_trip_into_typed_fields(
    spec: type[Click], fields: dict[str, Any], expected: str
) -> None:
    made: Any = spec.custom_id_of
    assert made(**fields) == expected
    back = parse(expected)
    assert type(back) is spec and back.custom_id == expected
    for name, value in fields.items():
        assert getattr(back, name) == value and type(getattr(back, name)) is type(value)


@pytest.mark.parametrize(
    ("spec", "look", "fields"),
    [
        (Cell, ("X", discord.ButtonStyle.primary, True), {"game": 12, "ply": 3, "cell": "B2"}),
        (Resign, ("Resign", discord.ButtonStyle.danger), {"game": 12, "ply": 3}),
        (Hint, ("Hint", discord.ButtonStyle.secondary, True), {"game": 12, "ply": 3}),
        (Rematch, ("Rematch", discord.ButtonStyle.success), {"game": 12, "ply": 9}),
        (Stop, ("Stop", discord.ButtonStyle.danger), {"game": 12}),
        (Pan, ("\u2b06", discord.ButtonStyle.secondary, True),
         {"game": 12, "ply": 3, "window": "w2.3.5x5", "direction": "up"}),
        (Accept, ("Accept", discord.ButtonStyle.success), {"challenge": 4}),
        (HistoryPage, ("Next",), {"user": 42, "page": 1}),
    ],
)
@pytest.mark.usefixtures("fast_drawing")
def test_a_drawn_button_sends_what_discord_ui_would(
    spec: type[Click], look: tuple[Any, ...], fields: dict[str, Any]
) -> None:
    draw: Any = spec.button
    drawn = draw(*look, **fields)
    made: Any = spec.custom_id_of
    # What is not given is discord.ui's default too (a grey button, enabled).
    given = dict(zip(("label", "style", "disabled"), look, strict=False))
    ui = discord.ui.Button[Any](custom_id=made(**fields), **given)
    assert drawn == ui.to_component_dict()
    assert type(parse(drawn["custom_id"])) is spec
    # Drawn on a message, either way (CARO_FAST_DRAWING on or off): the same row of it.
    sent = drawing.view([{"type": 1, "components": [drawn]}]).to_components()
    assert sent == [{"type": 1, "components": [ui.to_component_dict()]}]


@pytest.mark.parametrize(
    "forged",
    [
        "caro:forged:1", "caro:m:0:0:A1", "caro:m:1:-1:A1", "caro:m:1:0:a1", "caro:m:1:0:A0",
        "caro:m:1:0:A100", "caro:m:1:1000:A1", "caro:m:01:0:A1", "caro:m:1:0:A1:x",
        "caro:m:99999999999999999999:0:A1", "", "caro:m:1:0:B2\n", "caro:s:7:0", "caro:r:7",
        "caro:ca:0", "caro:p:7:2:w5.5:north", "caro:p:7:2:w05.5:up", "caro:p:7:2:w5.5.6x5:up",
        "caro:tm:7:2",  # the form's id is not a button
        "CARO:m:1:0:A1", "caro", "caro:", "caro:m", "xcaro:m:1:0:A1", "caro:hp:1:1000",
        "caro:rs:7:0:x", "caro:ex:07",
    ],
)
def test_ids_the_bot_never_makes_match_no_button(forged: str) -> None:
    assert parse(forged) is None


def test_a_button_id_is_no_form_and_a_form_id_no_button() -> None:
    assert parse("caro:t:7:2", form=True) is None
    assert parse("caro:tm:7:2") is None
    form = parse("caro:tm:7:2", form=True)
    assert isinstance(form, MoveForm) and (form.game, form.ply) == (7, 2)
    assert form.custom_id == "caro:tm:7:2"
    assert parse("caro:tm:7", form=True) is None


def test_the_typed_cell_is_read_from_the_form() -> None:
    assert typed_cell({"components": [{"components": [
        {"custom_id": "cell", "value": "  h8 "}]}]}) == "H8"
    assert typed_cell({"components": [{"components": [
        {"custom_id": "cell", "value": "   "}]}]}) == ""
    assert typed_cell({"components": []}) == ""
    assert typed_cell({"components": [{"components": [
        {"custom_id": "cell", "value": "**A1**"}]}]}) == "?"
    assert typed_cell({"components": [{"component": {"custom_id": "cell", "value": "b2"}}]}) == "B2"


def test_templates_are_anchored_to_their_action() -> None:
    for spec in specs():
        assert spec.pattern.pattern.startswith(f"caro:{spec.action.value}:"), spec
        assert re.compile(spec.pattern.pattern).groups >= 1


def test_a_spec_is_frozen() -> None:
    click = Cell(game=1, ply=0, cell="A1")
    with pytest.raises(AttributeError):
        click.ply = 1  # type: ignore[misc]
