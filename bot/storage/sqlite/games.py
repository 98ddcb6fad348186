"""Queries of the games aggregate: games, their moves, their seats, and finishing them (with
their result and rating changes, through the standings queries)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import nullcontext

from bot.game.model import (
    ActiveGameExists,
    EndReason,
    Finish,
    GameRow,
    Mode,
    NewGame,
)
from bot.game.outbox_model import NewPost
from bot.game.ports import (
    Answer,
    Finished,
    LiveCounts,
    MoveOutcome,
    RatePolicy,
)
from bot.storage.rows import check_move, game_row, seat_columns
from bot.storage.sqlite.connection import NOW, Connection, Outcome
from bot.storage.sqlite.outbox import insert_posts
from bot.storage.sqlite.standings import StandingQueries
from engine import Mark

_GAME_COLUMNS = (
    "id, guild_id, channel_id, message_id, mode, x_user_id, x_level, o_user_id, o_level,"
    " started_by, rows, cols, k, rule, status, winner, end_reason, rated, ply, deadline, hints,"
    " locale, takebacks, takeback_asked, takeback_open, opening, decisions, tournament_id,"
    " turn_seconds"
)
# The moves ride along as one JSON array ([ply, cell, by_ai, reason] each, in order).
_GAME_WITH_MOVES = (
    f"SELECT {_GAME_COLUMNS}, (SELECT json_group_array(json_array(ply, cell, by_ai, reason))"
    " FROM (SELECT ply, cell, by_ai, reason FROM moves WHERE game_id = games.id ORDER BY ply))"
    " AS moves_json FROM games WHERE id = ?"
)

# A move that does not end the game, written by one statement (one trip to the database
# thread instead of four: BEGIN, UPDATE, INSERT, COMMIT): an insert into this view runs the
# trigger, all of it or (RAISE ABORT undoes the statement) none of it. Temporary, so they live
# on this connection only and are no part of the schema; created once the schema is migrated
# (a migration that rebuilds a table would trip over a trigger naming it).
_MOVE_WRITER = (
    "CREATE TEMP VIEW IF NOT EXISTS move_writes (game_id, ply, cell, by_ai, reason, answer_cell,"
    " answer_reason, deadline, now, takebacks)"
    " AS SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
    "CREATE TEMP TRIGGER IF NOT EXISTS move_writes_insert INSTEAD OF INSERT ON move_writes BEGIN"
    " UPDATE games SET ply = ply + 1 + (NEW.answer_cell IS NOT NULL), deadline = NEW.deadline,"
    f" updated_at = {NOW}"
    " WHERE id = NEW.game_id AND ply = NEW.ply AND takebacks = NEW.takebacks"
    " AND status = 'active' AND (deadline IS NULL OR deadline > NEW.now);"
    # changes(): the rows the UPDATE just above changed (in a trigger, its own statements').
    " SELECT RAISE(ABORT, 'caro: move not stored') WHERE changes() <> 1;"
    " INSERT INTO moves (game_id, ply, cell, by_ai, reason)"
    " VALUES (NEW.game_id, NEW.ply, NEW.cell, NEW.by_ai, NEW.reason);"
    " INSERT INTO moves (game_id, ply, cell, by_ai, reason)"
    " SELECT NEW.game_id, NEW.ply + 1, NEW.answer_cell, 1, NEW.answer_reason"
    " WHERE NEW.answer_cell IS NOT NULL;"
    " END",
)
_NOT_STORED = "caro: move not stored"


class GameQueries:
    """Games, their moves and seats; finishing one writes its result through the standings, in
    the same transaction."""

    def __init__(self, con: Connection, standings: StandingQueries) -> None:
        self._con = con
        self._standings = standings

    # ----------------------------------------------------------------- creating
    async def create_game(self, new: NewGame) -> GameRow:
        async with self._con.lock:
            game_id = await self._create_game(new)
            game = await self.read_game(game_id)
        assert game is not None
        return game

    async def create_game_within(
        self, new: NewGame, admit: Callable[[LiveCounts], None]
    ) -> GameRow:
        # The checks and the insert in one hold of the connection's lock, which every other
        # statement of the process takes too: no other start can pass the checks in between,
        # and a start waits behind the moves once, like a move.
        async with self._con.lock:
            existing = await self.game_in_the_way(new)
            if existing is not None:
                raise ActiveGameExists(existing)
            admit(await self._live_counts(new.guild_id, new.started_by))
            game_id = await self._create_game(new)
            game = await self.read_game(game_id)
        assert game is not None
        return game

    async def _create_game(self, new: NewGame) -> int:
        """Insert the game and its members' seats in one transaction (lock held)."""
        try:
            async with self._con.transaction():
                game_id = await self.insert_game(new)
        except sqlite3.IntegrityError:
            # A seat or the channel's watch slot is taken (primary key / unique index): the
            # database decides, so two processes racing for one slot cannot both win.
            existing = await self.game_in_the_way(new)
            if existing is None:
                raise
            raise ActiveGameExists(existing) from None
        return game_id

    async def insert_game(self, new: NewGame) -> int:
        x_user, x_level = seat_columns(new.x)
        o_user, o_level = seat_columns(new.o)
        cur = await self._con.db.execute(
            "INSERT INTO games (guild_id, channel_id, message_id, mode, x_user_id, x_level,"
            " o_user_id, o_level, started_by, rows, cols, k, rule, rated, deadline, locale,"
            " opening, tournament_id, turn_seconds)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                new.guild_id,
                new.channel_id,
                new.message_id,
                new.mode.value,
                x_user,
                x_level,
                o_user,
                o_level,
                new.started_by,
                new.rows,
                new.cols,
                new.k,
                new.rule,
                int(new.rated),
                new.deadline,
                new.locale,
                new.opening.value,
                new.tournament_id,
                new.turn_seconds,
            ),
        )
        game_id = cur.lastrowid
        assert game_id is not None
        for seat in (new.x, new.o):
            if isinstance(seat, int):
                await self._con.db.execute(
                    "INSERT INTO live_seats (guild_id, channel_id, user_id, game_id)"
                    " VALUES (?, ?, ?, ?)",
                    (new.guild_id, new.channel_id, seat, game_id),
                )
        return game_id

    async def game_in_the_way(self, new: NewGame) -> GameRow | None:
        if new.mode is Mode.WATCH:
            return await self._active_watch(new.guild_id, new.channel_id)
        for seat in (new.x, new.o):
            if isinstance(seat, int):
                found = await self._active_game(new.guild_id, new.channel_id, seat)
                if found is not None:
                    return found
        return None

    # ----------------------------------------------------------------- reading
    async def game(self, game_id: int) -> GameRow | None:
        async with self._con.lock:
            return await self.read_game(game_id)

    async def active_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None:
        async with self._con.lock:
            return await self._active_game(guild_id, channel_id, user_id)

    async def active_watch(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The AI-vs-AI game running in this channel, if any (a tournament's are not the
        channel's watch)."""
        async with self._con.lock:
            return await self._active_watch(guild_id, channel_id)

    async def last_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None:
        """The member's most recent game in a channel in which they played, running or not."""
        async with self._con.lock:
            row = await self._con.first(
                "SELECT id FROM games WHERE guild_id = ? AND channel_id = ?"
                " AND (x_user_id = ? OR o_user_id = ?) ORDER BY id DESC LIMIT 1",
                (guild_id, channel_id, user_id, user_id),
            )
            return None if row is None else await self.read_game(int(row[0]))

    async def live_counts(self, guild_id: int, user_id: int) -> LiveCounts:
        # A tournament's games are its own: a tournament of AI entries plays many at once, and
        # they do not use up what members may start themselves.
        async with self._con.lock:
            return await self._live_counts(guild_id, user_id)

    async def _live_counts(self, guild_id: int, user_id: int) -> LiveCounts:
        row = await self._con.first(
            "SELECT COALESCE(SUM(mode = 'ai' AND (x_user_id = ? OR o_user_id = ?)), 0),"
            " COALESCE(SUM(mode = 'ai'), 0), COALESCE(SUM(mode = 'watch'), 0)"
            " FROM games WHERE guild_id = ? AND status = 'active' AND tournament_id IS NULL",
            (user_id, user_id, guild_id),
        )
        assert row is not None
        return LiveCounts(int(row[0]), int(row[1]), int(row[2]))

    # ----------------------------------------------------------------- changing
    async def set_message(self, game_id: int, message_id: int) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                f"UPDATE games SET message_id = ?, updated_at = {NOW} WHERE id = ?",
                (message_id, game_id),
            )

    async def abandon_game(self, game_id: int) -> bool:
        """End a running game without a result (its message could not be posted, or a watch was
        stopped); no stats change."""
        async with self._con.lock, self._con.transaction() as ok:
            cur = await self._con.db.execute(
                f"UPDATE games SET status = 'abandoned', deadline = NULL, updated_at = {NOW},"
                f" finished_at = {NOW} WHERE id = ? AND status = 'active'",
                (game_id,),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return False
            await self._con.db.execute("DELETE FROM live_seats WHERE game_id = ?", (game_id,))
            return True

    async def add_hint(self, game_id: int, ply: int) -> bool:
        """Count a hint given at move `ply`; False if the game moved on or ended meanwhile."""
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE games SET hints = hints + 1 WHERE id = ? AND ply = ? AND status = 'active'",
                (game_id, ply),
            )
            return cur.rowcount == 1

    async def add_move(
        self,
        game_id: int,
        ply: int,
        cell: str,
        *,
        by_ai: bool,
        now: float,
        reason: str | None = None,
        finish: Finish | None = None,
        deadline: float | None = None,
        rate: RatePolicy | None = None,
        answer: Answer | None = None,
        takebacks: int = 0,
        posts: Sequence[NewPost] = (),
    ) -> MoveOutcome | Finished:
        """Record move number `ply` (0-based), with `answer` the AI's reply to it, and, if they
        ended the game, the result, and `posts` with them (see the interface). `deadline`: when
        the next member to move loses on time (None: no clock runs)."""
        check_move(finish, rate, by_ai, answer)
        if finish is None:
            # Without posts, one statement is its own transaction.
            writing = self._con.transaction() if posts else nullcontext(Outcome())
            async with self._con.lock, writing as ok:
                if await self._write_move(
                    game_id, ply, cell, by_ai, reason, answer, deadline, now, takebacks
                ):
                    await insert_posts(self._con, posts)
                    return MoveOutcome.STORED
                ok.rollback()
                return await self._why_not_stored(game_id, ply, now, takebacks)
        moves = [(game_id, ply, cell, int(by_ai), reason)]
        if answer is not None:
            moves.append((game_id, ply + 1, answer.cell, 1, answer.reason))
        async with self._con.lock, self._con.transaction() as ok:
            cur = await self._con.db.execute(
                f"UPDATE games SET ply = ply + ?, deadline = ?, updated_at = {NOW}"
                " WHERE id = ? AND ply = ? AND takebacks = ? AND status = 'active'"
                " AND (deadline IS NULL OR deadline > ?)",
                (len(moves), deadline, game_id, ply, takebacks, now),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return await self._why_not_stored(game_id, ply, now, takebacks)
            await self._con.db.executemany(
                "INSERT INTO moves (game_id, ply, cell, by_ai, reason) VALUES (?, ?, ?, ?, ?)",
                moves,
            )
            assert rate is not None
            finished = await self._finish(game_id, finish, rate)
            if finished is None:
                ok.rollback()
                return MoveOutcome.STALE
            await insert_posts(self._con, posts)
            return finished

    async def add_decision(
        self,
        game_id: int,
        ply: int,
        before: tuple[str, ...],
        after: tuple[str, ...],
        *,
        swap: bool,
        now: float,
        deadline: float | None,
    ) -> MoveOutcome:
        """Store the opening's decisions `after` in place of `before` at move count `ply`, with
        `swap` exchanging the X and O seats, in one statement (see the interface)."""
        async with self._con.lock:
            # SQLite evaluates every right-hand side on the row before the update: the seats
            # change places.
            swapped = (
                ", x_user_id = o_user_id, x_level = o_level, o_user_id = x_user_id,"
                " o_level = x_level" if swap else ""
            )
            cur = await self._con.db.execute(
                f"UPDATE games SET decisions = ?, deadline = ?, updated_at = {NOW}{swapped}"
                " WHERE id = ? AND ply = ? AND decisions = ? AND status = 'active'"
                " AND (deadline IS NULL OR deadline > ?)",
                (" ".join(after), deadline, game_id, ply, " ".join(before), now),
            )
            if cur.rowcount == 1:
                return MoveOutcome.STORED
            return await self._why_not_stored(game_id, ply, now)

    async def finish_game(
        self,
        game_id: int,
        finish: Finish,
        *,
        rate: RatePolicy,
        ply: int | None = None,
        due_by: float | None = None,
        not_due_at: float | None = None,
        decisions: tuple[str, ...] | None = None,
        posts: Sequence[NewPost] = (),
    ) -> Finished | None:
        """Finish a running game, count its result and write `posts`; None if it was not running.

        With `ply`, only if exactly that many moves were played (a resignation or a time-out
        must not land after a move it did not see); with `due_by`, only if its clock ran out
        by then (a move made meanwhile reset the clock); with `not_due_at`, only if its clock
        had not run out at that time (a resignation cannot undo a loss on time); with
        `decisions`, only if the opening's stored decisions are these (one may have swapped the
        seats the winner was named from).
        """
        joined = None if decisions is None else " ".join(decisions)
        async with self._con.lock, self._con.transaction() as ok:
            # A condition left out (None) holds.
            if not await self._con.scalar(
                "SELECT COUNT(*) FROM games WHERE id = ? AND (? IS NULL OR ply = ?)"
                " AND (? IS NULL OR decisions = ?)"
                " AND (? IS NULL OR (deadline IS NOT NULL AND deadline <= ?))"
                " AND (? IS NULL OR deadline IS NULL OR deadline > ?)",
                (game_id, ply, ply, joined, joined, due_by, due_by, not_due_at, not_due_at),
            ):
                ok.rollback()
                return None
            finished = await self._finish(game_id, finish, rate)
            if finished is None:
                ok.rollback()
            else:
                await insert_posts(self._con, posts)
            return finished

    async def _finish(self, game_id: int, finish: Finish, rate: RatePolicy) -> Finished | None:
        """Finish the game, free its seats, and (if rated) write its result and ratings: all in
        the caller's transaction, so a game counts exactly once. None if it was not running."""
        reason = EndReason(finish.reason)
        winner = None if finish.winner is None else Mark(finish.winner).name
        cur = await self._con.db.execute(
            "UPDATE games SET status = 'finished', winner = ?, end_reason = ?,"
            f" deadline = NULL, updated_at = {NOW}, finished_at = {NOW}"
            " WHERE id = ? AND status = 'active'",
            (winner, reason.value, game_id),
        )
        if cur.rowcount != 1:
            return None
        await self._con.db.execute("DELETE FROM live_seats WHERE game_id = ?", (game_id,))
        game = await self.read_game(game_id)
        assert game is not None
        changes = await self._standings.count_result(game, finish.winner, rate) if game.rated else ()
        return Finished(game, changes)

    # ----------------------------------------------------------------- helpers (lock held)
    async def _write_move(
        self,
        game_id: int,
        ply: int,
        cell: str,
        by_ai: bool,
        reason: str | None,
        answer: Answer | None,
        deadline: float | None,
        now: float,
        takebacks: int,
    ) -> bool:
        """Store a move that does not end the game, in one statement (see _MOVE_WRITER); False
        if the game was not running at `ply` after `takebacks` takebacks with its clock still
        running at `now`."""
        if not self._con.move_writer_ready:
            for sql in _MOVE_WRITER:
                await self._con.db.execute(sql)
            self._con.move_writer_ready = True
        try:
            await self._con.db.execute(
                "INSERT INTO move_writes (game_id, ply, cell, by_ai, reason, answer_cell,"
                " answer_reason, deadline, now, takebacks) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, ply, cell, int(by_ai), reason,
                 None if answer is None else answer.cell,
                 None if answer is None else answer.reason, deadline, now, takebacks),
            )
        except sqlite3.IntegrityError as exc:
            if str(exc) != _NOT_STORED:
                raise
            return False
        return True

    async def _why_not_stored(
        self, game_id: int, ply: int, now: float, takebacks: int | None = None
    ) -> MoveOutcome:
        # With `takebacks`, LATE only at the very position the move was judged on: at another
        # one the move is to be judged again first.
        late = await self._con.scalar(
            "SELECT COUNT(*) FROM games WHERE id = ? AND ply = ? AND status = 'active'"
            " AND (? IS NULL OR takebacks = ?) AND deadline IS NOT NULL AND deadline <= ?",
            (game_id, ply, takebacks, takebacks, now),
        )
        return MoveOutcome.LATE if late else MoveOutcome.STALE

    async def read_game(self, game_id: int) -> GameRow | None:
        # One query, so one trip to the database thread: every click and every AI answer reads
        # its game, and under load these trips queue behind each other on the one connection.
        rows = await self._con.db.execute_fetchall(_GAME_WITH_MOVES, (game_id,))
        return next((game_row(row) for row in rows), None)

    async def games_where(self, condition: str, params: tuple[object, ...] = ()) -> list[GameRow]:
        async with self._con.lock:
            rows = await self._con.all(f"SELECT id FROM games WHERE {condition}", params)
            ids = [int(row[0]) for row in rows]
            games = [await self.read_game(i) for i in ids]
        return [g for g in games if g is not None]

    async def _active_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None:
        row = await self._con.first(
            "SELECT game_id FROM live_seats WHERE guild_id = ? AND channel_id = ? AND user_id = ?",
            (guild_id, channel_id, user_id),
        )
        return None if row is None else await self.read_game(int(row[0]))

    async def _active_watch(self, guild_id: int, channel_id: int) -> GameRow | None:
        row = await self._con.first(
            "SELECT id FROM games WHERE guild_id = ? AND channel_id = ? AND mode = 'watch'"
            " AND status = 'active' AND tournament_id IS NULL ORDER BY id LIMIT 1",
            (guild_id, channel_id),
        )
        return None if row is None else await self.read_game(int(row[0]))
