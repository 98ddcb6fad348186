"""`caro-bot` / `python -m bot`: read settings, run the bot until SIGTERM/SIGINT, exit cleanly.

Exit status: 0 after a clean stop; 1 when Discord refuses (the token, the server in
DISCORD_GUILD_ID) or cannot be reached; 2 when a setting is missing or malformed, or what it
names cannot be used: the database (a file that is not caro's, a PostgreSQL server that cannot
be reached) or the external engine of CARO_ENGINE_CMD. Each failure is one line on stderr, never a
traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import replace

import aiohttp
import discord
import yarl

from bot.game.ports import StorageError
from bot.runtime import patches
from bot.runtime.config import Settings, SettingsError, load_settings, unknown_settings
from bot.runtime.logs import one_line, setup_logging
from bot.runtime.preflight import (
    CONNECT_TIMEOUT,
    DatabaseUnreachable,
    PreflightError,
    Unreachable,
    check_database,
    check_engine,
    check_reachable,
    guild_refused_message,
    network_reason,
    unreachable_message,
)
from engine import Rule, __version__

log = logging.getLogger("caro.bot")

# After a stop is asked for, how long discord.py may take to close before its connection task is
# cancelled: while Discord is away it sits in a reconnect back-off of up to a minute.
CLOSE_GRACE = 1.0

BAD_TOKEN = (
    "Discord refused the bot token (it is wrong, or it was reset). Copy a fresh one from the "
    "Developer Portal (your app -> Bot -> Reset Token) into DISCORD_TOKEN in .env."
)
PRIVILEGED_INTENTS = (
    "Discord refused the connection because the bot asks for an intent it is not allowed to "
    "use. caro-bot needs no privileged intents; check you are running an unmodified build."
)
DESCRIPTION = (
    "Run the caro Discord bot until SIGTERM or Ctrl-C. Settings come from the environment and "
    "from a .env file in the current directory (see .env.example and the README)."
)
EPILOG = (
    "exit status: 0 after a clean stop, 1 when Discord refuses or cannot be reached, "
    "2 for a missing or malformed setting, or a database or engine it names that cannot be used"
)


class Refused(Exception):
    """Discord refused something the settings ask for (exit 1); the message says what."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="caro-bot", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"caro-bot {__version__}")
    parser.add_argument(
        "--prepare", action="store_true",
        help="compile the AI's search core into this host's cache, then exit (for deploy "
        "scripts and images: without it the first start compiles it in the background)",
    )
    parser.add_argument(
        "--sync", action="store_true",
        help="register the slash commands with Discord on this start even if they did not "
        "change (to repair commands deleted or broken by hand)",
    )
    return parser


def apply_endpoint_overrides(settings: Settings) -> None:
    """Point discord.py at another REST base / gateway (a proxy, or a test double)."""
    patches.point_at(settings.api_base, settings.gateway_url)


async def login_and_connect(bot: discord.Client, settings: Settings) -> None:
    """Log in (which also runs setup_hook), check the gateway, then stay connected."""
    api = settings.effective_api_base
    # A quick TCP check first: discord.py would wait minutes on an address that drops packets.
    await check_reachable(api, "DISCORD_API_BASE", settings.api_base is not None, "Discord's API")
    try:
        await bot.login(settings.token)
    except aiohttp.ClientError as exc:
        # Connection failures only (aiohttp's OSErrors are ClientErrors too): an OSError of the
        # bot's own set-up is not Discord's.
        raise Unreachable(
            unreachable_message(
                "Discord's API", api, "DISCORD_API_BASE", settings.api_base is not None,
                network_reason(exc),
            )
        ) from None
    except StorageError as exc:
        # Opening or migrating CARO_DB failed in setup_hook (e.g. a schema newer than this
        # version): a setting problem, in the storage layer's own one line.
        raise PreflightError(str(exc)) from None
    except sqlite3.Error as exc:
        # What the read-only checks could not foresee (the file locked by another program...).
        raise PreflightError(
            f"Could not open the database {os.path.abspath(settings.db_path)} (CARO_DB): {exc}"
        ) from None
    except discord.Forbidden as exc:
        if settings.guild_id is not None and exc.code == 50001:
            raise Refused(guild_refused_message(settings.guild_id, bot.application_id)) from None
        raise
    except discord.DiscordServerError as exc:
        # discord.py already retried; Discord itself (or the proxy in front of it) is failing.
        raise Unreachable(
            f"Discord's API at {api} kept answering {exc.status} ({one_line(exc)}): Discord is "
            "having trouble; try again later."
        ) from None
    except discord.HTTPException as exc:
        # Something answered, but not as Discord's API does (a wrong path, a proxy's error page).
        raise Refused(
            f"Discord's API at {api} answered {exc.status} {one_line(exc)}; check "
            "DISCORD_API_BASE."
        ) from None
    gateway = settings.effective_gateway_url
    await check_reachable(
        gateway, "DISCORD_GATEWAY_URL", settings.gateway_url is not None, "Discord's gateway"
    )
    if isinstance(bot, discord.AutoShardedClient) and bot.shard_count is None:
        # Asked here, not left to discord.py: it would connect to the URL Discord names in the
        # same answer, bypassing DISCORD_GATEWAY_URL (a gateway proxy).
        bot.shard_count = await patches.recommended_shard_count(bot)
        log.info("Discord recommends %d shard(s)", bot.shard_count)
    await check_websocket(gateway, settings.gateway_url is not None)
    try:
        await bot.connect(reconnect=True)
    except AttributeError as exc:
        # discord.py 2.7 cannot retry a first connection that failed: it reads the sequence of
        # a websocket it never had (`None.sequence`). What failed is the exception it was
        # handling; anything else is a real bug and propagates.
        first = exc.__context__
        if bot.ws is not None or first is None:
            raise
        raise Unreachable(
            unreachable_message(
                "Discord's gateway", gateway, "DISCORD_GATEWAY_URL",
                settings.gateway_url is not None, network_reason(first),
            )
        ) from None


async def check_websocket(gateway: str, overridden: bool) -> None:
    """A websocket handshake with the gateway, closed at once. A sharded client retries a first
    connection that fails forever, a shard at a time; a gateway URL with no websocket behind it
    is a setting to fix, said once."""
    url = yarl.URL(gateway).update_query(v=10, encoding="json")
    timeout = aiohttp.ClientTimeout(total=CONNECT_TIMEOUT)
    try:
        async with aiohttp.ClientSession(timeout=timeout) as session, session.ws_connect(
            url, timeout=aiohttp.ClientWSTimeout(ws_close=CONNECT_TIMEOUT), max_msg_size=0
        ):
            pass
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        raise Unreachable(
            unreachable_message(
                "Discord's gateway", gateway, "DISCORD_GATEWAY_URL", overridden,
                network_reason(exc),
            )
        ) from None


async def run(settings: Settings) -> None:
    # Imported here: the UI pulls in the whole bot, which --help and bad settings never need.
    from bot.runtime.client import CaroBot

    bot = CaroBot(settings)
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()

    def stop(signame: str) -> None:
        log.info("%s received, shutting down", signame)
        stopping.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop, sig.name)
    try:
        async with bot:
            runner = asyncio.create_task(login_and_connect(bot, settings))
            stop_wait = asyncio.create_task(stopping.wait())
            await asyncio.wait({runner, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
            stop_wait.cancel()
            if not runner.done():
                await bot.close()
                with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(runner, CLOSE_GRACE)
            if not stopping.is_set():
                runner.result()  # the reason it ended, raised
    finally:
        await bot.release()
    # Only a run that ended as asked gets here: a start that failed raised above, and its one
    # line on stderr must not follow a claim that all went well.
    log.info("shut down cleanly")


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop where it is installed: the bot's work is mostly the loop's own
    (gateway frames, REST calls, hand-overs from aiosqlite's thread), which uvloop does in C.
    None (asyncio's loop) where it is not, such as on Windows."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def prepare() -> int:
    """`caro-bot --prepare`: build the compiled cores (no token or database needed)."""
    from engine.ai import build_cores
    from engine.support import cores

    try:
        build_cores(lambda line: print(line, flush=True))
    except cores.BuildFailed as exc:
        print(f"caro-bot --prepare: {exc}", file=sys.stderr)
        return 1
    print(cores.status().summary())
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.prepare:
        return prepare()
    try:
        settings = load_settings(force_sync=args.sync)
        check_database(settings.db_path)
        settings = replace(settings, engine=check_engine(settings.engine))
    except DatabaseUnreachable as exc:
        # Not a bad setting: the server may be down or still starting (a reboot, a restart
        # during an outage), and a supervisor should start the bot again.
        print(str(exc), file=sys.stderr)
        return 1
    except (SettingsError, PreflightError) as exc:
        print(str(exc), file=sys.stderr)
        return 2
    setup_logging(settings.log_level, secrets=settings.secrets, cluster=settings.cluster)
    for warning in unknown_settings(os.environ):
        logging.getLogger("caro.bot").warning("%s", warning)
    if settings.engine is not None:
        logging.getLogger("caro.bot").info(
            "external engine %r offered for the rules it plays: %s",
            settings.engine.name,
            ", ".join(rule.value for rule in Rule if rule in settings.engine.rules),
        )
    apply_endpoint_overrides(settings)
    # Every database statement is a hop to aiosqlite's thread and back; while the event loop is
    # busy, each hand-over of the GIL waits up to the switch interval (5 ms by default), which
    # under load adds up to much of a click's latency (measured in docs/benchmarks.md).
    sys.setswitchinterval(0.0005)
    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(run(settings))
    except discord.LoginFailure:
        print(BAD_TOKEN, file=sys.stderr)
        return 1
    except discord.PrivilegedIntentsRequired:
        print(PRIVILEGED_INTENTS, file=sys.stderr)
        return 1
    except (Unreachable, Refused) as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except PreflightError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # A second Ctrl-C while shutting down: already stopping, nothing left to report.
        return 0
    return 0
