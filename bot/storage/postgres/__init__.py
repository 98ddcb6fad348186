"""The PostgreSQL backend (asyncpg): one database for many processes. As in the SQLite backend,
each aggregate's queries are a repository of their own, all over the one pool of
connection.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.storage.health import Health
from bot.storage.postgres.blocks import BlockQueries
from bot.storage.postgres.challenges import ChallengeQueries
from bot.storage.postgres.clocks import ClockQueries
from bot.storage.postgres.connection import (
    MIGRATIONS_DIR,
    POOL_MAX,
    Connection,
    is_unavailable,
    shown_dsn,
)
from bot.storage.postgres.games import GameQueries
from bot.storage.postgres.meta import MetaQueries
from bot.storage.postgres.outbox import OutboxQueries
from bot.storage.postgres.puzzles import PuzzleQueries
from bot.storage.postgres.queue import QueueQueries
from bot.storage.postgres.reviews import ReviewQueries
from bot.storage.postgres.settings import SettingQueries
from bot.storage.postgres.standings import StandingQueries
from bot.storage.postgres.takebacks import TakebackQueries
from bot.storage.postgres.tournaments import TournamentQueries


class PostgresStorage:
    """The bot's database on a PostgreSQL server. Create with
    `await PostgresStorage.open("postgresql://…")`; `await close()` at shutdown.

    The repositories share the one pool; they hold one another as in the SQLite backend. The
    server stopped, restarting or out of reach: every repository raises StorageUnavailable until
    `health` reaches it again (bot.storage.health)."""

    def __init__(self, pool: Any, dsn: str) -> None:
        self.connection = Connection(pool, dsn)
        self.health = Health(shown_dsn(dsn), self.connection.ping, is_unavailable)
        guard = self.health.guard
        self.standings = guard(StandingQueries(self.connection))
        self.games = guard(GameQueries(self.connection, self.standings))
        self.takebacks = guard(TakebackQueries(self.connection))
        self.clocks = guard(ClockQueries(self.connection, self.games))
        self.challenges = guard(ChallengeQueries(self.connection, self.games))
        self.settings = guard(SettingQueries(self.connection))
        self.reviews = guard(ReviewQueries(self.connection, self.games))
        self.meta = guard(MetaQueries(self.connection, self.games))
        self.puzzles = guard(PuzzleQueries(self.connection, self.games))
        self.tournaments = guard(TournamentQueries(self.connection))
        self.outbox = guard(OutboxQueries(self.connection))
        self.blocks = guard(BlockQueries(self.connection))
        self.queue = guard(QueueQueries(self.connection, self.games))

    @classmethod
    async def open(
        cls, dsn: str, *, migrations: Path = MIGRATIONS_DIR, pool_size: int = POOL_MAX
    ) -> PostgresStorage:
        """Connect and migrate; StorageError (one line, no password) if it cannot be used."""
        pool = await Connection.connect(dsn, max_size=pool_size)
        try:
            storage = cls(pool, dsn)
            await storage.connection.migrate(migrations)
        except BaseException:
            await pool.close()
            raise
        return storage

    async def close(self) -> None:
        await self.health.close()
        await self.connection.close()

    async def schema_version(self) -> int:
        return await self.connection.schema_version()


__all__ = ["MIGRATIONS_DIR", "PostgresStorage", "shown_dsn"]
