"""What members do together through the double: a challenge made and accepted, and the permission
bits a member is given to act as a moderator."""

from __future__ import annotations

from typing import Any

MANAGE_MESSAGES = 1 << 13  # may stop anyone's AI-vs-AI game
MANAGE_GUILD = 1 << 5  # may change the server's settings


async def accepted_game(alice: Any, bob: Any, **options: Any) -> Any:
    """Alice challenges Bob, Bob accepts: the challenge message, now the board."""
    challenge = await alice.slash("caro challenge", opponent=bob, **options)
    assert challenge.callback_type == 4 and not challenge.ephemeral
    answer = await bob.click(challenge.message, "Accept")
    assert answer.callback_type == 7, answer
    return challenge.message

