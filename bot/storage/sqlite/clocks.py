"""Queries of the turn clocks: games whose clock ran out, the next clock to run out."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.model import GameRow
from bot.game.outbox_model import NewPost
from bot.storage.sqlite.connection import SHARD, Connection, check_shard
from bot.storage.sqlite.games import GameQueries
from bot.storage.sqlite.outbox import insert_posts


class ClockQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def due_games(self, now: float, *, shard_id: int = 0,
                        shard_count: int = 1) -> list[GameRow]:
        """Running games of the shard whose member to move has run out of time by `now`. One
        process uses a SQLite file, so nothing else can be settling them: no claim is needed."""
        check_shard(shard_id, shard_count)
        return await self._games.games_where(
            f"status = 'active' AND deadline IS NOT NULL AND deadline <= ? AND {SHARD}"
            " ORDER BY deadline, id",
            (now, shard_count, shard_id),
        )

    async def next_deadline(self, *, shard_id: int = 0, shard_count: int = 1) -> float | None:
        """The earliest running clock of any game or pending challenge of the shard."""
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            row = await self._con.first(
                "SELECT MIN(d) FROM (SELECT MIN(deadline) AS d FROM games"
                f" WHERE status = 'active' AND {SHARD}"
                " UNION ALL SELECT MIN(deadline) FROM challenges"
                f" WHERE status = 'pending' AND {SHARD})",
                (shard_count, shard_id, shard_count, shard_id),
            )
        return None if row is None or row[0] is None else float(row[0])

    async def unwarned_clocks(
        self, until: float, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[GameRow]:
        """Running games of the shard whose clock runs out by `until` and whose low-time
        warning of that clock nobody claimed, soonest first."""
        check_shard(shard_id, shard_count)
        return await self._games.games_where(
            f"status = 'active' AND deadline IS NOT NULL AND deadline <= ? AND {SHARD}"
            " AND NOT EXISTS (SELECT 1 FROM clock_warnings w"
            " WHERE w.game_id = games.id AND w.deadline = games.deadline)"
            " ORDER BY deadline, id",
            (until, shard_count, shard_id),
        )

    async def next_unwarned_clock(
        self, after: float, *, shard_id: int = 0, shard_count: int = 1
    ) -> float | None:
        """The earliest running clock of the shard running out after `after` whose low-time
        warning nobody claimed."""
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            row = await self._con.first(
                "SELECT MIN(deadline) FROM games WHERE status = 'active' AND deadline > ?"
                f" AND {SHARD} AND NOT EXISTS (SELECT 1 FROM clock_warnings w"
                " WHERE w.game_id = games.id AND w.deadline = games.deadline)",
                (after, shard_count, shard_id),
            )
        return None if row is None or row[0] is None else float(row[0])

    async def claim_warning(
        self, game_id: int, deadline: float, posts: Sequence[NewPost] = ()
    ) -> bool:
        """Claim the low-time warning of `game_id`'s clock that runs out at `deadline`: True
        once per clock, and only while the game still runs on it; `posts` with it."""
        async with self._con.lock, self._con.transaction() as ok:
            cur = await self._con.db.execute(
                "INSERT INTO clock_warnings (game_id, deadline) SELECT id, deadline FROM games"
                " WHERE id = ? AND status = 'active' AND deadline = ?"
                " ON CONFLICT (game_id) DO UPDATE SET deadline = excluded.deadline"
                " WHERE clock_warnings.deadline <> excluded.deadline",
                (game_id, deadline),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return False
            await insert_posts(self._con, posts)
            return True

    async def set_deadline(self, game_id: int, ply: int, deadline: float | None) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE games SET deadline = ? WHERE id = ? AND ply = ? AND status = 'active'",
                (deadline, game_id, ply),
            )
            return cur.rowcount == 1
