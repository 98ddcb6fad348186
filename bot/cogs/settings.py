"""`/caro settings`: a member's own settings (board style, turn pings, clock warnings,
language), and the server's (turn time limits, default language, rating seasons) for members who may manage the
server. With no option it shows them."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, text
from bot.game.errors import UserError
from bot.game.model import GuildSettings, MemberSettings
from bot.game.options import (
    AUTO_LANGUAGE,
    LANGUAGES,
    THEMES,
    parse_language,
    parse_theme,
    parse_timeout,
)
from bot.game.seasons import SEASON_LENGTHS, parse_season_length
from bot.i18n.texts import text_in
from bot.ui.languages import language as reply_language
from bot.ui.replies import refuse, say

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


class SettingsCog(commands.Cog, name="Settings"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.settings"), description=text("cmd.settings"))
    @app_commands.rename(
        **option_names(
            "theme",
            "pings",
            "clock_warnings",
            "language",
            "timeout",
            "ai_timeout",
            "server_language",
            "season_length",
            "tournament_role",
            "clear_tournament_role",
            "cross_server",
        )
    )
    @app_commands.describe(
        theme=text("cmd.settings.theme"),
        pings=text("cmd.settings.pings"),
        clock_warnings=text("cmd.settings.clock_warnings"),
        language=text("cmd.settings.language"),
        timeout=text("cmd.settings.timeout"),
        ai_timeout=text("cmd.settings.ai_timeout"),
        server_language=text("cmd.settings.server_language"),
        season_length=text("cmd.settings.season_length"),
        tournament_role=text("cmd.settings.tournament_role"),
        clear_tournament_role=text("cmd.settings.clear_tournament_role"),
        cross_server=text("cmd.settings.cross_server"),
    )
    @app_commands.choices(
        theme=choices("theme", THEMES),
        language=choices("language", LANGUAGES),
        server_language=choices("language", LANGUAGES),
        season_length=choices("season_length", SEASON_LENGTHS),
    )
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        theme: str | None = None,
        pings: bool | None = None,
        clock_warnings: bool | None = None,
        language: str | None = None,
        timeout: float | None = None,
        ai_timeout: float | None = None,
        server_language: str | None = None,
        season_length: str | None = None,
        tournament_role: discord.Role | None = None,
        clear_tournament_role: bool | None = None,
        cross_server: bool | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # the /caro group checks this
        services = self.bot.services
        server_asked = (
            timeout is not None
            or ai_timeout is not None
            or server_language is not None
            or season_length is not None
            or tournament_role is not None
            or clear_tournament_role is not None
            or cross_server is not None
        )
        if server_asked and not interaction.permissions.manage_guild:
            await say(interaction, "error.no_permission")
            return
        server = await services.settings.timeouts(guild_id)
        mine = await services.preferences.member(interaction.user.id)
        try:
            new_server = self._server(server, timeout, ai_timeout, server_language, season_length)
            if tournament_role is not None:
                new_server = replace(new_server, tournament_role=tournament_role.id)
            elif clear_tournament_role:
                new_server = replace(new_server, tournament_role=None)
            if cross_server is not None:
                new_server = replace(new_server, cross_server=cross_server)
            new_mine = replace(
                mine,
                theme=mine.theme if theme is None else parse_theme(theme),
                turn_pings=mine.turn_pings if pings is None else pings,
                clock_warnings=mine.clock_warnings if clock_warnings is None else clock_warnings,
                language=mine.language if language is None else parse_language(language),
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        # Each is saved only when it changed: both are validated first, so a bad option saves
        # neither.
        if new_server != server:
            await services.settings.save_timeouts(guild_id, new_server)
            log.info("guild %d: server settings %s", guild_id, new_server)
            if server.cross_server and not new_server.cross_server:
                # Nobody of the server waiting now is paired across servers either.
                await services.queue.keep_local(guild_id)
        if new_mine != mine:
            await services.preferences.save_member(interaction.user.id, new_mine)
        await interaction.response.send_message(
            shown_settings(await reply_language(interaction), new_server, new_mine),
            ephemeral=True,
        )

    def _server(
        self,
        current: GuildSettings,
        timeout: float | None,
        ai_timeout: float | None,
        server_language: str | None,
        season_length: str | None,
    ) -> GuildSettings:
        minimum = self.bot.min_timeout
        return GuildSettings(
            pvp_timeout=current.pvp_timeout
            if timeout is None
            else parse_timeout(timeout, minimum_seconds=minimum),
            ai_timeout=current.ai_timeout
            if ai_timeout is None
            else parse_timeout(ai_timeout, minimum_seconds=minimum),
            language=current.language
            if server_language is None
            else parse_language(server_language),
            season_length=current.season_length
            if season_length is None
            else parse_season_length(season_length),
            tournament_role=current.tournament_role,
            cross_server=current.cross_server,
        )


def shown_settings(locale: str, server: GuildSettings, mine: MemberSettings) -> str:
    """The server's settings and the member's own, as /caro settings shows them."""

    def on_off(value: bool) -> str:
        return text_in(locale, "settings.on" if value else "settings.off")

    def language_name(language: str | None) -> str:
        return text_in(locale, f"language.{language or AUTO_LANGUAGE}")

    theme = mine.style.value
    return "\n".join(
        (
            text_in(
                locale,
                "settings.saved",
                pvp=f"{server.pvp_timeout / 60:g}",
                ai=f"{server.ai_timeout / 60:g}",
            ),
            text_in(locale, "settings.server_language", language=language_name(server.language)),
            text_in(
                locale,
                "settings.season_length",
                length=text_in(locale, f"season_length.{server.season_length.value}"),
            ),
            text_in(
                locale,
                "settings.tournament_role",
                role=text_in(locale, "settings.no_role")
                if server.tournament_role is None
                else f"<@&{server.tournament_role}>",
            ),
            text_in(locale, "settings.cross_server", state=on_off(server.cross_server)),
            text_in(
                locale,
                "settings.mine",
                theme=text_in(locale, f"theme.{theme}"),
                pings=on_off(mine.turn_pings),
                warnings=on_off(mine.clock_warnings),
                language=language_name(mine.language),
            ),
        )
    )
