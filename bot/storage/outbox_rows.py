"""Rows of the outbox both backends read alike (bot.game.outbox_model)."""

from __future__ import annotations

from bot.game.outbox_model import NewPost, PostKind, PostRow, new_nonce, payload_of
from bot.storage.rows import Row

POST_COLUMNS = (
    "id, guild_id, channel_id, kind, payload, nonce, created_at, due_at, attempts, last_error"
)
POST_INSERT_COLUMNS = "guild_id, channel_id, kind, payload, nonce, created_at, due_at"
# A row a sender may take: neither sent nor failed for good.
WAITING = "sent_at IS NULL AND failed_at IS NULL"
_EDITS = "(" + ", ".join(f"'{kind.value}'" for kind in PostKind if kind.is_edit) + ")"
# A channel's new messages are sent in the order they were written: one waits while an earlier
# one of its channel is not sent (nor given up), so a retry never lets a later post overtake it.
# An edit is drawn from the database when it is sent, so it waits for nothing.
IN_ORDER = (
    f"(outbox.kind IN {_EDITS} OR NOT EXISTS (SELECT 1 FROM outbox earlier"
    " WHERE earlier.channel_id = outbox.channel_id AND earlier.id < outbox.id"
    f" AND earlier.sent_at IS NULL AND earlier.failed_at IS NULL"
    f" AND earlier.kind NOT IN {_EDITS}))"
)


def post_values(post: NewPost) -> tuple[object, ...]:
    """The values of POST_INSERT_COLUMNS for `post`, with a nonce of its own; due at once."""
    return (
        post.guild_id, post.channel_id, post.kind.value, post.payload_json(), new_nonce(),
        post.at, post.at,
    )


def post_of(row: Row) -> PostRow:
    return PostRow(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        kind=PostKind(row["kind"]),
        payload=payload_of(str(row["payload"])),
        nonce=str(row["nonce"]),
        created_at=float(row["created_at"]),
        attempts=int(row["attempts"]),
        last_error=row["last_error"],
    )


__all__ = [
    "IN_ORDER",
    "POST_COLUMNS",
    "POST_INSERT_COLUMNS",
    "WAITING",
    "post_of",
    "post_values",
]
