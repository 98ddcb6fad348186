"""Slash command names, descriptions and choices in the user's language, through discord.py's
Translator: each text in the command definitions carries its id, looked up here per Discord
locale in the same catalogues as every other text (bot/i18n/locales)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.i18n import texts
from bot.i18n.catalogue import Catalogues
from bot.i18n.texts import DEFAULT_LOCALE


class CatalogueTranslator(app_commands.Translator):
    """Every Discord locale with a catalogue gets its names and descriptions from it; for the
    others (English included) Discord shows the English base text. Adding a catalogue file adds
    the language here too."""

    def __init__(self, catalogues: Catalogues | None = None) -> None:
        self.catalogues = catalogues if catalogues is not None else texts.LOADED

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        if key is None:
            return None
        translated = self.catalogues.lookup(locale.value)
        # None: Discord shows the English text (also for an id not translated yet).
        return translated.get(key) if translated is not None else None


def locale_of(interaction: discord.Interaction[Any]) -> str:
    """The locale of the member's Discord client (e.g. "vi"): the language Discord shows them
    the commands' names in, so the one to name commands in (texts.command_names). The language
    to write to them in is bot.ui.languages.language, which also weighs the language they chose
    for caro and their server's default."""
    locale = interaction.locale
    return locale.value if isinstance(locale, discord.Locale) else DEFAULT_LOCALE
