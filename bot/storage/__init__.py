"""The storage backends of the ports in bot.game.ports (`Storage`): SQLite (one file, one
process; the default) and PostgreSQL (one server, many processes).

`open_database(url)` is what the program calls at start: `sqlite:///path` (or a bare file path)
or `postgresql://…`. It refuses, with a one-line StorageError, a database it cannot use (missing
folder, read-only place, a folder, a file that is not SQLite, a server it cannot reach or log in
to, a database written by a newer version of caro).
"""

from __future__ import annotations

from pathlib import Path

from bot.game.ports import Storage, StorageError
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import MIGRATIONS_DIR, SqliteStorage, migration_files

_SQLITE_PREFIXES = ("sqlite:///", "sqlite://")
POSTGRES_SCHEMES = ("postgresql", "postgres")


def is_postgres_url(url: str | Path) -> bool:
    return str(url).split("://", 1)[0].lower() in POSTGRES_SCHEMES and "://" in str(url)


def sqlite_path(url: str | Path) -> Path:
    """The file of an SQLite URL or bare path; StorageError for any other URL."""
    text = str(url)
    if "://" in text and not text.startswith(_SQLITE_PREFIXES):
        scheme = text.split("://", 1)[0]
        raise StorageError(
            f"database {scheme}://…: expected sqlite:///path or postgresql://…"
        )
    for prefix in _SQLITE_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    if not text:
        raise StorageError("database: no file named")
    return Path(text)


async def open_database(url: str | Path) -> Storage:
    """The database at `url` (a file path, sqlite:///path or postgresql://…), opened and
    migrated; StorageError with a one-line reason if it cannot be used."""
    if is_postgres_url(url):
        return await PostgresStorage.open(str(url))
    return await SqliteStorage.open(sqlite_path(url))


def _implements_the_interface(sqlite: SqliteStorage, postgres: PostgresStorage) -> list[Storage]:
    # mypy checks here that each backend has every method of the interface, with the same
    # signatures: a backend that drifts from the Protocol fails the type check.
    return [sqlite, postgres]


__all__ = [
    "MIGRATIONS_DIR",
    "PostgresStorage",
    "SqliteStorage",
    "is_postgres_url",
    "migration_files",
    "open_database",
    "sqlite_path",
]
