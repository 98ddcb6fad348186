"""Turn clocks: a game whose player ran out of time is lost, an unanswered challenge closes, and
a member whose clock runs low is warned (once per turn, through the outbox: bot.cogs.outbox
sends the warning this cog draws). At start-up (the bot may have been down
when a clock ran out), then as each clock runs out or runs low. Only the
clocks of guilds on this cluster's shards: the storage hands each run-out clock to one caller,
so a clock is settled once even while shards move between clusters."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.cogs.challenge import ChallengeCog
from bot.game.outbox_model import PostKind, PostRow
from bot.game.ports import UNAVAILABLE_RETRY_SECONDS, StorageUnavailable
from bot.ui.posts import Rendered

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")

# The watcher sleeps until the next clock runs out, but wakes at least this often, so a deadline
# written by another process (or a clock skew) is still noticed.
MAX_DEADLINE_SLEEP = 30.0


class ClocksCog(commands.Cog, name="Clocks"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.spawn(self.watch_deadlines())

    async def watch_deadlines(self) -> None:
        await self.bot.wait_until_ready()
        clocks = self.bot.services.clocks
        changed = clocks.deadlines_changed
        while not self.bot.is_closed():
            changed.clear()
            # Clocks started while this pass reads the database may be missed by its queries:
            # they must wake the next pass.
            clocks.watched_until = None
            wait = MAX_DEADLINE_SLEEP
            try:
                upcoming = None
                for shard_id in self.bot.held_shards():
                    with self.bot.working_for(shard_id):
                        await self.expire_due(shard_id)
                        warning = await self.warn_due(shard_id)
                        found = await clocks.next_deadline(
                            shard_id=shard_id, shard_count=self.shard_count
                        )
                    for at in (found, warning):
                        if at is not None and (upcoming is None or at < upcoming):
                            upcoming = at
            except StorageUnavailable:
                # Said once in the log when the database was lost; soon again, so clocks that
                # ran out meanwhile are settled as soon as it is back.
                upcoming = None
                wait = UNAVAILABLE_RETRY_SECONDS
            except Exception:
                if self.bot.is_closed():
                    return
                log.exception("checking deadlines failed")
                upcoming = None
            if upcoming is not None:
                wait = min(wait, max(0.05, upcoming - time.time()))
            # In the service's clock (a test's fake clock), as the deadlines are written.
            clocks.watched_until = clocks.now() + wait
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), wait)

    @property
    def shard_count(self) -> int:
        assert self.bot.shard_count is not None, "known once connected"
        return self.bot.shard_count

    async def warn_due(self, shard_id: int) -> float | None:
        """Warn the members of the shard whose clock runs low (each turn once: the warnings are
        written to the outbox, which sends them); when the next warning falls due."""
        due, upcoming = await self.bot.services.timeouts.due_warnings(
            shard_id=shard_id, shard_count=self.shard_count
        )
        for state in due:
            log.info("game %d: warning %s that their clock runs low", state.id, state.acting_mark.name)
        if due:
            self.bot.services.outbox.wake()
        return upcoming

    async def render_post(self, post: PostRow) -> Rendered:
        """A clock's warning, drawn from the game as it is now: none once the turn passed."""
        if post.kind is not PostKind.CLOCK_WARNING:
            raise ValueError(f"post {post.id}: {post.kind} is not a clock's")
        state = await self.bot.services.games.state(post.number("game"))
        if state is None:
            return None
        return await self.bot.boards.notices.low_time(state, post.real("deadline"), post.guild_id)

    async def expire_due(self, shard_id: int) -> None:
        for state in await self.bot.services.timeouts.expire_games(shard_id=shard_id, shard_count=self.shard_count):
            log.info("game %d: %s ran out of time", state.id, state.acting_mark.name)
            await self.bot.boards.show_quietly(state)
        challenges = self.bot.cog(ChallengeCog)
        expired = await self.bot.services.challenges.expire_challenges(shard_id=shard_id, shard_count=self.shard_count)
        for challenge in expired:
            log.info("challenge %d expired", challenge.id)
            try:
                await challenges.show_closed(challenge)
            except discord.HTTPException as exc:
                log.warning("challenge %d: could not edit its message (%s)", challenge.id, exc)
