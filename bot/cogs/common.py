"""What the feature cogs share: the bot behind an interaction, and the checks every control of
a game makes before it acts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord

from ..errors import UserError
from ..items import on_its_message
from ..model import GameState

if TYPE_CHECKING:
    from ..client import CaroBot


def bot_of(interaction: discord.Interaction[Any]) -> CaroBot:
    return cast("CaroBot", interaction.client)


async def participant_state(
    interaction: discord.Interaction[Any], game: int, ply: int | None
) -> GameState:
    """The running game `game` the clicking member plays in, at move count `ply`."""
    state = await bot_of(interaction).games.state(game)
    if state is None:
        raise UserError("click.no_game")
    if state.mark_of(interaction.user.id) is None:
        raise UserError("click.not_your_game")
    if not state.active:
        raise UserError("click.finished")
    if ply is not None and ply != state.board.ply:
        raise UserError("click.stale")
    return state


async def game_on_its_message(
    interaction: discord.Interaction[Any], game: int, custom_id: str
) -> GameState:
    """Game `game`, if the click came from its own board message (a button id sent on another
    message must not act on, nor redraw that message as, this game)."""
    state = await bot_of(interaction).games.state(game)
    if state is None:
        raise UserError("click.no_game")
    if not on_its_message(interaction, state.row.message_id, custom_id):
        raise UserError("click.wrong_message")
    return state
