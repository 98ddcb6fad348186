"""Queries of finished games as records: a member's finished games (newest first, for replays
and /caro history) and the cached AI review of a game."""

from __future__ import annotations

from bot.game.model import GameRow
from bot.storage.sqlite.connection import Connection
from bot.storage.sqlite.games import GameQueries

# The ids of the games a member played in a server (parameters: server, member, three times):
# one part per index (games_finished_by_x, games_finished_by_o, game_boards_by_member).
_PLAYED_HERE = (
    "SELECT id FROM games WHERE guild_id = ? AND x_user_id = ? AND status = 'finished'"
    " UNION ALL SELECT id FROM games WHERE guild_id = ? AND o_user_id = ? AND status = 'finished'"
    " UNION ALL SELECT game_id FROM game_boards WHERE guild_id = ? AND user_id = ?"
)


class ReviewQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def finished_games(
        self, guild_id: int, user_id: int, *, limit: int, offset: int = 0
    ) -> list[GameRow]:
        """The finished games `user_id` played in this server, newest first: those of this
        server, and those they played from their board here (a game of another server)."""
        return await self._games.games_where(
            f"status = 'finished' AND id IN ({_PLAYED_HERE}) ORDER BY id DESC LIMIT ? OFFSET ?",
            (guild_id, user_id, guild_id, user_id, guild_id, user_id, limit, offset),
        )

    async def board_in(self, game_id: int, guild_id: int) -> bool:
        async with self._con.lock:
            row = await self._con.first(
                "SELECT 1 FROM game_boards WHERE game_id = ? AND guild_id = ?", (game_id, guild_id)
            )
        return row is not None

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
