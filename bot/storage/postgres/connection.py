"""The PostgreSQL connection: a pool of asyncpg connections, migrations and transactions.

Unlike SQLite's one connection behind a lock, statements of different coroutines (and of other
processes) run at the same time; every rule of the interface is kept by the statements
themselves: conditional updates, unique keys, and row locks where a value is read to compute
another (ratings).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg  # type: ignore[import-untyped]

from bot.game.ports import StorageError
from bot.storage.sqlite.connection import Outcome, check_shard, migration_files

log = logging.getLogger("caro.storage")

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
# The advisory lock every process takes while it migrates: two processes started together on an
# empty database must not both create the tables. Any fixed 64-bit number; this one spells "caro".
MIGRATION_LOCK = 0x6361726F
POOL_MAX = 10
CONNECT_TIMEOUT = 10.0
# How long a listener waits before connecting again after losing its connection.
LISTEN_AGAIN_SECONDS = 3.0
# Two finishing games may wait on each other's rating rows (a member in both); PostgreSQL then
# cancels one transaction, which is tried again from the start.
RETRIES = 5
# How long a process holds a run-out clock (or challenge) it took to settle, in seconds of the
# caller's clock: settling takes milliseconds, so this only matters when the process died.
CLAIM_SECONDS = 30.0

T = TypeVar("T")
__all__ = [
    "MIGRATIONS_DIR",
    "Connection",
    "Outcome",
    "check_shard",
    "is_unavailable",
    "row_count",
    "shard_filter",
    "shown_dsn",
]


def shard_filter(count: str, shard: str, column: str = "guild_id") -> str:
    """The condition that `column`'s server is on the shard, as Discord assigns shards:
    (guild_id >> 22) % shard_count; `count` and `shard` are the query's parameters ("$1")."""
    return f"({column} >> 22) % {count} = {shard}"


def row_count(status: str) -> int:
    """The row count of an asyncpg command status ("UPDATE 1", "DELETE 0", "INSERT 0 1")."""
    return int(status.rsplit(" ", 1)[-1])


def shown_dsn(dsn: str) -> str:
    """The URL without its password, for messages and logs."""
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    netloc = parts.netloc.rsplit("@", 1)
    user = (parts.username or "") + ":***"
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc[-1]}"))


# Failures that mean the server cannot be reached for now, whatever the statement: the socket
# gone or refused, no answer in time, the connection cut, the server shutting down or starting.
_UNAVAILABLE: tuple[type[BaseException], ...] = (
    OSError,
    TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.TooManyConnectionsError,
)


def is_unavailable(exc: BaseException) -> bool:
    """Whether `exc` says the server cannot be reached for now, rather than a broken rule or a
    bug. asyncpg says a connection it had closed under a query in an InterfaceError of its own,
    and one the server closed between two statements in an InternalClientError."""
    if isinstance(exc, _UNAVAILABLE):
        return True
    if isinstance(exc, asyncpg.InternalClientError) and "another operation" in str(exc):
        # A pooled connection the server cut (a restart's fast shutdown) while it was idle: the
        # next statement on it finds its protocol still in the cut operation's state.
        return True
    return isinstance(exc, asyncpg.InterfaceError) and "connection is closed" in str(exc)


def connect_reason(exc: BaseException) -> str:
    """Why connecting failed, in one line."""
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


@contextmanager
def _reaching(dsn: str) -> Iterator[None]:
    """A failure to connect to `dsn`, as the one-line StorageError the operator sees."""
    try:
        yield
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise StorageError(
            f"database {shown_dsn(dsn)}: cannot connect ({connect_reason(exc)})"
        ) from None


async def _keep_session(con: Any) -> None:
    """What the pool does to a connection handed back (asyncpg's default runs RESET ALL, CLOSE
    ALL, UNLISTEN * and pg_advisory_unlock_all(): one more round trip after every query). The
    bot's queries leave no session state behind — no SET, cursor, LISTEN or advisory lock;
    migrating, which takes a lock, has its own connection — and asyncpg still rolls back a
    transaction left open before calling this, so there is nothing to undo."""


class Connection:
    """The pool, migrations and transactions, shared by the repositories of one database."""

    def __init__(self, pool: Any, dsn: str) -> None:
        self.pool = pool
        self._dsn = dsn

    @classmethod
    async def connect(cls, dsn: str, *, max_size: int = POOL_MAX) -> Any:
        with _reaching(dsn):
            pool = await asyncpg.create_pool(
                dsn, min_size=1, max_size=max_size, timeout=CONNECT_TIMEOUT,
                # The bot's queries are few and fixed; the statement cache keeps them prepared.
                command_timeout=60, reset=_keep_session,
            )
        return pool

    async def close(self) -> None:
        await self.pool.close()

    async def listening(self, channel: str, heard: Callable[[str], None]) -> None:
        """Call `heard` with the payload of each NOTIFY on `channel`, on a connection of its own
        (a listener cannot live in the pool), until cancelled; connected again after a loss,
        `heard` called once then with no payload ("": a notification may have been missed
        meanwhile)."""
        while True:
            try:
                con = await asyncpg.connect(self._dsn, timeout=CONNECT_TIMEOUT)
            except (OSError, TimeoutError, asyncpg.PostgresError) as exc:
                log.debug("listening on %s: no connection (%s)", channel, connect_reason(exc))
                await asyncio.sleep(LISTEN_AGAIN_SECONDS)
                continue
            lost = asyncio.Event()
            con.add_termination_listener(lambda _, lost=lost: lost.set())
            try:
                await con.add_listener(channel, lambda *args: heard(str(args[-1])))
                heard("")
                while not con.is_closed():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(lost.wait(), LISTEN_AGAIN_SECONDS * 10)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.debug("listening on %s: connection lost (%r)", channel, exc)
            finally:
                with contextlib.suppress(Exception):
                    await con.close(timeout=1.0)
            await asyncio.sleep(LISTEN_AGAIN_SECONDS)

    # ----------------------------------------------------------------- schema
    async def migrate(self, directory: Path = MIGRATIONS_DIR) -> list[int]:
        """Apply the migrations not yet in schema_migrations, each in its own transaction, under
        an advisory lock so that processes starting together migrate once.

        StorageError if the database is from a newer version than these migrations.
        """
        files = migration_files(directory)
        applied: list[int] = []
        # A connection of its own, closed afterwards: the pool's connections are handed back
        # without a reset (see _keep_session), and this one holds a session-level lock.
        with _reaching(self._dsn):
            con = await asyncpg.connect(self._dsn, timeout=CONNECT_TIMEOUT)
        try:
            await con.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
            try:
                await con.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                    " name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
                )
                current = int(
                    await con.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
                )
                if current > len(files):
                    raise StorageError(
                        f"the database has schema version {current}, newer than this version of"
                        f" caro knows ({len(files)}): upgrade caro or use another database"
                    )
                for number, path in files:
                    if number <= current:
                        continue
                    script = path.read_text(encoding="utf-8")
                    try:
                        async with con.transaction():
                            # No arguments: the simple protocol runs the whole file.
                            await con.execute(script)
                            await con.execute(
                                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                                number, path.name,
                            )
                    except asyncpg.PostgresError as exc:
                        raise StorageError(f"migration {path.name} failed: {exc}") from exc
                    applied.append(number)
            finally:
                await con.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        finally:
            await con.close()
        return applied

    async def ping(self) -> None:
        """One round trip on a connection of the pool (a new one if the server dropped them)."""
        await self.pool.fetchval("SELECT 1")

    async def schema_version(self) -> int:
        return int(
            await self.pool.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
        )

    # ----------------------------------------------------------------- helpers
    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[tuple[Any, Outcome]]:
        """A connection in a transaction, committed unless the body raised or asked for a
        rollback."""
        async with self.pool.acquire() as con:
            tr = con.transaction()
            await tr.start()
            outcome = Outcome()
            try:
                yield con, outcome
            except BaseException:
                await tr.rollback()
                raise
            if outcome.rolled_back:
                await tr.rollback()
            else:
                await tr.commit()

    async def retrying(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """Run a whole transaction again when PostgreSQL broke a deadlock by cancelling it (its
        effects are gone, so running it again is safe)."""
        for tries in range(1, RETRIES + 1):
            try:
                return await attempt()
            except (asyncpg.DeadlockDetectedError, asyncpg.SerializationError):
                if tries == RETRIES:
                    raise
                await asyncio.sleep(random.uniform(0.001, 0.01) * tries)
        raise AssertionError("unreachable")
