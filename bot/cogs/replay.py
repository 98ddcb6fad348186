"""Replays: `/caro replay [game] [member] [export]` posts a finished game as an animated picture
with a stepper (first / back / next / last) over its positions and the move list in notation;
Export attaches the game as a piskvork .psq file and as caro's own record.

Any game that is over, of any mode, including games played before replays existed: a replay is
drawn from the stored moves alone. The stepper is anyone's in the channel (it shows a finished
game; nobody's move depends on it)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Self

import discord
from discord import app_commands
from discord.ext import commands

from .. import ai_worker
from ..errors import UserError
from ..items import ID, PLY, Action, CaroButton, GameButton, message_carries
from ..model import GameState
from ..names import display_names, remember
from ..record_views import (
    REPLAY_GIF,
    STEP_PNG,
    export_files,
    players_of,
    replay_content,
    replay_gif,
    replay_view,
    step_png,
    target_ply,
    translator,
)
from ..replies import refuse
from ..slash import option_names, text
from ..translator import locale_of
from .common import bot_of

if TYPE_CHECKING:
    from ..client import CaroBot

# Discord's integer options stay within ±2**53.
MAX_GAME_ID = 2**53 - 1


async def finished_game_here(interaction: discord.Interaction[Any], game: int) -> GameState:
    """Game `game` if it is over and belongs to the server the click or command came from."""
    guild_id = interaction.guild_id
    if guild_id is None:
        raise UserError("error.guild_only")
    return await bot_of(interaction).records.finished_game(game, guild_id)


async def players(
    interaction: discord.Interaction[Any], state: GameState, locale: str
) -> tuple[str, str]:
    """Who played X and O, by display name (members) or level (AIs, named in `locale`)."""
    remember(interaction.guild_id, interaction.user)
    names = await display_names(interaction.client, state.row.guild_id, state.row.members)
    return players_of(state, names, translator(locale))


def refuse_other_message(interaction: discord.Interaction[Any], custom_id: str) -> None:
    """A button of these records acts only on the message that carries it (an id copied onto
    another message, or a stale drawing, is refused)."""
    if not message_carries(interaction.message, custom_id):
        raise UserError("click.wrong_message")


class ReplayStepButton(
    CaroButton, template=rf"caro:rs:(?P<game>{ID}):(?P<ply>{PLY}):(?P<step>[fbnl])"
):
    """A stepper button: caro:rs:<game>:<ply shown>:<f|b|n|l>."""

    action = Action.REPLAY_STEP

    def __init__(self, game: int, ply: int, step: str, **style: Any) -> None:
        super().__init__(f"caro:rs:{game}:{ply}:{step}", **style)
        self.game, self.ply, self.step = game, ply, step

    @classmethod
    def build(cls, **fields: Any) -> Self:
        return cls(fields.pop("game"), fields.pop("ply"), fields.pop("step"), **fields)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["game"]), int(match["ply"]), match["step"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            refuse_other_message(interaction, self.custom_id)
            state = await finished_game_here(interaction, self.game)
            total = state.board.ply
            target = target_ply(self.step, self.ply, total)
            if not (0 <= self.ply <= total and 0 <= target <= total):
                raise UserError("replay.bad_step", total=total)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        # A public message stays in the game's language whoever steps through it.
        locale = state.row.locale
        names = await players(interaction, state, locale)
        tr = translator(locale)
        # The exported files (export:true) stay; the picture becomes the position asked for.
        message = interaction.message
        kept: list[discord.Attachment | discord.File] = [
            a
            for a in (message.attachments if message is not None else [])
            if a.filename not in (REPLAY_GIF, STEP_PNG)
        ]
        await interaction.response.edit_message(
            content=replay_content(state, target, tr),
            view=replay_view(state, target, tr),
            attachments=[*kept, step_png(state, target, names)],
        )


class ExportButton(GameButton, template=rf"caro:ex:(?P<game>{ID})"):
    """caro:ex:<game>: the game's files, privately, to whoever asks."""

    action = Action.EXPORT

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            refuse_other_message(interaction, self.custom_id)
            state = await finished_game_here(interaction, self.game)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        locale = locale_of(interaction)
        await interaction.response.send_message(
            translator(locale)("export.done", game=state.id),
            files=export_files(state, await players(interaction, state, locale)),
            ephemeral=True,
        )


class ReplayButton(GameButton, template=rf"caro:ro:(?P<game>{ID})"):
    """caro:ro:<game>: post the replay of a game (from a /caro history page)."""

    action = Action.REPLAY

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            refuse_other_message(interaction, self.custom_id)
            state = await finished_game_here(interaction, self.game)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await bot_of(interaction).cog(ReplayCog).post_replay(interaction, state, export=False)


class ReplayCog(commands.Cog, name="Replay"):
    def __init__(self, bot: CaroBot) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.replay"), description=text("cmd.replay"))
    @app_commands.rename(**option_names("game", "member", "export"))
    @app_commands.describe(
        game=text("cmd.replay.game"),
        member=text("cmd.replay.member"),
        export=text("cmd.replay.export"),
    )
    async def replay(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Range[int, 1, MAX_GAME_ID] | None = None,
        member: discord.User | None = None,
        export: bool | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # the /caro group checks this
        records = self.bot.records
        if game is not None:
            state = await records.finished_game(game, guild_id)
        else:
            state = await records.last_finished_game(guild_id, (member or interaction.user).id)
        await self.post_replay(interaction, state, export=bool(export))

    async def post_replay(
        self, interaction: discord.Interaction[Any], state: GameState, *, export: bool
    ) -> None:
        """The replay of `state` as a new public message: the animation, the stepper at the
        final position, and with `export` the game's files."""
        locale = state.row.locale  # as the game's board: steps keep the message in it
        names = await players(interaction, state, locale)
        tr = translator(locale)
        # Acknowledged first: a long game's animation takes a while to draw, in the AI pool
        # (in the asking member's turn), off the event loop.
        await interaction.response.defer(thinking=True)
        gif = await bot_of(interaction).run_in_pool(
            interaction.user.id, ai_worker.replay_gif, state.board.text(), names
        )
        files = [replay_gif(gif)]
        if export:
            files += export_files(state, names)
        total = state.board.ply
        await interaction.followup.send(
            replay_content(state, total, tr), view=replay_view(state, total, tr), files=files
        )


__all__ = ["ExportButton", "ReplayButton", "ReplayCog", "ReplayStepButton", "STEP_PNG"]
