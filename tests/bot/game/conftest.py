"""The game services on a real database with a fake clock, as the service tests use them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.game.games import Limits
from bot.game.model import GuildSettings
from bot.game.services import build_services
from bot.storage import SqliteStorage as Storage
from testkit.storage_backends import Backend
from testkit.thinkers import Thinker
from testkit.worlds import Clock


@pytest.fixture
async def sqlite_world(tmp_path: Path):
    """The services on one SQLite database, challenges expiring after 30 seconds: (services,
    clock)."""
    storage = await Storage.open(tmp_path / "caro.db")
    clock = Clock()
    service = build_services(
        storage,
        Thinker(),
        clock=clock,
        default_timeouts=GuildSettings(pvp_timeout=60.0, ai_timeout=120.0),
        challenge_seconds=30.0,
    )
    yield service, clock
    await storage.close()


@pytest.fixture
async def world(backend: Backend):
    """The services on each storage backend in turn."""
    storage = await backend.open()
    clock = Clock()
    service = build_services(
        storage, Thinker(), clock=clock,
        default_timeouts=GuildSettings(pvp_timeout=60.0, ai_timeout=120.0),
        limits=Limits(ai_games_per_member=2, ai_games_per_server=3, watches_per_server=2,
                      challenges_per_challenger=2, challenges_per_challenged=3),
    )
    return service, clock  # the backend fixture closes the storage
