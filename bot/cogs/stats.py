"""Records and ratings: `/caro stats` (a member's record with this server's leaderboard) and
`/caro leaderboard` (this server or every server, against people or against the AI)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, text
from bot.game.model import Mode
from bot.game.ports import GLOBAL_SCOPE
from bot.game.ratings import LEADERBOARD_MIN_GAMES
from bot.i18n.translator import locale_of
from bot.ui.languages import language
from bot.ui.render import LEADERBOARD_SIZE, leaderboard_embed, server_leaderboard_embed, stats_embed

if TYPE_CHECKING:
    from bot.cogs.host import Host

SCOPES: tuple[str, ...] = ("server", "global")
MODES: tuple[Mode, ...] = (Mode.PVP, Mode.AI)


class StatsCog(commands.Cog, name="Stats"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.stats"), description=text("cmd.stats"))
    @app_commands.rename(**option_names("user"))
    @app_commands.describe(user=text("cmd.stats.user"))
    async def stats(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # the /caro group checks this
        target = user or interaction.user
        read = self.bot.services.standings
        stats = await read.user_stats(guild_id, target.id)
        standings = {mode: await read.standing(guild_id, target.id, mode) for mode in MODES}
        boards = {
            mode: await read.rated_leaderboard(
                guild_id, mode, min_games=LEADERBOARD_MIN_GAMES, limit=LEADERBOARD_SIZE
            )
            for mode in MODES
        }
        loc = await language(interaction)
        await interaction.response.send_message(
            embeds=[
                stats_embed(target.display_name, stats, standings, loc, external=self.bot.external),
                server_leaderboard_embed(boards, loc, locale_of(interaction)),
            ]
        )

    @app_commands.command(name=text("cmdname.leaderboard"), description=text("cmd.leaderboard"))
    @app_commands.rename(**option_names("scope", "mode"))
    @app_commands.describe(scope=text("cmd.leaderboard.scope"), mode=text("cmd.leaderboard.mode"))
    @app_commands.choices(scope=choices("scope", SCOPES), mode=choices("mode", MODES))
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        scope: str | None = None,
        mode: str | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None
        # Choices are only a client-side hint: anything else falls back to the defaults.
        scope = scope if scope in SCOPES else "server"
        chosen = Mode(mode) if mode in MODES else Mode.PVP
        rows = await self.bot.services.standings.rated_leaderboard(
            guild_id if scope == "server" else GLOBAL_SCOPE, chosen, min_games=LEADERBOARD_MIN_GAMES
        )
        await interaction.response.send_message(
            embed=leaderboard_embed(
                rows, scope, chosen, await language(interaction), locale_of(interaction)
            )
        )
