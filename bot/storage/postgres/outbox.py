"""The outbox on PostgreSQL (bot.game.ports.OutboxStore). Several processes may send: a row is
taken by one guarded UPDATE (its claim), so a second sender skips it until the claim runs out;
`insert_posts` is for the other repositories, inside their transactions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot.game.outbox_model import Heard, NewPost, PostRow
from bot.storage.outbox_rows import (
    IN_ORDER,
    POST_COLUMNS,
    POST_INSERT_COLUMNS,
    WAITING,
    heard_of,
    heard_payload,
    post_of,
    post_values,
    written_row,
)
from bot.storage.postgres.connection import Connection, check_shard, row_count, shard_filter

# The NOTIFY channel of new rows: every process's sender listens, so a row written by one
# process for a server another holds is sent at once, not at the other's next look. The
# payload carries the edits written whole (bot.storage.outbox_rows.heard_payload): the process
# holding their server sends them without reading the rows due first.
NEW_POSTS = "caro_outbox"


def insert_rows(first: int, after: str = "") -> str:
    """One INSERT for any number of rows, each column an array (post_arrays) from parameter
    `first` on; with `after`, a data-changing query of the same statement named so, the rows
    are written only if it changed a row."""
    arrays = ", ".join(
        f"${first + n}::{kind}[]"
        for n, kind in enumerate(
            ("bigint", "bigint", "text", "text", "text", "float8", "float8", "float8")))
    source = f"{after}, " if after else ""
    return (
        f"INSERT INTO outbox ({POST_INSERT_COLUMNS})"
        " SELECT r.g, r.c, r.k, r.p::jsonb, r.n, r.a, r.d, r.h"
        f" FROM {source}unnest({arrays}) AS r(g, c, k, p, n, a, d, h)"
    )


def post_arrays(values: Sequence[tuple[object, ...]]) -> list[list[object]]:
    """The parameters of insert_rows for rows of post_values: one list per column."""
    return [list(column) for column in zip(*values, strict=True)]


_INSERT = insert_rows(1) + " RETURNING id, nonce"


async def insert_posts(con: Any, posts: Sequence[NewPost]) -> None:
    """Write `posts` on connection `con` (usually in the caller's transaction); the senders
    listening are told when it commits."""
    if not posts:
        return
    values = [post_values(post) for post in posts]
    written = await con.fetch(_INSERT, *post_arrays(values))
    ids = {str(row["nonce"]): int(row["id"]) for row in written}
    # A row its writer holds (it sends it itself) is not signalled, so no other sender takes it;
    # nor is a quiet one (NewPost.heard).
    rows = [
        written_row(post, ids[nonce], nonce)
        for post, nonce in zip(posts, (str(v[4]) for v in values), strict=True)
        if post.heard
    ]
    if rows:
        await con.execute("SELECT pg_notify($1, $2)", NEW_POSTS, heard_payload(rows))


class OutboxQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def listen_posts(self, heard: Callable[[Heard], None]) -> None:
        await self._con.listening(NEW_POSTS, lambda payload: heard(heard_of(payload)))

    async def add_posts(self, posts: Sequence[NewPost]) -> None:
        async with self._con.transaction() as (con, _):
            await insert_posts(con, posts)

    async def due_posts(
        self, *, now: float, shard_id: int = 0, shard_count: int = 1, limit: int = 50
    ) -> list[PostRow]:
        check_shard(shard_id, shard_count)
        rows = await self._con.pool.fetch(
            f"SELECT {POST_COLUMNS} FROM outbox WHERE {WAITING} AND due_at <= $1"
            " AND (claimed_until IS NULL OR claimed_until < $1)"
            f" AND {shard_filter('$2', '$3')} AND {IN_ORDER} ORDER BY id LIMIT $4",
            now, shard_count, shard_id, limit,
        )
        return [post_of(r) for r in rows]

    async def next_post_due(self, *, shard_id: int = 0, shard_count: int = 1) -> float | None:
        check_shard(shard_id, shard_count)
        found = await self._con.pool.fetchval(
            "SELECT MIN(GREATEST(due_at, COALESCE(claimed_until, due_at))) FROM outbox"
            f" WHERE {WAITING} AND {shard_filter('$1', '$2')} AND {IN_ORDER}",
            shard_count, shard_id,
        )
        return None if found is None else float(found)

    async def claim_post(self, post_id: int, *, now: float, until: float) -> bool:
        done = await self._con.pool.execute(
            f"UPDATE outbox SET claimed_until = $3 WHERE id = $1 AND {WAITING}"
            " AND (claimed_until IS NULL OR claimed_until < $2)",
            post_id, now, until,
        )
        return row_count(done) == 1

    async def release_posts(self, *, shard_id: int = 0, shard_count: int = 1) -> int:
        check_shard(shard_id, shard_count)
        done = await self._con.pool.execute(
            f"UPDATE outbox SET claimed_until = NULL WHERE {WAITING}"
            f" AND claimed_until IS NOT NULL AND {shard_filter('$1', '$2')}",
            shard_count, shard_id,
        )
        return row_count(done)

    async def post_sent(self, post_id: int, *, now: float, message_id: int | None) -> bool:
        return await self._sent("id", post_id, now, message_id)

    async def post_sent_by_nonce(
        self, nonce: str, *, now: float, message_id: int | None
    ) -> bool:
        return await self._sent("nonce", nonce, now, message_id)

    async def _sent(self, column: str, key: int | str, now: float, message_id: int | None
                    ) -> bool:
        """Mark the unsent row whose `column` (id or nonce) is `key` sent."""
        done = await self._con.pool.execute(
            "UPDATE outbox SET sent_at = $2, message_id = $3, claimed_until = NULL"
            f" WHERE {column} = $1 AND {WAITING}",
            key, now, message_id,
        )
        return row_count(done) == 1

    async def hand_back_post(self, nonce: str) -> bool:
        async with self._con.transaction() as (con, _):
            row = await con.fetchrow(
                f"UPDATE outbox SET claimed_until = NULL WHERE nonce = $1 AND {WAITING}"
                f" RETURNING {POST_COLUMNS}",
                nonce,
            )
            if row is None:
                return False
            await con.execute("SELECT pg_notify($1, $2)", NEW_POSTS, heard_payload([post_of(row)]))
        return True

    async def post_retry(self, post_id: int, *, error: str, retry_at: float) -> None:
        await self._con.pool.execute(
            "UPDATE outbox SET attempts = attempts + 1, last_error = $2, due_at = $3,"
            f" claimed_until = NULL WHERE id = $1 AND {WAITING}",
            post_id, error, retry_at,
        )

    async def post_failed(self, post_id: int, *, now: float, error: str) -> None:
        await self._con.pool.execute(
            "UPDATE outbox SET attempts = attempts + 1, last_error = $2, failed_at = $3,"
            f" claimed_until = NULL WHERE id = $1 AND {WAITING}",
            post_id, error, now,
        )

    async def post(self, post_id: int) -> PostRow | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {POST_COLUMNS} FROM outbox WHERE id = $1", post_id
        )
        return None if row is None else post_of(row)

    async def prune_posts(self, *, sent_before: float, failed_before: float) -> int:
        done = await self._con.pool.execute(
            "DELETE FROM outbox WHERE sent_at < $1 OR failed_at < $2", sent_before, failed_before
        )
        return row_count(done)
