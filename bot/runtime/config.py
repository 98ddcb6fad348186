"""Settings read from the environment (and a .env file in the working directory).

Every message here is for the operator at the console, so it is English only and names the
setting at fault, what was expected (with both bounds of a range) and what was found.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import SplitResult, urlsplit

from dotenv import load_dotenv

from bot.game.levels import ExternalEngineSettings
from bot.runtime.logs import redact

_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
# Discord snowflakes are unsigned 64-bit integers.
MAX_SNOWFLAKE = 2**64 - 1
DEFAULT_API_BASE = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"
# The REST API version discord.py 2.7 speaks; a base for another version answers in shapes it
# does not parse.
API_PATH = "/api/v10"

NO_TOKEN = (
    "caro-bot needs a Discord bot token and found none. Get one from the Discord Developer "
    "Portal (https://discord.com/developers/applications -> Applications -> your app -> Bot "
    "-> Reset Token), then put it in a file named .env in the directory you start the bot "
    "from, as a line DISCORD_TOKEN=your-token (see .env.example), or set the DISCORD_TOKEN "
    "environment variable."
)


class SettingsError(ValueError):
    """A setting is missing or malformed; the message tells the operator how to fix it."""


class MissingTokenError(SettingsError):
    pass


# Every CARO_ setting the bot reads, and those the test kit and CI read from the same
# environment: any other CARO_ name is a mistake the operator is warned of.
SETTINGS = (
    "CARO_AI_TIME_LIMIT", "CARO_AI_WORKERS", "CARO_CHALLENGE_SECONDS", "CARO_CLUSTER",
    "CARO_DATABASE_URL", "CARO_DB", "CARO_ENGINE_CMD", "CARO_ENGINE_NAME", "CARO_ENGINE_RATING",
    "CARO_ENGINE_TIME_LIMIT", "CARO_FAST_DRAWING", "CARO_FAST_SPLICE", "CARO_LOG_LEVEL",
    "CARO_LOOP_LAG_LOG", "CARO_MIN_TIMEOUT_SECONDS", "CARO_QUICK_REPLY_SECONDS",
    "CARO_SHARD_COUNT", "CARO_SHARD_IDS", "CARO_WATCH_DELAY_SECONDS",
)
TEST_SETTINGS = ("CARO_PG_BINDIR", "CARO_REQUIRE_BROWSER", "CARO_REQUIRE_POSTGRES")
SETTING_PREFIX = "CARO_"


def unknown_settings(environ: Mapping[str, str]) -> list[str]:
    """A warning for each CARO_ name in `environ` that no part of caro reads (a typo is
    otherwise silently ignored), naming the closest setting there is."""
    known = (*SETTINGS, *TEST_SETTINGS)
    warnings = []
    for name in sorted(environ):
        if not name.startswith(SETTING_PREFIX) or name in known:
            continue
        # Compared without the prefix every name shares, which would make any two look alike.
        tails = [known_name.removeprefix(SETTING_PREFIX) for known_name in SETTINGS]
        close = difflib.get_close_matches(name.removeprefix(SETTING_PREFIX), tails, n=1)
        hint = (
            f"did you mean {SETTING_PREFIX}{close[0]}?"
            if close
            else f"the settings are {', '.join(SETTINGS)}"
        )
        warnings.append(f"Setting {name} is not one caro reads and is ignored: {hint}")
    return warnings


def bad_setting(name: str, problem: str) -> SettingsError:
    return SettingsError(f"Setting {name} is invalid: {problem}")


# Seconds a click against a quick AI level waits for its answer (CARO_QUICK_REPLY_SECONDS): about
# what an easy search and the pool's round trip take, well under the 100 ms a click is answered in.
DEFAULT_QUICK_REPLY = 0.06
DEFAULT_AI_WORKERS = 2
MAX_AI_WORKERS = 64


@dataclass(frozen=True)
class Settings:
    token: str = field(repr=False)  # never shown: repr() of settings may end up in logs
    # The database: a file path or sqlite:///path (one process), or postgresql://… (any number
    # of processes); CARO_DATABASE_URL, else CARO_DB, else caro.db. Never logged as is: it may
    # hold a password (see secrets).
    db_path: str = field(default="caro.db", repr=False)
    guild_id: int | None = None
    api_base: str | None = None
    gateway_url: str | None = None
    log_level: int = logging.INFO
    # Seconds one AI move may take; None keeps the engine's per-level default (under a second).
    ai_time_limit: float | None = None
    # CARO_QUICK_REPLY_SECONDS: how long a click against a quick AI level (see
    # bot.ai.turn.QUICK_AI_LIMIT) waits for the AI's answer, to show both moves in one update.
    quick_reply: float = DEFAULT_QUICK_REPLY
    # CARO_LOOP_LAG_LOG: seconds between event-loop lag reports at INFO; None: DEBUG per minute.
    loop_lag_log: float | None = None
    # CARO_MIN_TIMEOUT_SECONDS: the shortest turn time limit /caro settings accepts. Operators
    # keep the default; tests lower it to watch a game time out within seconds.
    min_timeout: float = 60.0
    # CARO_CHALLENGE_SECONDS: how long a challenge waits for an answer.
    challenge_seconds: float = 300.0
    # CARO_WATCH_DELAY_SECONDS: the pause between moves of an AI-vs-AI game, so people can follow.
    watch_delay: float = 1.5
    # `caro-bot --sync`: register the slash commands with Discord on this start even if their
    # schema did not change (after they were deleted by hand, or to repair a failed sync).
    force_sync: bool = False
    # CARO_SHARD_COUNT: how many shards the whole bot runs (None: the count Discord recommends,
    # all in this process). CARO_SHARD_IDS: the shards this process (one cluster) runs, None for
    # all of them. A guild belongs to shard (guild_id >> 22) % shard_count.
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    # CARO_CLUSTER: the name this process carries in every log line (default: its shards).
    cluster: str = "main"
    # CARO_AI_WORKERS: processes that run AI searches side by side (besides the quick levels'
    # own). Each holds the compiled core once it is built; one suits a host of 1 GiB.
    ai_workers: int = DEFAULT_AI_WORKERS
    # CARO_FAST_DRAWING: boards sent as ready-made component payloads and interaction responses
    # read lazily (bot.ui.drawing, bot.runtime.patches); off, plain discord.py does both.
    fast_drawing: bool = True

    @property
    def syncs_commands(self) -> bool:
        """Whether this process registers the slash commands: only the cluster holding shard 0,
        so that N clusters starting together make one sync, not N racing ones."""
        return self.shard_ids is None or 0 in self.shard_ids

    @property
    def secrets(self) -> tuple[str, ...]:
        """What the log must never show: the token, and a password in the database URL."""
        password = urlsplit(self.db_path).password if "://" in self.db_path else None
        return (self.token, password) if password else (self.token,)

    @property
    def effective_api_base(self) -> str:
        return self.api_base or DEFAULT_API_BASE

    @property
    def effective_gateway_url(self) -> str:
        return self.gateway_url or DEFAULT_GATEWAY_URL
    # CARO_ENGINE_CMD and friends; None: no external engine level.
    engine: ExternalEngineSettings | None = None


def parse_guild_id(raw: str) -> int:
    """A server id as Discord writes it: ASCII digits, 1 to 2**64 - 1."""
    # str.isdigit() also accepts superscript and full-width digits, which int() then either
    # rejects with a traceback or silently reads as another number.
    if not (raw.isascii() and raw.isdigit()):
        # redact(): a bot token pasted into the wrong setting must not be echoed back.
        problem = (
            "expected a server id (a whole number written with the digits 0-9), "
            f"got {redact(raw)!r}"
        )
        raise bad_setting("DISCORD_GUILD_ID", problem)
    value = int(raw)
    if not 1 <= value <= MAX_SNOWFLAKE:
        problem = f"expected a server id from 1 to {MAX_SNOWFLAKE}, got {raw}"
        raise bad_setting("DISCORD_GUILD_ID", problem)
    return value


def parse_api_base(raw: str) -> str:
    """An http(s) URL whose path ends in /api/v10, without the trailing slash."""
    base = raw.rstrip("/")
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        problem = f"expected an http(s) URL such as {DEFAULT_API_BASE}, got {raw!r}"
        raise bad_setting("DISCORD_API_BASE", problem)
    if _bad_port(parts):
        raise bad_setting("DISCORD_API_BASE", f"the port in {raw!r} is not a number from 1 to 65535")
    if not parts.path.endswith(API_PATH) or parts.query or parts.fragment:
        problem = f"expected a URL ending in {API_PATH} (like {DEFAULT_API_BASE}), got {raw!r}"
        raise bad_setting("DISCORD_API_BASE", problem)
    return base


def parse_gateway_url(raw: str) -> str:
    """A ws(s) URL with a host."""
    parts = urlsplit(raw)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        problem = f"expected a ws:// or wss:// URL such as {DEFAULT_GATEWAY_URL}, got {raw!r}"
        raise bad_setting("DISCORD_GATEWAY_URL", problem)
    if _bad_port(parts):
        raise bad_setting(
            "DISCORD_GATEWAY_URL", f"the port in {raw!r} is not a number from 1 to 65535"
        )
    return raw


def parse_ai_workers(raw: str) -> int:
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_AI_WORKERS:
        problem = f"expected a whole number of worker processes from 1 to {MAX_AI_WORKERS}, got {raw!r}"
        raise bad_setting("CARO_AI_WORKERS", problem)
    return int(raw)


# Discord's largest bots run a few thousand shards; a count beyond this is a typo.
MAX_SHARDS = 65536
_CLUSTER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")


def parse_shard_count(raw: str) -> int:
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_SHARDS:
        problem = f"expected a whole number of shards from 1 to {MAX_SHARDS}, got {raw!r}"
        raise bad_setting("CARO_SHARD_COUNT", problem)
    return int(raw)


def parse_shard_ids(raw: str, shard_count: int | None) -> tuple[int, ...]:
    """`0-3`, `0,2` or `0-1,4`: the shards of one cluster, each below the shard count, sorted."""
    if shard_count is None:
        raise bad_setting(
            "CARO_SHARD_IDS", "it needs CARO_SHARD_COUNT too (the number of shards of all clusters)"
        )
    form = f"expected shard ids such as 0-3 or 0,2 (each from 0 to {shard_count - 1}), got {raw!r}"
    ids: set[int] = set()
    for part in raw.split(","):
        low, dash, high = part.strip().partition("-")
        bounds = (low.strip(), high.strip() if dash else low.strip())
        if not all(b.isascii() and b.isdigit() for b in bounds):
            raise bad_setting("CARO_SHARD_IDS", form)
        first, last = int(bounds[0]), int(bounds[1])
        if first > last or last >= shard_count:
            raise bad_setting("CARO_SHARD_IDS", form)
        span = set(range(first, last + 1))
        if span & ids:
            raise bad_setting("CARO_SHARD_IDS", f"a shard is named twice in {raw!r}")
        ids |= span
    return tuple(sorted(ids))


_SWITCH = {"1": True, "true": True, "yes": True, "on": True,
           "0": False, "false": False, "no": False, "off": False}


def parse_switch(name: str, raw: str) -> bool:
    """On (1, true, yes, on) or off (0, false, no, off), in any case."""
    value = _SWITCH.get(raw.lower())
    if value is None:
        raise bad_setting(name, f"expected 1, true, yes or on, or 0, false, no or off, got {raw!r}")
    return value


def shard_span(ids: tuple[int, ...]) -> str:
    """0,1,2,5 -> "0-2,5": how a cluster's shards are shown."""
    parts: list[str] = []
    start = prev = ids[0]
    for shard in (*ids[1:], None):
        if shard is not None and shard == prev + 1:
            prev = shard
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if shard is not None:
            start = prev = shard
    return ",".join(parts)


def parse_cluster_name(raw: str) -> str:
    if not _CLUSTER_NAME.fullmatch(raw):
        problem = (
            "expected a name of 1 to 32 letters, digits, '.', '_' or '-' (starting with a "
            f"letter or digit), got {redact(raw)!r}"
        )
        raise bad_setting("CARO_CLUSTER", problem)
    return raw


DATABASE_SCHEMES = ("sqlite", "postgresql", "postgres")


def parse_database_url(raw: str) -> str:
    """sqlite:///path or postgresql://… (checked for its form here; whether the server answers
    is checked before the bot connects to Discord, see preflight)."""
    scheme, _, rest = raw.partition("://")
    shown = raw
    try:
        password = urlsplit(raw).password
    except ValueError:
        password = None
    if password:
        shown = raw.replace(password, "***")
    if scheme.lower() not in DATABASE_SCHEMES or not rest:
        problem = ("expected sqlite:///path/to/caro.db or postgresql://user@host/database, "
                   f"got {shown!r}")
        raise bad_setting("CARO_DATABASE_URL", problem)
    if scheme.lower() == "sqlite" and not rest.lstrip("/"):
        raise bad_setting("CARO_DATABASE_URL", f"no file named in {shown!r}")
    if scheme.lower() != "sqlite" and _bad_port(urlsplit(raw)):
        raise bad_setting("CARO_DATABASE_URL",
                          f"the port in {shown!r} is not a number from 1 to 65535")
    return raw


def _bad_port(parts: SplitResult) -> bool:
    try:
        port = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError:
        return True
    return port == 0


def load_settings(
    environ: Mapping[str, str] | None = None, *, dotenv: bool = True, force_sync: bool = False
) -> Settings:
    """Settings from `environ` (default os.environ, after loading ./.env without overriding)."""
    if environ is None:
        if dotenv:
            load_dotenv(os.path.join(os.getcwd(), ".env"), override=False)
        environ = os.environ

    def get(name: str) -> str:
        return environ.get(name, "").strip()

    token = get("DISCORD_TOKEN")
    if not token:
        raise MissingTokenError(NO_TOKEN)

    guild_id = parse_guild_id(get("DISCORD_GUILD_ID")) if get("DISCORD_GUILD_ID") else None
    api_base = parse_api_base(get("DISCORD_API_BASE")) if get("DISCORD_API_BASE") else None
    gateway = parse_gateway_url(get("DISCORD_GATEWAY_URL")) if get("DISCORD_GATEWAY_URL") else None

    level_name = (get("CARO_LOG_LEVEL") or "INFO").upper()
    if level_name not in _LOG_LEVELS:
        problem = f"expected DEBUG, INFO, WARNING or ERROR, got {level_name!r}"
        raise bad_setting("CARO_LOG_LEVEL", problem)

    def optional_seconds(name: str, below: float) -> float | None:
        """Seconds from 0 (excluded) to `below` (excluded); None when the setting is absent."""
        raw = get(name)
        if not raw:
            return None
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not 0 < value < below:  # also false for nan
            problem = f"expected a number of seconds above 0 and below {below:g}, got {raw!r}"
            raise bad_setting(name, problem)
        return value

    def seconds(name: str, default: float) -> float:
        value = optional_seconds(name, 86400)
        return default if value is None else value

    shard_count = parse_shard_count(get("CARO_SHARD_COUNT")) if get("CARO_SHARD_COUNT") else None
    shard_ids = parse_shard_ids(get("CARO_SHARD_IDS"), shard_count) if get("CARO_SHARD_IDS") else None
    if get("CARO_CLUSTER"):
        cluster = parse_cluster_name(get("CARO_CLUSTER"))
    else:
        cluster = f"shards-{shard_span(shard_ids)}" if shard_ids is not None else "main"

    engine: ExternalEngineSettings | None = None
    if get("CARO_ENGINE_CMD"):
        from engine.players.external import parse_command

        try:
            command = tuple(parse_command(get("CARO_ENGINE_CMD")))
        except ValueError as error:
            raise bad_setting("CARO_ENGINE_CMD", str(error)) from None
        rating_raw = get("CARO_ENGINE_RATING") or "2200"
        try:
            rating = float(rating_raw)
        except ValueError:
            rating = -1.0
        if not 0 < rating < 4000:
            problem = f"expected a rating above 0 and below 4000, got {rating_raw!r}"
            raise bad_setting("CARO_ENGINE_RATING", problem)
        engine = ExternalEngineSettings(
            command=command,
            name=get("CARO_ENGINE_NAME")[:50] or "external engine",
            rating=rating,
            time_limit=optional_seconds("CARO_ENGINE_TIME_LIMIT", 60) or 1.0,
        )

    return Settings(
        token=token,
        db_path=(parse_database_url(get("CARO_DATABASE_URL")) if get("CARO_DATABASE_URL")
                 else get("CARO_DB") or "caro.db"),
        guild_id=guild_id,
        api_base=api_base,
        gateway_url=gateway,
        log_level=getattr(logging, level_name),
        ai_time_limit=optional_seconds("CARO_AI_TIME_LIMIT", 3600),
        # Under Discord's 3 s for the first response, with room for the response itself.
        quick_reply=optional_seconds("CARO_QUICK_REPLY_SECONDS", 2.5) or DEFAULT_QUICK_REPLY,
        loop_lag_log=optional_seconds("CARO_LOOP_LAG_LOG", 86400),
        min_timeout=seconds("CARO_MIN_TIMEOUT_SECONDS", 60.0),
        challenge_seconds=seconds("CARO_CHALLENGE_SECONDS", 300.0),
        watch_delay=seconds("CARO_WATCH_DELAY_SECONDS", 1.5),
        force_sync=force_sync,
        shard_count=shard_count,
        shard_ids=shard_ids,
        cluster=cluster,
        ai_workers=parse_ai_workers(get("CARO_AI_WORKERS")) if get("CARO_AI_WORKERS") else DEFAULT_AI_WORKERS,
        engine=engine,
        fast_drawing=parse_switch("CARO_FAST_DRAWING", get("CARO_FAST_DRAWING") or "1"),
    )
