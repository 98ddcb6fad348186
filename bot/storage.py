"""SQLite persistence for games, moves and results: one long-lived aiosqlite connection.

Every statement is parameterised. Every change that touches more than one row runs inside one
transaction, and all access goes through one asyncio.Lock: the single connection is shared by
every coroutine, so without the lock one coroutine's statements could land inside another's
transaction.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"(\d{3})_[a-z0-9_]+\.sql")

LEVELS: tuple[str, ...] = ("easy", "normal", "hard", "impossible")
RESULTS: tuple[str, ...] = ("win", "draw", "loss")


class StorageError(Exception):
    """The database is not in a state the bot can work with (e.g. a broken migration)."""


@dataclass(frozen=True, slots=True)
class MoveRow:
    ply: int
    cell: str  # cell name, e.g. "B2"
    by_ai: bool
    reason: str | None


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    player_id: int
    player_mark: str  # "X" or "O"
    ai_level: str
    rows: int
    cols: int
    k: int
    rule: str
    status: str  # "active", "finished" or "abandoned"
    result: str | None  # "win", "draw" or "loss" from the player's side
    winner: str | None
    ply: int
    moves: tuple[MoveRow, ...]


@dataclass(frozen=True, slots=True)
class NewGame:
    guild_id: int
    channel_id: int
    player_id: int
    player_mark: str
    ai_level: str
    rows: int
    cols: int
    k: int
    rule: str


@dataclass(frozen=True, slots=True)
class Finish:
    """How a game ended, written together with its last move."""

    result: str  # from the player's side
    winner: str | None
    points: int


@dataclass(frozen=True, slots=True)
class Record:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class UserStats:
    overall: Record
    by_level: dict[str, Record]
    points: int


@dataclass(frozen=True, slots=True)
class LeaderRow:
    rank: int
    user_id: int
    points: int
    record: Record


class ActiveGameExists(Exception):
    """The player already has a running game in this channel."""

    def __init__(self, game: GameRow) -> None:
        super().__init__(f"game {game.id} is still running")
        self.game = game


_GAME_COLUMNS = (
    "id, guild_id, channel_id, message_id, player_id, player_mark, ai_level, rows, cols, k, rule, "
    "status, result, winner, ply"
)
_NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"


def migration_files(directory: Path = MIGRATIONS_DIR) -> list[tuple[int, Path]]:
    """Numbered migrations in order; a gap or a duplicate number is a packaging mistake."""
    found: list[tuple[int, Path]] = []
    for path in directory.glob("*.sql"):
        match = _MIGRATION_NAME.fullmatch(path.name)
        if match is None:
            raise StorageError(f"migration file {path.name!r} is not named like 001_name.sql")
        found.append((int(match.group(1)), path))
    found.sort()
    numbers = [n for n, _ in found]
    if numbers != list(range(1, len(numbers) + 1)):
        raise StorageError(f"migrations must be numbered 1, 2, 3... without gaps; found {numbers}")
    return found


class Storage:
    """The bot's database. Create with `await Storage.open(path)`; `await close()` at shutdown."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path, *, migrations: Path = MIGRATIONS_DIR) -> Storage:
        # isolation_level=None: the driver never opens transactions behind our back; we do.
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            db.row_factory = sqlite3.Row
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            await db.execute("PRAGMA synchronous=NORMAL")
            storage = cls(db)
            await storage.migrate(migrations)
        except BaseException:
            await db.close()
            raise
        return storage

    async def close(self) -> None:
        async with self._lock:
            await self._db.close()

    # ----------------------------------------------------------------- schema
    async def migrate(self, directory: Path = MIGRATIONS_DIR) -> list[int]:
        """Apply the migrations newer than PRAGMA user_version, each in its own transaction."""
        applied: list[int] = []
        async with self._lock:
            current = await self._scalar("PRAGMA user_version")
            for number, path in migration_files(directory):
                if number <= current:
                    continue
                script = path.read_text(encoding="utf-8")
                try:
                    # executescript runs the text as-is, so the transaction is spelled out; the
                    # version bump is inside it, so a failed migration leaves no trace.
                    await self._db.executescript(
                        f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number:d};\nCOMMIT;"
                    )
                except sqlite3.Error as exc:
                    if self._db.in_transaction:
                        await self._db.execute("ROLLBACK")
                    raise StorageError(f"migration {path.name} failed: {exc}") from exc
                applied.append(number)
        return applied

    async def schema_version(self) -> int:
        async with self._lock:
            return await self._scalar("PRAGMA user_version")

    async def journal_mode(self) -> str:
        async with self._lock, self._db.execute("PRAGMA journal_mode") as cur:
            row = await cur.fetchone()
        return str(row[0]) if row else ""

    async def row_counts(self) -> dict[str, int]:
        """Rows per table, for checks that a refused request changed nothing."""
        counts: dict[str, int] = {}
        async with self._lock:
            for table in ("games", "moves", "results"):
                # Table names come from the fixed tuple above, never from input.
                counts[table] = await self._scalar(f"SELECT COUNT(*) FROM {table}")
        return counts

    # ----------------------------------------------------------------- games
    async def create_game(self, new: NewGame) -> GameRow:
        """Insert a running game; ActiveGameExists if the player has one in this channel."""
        async with self._lock:
            existing = await self._active_game(new.guild_id, new.channel_id, new.player_id)
            if existing is not None:
                raise ActiveGameExists(existing)
            try:
                game_id = await self._insert_game(new)
            except sqlite3.IntegrityError:
                # Another process won the race for this player's slot (unique index).
                existing = await self._active_game(new.guild_id, new.channel_id, new.player_id)
                if existing is None:
                    raise
                raise ActiveGameExists(existing) from None
            game = await self._game(game_id)
        assert game is not None
        return game

    async def _insert_game(self, new: NewGame) -> int:
        async with self._transaction():
            cur = await self._db.execute(
                "INSERT INTO games (guild_id, channel_id, player_id, player_mark, ai_level,"
                " rows, cols, k, rule) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    new.guild_id,
                    new.channel_id,
                    new.player_id,
                    new.player_mark,
                    new.ai_level,
                    new.rows,
                    new.cols,
                    new.k,
                    new.rule,
                ),
            )
            game_id = cur.lastrowid
        assert game_id is not None
        return game_id

    async def set_message(self, game_id: int, message_id: int) -> None:
        async with self._lock:
            await self._db.execute(
                f"UPDATE games SET message_id = ?, updated_at = {_NOW} WHERE id = ?",
                (message_id, game_id),
            )

    async def abandon_game(self, game_id: int) -> bool:
        """Mark a running game abandoned (its message could not be posted); no stats change."""
        async with self._lock:
            cur = await self._db.execute(
                f"UPDATE games SET status = 'abandoned', updated_at = {_NOW}, finished_at = {_NOW}"
                " WHERE id = ? AND status = 'active'",
                (game_id,),
            )
            return cur.rowcount == 1

    async def game(self, game_id: int) -> GameRow | None:
        async with self._lock:
            return await self._game(game_id)

    async def active_game(self, guild_id: int, channel_id: int, player_id: int) -> GameRow | None:
        async with self._lock:
            return await self._active_game(guild_id, channel_id, player_id)

    async def games_awaiting_ai(self) -> list[GameRow]:
        """Running games with a posted message where it is the AI's turn (X moves on even plies)."""
        async with self._lock:
            async with self._db.execute(
                "SELECT id FROM games WHERE status = 'active' AND message_id IS NOT NULL"
                " AND ((player_mark = 'O' AND ply % 2 = 0) OR (player_mark = 'X' AND ply % 2 = 1))"
                " ORDER BY id"
            ) as cur:
                ids = [int(row[0]) for row in await cur.fetchall()]
            games = [await self._game(i) for i in ids]
        return [g for g in games if g is not None]

    async def add_move(
        self,
        game_id: int,
        ply: int,
        cell: str,
        *,
        by_ai: bool,
        reason: str | None = None,
        finish: Finish | None = None,
    ) -> bool:
        """Record move number `ply` (0-based) and, if it ended the game, the result.

        False (and nothing written) unless the game is running and exactly `ply` moves were
        played so far: that is how a replayed click or a late AI answer is refused.
        """
        async with self._lock, self._transaction() as ok:
            cur = await self._db.execute(
                f"UPDATE games SET ply = ply + 1, updated_at = {_NOW}"
                " WHERE id = ? AND ply = ? AND status = 'active'",
                (game_id, ply),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return False
            await self._db.execute(
                "INSERT INTO moves (game_id, ply, cell, by_ai, reason) VALUES (?, ?, ?, ?, ?)",
                (game_id, ply, cell, int(by_ai), reason),
            )
            if finish is not None and not await self._finish(game_id, finish):
                ok.rollback()
                return False
            return True

    async def finish_game(self, game_id: int, finish: Finish) -> bool:
        """Finish a running game and count its result; False if it was not running."""
        async with self._lock, self._transaction() as ok:
            if not await self._finish(game_id, finish):
                ok.rollback()
                return False
            return True

    async def _finish(self, game_id: int, finish: Finish) -> bool:
        if finish.result not in RESULTS:
            raise ValueError(f"result must be one of {RESULTS}, not {finish.result!r}")
        cur = await self._db.execute(
            f"UPDATE games SET status = 'finished', result = ?, winner = ?, updated_at = {_NOW},"
            f" finished_at = {_NOW} WHERE id = ? AND status = 'active'",
            (finish.result, finish.winner, game_id),
        )
        if cur.rowcount != 1:
            return False
        await self._db.execute(
            "INSERT INTO results (game_id, guild_id, user_id, ai_level, result, points)"
            " SELECT id, guild_id, player_id, ai_level, ?, ? FROM games WHERE id = ?",
            (finish.result, finish.points, game_id),
        )
        return True

    # ----------------------------------------------------------------- stats
    async def user_stats(self, guild_id: int, user_id: int) -> UserStats:
        async with (
            self._lock,
            self._db.execute(
                "SELECT ai_level, result, COUNT(*), SUM(points) FROM results"
                " WHERE guild_id = ? AND user_id = ? GROUP BY ai_level, result",
                (guild_id, user_id),
            ) as cur,
        ):
            rows = await cur.fetchall()
        tallies: dict[str, dict[str, int]] = {}
        points = 0
        for level, result, count, pts in rows:
            tallies.setdefault(str(level), {})[str(result)] = int(count)
            points += int(pts or 0)
        by_level = {level: _record(t) for level, t in tallies.items()}
        overall = Record(
            wins=sum(r.wins for r in by_level.values()),
            draws=sum(r.draws for r in by_level.values()),
            losses=sum(r.losses for r in by_level.values()),
        )
        return UserStats(overall=overall, by_level=by_level, points=points)

    async def leaderboard(self, guild_id: int, limit: int = 10) -> list[LeaderRow]:
        """Ranked by points, then win rate, then games played (more first), then user id."""
        async with (
            self._lock,
            self._db.execute(
                "SELECT user_id, SUM(points) AS pts,"
                " SUM(result = 'win') AS w, SUM(result = 'draw') AS d, SUM(result = 'loss') AS l,"
                " COUNT(*) AS n"
                " FROM results WHERE guild_id = ? GROUP BY user_id"
                " ORDER BY pts DESC, CAST(w AS REAL) / n DESC, n DESC, user_id ASC LIMIT ?",
                (guild_id, limit),
            ) as cur,
        ):
            rows = await cur.fetchall()
        return [
            LeaderRow(
                rank=i,
                user_id=int(user_id),
                points=int(pts),
                record=Record(wins=int(w), draws=int(d), losses=int(n_loss)),
            )
            for i, (user_id, pts, w, d, n_loss, _n) in enumerate(rows, start=1)
        ]

    # ----------------------------------------------------------------- helpers (lock held)
    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[_Outcome]:
        outcome = _Outcome()
        await self._db.execute("BEGIN IMMEDIATE")
        try:
            yield outcome
        except BaseException:
            await self._db.execute("ROLLBACK")
            raise
        if outcome.rolled_back:
            await self._db.execute("ROLLBACK")
        else:
            await self._db.execute("COMMIT")

    async def _scalar(self, sql: str, params: Sequence[object] = ()) -> int:
        async with self._db.execute(sql, params) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row is not None and row[0] is not None else 0

    async def _game(self, game_id: int) -> GameRow | None:
        async with self._db.execute(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        async with self._db.execute(
            "SELECT ply, cell, by_ai, reason FROM moves WHERE game_id = ? ORDER BY ply",
            (game_id,),
        ) as cur:
            moves = await cur.fetchall()
        return _game_row(row, moves)

    async def _active_game(self, guild_id: int, channel_id: int, player_id: int) -> GameRow | None:
        async with self._db.execute(
            "SELECT id FROM games WHERE guild_id = ? AND channel_id = ? AND player_id = ?"
            " AND status = 'active'",
            (guild_id, channel_id, player_id),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else await self._game(int(row[0]))


class _Outcome:
    """Lets a transaction body ask for a rollback without raising."""

    __slots__ = ("rolled_back",)

    def __init__(self) -> None:
        self.rolled_back = False

    def rollback(self) -> None:
        self.rolled_back = True


def _record(tally: dict[str, int]) -> Record:
    return Record(wins=tally.get("win", 0), draws=tally.get("draw", 0), losses=tally.get("loss", 0))


def _game_row(row: sqlite3.Row, moves: Iterable[sqlite3.Row]) -> GameRow:
    return GameRow(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        player_id=int(row["player_id"]),
        player_mark=str(row["player_mark"]),
        ai_level=str(row["ai_level"]),
        rows=int(row["rows"]),
        cols=int(row["cols"]),
        k=int(row["k"]),
        rule=str(row["rule"]),
        status=str(row["status"]),
        result=None if row["result"] is None else str(row["result"]),
        winner=None if row["winner"] is None else str(row["winner"]),
        ply=int(row["ply"]),
        moves=tuple(
            MoveRow(
                ply=int(m["ply"]),
                cell=str(m["cell"]),
                by_ai=bool(m["by_ai"]),
                reason=None if m["reason"] is None else str(m["reason"]),
            )
            for m in moves
        ),
    )
