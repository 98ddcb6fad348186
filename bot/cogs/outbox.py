"""The outbox's sender: the posts the bot makes on its own (bot.game.outbox_model), for this
process's shards. Each row due is claimed, rendered from the database by the cog that owns its
kind, sent with its nonce (Discord makes one message per nonce, so a retry after a lost answer
posts nothing twice) and marked sent. A failure Discord may get over (a 5xx, a dropped
connection, a timeout) is tried again later, waiting longer each time; one it never gets over (no
access, no such channel, a message it refuses) is given up with its reason, said once in the
log. Rows done with are pruned after a while."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord.ext import commands

from bot.cogs.clocks import ClocksCog
from bot.cogs.host import keep_listening
from bot.cogs.queue import QueueCog
from bot.cogs.takeback import TakebackCog
from bot.cogs.tournament import TournamentCog
from bot.game.model import shard_of_guild
from bot.game.outbox_model import Heard, PostKind, PostRow
from bot.game.ports import UNAVAILABLE_RETRY_SECONDS, StorageUnavailable
from bot.ui.posts import MessageEdit, NewMessage, Rendered

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")

# The sender sleeps until the next row falls due or a change writes one, but looks at least this
# often: another process may have written a row for a shard this one holds.
LOOK_EVERY_S = 5.0
# The longest one send may take (discord.py's own retries of a 5xx included): a channel's rows
# go one at a time, so a call Discord never answers must not hold up that channel's others. A
# send cut short is tried again later with its nonce, so a message made meanwhile is not made
# twice.
SEND_TIMEOUT_S = 45.0
# How often rows done with are pruned.
PRUNE_EVERY_S = 3600.0
Renderer = ClocksCog | TournamentCog | QueueCog | TakebackCog
# A row whose rendering keeps failing (a bug, not Discord) is given up after this many tries, so
# it is not tried forever; the log holds each failure's traceback.
MAX_RENDER_ATTEMPTS = 8


def never_passes(exc: discord.HTTPException) -> bool:
    """Whether Discord will refuse the same call again: a 4xx other than a rate limit (Missing
    Access, Unknown Channel, a message it finds invalid)."""
    return 400 <= exc.status < 500 and exc.status != 429


class OutboxCog(commands.Cog, name="Outbox"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        # The shards whose claimed rows this process has taken over since it started.
        self._taken: set[int] = set()
        self._pruned_at = 0.0
        # Each channel's rows handed over by a pass and not sent yet, the one in flight first,
        # and the task sending them: one per channel with rows, gone once they are sent, so a
        # slow channel holds up only its own rows and a pass waits for none.
        self._queues: dict[int, deque[PostRow]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        # The ids of the rows queued or in flight, so a pass hands none over twice; and those
        # let go of since the current pass began to read, which its read may still show.
        self._held: set[int] = set()
        self._let_go: set[int] = set()
        # The database was lost while a channel's rows were being sent: the sender waits.
        self._lost: StorageUnavailable | None = None

    async def cog_load(self) -> None:
        self.bot.spawn(self.send_posts())
        self.bot.spawn(self.listen())

    async def listen(self) -> None:
        """Hear the rows any process writes (the other board of a game between two servers,
        drawn by the process holding its server)."""
        outbox = self.bot.services.outbox
        await keep_listening(
            self.bot, lambda: outbox.listen(self.heard), "outbox: listening for new posts")

    def heard(self, heard: Heard) -> None:
        """Rows written by any process: the edits of this process's servers go to their
        channels' senders at once, each claimed as in a pass; the rest wake the pass. A move on
        a board in another process's server is drawn on this one's without a read of the rows
        due first."""
        if heard.others:
            self.bot.services.outbox.wake()
        if not heard.rows or self.bot.is_closed() or self._lost is not None:
            return
        count = self.bot.shard_count or 1
        held = set(self.bot.held_shards())
        for shard_id in sorted(held):
            rows = [row for row in heard.rows if shard_of_guild(row.guild_id, count) == shard_id]
            if rows:
                with self.bot.working_for(shard_id):
                    self.send_by_channel(rows)

    async def send_posts(self) -> None:
        await self.bot.wait_until_ready()
        try:
            await self._send_posts()
        finally:
            await self.stop_workers()

    async def _send_posts(self) -> None:
        outbox = self.bot.services.outbox
        while not self.bot.is_closed():
            outbox.changed.clear()
            wait = LOOK_EVERY_S
            try:
                if self._lost is not None:
                    lost, self._lost = self._lost, None
                    raise lost
                upcoming = await self.send_due()
                if upcoming is not None:
                    wait = min(wait, max(0.05, upcoming - outbox.now()))
                await self.prune()
            except StorageUnavailable:
                # Said once in the log when the database was lost; the rows wait in it. A row
                # this process had claimed stays claimed: its shards are taken over again once
                # the database is back, so the row goes out then, not when its claim runs out.
                wait = UNAVAILABLE_RETRY_SECONDS
                self._taken.clear()
            except Exception:
                if self.bot.is_closed():
                    return
                log.exception("sending the outbox failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(outbox.changed.wait(), wait)

    async def stop_workers(self) -> None:
        """Cut the channels' senders short (the bot is stopping): their rows wait in the
        database, claimed, and the next start takes the claims over."""
        workers = list(self._workers.values())
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)

    async def send_due(self) -> float | None:
        """Hand the rows due for this process's shards to their channels' senders; when the
        next one falls due."""
        outbox = self.bot.services.outbox
        count = self.bot.shard_count or 1
        upcoming: float | None = None
        for shard_id in self.bot.held_shards():
            with self.bot.working_for(shard_id):
                if shard_id not in self._taken:
                    # Claims left by a process that stopped while sending: this one holds the
                    # shard now, so it sends them at once rather than after their claims run out.
                    released = await outbox.take_over(shard_id=shard_id, shard_count=count)
                    if released:
                        log.info("outbox: took over %d posts of shard %d", released, shard_id)
                    self._taken.add(shard_id)
                self._let_go.clear()
                self.send_by_channel(await outbox.due(shard_id=shard_id, shard_count=count))
                at = await outbox.next_due(shard_id=shard_id, shard_count=count)
                if at is not None and (upcoming is None or at < upcoming):
                    upcoming = at
        return upcoming

    def send_by_channel(self, rows: list[PostRow]) -> None:
        """Hand `rows` to their channels' senders, each channel's in their order, and wait for
        none: a slow or rate-limited channel holds up only its own posts, even those of later
        passes. A row already queued or in flight, or let go of since this pass read it, is
        left alone, so none is sent twice."""
        for row in rows:
            if row.id in self._held or row.id in self._let_go:
                continue
            self._held.add(row.id)
            self._queues.setdefault(row.channel_id, deque()).append(row)
            if row.channel_id not in self._workers:
                self._workers[row.channel_id] = asyncio.create_task(
                    self._send_in_order(row.channel_id))

    async def _send_in_order(self, channel_id: int) -> None:
        """Send the channel's queue in order until it is empty, then end."""
        queue = self._queues[channel_id]
        try:
            while queue:
                try:
                    await self.send(queue[0])
                finally:
                    self._release(queue.popleft())
        except StorageUnavailable as exc:
            # The sender waits and takes its shards over again, as when a pass loses it.
            self._lost = exc
            self.bot.services.outbox.wake()
        except Exception:
            if not self.bot.is_closed():
                log.exception("outbox: sending in channel %d failed", channel_id)
        finally:
            # The rows not sent are let go of: a later pass reads them again.
            while queue:
                self._release(queue.popleft())
            del self._queues[channel_id]
            del self._workers[channel_id]

    def _release(self, row: PostRow) -> None:
        self._held.discard(row.id)
        self._let_go.add(row.id)

    async def send(self, row: PostRow) -> None:
        """Claim, render, send and mark one row (or count its failed try). An edit is drawn
        from the database while its claim is asked, the two at once: the other board of a game
        between two servers waits for one trip to the database here, not two."""
        outbox = self.bot.services.outbox
        owner = self.owner(row)
        drawing = (
            asyncio.ensure_future(self._render(owner, row))
            if owner is not None and row.kind.is_edit else None
        )
        try:
            claimed = await outbox.claim(row)
        except BaseException:
            if drawing is not None:
                drawing.cancel()
                drawing.add_done_callback(_unheard)
            raise
        if not claimed:
            if drawing is not None:
                await asyncio.gather(drawing, return_exceptions=True)
            return  # another sender holds it
        if owner is None:
            # The cog that draws it was unloaded: the bot is stopping. The row waits, and the
            # next start takes its claim over.
            return
        rendered = await (drawing if drawing is not None else self._render(owner, row))
        if isinstance(rendered, Exception):
            error = f"cannot be drawn: {rendered!r}"
            if row.attempts + 1 >= MAX_RENDER_ATTEMPTS:
                log.error("outbox: post %d (%s) given up: it cannot be drawn", row.id, row.kind,
                          exc_info=rendered)
                await outbox.failed(row, error)
            else:
                log.error("outbox: post %d (%s) could not be drawn", row.id, row.kind,
                          exc_info=rendered)
                await outbox.retry(row, error)
            return
        try:
            async with asyncio.timeout(SEND_TIMEOUT_S):
                message_id = await self.deliver(row, rendered)
        except discord.HTTPException as exc:
            if never_passes(exc):
                log.warning(
                    "outbox: post %d (%s) in channel %d given up: Discord refused it (%s)",
                    row.id, row.kind, row.channel_id, exc,
                )
                await outbox.failed(row, f"{exc.status} {exc.text or exc}")
                return
            await self._later(row, f"{exc.status} {exc.text or exc}")
            return
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            # The call may have reached Discord: the retry carries the same nonce.
            await self._later(row, repr(exc))
            return
        if await outbox.sent(row, message_id):
            log.info("outbox: post %d (%s) sent", row.id, row.kind)

    @staticmethod
    async def _render(owner: Renderer, row: PostRow) -> Rendered | Exception:
        """The row drawn by its cog, or why it could not be (the database lost is raised: the
        sender waits for it)."""
        try:
            return await owner.render_post(row)
        except StorageUnavailable:
            raise
        except Exception as exc:
            return exc

    async def _later(self, row: PostRow, error: str) -> None:
        delay = await self.bot.services.outbox.retry(row, error)
        # Said once per row; its later tries only at INFO, so an outage is not a flood.
        level = logging.WARNING if row.attempts == 0 else logging.INFO
        log.log(
            level, "outbox: post %d (%s) not sent (%s); trying again in %.0f s",
            row.id, row.kind, error, delay,
        )

    def owner(self, row: PostRow) -> Renderer | None:
        """The cog that draws the row's kind from the database; None once it is unloaded."""
        kind: type[Renderer] = (
            ClocksCog if row.kind is PostKind.CLOCK_WARNING
            else QueueCog if row.kind in (
                PostKind.GAME_BOARD, PostKind.TURN_PING, PostKind.OPPONENT_GONE)
            else TakebackCog if row.kind in (
                PostKind.TAKEBACK_REQUEST, PostKind.TAKEBACK_ANSWER)
            else TournamentCog
        )
        try:
            return self.bot.cog(kind)
        except LookupError:
            return None

    async def deliver(self, row: PostRow, rendered: Rendered) -> int | None:
        """Send a new message with the row's nonce, or make the edit; the message's id."""
        channel = self.bot.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        if isinstance(rendered, NewMessage):
            try:
                sent = await self._send(channel, rendered, row.nonce)
            except discord.Forbidden:
                if rendered.fallback is None:
                    raise
                # Refused, so nothing was made: the same nonce is free for the fallback.
                rendered = rendered.fallback
                sent = await self._send(channel, rendered, row.nonce)
            if rendered.sent is not None:
                await rendered.sent(sent.id)
            return sent.id
        if isinstance(rendered, MessageEdit):
            message = channel.get_partial_message(rendered.message_id)
            await message.edit(**rendered.parts, allowed_mentions=rendered.allowed_mentions)
            return rendered.message_id
        return None

    @staticmethod
    async def _send(
        channel: discord.PartialMessageable, message: NewMessage, nonce: str
    ) -> discord.Message:
        # discord.py sends enforce_nonce with every nonce (tests/bot/runtime/test_patches.py
        # checks it): Discord hands back the message it made for this nonce, if any.
        extra: dict[str, Any] = {}
        if message.file is not None:
            extra["file"] = message.file
        if message.reference is not None:
            extra["reference"] = message.reference
        if message.view is not None:
            extra["view"] = message.view
        return await channel.send(
            content=message.content,
            allowed_mentions=message.allowed_mentions,
            nonce=nonce,
            **extra,
        )

    async def prune(self) -> None:
        now = time.monotonic()
        if now - self._pruned_at < PRUNE_EVERY_S:
            return
        self._pruned_at = now
        pruned = await self.bot.services.outbox.prune()
        if pruned:
            log.info("outbox: pruned %d posts done with", pruned)


def _unheard(task: asyncio.Future[Any]) -> None:
    """A drawing no longer wanted: its failure, if any, is not said."""
    if not task.cancelled():
        task.exception()


__all__ = ["OutboxCog", "never_passes"]
