"""The PostgreSQL backend (asyncpg): one database for many processes. The queries of each
aggregate live in their own module, each building on the connection module, as in the SQLite
backend."""

from __future__ import annotations

from pathlib import Path

from bot.storage.postgres.challenges import ChallengeQueries
from bot.storage.postgres.connection import MIGRATIONS_DIR, POOL_MAX, shown_dsn
from bot.storage.postgres.reviews import ReviewQueries
from bot.storage.postgres.settings import SettingQueries


class PostgresStorage(ChallengeQueries, ReviewQueries, SettingQueries):
    """The bot's database on a PostgreSQL server. Create with
    `await PostgresStorage.open("postgresql://…")`; `await close()` at shutdown."""

    @classmethod
    async def open(
        cls, dsn: str, *, migrations: Path = MIGRATIONS_DIR, pool_size: int = POOL_MAX
    ) -> PostgresStorage:
        """Connect and migrate; StorageError (one line, no password) if it cannot be used."""
        pool = await cls._connect(dsn, max_size=pool_size)
        try:
            storage = cls(pool, dsn)
            await storage.migrate(migrations)
        except BaseException:
            await pool.close()
            raise
        return storage


__all__ = ["MIGRATIONS_DIR", "PostgresStorage", "shown_dsn"]
