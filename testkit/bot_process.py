"""The real bot process (`python -m bot`) on a database of its own, talking to a Discord double:
started, stopped, killed and restarted as a test or a benchmark needs."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

TOKEN = "test-token"
STOP_TIMEOUT = 20.0


class BotHandle:
    """One bot process on one database; restartable; its output goes to a log file."""

    def __init__(self, double: Any, workdir: Path, env: dict[str, str],
                 fast_drawing: bool | None = None) -> None:
        self.double = double
        self.workdir = workdir
        self.db_path = workdir / "caro.db"
        self.log_path = workdir / "bot.log"
        self.extra_env = env
        # CARO_FAST_DRAWING for the process (bot.ui.drawing); None: the bot's default.
        self.fast_drawing = fast_drawing
        self.process: asyncio.subprocess.Process | None = None
        self.exit_codes: list[int] = []

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
        env.update(
            DISCORD_TOKEN=TOKEN,
            DISCORD_API_BASE=self.double.api_base,
            DISCORD_GATEWAY_URL=self.double.gateway_url,
            DISCORD_GUILD_ID=str(self.double.guild_id),
            CARO_DB=str(self.db_path),
            CARO_LOG_LEVEL="INFO",
            PYTHONUNBUFFERED="1",
        )
        if self.fast_drawing is not None:
            env["CARO_FAST_DRAWING"] = "1" if self.fast_drawing else "0"
        env.update(self.extra_env)
        return env

    async def start(self, *, wait: bool = True) -> None:
        assert self.process is None, "already running"
        self.double.reset_ready()
        if self.double.commands:
            # Discord keeps registered commands: a restarted bot whose commands did not change
            # does not register them again, so READY alone says it is up.
            self.double.command_puts = 1
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child process
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot",
                cwd=self.workdir, env=self.env(), stdout=log, stderr=asyncio.subprocess.STDOUT,
                stdin=asyncio.subprocess.DEVNULL,
            )
        finally:
            log.close()
        if wait:
            await self.wait_ready()

    async def wait_ready(self, timeout: float = 30) -> None:
        """Until the double saw READY and the command sync; fails at once if the bot exits."""
        assert self.process is not None
        ready = asyncio.ensure_future(self.double.wait_ready(timeout=timeout))
        exited = asyncio.ensure_future(self.process.wait())
        await asyncio.wait({ready, exited}, return_when=asyncio.FIRST_COMPLETED)
        exited.cancel()
        if not ready.done():
            ready.cancel()
            raise AssertionError(f"bot exited with {self.process.returncode} before it was ready"
                                 f"\n--- bot log ---\n{self.log_text()}")
        if ready.exception() is not None:
            raise AssertionError(f"{ready.exception()}\n--- bot log ---\n{self.log_text()}")

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        """Signal the bot and wait for it to exit (SIGKILL after STOP_TIMEOUT); its exit code."""
        process = self.process
        assert process is not None, "not running"
        self.process = None
        if process.returncode is None:
            process.send_signal(sig)
        try:
            code = await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise AssertionError(f"bot did not stop within {STOP_TIMEOUT} s after {sig!r}\n"
                                 f"--- bot log ---\n{self.log_text()}") from None
        self.exit_codes.append(code)
        return code

    async def restart(self, *, kill: bool = False) -> None:
        """Stop (SIGTERM, or SIGKILL to simulate a crash) and start again on the same database."""
        code = await self.stop(signal.SIGKILL if kill else signal.SIGTERM)
        if not kill:
            assert code == 0, f"bot exited with {code} on SIGTERM\n{self.log_text()}"
        await self.start()

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def db_counts(self) -> dict[str, int]:
        with sqlite3.connect(self.db_path) as db:
            return {
                table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
                for table in ("games", "moves", "results")
            }

    def db_rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.db_path) as db:
            return db.execute(sql, params).fetchall()


StartBot = Callable[..., Awaitable[BotHandle]]
TEXT_DISPLAY = 10


def text_of(shown: Any) -> str:
    """What a person reads on a message or an interaction response: its content, or the text
    components of a Components V2 layout (5x5 and picture boards), which carries no content."""
    parts = [shown.content] if shown.content else []
    stack = list(shown.components or [])
    while stack:
        component = stack.pop(0)
        if component.get("type") == TEXT_DISPLAY:
            parts.append(str(component.get("content", "")))
        stack[:0] = component.get("components") or []
    return "\n".join(parts)
