"""Settings read from the environment (and a .env file in the working directory)."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from dotenv import load_dotenv

from .console import console_text

_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


class SettingsError(ValueError):
    """A setting is missing or malformed; the message tells the operator how to fix it."""


class MissingTokenError(SettingsError):
    pass


@dataclass(frozen=True)
class ExternalEngineSettings:
    """CARO_ENGINE_*: an operator's piskvork-protocol brain, offered as an extra AI level."""

    command: tuple[str, ...]  # CARO_ENGINE_CMD, split like a shell would (no shell is run)
    name: str = "external engine"  # CARO_ENGINE_NAME: what players see
    rating: float = 2200.0  # CARO_ENGINE_RATING: its fixed anchor on the rating scale
    time_limit: float = 1.0  # CARO_ENGINE_TIME_LIMIT: seconds per move


@dataclass(frozen=True)
class Settings:
    token: str = field(repr=False)  # never shown: repr() of settings may end up in logs
    db_path: str = "caro.db"
    guild_id: int | None = None
    api_base: str | None = None
    gateway_url: str | None = None
    log_level: int = logging.INFO
    # Seconds one AI move may take; None keeps the engine's per-level default (under a second).
    ai_time_limit: float | None = None
    # CARO_LOOP_LAG_LOG: seconds between event-loop lag reports at INFO; None: DEBUG per minute.
    loop_lag_log: float | None = None
    # CARO_MIN_TIMEOUT_SECONDS: the shortest turn time limit /caro settings accepts. Operators
    # keep the default; tests lower it to watch a game time out within seconds.
    min_timeout: float = 60.0
    # CARO_CHALLENGE_SECONDS: how long a challenge waits for an answer.
    challenge_seconds: float = 300.0
    # CARO_WATCH_DELAY_SECONDS: the pause between moves of an AI-vs-AI game, so people can follow.
    watch_delay: float = 1.5
    # CARO_ENGINE_CMD and friends; None: no external engine level.
    engine: ExternalEngineSettings | None = None


def load_settings(environ: Mapping[str, str] | None = None, *, dotenv: bool = True) -> Settings:
    """Settings from `environ` (default os.environ, after loading ./.env without overriding)."""
    if environ is None:
        if dotenv:
            load_dotenv(os.path.join(os.getcwd(), ".env"), override=False)
        environ = os.environ

    def get(name: str) -> str:
        return environ.get(name, "").strip()

    token = get("DISCORD_TOKEN")
    if not token:
        raise MissingTokenError(console_text("no_token"))

    guild_id: int | None = None
    if get("DISCORD_GUILD_ID"):
        raw = get("DISCORD_GUILD_ID")
        if not raw.isdigit():
            problem = console_text("not_a_number", value=raw)
            raise SettingsError(console_text("bad_setting", name="DISCORD_GUILD_ID", problem=problem))
        guild_id = int(raw)

    level_name = (get("CARO_LOG_LEVEL") or "INFO").upper()
    if level_name not in _LOG_LEVELS:
        problem = console_text("bad_log_level", value=level_name)
        raise SettingsError(console_text("bad_setting", name="CARO_LOG_LEVEL", problem=problem))

    def optional_seconds(name: str, below: float) -> float | None:
        """Seconds from 0 (excluded) to `below`; None when the setting is absent."""
        raw = get(name)
        if not raw:
            return None
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not 0 < value < below:
            problem = console_text("not_positive", value=raw)
            raise SettingsError(console_text("bad_setting", name=name, problem=problem))
        return value

    def seconds(name: str, default: float) -> float:
        value = optional_seconds(name, 86400)
        return default if value is None else value

    engine: ExternalEngineSettings | None = None
    if get("CARO_ENGINE_CMD"):
        from engine.external import parse_command

        try:
            command = tuple(parse_command(get("CARO_ENGINE_CMD")))
        except ValueError as error:
            raise SettingsError(
                console_text("bad_setting", name="CARO_ENGINE_CMD", problem=str(error))
            ) from None
        rating_raw = get("CARO_ENGINE_RATING") or "2200"
        try:
            rating = float(rating_raw)
        except ValueError:
            rating = -1.0
        if not 0 < rating < 4000:
            problem = f"expected a rating above 0 and below 4000, got {rating_raw!r}"
            raise SettingsError(
                console_text("bad_setting", name="CARO_ENGINE_RATING", problem=problem)
            )
        engine = ExternalEngineSettings(
            command=command,
            name=get("CARO_ENGINE_NAME")[:50] or "external engine",
            rating=rating,
            time_limit=optional_seconds("CARO_ENGINE_TIME_LIMIT", 60) or 1.0,
        )

    return Settings(
        token=token,
        db_path=get("CARO_DB") or "caro.db",
        guild_id=guild_id,
        api_base=get("DISCORD_API_BASE").rstrip("/") or None,
        gateway_url=get("DISCORD_GATEWAY_URL") or None,
        log_level=getattr(logging, level_name),
        ai_time_limit=optional_seconds("CARO_AI_TIME_LIMIT", 3600),
        loop_lag_log=optional_seconds("CARO_LOOP_LAG_LOG", 86400),
        min_timeout=seconds("CARO_MIN_TIMEOUT_SECONDS", 60.0),
        challenge_seconds=seconds("CARO_CHALLENGE_SECONDS", 300.0),
        watch_delay=seconds("CARO_WATCH_DELAY_SECONDS", 1.5),
        engine=engine,
    )
