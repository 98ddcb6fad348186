"""Blocks between members in storage, on both backends: stored once per member and way round,
capped per member even when two blocks arrive at once, lifted, listed oldest first, and seen
from either side."""

from __future__ import annotations

import asyncio

from bot.game.ports import BlockOutcome, Storage
from testkit.storage_backends import Backend

A, B, C, D = 101, 102, 103, 104


async def test_a_block_is_stored_once_and_seen_from_either_side(storage: Storage) -> None:
    blocks = storage.blocks
    assert await blocks.block(A, B, now=1.0, limit=5) is BlockOutcome.ADDED
    assert await blocks.block(A, B, now=2.0, limit=5) is BlockOutcome.ALREADY
    assert await blocks.blocked_between(A, B) and await blocks.blocked_between(B, A)
    assert not await blocks.blocked_between(A, C)
    # A block is one way: B blocked nobody.
    assert await blocks.blocked(B) == []


async def test_blocks_are_listed_oldest_first_and_lifted_one_by_one(storage: Storage) -> None:
    blocks = storage.blocks
    for at, other in ((3.0, D), (1.0, B), (2.0, C)):
        await blocks.block(A, other, now=at, limit=5)
    assert await blocks.blocked(A) == [B, C, D]
    assert await blocks.unblock(A, C)
    assert not await blocks.unblock(A, C)
    assert await blocks.blocked(A) == [B, D]
    assert not await blocks.blocked_between(C, A)


async def test_a_full_list_takes_no_more_blocks(storage: Storage) -> None:
    blocks = storage.blocks
    assert await blocks.block(A, B, now=1.0, limit=2) is BlockOutcome.ADDED
    assert await blocks.block(A, C, now=2.0, limit=2) is BlockOutcome.ADDED
    assert await blocks.block(A, D, now=3.0, limit=2) is BlockOutcome.FULL
    assert await blocks.blocked(A) == [B, C]


async def test_two_blocks_at_once_from_two_processes_cannot_both_take_the_last_place(
    backend: Backend,
) -> None:
    first, second = await backend.open(), await backend.open()
    await first.blocks.block(A, B, now=1.0, limit=2)
    outcomes = await asyncio.gather(
        first.blocks.block(A, C, now=2.0, limit=2),
        second.blocks.block(A, D, now=2.0, limit=2),
    )
    assert sorted(outcomes) == sorted([BlockOutcome.ADDED, BlockOutcome.FULL])
    assert len(await first.blocks.blocked(A)) == 2
