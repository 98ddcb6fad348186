"""Queries of the blocks between members (/caro block), on PostgreSQL."""

from __future__ import annotations

from bot.game.ports import BlockOutcome
from bot.storage.postgres.connection import Connection, row_count

# The class of the transaction locks on one member's blocks (the first key of the two-key
# advisory locks; the challenges' pair locks use another).
BLOCKS_LOCK = 0x626C6B73


class BlockQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def block(self, user_id: int, blocked_id: int, *, now: float, limit: int
                    ) -> BlockOutcome:
        async with self._con.transaction() as (con, _):
            # Two blocks by one member at once (from any processes) queue here, so the count
            # the second reads includes the first.
            await con.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2))", BLOCKS_LOCK, str(user_id)
            )
            if await con.fetchval(
                "SELECT 1 FROM blocks WHERE user_id = $1 AND blocked_id = $2", user_id, blocked_id
            ) is not None:
                return BlockOutcome.ALREADY
            count = await con.fetchval("SELECT COUNT(*) FROM blocks WHERE user_id = $1", user_id)
            if int(count) >= limit:
                return BlockOutcome.FULL
            await con.execute(
                "INSERT INTO blocks (user_id, blocked_id, created_at) VALUES ($1, $2, $3)",
                user_id, blocked_id, now,
            )
        return BlockOutcome.ADDED

    async def unblock(self, user_id: int, blocked_id: int) -> bool:
        status = await self._con.pool.execute(
            "DELETE FROM blocks WHERE user_id = $1 AND blocked_id = $2", user_id, blocked_id
        )
        return row_count(status) > 0

    async def blocked(self, user_id: int) -> list[int]:
        rows = await self._con.pool.fetch(
            "SELECT blocked_id FROM blocks WHERE user_id = $1 ORDER BY created_at, blocked_id",
            user_id,
        )
        return [int(row[0]) for row in rows]

    async def blocked_between(self, a: int, b: int) -> bool:
        found = await self._con.pool.fetchval(
            "SELECT 1 FROM blocks WHERE (user_id = $1 AND blocked_id = $2)"
            " OR (user_id = $2 AND blocked_id = $1) LIMIT 1",
            a, b,
        )
        return found is not None
