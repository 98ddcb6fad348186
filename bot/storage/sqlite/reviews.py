"""Queries of finished games as records: a member's finished games (newest first, for replays
and /caro history) and the cached AI review of a game."""

from __future__ import annotations

from bot.game.model import GameRow
from bot.storage.sqlite.connection import Connection
from bot.storage.sqlite.games import GameQueries


class ReviewQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def finished_games(
        self, guild_id: int, user_id: int, *, limit: int, offset: int = 0
    ) -> list[GameRow]:
        """The finished games `user_id` played in this server, newest first."""
        return await self._games.games_where(
            "guild_id = ? AND status = 'finished' AND (x_user_id = ? OR o_user_id = ?)"
            " ORDER BY id DESC LIMIT ? OFFSET ?",
            (guild_id, user_id, user_id, limit, offset),
        )

    async def review(self, game_id: int, node_limit: int) -> str | None:
        """The cached review (JSON) of `game_id` made with `node_limit`, if any."""
        async with self._con.lock:
            row = await self._con.first(
                "SELECT data FROM reviews WHERE game_id = ? AND node_limit = ?",
                (game_id, node_limit),
            )
        return None if row is None else str(row[0])

    async def save_review(self, game_id: int, node_limit: int, data: str) -> None:
        """Cache the review of `game_id` (replacing one made with another node limit)."""
        async with self._con.lock, self._con.transaction():
            await self._con.db.execute(
                "INSERT INTO reviews (game_id, node_limit, data) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET node_limit = excluded.node_limit,"
                " data = excluded.data, created_at = excluded.created_at",
                (game_id, node_limit, data),
            )
