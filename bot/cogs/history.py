"""`/caro history [member]`: a member's last finished games in this server (opponent, result,
rating change), with Replay and Review buttons per game, paged with Prev / Next."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import option_names, text
from bot.game.errors import UserError
from bot.ui.buttons import HistoryPage, answers
from bot.ui.languages import language
from bot.ui.record_views import history_content, history_view, translator

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
            history_content(page, tr, self.bot.external), view=history_view(page, tr)
        )

    @answers(HistoryPage)
    async def turn_page(
        self, interaction: discord.Interaction[Any], click: HistoryPage, _: None
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            raise UserError("history.bad_page")
        # The page's range is checked by the history itself, whoever asks.
        page = await self.bot.services.records.history(guild_id, click.user, click.page)
        tr = translator(await language(interaction))
        await interaction.response.edit_message(
            content=history_content(page, tr, self.bot.external), view=history_view(page, tr)
        )


__all__ = ["HistoryCog"]
