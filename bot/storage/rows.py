"""Rows as both backends store them, read back into the model: the same columns on SQLite and
PostgreSQL, so one reading serves both (a sqlite3.Row and an asyncpg Record are both read by column name)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from bot.game.model import (
    AiLevel,
    BoardStyle,
    EndReason,
    Finish,
    GameRow,
    MemberSettings,
    Mode,
    MoveRow,
    RatedRow,
    RatingChange,
    Record,
    Result,
    Seat,
    Status,
    parse_ai_level,
)
from bot.game.ports import Answer, RatePolicy
from bot.game.ratings import result_for
from engine import Mark
from engine.game.openings import Opening


def rated_rows(rows: Iterable[Sequence[Any]]) -> list[RatedRow]:
    """Leaderboard rows (user id, rating, wins, draws, losses), ranked in the order read."""
    return [
        RatedRow(
            rank=i,
            user_id=int(user_id),
            rating=float(rating),
            record=Record(wins=int(w), draws=int(d), losses=int(n_loss)),
        )
        for i, (user_id, rating, w, d, n_loss) in enumerate(rows, start=1)
    ]


def rating_points(newest_first: Iterable[Sequence[Any]]) -> list[float]:
    """(before, after) rating changes read newest first as the rating before the oldest and
    after each, oldest first."""
    changes = list(newest_first)[::-1]
    if not changes:
        return []
    return [float(changes[0][0]), *(float(after) for _, after in changes)]


def seat_columns(seat: Seat) -> tuple[int | None, str | None]:
    return (seat, None) if isinstance(seat, int) else (None, seat.value)


def seat(user_id: object, level: object) -> Seat:
    return parse_ai_level(str(level)) if user_id is None else int(str(user_id))


def check_move(
    finish: Finish | None, rate: RatePolicy | None, by_ai: bool, answer: Answer | None
) -> None:
    """Refuse, before anything is written, an add_move no caller could mean."""
    if finish is not None and rate is None:
        raise ValueError("a finishing move needs the rating policy")
    if answer is not None and by_ai:
        raise ValueError("an answer replies to a member's move, not to the AI's")


def ai_results(game: GameRow, winner: Mark | None) -> list[tuple[int, AiLevel, Result]]:
    """(member, AI level, the member's result) of a finished game against the AI, for the
    per-level records behind /caro stats; empty in the other modes."""
    if game.mode is not Mode.AI:
        return []
    found = []
    for mark in (Mark.X, Mark.O):
        seat, other = game.seat(mark), game.seat(mark.other)
        if isinstance(seat, int) and not isinstance(other, int):
            found.append((seat, other, result_for(winner, mark)))
    return found


def in_stored_order(changes: list[RatingChange]) -> tuple[RatingChange, ...]:
    """Rating changes in the order `StandingStore.rating_changes` reads them back."""
    return tuple(sorted(changes, key=lambda c: (c.scope, c.user_id)))


class Row(Protocol):
    """A stored row read by column name (sqlite3.Row, asyncpg.Record)."""

    def __getitem__(self, key: str, /) -> Any: ...


def game_row(row: Row) -> GameRow:
    return GameRow(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        mode=Mode(row["mode"]),
        x=seat(row["x_user_id"], row["x_level"]),
        o=seat(row["o_user_id"], row["o_level"]),
        started_by=int(row["started_by"]),
        rows=int(row["rows"]),
        cols=int(row["cols"]),
        k=int(row["k"]),
        rule=str(row["rule"]),
        status=Status(row["status"]),
        winner=None if row["winner"] is None else Mark[str(row["winner"])],
        end_reason=None if row["end_reason"] is None else EndReason(row["end_reason"]),
        rated=bool(row["rated"]),
        ply=int(row["ply"]),
        deadline=None if row["deadline"] is None else float(row["deadline"]),
        hints=int(row["hints"]),
        locale=str(row["locale"]),
        takebacks=int(row["takebacks"]),
        takeback_asked=None if row["takeback_asked"] is None else int(row["takeback_asked"]),
        takeback_open=bool(row["takeback_open"]),
        opening=Opening(row["opening"]),
        decisions=tuple(str(row["decisions"]).split()),
        tournament_id=None if row["tournament_id"] is None else int(row["tournament_id"]),
        turn_seconds=None if row["turn_seconds"] is None else float(row["turn_seconds"]),
        moves=tuple(
            MoveRow(
                ply=int(ply),
                cell=str(cell),
                by_ai=bool(by_ai),
                reason=None if reason is None else str(reason),
            )
            for ply, cell, by_ai, reason in json.loads(row["moves_json"])
        ),
    )


def member_settings_of(
    theme: object, turn_pings: object, clock_warnings: object, language: object
) -> MemberSettings:
    """A stored member_settings row as settings. A theme this version does not know (a newer
    version saved it, or it was retired) reads as the default rather than failing the member's
    every drawing."""
    try:
        style = None if theme is None else BoardStyle(str(theme))
    except ValueError:
        style = None
    return MemberSettings(
        theme=style,
        turn_pings=bool(turn_pings),
        clock_warnings=bool(clock_warnings),
        language=None if language is None else str(language),
    )
