"""Queries of the blocks between members (/caro block)."""

from __future__ import annotations

from bot.game.ports import BlockOutcome
from bot.storage.sqlite.connection import Connection


class BlockQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def block(self, user_id: int, blocked_id: int, *, now: float, limit: int
                    ) -> BlockOutcome:
        # One write transaction: the count and the insert see the same rows, even with another
        # process on the file.
        async with self._con.lock, self._con.transaction():
            if await self._con.first(
                "SELECT 1 FROM blocks WHERE user_id = ? AND blocked_id = ?",
                (user_id, blocked_id),
            ) is not None:
                return BlockOutcome.ALREADY
            count = await self._con.scalar(
                "SELECT COUNT(*) FROM blocks WHERE user_id = ?", (user_id,)
            )
            if count >= limit:
                return BlockOutcome.FULL
            await self._con.db.execute(
                "INSERT INTO blocks (user_id, blocked_id, created_at) VALUES (?, ?, ?)",
                (user_id, blocked_id, now),
            )
        return BlockOutcome.ADDED

    async def unblock(self, user_id: int, blocked_id: int) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "DELETE FROM blocks WHERE user_id = ? AND blocked_id = ?", (user_id, blocked_id)
            )
        return cur.rowcount > 0

    async def blocked(self, user_id: int) -> list[int]:
        async with self._con.lock:
            rows = await self._con.all(
                "SELECT blocked_id FROM blocks WHERE user_id = ? ORDER BY created_at, blocked_id",
                (user_id,),
            )
        return [int(row[0]) for row in rows]

    async def blocked_between(self, a: int, b: int) -> bool:
        async with self._con.lock:
            row = await self._con.first(
                "SELECT 1 FROM blocks WHERE (user_id = ? AND blocked_id = ?)"
                " OR (user_id = ? AND blocked_id = ?) LIMIT 1",
                (a, b, b, a),
            )
        return row is not None
