"""Short private answers in the member's language: refusals, errors, confirmations."""

from __future__ import annotations

from typing import Any

import discord

from bot.game.errors import UserError
from bot.i18n.texts import text_in
from bot.i18n.translator import locale_of


def localized(interaction: discord.Interaction[Any], error: UserError) -> str:
    return text_in(locale_of(interaction), error.key, **error.values)


async def say(interaction: discord.Interaction[Any], key: str, **values: object) -> None:
    """An ephemeral answer in the user's language."""
    await ephemeral(interaction, text_in(locale_of(interaction), key, **values))


async def refuse(interaction: discord.Interaction[Any], error: UserError) -> None:
    await ephemeral(interaction, localized(interaction, error))


async def ephemeral(interaction: discord.Interaction[Any], text: str) -> None:
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)
