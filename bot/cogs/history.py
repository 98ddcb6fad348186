"""`/caro history [member]`: a member's last finished games in this server (opponent, result,
rating change), with Replay and Review buttons per game, paged with Prev / Next."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import option_names, text
from bot.game.errors import UserError
from bot.game.records import HistoryPage
from bot.ui.buttons import HistoryPage as PageClick
from bot.ui.buttons import answers
from bot.ui.languages import language
from bot.ui.record_views import Translate, history_content, history_view, translator

if TYPE_CHECKING:
    from bot.cogs.host import Host

class HistoryCog(commands.Cog, name="History"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.history"), description=text("cmd.history"))
    @app_commands.rename(**option_names("member"))
    @app_commands.describe(member=text("cmd.history.member"))
    async def history(
        self, interaction: discord.Interaction[Any], member: discord.User | None = None
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # the /caro group checks this
        target = member or interaction.user
        page = await self.bot.services.records.history(guild_id, target.id, 0)
        tr = translator(await language(interaction))
        await interaction.response.send_message(
            await self.content(page, guild_id, tr), view=history_view(page, tr)
        )

    @answers(PageClick)
    async def turn_page(
        self, interaction: discord.Interaction[Any], click: PageClick, _: None
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            raise UserError("history.bad_page")
        # The page's range is checked by the history itself, whoever asks.
        page = await self.bot.services.records.history(guild_id, click.user, click.page)
        tr = translator(await language(interaction))
        await interaction.response.edit_message(
            content=await self.content(page, guild_id, tr), view=history_view(page, tr)
        )

    async def content(self, page: HistoryPage, guild_id: int, tr: Translate) -> str:
        """The page's text in this server: a player of another server called by name."""
        look = self.bot.boards.look
        named = {
            entry.state.id: await look.record_names(entry.state, guild_id)
            for entry in page.entries
        }
        return history_content(page, tr, self.bot.external, named)


__all__ = ["HistoryCog"]
