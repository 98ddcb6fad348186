"""Rows of the outbox both backends read alike (bot.game.outbox_model)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.game.outbox_model import Heard, NewPost, PostKind, PostRow, new_nonce, payload_of
from bot.storage.rows import Row

POST_COLUMNS = (
    "id, guild_id, channel_id, kind, payload, nonce, created_at, due_at, attempts, last_error"
)
POST_INSERT_COLUMNS = (
    "guild_id, channel_id, kind, payload, nonce, created_at, due_at, claimed_until"
)
# A row a sender may take: neither sent nor failed for good.
WAITING = "sent_at IS NULL AND failed_at IS NULL"
_EDITS = "(" + ", ".join(f"'{kind.value}'" for kind in PostKind if kind.is_edit) + ")"
# What a signal of rows written may carry: PostgreSQL's NOTIFY payload holds under 8,000 bytes.
HEARD_BYTES = 7000
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
    """The values of POST_INSERT_COLUMNS for `post`, with a nonce of its own (the one it was
    given, if any); due at once."""
    return (
        post.guild_id, post.channel_id, post.kind.value, post.payload_json(),
        post.nonce or new_nonce(), post.at, post.at, post.claimed_until,
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


def written_row(post: NewPost, post_id: int, nonce: str) -> PostRow:
    """The row `post` became, as a read of it would give it (not tried yet)."""
    return PostRow(
        id=post_id,
        guild_id=post.guild_id,
        channel_id=post.channel_id,
        kind=post.kind,
        payload=payload_of(post.payload_json()),
        nonce=nonce,
        created_at=post.at,
        attempts=0,
        last_error=None,
    )


def heard_payload(rows: Sequence[PostRow]) -> str:
    """The signal of `rows` just written: the edits among them whole, as many as fit, and
    whether any other was written (see Heard)."""
    carried: list[list[object]] = []
    size = 0
    others = False
    for row in rows:
        if not row.kind.is_edit:
            others = True
            continue
        item: list[object] = [row.id, row.guild_id, row.channel_id, row.kind.value,
                              dict(row.payload), row.nonce, row.created_at]
        length = len(json.dumps(item, separators=(",", ":"))) + 1
        if size + length > HEARD_BYTES:
            others = True
            continue
        carried.append(item)
        size += length
    return json.dumps({"rows": carried, "others": others}, separators=(",", ":"))


def heard_of(payload: str) -> Heard:
    """The rows a signal carries (heard_payload's); a signal that carries none, or that this
    version cannot read, only wakes the sender (its pass finds the rows)."""
    try:
        value = json.loads(payload)
        rows = tuple(_heard_row(item) for item in value["rows"])
        others = value["others"]
    except (ValueError, TypeError, KeyError, IndexError):
        return Heard()
    if not isinstance(others, bool):
        return Heard()
    return Heard(rows, others)


def _heard_row(item: object) -> PostRow:
    if not isinstance(item, list) or len(item) != 7:
        raise ValueError("not a row")
    post_id, guild_id, channel_id, kind, payload, nonce, created_at = item
    numbers = (post_id, guild_id, channel_id)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise ValueError("not an id")
    if not (isinstance(payload, dict) and isinstance(nonce, str)
            and isinstance(created_at, int | float) and not isinstance(created_at, bool)):
        raise ValueError("not a row")
    post_kind = PostKind(kind)
    if not post_kind.is_edit:
        raise ValueError("not an edit")
    return PostRow(
        id=post_id, guild_id=guild_id, channel_id=channel_id, kind=post_kind, payload=payload,
        nonce=nonce, created_at=float(created_at), attempts=0, last_error=None,
    )


__all__ = [
    "HEARD_BYTES",
    "IN_ORDER",
    "POST_COLUMNS",
    "POST_INSERT_COLUMNS",
    "WAITING",
    "heard_of",
    "heard_payload",
    "post_of",
    "post_values",
    "written_row",
]
