"""bench.queue_load's comparison of a game's two boards: what must match (the position, the cell
buttons, the other buttons by id, the picture) and what may differ (the texts, the labels in each
member's language)."""

from __future__ import annotations

from typing import Any

from bench.queue_load import look_of


class Shown:
    """The parts of a double's message that look_of reads."""

    def __init__(self, text: str, buttons: list[dict[str, Any]], picture: bytes = b"png") -> None:
        self.content = text
        self.components = [{"type": 1, "components": buttons}]
        self.buttons = buttons
        self.attachments = [{"data": picture}]


def board(text: str, stone: str = "X", type_label: str = "Type a move",
          picture: bytes = b"png") -> Shown:
    return Shown(text, [
        {"custom_id": "caro:m:7:1:H8", "label": stone, "disabled": True},
        {"custom_id": "caro:m:7:1:H9", "label": "\u200b", "disabled": False},
        {"custom_id": "caro:type:7", "label": type_label},
    ], picture)


def test_two_boards_in_two_languages_naming_the_players_apart_look_the_same() -> None:
    english = board("<@1> (X) vs **An** (1200). Moves played: 1.")
    vietnamese = board("**Alice** (1200) (X) vs <@2>. Số nước đã đi: 1.", type_label="Nhập nước đi")
    assert look_of(english).cells == look_of(vietnamese).cells
    assert look_of(english).controls == look_of(vietnamese).controls
    assert look_of(english).ply == 1 and not look_of(english).over


def test_a_different_stone_picture_or_move_count_makes_two_boards_differ() -> None:
    shown = look_of(board("Moves played: 1."))
    assert look_of(board("Moves played: 1.", stone="O")) != shown
    assert look_of(board("Moves played: 1.", picture=b"other")) != shown
    assert look_of(board("Moves played: 2.")) != shown
    assert look_of(board("Moves played: 1.")) == shown
