"""The kit's board readers on a message built by hand: the cells, the position and the ply drawn
on them, the controls, and whether the game is over."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from testkit.boards import board_of, cells, controls, first_empty, is_over, ply_of


@dataclass
class Shown:
    content: str
    buttons: list[dict[str, Any]]
    components: list[dict[str, Any]] = field(default_factory=list)


def game_message(stones: dict[str, str], content: str = "Your turn (X).") -> Shown:
    buttons = [
        {"custom_id": f"caro:m:7:3:{col}{row}", "label": stones.get(f"{col}{row}", "\u200b")}
        for row in (1, 2, 3) for col in "ABC"
    ]
    return Shown(content, buttons + [{"custom_id": "caro:r:7:3", "label": "Resign"}])


def test_the_readers_see_what_the_buttons_draw() -> None:
    message = game_message({"A1": "X", "B2": "O", "C3": "X"})
    assert len(cells(message)) == 9 and controls(message) == ["Resign"]
    assert ply_of(message) == 3 and not is_over(message)
    board = board_of(message, 3)
    assert board.ply == 3 and board.move_name(first_empty(board)) not in ("A1", "B2", "C3")
    assert is_over(game_message({}, "**Draw.**"))
