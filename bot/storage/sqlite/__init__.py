"""The SQLite backend: one file, one process (aiosqlite). The queries of each aggregate live in
their own module, each building on the connection module."""

from __future__ import annotations

from pathlib import Path

from bot.game.ports import StorageError
from bot.storage.sqlite.challenges import ChallengeQueries
from bot.storage.sqlite.connection import MIGRATIONS_DIR, check_database_path, migration_files
from bot.storage.sqlite.reviews import ReviewQueries
from bot.storage.sqlite.settings import SettingQueries


class SqliteStorage(ChallengeQueries, ReviewQueries, SettingQueries):
    """The bot's database. Create with `await SqliteStorage.open(path)`; `await close()` at
    shutdown.

    Each base holds the queries of one aggregate over the one connection (connection.py):
    challenges build on games (accepting one creates a game), games on standings (finishing one
    rates it), finished games as records and their reviews on games; settings stand alone.
    """

    @classmethod
    async def open(cls, path: str | Path, *, migrations: Path = MIGRATIONS_DIR) -> SqliteStorage:
        """Open (creating if needed) and migrate the database; StorageError (one line) if it
        cannot be used."""
        check_database_path(Path(path))
        db = await cls._connect(path)
        try:
            storage = cls(db)
            await storage.migrate(migrations)
        except StorageError as exc:
            await db.close()
            raise StorageError(f"database {path}: {exc}") from None
        except BaseException:
            await db.close()
            raise
        return storage


__all__ = ["MIGRATIONS_DIR", "SqliteStorage", "check_database_path", "migration_files"]
