"""The AI review of a finished game: `/caro review [game]` and the Review button under every
finished board (and on replays and history pages).

The engine goes over every move in the AI pool a slice at a time, in the turn of the member who
asked (so other members' AI moves keep their turn between slices), while the reply shows how far
it got; then the turning points, each with its picture, the move played, the better move and
the line, and a summary per player. Reviews are cached per game by the game service: a second
request answers at once. Anyone in the channel may open one."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any, Self

import discord
from discord import app_commands
from discord.ext import commands

from ..games import GameState, UserError
from ..items import ID, Action, CaroButton
from ..record_views import review_message, review_progress, translator
from ..replies import localized, refuse
from ..slash import option_names, text
from .common import bot_of
from .replay import MAX_GAME_ID, finished_game_here, players, refuse_other_message

if TYPE_CHECKING:
    from ..client import CaroBot

log = logging.getLogger("caro.bot")


class ReviewButton(CaroButton, template=rf"caro:rv:(?P<game>{ID})"):
    """caro:rv:<game>: the review of a finished game, posted in the channel."""

    action = Action.REVIEW

    def __init__(self, game: int, **style: Any) -> None:
        super().__init__(f"caro:rv:{game}", **style)
        self.game = game

    @classmethod
    def build(cls, **fields: Any) -> Self:
        return cls(fields.pop("game"), **fields)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            refuse_other_message(interaction, self.custom_id)
            state = await finished_game_here(interaction, self.game)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await bot_of(interaction).cog(ReviewCog).post_review(interaction, state)


class ReviewCog(commands.Cog, name="Review"):
    def __init__(self, bot: CaroBot) -> None:
        self.bot = bot

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
            state = await self.bot.games.finished_game(game, guild_id)
        else:
            state = await self.bot.games.last_finished_game(guild_id, interaction.user.id)
        await self.post_review(interaction, state)

    async def post_review(self, interaction: discord.Interaction[Any], state: GameState) -> None:
        """Review `state` (a game of this server that is over) in a new public message:
        "thinking", then the progress, then the review (in the game's language, as its board)."""
        await interaction.response.defer(thinking=True)
        owner = interaction.user.id
        tr = translator(state.row.locale)
        shown = -1

        async def progress(done: int, total: int) -> None:
            nonlocal shown
            if done == shown:
                return
            shown = done
            try:
                await interaction.edit_original_response(
                    content=review_progress(state, done, total, tr)
                )
            except discord.HTTPException as exc:
                # The progress is a courtesy: the review goes on and its answer is still sent.
                log.info("game %d: review progress not shown (%s)", state.id, exc)

        async def run(fn: Any, *args: Any) -> Any:
            return await self.bot.run_in_pool(owner, fn, *args)

        try:
            done = await self.bot.games.review(state.id, state.row.guild_id, run, progress)
        except UserError as exc:
            await interaction.edit_original_response(content=localized(interaction, exc))
            return
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
        names = await players(interaction, state, state.row.locale)
        content, embeds, files = review_message(done.state, done.review, names, tr)
        await interaction.edit_original_response(
            content=content, embeds=embeds, attachments=files
        )


__all__ = ["ReviewButton", "ReviewCog"]
