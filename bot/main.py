"""`caro-bot` / `python -m bot`: read settings, run the bot until SIGTERM/SIGINT, exit cleanly.

Exit status: 0 after a clean stop, 1 if Discord refuses the token (or the bot cannot run),
2 if the settings are missing or malformed.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import discord
import yarl

from .client import CaroBot
from .config import Settings, SettingsError, load_settings
from .console import console_text

log = logging.getLogger("caro.bot")


def setup_logging(level: int) -> None:
    # Plain lines when the output is a file or a pipe: discord.py would colour them inside
    # containers, which litters log files with escape codes.
    if sys.stderr.isatty():
        discord.utils.setup_logging(level=level, root=True)
    else:
        plain = logging.Formatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s")
        discord.utils.setup_logging(level=level, formatter=plain, root=True)
    # caro plays no audio; the missing-voice-library warnings are noise.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False


def apply_endpoint_overrides(settings: Settings) -> None:
    """Point discord.py at another REST base / gateway (a proxy, or a test double)."""
    if settings.api_base:
        discord.http.Route.BASE = settings.api_base
    if settings.gateway_url:
        # The first connection goes here; resumes use the URL READY announces.
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.gateway_url)


async def run(settings: Settings) -> None:
    bot = CaroBot(settings)
    loop = asyncio.get_running_loop()

    def stop(signame: str) -> None:
        log.info("%s received, shutting down", signame)
        bot.spawn(bot.close())

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop, sig.name)
    try:
        async with bot:
            await bot.start(settings.token)
    finally:
        await bot.release()


def main(argv: list[str] | None = None) -> int:
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    setup_logging(settings.log_level)
    apply_endpoint_overrides(settings)
    # Every database statement is a hop to aiosqlite's thread and back; while the event loop is
    # busy, each hand-over of the GIL waits up to the switch interval (5 ms by default), which
    # under load stacked up to most of a click's latency (bench/load.py).
    sys.setswitchinterval(0.0005)
    try:
        asyncio.run(run(settings))
    except discord.LoginFailure:
        print(console_text("bad_token"), file=sys.stderr)
        return 1
    except discord.PrivilegedIntentsRequired:
        print(console_text("privileged_intents"), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # A second Ctrl-C while shutting down: already stopping, nothing left to report.
        return 0
    return 0
