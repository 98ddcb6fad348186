"""Both storage backends for the same tests: the `backend` fixture runs a test on a real SQLite
file and on a real (throwaway) PostgreSQL database, with what a test needs to look behind the
storage interface (row counts, raw SQL)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.storage import PostgresStorage, SqliteStorage
from bot.storage.postgres import MIGRATIONS_DIR as POSTGRES_MIGRATIONS
from bot.storage.sqlite import MIGRATIONS_DIR as SQLITE_MIGRATIONS
from testkit.sqlite_rows import TABLES
from testkit.sqlite_rows import row_counts as sqlite_row_counts

BACKENDS = ("sqlite", "postgres")


class Backend:
    """One database of one backend; `open()` may be called several times (several processes'
    views of the same database)."""

    def __init__(self, name: str, where: str) -> None:
        self.name = name
        self.where = where  # the SQLite file, or the PostgreSQL URL
        self.opened: list[SqliteStorage | PostgresStorage] = []

    @property
    def migrations(self) -> Path:
        return SQLITE_MIGRATIONS if self.name == "sqlite" else POSTGRES_MIGRATIONS

    async def open(self, migrations: Path | None = None) -> Any:
        store: SqliteStorage | PostgresStorage
        if self.name == "sqlite":
            store = await SqliteStorage.open(Path(self.where),
                                             migrations=migrations or SQLITE_MIGRATIONS)
        else:
            store = await PostgresStorage.open(self.where,
                                               migrations=migrations or POSTGRES_MIGRATIONS)
        self.opened.append(store)
        return store

    async def row_counts(self) -> dict[str, int]:
        if self.name == "sqlite":
            return sqlite_row_counts(Path(self.where))
        con = await asyncpg.connect(self.where)
        try:
            # Table names come from the fixed tuple, never from input.
            return {t: int(await con.fetchval(f"SELECT COUNT(*) FROM {t}")) for t in TABLES}
        finally:
            await con.close()

    async def fetch(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        """Rows of a query run behind the storage's back (qmark style: ? placeholders)."""
        if self.name == "sqlite":
            import sqlite3

            with sqlite3.connect(self.where) as db:
                return [tuple(r) for r in db.execute(sql, params).fetchall()]
        numbered = _numbered(sql)
        con = await asyncpg.connect(self.where)
        try:
            return [tuple(r) for r in await con.fetch(numbered, *params)]
        finally:
            await con.close()

    async def execute(self, sql: str, *params: object) -> None:
        """A statement run behind the storage's back (qmark style)."""
        if self.name == "sqlite":
            import sqlite3

            with sqlite3.connect(self.where) as db:
                db.execute(sql, params)
            return
        con = await asyncpg.connect(self.where)
        try:
            await con.execute(_numbered(sql), *params)
        finally:
            await con.close()

    @property
    def integrity_error(self) -> tuple[type[BaseException], ...]:
        import sqlite3

        return (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)

    async def close_all(self) -> None:
        for store in self.opened:
            await store.close()
        self.opened.clear()


@asynccontextmanager
async def listening(
    backend: Backend,
    listen: Callable[[Callable[..., None]], Awaitable[None]],
    heard: list[tuple[Any, ...]] | None = None,
) -> AsyncIterator[asyncio.Event | None]:
    """`listen(wake)` running (a store's signal from other processes) for the block: the event
    its wake sets, once the wake it makes when it starts listening was heard and cleared. None on
    SQLite, where there is no such signal and `listen` must return at once. Each call's
    arguments after that first one are appended to `heard`."""
    woken = asyncio.Event()
    started = False

    def wake(*args: Any) -> None:
        if started and heard is not None:
            heard.append(args)
        woken.set()

    task = asyncio.create_task(listen(wake))
    try:
        if backend.name == "sqlite":
            await asyncio.wait_for(task, 1.0)
            yield None
            return
        # Told once when it starts listening (a signal may have been sent before).
        await asyncio.wait_for(woken.wait(), 10.0)
        woken.clear()
        started = True
        yield woken
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def _numbered(sql: str) -> str:
    """? placeholders as PostgreSQL's $1, $2…"""
    parts = sql.split("?")
    out = parts[0]
    for i, part in enumerate(parts[1:], start=1):
        out += f"${i}{part}"
    return out


@pytest.fixture(params=BACKENDS)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    """A fresh empty database of each backend in turn (PostgreSQL: skipped where it is not
    installed, unless CARO_REQUIRE_POSTGRES)."""
    if request.param == "sqlite":
        found = Backend("sqlite", str(tmp_path / "caro.db"))
    else:
        found = Backend("postgres", request.getfixturevalue("postgres_dsn"))
    try:
        yield found
    finally:
        await found.close_all()


@pytest.fixture
async def storage(backend: Backend) -> Any:
    """An open storage of each backend in turn."""
    return await backend.open()
