"""`/caro board`: the member's running game in this channel posted again at the bottom of the
channel, for when the conversation has buried it. The new message becomes the game's board; the
old one turns into a line linking to it, and its buttons (on any client that still shows them)
answer with that link and change nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import text
from bot.ui.replies import say

if TYPE_CHECKING:
    from bot.cogs.host import Host


class BoardCog(commands.Cog, name="Board"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.board"), description=text("cmd.board"))
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        games = self.bot.services.games
        running = await games.active_game(guild_id, channel_id, interaction.user.id)
        state = None if running is None else await games.state(running.id)
        if state is None or not state.active:
            await say(interaction, "error.no_running_game")
            return
        await self.bot.boards.repost(interaction, state)


__all__ = ["BoardCog"]
