"""`/caro help`: how to play, in the member's language."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from ..help_text import help_sections
from ..slash import text
from ..texts import text_in
from ..translator import locale_of

if TYPE_CHECKING:
    from .host import Host


def help_embed(locale: str = "en-US") -> discord.Embed:
    """/caro help as one embed: the introduction, then a field per section."""
    (_, introduction), *sections = help_sections(locale)
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
            embed=help_embed(locale_of(interaction)), ephemeral=True
        )
