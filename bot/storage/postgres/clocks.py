"""Queries of the turn clocks on PostgreSQL: games whose clock ran out (claimed, so one process
settles each), the next clock to run out."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.model import GameRow
from bot.game.outbox_model import NewPost
from bot.storage.postgres.connection import (
    CLAIM_SECONDS,
    Connection,
    check_shard,
    row_count,
    shard_filter,
)
from bot.storage.postgres.games import GameQueries
from bot.storage.postgres.outbox import insert_posts


class ClockQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def due_games(self, now: float, *, shard_id: int = 0,
                        shard_count: int = 1) -> list[GameRow]:
        """Running games of the shard whose member to move has run out of time by `now`, each
        claimed for this caller (until `now` + CLAIM_SECONDS): another process asking at the
        same moment, or before the claim lapses, gets the others, so a clock is settled once.
        Rows another transaction holds are skipped rather than waited for."""
        check_shard(shard_id, shard_count)
        ids = await self._con.pool.fetch(
            "WITH due AS (SELECT id FROM games WHERE status = 'active' AND deadline IS NOT NULL"
            " AND deadline <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)"
            f" AND {shard_filter('$2', '$3')}"
            " ORDER BY deadline, id FOR UPDATE SKIP LOCKED)"
            " UPDATE games SET claimed_until = $1 + $4 FROM due WHERE games.id = due.id"
            " RETURNING games.id",
            now, shard_count, shard_id, CLAIM_SECONDS,
        )
        games = await self._games.read_games([int(r[0]) for r in ids])
        return sorted(games, key=lambda g: (g.deadline or 0.0, g.id))

    async def next_deadline(self, *, shard_id: int = 0, shard_count: int = 1) -> float | None:
        """The earliest running clock of any game or pending challenge of the shard; a clock
        claimed by a process counts from when its claim lapses."""
        check_shard(shard_id, shard_count)
        found = await self._con.pool.fetchval(
            "SELECT MIN(d) FROM ("
            " SELECT MIN(GREATEST(deadline, claimed_until)) AS d FROM games"
            f"  WHERE status = 'active' AND {shard_filter('$1', '$2')}"
            " UNION ALL SELECT MIN(GREATEST(deadline, claimed_until)) FROM challenges"
            f"  WHERE status = 'pending' AND {shard_filter('$1', '$2')}) AS due",
            shard_count, shard_id,
        )
        return None if found is None else float(found)

    async def unwarned_clocks(
        self, until: float, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[GameRow]:
        """Running games of the shard whose clock runs out by `until` and whose low-time
        warning of that clock nobody claimed, soonest first."""
        check_shard(shard_id, shard_count)
        ids = await self._con.pool.fetch(
            "SELECT id FROM games WHERE status = 'active' AND deadline IS NOT NULL"
            f" AND deadline <= $1 AND {shard_filter('$2', '$3')}"
            " AND NOT EXISTS (SELECT 1 FROM clock_warnings w"
            " WHERE w.game_id = games.id AND w.deadline = games.deadline)",
            until, shard_count, shard_id,
        )
        games = await self._games.read_games([int(r[0]) for r in ids])
        return sorted(games, key=lambda g: (g.deadline or 0.0, g.id))

    async def next_unwarned_clock(
        self, after: float, *, shard_id: int = 0, shard_count: int = 1
    ) -> float | None:
        """The earliest running clock of the shard running out after `after` whose low-time
        warning nobody claimed."""
        check_shard(shard_id, shard_count)
        found = await self._con.pool.fetchval(
            "SELECT MIN(deadline) FROM games WHERE status = 'active' AND deadline > $1"
            f" AND {shard_filter('$2', '$3')} AND NOT EXISTS"
            " (SELECT 1 FROM clock_warnings w"
            " WHERE w.game_id = games.id AND w.deadline = games.deadline)",
            after, shard_count, shard_id,
        )
        return None if found is None else float(found)

    async def claim_warning(
        self, game_id: int, deadline: float, posts: Sequence[NewPost] = ()
    ) -> bool:
        """Claim the low-time warning of `game_id`'s clock that runs out at `deadline`: True
        for one caller per clock, whichever processes ask at once (the upsert's conflict
        check serialises them on the row), and only while the game still runs on it; `posts`
        with it."""
        async with self._con.transaction() as (con, ok):
            claimed = await con.fetchval(
                "INSERT INTO clock_warnings (game_id, deadline) SELECT id, deadline FROM games"
                " WHERE id = $1 AND status = 'active' AND deadline = $2"
                " ON CONFLICT (game_id) DO UPDATE SET deadline = excluded.deadline"
                " WHERE clock_warnings.deadline <> excluded.deadline RETURNING game_id",
                game_id, deadline,
            )
            if claimed is None:
                ok.rollback()
                return False
            await insert_posts(con, posts)
            return True

    async def set_deadline(self, game_id: int, ply: int, deadline: float | None) -> bool:
        done = await self._con.pool.execute(
            "UPDATE games SET deadline = $1, claimed_until = NULL"
            " WHERE id = $2 AND ply = $3 AND status = 'active'",
            deadline, game_id, ply,
        )
        return row_count(done) == 1
