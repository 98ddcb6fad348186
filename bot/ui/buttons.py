"""Every button and form of the bot, each from one declarative spec, and the one router that
answers them all.

A spec is a frozen dataclass of one action's fields, each typed with its spelling in a custom_id
(GameId, Ply, CellName, ...). From those fields alone come the template (`pattern`), the id
(`custom_id_of`, typed keyword arguments, and `custom_id`), the parse (`parse`) and the payload
builder (`button`), which mypy checks at the renderer's call sites. A click is understood from
its custom_id alone, so boards keep working after a restart with no view kept in memory.

The specs and the checks of each kind of action (`check`: the game's own board, a player of it
at this move, their turn, a record's own message, a challenge's own message) live here, below the
drawing, which therefore never imports a cog. The actions themselves live in the feature cogs,
as methods marked `@answers(Spec)`; `Router` finds them when the bot loads its cogs.
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import re
import typing
from collections.abc import Awaitable, Callable
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    ClassVar,
    ParamSpec,
    Protocol,
    Self,
    TypeVar,
    cast,
)

import discord

from bot.game.errors import UserError
from bot.game.model import GameState, Mode, jump_link
from bot.game.ports import StorageUnavailable
from bot.ui.payloads import ButtonPayload, button_payload
from bot.ui.replies import refuse, say, unreachable

if TYPE_CHECKING:
    from bot.game.model import ChallengeRow
    from bot.game.queue_model import QueueEntry
    from bot.game.services import Services
    from bot.game.tournament_model import TournamentRow

log = logging.getLogger("caro.bot")
# Discord's error code for an interaction answered after its deadline.
UNKNOWN_INTERACTION = 10062

EMPTY_LABEL = "\u200b"  # zero-width space: Discord needs a label, an empty cell shows none
MODAL_FIELD = "cell"  # custom_id of the text input of the "type a move" form


def move_modal(custom_id: str, title: str, label: str, placeholder: str) -> discord.ui.Modal:
    """A "type a move" form: one short text input named MODAL_FIELD. Made stopped, as a drawing
    is: discord.py keeps no finished modal, so its submission reaches only the router."""
    modal = discord.ui.Modal(title=title, custom_id=custom_id)
    modal.add_item(
        discord.ui.TextInput(
            label=label, custom_id=MODAL_FIELD, placeholder=placeholder, min_length=2, max_length=3
        )
    )
    modal.stop()
    return modal

P = ParamSpec("P")
C = TypeVar("C", bound="Click")


@dataclasses.dataclass(frozen=True)
class Spelling:
    """How a field is written in a custom_id: the regex its text matches whole. Ids have one
    spelling each (no leading zeros), so a forged variant of a real id matches nothing."""

    regex: str


# Row ids of the bot's own tables; a ply of at most 3 digits (26x26 = 676 moves).
ID = r"[1-9][0-9]{0,17}"
PLY = r"0|[1-9][0-9]{0,2}"
# A member's Discord id (a snowflake: up to 20 digits), not one of the bot's own row ids.
SNOWFLAKE = r"[1-9][0-9]{0,19}"

GameId = Annotated[int, Spelling(ID)]
AttemptId = Annotated[int, Spelling(ID)]
ChallengeId = Annotated[int, Spelling(ID)]
TournamentId = Annotated[int, Spelling(ID)]
QueueEntryId = Annotated[int, Spelling(ID)]
Ply = Annotated[int, Spelling(PLY)]
MemberId = Annotated[int, Spelling(SNOWFLAKE)]
PageNumber = Annotated[int, Spelling(PLY)]  # up to MAX_HISTORY_PAGE
CellName = Annotated[str, Spelling(r"[A-Z][1-9][0-9]?")]
# A window over a big board (bot.ui.window.Window.encode): its corner, and its shape if not 5x5.
WindowCode = Annotated[str, Spelling(r"w(?:0|[1-9][0-9]?)\.(?:0|[1-9][0-9]?)(?:\.[1-5]x[1-5])?")]
Direction = Annotated[str, Spelling(r"up|down|left|right")]
Step = Annotated[str, Spelling(r"[fbnl]")]  # first, back, next, last
# An opening's colour choice (engine.game.openings.Choice), and how far the game got when it was
# drawn (GameState.stage: moves, choices and offers), which the move count alone does not say.
ChoiceName = Annotated[str, Spelling(r"take_x|take_o|place_two")]
Stage = Annotated[int, Spelling(PLY)]


class Action(enum.Enum):
    """Every action's prefix in its custom_ids (caro:<prefix>:...), one each."""

    CELL = "m"
    RESIGN = "r"
    HINT = "h"
    REMATCH = "rm"
    TYPE_MOVE = "t"
    MOVE_FORM = "tm"
    PAN = "p"
    STOP = "s"
    ACCEPT = "ca"
    DECLINE = "cd"
    REPLAY_STEP = "rs"
    REPLAY = "ro"
    EXPORT = "ex"
    REVIEW = "rv"
    HISTORY_PAGE = "hp"
    TAKEBACK_ACCEPT = "ta"
    TAKEBACK_DECLINE = "td"
    PUZZLE_CELL = "pm"
    PUZZLE_PAN = "pp"
    PUZZLE_TYPE = "pt"
    PUZZLE_FORM = "ptm"
    PUZZLE_GIVE_UP = "pg"
    DECIDE = "oc"
    TOURNAMENT_JOIN = "tj"
    TOURNAMENT_LEAVE = "tl"
    RESIGN_CONFIRM = "rc"
    RESIGN_KEEP = "rk"
    QUEUE_LEAVE = "ql"


_SPECS: dict[str, type[Click]] = {}


def _makers(prefix: str, names: tuple[str, ...]) -> tuple[Callable[..., str], Callable[..., ButtonPayload]]:
    """The custom_id and the button payload of an action, from its fields by name. Generated
    once per spec, as dataclasses generates __init__: a board's cells are most of its drawing,
    and an f-string of named arguments is the cheapest way to make their ids."""
    fields = ", ".join(names)
    parts = ":".join(f"{{{name}}}" for name in names)
    custom_id = f"f'caro:{prefix}:{parts}'"
    source = (
        f"(lambda *, {fields}: {custom_id},"
        f" lambda label, style=SECONDARY, disabled=False, /, *, {fields}:"
        f" button_payload(custom_id={custom_id}, label=label, style=style, disabled=disabled))"
    )
    # The source holds only the spec's field names and its action's prefix, never input.
    scope = {"SECONDARY": discord.ButtonStyle.secondary, "button_payload": button_payload}
    makers: tuple[Callable[..., str], Callable[..., ButtonPayload]] = eval(source, scope)
    return makers


@typing.dataclass_transform(frozen_default=True, kw_only_default=True)
class Click:
    """A spec: one action's fields. Subclasses declare fields (typed with their Spelling) and
    name their `action` as a class keyword; intermediate classes (no action) are the kinds of
    action, each with the checks its actions share (`check`)."""

    action: ClassVar[Action]
    pattern: ClassVar[re.Pattern[str]]
    # A form's submission (the modal), not a button's click: each reaches only its own kind.
    form: ClassVar[bool] = False
    _parsers: ClassVar[tuple[tuple[str, Callable[[str], object]], ...]]

    def __init_subclass__(cls, *, action: Action | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True, kw_only=True)(cls)
        if action is None:
            return
        hints = typing.get_type_hints(cls, include_extras=True)
        parsers: list[tuple[str, Callable[[str], object]]] = []
        groups: list[str] = []
        for field in dataclasses.fields(cast(Any, cls)):  # made a dataclass just above
            kind, spelling = typing.get_args(hints[field.name])
            assert isinstance(spelling, Spelling) and kind in (int, str), field
            parsers.append((field.name, kind))
            groups.append(f"(?P<{field.name}>{spelling.regex})")
        assert action.value not in _SPECS, action
        cls.action = action
        cls.pattern = re.compile(":".join([f"caro:{action.value}", *groups]))
        cls._parsers = tuple(parsers)
        make_id, make_button = _makers(action.value, tuple(name for name, _ in parsers))
        # What the declarations below (for mypy) describe, from the fields of this action.
        setattr(cls, "custom_id_of", staticmethod(make_id))  # noqa: B010
        setattr(cls, "button", staticmethod(make_button))  # noqa: B010
        _SPECS[action.value] = cls

    # ------------------------------------------------------------- from the fields
    if TYPE_CHECKING:
        # Made for each action by __init_subclass__ (see _makers); typed here with the fields
        # of the action's constructor, so mypy checks them at every call site by name.
        @classmethod
        def custom_id_of(cls: Callable[P, Click], *args: P.args, **kwargs: P.kwargs) -> str:
            """The custom_id of these fields."""

        @classmethod
        def button(
            cls: Callable[P, Click],
            label: str,
            style: discord.ButtonStyle = discord.ButtonStyle.secondary,
            disabled: bool = False,
            /,
            *args: P.args,
            **kwargs: P.kwargs,
        ) -> ButtonPayload:
            """The button of these fields, as the payload a drawing sends (bot.ui.drawing
            sends it as is, or as a discord.ui item): its click comes back to the router from
            the id alone."""

    @property
    def custom_id(self) -> str:
        make_id: Callable[..., str] = type(self).custom_id_of
        return make_id(**{name: getattr(self, name) for name, _ in self._parsers})

    @classmethod
    def parse(cls, custom_id: str) -> Self | None:
        """The click this custom_id names, if it is one of this action's ids, spelled as the bot
        spells them."""
        match = cls.pattern.fullmatch(custom_id)
        if match is None:
            return None
        return cls(**{name: parse(match[name]) for name, parse in cls._parsers})

    # ------------------------------------------------------------- answering
    async def check(self, interaction: discord.Interaction[Any]) -> Any:
        """What this kind of action checks before it acts (UserError if it may not), and what
        the checks found for the action (the game's state, the challenge, ...)."""
        raise NotImplementedError

    async def callback(self, interaction: discord.Interaction[Any], answer: Answer) -> None:
        """The one answer to every click and form: the kind's checks, then the action (`answer`,
        the cog's method). A refusal from either is shown privately to the member, here and
        nowhere else, and so is the database being away."""
        try:
            try:
                await answer(interaction, self, await self.check(interaction))
            except UserError as exc:
                await refuse(interaction, exc)
            except StorageUnavailable:
                await unreachable(interaction)
        except discord.NotFound as exc:
            if exc.code != UNKNOWN_INTERACTION:
                raise
            # Answered after Discord's 3 s (a machine short of CPU): the interaction is gone and
            # nothing can be said to the member; what the action stored stays, and the board is
            # redrawn from it by the next click or restart. A warning, as for a command.
            log.warning("a click was answered too late for Discord (%s)", exc.text)


Answer = Callable[[discord.Interaction[Any], Any, Any], Awaitable[None]]


def parse(custom_id: str, *, form: bool = False) -> Click | None:
    """The click (or with `form`, the form submission) a custom_id names; None for any id the
    bot does not make."""
    head, _, rest = custom_id.partition(":")
    prefix = rest.partition(":")[0]
    spec = _SPECS.get(prefix) if head == "caro" else None
    if spec is None or spec.form is not form:
        return None
    return spec.parse(custom_id)


def specs() -> list[type[Click]]:
    return list(_SPECS.values())


# ----------------------------------------------------------------- shared checks
class Host(Protocol):
    """What the shared checks use of the bot (bot.runtime.client.CaroBot satisfies it)."""

    @property
    def services(self) -> Services: ...


def bot_of(interaction: discord.Interaction[Any]) -> Host:
    return cast("Host", interaction.client)


def message_carries(message: discord.Message | None, custom_id: str) -> bool:
    """Whether the message carries a component with this custom_id (only the bot draws
    components, so such a message is a drawing of the game or challenge the id names)."""
    if message is None:
        return False
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        stack.extend(getattr(component, "children", ()) or ())
        inner = getattr(component, "component", None)
        if inner is not None:
            stack.append(inner)
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            stack.append(accessory)
    return False


def on_its_message(
    interaction: discord.Interaction[Any], stored_message_id: int | None, custom_id: str
) -> bool:
    """Whether the click came from the stored message of its game or challenge. Before that
    message is known (the bot stopped between posting and storing it), a message carrying the
    clicked id is a drawing of it."""
    message = interaction.message
    if message is None:
        return False
    if stored_message_id is not None:
        return message.id == stored_message_id
    return message_carries(message, custom_id)


async def game_on_its_message(
    interaction: discord.Interaction[Any], game: int, custom_id: str
) -> GameState:
    """Game `game`, if the click came from its own board message (a button id sent on another
    message must not act on, nor redraw that message as, this game)."""
    state = await bot_of(interaction).services.games.state(game)
    if state is None:
        raise UserError("click.no_game")
    if not on_its_message(interaction, state.row.message_id, custom_id):
        message = interaction.message
        services = bot_of(interaction).services
        if message is not None and await services.mirrors.is_board(
            state, interaction.guild_id, message.id
        ):
            # Its board in another server (a queued game between two servers).
            return state
        if moved_from(interaction.message, state, custom_id):
            boards = await services.queue.boards(game)
            row = state.row
            assert row.message_id is not None  # moved_from says it has a board elsewhere
            where = (row.guild_id, row.channel_id, row.message_id)
            for board in boards:
                # An old board in another server, reposted there: never a link into the
                # game's own server.
                if board.guild_id == interaction.guild_id and board.message_id is not None:
                    where = (board.guild_id, board.channel_id, board.message_id)
            raise UserError("click.moved", link=jump_link(*where))
        raise UserError("click.wrong_message")
    return state


def moved_from(message: discord.Message | None, state: GameState, custom_id: str) -> bool:
    """Whether `message`, not the game's board, is one of its earlier boards (the board was
    reposted with /caro board): a drawing of the game (it carries the clicked id), or a message
    of the bot's that carries no buttons at all any more (the old board, turned into a link; a
    client that had not seen that edit still shows its buttons)."""
    if message is None or state.row.message_id is None or message.id == state.row.message_id:
        return False
    return message_carries(message, custom_id) or not carries_buttons(message)


def carries_buttons(message: discord.Message) -> bool:
    """Whether the message carries any component with a custom_id (a button of the bot's)."""
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None):
            return True
        stack.extend(getattr(component, "children", ()) or ())
        for inner in (getattr(component, "component", None), getattr(component, "accessory", None)):
            if inner is not None:
                stack.append(inner)
    return False


async def participant_state(
    interaction: discord.Interaction[Any], game: int, ply: int | None
) -> GameState:
    """The running game `game` the clicking member plays in, at move count `ply`."""
    state = await bot_of(interaction).services.games.state(game)
    if state is None:
        raise UserError("click.no_game")
    if state.mark_of(interaction.user.id) is None:
        raise UserError("click.not_your_game")
    if not state.active:
        raise UserError("click.finished")
    if ply is not None and ply != state.board.ply:
        raise UserError("click.stale")
    return state


async def finished_game_here(interaction: discord.Interaction[Any], game: int) -> GameState:
    """Game `game` if it is over and was played in the server the click or command came from
    (its own, or one where it had a board: a queued game between two servers)."""
    guild_id = interaction.guild_id
    if guild_id is None:
        raise UserError("error.guild_only")
    return await bot_of(interaction).services.records.finished_game(game, guild_id)


# ----------------------------------------------------------------- the kinds of action
class OfGame(Click):
    """A control of one game, acting only from the game's own board."""

    game: GameId

    async def check(self, interaction: discord.Interaction[Any]) -> GameState:
        return await game_on_its_message(interaction, self.game, self.custom_id)


class OfPlayer(OfGame):
    """A control for a player of the running game, on the board drawn at this move count."""

    ply: Ply

    async def check(self, interaction: discord.Interaction[Any]) -> GameState:
        await super().check(interaction)
        return await participant_state(interaction, self.game, self.ply)


class OnTurn(OfPlayer):
    """A control for the player whose turn it is."""

    async def check(self, interaction: discord.Interaction[Any]) -> GameState:
        state = await super().check(interaction)
        if state.mover_id != interaction.user.id:
            if state.mode == Mode.PVP and state.mover_id is not None:
                raise UserError("click.wait_for", user=f"<@{state.mover_id}>")
            raise UserError("click.not_your_turn")
        return state


class OfChallenge(Click):
    """An answer to a challenge, only from the challenge's own message: one sent on another
    message would bind the game to that message, even move it to another channel."""

    challenge: ChallengeId

    async def check(self, interaction: discord.Interaction[Any]) -> ChallengeRow:
        found = await bot_of(interaction).services.challenges.find_challenge(self.challenge)
        if found is None:
            raise UserError("click.no_game")
        if not on_its_message(interaction, found.message_id, self.custom_id):
            raise UserError("click.wrong_message")
        return found


class OfTournament(Click):
    """A button of a tournament's announcement, only on that message and in its own server."""

    tournament: TournamentId

    async def check(self, interaction: discord.Interaction[Any]) -> TournamentRow:
        assert interaction.guild_id is not None  # the bot's buttons are in server channels
        row = await bot_of(interaction).services.tournament_reads.find(
            interaction.guild_id, self.tournament
        )
        if not on_its_message(interaction, row.message_id, self.custom_id):
            raise UserError("click.wrong_message")
        return row


class OnItsMessage(Click):
    """A button of a record (a replay, a review, a history page): it acts only on the message
    that carries it (an id copied onto another message, or a stale drawing, is refused)."""

    async def check(self, interaction: discord.Interaction[Any]) -> Any:
        if not message_carries(interaction.message, self.custom_id):
            raise UserError("click.wrong_message")


class OfFinishedGame(OnItsMessage):
    """A record's button of one finished game of this server."""

    game: GameId

    async def check(self, interaction: discord.Interaction[Any]) -> GameState:
        await super().check(interaction)
        return await finished_game_here(interaction, self.game)


# ----------------------------------------------------------------- the actions
class Cell(Click, action=Action.CELL):
    """A cell of the board: caro:m:<game>:<ply>:<cell>. The ply is the number of moves played
    when the board was drawn, so a click on an older drawing is recognised as stale. Most clicks
    are on cells: the game service checks the member, the turn and the move in the same step
    that stores it, so this check reads nothing for a click on the board that carries it."""

    game: GameId
    ply: Ply
    cell: CellName

    async def check(self, interaction: discord.Interaction[Any]) -> None:
        if not message_carries(interaction.message, self.custom_id):
            # Not on the clicked message (an older drawing in the member's client, or a
            # forgery): only on the game's own board. A message carrying the id is a drawing
            # of the game (only the bot draws buttons), and the service checks it is the stored
            # one.
            await game_on_its_message(interaction, self.game, self.custom_id)


class Resign(OfGame, action=Action.RESIGN):
    ply: Ply


class ResignConfirm(OnItsMessage, action=Action.RESIGN_CONFIRM):
    """Yes on the private question a Resign click asks: caro:rc:<game>:<ply>. Only from that
    question, and only while the game is still at the move count it was asked at: a question
    outlived by a move or by the game's end resigns nothing."""

    game: GameId
    ply: Ply

    async def check(self, interaction: discord.Interaction[Any]) -> GameState:
        await super().check(interaction)
        return await participant_state(interaction, self.game, self.ply)


class ResignKeep(OnItsMessage, action=Action.RESIGN_KEEP):
    """No on the private question a Resign click asks: caro:rk:<game>. It changes nothing."""

    game: GameId


class Hint(OfGame, action=Action.HINT):
    ply: Ply


class Rematch(OfGame, action=Action.REMATCH):
    ply: Ply


class Stop(OfGame, action=Action.STOP):
    """Stops a game between two AIs, from any drawing of it: stopping needs no position."""


class Pan(OfPlayer, action=Action.PAN):
    """The window of a big board travels in the id, so a pan needs no stored state."""

    window: WindowCode
    direction: Direction


class Decide(OnTurn, action=Action.DECIDE):
    """A colour choice of an opening (take X, take O, place two more), for the player whose
    step it is: caro:oc:<game>:<ply>:<stage>:<choice>."""

    stage: Stage
    choice: ChoiceName


class TypeMove(OnTurn, action=Action.TYPE_MOVE):
    """Opens the "type a move" form (MoveForm) for a cell outside the window."""


class MoveForm(Click, action=Action.MOVE_FORM):
    """The "type a move" form's submission: caro:tm:<game>:<ply>, one text field."""

    form = True
    game: GameId
    ply: Ply

    async def check(self, interaction: discord.Interaction[Any]) -> str:
        """The cell the member typed, once the form is known to come from the game's board."""
        cell = typed_cell(interaction.data or {})
        if not cell:
            raise UserError("click.no_cell_typed")
        # The form was opened from the board's "type a move" button: that is the id its
        # message carries.
        opener = TypeMove.custom_id_of(game=self.game, ply=self.ply)
        await game_on_its_message(interaction, self.game, opener)
        return cell


class Accept(OfChallenge, action=Action.ACCEPT):
    pass


class Decline(OfChallenge, action=Action.DECLINE):
    """Declines a challenge; the challenger's Decline withdraws it."""


class ReplayStep(OfFinishedGame, action=Action.REPLAY_STEP):
    """A replay's stepper: the position shown and the step asked for."""

    ply: Ply
    step: Step


class Export(OfFinishedGame, action=Action.EXPORT):
    """The game's files, privately, to whoever asks."""


class Replay(OfFinishedGame, action=Action.REPLAY):
    """Posts the replay of a game (from a history page)."""


class Review(OfFinishedGame, action=Action.REVIEW):
    """Posts the AI's review of a game."""


class HistoryPage(OnItsMessage, action=Action.HISTORY_PAGE):
    """That page of the member's history, on this message."""

    user: MemberId
    page: PageNumber


class OfTakeback(OnItsMessage):
    """An answer to a takeback request, on the request's own message: which game, and the move
    count it was asked at (a move since leaves it answering nothing)."""

    game: GameId
    ply: Ply


class TakebackAccept(OfTakeback, action=Action.TAKEBACK_ACCEPT):
    pass


class TakebackDecline(OfTakeback, action=Action.TAKEBACK_DECLINE):
    pass


class TournamentJoin(OfTournament, action=Action.TOURNAMENT_JOIN):
    pass


class TournamentLeave(OfTournament, action=Action.TOURNAMENT_LEAVE):
    pass


class QueueLeave(Click, action=Action.QUEUE_LEAVE):
    """Leave the queue, from the message of one's own entry (others are told it is not theirs)."""

    entry: QueueEntryId

    async def check(self, interaction: discord.Interaction[Any]) -> QueueEntry:
        found = await bot_of(interaction).services.queue.entry(self.entry)
        if found is None:
            raise UserError("click.no_game")
        if not on_its_message(interaction, found.message_id, self.custom_id):
            raise UserError("click.wrong_message")
        if found.user_id != interaction.user.id:
            raise UserError("queue.not_yours", user=f"<@{found.user_id}>")
        return found


class OfPuzzle(Click):
    """A control of a member's puzzle attempt, on its own board at this move count, for that
    member only: the open session (bot.game.puzzles.Session)."""

    attempt: AttemptId
    ply: Ply

    async def check(self, interaction: discord.Interaction[Any]) -> Any:
        return await puzzle_on_its_message(interaction, self.attempt, self.ply, self.custom_id)


async def puzzle_on_its_message(
    interaction: discord.Interaction[Any], attempt: int, ply: int, custom_id: str
) -> Any:
    session = await bot_of(interaction).services.puzzles.own_session(
        attempt, interaction.user.id, ply
    )
    if not on_its_message(interaction, session.attempt.message_id, custom_id):
        raise UserError("click.wrong_message")
    return session


class PuzzleCell(OfPuzzle, action=Action.PUZZLE_CELL):
    """A cell of a puzzle's board: the member's attacking move."""

    cell: CellName


class PuzzlePan(OfPuzzle, action=Action.PUZZLE_PAN):
    window: WindowCode
    direction: Direction


class PuzzleType(OfPuzzle, action=Action.PUZZLE_TYPE):
    """Opens the "type a move" form (PuzzleForm) for a cell outside the window."""


class PuzzleGiveUp(OfPuzzle, action=Action.PUZZLE_GIVE_UP):
    pass


class PuzzleForm(Click, action=Action.PUZZLE_FORM):
    """The puzzle's "type a move" form: the cell typed, once the form is known to come from the
    attempt's board and its member."""

    form = True
    attempt: AttemptId
    ply: Ply

    async def check(self, interaction: discord.Interaction[Any]) -> str:
        cell = typed_cell(interaction.data or {})
        if not cell:
            raise UserError("click.no_cell_typed")
        opener = PuzzleType.custom_id_of(attempt=self.attempt, ply=self.ply)
        await puzzle_on_its_message(interaction, self.attempt, self.ply, opener)
        return cell


def typed_cell(data: Any) -> str:
    """The cell typed into a "type a move" form, upper-cased and trimmed; "" if nothing; "?" if
    the text cannot name a cell (too long, or markdown that must not be echoed)."""
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


# ----------------------------------------------------------------- the actions' owners
# Cog methods that answer specs, by function: Router.adopt finds them on the loaded cogs.
_ANSWERING: dict[Callable[..., Any], tuple[type[Click], ...]] = {}

Method = Callable[[Any, discord.Interaction[Any], C, Any], Awaitable[None]]


def answers(*clicks: type[C]) -> Callable[[Method[C]], Method[C]]:
    """Marks a cog method as the action of these specs: called as (interaction, click, found),
    `found` being what the spec's check returned."""

    def mark(method: Method[C]) -> Method[C]:
        _ANSWERING[method] = clicks
        return method

    return mark


def answered_by(cog_class: type) -> dict[type[Click], str]:
    """The specs the methods of `cog_class` answer, with the method's name."""
    found: dict[type[Click], str] = {}
    for method, clicks in _ANSWERING.items():
        name = method.__name__
        if getattr(cog_class, name, None) is method:
            found.update(dict.fromkeys(clicks, name))
    return found


class Router:
    """The one entry of every component click and form submission the bot receives.

    Routed bot-side, from CaroBot.on_interaction, rather than through discord.py's DynamicItem
    registry: for a click on a registered DynamicItem, discord.py first rebuilds a View of all
    the clicked message's components to find the item (a board's 27 buttons: most of a click's
    CPU), it cannot stand for a form's submission at all, and a click whose id is not on the
    clicked message (an older drawing, a forgery) never reaches it, so a second path had to
    answer those. Here every id goes through one parse, one check and one refusal, and nothing
    is routed twice: no item class is registered with discord.py, every drawing is a stopped
    view and every form a stopped modal, of which discord.py keeps none."""

    def __init__(self) -> None:
        self._actions: dict[type[Click], Answer] = {}

    def adopt(self, cog: object) -> None:
        """Route the specs `cog`'s methods answer to them."""
        for spec, name in answered_by(type(cog)).items():
            assert spec not in self._actions, f"{spec.__name__} is answered twice"
            self._actions[spec] = getattr(cog, name)

    def require_every_action(self) -> None:
        missing = [spec.__name__ for spec in _SPECS.values() if spec not in self._actions]
        if missing:
            raise LookupError(f"no cog answers {', '.join(missing)}")

    async def route(self, interaction: discord.Interaction[Any]) -> None:
        """Answer a button's click or a form's submission; anything the bot could not have made
        (an unknown or malformed id, a form's id clicked, ...) gets the short private refusal,
        never silence."""
        kind = interaction.type
        if kind not in (discord.InteractionType.component, discord.InteractionType.modal_submit):
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        click = None
        if isinstance(custom_id, str):
            click = parse(custom_id, form=kind is discord.InteractionType.modal_submit)
        answer = self._actions.get(type(click)) if click is not None else None
        if click is None or answer is None:
            log.info("refused an unknown %s %r", kind.name, str(custom_id)[:100])
            await say(interaction, "click.forged")
            return
        await click.callback(interaction, answer)


__all__ = [
    "Accept",
    "QueueLeave",
    "Action",
    "Cell",
    "ChallengeId",
    "Click",
    "Decide",
    "Decline",
    "Direction",
    "EMPTY_LABEL",
    "Export",
    "GameId",
    "Hint",
    "HistoryPage",
    "ID",
    "MODAL_FIELD",
    "MoveForm",
    "OfChallenge",
    "OfFinishedGame",
    "OfGame",
    "OfPlayer",
    "OfPuzzle",
    "OfTakeback",
    "OnItsMessage",
    "OnTurn",
    "PLY",
    "Pan",
    "Ply",
    "PuzzleCell",
    "PuzzleForm",
    "PuzzleGiveUp",
    "PuzzlePan",
    "PuzzleType",
    "Rematch",
    "Replay",
    "ReplayStep",
    "Resign",
    "Review",
    "Router",
    "Spelling",
    "Stop",
    "TakebackAccept",
    "TakebackDecline",
    "TypeMove",
    "answered_by",
    "answers",
    "bot_of",
    "carries_buttons",
    "finished_game_here",
    "game_on_its_message",
    "message_carries",
    "moved_from",
    "on_its_message",
    "parse",
    "puzzle_on_its_message",
    "participant_state",
    "specs",
    "typed_cell",
]
