"""Interactions the double sends and what the bot answered."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from testkit.discord_double.state import EPHEMERAL, Changes, Message

APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5
KIND_NAMES = {2: "slash command", 3: "button click", 4: "autocomplete", 5: "modal submit"}


class InteractionFailed(AssertionError):
    """The bot did not acknowledge an interaction in time: Discord shows "This interaction failed"."""


@dataclass
class Interaction:
    id: str
    token: str
    kind: int
    user_id: str
    channel_id: str
    payload: dict[str, Any]
    description: str
    dispatched_at: float
    source_message: Message | None = None
    callback_type: int | None = None
    response_data: dict[str, Any] | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    failed: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None


class InteractionResult:
    """How the bot answered one interaction (live: later edits show through `.message`)."""

    def __init__(self, interaction: Interaction, changes: Changes) -> None:
        self._interaction = interaction
        self._changes = changes

    def __repr__(self) -> str:
        return (f"<InteractionResult {self._interaction.description} type={self.callback_type} "
                f"ephemeral={self.ephemeral} content={self.content!r}>")

    @property
    def interaction_id(self) -> str:
        return self._interaction.id

    @property
    def token(self) -> str:
        return self._interaction.token

    @property
    def callback_type(self) -> int | None:
        return self._interaction.callback_type

    @property
    def data(self) -> dict[str, Any]:
        """The `data` the bot sent with its initial response."""
        return dict(self._interaction.response_data or {})

    @property
    def ephemeral(self) -> bool:
        if self.message is not None and self.callback_type in (4, 5):
            return self.message.ephemeral
        return bool(int(self.data.get("flags") or 0) & EPHEMERAL)

    @property
    def content(self) -> str | None:
        value = self.data.get("content")
        return None if value is None else str(value)

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.data.get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return list(self.data.get("components") or [])

    @property
    def modal(self) -> dict[str, Any] | None:
        """The modal the bot opened (callback type 9), else None."""
        return self._interaction.modal

    @property
    def message(self) -> Message | None:
        return self._interaction.original

    async def followups(self, n: int = 1, timeout: float = 10.0) -> list[Message]:
        """The first `n` messages the bot sent through this interaction's follow-up webhook.

        After a "thinking" defer (type 5), Discord turns the first follow-up into the placeholder
        message itself, so that one is also `.message`.
        """
        inter = self._interaction
        if await self._changes.wait_until(lambda: len(inter.followups) >= n, timeout):
            return inter.followups[:n]
        raise AssertionError(f"{inter.description}: expected {n} follow-up(s) within {timeout} s, "
                             f"got {len(inter.followups)}")
