"""Playing a game: `/caro start` against the AI, the cell buttons, and on big boards the pan
arrows and the "type a move" form."""

from __future__ import annotations

import logging
import random
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, size_suggestions, text
from bot.game.errors import UserError
from bot.game.model import GameState, MoveRef
from bot.game.options import DIFFICULTIES, FIRSTS, OPENINGS, RULES, GameOptions, parse_options
from bot.i18n.texts import text_in
from bot.ui.buttons import (
    Cell,
    MoveForm,
    Pan,
    TypeMove,
    answers,
    message_carries,
    move_modal,
)
from bot.ui.languages import language
from bot.ui.replies import refuse, say
from bot.ui.window import DEFAULT_COLS, DEFAULT_ROWS, Window, WindowError

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


def move_form(state: GameState, locale: str) -> discord.ui.Modal:
    """The "type a move" form (items.MoveForm) of `state` at its move count. Made stopped, as a
    drawing is: discord.py keeps no finished modal, so its submission reaches only the router."""
    return move_modal(
        MoveForm.custom_id_of(game=state.id, ply=state.board.ply),
        text_in(locale, "modal.title"),
        text_in(locale, "modal.label"),
        text_in(locale, "modal.placeholder"),
    )


# ----------------------------------------------------------------- the cog
class PlayCog(commands.Cog, name="Play"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        # (guild, channel, player) of the /caro start commands being answered: a second one
        # must not mistake the first one's game, whose board is not posted yet, for a leftover.
        self._starting: set[tuple[int, int, int]] = set()

    @app_commands.command(name=text("cmdname.start"), description=text("cmd.start"))
    @app_commands.rename(
        **option_names("difficulty", "size", "rule", "first", "rated", "opening")
    )
    @app_commands.describe(
        difficulty=text("cmd.start.difficulty"),
        size=text("cmd.start.size"),
        rule=text("cmd.start.rule"),
        first=text("cmd.start.first"),
        rated=text("cmd.start.rated"),
        opening=text("cmd.start.opening"),
    )
    @app_commands.choices(
        difficulty=choices("level", DIFFICULTIES),
        rule=choices("rule", RULES),
        first=choices("first", FIRSTS),
        opening=choices("openingname", OPENINGS),
    )
    @app_commands.autocomplete(size=size_suggestions)
    async def start(
        self,
        interaction: discord.Interaction[Any],
        difficulty: str | None = None,
        size: str | None = None,
        rule: str | None = None,
        first: str | None = None,
        rated: bool = True,
        opening: str | None = None,
    ) -> None:
        try:
            options = parse_options(
                difficulty,
                size,
                rule,
                first,
                external=self.bot.external,
                rated=rated,
                opening=opening,
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await self.start_game(interaction, options)

    async def start_game(self, interaction: discord.Interaction[Any], options: GameOptions) -> None:
        """A new game against the AI for the member of `interaction`, posted as its answer."""
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        key = (guild_id, channel_id, interaction.user.id)
        if key in self._starting:
            await say(interaction, "error.already_playing_nolink")
            return
        self._starting.add(key)
        try:
            locale = await language(interaction, public=True)
            state = await self.bot.turns.post_new_game(
                interaction,
                lambda: self.bot.services.games.start(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    player_id=interaction.user.id,
                    options=options,
                    rng=random.Random(interaction.id),
                    locale=locale,
                ),
                busy="error.already_playing",
                busy_unposted="error.already_playing_nolink",
                member=interaction.user.id,
            )
        finally:
            self._starting.discard(key)
        if state is None:
            return
        log.info(
            "game %d started: %s, %s, player %s plays %s",
            state.id,
            state.board.spec,
            state.ai_level,
            state.starter_id,
            state.player_mark.name,
        )

    @answers(Cell)
    async def play(
        self, interaction: discord.Interaction[Any], click: Cell, _: None
    ) -> None:
        """A member's click on a cell."""
        message = interaction.message
        try:
            state = await self._play(interaction, MoveRef(click.game, click.ply, click.cell))
        except UserError as exc:
            # Only a click from the board's own drawing (not a forged id sent on it): the
            # board then shows that move count, and the store may be elsewhere.
            if exc.key == "click.stale" and message is not None and message_carries(
                message, click.custom_id
            ):
                self.bot.spawn(self._redraw_if_behind(
                    click.game, click.ply, message.id, interaction.guild_id))
            raise
        if state.row.message_id is None and message is not None:
            # The board was posted but the bot stopped before it stored the message id:
            # learn it from the click, or a restart could neither redraw nor resume it.
            await self.bot.services.games.attach_message(state.id, message.id)
        await self._answer_move(interaction, state)

    @answers(MoveForm)
    async def play_typed(
        self, interaction: discord.Interaction[Any], form: MoveForm, cell: str
    ) -> None:
        """A move typed into the "type a move" form."""
        state = await self._play(interaction, MoveRef(form.game, form.ply, cell))
        await self._answer_move(interaction, state)

    @answers(Pan)
    async def pan(self, interaction: discord.Interaction[Any], click: Pan, state: GameState) -> None:
        board = state.board
        # Only a window this bot draws: the default shape, cut to the board, lying on it. A
        # forged 5x5 window would not fit a message with its controls.
        shape = (min(DEFAULT_ROWS, board.rows), min(DEFAULT_COLS, board.cols))
        try:
            window = Window.decode(click.window)
            if (window.rows, window.cols) != shape or not window.fits(board.rows, board.cols):
                raise UserError("click.forged")
            moved = window.pan(click.direction, board.rows, board.cols)
        except WindowError:
            raise UserError("click.forged") from None
        await self.bot.boards.look.panned(state, interaction.guild_id)
        await interaction.response.edit_message(
            **await self.bot.boards.look.drawing(
                state, edit=True, window=moved, message=interaction.message,
                guild_id=interaction.guild_id,
            )
        )

    @answers(TypeMove)
    async def open_move_form(
        self, interaction: discord.Interaction[Any], _: TypeMove, state: GameState
    ) -> None:
        await interaction.response.send_modal(move_form(state, await language(interaction)))

    async def _play(self, interaction: discord.Interaction[Any], ref: MoveRef) -> GameState:
        """The member's move stored, with the AI's answer if a quick one came in time."""
        message = interaction.message
        moves = self.bot.services.moves
        # The clicker is the game's player (only they may move in it): the AI's answer is
        # searched in their turn of the fair pool, as owner_of says once the game is known.
        # Its board in another server (a queued game between two) is as good as its own.
        try:
            return await moves.play(
                ref,
                user_id=interaction.user.id,
                message_id=message.id if message else None,
                guild_id=interaction.guild_id,
            )
        except UserError as exc:
            if exc.key != "click.moved":
                raise
            state = await self.bot.services.games.state(ref.game_id)
            if state is None or interaction.guild_id in (None, state.row.guild_id):
                raise
            # An old board in another server, reposted there: the link is to that server's
            # board, never into the game's own.
            link = await self.bot.boards.link_in(state, interaction.guild_id)
            raise UserError("click.moved", link=link) from None

    async def _redraw_if_behind(
        self, game_id: int, drawn_ply: int, message_id: int, guild_id: int | None
    ) -> None:
        """A click refused as out of date on one of the game's boards: if the board does not
        show what is stored (its last drawing was lost: a takeback or a move stored while the
        database went away, whose answer never came, or the other server's redraw refused or
        never written), draw the stored game on it, so the member can go on from there rather
        than being refused on every click. Only forward, as every drawing goes, unless the
        store is behind the board: then moves were taken back."""
        state = await self.bot.services.games.state(game_id)
        if state is None or not state.active or state.board.ply == drawn_ply:
            return
        if state.row.message_id != message_id:
            if guild_id is None or not await self.bot.services.mirrors.is_board(
                state, guild_id, message_id
            ):
                return
            log.info("game %d: its board in another server showed move %d, %d stored: redrawn",
                     game_id, drawn_ply, state.board.ply)
            await self.bot.boards.redraw_in(state, guild_id)
            return
        log.info("game %d: its board showed move %d, %d stored: redrawn",
                 game_id, drawn_ply, state.board.ply)
        if state.board.ply < drawn_ply:
            await self.bot.boards.taken_back(state)
        else:
            await self.bot.boards.show_quietly(state)

    async def _answer_move(self, interaction: discord.Interaction[Any], state: GameState) -> None:
        await self.bot.turns.answer_move(interaction, state, self.owner_of(state))

    @staticmethod
    def owner_of(state: GameState) -> Hashable:
        """The member whose AI work this game's searches are: its player, or who started a
        game between two AIs."""
        return state.starter_id


__all__ = ["PlayCog", "move_form"]
