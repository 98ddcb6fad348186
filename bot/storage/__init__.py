"""Storage behind one interface (`interface.Storage`); SQLite is the backend shipped today.

`open_database(url)` is what the program calls at start: it refuses, with a one-line
StorageError, a database it cannot use (missing folder, read-only place, a folder, a file that is
not SQLite, a database written by a newer version of caro).
"""

from __future__ import annotations

from pathlib import Path

from ..model import (
    ActiveGameExists,
    ChallengeRow,
    Finish,
    GameRow,
    GuildSettings,
    MoveRow,
    NewChallenge,
    NewGame,
    RatedRow,
    RatingChange,
    Record,
    Standing,
    UserStats,
)
from .interface import (
    GLOBAL_SCOPE,
    REDRAW_FINISHED_WITHIN,
    LiveCounts,
    MoveOutcome,
    Storage,
    StorageError,
)
from .sqlite import MIGRATIONS_DIR, SqliteStorage, migration_files

_SQLITE_PREFIXES = ("sqlite:///", "sqlite://")


async def open_database(url: str | Path) -> SqliteStorage:
    """The database at `url` (a file path, or sqlite:///path), opened and migrated; StorageError
    with a one-line reason if it cannot be used."""
    text = str(url)
    if "://" in text and not text.startswith(_SQLITE_PREFIXES):
        scheme = text.split("://", 1)[0]
        raise StorageError(f"database {scheme}://…: only SQLite files are supported")
    for prefix in _SQLITE_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    if not text:
        raise StorageError("database: no file named")
    return await SqliteStorage.open(Path(text))


def _implements_the_interface(storage: SqliteStorage) -> Storage:
    # mypy checks here that the SQLite backend has every method of the interface, with the same
    # signatures: a backend that drifts from the Protocol fails the type check.
    return storage


__all__ = [
    "ActiveGameExists",
    "ChallengeRow",
    "Finish",
    "GLOBAL_SCOPE",
    "GameRow",
    "GuildSettings",
    "LiveCounts",
    "MIGRATIONS_DIR",
    "MoveOutcome",
    "MoveRow",
    "NewChallenge",
    "NewGame",
    "REDRAW_FINISHED_WITHIN",
    "RatedRow",
    "RatingChange",
    "Record",
    "SqliteStorage",
    "Standing",
    "Storage",
    "StorageError",
    "UserStats",
    "migration_files",
    "open_database",
]
