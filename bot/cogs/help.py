"""`/caro help`: how to play, in the member's language."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from ..render import help_embed
from ..slash import text
from ..translator import locale_of

if TYPE_CHECKING:
    from ..client import CaroBot


class HelpCog(commands.Cog, name="Help"):
    def __init__(self, bot: CaroBot) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.help"), description=text("cmd.help"))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            embed=help_embed(locale_of(interaction)), ephemeral=True
        )
