"""SQLite persistence for games, moves and results: one long-lived aiosqlite connection.

Every statement is parameterised. Every change that touches more than one row runs inside one
transaction, and all access goes through one asyncio.Lock: the single connection is shared by
every coroutine, so without the lock one coroutine's statements could land inside another's
transaction.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import aiosqlite

from . import ratings

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"(\d{3})_[a-z0-9_]+\.sql")

LEVELS: tuple[str, ...] = ("easy", "normal", "hard", "impossible")
RESULTS: tuple[str, ...] = ("win", "draw", "loss")
# A bot restarted by a supervisor is back within seconds; games that ended this recently get their
# final board redrawn at start, in case the crash came between storing and drawing it. A busy bot
# finishes hundreds of games in a few minutes, so the window stays short.
REDRAW_FINISHED_WITHIN = 120.0
END_REASONS: tuple[str, ...] = ("line", "full", "resign", "timeout")
GLOBAL_SCOPE = 0  # the standings scope of the cross-server leaderboard


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
    mode: str = "ai"  # "ai", "pvp" or "watch"
    opponent_id: int | None = None  # pvp: the human playing the other mark
    player_level: str | None = None  # watch: the AI level playing player_mark
    deadline: float | None = None  # unix time the side to move loses on time
    end_reason: str | None = None  # "line", "full", "resign" or "timeout"
    hints: int = 0
    locale: str = "en-US"


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
    mode: str = "ai"
    opponent_id: int | None = None
    player_level: str | None = None
    deadline: float | None = None
    locale: str = "en-US"


@dataclass(frozen=True, slots=True)
class Finish:
    """How a game ended, written together with its last move."""

    result: str  # from the player's side
    winner: str | None
    points: int
    reason: str = "line"  # see END_REASONS


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating and record in one mode, in one server or globally."""

    rating: float = ratings.START_RATING
    record: Record | None = None


@dataclass(frozen=True, slots=True)
class RatedRow:
    rank: int
    user_id: int
    rating: float
    record: Record


@dataclass(frozen=True, slots=True)
class RatingChange:
    user_id: int
    scope: int
    mode: str
    before: float
    after: float


@dataclass(frozen=True, slots=True)
class GuildSettings:
    pvp_timeout: float  # seconds a person has for one move against another person
    ai_timeout: float  # seconds a person has for one move against the AI


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int
    rows: int
    cols: int
    k: int
    rule: str
    first: str  # "me" (the challenger plays X), "them" or "random"
    locale: str
    status: str  # "pending", "accepted", "declined" or "expired"
    deadline: float
    game_id: int | None


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
    "status, result, winner, ply, mode, opponent_id, player_level, deadline, end_reason, hints, "
    "locale"
)
# The moves ride along as one JSON array ([ply, cell, by_ai, reason] each, in order).
_GAME_WITH_MOVES = (
    f"SELECT {_GAME_COLUMNS}, (SELECT json_group_array(json_array(ply, cell, by_ai, reason))"
    " FROM (SELECT ply, cell, by_ai, reason FROM moves WHERE game_id = games.id ORDER BY ply))"
    " AS moves_json FROM games WHERE id = ?"
)
_CHALLENGE_COLUMNS = (
    "id, guild_id, channel_id, message_id, challenger_id, opponent_id, rows, cols, k, rule, first, "
    "locale, status, deadline, game_id"
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
        # guild id -> its saved settings, None if it has none (see guild_settings).
        self._settings: dict[int, GuildSettings | None] = {}

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
            # A watched AI-vs-AI game occupies no player's slot but the channel's only watch
            # slot; a game between two people occupies both players' slots.
            players = [] if new.mode == "watch" else [new.player_id]
            if new.opponent_id is not None:
                players.append(new.opponent_id)
            for player in players:
                existing = await self._active_game(new.guild_id, new.channel_id, player)
                if existing is not None:
                    raise ActiveGameExists(existing)
            if new.mode == "watch":
                existing = await self._active_watch(new.guild_id, new.channel_id)
                if existing is not None:
                    raise ActiveGameExists(existing)
            try:
                game_id = await self._insert_game(new)
            except sqlite3.IntegrityError:
                # Another process won the race for the slot (unique index).
                if new.mode == "watch":
                    existing = await self._active_watch(new.guild_id, new.channel_id)
                else:
                    existing = await self._active_game(
                        new.guild_id, new.channel_id, new.player_id
                    )
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
                " rows, cols, k, rule, mode, opponent_id, player_level, deadline, locale)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    new.mode,
                    new.opponent_id,
                    new.player_level,
                    new.deadline,
                    new.locale,
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

    async def active_watch(self, guild_id: int, channel_id: int) -> GameRow | None:
        """The AI-vs-AI game running in this channel, if any."""
        async with self._lock:
            return await self._active_watch(guild_id, channel_id)

    async def games_awaiting_ai(self) -> list[GameRow]:
        """Running games with a posted message where it is the AI's turn (X moves on even plies):
        every AI-vs-AI game, and games against the AI on the AI's move."""
        async with self._lock:
            async with self._db.execute(
                "SELECT id FROM games WHERE status = 'active' AND message_id IS NOT NULL"
                " AND (mode = 'watch' OR (mode = 'ai' AND ((player_mark = 'O' AND ply % 2 = 0)"
                " OR (player_mark = 'X' AND ply % 2 = 1)))) ORDER BY id"
            ) as cur:
                ids = [int(row[0]) for row in await cur.fetchall()]
            games = [await self._game(i) for i in ids]
        return [g for g in games if g is not None]

    async def games_to_redraw(self, finished_within: float = REDRAW_FINISHED_WITHIN) -> list[GameRow]:
        """Games whose message may be a move behind the database after a crash: the bot stores a
        move before it draws it, so a running game whose last move was the AI's, or a game that
        ended in the last `finished_within` seconds, may never have been drawn."""
        async with self._lock:
            async with self._db.execute(
                "SELECT g.id FROM games g WHERE g.message_id IS NOT NULL AND ("
                " (g.status = 'active' AND EXISTS (SELECT 1 FROM moves m"
                "  WHERE m.game_id = g.id AND m.ply = g.ply - 1 AND m.by_ai = 1))"
                " OR (g.status = 'finished' AND g.finished_at >= strftime("
                "'%Y-%m-%dT%H:%M:%fZ', 'now', ?)))"
                # Running games first: their players are waiting to move.
                " ORDER BY g.status = 'active' DESC, g.id DESC",
                (f"-{float(finished_within):.0f} seconds",),
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
        deadline: float | None = None,
    ) -> bool:
        """Record move number `ply` (0-based) and, if it ended the game, the result.

        `deadline` is when the next side to move loses on time (None: no clock runs).
        False (and nothing written) unless the game is running and exactly `ply` moves were
        played so far: that is how a replayed click or a late AI answer is refused.
        """
        async with self._lock, self._transaction() as ok:
            cur = await self._db.execute(
                f"UPDATE games SET ply = ply + 1, deadline = ?, updated_at = {_NOW}"
                " WHERE id = ? AND ply = ? AND status = 'active'",
                (deadline, game_id, ply),
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

    async def finish_game(
        self,
        game_id: int,
        finish: Finish,
        *,
        ply: int | None = None,
        due_by: float | None = None,
    ) -> bool:
        """Finish a running game and count its result; False if it was not running.

        With `ply`, only if exactly that many moves were played (a resignation or a time-out
        must not land after a move it did not see); with `due_by`, only if its clock ran out
        by then (a move made meanwhile reset the clock).
        """
        async with self._lock, self._transaction() as ok:
            if ply is not None and not await self._scalar(
                "SELECT COUNT(*) FROM games WHERE id = ? AND ply = ?", (game_id, ply)
            ):
                ok.rollback()
                return False
            if due_by is not None and not await self._scalar(
                "SELECT COUNT(*) FROM games WHERE id = ? AND deadline IS NOT NULL"
                " AND deadline <= ?",
                (game_id, due_by),
            ):
                ok.rollback()
                return False
            if not await self._finish(game_id, finish):
                ok.rollback()
                return False
            return True

    async def _finish(self, game_id: int, finish: Finish) -> bool:
        if finish.result not in RESULTS:
            raise ValueError(f"result must be one of {RESULTS}, not {finish.result!r}")
        if finish.reason not in END_REASONS:
            raise ValueError(f"end reason must be one of {END_REASONS}, not {finish.reason!r}")
        cur = await self._db.execute(
            "UPDATE games SET status = 'finished', result = ?, winner = ?, end_reason = ?,"
            f" deadline = NULL, updated_at = {_NOW}, finished_at = {_NOW}"
            " WHERE id = ? AND status = 'active'",
            (finish.result, finish.winner, finish.reason, game_id),
        )
        if cur.rowcount != 1:
            return False
        game = await self._game(game_id)
        assert game is not None
        if game.mode == "ai":
            await self._db.execute(
                "INSERT INTO results (game_id, guild_id, user_id, ai_level, result, points)"
                " SELECT id, guild_id, player_id, ai_level, ?, ? FROM games WHERE id = ?",
                (finish.result, finish.points, game_id),
            )
        await self._rate(game, finish.result)
        return True

    async def _rate(self, game: GameRow, result: str) -> None:
        """Move the Elo ratings of the people in a finished game, in its server and globally."""
        if game.mode == "watch":
            return
        flipped = {"win": "loss", "loss": "win", "draw": "draw"}
        for scope in (game.guild_id, GLOBAL_SCOPE):
            player = await self._standing(scope, game.player_id, game.mode)
            if game.mode == "pvp":
                assert game.opponent_id is not None
                other = await self._standing(scope, game.opponent_id, "pvp")
                await self._rate_one(game, scope, game.player_id, player, other.rating, result)
                await self._rate_one(
                    game, scope, game.opponent_id, other, player.rating, flipped[result]
                )
            else:
                anchor = ratings.AI_ANCHORS.get(game.ai_level, ratings.START_RATING)
                await self._rate_one(game, scope, game.player_id, player, anchor, result)

    async def _rate_one(
        self,
        game: GameRow,
        scope: int,
        user_id: int,
        standing: Standing,
        opponent: float,
        result: str,
    ) -> None:
        after = ratings.updated(standing.rating, opponent, result)
        await self._db.execute(
            "INSERT INTO standings (scope, user_id, mode, rating, wins, draws, losses)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, user_id, mode) DO UPDATE SET"
            " rating = excluded.rating, wins = wins + excluded.wins,"
            " draws = draws + excluded.draws, losses = losses + excluded.losses",
            (
                scope,
                user_id,
                game.mode,
                after,
                int(result == "win"),
                int(result == "draw"),
                int(result == "loss"),
            ),
        )
        await self._db.execute(
            "INSERT INTO rating_changes (game_id, scope, user_id, mode, before, after)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game.id, scope, user_id, game.mode, standing.rating, after),
        )

    async def _standing(self, scope: int, user_id: int, mode: str) -> Standing:
        async with self._db.execute(
            "SELECT rating, wins, draws, losses FROM standings"
            " WHERE scope = ? AND user_id = ? AND mode = ?",
            (scope, user_id, mode),
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return Standing(rating=ratings.START_RATING, record=Record())
        return Standing(
            rating=float(row[0]),
            record=Record(wins=int(row[1]), draws=int(row[2]), losses=int(row[3])),
        )

    # ----------------------------------------------------------------- clocks and hints
    async def due_games(self, now: float) -> list[GameRow]:
        """Running games whose side to move has run out of time by `now`."""
        async with self._lock:
            async with self._db.execute(
                "SELECT id FROM games WHERE status = 'active' AND deadline IS NOT NULL"
                " AND deadline <= ? ORDER BY deadline, id",
                (now,),
            ) as cur:
                ids = [int(row[0]) for row in await cur.fetchall()]
            games = [await self._game(i) for i in ids]
        return [g for g in games if g is not None]

    async def next_deadline(self) -> float | None:
        """The earliest running clock of any game or pending challenge."""
        async with self._lock, self._db.execute(
            "SELECT MIN(d) FROM (SELECT MIN(deadline) AS d FROM games WHERE status = 'active'"
            " UNION ALL SELECT MIN(deadline) FROM challenges WHERE status = 'pending')"
        ) as cur:
            row = await cur.fetchone()
        return None if row is None or row[0] is None else float(row[0])

    async def set_deadline(self, game_id: int, ply: int, deadline: float | None) -> bool:
        async with self._lock:
            cur = await self._db.execute(
                "UPDATE games SET deadline = ? WHERE id = ? AND ply = ? AND status = 'active'",
                (deadline, game_id, ply),
            )
            return cur.rowcount == 1

    async def add_hint(self, game_id: int, ply: int) -> bool:
        """Count a hint given at move `ply`; False if the game moved on or ended meanwhile."""
        async with self._lock:
            cur = await self._db.execute(
                "UPDATE games SET hints = hints + 1 WHERE id = ? AND ply = ? AND status = 'active'",
                (game_id, ply),
            )
            return cur.rowcount == 1

    async def last_game(
        self, guild_id: int, channel_id: int, user_id: int
    ) -> GameRow | None:
        """The user's most recent game in a channel in which they played, running or not."""
        async with self._lock:
            async with self._db.execute(
                "SELECT id FROM games WHERE guild_id = ? AND channel_id = ? AND mode <> 'watch'"
                " AND (player_id = ? OR opponent_id = ?) ORDER BY id DESC LIMIT 1",
                (guild_id, channel_id, user_id, user_id),
            ) as cur:
                row = await cur.fetchone()
            return None if row is None else await self._game(int(row[0]))

    # ----------------------------------------------------------------- settings
    async def guild_settings(self, guild_id: int, default: GuildSettings) -> GuildSettings:
        # Every move starts a clock from these; they change only through save_guild_settings of
        # this one process, so a cache is exact and saves a database trip per move.
        if guild_id in self._settings:
            return self._settings[guild_id] or default
        async with self._lock, self._db.execute(
            "SELECT pvp_timeout, ai_timeout FROM guild_settings WHERE guild_id = ?", (guild_id,)
        ) as cur:
            row = await cur.fetchone()
        found = (
            None
            if row is None
            else GuildSettings(pvp_timeout=float(row[0]), ai_timeout=float(row[1]))
        )
        self._settings[guild_id] = found
        return found or default

    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        async with self._lock:
            await self._db.execute(
                "INSERT INTO guild_settings (guild_id, pvp_timeout, ai_timeout) VALUES (?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET pvp_timeout = excluded.pvp_timeout,"
                " ai_timeout = excluded.ai_timeout",
                (guild_id, settings.pvp_timeout, settings.ai_timeout),
            )
            self._settings[guild_id] = settings

    async def get_meta(self, key: str) -> str | None:
        async with self._lock:
            rows = list(await self._db.execute_fetchall("SELECT value FROM meta WHERE key = ?", (key,)))
        return str(rows[0][0]) if rows else None

    async def set_meta(self, key: str, value: str) -> None:
        async with self._lock:
            await self._db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # ----------------------------------------------------------------- challenges
    async def create_challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        rows: int,
        cols: int,
        k: int,
        rule: str,
        first: str,
        locale: str,
        deadline: float,
    ) -> ChallengeRow:
        async with self._lock:
            cur = await self._db.execute(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, rows,"
                " cols, k, rule, first, locale, deadline) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    guild_id,
                    channel_id,
                    challenger_id,
                    opponent_id,
                    rows,
                    cols,
                    k,
                    rule,
                    first,
                    locale,
                    deadline,
                ),
            )
            challenge_id = cur.lastrowid
            assert challenge_id is not None
            found = await self._challenge(challenge_id)
        assert found is not None
        return found

    async def challenge(self, challenge_id: int) -> ChallengeRow | None:
        async with self._lock:
            return await self._challenge(challenge_id)

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        async with self._lock:
            await self._db.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )

    async def close_challenge(
        self, challenge_id: int, status: str, *, game_id: int | None = None
    ) -> bool:
        """Move a pending challenge to `status`; False if it was no longer pending."""
        async with self._lock:
            cur = await self._db.execute(
                "UPDATE challenges SET status = ?, game_id = ? WHERE id = ? AND status = 'pending'",
                (status, game_id, challenge_id),
            )
            return cur.rowcount == 1

    async def due_challenges(self, now: float) -> list[ChallengeRow]:
        async with self._lock, self._db.execute(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges"
            " WHERE status = 'pending' AND deadline <= ? ORDER BY deadline, id",
            (now,),
        ) as cur:
            rows = await cur.fetchall()
        return [_challenge_row(r) for r in rows]

    async def _challenge(self, challenge_id: int) -> ChallengeRow | None:
        async with self._db.execute(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else _challenge_row(row)

    # ----------------------------------------------------------------- ratings
    async def standing(self, scope: int, user_id: int, mode: str) -> Standing:
        async with self._lock:
            return await self._standing(scope, user_id, mode)

    async def rated_leaderboard(
        self, scope: int, mode: str, *, min_games: int, limit: int = 10
    ) -> list[RatedRow]:
        """Ranked by rating, then games played (more first), then user id."""
        async with self._lock, self._db.execute(
            "SELECT user_id, rating, wins, draws, losses FROM standings"
            " WHERE scope = ? AND mode = ? AND wins + draws + losses >= ?"
            " ORDER BY rating DESC, wins + draws + losses DESC, user_id ASC LIMIT ?",
            (scope, mode, min_games, limit),
        ) as cur:
            rows = await cur.fetchall()
        return [
            RatedRow(
                rank=i,
                user_id=int(user_id),
                rating=float(rating),
                record=Record(wins=int(w), draws=int(d), losses=int(n_loss)),
            )
            for i, (user_id, rating, w, d, n_loss) in enumerate(rows, start=1)
        ]

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        async with self._lock, self._db.execute(
            "SELECT user_id, scope, mode, before, after FROM rating_changes WHERE game_id = ?"
            " ORDER BY scope, user_id",
            (game_id,),
        ) as cur:
            rows = await cur.fetchall()
        return [
            RatingChange(int(u), int(s), str(m), float(b), float(a)) for u, s, m, b, a in rows
        ]

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
        # One query, so one trip to the database thread: every click and every AI answer reads
        # its game, and under load these trips queue behind each other on the one connection.
        rows = await self._db.execute_fetchall(_GAME_WITH_MOVES, (game_id,))
        return next((_game_row(row) for row in rows), None)

    async def _active_game(self, guild_id: int, channel_id: int, player_id: int) -> GameRow | None:
        async with self._db.execute(
            "SELECT id FROM games WHERE guild_id = ? AND channel_id = ? AND mode <> 'watch'"
            " AND (player_id = ? OR opponent_id = ?) AND status = 'active' ORDER BY id LIMIT 1",
            (guild_id, channel_id, player_id, player_id),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else await self._game(int(row[0]))

    async def _active_watch(self, guild_id: int, channel_id: int) -> GameRow | None:
        async with self._db.execute(
            "SELECT id FROM games WHERE guild_id = ? AND channel_id = ? AND mode = 'watch'"
            " AND status = 'active' ORDER BY id LIMIT 1",
            (guild_id, channel_id),
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


def _game_row(row: sqlite3.Row) -> GameRow:
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
        mode=str(row["mode"]),
        opponent_id=None if row["opponent_id"] is None else int(row["opponent_id"]),
        player_level=None if row["player_level"] is None else str(row["player_level"]),
        deadline=None if row["deadline"] is None else float(row["deadline"]),
        end_reason=None if row["end_reason"] is None else str(row["end_reason"]),
        hints=int(row["hints"]),
        locale=str(row["locale"]),
        moves=tuple(
            MoveRow(
                ply=int(ply),
                cell=str(cell),
                by_ai=bool(by_ai),
                reason=None if reason is None else str(reason),
            )
            for ply, cell, by_ai, reason in json.loads(row["moves_json"])
        ),
    )


def _challenge_row(row: sqlite3.Row) -> ChallengeRow:
    return ChallengeRow(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        challenger_id=int(row["challenger_id"]),
        opponent_id=int(row["opponent_id"]),
        rows=int(row["rows"]),
        cols=int(row["cols"]),
        k=int(row["k"]),
        rule=str(row["rule"]),
        first=str(row["first"]),
        locale=str(row["locale"]),
        status=str(row["status"]),
        deadline=float(row["deadline"]),
        game_id=None if row["game_id"] is None else int(row["game_id"]),
    )
