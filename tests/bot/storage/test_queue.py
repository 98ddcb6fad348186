"""The queue in storage, on both backends: one waiting entry per member (two joins at once make
one), leaving, pairing that reads the blocks and the last hour's pairs from the database, and
processes pairing at once on one database never pairing a member twice nor pairing one who
left."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.game.ports import Storage
from bot.game.queue_model import (
    AlreadyQueued,
    NewQueueEntry,
    QueueKey,
    QueueStatus,
    choose_pairs,
)
from testkit.storage_backends import Backend

KEY = QueueKey(rows=15, cols=15, k=5, rule="freestyle", rated=True, turn_seconds=600.0)
HOUR = 3600.0


def new(user: int, rating: float = 1200.0, *, at: float = 100.0, guild: int = 1,
        key: QueueKey = KEY, local: bool = False) -> NewQueueEntry:
    return NewQueueEntry(guild_id=guild, channel_id=guild * 10, user_id=user, key=key,
                         rating=rating, local=local, locale="vi", joined_at=at)


async def pair(storage: Storage, now: float = 100.0):
    return await storage.queue.pair_queue(now=now, recent_since=now - HOUR, choose=choose_pairs)


async def test_an_entry_is_read_back_as_written_and_one_waits_per_member(
    storage: Storage,
) -> None:
    entry = await storage.queue.join_queue(new(1, 1234.5, guild=7, local=True))
    assert (entry.guild_id, entry.channel_id, entry.user_id, entry.key, entry.rating) == (
        7, 70, 1, KEY, 1234.5)
    assert (entry.local, entry.locale, entry.joined_at, entry.status) == (
        True, "vi", 100.0, QueueStatus.WAITING)
    assert entry.message_id is None and entry.partner_id is None
    await storage.queue.set_queue_message(entry.id, 555)
    assert (await storage.queue.queue_entry(entry.id)).message_id == 555
    with pytest.raises(AlreadyQueued) as refused:
        await storage.queue.join_queue(new(1, guild=8))
    assert refused.value.entry.id == entry.id
    assert await storage.queue.waiting_entry(1) == await storage.queue.queue_entry(entry.id)


async def test_two_joins_of_one_member_at_once_from_two_processes_make_one(
    backend: Backend,
) -> None:
    first, second = await backend.open(), await backend.open()
    outcomes = await asyncio.gather(
        first.queue.join_queue(new(1, guild=1)), second.queue.join_queue(new(1, guild=2)),
        return_exceptions=True,
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["AlreadyQueued", "QueueEntry"]
    assert await first.queue.count_waiting(KEY) == 1


async def test_leaving_takes_the_entry_out_once_and_it_is_never_paired(storage: Storage) -> None:
    await storage.queue.join_queue(new(1))
    await storage.queue.join_queue(new(2))
    left = await storage.queue.leave_queue(1, now=105.0)
    assert left is not None and left.status is QueueStatus.LEFT
    assert await storage.queue.leave_queue(1, now=106.0) is None
    assert await pair(storage) == []
    # Left, the member may join again.
    assert (await storage.queue.join_queue(new(1, at=110.0))).status is QueueStatus.WAITING


async def test_the_waiting_are_counted_per_game(storage: Storage) -> None:
    casual = QueueKey(15, 15, 5, "freestyle", rated=False, turn_seconds=600.0)
    for user in (1, 2):
        await storage.queue.join_queue(new(user, guild=user))
    await storage.queue.join_queue(new(3, key=casual))
    assert await storage.queue.count_waiting(KEY) == 2
    assert await storage.queue.count_waiting(casual) == 1


async def test_a_pairing_marks_both_entries_with_their_partner(storage: Storage) -> None:
    a = await storage.queue.join_queue(new(1, 1200.0, at=90.0, guild=1))
    b = await storage.queue.join_queue(new(2, 1250.0, at=95.0, guild=2))
    ((one, other),) = await pair(storage)
    assert (one.id, other.id) == (a.id, b.id)
    assert (one.status, one.partner_id, one.paired_at) == (QueueStatus.PAIRED, 2, 100.0)
    assert (other.status, other.partner_id, other.paired_at) == (QueueStatus.PAIRED, 1, 100.0)
    assert await storage.queue.waiting_entry(1) is None
    assert await storage.queue.leave_queue(2, now=101.0) is None
    assert await pair(storage) == []


async def test_pairing_reads_the_blocks_and_the_last_hours_pairs(storage: Storage) -> None:
    await storage.blocks.block(1, 2, now=1.0, limit=10)
    await storage.queue.join_queue(new(1))
    await storage.queue.join_queue(new(2))
    assert await pair(storage, now=10_000.0) == []
    await storage.blocks.unblock(1, 2)
    assert len(await pair(storage, now=10_000.0)) == 1
    # Paired at 10,000: within the hour they meet again only when nobody else waits.
    await storage.queue.join_queue(new(1, at=10_010.0))
    await storage.queue.join_queue(new(2, at=10_010.0))
    await storage.queue.join_queue(new(3, 1210.0, at=10_020.0))
    ((one, other),) = await pair(storage, now=10_020.0)
    # 1 waited longest: 2 is as close, but they just met.
    assert (one.user_id, other.user_id) == (1, 3)
    # An hour later 2 meets anyone again.
    await storage.queue.join_queue(new(4, at=13_700.0))
    ((x, y),) = await pair(storage, now=13_700.0 + 60)
    assert (x.user_id, y.user_id) == (2, 4)


async def test_processes_pairing_at_once_never_pair_a_member_twice(backend: Backend) -> None:
    stores = [await backend.open(), await backend.open()]
    rng = random.Random(39)
    users = list(range(1, 41))
    for user in users:
        await stores[user % 2].queue.join_queue(
            new(user, 1000.0 + rng.randrange(400), at=float(user), guild=user % 3 + 1)
        )
    # Members leave while both processes pair, over and over.
    leaving = rng.sample(users, 8)
    tasks = [pair(stores[i % 2], now=200.0 + i) for i in range(12)]
    tasks += [stores[u % 2].queue.leave_queue(u, now=150.0) for u in leaving]
    results = await asyncio.gather(*tasks)
    pairs = [p for found in results[:12] for p in found]
    left = {entry.user_id for entry in results[12:] if entry is not None}
    paired = [entry.user_id for p in pairs for entry in p]
    assert len(paired) == len(set(paired)), "a member was paired twice"
    assert not set(paired) & left, "a member who left was paired"
    assert set(paired) | left | {u for u in users if await stores[0].queue.waiting_entry(u)} == set(
        users)
    # Every pair as stored: both sides name each other.
    for one, other in pairs:
        assert (one.partner_id, other.partner_id) == (other.user_id, one.user_id)
    rows = await backend.fetch(
        "SELECT COUNT(*) FROM queue_entries WHERE status = 'paired'"
    )
    assert rows == [(len(paired),)]
