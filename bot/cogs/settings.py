"""Per-server settings: `/caro settings` shows the turn time limits, and changes them for
members who may manage the server."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import option_names, text
from bot.game.errors import UserError
from bot.game.model import GuildSettings
from bot.game.options import parse_timeout
from bot.i18n.texts import text_in
from bot.i18n.translator import locale_of
from bot.ui.replies import refuse, say

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


class SettingsCog(commands.Cog, name="Settings"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.settings"), description=text("cmd.settings"))
    @app_commands.rename(**option_names("timeout", "ai_timeout"))
    @app_commands.describe(
        timeout=text("cmd.settings.timeout"), ai_timeout=text("cmd.settings.ai_timeout")
    )
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        timeout: float | None = None,
        ai_timeout: float | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # the /caro group checks this
        minimum = self.bot.min_timeout
        current = await self.bot.services.settings.timeouts(guild_id)
        if timeout is not None or ai_timeout is not None:
            if not interaction.permissions.manage_guild:
                await say(interaction, "error.no_permission")
                return
            try:
                current = GuildSettings(
                    pvp_timeout=current.pvp_timeout
                    if timeout is None
                    else parse_timeout(timeout, minimum_seconds=minimum),
                    ai_timeout=current.ai_timeout
                    if ai_timeout is None
                    else parse_timeout(ai_timeout, minimum_seconds=minimum),
                )
            except UserError as exc:
                await refuse(interaction, exc)
                return
            await self.bot.services.settings.save_timeouts(guild_id, current)
            log.info("guild %d: turn limits %s", guild_id, current)
        await interaction.response.send_message(
            text_in(
                locale_of(interaction),
                "settings.saved",
                pvp=f"{current.pvp_timeout / 60:g}",
                ai=f"{current.ai_timeout / 60:g}",
            ),
            ephemeral=True,
        )
