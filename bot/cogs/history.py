"""`/caro history [member]`: a member's last finished games in this server (opponent, result,
rating change), with Replay and Review buttons per game, paged with Prev / Next."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Self

import discord
from discord import app_commands
from discord.ext import commands

from ..errors import UserError
from ..items import Action, CaroButton
from ..record_views import history_content, history_view, translator
from ..replies import refuse
from ..slash import option_names, text
from ..translator import locale_of
from .common import bot_of
from .replay import refuse_other_message

if TYPE_CHECKING:
    from ..client import CaroBot

PAGE = r"0|[1-9][0-9]{0,2}"  # up to MAX_HISTORY_PAGE
# A member's Discord id (a snowflake: up to 20 digits), not one of the bot's own row ids.
SNOWFLAKE = r"[1-9][0-9]{0,19}"


class HistoryPageButton(CaroButton, template=rf"caro:hp:(?P<user>{SNOWFLAKE}):(?P<page>{PAGE})"):
    """caro:hp:<member>:<page>: show that page of the member's history on this message."""

    action = Action.HISTORY_PAGE

    def __init__(self, user: int, page: int, **style: Any) -> None:
        super().__init__(f"caro:hp:{user}:{page}", **style)
        self.user, self.page = user, page

    @classmethod
    def build(cls, **fields: Any) -> Self:
        return cls(fields.pop("user"), fields.pop("page"), **fields)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["user"]), int(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        guild_id = interaction.guild_id
        try:
            refuse_other_message(interaction, self.custom_id)
            if guild_id is None:
                raise UserError("history.bad_page")
            # The page's range is checked by the history itself, whoever asks.
            page = await bot_of(interaction).records.history(guild_id, self.user, self.page)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        tr = translator(locale_of(interaction))
        await interaction.response.edit_message(
            content=history_content(page, tr), view=history_view(page, tr)
        )


class HistoryCog(commands.Cog, name="History"):
    def __init__(self, bot: CaroBot) -> None:
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
        page = await self.bot.records.history(guild_id, target.id, 0)
        tr = translator(locale_of(interaction))
        await interaction.response.send_message(
            history_content(page, tr), view=history_view(page, tr)
        )


__all__ = ["HistoryCog", "HistoryPageButton"]
