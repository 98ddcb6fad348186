"""Games between two AIs: `/caro watch`, the game playing itself move by move, and its Stop
button."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, size_suggestions, text
from bot.game.errors import UserError
from bot.game.model import GameState
from bot.game.options import ADAPTIVE, RULES, parse_options
from bot.i18n.texts import TextId
from bot.ui.buttons import Stop, answers
from bot.ui.languages import language
from bot.ui.replies import refuse
from engine.game.types import LEVELS, Level

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


class WatchCog(commands.Cog, name="Watch"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.watch"), description=text("cmd.watch"))
    @app_commands.rename(**option_names("x_level", "o_level", "size", "rule"))
    @app_commands.describe(
        x_level=text("cmd.watch.x_level"),
        o_level=text("cmd.watch.o_level"),
        size=text("cmd.start.size"),
        rule=text("cmd.start.rule"),
    )
    @app_commands.choices(
        x_level=choices("level", LEVELS),
        o_level=choices("level", LEVELS),
        rule=choices("rule", RULES),
    )
    @app_commands.autocomplete(size=size_suggestions)
    async def watch(
        self,
        interaction: discord.Interaction[Any],
        x_level: str | None = None,
        o_level: str | None = None,
        size: str | None = None,
        rule: str | None = None,
    ) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        try:
            external = self.bot.external
            x_options = parse_options(x_level or Level.NORMAL, size, rule, None, external=external)
            o_options = parse_options(o_level or Level.HARD, size, rule, None, external=external)
            if ADAPTIVE in (x_options.level, o_options.level):
                raise UserError(
                    "error.bad_choice",
                    value=ADAPTIVE,
                    option=TextId("option.difficulty"),
                    choices=", ".join(LEVELS),
                )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        locale = await language(interaction, public=True)
        state = await self.bot.turns.post_new_game(
            interaction,
            lambda: self.bot.services.games.start_watch(
                guild_id=guild_id,
                channel_id=channel_id,
                starter_id=interaction.user.id,
                x_level=x_options.level,
                o_level=o_options.level,
                options=x_options,
                locale=locale,
            ),
            busy="watch.running",
            busy_unposted="watch.running",
        )
        if state is None:
            return
        log.info("game %d: AI %s vs AI %s", state.id, x_options.level, o_options.level)
        self.bot.spawn(self.play_out(state.id, interaction, interaction.user.id))

    @answers(Stop)
    async def stop(self, interaction: discord.Interaction[Any], click: Stop, _: GameState) -> None:
        state = await self.bot.services.games.stop_watch(
            click.game, interaction.user.id, may_manage=interaction.permissions.manage_messages
        )
        log.info("game %d: stopped by %s", state.id, interaction.user.id)
        await interaction.response.edit_message(
            **await self.bot.boards.look.drawing(state, edit=True, message=interaction.message)
        )
        self.bot.boards.redraw_if_drawing(state)

    async def play_out(
        self, game_id: int, interaction: discord.Interaction[Any] | None, owner: int
    ) -> None:
        """Play a game between two AIs to the end, one move every watch_delay seconds at most;
        the searches count as `owner`'s (who started it)."""
        delay = self.bot.watch_delay
        while True:
            started = time.monotonic()
            state = await self.bot.turns.ai_turn(game_id, interaction, owner)
            if state is None or not state.ai_to_move:
                # Over, stopped, or the AI could not move (logged; the next start resumes it).
                return
            await asyncio.sleep(max(0.0, delay - (time.monotonic() - started)))


__all__ = ["WatchCog"]
