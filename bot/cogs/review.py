"""The AI review of a finished game: `/caro review [game]` and the Review button under every
finished board (and on replays and history pages).

The engine goes over every move in the AI pool a slice at a time, in the turn of the member who
asked (so other members' AI moves keep their turn between slices), while the reply shows how far
it got; then the turning points, each with its picture, the move played, the better move and
the line, and a summary per player. Reviews are cached per game by the records service: a second
request answers at once. Anyone in the channel may open one."""

from __future__ import annotations

import logging
import math
import time
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import option_names, text
from bot.cogs.replay import MAX_GAME_ID, named_in, players, theme_of
from bot.game.errors import UserError
from bot.game.model import GameState
from bot.game.ports import StorageUnavailable
from bot.i18n.texts import text_in
from bot.ui import picture_jobs
from bot.ui.buttons import Review, answers
from bot.ui.languages import language
from bot.ui.record_views import pictures_to_draw, review_message, review_progress, translator
from bot.ui.replies import localized, say

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")

# Reviews one member may wait for at once.
REVIEWS_PER_MEMBER = 2
# The progress is redrawn at most this often (edits count against Discord's rate limits).
PROGRESS_EVERY_S = 2.0


class ReviewCog(commands.Cog, name="Review"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        # Reviews each member is waiting for: each holds a share of the AI pool for up to a
        # minute, so one member cannot queue up many.
        self._asking: dict[int, int] = {}

    @app_commands.command(name=text("cmdname.review"), description=text("cmd.review"))
    @app_commands.rename(**option_names("game"))
    @app_commands.describe(game=text("cmd.review.game"))
    async def review(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Range[int, 1, MAX_GAME_ID] | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # the /caro group checks this
        if game is not None:
            state = await self.bot.services.records.finished_game(game, guild_id)
        else:
            state = await self.bot.services.records.last_finished_game(guild_id, interaction.user.id)
        await self.post_review(interaction, state)

    @answers(Review)
    async def review_button(
        self, interaction: discord.Interaction[Any], _: Review, state: GameState
    ) -> None:
        await self.post_review(interaction, state)

    async def post_review(self, interaction: discord.Interaction[Any], state: GameState) -> None:
        """Review `state` (a game of this server that is over) in a new public message:
        "thinking", then the progress, then the review (in the game's language, as its board)."""
        owner = interaction.user.id
        if self._asking.get(owner, 0) >= REVIEWS_PER_MEMBER:
            await say(interaction, "review.busy", count=REVIEWS_PER_MEMBER)
            return
        self._asking[owner] = self._asking.get(owner, 0) + 1
        try:
            await interaction.response.defer(thinking=True)
            try:
                await self._review(interaction, state)
            except UserError as exc:
                await interaction.edit_original_response(content=await localized(interaction, exc))
            except StorageUnavailable:
                # The "thinking" message says it: nothing was stored, the review can be asked
                # for again once the database is back.
                await interaction.edit_original_response(
                    content=text_in(await language(interaction), "error.storage_unavailable")
                )
            except Exception:
                if self.bot.is_closed():
                    log.info("game %d: a review was cut short by the shutdown", state.id)
                    return
                # A failed review leaves nothing half-written (only a complete one is cached);
                # the member is told rather than left with "thinking..." for ever.
                log.exception("game %d: the review failed", state.id)
                await interaction.edit_original_response(
                    content=text_in(await language(interaction), "error.internal")
                )
        finally:
            self._asking[owner] -= 1
            if not self._asking[owner]:
                del self._asking[owner]

    async def _review(self, interaction: discord.Interaction[Any], state: GameState) -> None:
        owner = interaction.user.id
        tr = translator(state.row.locale)
        shown_at = -math.inf

        async def progress(done: int, total: int) -> None:
            nonlocal shown_at
            now = time.monotonic()
            if now - shown_at < PROGRESS_EVERY_S:
                return
            shown_at = now
            try:
                await interaction.edit_original_response(
                    content=review_progress(state, done, total, tr)
                )
            except (discord.HTTPException, aiohttp.ClientError) as exc:
                # The progress is a courtesy (and shared with whoever asked for the same review):
                # the review goes on and its answer is still sent.
                log.info("game %d: review progress not shown (%s)", state.id, exc)

        async def run(fn: Any, *args: Any) -> Any:
            return await self.bot.ai.run_on_cpu(owner, fn, *args)

        done = await self.bot.services.records.review(state.id, state.row.guild_id, run, progress)
        if done.cached:
            log.info("game %d: review answered from the cache", state.id)
        else:
            log.info(
                "game %d: reviewed %d moves in %.1f s (node limit %d)",
                state.id,
                len(done.review.moves),
                done.review.seconds,
                done.review.node_limit,
            )
        named = await named_in(self.bot, interaction, state)
        names = await players(interaction, state, state.row.locale, named)
        pictures = await run(
            picture_jobs.turning_point_pictures,
            state.board.text(),
            pictures_to_draw(done.review),
            names,
            await theme_of(self.bot, owner),
        )
        content, embeds, files = review_message(
            done.state, done.review, names, pictures, tr, self.bot.external, named
        )
        await interaction.edit_original_response(content=content, embeds=embeds, attachments=files)


__all__ = ["ReviewCog"]
