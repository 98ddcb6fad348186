"""The opening rules on the board: the colour-choice buttons of swap, swap2 and RIF ("Take X",
"Take O", "Place two more"). The stones and offers of an opening are cell clicks (PlayCog)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.cogs.play import PlayCog
from bot.game.model import GameState
from bot.game.openings import parse_choice
from bot.ui.buttons import Decide, answers

if TYPE_CHECKING:
    from bot.cogs.host import Host


class OpeningsCog(commands.Cog, name="Openings"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @answers(Decide)
    async def decide(
        self, interaction: discord.Interaction[Any], click: Decide, state: GameState
    ) -> None:
        """The member whose step it is takes a colour (or places two more): checked by the
        engine, stored with the seats it swaps, and the AI takes its next step if it is its."""
        message = interaction.message
        after = await self.bot.services.moves.choose(
            state.id,
            click.stage,
            parse_choice(click.choice),
            user_id=interaction.user.id,
            message_id=message.id if message is not None else None,
        )
        await self.bot.turns.answer_move(interaction, after, PlayCog.owner_of(after))


__all__ = ["OpeningsCog"]
