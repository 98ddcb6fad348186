"""What an outbox row renders to (bot.game.outbox_model): a new message to send, an edit of a
message already there, or nothing left to do. The renderers (the feature cogs) make these from
the database when the row is sent; the sender (bot.cogs.outbox) sends them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord


def no_mentions() -> discord.AllowedMentions:
    return discord.AllowedMentions.none()


@dataclass(frozen=True, slots=True)
class NewMessage:
    content: str
    file: discord.File | None = None
    # Its buttons (a takeback request's Accept and Decline).
    view: discord.ui.View | None = None
    allowed_mentions: discord.AllowedMentions = field(default_factory=no_mentions)
    # A reply to this message, and what to send instead if Discord forbids the reply (it needs
    # Read Message History; the message alone needs only Send Messages).
    reference: discord.MessageReference | None = None
    fallback: NewMessage | None = None
    # Told the id of the message once it is sent (awaited before the row is marked sent).
    sent: Callable[[int], Awaitable[None]] | None = None


@dataclass(frozen=True, slots=True)
class MessageEdit:
    """`parts` are PartialMessage.edit's keyword arguments."""

    message_id: int
    parts: dict[str, Any]
    allowed_mentions: discord.AllowedMentions = field(default_factory=no_mentions)


# None: nothing to send any more (the tournament is gone, the message to edit never existed).
Rendered = NewMessage | MessageEdit | None

__all__ = ["MessageEdit", "NewMessage", "Rendered"]
