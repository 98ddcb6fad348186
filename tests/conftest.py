"""Bot-process fixtures: the Discord double plus the real bot (`python -m bot`) talking to it."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from testkit.bot_process import TOKEN, BotHandle, StartBot
from testkit.postgres import PostgresServer, PostgresUnavailable
from testkit.postgres import required as postgres_required
from testkit.storage_backends import backend, storage  # noqa: F401 - fixtures: both storage backends


@pytest.fixture(scope="session", autouse=True)
def compiled_engine(pytestconfig: pytest.Config) -> None:
    """The compiled cores, built once into this host's cache before any test (engine.support.cores: one
    process at a time, so parallel test workers wait for one build). A bot started by a test
    then finds them built, as after `caro-bot --prepare`. A build's progress goes to the
    terminal: on a fresh cache the run is otherwise silent for minutes."""
    from engine.ai import warm_up

    warm_up(progress=terminal_line(pytestconfig))


def terminal_line(config: pytest.Config) -> Callable[[str], None]:
    """Write a line past pytest's capture: to its terminal, or from a test worker (xdist) to the
    stderr the worker was started with."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")

    def say(line: str) -> None:
        if reporter is None or capture is None or hasattr(config, "workerinput"):
            print(line, file=sys.__stderr__, flush=True)
            return
        with capture.global_and_fixture_disabled():
            reporter.write_line(line)
            reporter.flush()

    return say


@pytest.fixture(params=[True, False], ids=["fast-drawing", "plain-drawing"])
def fast_drawing(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Both ways of drawing (CARO_FAST_DRAWING, bot.ui.drawing): a test that uses this runs once
    with each, in this process and in the bot processes start_bot starts."""
    from bot.ui import drawing

    before = drawing.fast()
    drawing.use_fast(request.param)
    try:
        yield request.param
    finally:
        drawing.use_fast(before)


@pytest.fixture
async def start_bot(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[StartBot]:
    """`await start_bot(CARO_AI_TIME_LIMIT="3")`: a double and a ready bot process with that env
    (and the way of drawing of `fast_drawing`, if the test uses it)."""
    from testkit.discord_double import DiscordDouble

    handles: list[tuple[Any, BotHandle]] = []
    fast = request.getfixturevalue("fast_drawing") if "fast_drawing" in request.fixturenames else None

    async def start(**env: str) -> BotHandle:
        double = DiscordDouble(token=TOKEN)
        await double.start()
        handle = BotHandle(double, tmp_path / f"bot{len(handles)}", env, fast_drawing=fast)
        handle.workdir.mkdir()
        handles.append((double, handle))
        await handle.start()
        return handle

    yield start

    # Imported here: fault_helpers itself imports this module.
    from testkit.faults import shutdown

    for double, handle in handles:
        problems = await shutdown(double, handle)
        if problems:
            pytest.fail("; ".join(problems) + f"\n--- bot log ---\n{handle.log_text()}")


@pytest.fixture
async def running_bot(start_bot: StartBot) -> BotHandle:
    return await start_bot()



# ------------------------------------------------------------------ PostgreSQL


def _throwaway_postgres() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server (see testkit/postgres.py), stopped afterwards; skips the
    test when PostgreSQL is not installed, fails instead under CARO_REQUIRE_POSTGRES=1 (CI)."""
    try:
        server = PostgresServer.start()
    except PostgresUnavailable as exc:
        if postgres_required():
            pytest.fail(f"{exc} and CARO_REQUIRE_POSTGRES is set")
        pytest.skip(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL server for the whole run."""
    yield from _throwaway_postgres()


@pytest.fixture
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this test's own: the test may stop it under the storage or the
    bot, which the shared server of the other tests must never be."""
    yield from _throwaway_postgres()


_database_numbers = itertools.count(1)


@pytest.fixture
def postgres_dsn(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh empty database on the session's server for this test; dropped afterwards."""
    name = f"caro_test_{os.getpid()}_{next(_database_numbers)}"
    dsn = postgres_server.create_database(name)
    try:
        yield dsn
    finally:
        postgres_server.drop_database(name)
