"""Queries of puzzles, members' attempts at them, puzzle ratings and daily puzzles, on
PostgreSQL. Several processes write: a finished attempt locks the puzzle's row and the member's
rating row (SELECT ... FOR UPDATE) before rating them."""

from __future__ import annotations

import dataclasses

from bot.game.model import GameRow
from bot.game.puzzle_model import (
    AttemptOutcome,
    AttemptResult,
    AttemptRow,
    NewAttempt,
    NewPuzzle,
    PuzzleRow,
    PuzzleStanding,
    after_attempt,
    new_standing,
)
from bot.storage.postgres.connection import Connection
from bot.storage.postgres.games import GameQueries
from bot.storage.puzzle_rows import (
    ATTEMPT_COLUMNS,
    PUZZLE_COLUMNS,
    PUZZLE_INSERT_COLUMNS,
    RANKING,
    STANDING_COLUMNS,
    STANDING_UPDATE,
    STANDING_UPSERT_COLUMNS,
    VISIBLE,
    attempt_of,
    puzzle_of,
    puzzle_values,
    standing_of,
    standing_values,
)

_SEEN = VISIBLE.format(guild="$1")
_P_COLUMNS = ", ".join("p." + c.strip() for c in PUZZLE_COLUMNS.split(","))


class PuzzleQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def newest_finished_game(self) -> int:
        found = await self._con.pool.fetchval("SELECT MAX(id) FROM games WHERE status = 'finished'")
        return 0 if found is None else int(found)

    async def finished_games_after(self, game_id: int, *, limit: int) -> list[GameRow]:
        rows = await self._con.pool.fetch(
            "SELECT id FROM games WHERE id > $1 AND status = 'finished' AND rated"
            " ORDER BY id LIMIT $2",
            game_id, limit,
        )
        return await self._games.read_games([int(r[0]) for r in rows])

    async def add_puzzles(self, guild_id: int | None, puzzles: list[NewPuzzle], *,
                          now: float) -> int:
        async with self._con.transaction() as (con, _):
            added = 0
            for new in puzzles:
                status = await con.execute(
                    f"INSERT INTO puzzles ({PUZZLE_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5,"
                    " $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING",
                    *puzzle_values(guild_id, new, now),
                )
                added += int(status.rsplit(" ", 1)[-1])
        return added

    async def count_puzzles(self, guild_id: int | None) -> int:
        return int(
            await self._con.pool.fetchval(
                "SELECT COUNT(*) FROM puzzles WHERE guild_id IS NOT DISTINCT FROM $1", guild_id
            )
        )

    async def puzzle(self, puzzle_id: int) -> PuzzleRow | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = $1", puzzle_id
        )
        return None if row is None else puzzle_of(row)

    async def server_puzzles(self, guild_id: int) -> list[PuzzleRow]:
        rows = await self._con.pool.fetch(
            f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE {_SEEN} ORDER BY id", guild_id
        )
        return [puzzle_of(r) for r in rows]

    async def nearest_unsolved(self, guild_id: int, user_id: int, mu: float) -> PuzzleRow | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {PUZZLE_COLUMNS} FROM puzzles p WHERE {_SEEN} AND NOT EXISTS"
            " (SELECT 1 FROM puzzle_attempts a WHERE a.guild_id = $1 AND a.user_id = $2"
            " AND a.puzzle_id = p.id AND a.rated) ORDER BY ABS(mu - $3), id LIMIT 1",
            guild_id, user_id, mu,
        )
        return None if row is None else puzzle_of(row)

    async def failed_puzzle(self, guild_id: int, user_id: int) -> PuzzleRow | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {_P_COLUMNS} FROM puzzles p JOIN"
            " (SELECT puzzle_id, MIN(finished_at) AS failed_at FROM puzzle_attempts"
            "  WHERE guild_id = $1 AND user_id = $2 AND outcome = 'failed'"
            "  GROUP BY puzzle_id) f ON f.puzzle_id = p.id"
            " WHERE NOT EXISTS (SELECT 1 FROM puzzle_attempts s WHERE s.guild_id = $1"
            " AND s.user_id = $2 AND s.puzzle_id = p.id AND s.outcome = 'solved'"
            " AND s.finished_at >= f.failed_at)"
            " ORDER BY f.failed_at, p.id LIMIT 1",
            guild_id, user_id,
        )
        return None if row is None else puzzle_of(row)

    async def claim_daily(self, guild_id: int, day: str, offset: int) -> PuzzleRow | None:
        async with self._con.transaction() as (con, _):
            count = int(
                await con.fetchval(f"SELECT COUNT(*) FROM puzzles WHERE {_SEEN}", guild_id)
            )
            if count:
                # Two processes inserting at once: the primary key lets one in, and the other
                # reads that one below.
                await con.execute(
                    "INSERT INTO daily_puzzles (guild_id, day, puzzle_id)"
                    f" SELECT $1, $2, id FROM puzzles WHERE {_SEEN} ORDER BY id LIMIT 1 OFFSET $3"
                    " ON CONFLICT DO NOTHING",
                    guild_id, day, offset % count,
                )
            row = await con.fetchrow(
                f"SELECT {_P_COLUMNS} FROM daily_puzzles d JOIN puzzles p ON p.id = d.puzzle_id"
                " WHERE d.guild_id = $1 AND d.day = $2",
                guild_id, day,
            )
        return None if row is None else puzzle_of(row)

    async def start_attempt(self, new: NewAttempt) -> AttemptRow:
        async def attempt() -> AttemptRow:
            async with self._con.transaction() as (con, _):
                await con.execute(
                    "UPDATE puzzle_attempts SET outcome = 'abandoned', finished_at = $1"
                    " WHERE guild_id = $2 AND user_id = $3 AND outcome = 'open'",
                    new.started_at, new.guild_id, new.user_id,
                )
                row = await con.fetchrow(
                    "INSERT INTO puzzle_attempts (guild_id, channel_id, user_id, puzzle_id, kind,"
                    " locale, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7)"
                    f" RETURNING {ATTEMPT_COLUMNS}",
                    new.guild_id, new.channel_id, new.user_id, new.puzzle_id, new.kind.value,
                    new.locale, new.started_at,
                )
            return attempt_of(row)

        return await self._con.retrying(attempt)

    async def attempt(self, attempt_id: int) -> AttemptRow | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = $1", attempt_id
        )
        return None if row is None else attempt_of(row)

    async def set_attempt_message(self, attempt_id: int, message_id: int) -> None:
        await self._con.pool.execute(
            "UPDATE puzzle_attempts SET message_id = $1 WHERE id = $2", message_id, attempt_id
        )

    async def advance_attempt(
        self, attempt_id: int, before: tuple[str, ...], after: tuple[str, ...]
    ) -> bool:
        status = await self._con.pool.execute(
            "UPDATE puzzle_attempts SET moves = $1 WHERE id = $2 AND outcome = 'open'"
            " AND moves = $3",
            " ".join(after), attempt_id, " ".join(before),
        )
        return str(status) == "UPDATE 1"

    async def finish_attempt(
        self,
        attempt_id: int,
        before: tuple[str, ...],
        moves: tuple[str, ...],
        outcome: AttemptOutcome,
        *,
        now: float,
    ) -> AttemptResult | None:
        async def finish() -> AttemptResult | None:
            async with self._con.transaction() as (con, tx):
                row = await con.fetchrow(
                    "UPDATE puzzle_attempts SET moves = $1, outcome = $2, finished_at = $3"
                    " WHERE id = $4 AND outcome = 'open' AND moves = $5"
                    f" RETURNING {ATTEMPT_COLUMNS}",
                    " ".join(moves), outcome.value, now, attempt_id, " ".join(before),
                )
                if row is None:
                    tx.rollback()
                    return None
                attempt = attempt_of(row)
                guild, user = attempt.guild_id, attempt.user_id
                # The member's rating row, made if new, then locked with the puzzle's: another
                # process rating either waits for this transaction.
                await con.execute(
                    f"INSERT INTO puzzle_ratings ({STANDING_UPSERT_COLUMNS})"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
                    *standing_values(guild, new_standing(user)),
                )
                found = await con.fetchrow(
                    f"SELECT {STANDING_COLUMNS} FROM puzzle_ratings"
                    " WHERE guild_id = $1 AND user_id = $2 FOR UPDATE",
                    guild, user,
                )
                standing = standing_of(found)
                rated_before = await con.fetchval(
                    "SELECT EXISTS (SELECT 1 FROM puzzle_attempts WHERE guild_id = $1"
                    " AND user_id = $2 AND puzzle_id = $3 AND rated)",
                    guild, user, attempt.puzzle_id,
                )
                if rated_before or outcome not in (AttemptOutcome.SOLVED, AttemptOutcome.FAILED):
                    return AttemptResult(attempt, standing, standing)
                puzzle_row = await con.fetchrow(
                    f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = $1 FOR UPDATE",
                    attempt.puzzle_id,
                )
                after, skill = after_attempt(
                    standing, puzzle_of(puzzle_row).skill, outcome is AttemptOutcome.SOLVED
                )
                await con.execute(
                    "UPDATE puzzle_attempts SET rated = TRUE WHERE id = $1", attempt_id
                )
                await con.execute(
                    "UPDATE puzzles SET mu = $1, sigma = $2 WHERE id = $3",
                    skill.mu, skill.sigma, attempt.puzzle_id,
                )
                await con.execute(
                    f"INSERT INTO puzzle_ratings ({STANDING_UPSERT_COLUMNS})"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                    f" ON CONFLICT (guild_id, user_id) DO UPDATE SET {STANDING_UPDATE}",
                    *standing_values(guild, after),
                )
            return AttemptResult(dataclasses.replace(attempt, rated=True), standing, after)

        return await self._con.retrying(finish)

    async def puzzle_standing(self, guild_id: int, user_id: int) -> PuzzleStanding:
        row = await self._con.pool.fetchrow(
            f"SELECT {STANDING_COLUMNS} FROM puzzle_ratings WHERE guild_id = $1 AND user_id = $2",
            guild_id, user_id,
        )
        return new_standing(user_id) if row is None else standing_of(row)

    async def puzzle_leaderboard(
        self, guild_id: int, *, min_attempts: int, limit: int = 10
    ) -> list[PuzzleStanding]:
        rows = await self._con.pool.fetch(
            f"SELECT {STANDING_COLUMNS} FROM puzzle_ratings WHERE guild_id = $1"
            f" AND solved + failed >= $2 ORDER BY {RANKING}, user_id LIMIT $3",
            guild_id, min_attempts, limit,
        )
        return [standing_of(r) for r in rows]
