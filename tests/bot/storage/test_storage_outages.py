"""The storage when its database goes away (bot/storage/health.py): a file locked by another
program, a full disk, a stopped PostgreSQL server. Each raises the one StorageUnavailable,
writes nothing, is logged once when lost and once when back, and every call while it is away
fails at once; a broken rule is never taken for it."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from pathlib import Path

import pytest

from bot.game.model import ActiveGameExists, Mode, NewGame
from bot.game.ports import StorageUnavailable
from bot.storage import PostgresStorage, SqliteStorage
from engine.game.types import Level
from testkit.postgres import PostgresServer

GUILD, CHANNEL, ALICE = 1 << 22, 100, 11


def new_game(player: int = ALICE) -> NewGame:
    return NewGame(guild_id=GUILD, channel_id=CHANNEL, mode=Mode.AI, x=player, o=Level("normal"),
                   started_by=player, rows=3, cols=3, k=3, rule="freestyle", rated=True)


def storage_lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "caro.storage" and r.levelno == level]


async def until_back(store: SqliteStorage | PostgresStorage, timeout: float = 10) -> float:
    """Seconds until the storage found its database again."""
    started = time.monotonic()
    while store.health.down:
        assert time.monotonic() - started < timeout, "the database never came back"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


async def test_a_file_locked_by_another_program_is_lost_once_refused_at_once_and_found_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, "caro.storage")
    store = await SqliteStorage.open(tmp_path / "caro.db")
    other = sqlite3.connect(tmp_path / "caro.db", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    started = time.monotonic()
    with pytest.raises(StorageUnavailable, match="database is locked"):
        await store.games.create_game(new_game())
    # The first write waits out the busy timeout, short of Discord's 3 s; the calls after it
    # (reads too) are refused at once, without queueing on the locked file.
    assert time.monotonic() - started < 2.5
    for _ in range(20):
        started = time.monotonic()
        with pytest.raises(StorageUnavailable):
            await store.games.game(1)
        assert time.monotonic() - started < 0.1
    other.execute("ROLLBACK")
    other.close()
    assert await until_back(store) < 3
    game = await store.games.create_game(new_game())
    assert game.id == 1  # the refused write left nothing behind
    assert len(storage_lines(caplog, logging.WARNING)) == 1
    back = storage_lines(caplog, logging.INFO)
    assert len(back) == 1 and "reachable again after" in back[0]
    await store.close()


async def test_a_full_disk_refuses_the_write_whole_and_the_next_one_is_stored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A full disk, without filling one: the file may not grow by a page (SQLite answers
    # SQLITE_FULL, "database or disk is full", as it does when the disk is full).
    store = await SqliteStorage.open(tmp_path / "caro.db")
    db = store.connection.db
    pages = (await db.execute_fetchall("PRAGMA page_count"))[0][0]
    await db.execute(f"PRAGMA max_page_count = {int(pages):d}")
    with pytest.raises(StorageUnavailable, match="full"):
        await store.meta.set_meta("big", "x" * 100_000)
    assert not db.in_transaction
    await db.execute("PRAGMA max_page_count = 1073741823")
    await until_back(store)
    assert await store.meta.get_meta("big") is None  # nothing of it was written
    await store.meta.set_meta("big", "x" * 100_000)
    assert await store.meta.get_meta("big") == "x" * 100_000
    assert len(storage_lines(caplog, logging.WARNING)) == 1
    await store.close()


async def test_a_broken_rule_is_its_own_error_and_the_database_stays_reachable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = await SqliteStorage.open(tmp_path / "caro.db")
    await store.games.create_game(new_game())
    with pytest.raises(ActiveGameExists):
        await store.games.create_game(new_game())
    assert not store.health.down
    assert storage_lines(caplog, logging.WARNING) == []
    await store.close()


async def test_a_stopped_postgresql_server_is_refused_at_once_and_found_again_when_started(
    own_postgres: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "caro.storage")
    store = await PostgresStorage.open(own_postgres.create_database("caro_lost"))
    game = await store.games.create_game(new_game())
    await asyncio.to_thread(own_postgres.halt)
    for _ in range(10):
        started = time.monotonic()
        with pytest.raises(StorageUnavailable):
            await store.games.game(game.id)
        assert time.monotonic() - started < 0.5
    await asyncio.to_thread(own_postgres.resume)
    assert await until_back(store) < 3
    found = await store.games.game(game.id)
    assert found is not None and found.id == game.id
    assert len(storage_lines(caplog, logging.WARNING)) == 1
    assert len(storage_lines(caplog, logging.INFO)) == 1
    await store.close()
