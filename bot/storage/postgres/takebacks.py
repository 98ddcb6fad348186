"""Queries of takebacks in casual games on PostgreSQL: the request to take the last move back, its
answer, and the takeback itself (the moves removed, the clock set, the count raised, in one
transaction with the game's row locked), each with the outbox rows it calls for."""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.model import GameRow
from bot.game.outbox_model import NewPost
from bot.storage.postgres.connection import Connection, row_count
from bot.storage.postgres.games import _GAME_WITH_MOVES
from bot.storage.postgres.outbox import insert_posts
from bot.storage.rows import game_row


class TakebackQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def ask_takeback(
        self, game_id: int, ply: int, *, now: float, posts: Sequence[NewPost] = ()
    ) -> bool:
        async with self._con.transaction() as (con, ok):
            done = await con.execute(
                "UPDATE games SET takeback_asked = $2, takeback_open = true, updated_at = now()"
                " WHERE id = $1 AND ply = $2 AND status = 'active'"
                " AND (deadline IS NULL OR deadline > $3)"
                " AND (takeback_asked IS NULL OR takeback_asked <> $2)",
                game_id, ply, now,
            )
            if row_count(done) != 1:
                ok.rollback()
                return False
            await insert_posts(con, posts)
            return True

    async def decline_takeback(
        self, game_id: int, ply: int, posts: Sequence[NewPost] = ()
    ) -> bool:
        async with self._con.transaction() as (con, ok):
            done = await con.execute(
                "UPDATE games SET takeback_open = false, updated_at = now()"
                " WHERE id = $1 AND ply = $2 AND status = 'active' AND takeback_open"
                " AND takeback_asked = $2",
                game_id, ply,
            )
            if row_count(done) != 1:
                ok.rollback()
                return False
            await insert_posts(con, posts)
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

        async def attempt() -> GameRow | None:
            async with self._con.transaction() as (con, ok):
                # The row is locked first: another process's takeback, move or finish of this
                # game waits for the commit, then finds the position gone and writes nothing.
                row = await con.fetchrow(
                    "SELECT ply, deadline, takebacks, takeback_asked, takeback_open FROM games"
                    " WHERE id = $1 AND status = 'active' FOR UPDATE",
                    game_id,
                )
                if (
                    row is None
                    or int(row["ply"]) != ply
                    or int(row["takebacks"]) >= limit
                    or (row["deadline"] is not None and float(row["deadline"]) <= now)
                    or (requested and not (row["takeback_open"] and row["takeback_asked"] == ply))
                ):
                    ok.rollback()
                    return None
                await con.execute(
                    "UPDATE games SET ply = $2, deadline = $3, takebacks = takebacks + 1,"
                    " takeback_asked = NULL, takeback_open = false, claimed_until = NULL,"
                    " updated_at = now()"
                    " WHERE id = $1",
                    game_id, to_ply, deadline,
                )
                await con.execute(
                    "DELETE FROM moves WHERE game_id = $1 AND ply >= $2", game_id, to_ply
                )
                await insert_posts(con, posts)
                return game_row(await con.fetchrow(_GAME_WITH_MOVES, game_id))

        return await self._con.retrying(attempt)


__all__ = ["TakebackQueries"]
