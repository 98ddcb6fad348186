"""`/caro help`: how to play, in the member's language."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import text
from bot.game.levels import ExternalLevel
from bot.i18n.texts import text_in
from bot.i18n.translator import locale_of
from bot.ui.help_text import help_sections
from bot.ui.languages import language

if TYPE_CHECKING:
    from bot.cogs.host import Host


def help_embed(
    external: ExternalLevel, locale: str = "en-US", client: str | None = None
) -> discord.Embed:
    """/caro help as one embed: the introduction, then a field per section (commands named as
    a Discord client in `client` shows them; by default `locale`)."""
    (_, introduction), *sections = help_sections(locale, external, client)
    embed = discord.Embed(title=text_in(locale, "help.title"), description=introduction)
    for title, body in sections:
        embed.add_field(name=title, value=body, inline=False)
    return embed


class HelpCog(commands.Cog, name="Help"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.help"), description=text("cmd.help"))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            embed=help_embed(
                self.bot.external, await language(interaction), locale_of(interaction)
            ),
            ephemeral=True,
        )
