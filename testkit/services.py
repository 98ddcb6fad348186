"""The game services driven the way the cogs drive them, for the service tests: the members, server
and channel they play in, a game between two members from an accepted challenge, a member's move,
a pending challenge and a game against the AI started."""

from __future__ import annotations

import random

from bot.game.model import MoveRef
from bot.game.options import CHALLENGE_FIRSTS, parse_options
from bot.game.services import Services

GUILD, CHANNEL = 10, 20
ALICE, BOB, CAROL, DAVE, ERIN = 30, 40, 50, 60, 70


async def pvp_game(svc: Services, first: str = "me", size: str = "3x3"):
    """Alice challenges Bob, Bob accepts: the game, its board message attached."""
    challenge = await svc.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB,
        opponent_is_bot=False,
        options=parse_options(None, size, None, first, firsts=CHALLENGE_FIRSTS), locale="en-US",
    )
    _, state = await svc.challenges.answer_challenge(challenge.id, BOB, accept=True, rng=random.Random(1))
    assert state is not None
    await svc.games.attach_message(state.id, 900 + state.id)
    return state


async def move(svc: Services, game_id: int, user: int, cell: str):
    """`user` plays `cell` on the game as it stands."""
    state = await svc.games.state(game_id)
    assert state is not None
    return await svc.moves.play(MoveRef(game_id, state.board.ply, cell), user_id=user, message_id=None)


async def challenge(svc: Services, challenger: int, opponent: int, channel: int = CHANNEL,
                    size: str = "3x3"):
    """A pending challenge from `challenger` to `opponent`."""
    return await svc.challenges.challenge(
        guild_id=GUILD, channel_id=channel, challenger_id=challenger, opponent_id=opponent,
        opponent_is_bot=False, locale="en-US",
        options=parse_options(None, size, None, "me", firsts=CHALLENGE_FIRSTS),
    )


async def start(svc: Services, player: int, channel: int = CHANNEL, size: str = "3x3",
                level: str = "easy"):
    """A game of `player` against the AI at `level`."""
    return await svc.games.start(guild_id=GUILD, channel_id=channel, player_id=player,
                             options=parse_options(level, size), rng=random.Random(1))
