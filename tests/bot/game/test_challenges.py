"""The challenges service (bot/game/challenges.py) on a real database with a fake clock: a challenge
answered only by the challenged, expiring once, and an accepted challenge's game written with it
and holding its board message from the start."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.game.errors import UserError
from bot.game.model import ActiveGameExists, Mode
from bot.game.options import parse_options
from testkit.services import ALICE, BOB, CAROL, CHANNEL, GUILD, challenge, start


async def test_challenge_is_answered_only_by_the_challenged(sqlite_world) -> None:
    svc, clock = sqlite_world
    with pytest.raises(UserError, match="cannot challenge yourself"):
        await svc.challenges.challenge(guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE,
                              opponent_id=ALICE, opponent_is_bot=False,
                              options=parse_options(), locale="en-US")
    with pytest.raises(UserError, match="Bots cannot play"):
        await svc.challenges.challenge(guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE,
                              opponent_id=BOB, opponent_is_bot=True,
                              options=parse_options(), locale="en-US")
    challenge = await svc.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB,
        opponent_is_bot=False, options=parse_options(), locale="en-US",
    )
    assert challenge.deadline == clock.now + 30.0
    with pytest.raises(UserError, match="only they can answer"):
        await svc.challenges.answer_challenge(challenge.id, CAROL, accept=True, rng=random.Random(1))
    declined, game = await svc.challenges.answer_challenge(
        challenge.id, BOB, accept=False, rng=random.Random(1)
    )
    assert declined.status == "declined" and game is None
    with pytest.raises(UserError, match="no longer open"):
        await svc.challenges.answer_challenge(challenge.id, BOB, accept=True, rng=random.Random(1))


async def test_unanswered_challenge_expires_once(sqlite_world) -> None:
    svc, clock = sqlite_world
    challenge = await svc.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB,
        opponent_is_bot=False, options=parse_options(), locale="en-US",
    )
    assert await svc.challenges.expire_challenges() == []
    clock.now += 31
    expired = await svc.challenges.expire_challenges()
    assert [(c.id, c.status) for c in expired] == [(challenge.id, "expired")]
    assert await svc.challenges.expire_challenges() == []
    with pytest.raises(UserError, match="no longer open"):
        await svc.challenges.answer_challenge(challenge.id, BOB, accept=True, rng=random.Random(1))


async def test_an_accepted_game_holds_its_board_message_from_the_start(world) -> None:
    """The accepted game is created with the challenge message as its board, in the same
    transaction that closes the challenge: a /caro start racing the accept never finds an
    unposted game (which it would abandon as a leftover)."""
    svc, clock = world
    for attempt in range(8):
        clock.now += 60.0  # a round a minute: the cooldowns are not what is tested here
        found = await challenge(svc, ALICE, BOB, channel=100 + attempt)
        await svc.challenges.attach_challenge_message(found.id, 5000 + attempt)
        accept = svc.challenges.answer_challenge(found.id, BOB, accept=True, rng=random.Random(1))
        race = svc.games.start(guild_id=GUILD, channel_id=100 + attempt, player_id=ALICE,
                           options=parse_options("easy"), rng=random.Random(1))
        accepted, started = await asyncio.gather(accept, race, return_exceptions=True)
        if isinstance(started, ActiveGameExists):
            # The start lost: what it found is the accepted game, with its message.
            assert started.game.mode is Mode.PVP and started.game.message_id == 5000 + attempt
            assert isinstance(accepted, tuple) and accepted[1] is not None
            assert accepted[1].active
        else:
            # The start won: the accept is refused, and the challenge stays open.
            assert isinstance(accepted, UserError) and accepted.key == "challenge.someone_busy"
            again = await svc.storage.challenges.challenge(found.id)
            assert again is not None and again.status == "pending"
            await svc.games.resign(started.id, ALICE)
            # Declined, so the open challenges of earlier rounds never reach Alice's limit (on
            # PostgreSQL the start wins this race often, the writes truly running at once).
            await svc.challenges.answer_challenge(found.id, BOB, accept=False, rng=random.Random(1))


async def test_an_accepted_challenge_and_its_game_are_written_together(world) -> None:
    svc, _ = world
    found = await challenge(svc, ALICE, BOB)
    await start(svc, BOB)  # Bob is busy in the channel: accepting fails as a whole
    with pytest.raises(UserError) as busy:
        await svc.challenges.answer_challenge(found.id, BOB, accept=True, rng=random.Random(1))
    assert busy.value.key == "challenge.someone_busy"
    again = await svc.storage.challenges.challenge(found.id)
    assert again is not None and again.status == "pending" and again.game_id is None
