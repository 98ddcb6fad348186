"""Queries of the installation's facts (key and value) and of the work a process picks up for
its shards at start."""

from __future__ import annotations

from bot.game.model import GameRow
from bot.game.ports import REDRAW_FINISHED_WITHIN
from bot.storage.sqlite.connection import SHARD, Connection, check_shard
from bot.storage.sqlite.games import GameQueries


class MetaQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def get_meta(self, key: str) -> str | None:
        async with self._con.lock:
            row = await self._con.first(
                "SELECT value FROM meta WHERE key = ?", (key,)
            )
        return None if row is None else str(row[0])

    async def set_meta(self, key: str, value: str) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    async def games_awaiting_ai(self, *, shard_id: int = 0, shard_count: int = 1) -> list[GameRow]:
        """Running games of the shard with a posted message where an AI is to move (X moves on
        even plies)."""
        check_shard(shard_id, shard_count)
        return await self._games.games_where(
            "status = 'active' AND message_id IS NOT NULL"
            " AND ((ply % 2 = 0 AND x_level IS NOT NULL) OR (ply % 2 = 1 AND o_level IS NOT NULL)"
            # In an opening the side to act is not the side to move: the service picks out
            # those whose AI is to act.
            " OR (opening <> 'free' AND ply <= 5 AND (x_level IS NOT NULL OR o_level IS NOT NULL)))"
            f" AND {SHARD} ORDER BY id",
            (shard_count, shard_id),
        )

    async def games_to_redraw(
        self, finished_within: float = REDRAW_FINISHED_WITHIN, *, shard_id: int = 0,
        shard_count: int = 1,
    ) -> list[GameRow]:
        """Games whose message may be a move behind the database after a crash: the bot stores a
        move before it draws it, so a running game whose last move was the AI's, or a game that
        ended in the last `finished_within` seconds, may never have been drawn. Only the games
        of the shard."""
        check_shard(shard_id, shard_count)
        return await self._games.games_where(
            "message_id IS NOT NULL AND ("
            " (status = 'active' AND EXISTS (SELECT 1 FROM moves m"
            "  WHERE m.game_id = games.id AND m.ply = games.ply - 1 AND m.by_ai = 1)"
            # An AI's decision in an opening is no move: its board may be behind too.
            "  OR (status = 'active' AND opening <> 'free' AND ply <= 5)"
            " )"
            " OR (status = 'finished' AND finished_at >= strftime("
            "'%Y-%m-%dT%H:%M:%fZ', 'now', ?)))"
            f" AND {SHARD}"
            # Running games first: their players are waiting to move.
            " ORDER BY status = 'active' DESC, id DESC",
            (f"-{float(finished_within):.0f} seconds", shard_count, shard_id),
        )
