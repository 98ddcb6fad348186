"""Queries of the installation's facts (key and value) and of the work a process picks up for
its shards at start, on PostgreSQL."""

from __future__ import annotations

from bot.game.model import GameRow
from bot.game.ports import REDRAW_FINISHED_WITHIN
from bot.storage.postgres.connection import Connection, check_shard, shard_filter
from bot.storage.postgres.games import GameQueries


class MetaQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def get_meta(self, key: str) -> str | None:
        value = await self._con.pool.fetchval("SELECT value FROM meta WHERE key = $1", key)
        return None if value is None else str(value)

    async def set_meta(self, key: str, value: str) -> None:
        await self._con.pool.execute(
            "INSERT INTO meta (key, value) VALUES ($1, $2)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            key, value,
        )

    async def games_awaiting_ai(self, *, shard_id: int = 0, shard_count: int = 1) -> list[GameRow]:
        """Running games of the shard, with a posted message, where an AI is to move. Games a
        writer holds right now are skipped (SKIP LOCKED): whoever holds them is moving them."""
        check_shard(shard_id, shard_count)
        return await self._games.locked_games(
            "status = 'active' AND message_id IS NOT NULL"
            " AND ((ply % 2 = 0 AND x_level IS NOT NULL) OR (ply % 2 = 1 AND o_level IS NOT NULL)"
            # In an opening the side to act is not the side to move: the service picks out
            # those whose AI is to act.
            " OR (opening <> 'free' AND ply <= 5 AND (x_level IS NOT NULL OR o_level IS NOT NULL)))"
            f" AND {shard_filter('$1', '$2')} ORDER BY id",
            shard_count, shard_id,
        )

    async def games_to_redraw(
        self, finished_within: float = REDRAW_FINISHED_WITHIN, *, shard_id: int = 0,
        shard_count: int = 1,
    ) -> list[GameRow]:
        """Games of the shard whose message may be a move behind the database after a crash
        (see the SQLite backend); running games first."""
        check_shard(shard_id, shard_count)
        return await self._games.locked_games(
            "message_id IS NOT NULL AND ("
            " (status = 'active' AND EXISTS (SELECT 1 FROM moves m"
            "  WHERE m.game_id = games.id AND m.ply = games.ply - 1 AND m.by_ai)"
            # An AI's decision in an opening is no move: its board may be behind too.
            "  OR (status = 'active' AND opening <> 'free' AND ply <= 5)"
            " )"
            " OR (status = 'finished' AND finished_at >= now() - make_interval(secs => $3)))"
            f" AND {shard_filter('$1', '$2')}"
            " ORDER BY status = 'active' DESC, id DESC",
            shard_count, shard_id, float(finished_within),
        )
