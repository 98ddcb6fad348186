"""`/caro board`: the member's running game in this channel posted again at the bottom of the
channel, for when the conversation has buried it. The new message becomes the game's board; the
old one turns into a line linking to it, and its buttons (on any client that still shows them)
answer with that link and change nothing. In a game between two servers it moves the board of
the server it is used in, and only that one."""

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
        # Or the member's board in this channel of a game between two servers: only that board
        # moves, the game's own (in the other server) stays where it is.
        other = None if running is not None else await self.bot.services.queue.board_game(
            guild_id, channel_id, interaction.user.id)
        game_id = running.id if running is not None else other
        state = None if game_id is None else await games.state(game_id)
        if state is None or not state.active:
            await say(interaction, "error.no_running_game")
            return
        if other is not None:
            await self.bot.boards.repost_board(interaction, state, guild_id)
            return
        await self.bot.boards.repost(interaction, state)


__all__ = ["BoardCog"]
