"""Records and ratings: `/caro stats` (a member's record and rating chart with this server's
leaderboard) and `/caro leaderboard` (this server or every server, against people or against the AI; in this
server, a rating season or all time)."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, text
from bot.game.errors import UserError
from bot.game.model import Mode, RatedRow
from bot.game.ports import GLOBAL_SCOPE
from bot.game.rating_history import rating_lines
from bot.game.ratings import LEADERBOARD_MIN_GAMES
from bot.game.seasons import ALL_TIME, chosen_season, season_of
from bot.i18n.texts import text_in
from bot.i18n.translator import locale_of
from bot.ui import picture_jobs
from bot.ui.languages import language
from bot.ui.render import LEADERBOARD_SIZE, leaderboard_embed, server_leaderboard_embed, stats_embed
from bot.ui.replies import refuse

if TYPE_CHECKING:
    from bot.cogs.host import Host

SCOPES: tuple[str, ...] = ("server", "global")
MODES: tuple[Mode, ...] = (Mode.PVP, Mode.AI)
# The chart's file name in the message, which the stats embed points at.
CHART_PNG = "rating.png"


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
        record = stats_embed(target.display_name, stats, standings, loc, external=self.bot.external)
        board = server_leaderboard_embed(boards, loc, locale_of(interaction))
        await interaction.response.send_message(embeds=[record, board])
        # The chart follows in an edit: the stats show at once, while the picture waits for the
        # CPU pool, which AI moves may keep busy.
        settings = await self.bot.services.settings.timeouts(guild_id)
        season = season_of(settings.season_length, self._now())
        lines = await rating_lines(read, guild_id, target.id, season)
        if not lines:
            return
        chart = await self.bot.ai.run_on_cpu(
            interaction.user.id,
            picture_jobs.rating_chart_job,
            picture_jobs.chart_rows(lines),
            loc,
            await self.bot.services.preferences.theme(interaction.user.id),
        )
        record.set_image(url=f"attachment://{CHART_PNG}")
        alt = text_in(loc, "chart.alt", name=target.display_name)
        await interaction.edit_original_response(
            embeds=[record, board],
            attachments=[discord.File(io.BytesIO(chart), CHART_PNG, description=alt)],
        )

    @app_commands.command(name=text("cmdname.leaderboard"), description=text("cmd.leaderboard"))
    @app_commands.rename(**option_names("scope", "mode", "season"))
    @app_commands.describe(
        scope=text("cmd.leaderboard.scope"),
        mode=text("cmd.leaderboard.mode"),
        season=text("cmd.leaderboard.season"),
    )
    @app_commands.choices(scope=choices("scope", SCOPES), mode=choices("mode", MODES))
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        scope: str | None = None,
        mode: str | None = None,
        season: str | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None
        # Choices are only a client-side hint: anything else falls back to the defaults.
        scope = scope if scope in SCOPES else "server"
        chosen = Mode(mode) if mode in MODES else None
        read = self.bot.services.standings
        shown = None
        if scope == "server":
            settings = await self.bot.services.settings.timeouts(guild_id)
            try:
                shown = chosen_season(
                    season, settings.season_length, self._now(), await read.seasons(guild_id)
                )
            except UserError as exc:
                await refuse(interaction, exc)
                return
        elif season is not None and season.strip().lower() != ALL_TIME:
            # Seasons belong to one server: every server's board is all-time only.
            await refuse(interaction, UserError("season.global"))
            return
        async def table(of: Mode) -> list[RatedRow]:
            if shown is None:
                where = guild_id if scope == "server" else GLOBAL_SCOPE
                return await read.rated_leaderboard(where, of, min_games=LEADERBOARD_MIN_GAMES)
            return await read.season_leaderboard(
                guild_id, shown.name, of, min_games=LEADERBOARD_MIN_GAMES
            )

        # With no mode asked for, the table of what is played here: against people when anyone
        # is on it, else against the AI when anyone is on that one.
        if chosen is None:
            chosen, rows = Mode.PVP, await table(Mode.PVP)
            if not rows:
                against_ai = await table(Mode.AI)
                if against_ai:
                    chosen, rows = Mode.AI, against_ai
        else:
            rows = await table(chosen)
        await interaction.response.send_message(
            embed=leaderboard_embed(
                rows,
                scope,
                chosen,
                await language(interaction),
                locale_of(interaction),
                season=None if shown is None else shown.name,
            )
        )

    @leaderboard.autocomplete("season")
    async def season_suggestions(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The server's current season, its past ones (newest first) and all time, matching
        what is typed."""
        guild_id = interaction.guild_id
        if guild_id is None:
            return []
        settings = await self.bot.services.settings.timeouts(guild_id)
        names = [s.name for s in await self.bot.services.standings.seasons(guild_id)]
        now = season_of(settings.season_length, self._now())
        if now is not None and now.name not in names:
            names.insert(0, now.name)
        loc = await language(interaction)
        found = [app_commands.Choice(name=name, value=name) for name in names]
        found.append(app_commands.Choice(name=text_in(loc, "season.all_time"), value=ALL_TIME))
        typed = current.strip().lower()
        return [c for c in found if typed in c.value.lower() or typed in c.name.lower()][:25]

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.bot.services.clocks.now(), UTC)
