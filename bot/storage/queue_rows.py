"""Rows of the queue both backends read alike (bot.game.queue_model)."""

from __future__ import annotations

from collections.abc import Iterable

from bot.game.queue_model import GameBoard, NewQueueEntry, QueueEntry, QueueKey, QueueStatus
from bot.storage.rows import Row

ENTRY_COLUMNS = (
    "id, guild_id, channel_id, message_id, user_id, rows, cols, k, rule, rated, turn_seconds,"
    " local, rating, locale, joined_at, status, partner_id, paired_at, game_id, display_name"
)
ENTRY_INSERT_COLUMNS = (
    "guild_id, channel_id, user_id, rows, cols, k, rule, rated, turn_seconds, local, rating,"
    " locale, joined_at, display_name"
)
BOARD_COLUMNS = "game_id, guild_id, channel_id, user_id, message_id"


def entry_values(new: NewQueueEntry) -> tuple[object, ...]:
    """The values of ENTRY_INSERT_COLUMNS for `new` (flags as bools: SQLite stores them as 0/1)."""
    key = new.key
    return (
        new.guild_id, new.channel_id, new.user_id, key.rows, key.cols, key.k, key.rule,
        key.rated, key.turn_seconds, new.local, new.rating, new.locale, new.joined_at,
        new.display_name,
    )


def key_values(key: QueueKey) -> tuple[object, ...]:
    """The values compared by KEY_MATCH, in its order."""
    return (key.rows, key.cols, key.k, key.rule, key.rated, key.turn_seconds)


def entry_of(row: Row) -> QueueEntry:
    return QueueEntry(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        user_id=int(row["user_id"]),
        key=QueueKey(
            rows=int(row["rows"]),
            cols=int(row["cols"]),
            k=int(row["k"]),
            rule=str(row["rule"]),
            rated=bool(row["rated"]),
            turn_seconds=float(row["turn_seconds"]),
        ),
        rating=float(row["rating"]),
        local=bool(row["local"]),
        locale=str(row["locale"]),
        joined_at=float(row["joined_at"]),
        status=QueueStatus(row["status"]),
        partner_id=None if row["partner_id"] is None else int(row["partner_id"]),
        paired_at=None if row["paired_at"] is None else float(row["paired_at"]),
        game_id=None if row["game_id"] is None else int(row["game_id"]),
        display_name=str(row["display_name"]),
    )


def board_of(row: Row) -> GameBoard:
    return GameBoard(
        game_id=int(row["game_id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        user_id=int(row["user_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
    )


def member_pairs(rows: Iterable[Row]) -> set[frozenset[int]]:
    """Pairs of members from rows of two user ids, columns `a` and `b`."""
    return {frozenset((int(row["a"]), int(row["b"]))) for row in rows}


__all__ = [
    "BOARD_COLUMNS",
    "ENTRY_COLUMNS",
    "ENTRY_INSERT_COLUMNS",
    "board_of",
    "entry_of",
    "entry_values",
    "key_values",
    "member_pairs",
]
