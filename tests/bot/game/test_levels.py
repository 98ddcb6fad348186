"""The external engine level on the bot's side: CARO_ENGINE_* settings, and the AI worker's
think_external with caro's own `caro pbrain` as the brain, in-process and in a spawned worker
pool like the bot's, falling back to "impossible" when the brain fails."""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from bot.cpu import jobs
from bot.game import options, ratings
from bot.game.levels import NO_ENGINE, ExternalEngineSettings, ExternalLevel
from bot.game.model import External, GameRow, Mode, NewGame, Result, Status, parse_ai_level
from bot.game.services import build_services
from bot.i18n.texts import text_in
from bot.runtime.config import SettingsError, load_settings
from bot.storage import SqliteStorage
from engine import Board, Mark
from engine.ai import REASONS, choose_move
from engine.game.types import Level
from testkit.engines import caro_pbrain

DEAD = (sys.executable, "-c", "import sys; sys.exit(3)")
# Black has four in a row on row 8, open at H8: any engine worth the name wins there.
WIN_FOR_X = "15x15 k5 freestyle D8 C8 E8 A1 F8 A15 G8 O1"


@pytest.fixture(autouse=True)
def _fresh_engines() -> Iterator[None]:
    jobs._close_engines()
    yield
    jobs._close_engines()


# ----------------------------------------------------------------- settings
def test_engine_settings_from_the_environment() -> None:
    settings = load_settings(
        {
            "DISCORD_TOKEN": "t",
            "CARO_ENGINE_CMD": "'/opt/my engines/pbrain-x' --fast",
            "CARO_ENGINE_NAME": "Embryo",
            "CARO_ENGINE_RATING": "2450",
            "CARO_ENGINE_TIME_LIMIT": "2.5",
        },
        dotenv=False,
    )
    assert settings.engine == ExternalEngineSettings(
        command=("/opt/my engines/pbrain-x", "--fast"), name="Embryo", rating=2450.0, time_limit=2.5
    )


def test_engine_settings_defaults_and_absence() -> None:
    assert load_settings({"DISCORD_TOKEN": "t"}, dotenv=False).engine is None
    engine = load_settings({"DISCORD_TOKEN": "t", "CARO_ENGINE_CMD": "caro pbrain"}, dotenv=False)
    assert engine.engine == ExternalEngineSettings(("caro", "pbrain"))
    assert engine.engine.name == "external engine"
    assert (engine.engine.rating, engine.engine.time_limit) == (2200.0, 1.0)


@pytest.mark.parametrize(
    "setting",
    [
        {"CARO_ENGINE_CMD": "'unclosed"},
        {"CARO_ENGINE_CMD": "caro pbrain", "CARO_ENGINE_RATING": "strong"},
        {"CARO_ENGINE_CMD": "caro pbrain", "CARO_ENGINE_RATING": "-5"},
        {"CARO_ENGINE_CMD": "caro pbrain", "CARO_ENGINE_TIME_LIMIT": "0"},
        {"CARO_ENGINE_CMD": "caro pbrain", "CARO_ENGINE_TIME_LIMIT": "600"},
    ],
)
def test_bad_engine_settings_are_refused(setting: dict[str, str]) -> None:
    with pytest.raises(SettingsError) as info:
        load_settings({"DISCORD_TOKEN": "t", **setting}, dotenv=False)
    assert next(iter(k for k in setting if k != "CARO_ENGINE_CMD"), "CARO_ENGINE_CMD") in str(
        info.value
    )


# ----------------------------------------------------------------- the worker, in-process
def test_the_external_engine_makes_the_move() -> None:
    row, col, reason, used = jobs.think_external(WIN_FOR_X, "s", caro_pbrain(), 0.5, 0.5)
    assert used and (row, col) == (7, 7) and reason == "win"
    # The brain stays up between moves.
    board = Board(15, 15, 5)
    row, col, reason, used = jobs.think_external(board.text(), "s", caro_pbrain(), 0.3, 0.3)
    assert used and board[(row, col)] is None and reason in REASONS
    assert len(jobs._ENGINES) == 1


def test_a_dead_engine_falls_back_to_impossible(caplog: pytest.LogCaptureFixture) -> None:
    board = Board.from_text("15x15 k5 freestyle H8 H9 I8")
    with caplog.at_level(logging.WARNING, logger="bot.cpu.jobs"):
        row, col, reason, used = jobs.think_external(board.text(), "seed", DEAD, 0.3, 0.5)
    assert not used
    assert board[(row, col)] is None and reason in REASONS
    assert "external engine failed, impossible plays instead" in caplog.text
    assert "exited" in caplog.text


def test_the_fallback_plays_what_impossible_would(caplog: pytest.LogCaptureFixture) -> None:
    # A forced position, so that "impossible" has one right answer whatever its time limit.
    row, col, _, used = jobs.think_external(WIN_FOR_X, "seed", DEAD, 0.3, 0.5)
    assert not used
    expected = choose_move(Board.from_text(WIN_FOR_X), "impossible", time_limit=0.5)
    assert (row, col) == expected == (7, 7)


def test_boards_a_brain_cannot_play_go_to_impossible_without_asking() -> None:
    board = Board(7, 7, 4)
    row, col, reason, used = jobs.think_external(board.text(), "s", caro_pbrain(), 0.3, 0.3)
    assert not used and board[(row, col)] is None and reason in REASONS
    assert jobs._ENGINES == {}


# ----------------------------------------------------------------- in a spawned worker pool
def test_external_level_in_a_spawned_worker_pool_like_the_bots() -> None:
    pool = ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=jobs.init_worker,
        initargs=(os.getpid(),),
    )
    try:
        assert pool.submit(jobs.warm_up).result(timeout=120)
        # A long turn: the brain starts a Python process, slow on a loaded machine, and this
        # checks the pool's plumbing, not the engine's speed.
        row, col, reason, used = pool.submit(
            jobs.think_external, WIN_FOR_X, "s", caro_pbrain(), 5.0, 0.5
        ).result(timeout=60)
        assert used and (row, col) == (7, 7) and reason == "win"
        row, col, reason, used = pool.submit(
            jobs.think_external, WIN_FOR_X, "s", DEAD, 0.5, 0.5
        ).result(timeout=60)
        assert not used and (row, col) == (7, 7)
    finally:
        pool.shutdown(wait=True)


# ----------------------------------------------------------------- the level in the bot's model
EMBRYO = ExternalLevel(ExternalEngineSettings(command=("pbrain",), name="Embryo", rating=2300.0))


def test_the_external_seat_id_is_stored_as_external_and_parses_back() -> None:
    assert External.ENGINE.value == "external"
    assert parse_ai_level(" External ") is External.ENGINE
    assert parse_ai_level("hard") is Level.HARD
    with pytest.raises(ValueError, match="unknown AI level"):
        parse_ai_level("externals")


def _game_against(level: External) -> GameRow:
    return GameRow(
        id=1, guild_id=1, channel_id=2, message_id=3, mode=Mode.AI, x=7, o=level,
        started_by=7, rows=15, cols=15, k=5, rule="freestyle", status=Status.FINISHED,
        winner=None, end_reason=None, rated=True, ply=0, moves=(),
    )


def test_a_game_against_the_external_engine_is_rated_at_its_anchor() -> None:
    game = _game_against(External.ENGINE)
    (update,) = ratings.game_updates(game, Mark.O, {7: 1500.0}, EMBRYO)
    assert update.result is Result.LOSS
    assert update.after == ratings.updated(1500.0, 2300.0, "loss")
    # With the engine removed, the level that plays its games in its place sets the anchor.
    (update,) = ratings.game_updates(game, Mark.O, {7: 1500.0}, NO_ENGINE)
    assert update.after == ratings.updated(1500.0, ratings.AI_ANCHORS[Level.IMPOSSIBLE], "loss")


def test_the_external_level_is_offered_and_named_only_while_configured() -> None:
    def tr(key: str, **values: object) -> str:
        return text_in("en-US", key, **values)

    assert options.difficulties(EMBRYO)[-2:] == ("external", "adaptive")
    assert options.parse_options("external", "15x15", external=EMBRYO).level == "external"
    assert EMBRYO.label(tr, External.ENGINE) == "Embryo"
    assert EMBRYO.label(tr, Level.HARD) == "hard"
    assert options.difficulties(NO_ENGINE) == options.DIFFICULTIES
    with pytest.raises(options.UserError, match="Choose one of"):
        options.parse_options("external", "15x15", external=NO_ENGINE)
    with pytest.raises(options.UserError, match="Choose one of"):
        options.parse_options("external", "15x15")  # a caller that offers no engine
    assert NO_ENGINE.label(tr, External.ENGINE) == (
        "impossible (in place of the external engine, which is no longer set up)"
    )
    assert NO_ENGINE.label(tr, External.ENGINE, playing=False) == "external engine"
    assert NO_ENGINE.fallback is Level.IMPOSSIBLE


async def test_an_external_seat_survives_the_database(tmp_path: Path) -> None:
    storage = await SqliteStorage.open(tmp_path / "caro.db")
    try:
        row = await storage.games.create_game(
            NewGame(guild_id=1, channel_id=2, mode=Mode.AI, x=7, o=External.ENGINE,
                    started_by=7, rows=15, cols=15, k=5, rule="freestyle", rated=True)
        )
        again = await storage.games.game(row.id)
        assert again is not None and again.o is External.ENGINE and again.x == 7
        assert await storage.games.active_game(1, 2, 7) is not None  # only the member holds a seat
    finally:
        await storage.close()


class NoThinker:
    """The service's AI port for games that never reach the AI's turn."""

    async def think(self, *_: object) -> tuple[tuple[int, int], str]:
        raise AssertionError("the AI was asked to move")

    def quick_wait(self, level: object) -> float:
        return 0.0


async def test_the_service_seats_and_rates_the_external_engine_it_is_given(
    tmp_path: Path,
) -> None:
    storage = await SqliteStorage.open(tmp_path / "caro.db")
    try:
        service = build_services(storage, NoThinker(), external=EMBRYO).games
        start = options.parse_options("external", "15x15", external=EMBRYO)
        state = await service.start(
            guild_id=1, channel_id=2, player_id=7, options=start, rng=random.Random(1)
        )
        assert state.ai_level is External.ENGINE
        finished = await service.resign(state.id, 7)
        (change,) = [c for c in await service.rating_changes(finished.id) if c.scope == 1]
        assert change.after == ratings.updated(ratings.START_RATING, 2300.0, "loss")
        # A piskvork brain plays five in a row only: other boards are refused up front.
        small = options.parse_options("external", "3x3", external=EMBRYO)
        with pytest.raises(options.UserError) as refused:
            await service.start(
                guild_id=1, channel_id=3, player_id=7, options=small, rng=random.Random(1)
            )
        assert refused.value.key == "error.external_board"
        # A service without the engine (the operator removed it) refuses a rematch against it.
        gone = build_services(storage, NoThinker()).games
        with pytest.raises(options.UserError) as refused:
            await gone.start(
                guild_id=1, channel_id=4, player_id=7, options=start, rng=random.Random(1)
            )
        assert refused.value.key == "error.external_gone"
    finally:
        await storage.close()
