"""Takebacks: `/caro takeback` takes the member's last move back in a casual game (against the AI
at once; between members once the other accepts, with the buttons of a request posted in the
channel). The rules are the game's (bot.game.takebacks); this parses, calls and draws."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import text
from bot.game.errors import UserError
from bot.game.model import GameState, jump_link
from bot.game.takebacks import Request
from bot.i18n.texts import text_in
from bot.ui.buttons import TakebackAccept, TakebackDecline, answers
from bot.ui.render import takeback_request_content, takeback_request_view
from bot.ui.replies import refuse, say

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


def board_link(state: GameState) -> str:
    row = state.row
    return "" if row.message_id is None else jump_link(row.guild_id, row.channel_id, row.message_id)


class TakebackCog(commands.Cog, name="Takeback"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.takeback"), description=text("cmd.takeback"))
    async def takeback(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        user_id = interaction.user.id
        running = await self.bot.services.games.active_game(guild_id, channel_id, user_id)
        if running is None:
            # The member's board in this channel of a game between two servers: refused below.
            if await self.bot.services.queue.board_game(guild_id, channel_id, user_id):
                await say(interaction, "takeback.cross_server")
                return
            await say(interaction, "error.no_running_game")
            return
        if await self.bot.services.queue.boards(running.id):
            # A game between two servers: the other member would be asked in a channel they
            # cannot see.
            await say(interaction, "takeback.cross_server")
            return
        try:
            done = await self.bot.services.takebacks.take_back(running.id, user_id)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        if isinstance(done, Request):
            await interaction.response.send_message(
                takeback_request_content(done.state, done.requester, done.opponent),
                view=takeback_request_view(done.state),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=done.opponent)]),
            )
            log.info("game %d: takeback asked at move %d", done.state.id, done.state.board.ply)
            return
        await say(interaction, "takeback.done", link=board_link(done))
        await self.bot.boards.taken_back(done)

    @answers(TakebackAccept)
    async def accept(
        self, interaction: discord.Interaction[Any], click: TakebackAccept, _: None
    ) -> None:
        state = await self.bot.services.takebacks.accept(click.game, click.ply, interaction.user.id)
        line = text_in(
            state.row.locale,
            "takeback.accepted",
            user=f"<@{interaction.user.id}>",
            link=board_link(state),
        )
        await interaction.response.edit_message(content=line, view=None)
        await self.bot.boards.taken_back(state)
        # It is the asker's turn again: they are called like after any move.
        self.bot.spawn(self.bot.boards.notices.turn(state, actor=interaction.user.id))

    @answers(TakebackDecline)
    async def decline(
        self, interaction: discord.Interaction[Any], click: TakebackDecline, _: None
    ) -> None:
        state = await self.bot.services.takebacks.decline(
            click.game, click.ply, interaction.user.id
        )
        line = text_in(state.row.locale, "takeback.declined", user=f"<@{interaction.user.id}>")
        await interaction.response.edit_message(content=line, view=None)


__all__ = ["TakebackCog", "board_link"]
