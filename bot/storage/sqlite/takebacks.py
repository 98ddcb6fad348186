"""Queries of takebacks in casual games: the request to take the last move back, its answer, and
the takeback itself (the moves removed, the clock set, the count raised, in one transaction),
each with the outbox rows it calls for."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.model import GameRow
from bot.game.outbox_model import NewPost
from bot.storage.sqlite.connection import NOW, Connection
from bot.storage.sqlite.games import GameQueries
from bot.storage.sqlite.outbox import insert_posts


class TakebackQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def ask_takeback(
        self, game_id: int, ply: int, *, now: float, posts: Sequence[NewPost] = ()
    ) -> bool:
        async with self._con.lock, self._con.transaction() as ok:
            cur = await self._con.db.execute(
                f"UPDATE games SET takeback_asked = ?, takeback_open = 1, updated_at = {NOW}"
                " WHERE id = ? AND ply = ? AND status = 'active'"
                " AND (deadline IS NULL OR deadline > ?)"
                " AND (takeback_asked IS NULL OR takeback_asked <> ?)",
                (ply, game_id, ply, now, ply),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return False
            await insert_posts(self._con, posts)
            return True

    async def decline_takeback(
        self, game_id: int, ply: int, posts: Sequence[NewPost] = ()
    ) -> bool:
        async with self._con.lock, self._con.transaction() as ok:
            cur = await self._con.db.execute(
                f"UPDATE games SET takeback_open = 0, updated_at = {NOW}"
                " WHERE id = ? AND ply = ? AND status = 'active' AND takeback_open = 1"
                " AND takeback_asked = ?",
                (game_id, ply, ply),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return False
            await insert_posts(self._con, posts)
            return True

    async def take_back(
        self,
        game_id: int,
        ply: int,
        to_ply: int,
        *,
        now: float,
        deadline: float | None,
        limit: int,
        requested: bool,
        posts: Sequence[NewPost] = (),
    ) -> GameRow | None:
        if not 0 <= to_ply < ply:
            raise ValueError(f"cannot take back from move {ply} to move {to_ply}")
        async with self._con.lock, self._con.transaction() as ok:
            # The one writer of this database holds the lock: the checks of this UPDATE hold
            # until the moves are deleted and the transaction commits.
            cur = await self._con.db.execute(
                f"UPDATE games SET ply = ?, deadline = ?, takebacks = takebacks + 1,"
                f" takeback_asked = NULL, takeback_open = 0, updated_at = {NOW}"
                " WHERE id = ? AND ply = ? AND status = 'active' AND takebacks < ?"
                " AND (deadline IS NULL OR deadline > ?)"
                " AND (? = 0 OR (takeback_open = 1 AND takeback_asked = ?))",
                (to_ply, deadline, game_id, ply, limit, now, int(requested), ply),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return None
            await self._con.db.execute(
                "DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, to_ply)
            )
            await insert_posts(self._con, posts)
            return await self._games.read_game(game_id)


__all__ = ["TakebackQueries"]
