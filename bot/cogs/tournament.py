"""Tournaments: `/caro tournament create | add_ai | standings | start | pause | resume | remove |
cancel`, the announcement's Join and Leave buttons, the watcher that runs every tournament of
this process's shards (bot.game.tournaments.TournamentService.advance) and posts the games each
step started, and the drawing of the tournament's outbox rows (bot.cogs.outbox sends them): the
start, the standings after each round, the final announcement, the announcement redrawn."""

from __future__ import annotations

import asyncio
import io
import logging
import re
import time
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, size_suggestions, text
from bot.cogs.watch import WatchCog
from bot.game.errors import UserError
from bot.game.model import GameState, Mode
from bot.game.options import OPENINGS, RULES
from bot.game.outbox_model import PostKind, PostRow
from bot.game.pairings import Format
from bot.game.ports import StorageUnavailable
from bot.game.tournament_model import (
    Entrant,
    TournamentRow,
    TournamentStatus,
    is_member_entrant,
)
from bot.game.tournaments import Organiser, Progress, TournamentOptions
from bot.ui import picture_jobs
from bot.ui.buttons import TournamentJoin, TournamentLeave, answers
from bot.ui.display_names import display_names
from bot.ui.languages import language
from bot.ui.posts import MessageEdit, NewMessage, Rendered
from bot.ui.replies import refuse, say
from bot.ui.tournaments import (
    STANDINGS_FILENAME,
    announcement,
    entrant_label,
    final_content,
    picture_texts,
    round_content,
    standings_rows,
    started_content,
    translator,
)
from engine.game.types import LEVELS

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")

# How often the watcher takes a step of every running tournament: results and pairings follow a
# finished game within this.
STEP_EVERY_S = 2.0
# After Discord refused a game's board, how long before the watcher posts it again.
REPOST_AFTER_S = 60.0
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
        # game id -> when Discord last refused its board.
        self._refused: dict[int, float] = {}

    async def cog_load(self) -> None:
        self.bot.spawn(self.run_tournaments())

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
            row = await self.bot.services.tournaments.latest(guild_id, channel_id, tournament)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await interaction.response.defer()
        tr = translator(await language(interaction, public=True))
        content, file = await self._standings_post(row, tr, final=row.status.over, round=None)
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
            self.bot.spawn(self.publish(progress))
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
            self.bot.spawn(self.redraw_games(removal.ended))
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
            self.bot.spawn(self.redraw_games(ended))
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
        rows = await self.bot.services.tournaments.in_server(guild_id, live_only=False)
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
            row = await self.bot.services.tournaments.chosen(
                guild_id, chosen if isinstance(chosen, int) else None
            )
        except UserError:
            return []
        tr = translator(await language(interaction, public=False))
        entries = [
            e for e in await self.bot.services.tournaments.entries(row.id) if not e.withdrawn
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
        service = self.bot.services.tournaments
        try:
            row = await service.chosen(guild_id, tournament)
            said = await act(row)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await interaction.response.send_message(
            said, allowed_mentions=discord.AllowedMentions.none()
        )
        name = interaction.command.name if interaction.command else "?"
        log.info("tournament %d: %s by %s", row.id, name, interaction.user.id)
        await self.redraw_announcement(row.id)

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
        self.bot.spawn(self.redraw_games(ended))
        log.info("tournament %d: %s left", row.id, interaction.user.id)
        key = "tournament.left" if before is TournamentStatus.OPEN else "tournament.withdrawn"
        await self._entered(interaction, row, key)

    async def _entered(
        self, interaction: discord.Interaction[Any], row: TournamentRow, key: str
    ) -> None:
        service = self.bot.services.tournaments
        fresh = await service.find(row.guild_id, row.id)
        entries = await service.entries(row.id)
        await interaction.response.edit_message(
            **announcement(fresh, entries), allowed_mentions=discord.AllowedMentions.none()
        )
        await say(interaction, key, id=row.id)

    # ------------------------------------------------------------------ running
    async def run_tournaments(self) -> None:
        """Take a step of every live tournament of this process's shards, again and again."""
        await self.bot.wait_until_ready()
        service = self.bot.services.tournaments
        while not self.bot.is_closed():
            count = self.bot.shard_count or 1
            for shard_id in self.bot.held_shards():
                with self.bot.working_for(shard_id):
                    try:
                        live = await service.live(shard_id=shard_id, shard_count=count)
                    except StorageUnavailable:
                        # Said once when the database was lost; the next round tries again.
                        break
                    except Exception:
                        if self.bot.is_closed():
                            return
                        log.exception("reading the tournaments of shard %d failed", shard_id)
                        continue
                    for row in live:
                        # One tournament's failure must not hold up the others.
                        try:
                            progress = await service.advance(row.id)
                            if progress is not None:
                                await self.publish(progress)
                        except StorageUnavailable:
                            # A step goes on from what is stored, so the next round takes it
                            # up again where the database was lost.
                            break
                        except Exception:
                            if self.bot.is_closed():
                                return
                            log.exception("tournament %d: its step failed", row.id)
            await asyncio.sleep(STEP_EVERY_S)

    async def publish(self, progress: Progress) -> None:
        """Post the games a step started. What else it decided (the start, a round's standings,
        the final, the announcement redrawn) it wrote to the outbox, which sends it."""
        row = progress.tournament
        if progress.too_few:
            log.info("tournament %d: cancelled, too few entries", row.id)
        if progress.started:
            log.info("tournament %d: started", row.id)
        if progress.round_done is not None:
            log.info("tournament %d: round %d over", row.id, progress.round_done)
        if progress.final:
            log.info("tournament %d: finished", row.id)
        for state in progress.games:
            await self.post_game(row, state)

    async def render_post(self, post: PostRow) -> Rendered:
        """A tournament's outbox row, drawn from the database as it is now."""
        service = self.bot.services.tournaments
        row = await service.get(post.number("tournament"))
        if row is None:
            return None
        tr = translator(row.locale)
        kind = post.kind
        if kind is PostKind.TOURNAMENT_ANNOUNCEMENT:
            if row.message_id is None:
                return None  # its announcement was never posted: nothing to redraw
            return MessageEdit(row.message_id, announcement(row, await service.entries(row.id)))
        if kind is PostKind.TOURNAMENT_TOO_FEW:
            return NewMessage(tr("tournament.too_few", id=row.id))
        if kind is PostKind.TOURNAMENT_STARTED:
            return NewMessage(started_content(row, await service.pairings(row.id), tr))
        if kind is PostKind.TOURNAMENT_ROUND:
            content, file = await self._standings_post(
                row, tr, final=False, round=post.number("round")
            )
            return NewMessage(content, file)
        if kind is PostKind.TOURNAMENT_FINAL:
            content, file = await self._standings_post(row, tr, final=True, round=row.round)
            return NewMessage(content, file)
        raise ValueError(f"post {post.id}: {kind} is not a tournament's")

    async def post_game(self, row: TournamentRow, state: GameState) -> None:
        refused = self._refused.get(state.id)
        if refused is not None and time.monotonic() - refused < REPOST_AFTER_S:
            return
        try:
            posted = await self.bot.boards.post_in_channel(state)
        except discord.HTTPException as exc:
            self._refused[state.id] = time.monotonic()
            log.warning("tournament %d: could not post game %d (%s)", row.id, state.id, exc)
            return
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            # No answer: the board may have been made. The next step tries again at once, with
            # the same nonce, so Discord hands back that board rather than making a second.
            log.warning("tournament %d: no answer posting game %d (%r)", row.id, state.id, exc)
            return
        self._refused.pop(state.id, None)
        log.info("tournament %d: game %d started", row.id, state.id)
        if posted.mode is Mode.WATCH:
            self.bot.spawn(self.bot.cog(WatchCog).play_out(posted.id, None, posted.starter_id))
        elif posted.ai_to_move:
            self.bot.spawn(self.bot.boards.ai_turn(posted.id, None, posted.starter_id))

    async def redraw_games(self, states: list[GameState]) -> None:
        """Redraw the boards of games a control ended (a withdrawal lost, a cancel stopped)."""
        for state in states:
            await self.bot.boards.show_quietly(state)

    async def redraw_announcement(self, tournament_id: int) -> None:
        service = self.bot.services.tournaments
        row = await service.get(tournament_id)
        if row is None or row.message_id is None:
            return
        message = self.bot.get_partial_messageable(
            row.channel_id, guild_id=row.guild_id
        ).get_partial_message(row.message_id)
        try:
            await message.edit(
                **announcement(row, await service.entries(row.id)),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as exc:
            log.warning("tournament %d: could not redraw its announcement (%s)", row.id, exc)

    async def _standings_post(
        self, row: TournamentRow, tr: Any, *, final: bool, round: int | None
    ) -> tuple[str, discord.File]:
        """The text and the standings picture of the end of round `round`, of the final, or (no
        round) of now."""
        service = self.bot.services.tournaments
        # A round's standings count the games up to it, whenever they are drawn.
        standings = await service.standings(row, through=None if final else round)
        entries = await service.entries(row.id)
        pairings = await service.pairings(row.id)
        members = [int(s.player) for s in standings if is_member_entrant(s.player)]
        names = await display_names(self.bot, row.guild_id, members)
        title, subtitle, headers = picture_texts(
            row, tr, final=final, round=row.round if round is None else round
        )
        rows = standings_rows(standings, entries, tr, names)
        picture = await self.bot.ai.run_on_cpu(
            ("tournament", row.id), picture_jobs.standings_job, title, subtitle, headers, rows
        )
        if final:
            content = final_content(row, standings, tr)
        elif round is not None:
            content = round_content(row, round, pairings, tr)
        else:
            content = tr("tournament.standings_now", id=row.id)
        return content, discord.File(io.BytesIO(picture), filename=STANDINGS_FILENAME)


__all__ = ["TournamentCog", "entrant_of"]
