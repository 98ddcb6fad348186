"""Blocks (bot/game/blocks.py) and the challenges they refuse, on both backends: a member blocks
another once, not themselves nor a bot, and no challenge crosses a block either way round."""

from __future__ import annotations

import pytest

from bot.game.errors import UserError
from bot.game.options import parse_options

GUILD, CHANNEL = 1, 10
A, B, C = 101, 102, 103


async def challenge(svc, challenger: int, opponent: int):
    return await svc.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=challenger, opponent_id=opponent,
        opponent_is_bot=False, options=parse_options(None, "15x15"), locale="en-US",
    )


async def test_a_block_is_refused_for_oneself_a_bot_twice_and_past_the_limit(world) -> None:
    svc, _ = world
    with pytest.raises(UserError) as err:
        await svc.blocks.block(A, A, other_is_bot=False)
    assert err.value.key == "block.self"
    with pytest.raises(UserError) as err:
        await svc.blocks.block(A, B, other_is_bot=True)
    assert err.value.key == "block.bot"
    await svc.blocks.block(A, B, other_is_bot=False)
    with pytest.raises(UserError) as err:
        await svc.blocks.block(A, B, other_is_bot=False)
    assert err.value.key == "block.already"
    svc.blocks.limit = 1
    with pytest.raises(UserError) as err:
        await svc.blocks.block(A, C, other_is_bot=False)
    assert err.value.key == "block.full"
    assert await svc.blocks.blocked(A) == [B]


async def test_no_challenge_crosses_a_block_either_way_round_until_it_is_lifted(world) -> None:
    svc, _ = world
    await svc.blocks.block(A, B, other_is_bot=False)
    with pytest.raises(UserError) as err:
        await challenge(svc, B, A)
    assert err.value.key == "challenge.blocked"
    with pytest.raises(UserError) as err:
        await challenge(svc, A, B)
    assert err.value.key == "challenge.you_blocked"
    # Others are not touched by it.
    assert (await challenge(svc, C, A)).opponent_id == A
    await svc.blocks.unblock(A, B)
    assert (await challenge(svc, B, A)).challenger_id == B
    with pytest.raises(UserError) as err:
        await svc.blocks.unblock(A, B)
    assert err.value.key == "block.none"
