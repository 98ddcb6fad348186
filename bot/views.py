"""The board's cell buttons as DynamicItems: a click is understood from its custom_id alone, so
boards keep working after a restart without any view kept in memory."""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from .games import CUSTOM_ID

EMPTY_LABEL = "\u200b"  # zero-width space: Discord needs a label, an empty cell shows none


class ClickHandler(Protocol):
    async def handle_click(self, interaction: discord.Interaction[Any], custom_id: str) -> None: ...


class CellButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=CUSTOM_ID.pattern):
    def __init__(
        self,
        custom_id: str,
        *,
        label: str = EMPTY_LABEL,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                custom_id=custom_id, label=label, style=style, disabled=disabled, row=row
            ),
            row=row,
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> CellButton:
        return cls(match.string)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handler = cast(ClickHandler, interaction.client)
        await handler.handle_click(interaction, self.custom_id)


def message_has_custom_id(message: discord.Message | None, custom_id: str) -> bool:
    """Whether the message carries a component with this custom_id (discord.py dispatches a
    DynamicItem only then, so other clicks need an answer from elsewhere)."""
    if message is None:
        return False
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        stack.extend(getattr(component, "children", ()) or ())
    return False


def is_cell_click(custom_id: str, message: discord.Message | None) -> bool:
    return CUSTOM_ID.fullmatch(custom_id) is not None and message_has_custom_id(message, custom_id)
