"""The outbox's sender hands each channel's rows to a sender of that channel (bot/cogs/outbox.py):
a channel whose send is held (a rate limit, a slow call) holds up none of the others, even rows
written after the pass that met it; a channel's rows go in their order across passes; a row is
sent once however often passes read it while it waits or is in flight; a channel's sender that
loses the database makes the sender wait and take its shards over again; and stopping leaves no
task behind."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

import bot.cogs.outbox as outbox_cog
from bot.cogs.outbox import OutboxCog
from bot.game.outbox_model import Heard, PostKind, PostRow
from bot.game.ports import StorageUnavailable
from bot.ui.posts import Rendered

SLOW, FAST = 101, 202


def row(post_id: int, channel_id: int) -> PostRow:
    return PostRow(post_id, 1, channel_id, PostKind.GAME_BOARD, {"game": 1, "guild": 1},
                   f"n{post_id}", 0.0, 0, None)


class _Outbox:
    """Rows waiting until marked sent. Every claim is granted, as a claim that ran out would be:
    only the sender itself keeps a row from going twice."""

    def __init__(self) -> None:
        self.changed = asyncio.Event()
        self.waiting: dict[int, PostRow] = {}
        self.calls: list[str] = []
        self.away = False

    def add(self, *rows: PostRow) -> None:
        for one in rows:
            self.waiting[one.id] = one
        self.changed.set()

    def wake(self) -> None:
        self.changed.set()

    def now(self) -> float:
        return 0.0

    async def take_over(self, *, shard_id: int, shard_count: int) -> int:
        self.calls.append("take_over")
        return 0

    async def due(self, *, shard_id: int, shard_count: int) -> list[PostRow]:
        self.calls.append("due")
        return sorted(self.waiting.values(), key=lambda r: r.id)

    async def next_due(self, *, shard_id: int, shard_count: int) -> None:
        return None

    async def claim(self, one: PostRow) -> bool:
        if self.away:
            raise StorageUnavailable("the database went away")
        return True

    async def sent(self, one: PostRow, message_id: int | None) -> bool:
        self.waiting.pop(one.id, None)
        return True

    async def prune(self) -> int:
        return 0


class _Renderer:
    async def render_post(self, post: PostRow) -> Rendered:
        return None


class SenderBot:
    """The host the sender needs: its outbox, one shard, and a renderer that draws nothing."""

    shard_count = 1

    def __init__(self, outbox: Any) -> None:
        self.services = SimpleNamespace(outbox=outbox)
        self.closed = False

    async def wait_until_ready(self) -> None:
        return None

    def is_closed(self) -> bool:
        return self.closed

    def held_shards(self) -> list[int]:
        return [0]

    def working_for(self, shard_id: int) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    def cog(self, cls: type[Any]) -> _Renderer:
        return _Renderer()


class _Sender:
    """The sender running against the fake outbox, its deliveries recorded; a channel's
    deliveries wait while its gate is closed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(outbox_cog, "LOOK_EVERY_S", 0.01)
        monkeypatch.setattr(outbox_cog, "UNAVAILABLE_RETRY_SECONDS", 0.01)
        self.outbox = _Outbox()
        self.bot = SenderBot(self.outbox)
        self.cog = OutboxCog(self.bot)  # type: ignore[arg-type]
        self.started: list[int] = []
        self.delivered: list[int] = []
        self.gates: dict[int, asyncio.Event] = {}

        async def deliver(one: PostRow, rendered: Rendered) -> int:
            self.started.append(one.id)
            gate = self.gates.get(one.channel_id)
            if gate is not None:
                await gate.wait()
            self.delivered.append(one.id)
            return one.id

        monkeypatch.setattr(self.cog, "deliver", deliver)
        self.task = asyncio.create_task(self.cog.send_posts())

    def hold(self, channel_id: int) -> asyncio.Event:
        self.gates[channel_id] = asyncio.Event()
        return self.gates[channel_id]

    async def until(self, check: Any, timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not check():
                await asyncio.sleep(0.005)

    async def passes(self, count: int) -> None:
        """Let the sender read the rows due `count` more times."""
        seen = self.outbox.calls.count("due")
        await self.until(lambda: self.outbox.calls.count("due") >= seen + count)

    async def stop(self) -> None:
        self.bot.closed = True
        self.outbox.changed.set()
        await asyncio.wait_for(self.task, 5.0)
        assert self.cog._workers == {} or all(w.done() for w in self.cog._workers.values())


async def test_a_held_channel_does_not_hold_up_a_row_written_later_for_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sender = _Sender(monkeypatch)
    held = sender.hold(SLOW)
    try:
        sender.outbox.add(row(1, SLOW))
        await sender.until(lambda: sender.started == [1])
        # Written after the pass that met the held channel, while its send still waits.
        sender.outbox.add(row(2, FAST))
        await sender.until(lambda: 2 in sender.delivered)
        assert sender.delivered == [2]
        held.set()
        await sender.until(lambda: sender.delivered == [2, 1])
    finally:
        held.set()
        await sender.stop()


async def test_a_channels_rows_go_in_their_order_across_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sender = _Sender(monkeypatch)
    held = sender.hold(SLOW)
    try:
        sender.outbox.add(row(1, SLOW), row(2, SLOW))
        await sender.until(lambda: sender.started == [1])
        sender.outbox.add(row(3, SLOW))
        await sender.passes(3)
        sender.outbox.add(row(4, SLOW), row(5, FAST))
        await sender.until(lambda: sender.delivered == [5])
        held.set()
        await sender.until(lambda: len(sender.delivered) == 5)
        assert sender.delivered == [5, 1, 2, 3, 4]
    finally:
        held.set()
        await sender.stop()


async def test_a_row_is_sent_once_however_often_passes_read_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sender = _Sender(monkeypatch)
    held = sender.hold(SLOW)
    try:
        sender.outbox.add(row(1, SLOW), row(2, SLOW), row(3, FAST))
        await sender.until(lambda: sender.started == [1, 3])
        # Each pass reads the rows in flight or queued again: none is handed over twice.
        await sender.passes(5)
        assert sender.started == [1, 3] and len(sender.cog._queues[SLOW]) == 2
        held.set()
        await sender.until(lambda: not sender.outbox.waiting)
        await sender.passes(3)
        assert sorted(sender.delivered) == [1, 2, 3] and len(sender.started) == 3
        assert sender.cog._workers == {} and sender.cog._held == set()
    finally:
        held.set()
        await sender.stop()


async def test_a_channel_that_loses_the_database_makes_the_sender_wait_and_take_over_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sender = _Sender(monkeypatch)
    try:
        await sender.passes(1)
        assert sender.cog._taken == {0}
        sender.outbox.away = True
        sender.outbox.add(row(1, FAST))
        await sender.until(lambda: sender.cog._taken == set())
        sender.outbox.away = False
        await sender.until(lambda: sender.delivered == [1])
        assert sender.outbox.calls.count("take_over") == 2
    finally:
        await sender.stop()


async def test_stopping_cuts_a_held_channel_short_and_leaves_no_task(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    sender = _Sender(monkeypatch)
    sender.hold(SLOW)
    sender.outbox.add(row(1, SLOW), row(2, SLOW))
    await sender.until(lambda: sender.started == [1])
    (worker,) = sender.cog._workers.values()
    await sender.stop()
    assert worker.cancelled() and sender.cog._workers == {}
    assert sender.delivered == [] and "Traceback" not in caplog.text


async def test_a_heard_edit_of_a_held_server_is_sent_without_a_pass_and_anothers_is_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sender = _Sender(monkeypatch)
    sender.bot.shard_count = 2  # this process holds shard 0 of 2
    try:
        await sender.passes(1)
        monkeypatch.setattr(outbox_cog, "LOOK_EVERY_S", 60.0)
        await sender.passes(1)
        passes = sender.outbox.calls.count("due")
        # Rows no pass reads (none is waiting in the fake outbox): only the signal carries them.
        mine, theirs = row(1, FAST), replace(row(2, SLOW), guild_id=1 << 22)
        sender.cog.heard(Heard((mine, theirs), others=False))
        await sender.until(lambda: sender.delivered == [1])
        await asyncio.sleep(0.05)
        assert sender.delivered == [1] and sender.outbox.calls.count("due") == passes
        # A signal that carries no rows (a new message written, a listener connected again)
        # wakes the pass, which finds them.
        sender.outbox.add(row(3, FAST))
        sender.outbox.changed.clear()
        sender.cog.heard(Heard())
        await sender.until(lambda: 3 in sender.delivered)
        assert sender.delivered == [1, 3]
    finally:
        await sender.stop()
