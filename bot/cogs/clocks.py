"""Turn clocks: a game whose player ran out of time is lost, an unanswered challenge closes. At
start-up (the bot may have been down when a clock ran out), then as each clock runs out."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from .challenge import ChallengeCog

if TYPE_CHECKING:
    from ..client import CaroBot

log = logging.getLogger("caro.bot")

# The watcher sleeps until the next clock runs out, but wakes at least this often, so a deadline
# written by another process (or a clock skew) is still noticed.
MAX_DEADLINE_SLEEP = 30.0


class ClocksCog(commands.Cog, name="Clocks"):
    def __init__(self, bot: CaroBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.spawn(self.watch_deadlines())

    async def watch_deadlines(self) -> None:
        await self.bot.wait_until_ready()
        games = self.bot.games
        changed = games.deadlines_changed
        while not self.bot.is_closed():
            changed.clear()
            try:
                await self.expire_due()
                upcoming = await games.next_deadline()
            except Exception:
                if self.bot.is_closed():
                    return
                log.exception("checking deadlines failed")
                upcoming = None
            wait = MAX_DEADLINE_SLEEP
            if upcoming is not None:
                wait = min(wait, max(0.05, upcoming - time.time()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), wait)

    async def expire_due(self) -> None:
        games = self.bot.games
        for state in await games.expire_games():
            log.info("game %d: %s ran out of time", state.id, state.board.turn.name)
            await self.bot.boards.show_quietly(state)
        challenges = self.bot.cog(ChallengeCog)
        for challenge in await games.expire_challenges():
            log.info("challenge %d expired", challenge.id)
            try:
                await challenges.show_closed(challenge)
            except discord.HTTPException as exc:
                log.warning("challenge %d: could not edit its message (%s)", challenge.id, exc)
