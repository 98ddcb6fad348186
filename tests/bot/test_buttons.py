"""The button classes: each action's custom_id is parsed once into typed fields by its own
template, every id the drawing makes is read back by exactly one class, and ids the bot could
not have made match none."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import discord
import pytest

from bot.cogs.challenge import AcceptButton, DeclineButton
from bot.cogs.controls import HintButton, RematchButton, ResignButton
from bot.cogs.play import CellButton, MoveForm, PanButton, TypeMoveButton
from bot.cogs.watch import StopButton
from bot.items import Action, drawn_button, make_button, match_item, registered
from bot.window import Window


def parsed(custom_id: str) -> Any:
    found = match_item(custom_id)
    assert found is not None, custom_id
    cls, match = found
    base = discord.ui.Button[Any](custom_id=custom_id)
    return asyncio.run(cls.from_custom_id(None, base, match))  # type: ignore[arg-type]


def test_every_action_has_exactly_one_button_class() -> None:
    classes = {cls.action: cls for cls in registered()}
    assert set(classes) == set(Action)
    assert len(registered()) == len(Action)


@pytest.mark.parametrize(
    ("action", "fields", "expected", "cls"),
    [
        (Action.CELL, {"game": 12, "ply": 3, "cell": (1, 1)}, "caro:m:12:3:B2", CellButton),
        (Action.RESIGN, {"game": 7, "ply": 0}, "caro:r:7:0", ResignButton),
        (Action.HINT, {"game": 7, "ply": 4}, "caro:h:7:4", HintButton),
        (Action.REMATCH, {"game": 7, "ply": 9}, "caro:rm:7:9", RematchButton),
        (Action.TYPE_MOVE, {"game": 7, "ply": 2}, "caro:t:7:2", TypeMoveButton),
        (
            Action.PAN,
            {"game": 7, "ply": 2, "window": Window(5, 5), "direction": "up"},
            "caro:p:7:2:w5.5:up",
            PanButton,
        ),
        (Action.STOP, {"game": 7}, "caro:s:7", StopButton),
        (Action.ACCEPT, {"challenge": 3}, "caro:ca:3", AcceptButton),
        (Action.DECLINE, {"challenge": 3}, "caro:cd:3", DeclineButton),
    ],
)
def test_ids_round_trip_into_typed_fields(
    action: Action, fields: dict[str, Any], expected: str, cls: type[Any]
) -> None:
    button = make_button(action, **fields)
    assert isinstance(button, cls) and button.custom_id == expected
    back = parsed(expected)
    assert type(back) is cls and back.custom_id == expected
    for name, value in fields.items():
        if name == "cell":
            assert back.cell == "B2"
        else:
            assert getattr(back, name) == value and type(getattr(back, name)) is type(value)


@pytest.mark.parametrize(
    ("action", "fields"),
    [
        (Action.CELL, {"game": 12, "ply": 3, "cell": (1, 1), "label": "X",
                       "style": discord.ButtonStyle.primary, "disabled": True}),
        (Action.RESIGN, {"game": 12, "ply": 3, "label": "Resign",
                         "style": discord.ButtonStyle.danger}),
        (Action.HINT, {"game": 12, "ply": 3, "label": "Hint", "disabled": True}),
        (Action.REMATCH, {"game": 12, "ply": 9, "label": "Rematch",
                          "style": discord.ButtonStyle.success}),
        (Action.STOP, {"game": 12, "label": "Stop", "style": discord.ButtonStyle.danger}),
        (Action.PAN, {"game": 12, "ply": 3, "window": Window(2, 3, 5, 5), "direction": "up",
                      "label": "\u2b06", "disabled": True}),
    ],
)
def test_a_drawn_button_sends_what_its_class_would(action: Action, fields: dict[str, Any]) -> None:
    drawn = drawn_button(action, **fields)
    built = make_button(action, **fields)
    assert drawn == built.item.to_component_dict()
    assert type(parsed(drawn["custom_id"])) is type(built)


@pytest.mark.parametrize(
    "forged",
    [
        "caro:forged:1", "caro:m:0:0:A1", "caro:m:1:-1:A1", "caro:m:1:0:a1", "caro:m:1:0:A0",
        "caro:m:1:0:A100", "caro:m:1:1000:A1", "caro:m:01:0:A1", "caro:m:1:0:A1:x",
        "caro:m:99999999999999999999:0:A1", "", "caro:m:1:0:B2\n", "caro:s:7:0", "caro:r:7",
        "caro:ca:0", "caro:p:7:2:w5.5:north", "caro:p:7:2:w05.5:up", "caro:p:7:2:w5.5.6x5:up",
        "caro:tm:7:2",  # the form's id is not a button
    ],
)
def test_ids_the_bot_never_makes_match_no_button(forged: str) -> None:
    assert match_item(forged) is None


def test_the_move_form_id_is_parsed_into_typed_fields() -> None:
    form = MoveForm.parse("caro:tm:7:2")
    assert form is not None and (form.game, form.ply) == (7, 2)
    assert form.custom_id == "caro:tm:7:2"
    assert MoveForm.parse("caro:t:7:2") is None and MoveForm.parse("caro:tm:7") is None
    assert MoveForm.typed_cell({"components": [{"components": [
        {"custom_id": "cell", "value": "  h8 "}]}]}) == "H8"
    assert MoveForm.typed_cell({"components": [{"components": [
        {"custom_id": "cell", "value": "   "}]}]}) == ""
    assert MoveForm.typed_cell({"components": []}) == ""
    assert MoveForm.typed_cell({"components": [{"components": [
        {"custom_id": "cell", "value": "**A1**"}]}]}) == "?"


def test_templates_are_anchored_to_their_action() -> None:
    for cls in registered():
        assert cls.pattern.pattern.startswith(f"caro:{cls.action.value}:"), cls
        assert re.compile(cls.pattern.pattern).groups >= 1
