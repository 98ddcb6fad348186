"""The bot's log: one format for every logger, secrets redacted, lost connections in one line.

Interaction tokens are credentials for 15 minutes (anyone holding one can answer or edit as the
bot), and discord.py writes them verbatim at DEBUG: whole gateway events (`'token': '...'`) and
REST URLs (`/interactions/<id>/<token>/callback`, `/webhooks/<app>/<token>/...`). The bot token
can end up in a log the same ways. Redaction runs on the finished line, tracebacks included,
so no logger, format string or exception message can slip past it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import re
from collections.abc import Iterable

import aiohttp
import discord

REDACTED = "[redacted]"

# The shard whose work is running now: set where an interaction arrives (from its guild) and by
# the per-shard background loops; asyncio tasks copy it when they are created, so everything an
# interaction or a shard's loop starts carries it into its log lines. None: no shard's work.
current_shard: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "caro_shard", default=None
)
LINE_FORMAT = "%(asctime)s %(levelname)-8s [%(cluster)s shard %(shard)s] %(name)s: %(message)s"

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # A "token" field of a payload, as a Python repr or as JSON.
    (re.compile(r"""(["']token["']\s*:\s*["'])[^"']*"""), r"\1" + REDACTED),
    # The token part of interaction and webhook URLs.
    (re.compile(r"(/(?:interactions|webhooks)/\d+/)[^/\s\"'?#]+"), r"\1" + REDACTED),
    # Interaction tokens start with base64("interaction:") wherever they appear.
    (re.compile(r"aW50ZXJhY3Rpb24[A-Za-z0-9_\-.=]*"), REDACTED),
    # Anything shaped like a bot token: base64 user id . timestamp . HMAC.
    (re.compile(r"[MNO][A-Za-z\d_-]{23,27}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,}"), REDACTED),
    (re.compile(r"(\bBot\s+)[A-Za-z\d_.\-]{20,}"), r"\1" + REDACTED),
)

# Errors that mean "Discord (or the network) is away for now"; discord.py retries them itself.
_NETWORK_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    aiohttp.ClientError,
    asyncio.TimeoutError,
    discord.ConnectionClosed,
    discord.GatewayNotFound,
    discord.DiscordServerError,
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFormatter(logging.Formatter):
    """Formats with `inner` (discord.py's colour formatter on a terminal), then redacts."""

    def __init__(self, inner: logging.Formatter, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.inner = inner
        self.secrets = tuple(s for s in secrets if s)

    def format(self, record: logging.LogRecord) -> str:
        return redact(self.inner.format(record), self.secrets)


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ConnectionTrouble(logging.Filter):
    """A reconnect attempt is one warning naming the cause, not an error with a traceback: the
    bot is fine and discord.py retries by itself. asyncpg's pool, reconnecting its idle
    connection while the PostgreSQL server is away, is not logged at all: the storage says
    once that the database is lost and once that it is back (bot.storage.health)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "asyncpg.pool" and record.exc_info:
            return False
        if record.name.startswith("discord.") and record.exc_info:
            exc = record.exc_info[1]
            if isinstance(exc, _NETWORK_ERRORS):
                record.msg = f"{record.getMessage()} ({one_line(exc)})"
                record.args = ()
                record.exc_info = None
                record.exc_text = None
                if record.levelno > logging.WARNING:
                    record.levelno = logging.WARNING
                    record.levelname = logging.getLevelName(logging.WARNING)
        return True


class ClusterTag(logging.Filter):
    """Gives every record the cluster (this process) and the shard it was logged for ("-" when
    no shard's work was running), so that the lines of N clusters can be told apart once they
    are collected in one place."""

    def __init__(self, cluster: str) -> None:
        super().__init__()
        self.cluster = cluster

    def filter(self, record: logging.LogRecord) -> bool:
        record.cluster = self.cluster
        shard = current_shard.get()
        record.shard = "-" if shard is None else str(shard)
        return True


def setup_logging(level: int, secrets: Iterable[str] = (), cluster: str = "main") -> None:
    """Root logging to stderr at `level`, every line tagged with cluster and shard, redacted."""
    # Plain lines, on a terminal too: discord.py's coloured format has no place for the cluster
    # and shard, and colours inside containers litter log files with escape codes.
    plain = logging.Formatter(LINE_FORMAT)
    discord.utils.setup_logging(level=level, formatter=plain, root=True)
    secrets = tuple(secrets)
    for handler in logging.getLogger().handlers:
        inner = handler.formatter or logging.Formatter()
        handler.setFormatter(RedactingFormatter(inner, secrets))
        handler.addFilter(ClusterTag(cluster))
        handler.addFilter(ConnectionTrouble())
    # caro plays no audio; the missing-voice-library warnings are noise.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
