"""Short private answers in the member's language: refusals, errors, confirmations."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.game.errors import UserError
from bot.ui.languages import reply_text

log = logging.getLogger("caro.bot")


async def localized(interaction: discord.Interaction[Any], error: UserError) -> str:
    return await reply_text(interaction, error.key, **error.values)


async def say(interaction: discord.Interaction[Any], key: str, **values: object) -> None:
    """An ephemeral answer in the user's language."""
    await ephemeral(interaction, await reply_text(interaction, key, **values))


async def refuse(interaction: discord.Interaction[Any], error: UserError) -> None:
    await ephemeral(interaction, await localized(interaction, error))


async def ephemeral(interaction: discord.Interaction[Any], text: str) -> None:
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


async def unreachable(interaction: discord.Interaction[Any]) -> None:
    """The database is away (StorageUnavailable): the member is told privately that nothing was
    changed. The log said so once when it was lost (bot.storage.health), not per member."""
    try:
        await say(interaction, "error.storage_unavailable")
    except discord.HTTPException as exc:
        log.warning("could not tell a member the database is away (%s)", exc)
