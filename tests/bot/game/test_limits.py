"""The limits (bot/game/games.py's Limits, checked by the games and challenges services) on each
storage backend: live AI games per member and per server, watches per channel and per server,
pending challenges per challenger and per challenged, the own running game reported first, and
every limit message in English and Vietnamese."""

from __future__ import annotations

import random

import pytest

from bot.game.errors import UserError
from bot.game.model import ActiveGameExists
from bot.game.options import parse_options
from bot.i18n.texts import VI
from testkit.services import ALICE, BOB, CAROL, DAVE, ERIN, GUILD, challenge, start


async def test_live_ai_games_are_limited_per_member_and_per_server(world) -> None:
    svc, _ = world
    await start(svc, ALICE, channel=1)
    await start(svc, ALICE, channel=2)
    with pytest.raises(UserError, match="already have 2 games against the AI") as refused:
        await start(svc, ALICE, channel=3)
    assert refused.value.key == "limit.member_ai_games"
    await start(svc, BOB, channel=1)
    with pytest.raises(UserError) as full:
        await start(svc, CAROL, channel=1)
    assert full.value.key == "limit.server_ai_games"
    # Another server is not affected, and ending a game frees its place.
    other = await svc.games.start(guild_id=GUILD + 1, channel_id=1, player_id=CAROL,
                              options=parse_options("easy"), rng=random.Random(1))
    assert other.active
    first = await svc.games.active_game(GUILD, 1, ALICE)
    assert first is not None
    await svc.games.resign(first.id, ALICE)
    assert (await start(svc, CAROL, channel=1)).active


async def test_the_own_running_game_is_reported_before_any_limit(world) -> None:
    svc, _ = world
    await start(svc, ALICE, channel=1)
    await start(svc, ALICE, channel=2)
    with pytest.raises(ActiveGameExists):
        await start(svc, ALICE, channel=1)


async def test_watches_are_limited_per_channel_and_per_server(world) -> None:
    svc, clock = world

    async def watch(channel: int):
        return await svc.games.start_watch(guild_id=GUILD, channel_id=channel, starter_id=ALICE,
                                       x_level="easy", o_level="hard",
                                       options=parse_options(None, "3x3"))

    await watch(1)
    with pytest.raises(ActiveGameExists):
        await watch(1)
    await watch(2)
    clock.now += 60.0  # a minute later: the cooldown on watches is not what is tested here
    with pytest.raises(UserError) as refused:
        await watch(3)
    assert refused.value.key == "limit.server_watches"


async def test_pending_challenges_are_limited_per_challenger_and_per_challenged(world) -> None:
    svc, _ = world
    await challenge(svc, ALICE, BOB, channel=1)
    await challenge(svc, ALICE, CAROL, channel=2)
    with pytest.raises(UserError) as sent:
        await challenge(svc, ALICE, DAVE, channel=3)
    assert sent.value.key == "limit.challenges_sent"
    await challenge(svc, CAROL, BOB, channel=4)
    await challenge(svc, DAVE, BOB, channel=5)
    with pytest.raises(UserError, match=f"<@{BOB}> already has too many") as received:
        await challenge(svc, ERIN, BOB, channel=6)
    assert received.value.key == "limit.challenges_received"
    # Answered challenges no longer count.
    first = await challenge(svc, ERIN, DAVE, channel=7)
    await svc.challenges.answer_challenge(first.id, DAVE, accept=False, rng=random.Random(1))
    assert (await challenge(svc, ERIN, DAVE, channel=8)).status == "pending"


def test_every_limit_message_exists_in_english_and_vietnamese() -> None:
    from bot.i18n.texts import EN

    for key in ("limit.member_ai_games", "limit.server_ai_games", "limit.server_watches",
                "limit.challenges_sent", "limit.challenges_received", "click.too_late",
                "game.unrated"):
        assert key in EN and key in VI, key
