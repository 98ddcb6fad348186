"""The SQLite backend: one file, one process (aiosqlite). Each aggregate's queries are a
repository of their own (games.py, clocks.py, challenges.py…), all over the one connection of
connection.py."""

from __future__ import annotations

from pathlib import Path

import aiosqlite

from bot.game.ports import StorageError
from bot.storage.health import Health
from bot.storage.sqlite.blocks import BlockQueries
from bot.storage.sqlite.challenges import ChallengeQueries
from bot.storage.sqlite.clocks import ClockQueries
from bot.storage.sqlite.connection import (
    MIGRATIONS_DIR,
    Connection,
    check_database_path,
    is_unavailable,
    migration_files,
)
from bot.storage.sqlite.games import GameQueries
from bot.storage.sqlite.meta import MetaQueries
from bot.storage.sqlite.outbox import OutboxQueries
from bot.storage.sqlite.puzzles import PuzzleQueries
from bot.storage.sqlite.queue import QueueQueries
from bot.storage.sqlite.reviews import ReviewQueries
from bot.storage.sqlite.settings import SettingQueries
from bot.storage.sqlite.standings import StandingQueries
from bot.storage.sqlite.takebacks import TakebackQueries
from bot.storage.sqlite.tournaments import TournamentQueries


class SqliteStorage:
    """The bot's database. Create with `await SqliteStorage.open(path)`; `await close()` at
    shutdown.

    The repositories share the one connection and its lock. Some hold another: finishing a game
    rates it (games use standings), accepting a challenge creates a game, and clocks, records and
    shard work read games; each such change stays one transaction.

    The file locked by another program, the disk full or failing: every repository raises
    StorageUnavailable until `health` finds the file usable again (bot.storage.health).
    """

    def __init__(self, db: aiosqlite.Connection, name: str = "") -> None:
        self.connection = Connection(db)
        self.health = Health(name, self.connection.ping, is_unavailable)
        self.connection.lock.refuse = self.health.refuse_while_down
        guard = self.health.guard
        self.standings = guard(StandingQueries(self.connection))
        self.games = guard(GameQueries(self.connection, self.standings))
        self.takebacks = guard(TakebackQueries(self.connection, self.games))
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
    async def open(cls, path: str | Path, *, migrations: Path = MIGRATIONS_DIR) -> SqliteStorage:
        """Open (creating if needed) and migrate the database; StorageError (one line) if it
        cannot be used."""
        check_database_path(Path(path))
        db = await Connection.connect(path)
        try:
            storage = cls(db, str(path))
            await storage.connection.migrate(migrations)
        except StorageError as exc:
            await db.close()
            raise StorageError(f"database {path}: {exc}") from None
        except BaseException:
            await db.close()
            raise
        return storage

    async def close(self) -> None:
        await self.health.close()
        await self.connection.close()

    async def schema_version(self) -> int:
        return await self.connection.schema_version()


__all__ = ["MIGRATIONS_DIR", "SqliteStorage", "check_database_path", "migration_files"]
