"""Queries of the games aggregate on PostgreSQL: games, their moves, their seats, finishing them
(with their result and rating changes, through the standings queries), and the background work
of each shard."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import asyncpg  # type: ignore[import-untyped]

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
from bot.storage.outbox_rows import post_values
from bot.storage.postgres.connection import Connection, row_count
from bot.storage.postgres.outbox import insert_posts, insert_rows, post_arrays
from bot.storage.postgres.standings import StandingQueries
from bot.storage.rows import check_move, game_row, seat_columns
from engine import Mark

_GAME_COLUMNS = (
    "id, guild_id, channel_id, message_id, mode, x_user_id, x_level, o_user_id, o_level,"
    " started_by, rows, cols, k, rule, status, winner, end_reason, rated, ply, deadline, hints,"
    " locale, takebacks, takeback_asked, takeback_open, opening, decisions, tournament_id,"
    " turn_seconds"
)
# The moves ride along as one JSON array ([ply, cell, by_ai, reason] each, in order): one round
# trip per game read.
_MOVES_JSON = (
    "COALESCE((SELECT json_agg(json_build_array(m.ply, m.cell, m.by_ai, m.reason)"
    " ORDER BY m.ply) FROM moves m WHERE m.game_id = games.id), '[]') AS moves_json"
)
_GAME_WITH_MOVES = f"SELECT {_GAME_COLUMNS}, {_MOVES_JSON} FROM games WHERE id = $1"
_GAMES_WITH_MOVES = f"SELECT {_GAME_COLUMNS}, {_MOVES_JSON} FROM games WHERE id = ANY($1::BIGINT[])"
# The moves of one write, as rows: the member's move and, if given, the AI's answer. Parameters
# $5-$7: their cells, by_ai flags and reasons as arrays, in order; $3: the first one's ply.
_NEW_MOVES = (
    "SELECT $3::INTEGER + n::INTEGER - 1 AS ply, cell, by_ai, reason"
    " FROM unnest($5::TEXT[], $6::BOOLEAN[], $7::TEXT[]) WITH ORDINALITY AS m(cell, by_ai,"
    " reason, n)"
)
# A write that does not end the game: the game moves on only if it is running, at the position
# the move was judged on (move `ply` after `takebacks` takebacks: a takeback and a move since
# give the same move count another position) and the mover's clock has not run out at `now`,
# and the moves are written only if it did. A second writer of the same position waits for the
# first's row lock, then finds the ply moved on and writes nothing; UNIQUE(game_id, ply) backs
# it. Parameters: deadline, game, ply, now, then the moves (see _NEW_MOVES), then takebacks.
_MOVED = (
    "WITH moved AS (UPDATE games SET ply = ply + cardinality($5::TEXT[]), deadline = $1,"
    " claimed_until = NULL, updated_at = now() WHERE id = $2 AND ply = $3 AND takebacks = $8"
    " AND status = 'active' AND (deadline IS NULL OR deadline > $4) RETURNING id)"
)
_INSERT_MOVES = (
    " INSERT INTO moves (game_id, ply, cell, by_ai, reason)"
    f" SELECT moved.id, new.ply, new.cell, new.by_ai, new.reason FROM moved, ({_NEW_MOVES}) AS new"
)
_MOVE = _MOVED + _INSERT_MOVES
# The same with outbox rows held by their writer (no notification to send), from parameter 9
# on: still one statement, its outbox rows written only if the move was.
_MOVE_HELD = f"{_MOVED}, move AS ({_INSERT_MOVES}) {insert_rows(9, after='moved')}"
# A write that ends the game, under the same checks: the game is finished, its seats freed and
# the moves written in one statement, which returns the finished game with all its moves (the
# stored ones are read in the statement's snapshot, which does not hold the new ones: they are
# added by hand). Parameters: game, winner, ply, now, the moves (see _NEW_MOVES), end reason,
# takebacks.
_FINISHED = (
    "WITH moved AS (UPDATE games SET ply = ply + cardinality($5::TEXT[]), status = 'finished',"
    " winner = $2, end_reason = $8, deadline = NULL, claimed_until = NULL, updated_at = now(),"
    " finished_at = now() WHERE id = $1 AND ply = $3 AND takebacks = $9 AND status = 'active'"
    " AND (deadline IS NULL OR deadline > $4) RETURNING *),"
    " move AS (INSERT INTO moves (game_id, ply, cell, by_ai, reason)"
    f" SELECT moved.id, new.ply, new.cell, new.by_ai, new.reason FROM moved, ({_NEW_MOVES}) AS new),"
    " freed AS (DELETE FROM live_seats WHERE game_id IN (SELECT id FROM moved))"
)
_FINISHED_GAME = (
    f" SELECT {_GAME_COLUMNS}, (SELECT json_agg(json_build_array(a.ply, a.cell, a.by_ai,"
    " a.reason) ORDER BY a.ply) FROM (SELECT m.ply, m.cell, m.by_ai, m.reason FROM moves m"
    f" WHERE m.game_id = moved.id UNION ALL {_NEW_MOVES}) AS a) AS moves_json"
    " FROM moved"
)
_FINISHING_MOVE = _FINISHED + _FINISHED_GAME
# The same with outbox rows no notification is sent for (held by their writer, or quiet), from
# parameter 10 on: written in the same statement, only if the move was.
_FINISHING_MOVE_HELD = (
    f"{_FINISHED}, posted AS ({insert_rows(10, after='moved')}){_FINISHED_GAME}"
)
# A new game with its members' seats (the seats' key refuses a member's second running game in a
# channel), returned as read. Parameters: the games columns in order, then the members' ids.
_NEW_GAME = (
    "WITH game AS (INSERT INTO games (guild_id, channel_id, message_id, mode, x_user_id,"
    " x_level, o_user_id, o_level, started_by, rows, cols, k, rule, rated, deadline, locale,"
    " opening, tournament_id, turn_seconds)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $18, $19,"
    " $20)"
    " RETURNING *),"
    " seats AS (INSERT INTO live_seats (guild_id, channel_id, user_id, game_id)"
    " SELECT game.guild_id, game.channel_id, member, game.id"
    " FROM game, unnest($17::BIGINT[]) AS member)"
    f" SELECT {_GAME_COLUMNS}, '[]' AS moves_json FROM game"
)
# A server's running games for the limits on AI work. A tournament's games are its own: a
# tournament of AI entries plays many at once, and they do not use up what members may start
# themselves. Parameters: the member, the server.
_LIVE_COUNTS = (
    "SELECT COUNT(*) FILTER (WHERE mode = 'ai' AND (x_user_id = $1 OR o_user_id = $1)),"
    " COUNT(*) FILTER (WHERE mode = 'ai'), COUNT(*) FILTER (WHERE mode = 'watch')"
    " FROM games WHERE guild_id = $2 AND status = 'active' AND tournament_id IS NULL"
)
# The class of the transaction locks on a server's starts (the first key of the two-key
# advisory locks; the challenges' class is another).
START_LOCK = 0x73747274


def _live_counts(row: Any) -> LiveCounts:
    return LiveCounts(int(row[0]), int(row[1]), int(row[2]))


def _in_the_way(new: NewGame) -> tuple[str, list[Any]]:
    """The query and parameters of the id of the running game that holds the channel's watch
    slot or a member's seat `new` needs, as game_in_the_way finds it."""
    if new.mode is Mode.WATCH:
        return (
            "SELECT id FROM games WHERE guild_id = $1 AND channel_id = $2 AND mode = 'watch'"
            " AND status = 'active' AND tournament_id IS NULL ORDER BY id LIMIT 1",
            [new.guild_id, new.channel_id],
        )
    members = [seat for seat in (new.x, new.o) if isinstance(seat, int)]
    return (
        "SELECT game_id FROM live_seats WHERE guild_id = $1 AND channel_id = $2"
        " AND user_id = ANY($3::BIGINT[]) LIMIT 1",
        [new.guild_id, new.channel_id, members],
    )


class GameQueries:
    """Games, their moves and seats; finishing one writes its result through the standings, in
    the same transaction."""

    def __init__(self, con: Connection, standings: StandingQueries) -> None:
        self._con = con
        self._standings = standings

    # ----------------------------------------------------------------- creating
    async def create_game(self, new: NewGame) -> GameRow:
        try:
            return await self.insert_game(self._con.pool, new)
        except asyncpg.UniqueViolationError:
            # A seat or the channel's watch slot is taken: the database decides, so two
            # processes racing for one slot cannot both win.
            existing = await self.game_in_the_way(new)
            if existing is None:
                raise
            raise ActiveGameExists(existing) from None

    async def create_game_within(
        self, new: NewGame, admit: Callable[[LiveCounts], None]
    ) -> GameRow:
        try:
            async with self._con.transaction() as (con, _):
                # Two starts in one server (from any processes) queue on this lock, so the
                # second one counts the first one's game. It is released with the transaction;
                # other servers only share it when their hashes collide.
                await con.execute(
                    "SELECT pg_advisory_xact_lock($1, hashtext($2))", START_LOCK,
                    str(new.guild_id),
                )
                sql, params = _in_the_way(new)
                in_the_way = await con.fetchval(sql, *params)
                if in_the_way is None:
                    admit(_live_counts(
                        await con.fetchrow(_LIVE_COUNTS, new.started_by, new.guild_id)))
                    return await self.insert_game(con, new)
        except asyncpg.UniqueViolationError:
            # A seat taken meanwhile by a game made without this lock (an accepted challenge's,
            # a tournament's): as in create_game.
            existing = await self.game_in_the_way(new)
            if existing is None:
                raise
            raise ActiveGameExists(existing) from None
        # Read after the transaction, only for the link the member is given.
        existing = await self.game(int(in_the_way))
        assert existing is not None  # games are never deleted
        raise ActiveGameExists(existing)

    async def insert_game(self, con: Any, new: NewGame) -> GameRow:
        """Insert the game and its members' seats; the game as stored. One statement (so one
        round trip, and its own transaction if `con` is in none): all of it or nothing."""
        x_user, x_level = seat_columns(new.x)
        o_user, o_level = seat_columns(new.o)
        members = [seat for seat in (new.x, new.o) if isinstance(seat, int)]
        row = await con.fetchrow(
            _NEW_GAME,
            new.guild_id, new.channel_id, new.message_id, new.mode.value, x_user, x_level,
            o_user, o_level, new.started_by, new.rows, new.cols, new.k, new.rule,
            new.rated, new.deadline, new.locale, members, new.opening.value, new.tournament_id,
            new.turn_seconds,
        )
        return game_row(row)

    async def game_in_the_way(self, new: NewGame) -> GameRow | None:
        if new.mode is Mode.WATCH:
            return await self.active_watch(new.guild_id, new.channel_id)
        for seat in (new.x, new.o):
            if isinstance(seat, int):
                found = await self.active_game(new.guild_id, new.channel_id, seat)
                if found is not None:
                    return found
        return None

    # ----------------------------------------------------------------- reading
    async def game(self, game_id: int) -> GameRow | None:
        row = await self._con.pool.fetchrow(_GAME_WITH_MOVES, game_id)
        return None if row is None else game_row(row)

    async def active_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None:
        game_id = await self._con.pool.fetchval(
            "SELECT game_id FROM live_seats WHERE guild_id = $1 AND channel_id = $2"
            " AND user_id = $3",
            guild_id, channel_id, user_id,
        )
        return None if game_id is None else await self.game(int(game_id))

    async def active_watch(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The AI-vs-AI game running in this channel, if any (a tournament's are not the
        channel's watch)."""
        game_id = await self._con.pool.fetchval(
            "SELECT id FROM games WHERE guild_id = $1 AND channel_id = $2 AND mode = 'watch'"
            " AND status = 'active' AND tournament_id IS NULL ORDER BY id LIMIT 1",
            guild_id, channel_id,
        )
        return None if game_id is None else await self.game(int(game_id))

    async def last_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None:
        """The member's most recent game in a channel in which they played, running or not."""
        game_id = await self._con.pool.fetchval(
            "SELECT id FROM games WHERE guild_id = $1 AND channel_id = $2"
            " AND (x_user_id = $3 OR o_user_id = $3) ORDER BY id DESC LIMIT 1",
            guild_id, channel_id, user_id,
        )
        return None if game_id is None else await self.game(int(game_id))

    async def live_counts(self, guild_id: int, user_id: int) -> LiveCounts:
        return _live_counts(await self._con.pool.fetchrow(_LIVE_COUNTS, user_id, guild_id))

    # ----------------------------------------------------------------- changing
    async def set_message(self, game_id: int, message_id: int) -> None:
        await self._con.pool.execute(
            "UPDATE games SET message_id = $1, updated_at = now() WHERE id = $2",
            message_id, game_id,
        )

    async def abandon_game(self, game_id: int) -> bool:
        """End a running game without a result; no stats change."""
        async with self._con.transaction() as (con, ok):
            done = await con.execute(
                "UPDATE games SET status = 'abandoned', deadline = NULL, updated_at = now(),"
                " finished_at = now() WHERE id = $1 AND status = 'active'",
                game_id,
            )
            if row_count(done) != 1:
                ok.rollback()
                return False
            await con.execute("DELETE FROM live_seats WHERE game_id = $1", game_id)
            return True

    async def add_hint(self, game_id: int, ply: int) -> bool:
        """Count a hint given at move `ply`; False if the game moved on or ended meanwhile."""
        done = await self._con.pool.execute(
            "UPDATE games SET hints = hints + 1 WHERE id = $1 AND ply = $2 AND status = 'active'",
            game_id, ply,
        )
        return row_count(done) == 1

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
        """Record move number `ply` (0-based) of the position after `takebacks` takebacks,
        with `answer` the AI's reply to it, and, if they ended the game, the result, and
        `posts` with them (see the interface). Two writers of the same position: the second
        UPDATE waits for the first's row lock, then finds the ply moved on and writes nothing."""
        check_move(finish, rate, by_ai, answer)
        cells, ais, reasons = [cell], [by_ai], [reason]
        if answer is not None:
            cells.append(answer.cell)
            ais.append(True)
            reasons.append(answer.reason)
        if finish is None and not posts:
            # One statement, so one round trip and no BEGIN/COMMIT: its own transaction, in which
            # the INSERT happens only if the UPDATE's checks held.
            done = await self._con.pool.execute(
                _MOVE, deadline, game_id, ply, now, cells, ais, reasons, takebacks
            )
            if row_count(done) == len(cells):
                return MoveOutcome.STORED
            return await self._why_not_stored(game_id, ply, takebacks, now)
        if finish is None and not any(post.heard for post in posts):
            # A member's move between two servers: the other boards' rows, held by this
            # process, go in the move's one statement too.
            done = await self._con.pool.execute(
                _MOVE_HELD, deadline, game_id, ply, now, cells, ais, reasons, takebacks,
                *post_arrays([post_values(post) for post in posts]),
            )
            if row_count(done) == len(posts):
                return MoveOutcome.STORED
            return await self._why_not_stored(game_id, ply, takebacks, now)

        async def attempt() -> MoveOutcome | Finished:
            async with self._con.transaction() as (con, ok):
                if finish is None:
                    done = await con.execute(
                        _MOVE, deadline, game_id, ply, now, cells, ais, reasons, takebacks
                    )
                    if row_count(done) != len(cells):
                        ok.rollback()
                        return await self._why_not_stored(game_id, ply, takebacks, now)
                    await insert_posts(con, posts)
                    return MoveOutcome.STORED
                assert rate is not None
                # Rows that need no notification go in the finishing statement: a trip fewer.
                unsignalled = bool(posts) and not any(post.heard for post in posts)
                row = await con.fetchrow(
                    _FINISHING_MOVE_HELD if unsignalled else _FINISHING_MOVE, game_id,
                    None if finish.winner is None else Mark(finish.winner).name,
                    ply, now, cells, ais, reasons, EndReason(finish.reason).value, takebacks,
                    *(post_arrays([post_values(post) for post in posts]) if unsignalled else ()),
                )
                if row is None:
                    ok.rollback()
                    return await self._why_not_stored(game_id, ply, takebacks, now)
                game = game_row(row)
                changes = (
                    await self._standings.count_result(con, game, finish.winner, rate) if game.rated else ()
                )
                if not unsignalled:
                    await insert_posts(con, posts)
                return Finished(game, changes)

        return await self._con.retrying(attempt)

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
        `swap` exchanging the X and O seats (see the interface)."""

        async def attempt() -> MoveOutcome:
            async with self._con.transaction() as (con, ok):
                # The row is locked first: another process's decision, move or time-out of this
                # game waits for the commit, then finds the decisions changed and writes nothing.
                row = await con.fetchrow(
                    "SELECT ply, decisions, deadline FROM games WHERE id = $1"
                    " AND status = 'active' FOR UPDATE",
                    game_id,
                )
                if row is None or int(row["ply"]) != ply or row["decisions"] != " ".join(before):
                    ok.rollback()
                    return MoveOutcome.STALE
                if row["deadline"] is not None and float(row["deadline"]) <= now:
                    ok.rollback()
                    return MoveOutcome.LATE
                # Every right-hand side reads the row before the update: the seats change places.
                swapped = (
                    ", x_user_id = o_user_id, x_level = o_level, o_user_id = x_user_id,"
                    " o_level = x_level" if swap else ""
                )
                await con.execute(
                    f"UPDATE games SET decisions = $2, deadline = $3, claimed_until = NULL,"
                    f" updated_at = now(){swapped} WHERE id = $1",
                    game_id, " ".join(after), deadline,
                )
                return MoveOutcome.STORED

        return await self._con.retrying(attempt)

    async def _why_not_stored(
        self, game_id: int, ply: int, takebacks: int, now: float
    ) -> MoveOutcome:
        # LATE only at the very position the move was judged on: at another one the move is to
        # be judged again first.
        late = await self._con.pool.fetchval(
            "SELECT COUNT(*) FROM games WHERE id = $1 AND ply = $2 AND takebacks = $3"
            " AND status = 'active' AND deadline IS NOT NULL AND deadline <= $4",
            game_id, ply, takebacks, now,
        )
        return MoveOutcome.LATE if late else MoveOutcome.STALE

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
        """Finish a running game, count its result and write `posts` with them; None (nothing
        written) if it was not running (or, with `ply`, moved on; with `due_by`, its clock had
        not run out by then; with `not_due_at`, its clock had run out by then: a resignation
        cannot undo a loss on time)."""
        EndReason(finish.reason)  # refuse an unknown reason before touching anything

        async def attempt() -> Finished | None:
            async with self._con.transaction() as (con, ok):
                # The row is locked first, so the checks below hold until the commit.
                row = await con.fetchrow(
                    "SELECT ply, deadline, decisions FROM games WHERE id = $1"
                    " AND status = 'active' FOR UPDATE",
                    game_id,
                )
                if (
                    row is None
                    or (ply is not None and int(row["ply"]) != ply)
                    or (decisions is not None and row["decisions"] != " ".join(decisions))
                    or (due_by is not None
                        and (row["deadline"] is None or float(row["deadline"]) > due_by))
                    or (not_due_at is not None
                        and row["deadline"] is not None
                        and float(row["deadline"]) <= not_due_at)
                ):
                    ok.rollback()
                    return None
                finished = await self._finish(con, game_id, finish, rate)
                if finished is None:
                    ok.rollback()
                else:
                    await insert_posts(con, posts)
                return finished

        return await self._con.retrying(attempt)

    async def _finish(
        self, con: Any, game_id: int, finish: Finish, rate: RatePolicy
    ) -> Finished | None:
        """Finish the game, free its seats, and (if rated) write its result and ratings: all in
        the caller's transaction, so a game counts exactly once. None if it was not running."""
        reason = EndReason(finish.reason)
        winner = None if finish.winner is None else Mark(finish.winner).name
        done = await con.execute(
            "UPDATE games SET status = 'finished', winner = $1, end_reason = $2,"
            " deadline = NULL, updated_at = now(), finished_at = now()"
            " WHERE id = $3 AND status = 'active'",
            winner, reason.value, game_id,
        )
        if row_count(done) != 1:
            return None
        await con.execute("DELETE FROM live_seats WHERE game_id = $1", game_id)
        game = game_row(await con.fetchrow(_GAME_WITH_MOVES, game_id))
        changes = await self._standings.count_result(con, game, finish.winner, rate) if game.rated else ()
        return Finished(game, changes)

    # ----------------------------------------------------------------- helpers
    async def read_games(self, ids: list[int]) -> list[GameRow]:
        if not ids:
            return []
        rows = await self._con.pool.fetch(_GAMES_WITH_MOVES, ids)
        by_id = {int(r["id"]): game_row(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    async def locked_games(self, condition: str, *params: object) -> list[GameRow]:
        rows = await self._con.pool.fetch(
            f"SELECT id FROM games WHERE {condition} FOR UPDATE SKIP LOCKED", *params
        )
        return await self.read_games([int(r[0]) for r in rows])


