"""The controls under a game: Resign, Hint (against the easy and normal AI) and Rematch, as
buttons and as their slash twins `/caro resign`, `/caro hint`, `/caro rematch` for members who
prefer typing."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.challenge import ChallengeCog
from bot.cogs.group import text
from bot.cogs.play import PlayCog
from bot.game.errors import UserError
from bot.game.hints import no_hint
from bot.game.model import GameState, Mode
from bot.i18n.texts import text_in
from bot.ui import drawing
from bot.ui.buttons import (
    Hint,
    Rematch,
    Resign,
    ResignConfirm,
    ResignKeep,
    answers,
    participant_state,
)
from bot.ui.languages import language, reply_text
from bot.ui.render import resign_question
from bot.ui.replies import localized, refuse, say

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


class ControlsCog(commands.Cog, name="Controls"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    # ----------------------------------------------------------------- resign
    @app_commands.command(name=text("cmdname.resign"), description=text("cmd.resign"))
    async def resign(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        games = self.bot.services.games
        running = await games.active_game(guild_id, channel_id, interaction.user.id)
        # Or the member's board in this channel of a game between two servers.
        game_id = running.id if running is not None else (
            await self.bot.services.queue.board_game(guild_id, channel_id, interaction.user.id))
        if game_id is None:
            await say(interaction, "error.no_running_game")
            return
        try:
            state = await games.resign(game_id, interaction.user.id)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await say(interaction, "resign.done", link=await self.bot.boards.link_in(state, guild_id))
        await self.bot.boards.show_quietly(state)

    @answers(Resign)
    async def resign_button(
        self, interaction: discord.Interaction[Any], click: Resign, _: GameState
    ) -> None:
        """Asks first, privately: a stray click must not lose the game."""
        state = await participant_state(interaction, click.game, click.ply)
        question, view = resign_question(state, await language(interaction))
        await interaction.response.send_message(question, view=view, ephemeral=True)

    @answers(ResignConfirm)
    async def resign_confirmed(
        self, interaction: discord.Interaction[Any], click: ResignConfirm, _: GameState
    ) -> None:
        state = await self.bot.services.games.resign(
            click.game, interaction.user.id, expected_ply=click.ply
        )
        # The board of the server where the member clicked (a game between two servers has one
        # in each).
        link = await self.bot.boards.link_in(state, interaction.guild_id)
        await interaction.response.edit_message(
            content=await reply_text(interaction, "resign.done", link=link), view=drawing.view([])
        )
        await self.bot.boards.show_quietly(state)

    @answers(ResignKeep)
    async def resign_kept(
        self, interaction: discord.Interaction[Any], click: ResignKeep, _: None
    ) -> None:
        await interaction.response.edit_message(
            content=await reply_text(interaction, "resign.kept"), view=drawing.view([])
        )

    # ----------------------------------------------------------------- hint
    @app_commands.command(name=text("cmdname.hint"), description=text("cmd.hint"))
    async def hint_command(self, interaction: discord.Interaction[Any]) -> None:
        """/caro hint: the Hint button of the member's running game in this channel."""
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None
        games = self.bot.services.games
        game = await games.active_game(guild_id, channel_id, interaction.user.id)
        # Or the member's board in this channel of a game between two servers.
        game_id = game.id if game is not None else (
            await self.bot.services.queue.board_game(guild_id, channel_id, interaction.user.id))
        state = None if game_id is None else await games.state(game_id)
        if state is None:
            await say(interaction, "error.no_running_game")
            return
        try:
            await self.hint(interaction, state.id, state.board.ply)
        except UserError as exc:
            await refuse(interaction, exc)

    @answers(Hint)
    async def hint_button(
        self, interaction: discord.Interaction[Any], click: Hint, _: GameState
    ) -> None:
        await self.hint(interaction, click.game, click.ply)

    async def hint(self, interaction: discord.Interaction[Any], game: int, ply: int) -> None:
        """The engine's suggestion for the member's move in `game` at move count `ply`, as a
        private follow-up; UserError before anything was answered if it cannot be given."""
        state = await participant_state(interaction, game, ply)
        # Refused at once, not after the "thinking" a search would need.
        refused = no_hint(state)
        if refused is not None:
            raise UserError(refused)
        if state.mover_id != interaction.user.id:
            raise UserError("click.not_your_turn")
        self.bot.services.games.cooldowns.hint.hit(state.row.guild_id, interaction.user.id)
        # The engine may think for a while: acknowledge first, answer in the follow-up.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            hint = await self.bot.services.hints.hint(game, ply, interaction.user.id)
        except UserError as exc:
            if not self.bot.is_closed():
                await interaction.followup.send(await localized(interaction, exc), ephemeral=True)
            return
        if self.bot.is_closed():
            # The search outlived a shutdown (the pool lets running searches end): Discord
            # can no longer be told, and the member's "thinking" ends on its own.
            return
        loc = await language(interaction)
        fresh = await self.bot.services.games.state(game)
        count = fresh.row.hints if fresh is not None else 1
        reason = text_in(loc, f"reason.{hint.reason}")
        await interaction.followup.send(
            text_in(loc, "hint.text", cell=hint.cell, reason=reason, count=count), ephemeral=True
        )
        if fresh is not None:
            await self.bot.boards.show_quietly(fresh)

    # ----------------------------------------------------------------- rematch
    @app_commands.command(name=text("cmdname.rematch"), description=text("cmd.rematch"))
    async def rematch_command(self, interaction: discord.Interaction[Any]) -> None:
        """/caro rematch: the Rematch button of the member's last game in this channel."""
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None
        game = await self.bot.services.games.last_game(guild_id, channel_id, interaction.user.id)
        # Or the member's board in this channel of a game between two servers, if newer.
        other = await self.bot.services.queue.board_game(
            guild_id, channel_id, interaction.user.id, running=False)
        game_id = game.id if game is not None else None
        if other is not None and (game_id is None or other > game_id):
            game_id = other
        if game_id is None:
            await say(interaction, "error.no_finished_game")
            return
        try:
            await self.rematch(interaction, game_id)
        except UserError as exc:
            await refuse(interaction, exc)

    @answers(Rematch)
    async def rematch_button(
        self, interaction: discord.Interaction[Any], click: Rematch, _: GameState
    ) -> None:
        await self.rematch(interaction, click.game)

    async def rematch(self, interaction: discord.Interaction[Any], game: int) -> None:
        """The same board again, colours swapped: a new challenge between members, a new game
        against the AI. Refused in a game between two servers: the challenge would ask the other
        member in a channel they cannot see."""
        if await self.bot.services.queue.boards(game):
            raise UserError("rematch.cross_server")
        old, options = await self.bot.services.games.rematch_options(game, interaction.user.id)
        if old.mode == Mode.PVP:
            await self.bot.cog(ChallengeCog).post_challenge(
                interaction, _other_player(old, interaction.user.id), options
            )
            return
        await self.bot.cog(PlayCog).start_game(interaction, options)


def _other_player(state: GameState, user_id: int) -> int:
    other = state.opponent_of(user_id)
    assert other is not None  # a game between members has both
    return other


__all__ = ["ControlsCog"]
