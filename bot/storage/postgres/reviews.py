"""Queries of finished games as records: a member's finished games (newest first, for replays
and /caro history) and the cached AI review of a game."""

from __future__ import annotations

from bot.game.model import GameRow
from bot.storage.postgres.connection import Connection
from bot.storage.postgres.games import GameQueries

# The ids of the games a member played in a server (parameters: $1 the server, $2 the member):
# one part per index (games_finished_by_x, games_finished_by_o, game_boards_by_member).
_PLAYED_HERE = (
    "SELECT id FROM games WHERE guild_id = $1 AND x_user_id = $2 AND status = 'finished'"
    " UNION ALL SELECT id FROM games WHERE guild_id = $1 AND o_user_id = $2 AND status = 'finished'"
    " UNION ALL SELECT game_id FROM game_boards WHERE guild_id = $1 AND user_id = $2"
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
        rows = await self._con.pool.fetch(
            f"SELECT id FROM games WHERE status = 'finished' AND id IN ({_PLAYED_HERE})"
            " ORDER BY id DESC LIMIT $3 OFFSET $4",
            guild_id, user_id, limit, offset,
        )
        return await self._games.read_games([int(r[0]) for r in rows])

    async def board_in(self, game_id: int, guild_id: int) -> bool:
        found = await self._con.pool.fetchval(
            "SELECT 1 FROM game_boards WHERE game_id = $1 AND guild_id = $2", game_id, guild_id
        )
        return found is not None

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
