"""Replays: `/caro replay [game] [member] [export]` posts a finished game as an animated picture
with a stepper (first / back / next / last) over its positions and the move list in notation;
Export attaches the game as a piskvork .psq file and as caro's own record.

Any game that is over, of any mode, including games played before replays existed: a replay is
drawn from the stored moves alone. The stepper is anyone's in the channel (it shows a finished
game; nobody's move depends on it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import option_names, text
from bot.game.errors import UserError
from bot.game.model import GameState
from bot.ui import picture_jobs
from bot.ui.buttons import Export, Replay, ReplayStep, answers
from bot.ui.display_names import display_names, remember
from bot.ui.languages import language
from bot.ui.record_views import (
    REPLAY_GIF,
    STEP_PNG,
    Named,
    export_files,
    players_of,
    replay_content,
    replay_gif,
    replay_view,
    step_png,
    target_ply,
    translator,
)

if TYPE_CHECKING:
    from bot.cogs.host import Host

# Discord's integer options stay within ±2**53.
MAX_GAME_ID = 2**53 - 1


async def players(
    interaction: discord.Interaction[Any], state: GameState, locale: str, named: Named
) -> tuple[str, str]:
    """Who played X and O, by display name (members; those of another server as `named` calls
    them) or level (AIs, named in `locale`)."""
    remember(interaction.guild_id, interaction.user)
    names = await display_names(interaction.client, state.row.guild_id, state.row.members)
    # No markdown in a picture or a file.
    names.update({user: label.replace("**", "") for user, label in named.items()})
    return players_of(state, names, translator(locale))


async def named_in(bot: Host, interaction: discord.Interaction[Any], state: GameState) -> Named:
    """The players a record of `state` shown where `interaction` came from calls by name."""
    guild_id = interaction.guild_id
    assert guild_id is not None  # records are shown in servers only
    return await bot.boards.look.record_names(state, guild_id)


async def theme_of(bot: Host, member_id: int) -> str:
    """The theme a member draws their pictures in: a replay, its steps or a review is drawn for
    whoever asked for it."""
    return await bot.services.preferences.theme(member_id)


class ReplayCog(commands.Cog, name="Replay"):
    def __init__(self, bot: Host) -> None:
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
        records = self.bot.services.records
        if game is not None:
            state = await records.finished_game(game, guild_id)
        else:
            state = await records.last_finished_game(guild_id, (member or interaction.user).id)
        await self.post_replay(interaction, state, export=bool(export))

    @answers(ReplayStep)
    async def step(
        self, interaction: discord.Interaction[Any], click: ReplayStep, state: GameState
    ) -> None:
        total = state.board.ply
        target = target_ply(click.step, click.ply, total)
        if not (0 <= click.ply <= total and 0 <= target <= total):
            raise UserError("replay.bad_step", total=total)
        # A public message stays in the game's language whoever steps through it.
        locale = state.row.locale
        named = await named_in(self.bot, interaction, state)
        names = await players(interaction, state, locale, named)
        tr = translator(locale)
        # The exported files (export:true) stay; the picture becomes the position asked for.
        message = interaction.message
        kept: list[discord.Attachment | discord.File] = [
            a
            for a in (message.attachments if message is not None else [])
            if a.filename not in (REPLAY_GIF, STEP_PNG)
        ]
        await interaction.response.edit_message(
            content=replay_content(state, target, tr, self.bot.external, named),
            view=replay_view(state, target, tr),
            attachments=[
                *kept,
                step_png(state, target, names, await theme_of(self.bot, interaction.user.id)),
            ],
        )

    @answers(Export)
    async def export(
        self, interaction: discord.Interaction[Any], _: Export, state: GameState
    ) -> None:
        locale = await language(interaction)
        await interaction.response.send_message(
            translator(locale)("export.done", game=state.id),
            files=export_files(
                state,
                await players(
                    interaction, state, locale, await named_in(self.bot, interaction, state)
                ),
            ),
            ephemeral=True,
        )

    @answers(Replay)
    async def replay_button(
        self, interaction: discord.Interaction[Any], _: Replay, state: GameState
    ) -> None:
        await self.post_replay(interaction, state, export=False)

    async def post_replay(
        self, interaction: discord.Interaction[Any], state: GameState, *, export: bool
    ) -> None:
        """The replay of `state` as a new public message: the animation, the stepper at the
        final position, and with `export` the game's files."""
        locale = state.row.locale  # as the game's board: steps keep the message in it
        named = await named_in(self.bot, interaction, state)
        names = await players(interaction, state, locale, named)
        tr = translator(locale)
        # Acknowledged first: a long game's animation takes a while to draw, in the AI pool
        # (in the asking member's turn), off the event loop.
        await interaction.response.defer(thinking=True)
        gif = await self.bot.ai.run_on_cpu(
            interaction.user.id,
            picture_jobs.replay_gif,
            state.board.text(),
            names,
            await theme_of(self.bot, interaction.user.id),
        )
        files = [replay_gif(gif)]
        if export:
            files += export_files(state, names)
        total = state.board.ply
        await interaction.followup.send(
            replay_content(state, total, tr, self.bot.external, named),
            view=replay_view(state, total, tr),
            files=files,
        )


__all__ = ["MAX_GAME_ID", "ReplayCog", "STEP_PNG", "named_in", "players", "theme_of"]
