"""The tournament cog: `/caro tournament create | add_ai | standings | start | pause | resume |
remove | cancel` and the announcement's Join and Leave buttons. The members' and organisers'
actions are bot.game.tournaments', what is shown bot.game.tournament_reads'; the watcher that
steps the tournaments and posts their games is bot.cogs.tournament.watcher, the drawing of their
posts (render_post, for bot.cogs.outbox) bot.cogs.tournament.posts."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, size_suggestions, text
from bot.cogs.tournament.posts import TournamentPosts
from bot.cogs.tournament.watcher import TournamentWatcher
from bot.game.errors import UserError
from bot.game.options import OPENINGS, RULES
from bot.game.outbox_model import PostRow
from bot.game.pairings import Format
from bot.game.tournament_model import (
    Entrant,
    TournamentRow,
    TournamentStatus,
    is_member_entrant,
)
from bot.game.tournaments import Organiser, TournamentOptions
from bot.ui.buttons import TournamentJoin, TournamentLeave, answers
from bot.ui.display_names import display_names
from bot.ui.languages import language
from bot.ui.posts import Rendered
from bot.ui.replies import refuse, say
from bot.ui.tournaments import announcement, entrant_label, translator
from engine.game.types import LEVELS

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")

FORMATS: tuple[str, ...] = tuple(f.value for f in Format)
MENTION = re.compile(r"<@!?([1-9][0-9]{0,19})>")


def organiser_of(interaction: discord.Interaction[Any]) -> Organiser:
    roles = getattr(interaction.user, "roles", ())
    return Organiser(
        user_id=interaction.user.id,
        manage_server=interaction.permissions.manage_guild,
        roles=frozenset(role.id for role in roles),
    )


def entrant_of(typed: str) -> Entrant:
    """The entry a member typed or picked: a mention or id of a member, or an AI entry's id."""
    cleaned = typed.strip()
    found = MENTION.fullmatch(cleaned)
    if found:
        return found[1]
    return cleaned.lower()


class TournamentCog(commands.Cog, name="Tournament"):
    tournament = app_commands.Group(
        name=text("cmdname.tournament"), description=text("cmd.tournament")
    )

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self.watcher = TournamentWatcher(bot)
        self.posts = TournamentPosts(bot)

    async def cog_load(self) -> None:
        self.bot.spawn(self.watcher.run_tournaments())

    # ------------------------------------------------------------------ commands
    @tournament.command(
        name=text("cmdname.tournament_create"), description=text("cmd.tournament_create")
    )
    @app_commands.rename(
        **option_names(
            "format", "rounds", "minutes", "size", "rule", "opening", "turn_seconds", "rated",
            "starts_in", "max_players",
        )
    )
    @app_commands.describe(
        format=text("cmd.tournament_create.format"),
        rounds=text("cmd.tournament_create.rounds"),
        minutes=text("cmd.tournament_create.minutes"),
        size=text("cmd.start.size"),
        rule=text("cmd.start.rule"),
        opening=text("cmd.start.opening"),
        turn_seconds=text("cmd.tournament_create.turn_seconds"),
        rated=text("cmd.tournament_create.rated"),
        starts_in=text("cmd.tournament_create.starts_in"),
        max_players=text("cmd.tournament_create.max_players"),
    )
    @app_commands.choices(
        format=choices("format", FORMATS),
        rule=choices("rule", RULES),
        opening=choices("openingname", OPENINGS),
    )
    @app_commands.autocomplete(size=size_suggestions)
    async def create(
        self,
        interaction: discord.Interaction[Any],
        format: str,
        rounds: int | None = None,
        minutes: int | None = None,
        size: str | None = None,
        rule: str | None = None,
        opening: str | None = None,
        turn_seconds: int | None = None,
        rated: bool = True,
        starts_in: int | None = None,
        max_players: int | None = None,
    ) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        locale = await language(interaction, public=True)
        service = self.bot.services.tournaments
        try:
            row = await service.create(
                guild_id=guild_id,
                channel_id=channel_id,
                creator=organiser_of(interaction),
                options=TournamentOptions(
                    format=format, rounds=rounds, minutes=minutes, size=size, rule=rule,
                    opening=opening, turn_seconds=turn_seconds, rated=rated,
                    starts_in=starts_in, max_players=max_players,
                ),
                min_turn_seconds=self.bot.min_timeout,
                locale=locale,
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        response = await interaction.response.send_message(
            **announcement(row, []), allowed_mentions=discord.AllowedMentions.none()
        )
        message_id = response.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await service.attach_message(row.id, message_id)
        log.info(
            "tournament %d: created by %s (%s)", row.id, interaction.user.id, row.format.value
        )

    @tournament.command(
        name=text("cmdname.tournament_add_ai"), description=text("cmd.tournament_add_ai")
    )
    @app_commands.rename(**option_names("level", "tournament"))
    @app_commands.describe(
        level=text("cmd.tournament_add_ai.level"), tournament=text("cmd.tournament.which")
    )
    @app_commands.choices(level=choices("level", LEVELS))
    async def add_ai(
        self, interaction: discord.Interaction[Any], level: str, tournament: int | None = None
    ) -> None:
        async def act(row: TournamentRow) -> str:
            entrant = await self.bot.services.tournaments.add_ai(
                row.id, level, organiser_of(interaction)
            )
            return translator(row.locale)("tournament.ai_added", id=row.id, name=entrant_label(
                entrant, translator(row.locale)
            ))

        await self._control(interaction, tournament, act)

    @tournament.command(
        name=text("cmdname.tournament_standings"), description=text("cmd.tournament_standings")
    )
    @app_commands.rename(**option_names("tournament"))
    @app_commands.describe(tournament=text("cmd.tournament.which"))
    async def standings(
        self, interaction: discord.Interaction[Any], tournament: int | None = None
    ) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None
        try:
            row = await self.bot.services.tournament_reads.latest(guild_id, channel_id, tournament)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await interaction.response.defer()
        tr = translator(await language(interaction, public=True))
        content, file = await self.posts.standings_post(row, tr, final=row.status.over, round=None)
        await interaction.followup.send(
            content=content, file=file, allowed_mentions=discord.AllowedMentions.none()
        )

    @tournament.command(
        name=text("cmdname.tournament_start"), description=text("cmd.tournament_start")
    )
    @app_commands.rename(**option_names("tournament"))
    @app_commands.describe(tournament=text("cmd.tournament.which"))
    async def start(
        self, interaction: discord.Interaction[Any], tournament: int | None = None
    ) -> None:
        async def act(row: TournamentRow) -> str:
            progress = await self.bot.services.tournaments.start_now(
                row.id, organiser_of(interaction)
            )
            self.bot.spawn(self.watcher.publish(progress))
            key = "tournament.too_few" if progress.too_few else "tournament.starting"
            return translator(row.locale)(key, id=row.id)

        await self._control(interaction, tournament, act)

    @tournament.command(
        name=text("cmdname.tournament_pause"), description=text("cmd.tournament_pause")
    )
    @app_commands.rename(**option_names("tournament"))
    @app_commands.describe(tournament=text("cmd.tournament.which"))
    async def pause(
        self, interaction: discord.Interaction[Any], tournament: int | None = None
    ) -> None:
        async def act(row: TournamentRow) -> str:
            await self.bot.services.tournaments.pause(row.id, organiser_of(interaction))
            return translator(row.locale)("tournament.paused_msg", id=row.id)

        await self._control(interaction, tournament, act)

    @tournament.command(
        name=text("cmdname.tournament_resume"), description=text("cmd.tournament_resume")
    )
    @app_commands.rename(**option_names("tournament"))
    @app_commands.describe(tournament=text("cmd.tournament.which"))
    async def resume(
        self, interaction: discord.Interaction[Any], tournament: int | None = None
    ) -> None:
        async def act(row: TournamentRow) -> str:
            await self.bot.services.tournaments.resume(row.id, organiser_of(interaction))
            return translator(row.locale)("tournament.resumed_msg", id=row.id)

        await self._control(interaction, tournament, act)

    @tournament.command(
        name=text("cmdname.tournament_remove"), description=text("cmd.tournament_remove")
    )
    @app_commands.rename(**option_names("player", "tournament"))
    @app_commands.describe(
        player=text("cmd.tournament_remove.player"), tournament=text("cmd.tournament.which")
    )
    async def remove(
        self, interaction: discord.Interaction[Any], player: str, tournament: int | None = None
    ) -> None:
        async def act(row: TournamentRow) -> str:
            entrant = entrant_of(player)
            removal = await self.bot.services.tournaments.remove(
                row.id, entrant, organiser_of(interaction)
            )
            self.bot.spawn(self.watcher.redraw_games(removal.ended))
            tr = translator(row.locale)
            said = tr("tournament.removed_msg", id=row.id, name=entrant_label(entrant, tr))
            if removal.played_out:
                said += "\n" + tr(
                    "tournament.removed_plays_on", user=f"<@{interaction.user.id}>"
                )
            return said

        await self._control(interaction, tournament, act)

    @tournament.command(
        name=text("cmdname.tournament_cancel"), description=text("cmd.tournament_cancel")
    )
    @app_commands.rename(**option_names("tournament"))
    @app_commands.describe(tournament=text("cmd.tournament.which"))
    async def cancel(
        self, interaction: discord.Interaction[Any], tournament: int | None = None
    ) -> None:
        async def act(row: TournamentRow) -> str:
            ended = await self.bot.services.tournaments.cancel(row.id, organiser_of(interaction))
            self.bot.spawn(self.watcher.redraw_games(ended))
            return translator(row.locale)(
                "tournament.cancelled_msg", id=row.id, user=f"<@{interaction.user.id}>"
            )

        await self._control(interaction, tournament, act)

    @add_ai.autocomplete("tournament")
    @standings.autocomplete("tournament")
    @start.autocomplete("tournament")
    @pause.autocomplete("tournament")
    @resume.autocomplete("tournament")
    @remove.autocomplete("tournament")
    @cancel.autocomplete("tournament")
    async def tournament_suggestions(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        guild_id = interaction.guild_id
        if guild_id is None:
            return []
        tr = translator(await language(interaction, public=False))
        rows = await self.bot.services.tournament_reads.in_server(guild_id, live_only=False)
        found = []
        for row in rows:
            kind = tr(f"format.{row.format.value}")
            name = f"#{row.id} {kind} · {tr(f'tournament.state.{row.status.value}')}"
            if current.strip().lstrip("#") in str(row.id):
                found.append(app_commands.Choice(name=name[:100], value=row.id))
        return found[:25]

    @remove.autocomplete("player")
    async def player_suggestions(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        guild_id = interaction.guild_id
        if guild_id is None:
            return []
        chosen = getattr(interaction.namespace, "tournament", None)
        try:
            row = await self.bot.services.tournament_reads.chosen(
                guild_id, chosen if isinstance(chosen, int) else None
            )
        except UserError:
            return []
        tr = translator(await language(interaction, public=False))
        entries = [
            e for e in await self.bot.services.tournament_reads.entries(row.id) if not e.withdrawn
        ]
        members = [int(e.entrant) for e in entries if is_member_entrant(e.entrant)]
        names = await display_names(self.bot, guild_id, members)
        found = []
        for entry in entries:
            label = entrant_label(entry.entrant, tr, names)
            if current.lower() in label.lower() or current in entry.entrant:
                found.append(app_commands.Choice(name=label[:100], value=entry.entrant))
        return found[:25]

    async def _control(
        self,
        interaction: discord.Interaction[Any],
        tournament: int | None,
        act: Any,
    ) -> None:
        """Run an organiser's control on the chosen tournament, say what it did in the channel
        and redraw the announcement."""
        guild_id = interaction.guild_id
        assert guild_id is not None
        try:
            row = await self.bot.services.tournament_reads.chosen(guild_id, tournament)
            said = await act(row)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await interaction.response.send_message(
            said, allowed_mentions=discord.AllowedMentions.none()
        )
        name = interaction.command.name if interaction.command else "?"
        log.info("tournament %d: %s by %s", row.id, name, interaction.user.id)
        await self.posts.redraw_announcement(row.id)

    # ------------------------------------------------------------------ Join and Leave
    @answers(TournamentJoin)
    async def join(
        self, interaction: discord.Interaction[Any], click: TournamentJoin, row: TournamentRow
    ) -> None:
        await self.bot.services.tournaments.join(row.id, interaction.user.id)
        log.info("tournament %d: %s joined", row.id, interaction.user.id)
        await self._entered(interaction, row, "tournament.joined")

    @answers(TournamentLeave)
    async def leave(
        self, interaction: discord.Interaction[Any], click: TournamentLeave, row: TournamentRow
    ) -> None:
        before = row.status
        ended = await self.bot.services.tournaments.leave(row.id, interaction.user.id)
        self.bot.spawn(self.watcher.redraw_games(ended))
        log.info("tournament %d: %s left", row.id, interaction.user.id)
        key = "tournament.left" if before is TournamentStatus.OPEN else "tournament.withdrawn"
        await self._entered(interaction, row, key)

    async def _entered(
        self, interaction: discord.Interaction[Any], row: TournamentRow, key: str
    ) -> None:
        reads = self.bot.services.tournament_reads
        fresh = await reads.find(row.guild_id, row.id)
        entries = await reads.entries(row.id)
        await interaction.response.edit_message(
            **announcement(fresh, entries), allowed_mentions=discord.AllowedMentions.none()
        )
        await say(interaction, key, id=row.id)

    # ------------------------------------------------------------------ the outbox
    async def render_post(self, post: PostRow) -> Rendered:
        """A tournament's outbox row, drawn from the database as it is now (for bot.cogs.outbox)."""
        return await self.posts.render(post)


__all__ = ["TournamentCog", "entrant_of", "organiser_of"]
