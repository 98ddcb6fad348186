"""The outbox on SQLite (bot.game.ports.OutboxStore). One process writes the file, so a claim is
one guarded UPDATE; `insert_posts` is for the other repositories, inside their transactions."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.game.outbox_model import Heard, NewPost, PostRow
from bot.storage.outbox_rows import (
    IN_ORDER,
    POST_COLUMNS,
    POST_INSERT_COLUMNS,
    WAITING,
    post_of,
    post_values,
)
from bot.storage.sqlite.connection import SHARD, Connection, check_shard


async def insert_posts(con: Connection, posts: Sequence[NewPost]) -> None:
    """Write `posts` (the caller holds the lock, and usually a transaction)."""
    if posts:
        await con.db.executemany(
            f"INSERT INTO outbox ({POST_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [post_values(post) for post in posts],
        )


class OutboxQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def listen_posts(self, heard: Callable[[Heard], None]) -> None:
        """Nothing to listen to: this process's writes wake its sender themselves, and another
        process on the file is seen at the sender's next look."""
        return

    async def add_posts(self, posts: Sequence[NewPost]) -> None:
        async with self._con.lock, self._con.transaction():
            await insert_posts(self._con, posts)

    async def due_posts(
        self, *, now: float, shard_id: int = 0, shard_count: int = 1, limit: int = 50
    ) -> list[PostRow]:
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {POST_COLUMNS} FROM outbox WHERE {WAITING} AND due_at <= ?"
                f" AND (claimed_until IS NULL OR claimed_until < ?) AND {SHARD} AND {IN_ORDER}"
                " ORDER BY id LIMIT ?",
                (now, now, shard_count, shard_id, limit),
            )
        return [post_of(r) for r in rows]

    async def next_post_due(self, *, shard_id: int = 0, shard_count: int = 1) -> float | None:
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            row = await self._con.first(
                f"SELECT MIN(MAX(due_at, COALESCE(claimed_until, due_at))) FROM outbox"
                f" WHERE {WAITING} AND {SHARD} AND {IN_ORDER}",
                (shard_count, shard_id),
            )
        return None if row is None or row[0] is None else float(row[0])

    async def claim_post(self, post_id: int, *, now: float, until: float) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                f"UPDATE outbox SET claimed_until = ? WHERE id = ? AND {WAITING}"
                " AND (claimed_until IS NULL OR claimed_until < ?)",
                (until, post_id, now),
            )
            return cur.rowcount == 1

    async def release_posts(self, *, shard_id: int = 0, shard_count: int = 1) -> int:
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            cur = await self._con.db.execute(
                f"UPDATE outbox SET claimed_until = NULL WHERE {WAITING}"
                f" AND claimed_until IS NOT NULL AND {SHARD}",
                (shard_count, shard_id),
            )
            return cur.rowcount

    async def post_sent(self, post_id: int, *, now: float, message_id: int | None) -> bool:
        return await self._sent("id", post_id, now, message_id)

    async def post_sent_by_nonce(
        self, nonce: str, *, now: float, message_id: int | None
    ) -> bool:
        return await self._sent("nonce", nonce, now, message_id)

    async def _sent(self, column: str, key: int | str, now: float, message_id: int | None
                    ) -> bool:
        """Mark the unsent row whose `column` (id or nonce) is `key` sent."""
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE outbox SET sent_at = ?, message_id = ?, claimed_until = NULL"
                f" WHERE {column} = ? AND {WAITING}",
                (now, message_id, key),
            )
            return cur.rowcount == 1

    async def hand_back_post(self, nonce: str) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                f"UPDATE outbox SET claimed_until = NULL WHERE nonce = ? AND {WAITING}", (nonce,)
            )
            return cur.rowcount == 1

    async def post_retry(self, post_id: int, *, error: str, retry_at: float) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ?, due_at = ?,"
                f" claimed_until = NULL WHERE id = ? AND {WAITING}",
                (error, retry_at, post_id),
            )

    async def post_failed(self, post_id: int, *, now: float, error: str) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ?, failed_at = ?,"
                f" claimed_until = NULL WHERE id = ? AND {WAITING}",
                (error, now, post_id),
            )

    async def post(self, post_id: int) -> PostRow | None:
        async with self._con.lock:
            row = await self._con.first(
                f"SELECT {POST_COLUMNS} FROM outbox WHERE id = ?", (post_id,)
            )
        return None if row is None else post_of(row)

    async def prune_posts(self, *, sent_before: float, failed_before: float) -> int:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "DELETE FROM outbox WHERE sent_at < ? OR failed_at < ?",
                (sent_before, failed_before),
            )
            return cur.rowcount
