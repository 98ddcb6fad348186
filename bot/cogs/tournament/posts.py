"""The drawing of a tournament's posts: its outbox rows (the start, a round's standings, the final,
the announcement redrawn: bot.cogs.outbox sends them), the standings a command asks for, and the
announcement redrawn after an organiser's control. Each is drawn from the database as it is
now."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.game.outbox_model import PostKind, PostRow
from bot.game.tournament_model import TournamentRow, is_member_entrant
from bot.ui import picture_jobs
from bot.ui.display_names import display_names
from bot.ui.posts import MessageEdit, NewMessage, Rendered
from bot.ui.tournaments import (
    STANDINGS_FILENAME,
    announcement,
    final_content,
    picture_texts,
    round_content,
    standings_rows,
    started_content,
    translator,
)

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


class TournamentPosts:
    """A tournament's posts, drawn through the tournaments' read side."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot

    async def render(self, post: PostRow) -> Rendered:
        """A tournament's outbox row, drawn from the database as it is now."""
        reads = self.bot.services.tournament_reads
        row = await reads.get(post.number("tournament"))
        if row is None:
            return None
        tr = translator(row.locale)
        kind = post.kind
        if kind is PostKind.TOURNAMENT_ANNOUNCEMENT:
            if row.message_id is None:
                return None  # its announcement was never posted: nothing to redraw
            return MessageEdit(row.message_id, announcement(row, await reads.entries(row.id)))
        if kind is PostKind.TOURNAMENT_TOO_FEW:
            return NewMessage(tr("tournament.too_few", id=row.id))
        if kind is PostKind.TOURNAMENT_STARTED:
            return NewMessage(started_content(row, await reads.pairings(row.id), tr))
        if kind is PostKind.TOURNAMENT_ROUND:
            content, file = await self.standings_post(
                row, tr, final=False, round=post.number("round")
            )
            return NewMessage(content, file)
        if kind is PostKind.TOURNAMENT_FINAL:
            content, file = await self.standings_post(row, tr, final=True, round=row.round)
            return NewMessage(content, file)
        raise ValueError(f"post {post.id}: {kind} is not a tournament's")

    async def redraw_announcement(self, tournament_id: int) -> None:
        reads = self.bot.services.tournament_reads
        row = await reads.get(tournament_id)
        if row is None or row.message_id is None:
            return
        message = self.bot.get_partial_messageable(
            row.channel_id, guild_id=row.guild_id
        ).get_partial_message(row.message_id)
        try:
            await message.edit(
                **announcement(row, await reads.entries(row.id)),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as exc:
            log.warning("tournament %d: could not redraw its announcement (%s)", row.id, exc)

    async def standings_post(
        self, row: TournamentRow, tr: Any, *, final: bool, round: int | None
    ) -> tuple[str, discord.File]:
        """The text and the standings picture of the end of round `round`, of the final, or (no
        round) of now."""
        reads = self.bot.services.tournament_reads
        # A round's standings count the games up to it, whenever they are drawn.
        standings = await reads.standings(row, through=None if final else round)
        entries = await reads.entries(row.id)
        pairings = await reads.pairings(row.id)
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


__all__ = ["TournamentPosts"]
