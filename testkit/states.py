"""Made-up game states, built as the storage would load them, for drawing and rendering tests:
`game`, a small game of member 42 against the AI, `big_game`, a 15x15 caro game of any mode, and
`in_tournament`, either of them as a tournament's game."""

from __future__ import annotations

from dataclasses import replace

from bot.game import ratings
from bot.game.model import EndReason, GameRow, GameState, Mode, MoveRow, Seat, Status, load_state
from bot.game.pairings import Format
from bot.game.tournament_model import PairingRow, TournamentGame, TournamentRow, TournamentStatus
from engine import Mark
from engine.game.openings import Opening
from engine.game.types import Level


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


def in_tournament(
    state: GameState, x: str, o: str, *, format: Format = Format.SWISS, message: int | None = 77
) -> tuple[GameState, TournamentGame]:
    """`state` as a game of tournament #5 (round 2 of 3, announced in message `message` of its
    channel), paired between the entries `x` and `o`: the game, and its place in the
    tournament."""
    state = load_state(replace(state.row, tournament_id=5))
    row = TournamentRow(
        id=5, guild_id=state.row.guild_id, channel_id=state.row.channel_id, message_id=message,
        created_by=42, format=format, rounds=3 if format is not Format.ARENA else None,
        minutes=None, max_players=64, rows=state.row.rows, cols=state.row.cols, k=state.row.k,
        rule=state.row.rule, opening=Opening.FREE, turn_seconds=60.0, rated=state.row.rated,
        starts_at=0.0, locale="en-US", status=TournamentStatus.RUNNING, round=2, announced=1,
        started_at=0.0, ends_at=None, finished_at=None,
    )
    pairing = PairingRow(id=1, round=2, board=0, x=x, o=o, game_id=state.id, outcome=None)
    return state, TournamentGame(row, pairing)
