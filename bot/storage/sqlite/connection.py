"""The SQLite connection: opening (with clean refusals), migrations and transactions.

One long-lived aiosqlite connection shared by every coroutine; all access goes through one
asyncio.Lock, so one coroutine's statements never land inside another's transaction.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from types import TracebackType

import aiosqlite

from bot.game.ports import StorageError

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
_MIGRATION_NAME = re.compile(r"(\d{3})_[a-z0-9_]+\.sql")
_SQLITE_HEADER = b"SQLite format 3\x00"
NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
# A guild's shard, as Discord assigns it: (guild_id >> 22) % shard_count; parameters (count, id).
SHARD = "(guild_id >> 22) % ? = ?"
# How long a statement waits for another program's write lock on the file before the database
# counts as unreachable: short enough that the member whose click met the lock is still answered
# within Discord's 3 s.
BUSY_TIMEOUT_MS = 1500
# The failures that mean the file cannot be used for now (SQLite's primary result codes): another
# program holds its lock, the disk fails or is full, the file cannot be opened or written.
SQLITE_BUSY, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN = 5, 8, 10, 13, 14
UNAVAILABLE_CODES = frozenset(
    {SQLITE_BUSY, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN}
)


def is_unavailable(exc: BaseException) -> bool:
    """Whether `exc` says the file cannot be used for now, rather than a broken rule or a bug."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in UNAVAILABLE_CODES


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


def check_database_path(path: Path) -> None:
    """StorageError (one line) if `path` cannot hold the bot's SQLite database: checked before
    connecting, because SQLite's own errors ("unable to open database file") do not say why."""
    folder = path.parent
    if path.is_dir():
        raise StorageError(f"database {path}: is a folder, not a file")
    if not folder.is_dir():
        raise StorageError(f"database {path}: the folder {folder} does not exist")
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            raise StorageError(f"database {path}: the file cannot be read and written")
        try:
            with path.open("rb") as f:
                header = f.read(len(_SQLITE_HEADER))
        except OSError as exc:
            raise StorageError(f"database {path}: cannot be read ({exc.strerror})") from None
        # An empty file is a new database to SQLite.
        if header and header != _SQLITE_HEADER:
            raise StorageError(f"database {path}: the file is not an SQLite database")
    # SQLite writes its write-ahead log and lock files next to the database.
    if not os.access(folder, os.W_OK | os.X_OK):
        raise StorageError(f"database {path}: the folder {folder} is not writable")


def check_shard(shard_id: int, shard_count: int) -> None:
    if shard_count < 1 or not 0 <= shard_id < shard_count:
        raise ValueError(f"shard {shard_id} of {shard_count} does not exist")


class Lock:
    """The connection's lock. Once it is held, `refuse` (the health's check) may refuse the call:
    calls queued behind a statement that found the file locked would each wait out the busy
    timeout again."""

    __slots__ = ("plain", "refuse")

    def __init__(self) -> None:
        self.plain = asyncio.Lock()
        self.refuse: Callable[[], None] | None = None

    async def __aenter__(self) -> None:
        await self.plain.acquire()
        if self.refuse is not None:
            try:
                self.refuse()
            except BaseException:
                self.plain.release()
                raise

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.plain.release()


class Connection:
    """The connection, its lock and its transactions, shared by the repositories of one database
    (each takes the lock around its statements)."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        self.lock = Lock()
        # Whether this connection has the one-statement move writer (see games.py).
        self.move_writer_ready = False

    @classmethod
    async def connect(cls, path: str | Path) -> aiosqlite.Connection:
        # isolation_level=None: the driver never opens transactions behind our back; we do.
        db = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            db.row_factory = sqlite3.Row
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS:d}")
            await db.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.DatabaseError as exc:
            await db.close()
            raise StorageError(f"database {path}: cannot be opened ({exc})") from None
        return db

    async def close(self) -> None:
        async with self.lock.plain:
            await self.db.close()

    async def ping(self) -> None:
        """A write that reaches the file, undone in the same transaction: it fails while another
        program holds the write lock or the disk cannot take the write-ahead log's next page."""
        async with self.lock.plain:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                await self.db.execute(
                    "INSERT INTO meta (key, value) VALUES ('storage_probe', '')"
                    " ON CONFLICT (key) DO NOTHING"
                )
                await self.db.execute("DELETE FROM meta WHERE key = 'storage_probe'")
                await self.db.execute("COMMIT")
            finally:
                await self._end_transaction()

    async def _end_transaction(self) -> None:
        """Roll back a transaction a failed statement left open. SQLite rolls some back by
        itself (a full disk, an I/O error): then there is nothing to undo, and a transaction
        left open would refuse every later BEGIN."""
        if self.db.in_transaction:
            with suppress(sqlite3.Error):
                await self.db.execute("ROLLBACK")

    # ----------------------------------------------------------------- schema
    async def migrate(self, directory: Path = MIGRATIONS_DIR) -> list[int]:
        """Apply the migrations newer than PRAGMA user_version, each in its own transaction.

        StorageError if the database is from a newer version than these migrations: the tables
        may not mean what this code thinks, so nothing is written to it.
        """
        applied: list[int] = []
        files = migration_files(directory)
        async with self.lock.plain:
            current = await self.scalar("PRAGMA user_version")
            if current > len(files):
                raise StorageError(
                    f"the database has schema version {current}, newer than this version of"
                    f" caro knows ({len(files)}): upgrade caro or use another database"
                )
            for number, path in files:
                if number <= current:
                    continue
                await self._apply(number, path)
                applied.append(number)
        return applied

    async def _apply(self, number: int, path: Path) -> None:
        script = path.read_text(encoding="utf-8")
        # A migration may rebuild a table other tables refer to; foreign keys are switched off
        # for it (SQLite ignores the switch inside a transaction) and checked before commit.
        await self.db.execute("PRAGMA foreign_keys=OFF")
        try:
            # executescript runs the text as-is, so the transaction is spelled out; the
            # version bump is inside it, so a failed migration leaves no trace.
            await self.db.executescript(f"BEGIN IMMEDIATE;\n{script}\n")
            async with self.db.execute("PRAGMA foreign_key_check") as cur:
                broken = list(await cur.fetchall())
            if broken:
                raise sqlite3.IntegrityError(f"{len(broken)} rows break foreign keys")
            # Plain statements: executescript would commit the open transaction first.
            await self.db.execute(f"PRAGMA user_version = {number:d}")
            await self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self.db.in_transaction:
                await self.db.execute("ROLLBACK")
            raise StorageError(f"migration {path.name} failed: {exc}") from exc
        finally:
            await self.db.execute("PRAGMA foreign_keys=ON")

    async def schema_version(self) -> int:
        async with self.lock.plain:
            return await self.scalar("PRAGMA user_version")

    # ----------------------------------------------------------------- helpers (lock held)
    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Outcome]:
        outcome = Outcome()
        await self.db.execute("BEGIN IMMEDIATE")
        try:
            yield outcome
        except BaseException:
            await self._end_transaction()
            raise
        if outcome.rolled_back:
            await self.db.execute("ROLLBACK")
            return
        try:
            await self.db.execute("COMMIT")
        except BaseException:
            # A commit that failed (the disk full, the file locked by a reader) leaves nothing
            # written, and no transaction open behind it.
            await self._end_transaction()
            raise

    # One trip to the database thread each: a cursor's execute, fetch and close are three, and
    # under load every trip waits behind the other games' on the one connection.
    async def all(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        return list(await self.db.execute_fetchall(sql, params))

    async def first(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Row | None:
        return next(iter(await self.db.execute_fetchall(sql, params)), None)

    async def scalar(self, sql: str, params: Sequence[object] = ()) -> int:
        row = await self.first(sql, params)
        return int(row[0]) if row is not None and row[0] is not None else 0


class Outcome:
    """Lets a transaction body ask for a rollback without raising."""

    __slots__ = ("rolled_back",)

    def __init__(self) -> None:
        self.rolled_back = False

    def rollback(self) -> None:
        self.rolled_back = True
