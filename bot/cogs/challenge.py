"""Games between members: `/caro challenge`, its Accept and Decline buttons (the challenger's
Decline withdraws it), and the challenge message turning into the board when accepted."""

from __future__ import annotations

import logging
import random
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, size_suggestions, text
from bot.game.errors import UserError
from bot.game.model import ChallengeRow
from bot.game.options import CHALLENGE_FIRSTS, OPENINGS, RULES, GameOptions, parse_options
from bot.i18n.texts import text_in
from bot.ui.buttons import Accept, Decline, OfChallenge, answers
from bot.ui.languages import challenge_language
from bot.ui.render import challenge_content, challenge_view
from bot.ui.replies import refuse

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


class ChallengeCog(commands.Cog, name="Challenge"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.challenge"), description=text("cmd.challenge"))
    @app_commands.rename(**option_names("opponent", "size", "rule", "first", "rated", "opening"))
    @app_commands.describe(
        opponent=text("cmd.challenge.opponent"),
        size=text("cmd.start.size"),
        rule=text("cmd.start.rule"),
        first=text("cmd.challenge.first"),
        rated=text("cmd.start.rated"),
        opening=text("cmd.start.opening"),
    )
    @app_commands.choices(
        rule=choices("rule", RULES),
        first=choices("first", CHALLENGE_FIRSTS),
        opening=choices("openingname", OPENINGS),
    )
    @app_commands.autocomplete(size=size_suggestions)
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User,
        size: str | None = None,
        rule: str | None = None,
        first: str | None = None,
        rated: bool = True,
        opening: str | None = None,
    ) -> None:
        try:
            options = parse_options(
                None, size, rule, first, firsts=CHALLENGE_FIRSTS, rated=rated, opening=opening
            )
            await self.post_challenge(
                interaction, opponent.id, options, opponent_is_bot=opponent.bot
            )
        except UserError as exc:
            await refuse(interaction, exc)

    async def post_challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent_id: int,
        options: GameOptions,
        *,
        opponent_is_bot: bool = False,
    ) -> None:
        """Challenge `opponent_id` in the interaction's channel, as its answer; UserError if the
        challenge cannot be made."""
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        challenge = await self.bot.services.challenges.challenge(
            guild_id=guild_id,
            channel_id=channel_id,
            challenger_id=interaction.user.id,
            opponent_id=opponent_id,
            opponent_is_bot=opponent_is_bot,
            options=options,
            locale=await challenge_language(interaction, opponent_id),
        )
        response = await interaction.response.send_message(
            challenge_content(challenge),
            view=challenge_view(challenge),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=opponent_id)]),
        )
        message_id = response.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await self.bot.services.challenges.attach_challenge_message(challenge.id, message_id)
        log.info("challenge %d: %s -> %s", challenge.id, interaction.user.id, opponent_id)

    @answers(Accept, Decline)
    async def answer(
        self, interaction: discord.Interaction[Any], click: OfChallenge, _: ChallengeRow
    ) -> None:
        games = self.bot.services.games
        challenge_id, accept = click.challenge, isinstance(click, Accept)
        challenge, state = await self.bot.services.challenges.answer_challenge(
            challenge_id, interaction.user.id, accept=accept, rng=random.Random(interaction.id)
        )
        if state is None:
            # Stored as declined either way; the message says who closed it.
            content = challenge_content(challenge)
            if interaction.user.id == challenge.challenger_id:
                content = text_in(
                    challenge.locale,
                    "challenge.withdrawn",
                    challenger=f"<@{challenge.challenger_id}>",
                    opponent=f"<@{challenge.opponent_id}>",
                )
            await interaction.response.edit_message(content=content, view=None)
            return
        # The challenge message becomes the board, so the game lives where it was agreed.
        message = interaction.message
        if message is not None:
            await games.attach_message(state.id, message.id)
            state = await games.state(state.id) or state
        await interaction.response.edit_message(
            **await self.bot.boards.look.drawing(state, edit=True, message=message)
        )
        # The challenge's message became the board, and an edit notifies nobody: when the
        # challenger moves first, a ping calls them (the one who accepted is looking).
        self.bot.spawn(self.bot.boards.notices.turn(state, actor=interaction.user.id))
        log.info("challenge %d accepted: game %d", challenge.id, state.id)

    async def show_closed(self, challenge: ChallengeRow) -> None:
        """Redraw a challenge nobody answered in time: its text, no buttons."""
        if challenge.message_id is None:
            return
        message = self.bot.get_partial_messageable(
            challenge.channel_id, guild_id=challenge.guild_id
        ).get_partial_message(challenge.message_id)
        await message.edit(content=challenge_content(challenge), view=None)


__all__ = ["ChallengeCog"]
