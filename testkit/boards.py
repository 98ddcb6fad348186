"""Reading a game off the double's messages as a member sees it — its cell buttons, the position
drawn on them, the ply they were drawn at, its controls, whether it is over — and playing one
side of it to the end. Shared by the scenario tests of the cogs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import Board
from testkit.bot_process import text_of

FINAL = ("**You win!**", "**The AI wins.**", "**Draw.**")
COMPONENTS_V2 = 1 << 15  # the message flag of a Components V2 layout (5x5 and picture boards)
Pick = Callable[[Board], tuple[int, int]]


def is_over(message: Any) -> bool:
    """A game against the AI has ended on this message (won, lost or drawn)."""
    return any(text in text_of(message) for text in FINAL)


def cells(message: Any) -> list[dict[str, Any]]:
    """The cell buttons of a game message (not its controls: resign, hint, rematch...)."""
    return [b for b in message.buttons if str(b.get("custom_id", "")).startswith("caro:m:")]


def controls(message: Any) -> list[str]:
    """The labels of a game message's other buttons, in order: pan arrows, resign, hint..."""
    return [b["label"] for b in message.buttons if b not in cells(message)]


def top_level_types(message: Any) -> list[int]:
    """The component types of a message's top level (10 a text, 12 a picture, 1 a row)."""
    return [c["type"] for c in message.components]


def board_of(message: Any, k: int) -> Board:
    """The position drawn on a game message (its buttons), as an engine board."""
    buttons = cells(message)
    side = int(len(buttons) ** 0.5)
    board = Board(side, side, k)
    stones: dict[str, list[tuple[int, int]]] = {"X": [], "O": []}
    for button in buttons:
        label = button.get("label")
        if label in stones:
            cell = board.parse_move(button["custom_id"].rsplit(":", 1)[1])
            stones[label].append(cell)
    # Any interleaving of the stones gives the same position.
    order = [stones["X"], stones["O"]]
    for i in range(len(stones["X"]) + len(stones["O"])):
        board.push(order[i % 2][i // 2])
    return board


def ply_of(message: Any) -> int:
    """How many moves had been played when the message's cell buttons were drawn."""
    return int(cells(message)[0]["custom_id"].split(":")[3])


async def play_out(member: Any, message: Any, pick: Pick, k: int = 3) -> Any:
    """Play `member`'s side with `pick` until the game ends; the final message."""
    while True:
        message = await message.wait_for(
            lambda m: "Your turn" in text_of(m) or is_over(m), timeout=20
        )
        if is_over(message):
            return message
        board = board_of(message, k)
        result = await member.click(message, board.move_name(pick(board)))
        assert result.callback_type == 7, result
        assert not result.ephemeral


def first_empty(board: Board) -> tuple[int, int]:
    """A pick for play_out: the first legal move."""
    return next(iter(board.legal_moves))


async def resign(member: Any, message: Any, button: str = "Resign") -> Any:
    """`member` clicks the board's Resign (`button`: its label in their language, or its
    custom_id) and says yes to the private question it asks; the answer to the yes (7: the
    question was updated)."""
    asked = await member.click(message, button)
    assert asked.callback_type == 4 and asked.ephemeral, asked
    yes = next(b for b in asked.message.buttons if b["custom_id"].startswith("caro:rc:"))
    return await member.click(asked.message, yes["custom_id"])


def refusal(result: Any) -> str:
    """The text of a refusal: a private (ephemeral) message, the only answer to the interaction."""
    assert result.callback_type == 4 and result.ephemeral, result
    return str(result.content)


def short_refusal(result: Any) -> str:
    """A refusal in a short reply (what members who click or type too fast get, and forgeries)."""
    text = refusal(result)
    assert 0 < len(text) <= 200
    return text
