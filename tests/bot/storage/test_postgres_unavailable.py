"""Which asyncpg failures count as the database being away (bot.storage.postgres.connection):
found by bench.soak, where a PostgreSQL restart cut a pooled connection between two statements
and the next click's statement failed with asyncpg's InternalClientError "cannot switch to state
12; another operation (2) is in progress". It escaped the storage guard as a traceback and the
click went unanswered; it is now a StorageUnavailable, answered with "try again in a moment"."""

from __future__ import annotations

import asyncpg

from bot.game.ports import StorageUnavailable
from bot.storage.health import Health
from bot.storage.postgres.connection import is_unavailable

CUT = "cannot switch to state 12; another operation (2) is in progress"


async def never() -> None:
    raise AssertionError("not probed in this test")


def test_a_connection_cut_between_two_statements_is_the_database_away() -> None:
    assert is_unavailable(asyncpg.InternalClientError(CUT))
    assert is_unavailable(asyncpg.AdminShutdownError("terminating connection"))
    assert is_unavailable(asyncpg.InterfaceError("connection is closed"))


def test_other_client_errors_and_broken_rules_pass_through() -> None:
    assert not is_unavailable(asyncpg.InternalClientError("unexpected message"))
    assert not is_unavailable(asyncpg.UniqueViolationError("duplicate key"))
    assert not is_unavailable(ValueError("a bug"))


async def test_the_guard_answers_the_cut_connection_as_storage_unavailable() -> None:
    health = Health("test", never, is_unavailable, retry_every=3600)

    class Repository:
        async def add_move(self) -> None:
            raise asyncpg.InternalClientError(CUT)

    repository = health.guard(Repository())
    try:
        await repository.add_move()
    except StorageUnavailable as exc:
        assert "InternalClientError" in str(exc)
    else:
        raise AssertionError("not refused")
    assert health.down
    await health.close()
