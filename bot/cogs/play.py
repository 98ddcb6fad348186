"""Playing a game: `/caro start` against the AI, the cell buttons, and on big boards the pan
arrows and the "type a move" form."""

from __future__ import annotations

import functools
import logging
import random
import re
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Self

import discord
from discord import app_commands
from discord.ext import commands

from engine.notation import cell_name
from engine.types import Level

from ..boards import ai_owner
from ..config import is_quick_level
from ..discord_patches import Payload, button_payload
from ..errors import UserError
from ..items import ID, MODAL_FIELD, PLY, Action, CaroButton, message_carries
from ..model import AiLevel, GameState, Mode, MoveRef
from ..options import DIFFICULTIES, FIRSTS, RULES, GameOptions, parse_options
from ..replies import refuse, say
from ..slash import choices, option_names, size_suggestions, text
from ..texts import text_in
from ..translator import locale_of
from ..window import DEFAULT_COLS, DEFAULT_ROWS, DIRECTIONS, Window, WindowError
from .common import bot_of, game_on_its_message, participant_state

if TYPE_CHECKING:
    from ..client import CaroBot

log = logging.getLogger("caro.bot")


# ----------------------------------------------------------------- the cells
# Every drawing names all its cells; the names of the boards in play, computed once.
_cell_names = functools.lru_cache(maxsize=4096)(cell_name)


class CellButton(
    CaroButton, template=rf"caro:m:(?P<game>{ID}):(?P<ply>{PLY}):(?P<cell>[A-Z][1-9][0-9]?)"
):
    """A cell of the board: caro:m:<game>:<ply>:<cell>. The ply is the number of moves played
    when the board was drawn, so a click on an older drawing is recognised as stale.

    Most clicks are on cells: the bot routes them itself (dispatch_click), from the id alone.
    Cells are drawn only on boards, which discord.py never stores (DrawnLayout)."""

    action = Action.CELL
    routed_by_bot = True

    def __init__(self, game: int, ply: int, cell: str, **style: Any) -> None:
        super().__init__(self.custom_id_of(game, ply, cell), **style)
        self.game, self.ply, self.cell = game, ply, cell

    @staticmethod
    def custom_id_of(game: int, ply: int, cell: str) -> str:
        return f"caro:m:{game}:{ply}:{cell}"

    @classmethod
    def build(cls, **fields: Any) -> Self:
        cell = fields.pop("cell")
        return cls(fields.pop("game"), fields.pop("ply"), cell_name(cell), **fields)

    @classmethod
    def drawn(  # type: ignore[override]  # the fields of a cell, by name, as build takes them
        cls,
        *,
        game: int,
        ply: int,
        cell: tuple[int, int],
        label: str,
        style: discord.ButtonStyle,
        disabled: bool,
    ) -> Payload:
        return button_payload(
            custom_id=cls.custom_id_of(game, ply, _cell_names(cell)),
            label=label,
            style=style,
            disabled=disabled,
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["game"]), int(match["ply"]), match["cell"])

    @classmethod
    async def answer_click(
        cls, interaction: discord.Interaction[Any], custom_id: str, match: re.Match[str]
    ) -> None:
        # Every cell click arrives here (the class is never registered with discord.py, so no
        # item's callback is called): answered from the id's fields, without building the item.
        ref = MoveRef(int(match["game"]), int(match["ply"]), match["cell"])
        await bot_of(interaction).cog(PlayCog).play(interaction, ref, custom_id)


# ----------------------------------------------------------------- the window of a big board
class PanButton(
    CaroButton,
    template=(
        rf"caro:p:(?P<game>{ID}):(?P<ply>{PLY})"
        r":(?P<window>w(?:0|[1-9][0-9]?)\.(?:0|[1-9][0-9]?)(?:\.[1-5]x[1-5])?)"
        r":(?P<direction>up|down|left|right)"
    ),
):
    """caro:p:<game>:<ply>:<window>:<direction>: the window travels in the id, so a pan needs no
    stored state and survives a restart."""

    action = Action.PAN

    def __init__(
        self, game: int, ply: int, window: Window | str, direction: str, **style: Any
    ) -> None:
        encoded = window.encode() if isinstance(window, Window) else window
        super().__init__(f"caro:p:{game}:{ply}:{encoded}:{direction}", **style)
        self.game, self.ply, self.direction = game, ply, direction
        # None: not a window at all (a corner off every board); refused when clicked.
        self.window: Window | None
        try:
            self.window = Window.decode(encoded)
        except WindowError:
            self.window = None

    @classmethod
    def build(cls, **fields: Any) -> Self:
        return cls(
            fields.pop("game"),
            fields.pop("ply"),
            fields.pop("window"),
            fields.pop("direction"),
            **fields,
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["game"]), int(match["ply"]), match["window"], match["direction"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            state = await game_on_its_message(interaction, self.game, self.custom_id)
            state = await participant_state(interaction, self.game, self.ply)
            board = state.board
            # Only a window this bot draws: the default shape, cut to the board, lying on it. A
            # forged 5x5 window would not fit a message with its controls.
            shape = (min(DEFAULT_ROWS, board.rows), min(DEFAULT_COLS, board.cols))
            window = self.window
            if (
                window is None
                or (window.rows, window.cols) != shape
                or not window.fits(board.rows, board.cols)
            ):
                raise UserError("click.forged")
            if self.direction not in DIRECTIONS:
                raise UserError("click.forged")
            try:
                moved = window.pan(self.direction, board.rows, board.cols)
            except WindowError:
                raise UserError("click.forged") from None
        except UserError as exc:
            await refuse(interaction, exc)
            return
        boards = bot_of(interaction).boards
        await interaction.response.edit_message(
            **await boards.drawing(state, edit=True, window=moved, message=interaction.message)
        )


class TypeMoveButton(CaroButton, template=rf"caro:t:(?P<game>{ID}):(?P<ply>{PLY})"):
    """caro:t:<game>:<ply>: opens the "type a move" form for a cell outside the window."""

    action = Action.TYPE_MOVE

    def __init__(self, game: int, ply: int, **style: Any) -> None:
        super().__init__(f"caro:t:{game}:{ply}", **style)
        self.game, self.ply = game, ply

    @classmethod
    def build(cls, **fields: Any) -> Self:
        return cls(fields.pop("game"), fields.pop("ply"), **fields)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["game"]), int(match["ply"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await game_on_its_message(interaction, self.game, self.custom_id)
            state = await participant_state(interaction, self.game, self.ply)
            if state.mover_id != interaction.user.id:
                if state.mode == Mode.PVP and state.mover_id is not None:
                    raise UserError("click.wait_for", user=f"<@{state.mover_id}>")
                raise UserError("click.not_your_turn")
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await interaction.response.send_modal(MoveForm.build(state, locale_of(interaction)))


class MoveForm:
    """The "type a move" form: caro:tm:<game>:<ply>, one text field. Modals are not items a
    DynamicItem can stand for; PlayCog.on_interaction routes their submissions here."""

    PATTERN = re.compile(rf"caro:tm:(?P<game>{ID}):(?P<ply>{PLY})")

    def __init__(self, game: int, ply: int) -> None:
        self.game, self.ply = game, ply

    @property
    def custom_id(self) -> str:
        return f"caro:tm:{self.game}:{self.ply}"

    @classmethod
    def parse(cls, custom_id: str) -> MoveForm | None:
        match = cls.PATTERN.fullmatch(custom_id)
        return None if match is None else cls(int(match["game"]), int(match["ply"]))

    @classmethod
    def build(cls, state: GameState, locale: str) -> discord.ui.Modal:
        form = cls(state.id, state.board.ply)
        modal = discord.ui.Modal(title=text_in(locale, "modal.title"), custom_id=form.custom_id)
        modal.add_item(
            discord.ui.TextInput(
                label=text_in(locale, "modal.label"),
                custom_id=MODAL_FIELD,
                placeholder=text_in(locale, "modal.placeholder"),
                min_length=2,
                max_length=3,
            )
        )
        return modal

    @staticmethod
    def typed_cell(data: Any) -> str:
        """The cell the member typed, upper-cased and trimmed; "" if nothing; "?" if the text
        cannot name a cell (too long, or markdown that must not be echoed)."""
        typed = _field_value(data.get("components") or [], MODAL_FIELD).strip().upper()
        if not typed:
            return ""
        # The whole text must name the cell (cutting it first read "J9(&(Q[" as J9).
        return typed if len(typed) <= 8 and not any(ch in typed for ch in "*`") else "?"


def _field_value(components: list[Any], custom_id: str) -> str:
    stack = list(components)
    while stack:
        item = stack.pop()
        if not isinstance(item, dict):
            continue
        if item.get("custom_id") == custom_id and "value" in item:
            return str(item["value"])
        stack.extend(item.get("components") or [])
        if isinstance(item.get("component"), dict):
            stack.append(item["component"])
    return ""


# ----------------------------------------------------------------- the cog
class PlayCog(commands.Cog, name="Play"):
    def __init__(self, bot: CaroBot) -> None:
        self.bot = bot
        # (guild, channel, player) of the /caro start commands being answered: a second one
        # must not mistake the first one's game, whose board is not posted yet, for a leftover.
        self._starting: set[tuple[int, int, int]] = set()

    @app_commands.command(name=text("cmdname.start"), description=text("cmd.start"))
    @app_commands.rename(**option_names("difficulty", "size", "rule", "first"))
    @app_commands.describe(
        difficulty=text("cmd.start.difficulty"),
        size=text("cmd.start.size"),
        rule=text("cmd.start.rule"),
        first=text("cmd.start.first"),
    )
    @app_commands.choices(
        difficulty=choices("level", DIFFICULTIES),
        rule=choices("rule", RULES),
        first=choices("first", FIRSTS),
    )
    @app_commands.autocomplete(size=size_suggestions)
    async def start(
        self,
        interaction: discord.Interaction[Any],
        difficulty: str | None = None,
        size: str | None = None,
        rule: str | None = None,
        first: str | None = None,
    ) -> None:
        try:
            options = parse_options(difficulty, size, rule, first)
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
            state = await self.bot.boards.post_new_game(
                interaction,
                lambda: self.bot.games.start(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    player_id=interaction.user.id,
                    options=options,
                    rng=random.Random(interaction.id),
                    locale=locale_of(interaction),
                ),
                busy="error.already_playing",
                busy_unposted="error.already_playing_nolink",
                ai_owner=interaction.user.id,
                reply_wait=self.reply_wait,
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

    async def play(
        self, interaction: discord.Interaction[Any], ref: MoveRef, custom_id: str
    ) -> None:
        """A member's click on a cell (custom_id: the cell button)."""
        message = interaction.message
        try:
            if not message_carries(message, custom_id):
                # Not on the clicked message (an older drawing in the member's client, or a
                # forgery): only on the game's own board. A message carrying the id is a drawing
                # of the game (only the bot draws buttons), and the service checks it is the
                # stored one; this costs the hot path no extra read.
                await game_on_its_message(interaction, ref.game_id, custom_id)
            state = await self._play(interaction, ref)
            if state.row.message_id is None and message is not None:
                # The board was posted but the bot stopped before it stored the message id:
                # learn it from the click, or a restart could neither redraw nor resume it.
                await self.bot.games.attach_message(state.id, message.id)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await self._answer_move(interaction, state)

    async def _play(self, interaction: discord.Interaction[Any], ref: MoveRef) -> GameState:
        """The member's move stored, with the AI's answer if a quick one came in time."""
        message = interaction.message
        # The clicker is the game's player (only they may move in it): its AI searches are
        # theirs in the fair pool, as owner_of says once the game is known.
        ai_owner.set(interaction.user.id)
        return await self.bot.games.play(
            ref,
            user_id=interaction.user.id,
            message_id=message.id if message else None,
            answer_within=self.reply_wait,
        )

    async def _answer_move(self, interaction: discord.Interaction[Any], state: GameState) -> None:
        await self.bot.boards.answer_move(interaction, state, self.owner_of(state))

    def reply_wait(self, level: AiLevel | None) -> float:
        """How long a member's move waits for the answer of the AI at `level`, to store and show
        both at once (or a new board for its first move): only for levels that answer about as
        fast as Discord itself (the wait also covers a queue in the AI pool); a slower AI would
        leave the member without their own move meanwhile."""
        if not isinstance(level, Level):
            return 0.0  # a member's turn, or the external engine (its own time limit)
        settings = self.bot.settings
        return settings.quick_reply if is_quick_level(level, settings.ai_time_limit) else 0.0

    @staticmethod
    def owner_of(state: GameState) -> Hashable:
        """The member whose AI work this game's searches are: its player, or who started a
        game between two AIs."""
        return state.starter_id

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: Any = interaction.data or {}
        form = MoveForm.parse(str(data.get("custom_id", "")))
        if form is None:
            await refuse(interaction, UserError("click.forged"))
            return
        cell = MoveForm.typed_cell(data)
        if not cell:
            await refuse(interaction, UserError("click.no_cell_typed"))
            return
        # The form was opened from the board's "type a move" button: that is the id its
        # message carries.
        opener = TypeMoveButton(form.game, form.ply).custom_id
        try:
            await game_on_its_message(interaction, form.game, opener)
            state = await self._play(interaction, MoveRef(form.game, form.ply, cell))
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await self._answer_move(interaction, state)


__all__ = ["CellButton", "MoveForm", "PanButton", "PlayCog", "TypeMoveButton"]
