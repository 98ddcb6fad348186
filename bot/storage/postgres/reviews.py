"""Queries of finished games as records: a member's finished games (newest first, for replays
and /caro history) and the cached AI review of a game."""

from __future__ import annotations

from bot.game.model import GameRow
from bot.storage.postgres.connection import Connection
from bot.storage.postgres.games import GameQueries


class ReviewQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def finished_games(
        self, guild_id: int, user_id: int, *, limit: int, offset: int = 0
    ) -> list[GameRow]:
        """The finished games `user_id` played in this server, newest first."""
        rows = await self._con.pool.fetch(
            "SELECT id FROM games WHERE guild_id = $1 AND status = 'finished'"
            " AND (x_user_id = $2 OR o_user_id = $2) ORDER BY id DESC LIMIT $3 OFFSET $4",
            guild_id, user_id, limit, offset,
        )
        return await self._games.read_games([int(r[0]) for r in rows])

    async def review(self, game_id: int, node_limit: int) -> str | None:
        """The cached review (JSON) of `game_id` made with `node_limit`, if any."""
        data = await self._con.pool.fetchval(
            "SELECT data FROM reviews WHERE game_id = $1 AND node_limit = $2", game_id, node_limit
        )
        return None if data is None else str(data)

    async def save_review(self, game_id: int, node_limit: int, data: str) -> None:
        """Cache the review of `game_id` (replacing one made with another node limit); one
        statement, so two processes saving at once leave one whole review."""
        await self._con.pool.execute(
            "INSERT INTO reviews (game_id, node_limit, data) VALUES ($1, $2, $3)"
            " ON CONFLICT (game_id) DO UPDATE SET node_limit = excluded.node_limit,"
            " data = excluded.data, created_at = now()",
            game_id, node_limit, data,
        )
