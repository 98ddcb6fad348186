"""Slash command names, descriptions and choices in the user's language, through discord.py's
Translator: each text in bot/commands.py carries its id, looked up here per Discord locale."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from .texts import CATALOGUES, DEFAULT_LOCALE

# Discord locales the bot has a catalogue for (English is the default, sent as the base text).
TRANSLATED: dict[discord.Locale, str] = {discord.Locale.vietnamese: "vi"}


class CatalogueTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        language = TRANSLATED.get(locale)
        if key is None or language is None:
            return None  # Discord shows the English text
        return CATALOGUES[language].get(key)


def locale_of(interaction: discord.Interaction[Any]) -> str:
    """The language to answer `interaction` in: the user's Discord locale (e.g. "vi"), which
    texts.text_in maps to a catalogue, English when there is none."""
    locale = interaction.locale
    return locale.value if isinstance(locale, discord.Locale) else DEFAULT_LOCALE
