"""Queries of puzzles, members' attempts at them, puzzle ratings and daily puzzles, on SQLite."""

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
from bot.storage.sqlite.connection import Connection
from bot.storage.sqlite.games import GameQueries

_SEEN = VISIBLE.format(guild="?")


class PuzzleQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def newest_finished_game(self) -> int:
        async with self._con.lock:
            return await self._con.scalar("SELECT MAX(id) FROM games WHERE status = 'finished'")

    async def finished_games_after(self, game_id: int, *, limit: int) -> list[GameRow]:
        return await self._games.games_where(
            "id > ? AND status = 'finished' AND rated = 1 ORDER BY id LIMIT ?", (game_id, limit)
        )

    async def add_puzzles(self, guild_id: int | None, puzzles: list[NewPuzzle], *,
                          now: float) -> int:
        async with self._con.lock, self._con.transaction():
            added = 0
            for new in puzzles:
                cur = await self._con.db.execute(
                    f"INSERT INTO puzzles ({PUZZLE_INSERT_COLUMNS}) VALUES"
                    " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    puzzle_values(guild_id, new, now),
                )
                added += cur.rowcount
        return added

    async def count_puzzles(self, guild_id: int | None) -> int:
        async with self._con.lock:
            return await self._con.scalar(
                "SELECT COUNT(*) FROM puzzles WHERE guild_id IS ?", (guild_id,)
            )

    async def puzzle(self, puzzle_id: int) -> PuzzleRow | None:
        async with self._con.lock:
            row = await self._con.first(
                f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = ?", (puzzle_id,)
            )
        return None if row is None else puzzle_of(row)

    async def server_puzzles(self, guild_id: int) -> list[PuzzleRow]:
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE {_SEEN} ORDER BY id", (guild_id,)
            )
        return [puzzle_of(r) for r in rows]

    async def nearest_unsolved(self, guild_id: int, user_id: int, mu: float) -> PuzzleRow | None:
        async with self._con.lock:
            row = await self._con.first(
                f"SELECT {PUZZLE_COLUMNS} FROM puzzles p WHERE {_SEEN} AND NOT EXISTS"
                " (SELECT 1 FROM puzzle_attempts a WHERE a.guild_id = ? AND a.user_id = ?"
                " AND a.puzzle_id = p.id AND a.rated = 1)"
                " ORDER BY ABS(mu - ?), id LIMIT 1",
                (guild_id, guild_id, user_id, mu),
            )
        return None if row is None else puzzle_of(row)

    async def failed_puzzle(self, guild_id: int, user_id: int) -> PuzzleRow | None:
        async with self._con.lock:
            row = await self._con.first(
                f"SELECT {PUZZLE_COLUMNS} FROM puzzles p JOIN"
                " (SELECT puzzle_id, MIN(finished_at) AS failed_at FROM puzzle_attempts"
                "  WHERE guild_id = ? AND user_id = ? AND outcome = 'failed'"
                "  GROUP BY puzzle_id) f ON f.puzzle_id = p.id"
                " WHERE NOT EXISTS (SELECT 1 FROM puzzle_attempts s WHERE s.guild_id = ?"
                " AND s.user_id = ? AND s.puzzle_id = p.id AND s.outcome = 'solved'"
                " AND s.finished_at >= f.failed_at)"
                " ORDER BY f.failed_at, p.id LIMIT 1",
                (guild_id, user_id, guild_id, user_id),
            )
        return None if row is None else puzzle_of(row)

    async def claim_daily(self, guild_id: int, day: str, offset: int) -> PuzzleRow | None:
        async with self._con.lock, self._con.transaction():
            count = await self._con.scalar(
                f"SELECT COUNT(*) FROM puzzles WHERE {_SEEN}", (guild_id,)
            )
            if count:
                await self._con.db.execute(
                    "INSERT INTO daily_puzzles (guild_id, day, puzzle_id)"
                    f" SELECT ?, ?, id FROM puzzles WHERE {_SEEN} ORDER BY id LIMIT 1 OFFSET ?"
                    " ON CONFLICT DO NOTHING",
                    (guild_id, day, guild_id, offset % count),
                )
            row = await self._con.first(
                f"SELECT {', '.join('p.' + c.strip() for c in PUZZLE_COLUMNS.split(','))}"
                " FROM daily_puzzles d JOIN puzzles p ON p.id = d.puzzle_id"
                " WHERE d.guild_id = ? AND d.day = ?",
                (guild_id, day),
            )
        return None if row is None else puzzle_of(row)

    async def start_attempt(self, new: NewAttempt) -> AttemptRow:
        async with self._con.lock, self._con.transaction():
            await self._con.db.execute(
                "UPDATE puzzle_attempts SET outcome = 'abandoned', finished_at = ?"
                " WHERE guild_id = ? AND user_id = ? AND outcome = 'open'",
                (new.started_at, new.guild_id, new.user_id),
            )
            cur = await self._con.db.execute(
                "INSERT INTO puzzle_attempts (guild_id, channel_id, user_id, puzzle_id, kind,"
                " locale, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (new.guild_id, new.channel_id, new.user_id, new.puzzle_id, new.kind.value,
                 new.locale, new.started_at),
            )
            row = await self._con.first(
                f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = ?", (cur.lastrowid,)
            )
        assert row is not None
        return attempt_of(row)

    async def attempt(self, attempt_id: int) -> AttemptRow | None:
        async with self._con.lock:
            row = await self._con.first(
                f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = ?", (attempt_id,)
            )
        return None if row is None else attempt_of(row)

    async def set_attempt_message(self, attempt_id: int, message_id: int) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "UPDATE puzzle_attempts SET message_id = ? WHERE id = ?", (message_id, attempt_id)
            )

    async def advance_attempt(
        self, attempt_id: int, before: tuple[str, ...], after: tuple[str, ...]
    ) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE puzzle_attempts SET moves = ? WHERE id = ? AND outcome = 'open'"
                " AND moves = ?",
                (" ".join(after), attempt_id, " ".join(before)),
            )
            return cur.rowcount == 1

    async def finish_attempt(
        self,
        attempt_id: int,
        before: tuple[str, ...],
        moves: tuple[str, ...],
        outcome: AttemptOutcome,
        *,
        now: float,
    ) -> AttemptResult | None:
        async with self._con.lock, self._con.transaction() as tx:
            cur = await self._con.db.execute(
                "UPDATE puzzle_attempts SET moves = ?, outcome = ?, finished_at = ?"
                " WHERE id = ? AND outcome = 'open' AND moves = ?",
                (" ".join(moves), outcome.value, now, attempt_id, " ".join(before)),
            )
            if cur.rowcount != 1:
                tx.rollback()
                return None
            row = await self._con.first(
                f"SELECT {ATTEMPT_COLUMNS} FROM puzzle_attempts WHERE id = ?", (attempt_id,)
            )
            assert row is not None
            attempt = attempt_of(row)
            standing = await self._standing(attempt.guild_id, attempt.user_id)
            first = not await self._con.scalar(
                "SELECT COUNT(*) FROM puzzle_attempts WHERE guild_id = ? AND user_id = ?"
                " AND puzzle_id = ? AND rated = 1",
                (attempt.guild_id, attempt.user_id, attempt.puzzle_id),
            )
            if not first or outcome not in (AttemptOutcome.SOLVED, AttemptOutcome.FAILED):
                return AttemptResult(attempt, standing, standing)
            puzzle_row = await self._con.first(
                f"SELECT {PUZZLE_COLUMNS} FROM puzzles WHERE id = ?", (attempt.puzzle_id,)
            )
            assert puzzle_row is not None
            after, skill = after_attempt(
                standing, puzzle_of(puzzle_row).skill, outcome is AttemptOutcome.SOLVED
            )
            await self._con.db.execute(
                "UPDATE puzzle_attempts SET rated = 1 WHERE id = ?", (attempt_id,)
            )
            await self._con.db.execute(
                "UPDATE puzzles SET mu = ?, sigma = ? WHERE id = ?",
                (skill.mu, skill.sigma, attempt.puzzle_id),
            )
            await self._con.db.execute(
                f"INSERT INTO puzzle_ratings ({STANDING_UPSERT_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                f" ON CONFLICT (guild_id, user_id) DO UPDATE SET {STANDING_UPDATE}",
                standing_values(attempt.guild_id, after),
            )
        return AttemptResult(dataclasses.replace(attempt, rated=True), standing, after)

    async def _standing(self, guild_id: int, user_id: int) -> PuzzleStanding:
        row = await self._con.first(
            f"SELECT {STANDING_COLUMNS} FROM puzzle_ratings WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        return new_standing(user_id) if row is None else standing_of(row)

    async def puzzle_standing(self, guild_id: int, user_id: int) -> PuzzleStanding:
        async with self._con.lock:
            return await self._standing(guild_id, user_id)

    async def puzzle_leaderboard(
        self, guild_id: int, *, min_attempts: int, limit: int = 10
    ) -> list[PuzzleStanding]:
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {STANDING_COLUMNS} FROM puzzle_ratings WHERE guild_id = ?"
                f" AND solved + failed >= ? ORDER BY {RANKING}, user_id LIMIT ?",
                (guild_id, min_attempts, limit),
            )
        return [standing_of(r) for r in rows]
