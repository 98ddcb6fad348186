"""Made-up game states, built as the storage would load them, for drawing and rendering tests:
`game`, a small game of member 42 against the AI, and `big_game`, a 15x15 caro game of any mode."""

from __future__ import annotations

from bot.game import ratings
from bot.game.model import EndReason, GameRow, GameState, Mode, MoveRow, Seat, Status, load_state
from engine import Mark
from engine.types import Level


def game(moves: list[tuple[str, bool, str | None]], *, status: str = "active",
         result: str | None = None, mark: str = "X", size: int = 3, k: int = 3) -> GameState:
    """A game of member 42 playing `mark` against "hard"; `result` is the member's."""
    member = Mark[mark]
    winner = {"win": member, "loss": member.other}.get(result or "")
    row = GameRow(
        id=7, guild_id=1, channel_id=2, message_id=3, mode=Mode.AI,
        x=42 if member is Mark.X else Level.HARD, o=42 if member is Mark.O else Level.HARD,
        started_by=42, rows=size, cols=size, k=k, rule="freestyle", status=Status(status),
        winner=winner, end_reason=None if result is None else EndReason.LINE,
        rated=ratings.rated(Mode.AI, size, size, k), ply=len(moves),
        moves=tuple(MoveRow(i, cell, ai, why) for i, (cell, ai, why) in enumerate(moves)),
    )
    return load_state(row)



def big_game(moves: list[str], *, status: str = "active", mode: str = "pvp") -> GameState:
    """A 15x15 caro game #9 of `mode` (pvp: members 42 and 43; ai: 42 against "hard"; watch:
    "easy" against "hard") with these moves."""
    seats: dict[str, tuple[Seat, Seat]] = {
        "pvp": (42, 43), "ai": (42, Level.HARD), "watch": (Level.EASY, Level.HARD),
    }
    x, o = seats[mode]
    row = GameRow(
        id=9, guild_id=1, channel_id=2, message_id=3, mode=Mode(mode), x=x, o=o, started_by=42,
        rows=15, cols=15, k=5, rule="caro", status=Status(status),
        winner=Mark.X if status == "finished" else None,
        end_reason=EndReason.LINE if status == "finished" else None,
        rated=mode != "watch", ply=len(moves),
        moves=tuple(MoveRow(i, cell, mode == "watch", None) for i, cell in enumerate(moves)),
    )
    return load_state(row)

