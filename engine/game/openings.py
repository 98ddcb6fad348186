"""Opening rules: how the first stones are placed and who ends up with which colour.

From an empty board the first player wins freestyle gomoku, so serious games start with an
opening rule. One player (the *first*, who starts as tentative X) places some stones of both
colours, and the other decides who plays which colour:

* `Opening.SWAP`: the first player places three stones (X, O, X); the second takes X or O.
* `Opening.SWAP2`: as swap, or the second places two more stones (O, X) and the first then
  takes X or O.
* `Opening.RIF`: renju on 15x15. The first player places one of the 26 canonical openings (X on
  the centre, O next to it, X within the centre's 5x5); the second may swap; O places the fourth
  stone anywhere; X offers two places for the fifth stone that are not mirror images of each
  other; O picks one of them for X, then O plays on.

An `OpeningState` is the opening so far: the board with the stones placed and the decisions
taken (colour choices and offers), as tokens a game can store. Its `step` says what comes next
and whose it is; `apply` takes the next action. Every action is checked here, so a bot, a
program and the AI share one set of rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from .board import Board
from .notation import cell_name, parse_cell
from .types import Cell, InvalidMoveError, Mark, MoveError, Rule, parse_named, quoted

# Fewer cells than this and the opening's stones decide the game on their own.
MIN_SIDE = 9
# RIF's fifth-move offers.
RIF_OFFERS = 2
RIF_SIDE = 15


class OpeningError(ValueError):
    """An opening that cannot be played on this board, or an action it does not allow now.

    `code` names the refusals a player can meet (a click on a taken cell, a RIF stone outside
    its square, offers that mirror each other...) and `values` their details, so a program can
    word them in its own language; None for the rest, whose message is for developers."""

    def __init__(self, message: str, code: str | None = None, **values: str | int) -> None:
        super().__init__(message)
        self.code = code
        self.values = values


class Opening(StrEnum):
    """The opening rules, defined once. FREE is no opening: X plays first from an empty board."""

    FREE = "free"
    SWAP = "swap"
    SWAP2 = "swap2"
    RIF = "rif"

    @classmethod
    def parse(cls, text: str) -> Opening:
        """Opening from its name, case-insensitive; ValueError listing the choices otherwise."""
        return parse_named(cls, text, "opening")

    def refusal(self, rows: int, cols: int, k: int, rule: Rule) -> str | None:
        """Why this opening cannot be played on a rows x cols board with k in a row under
        `rule`, or None when it can."""
        if self is Opening.FREE:
            return None
        if self is Opening.RIF:
            if rule is not Rule.RENJU or (rows, cols) != (RIF_SIDE, RIF_SIDE):
                return f"the {self.value} opening is for renju on {RIF_SIDE}x{RIF_SIDE}"
            return None
        if k < 5 or min(rows, cols) < MIN_SIDE:
            return (
                f"{self.value} needs five or more in a row on a board of at least"
                f" {MIN_SIDE}x{MIN_SIDE}: its first stones would decide a smaller game"
            )
        return None

    def check(self, rows: int, cols: int, k: int, rule: Rule) -> None:
        """OpeningError when refusal() gives a reason."""
        reason = self.refusal(rows, cols, k, rule)
        if reason is not None:
            raise OpeningError(reason)


class Side(IntEnum):
    """The two players of an opening: FIRST places the first stones and starts as tentative X."""

    FIRST = 0
    SECOND = 1

    @property
    def other(self) -> Side:
        return Side.SECOND if self is Side.FIRST else Side.FIRST


class Choice(StrEnum):
    """A colour decision: take X, take O, or (swap2's second player) place two more stones."""

    TAKE_X = "take_x"
    TAKE_O = "take_o"
    PLACE_TWO = "place_two"


class StepKind(StrEnum):
    PLACE = "place"  # put the next stone (its colour is the board's side to move)
    CHOOSE = "choose"  # pick one of `choices`
    OFFER = "offer"  # propose `count` distinct places for X's next stone
    SELECT = "select"  # pick one of `offers`; it is played as X's stone


@dataclass(frozen=True, slots=True)
class Step:
    """What the opening waits for. `side` acts; `count` is the stones still to place in this
    step (PLACE) or the places still to offer (OFFER: one at a time or all at once)."""

    kind: StepKind
    side: Side
    count: int = 1
    choices: tuple[Choice, ...] = ()
    offers: tuple[Cell, ...] = ()  # SELECT: the places offered; OFFER: those offered so far


@dataclass(frozen=True, slots=True)
class Action:
    """One action of an opening. Build it with the class methods."""

    kind: StepKind
    cell: Cell | None = None
    choice: Choice | None = None
    cells: tuple[Cell, ...] = ()

    @classmethod
    def place(cls, cell: Cell) -> Action:
        return cls(StepKind.PLACE, cell=cell)

    @classmethod
    def choose(cls, choice: Choice) -> Action:
        return cls(StepKind.CHOOSE, choice=choice)

    @classmethod
    def offer(cls, cells: Iterable[Cell]) -> Action:
        return cls(StepKind.OFFER, cells=tuple(cells))

    @classmethod
    def select(cls, cell: Cell) -> Action:
        return cls(StepKind.SELECT, cell=cell)


class OpeningState:
    """An opening in progress, or finished (`step` is None). Immutable: `apply` returns a new one.

    `decisions` are the opening's tokens apart from the stones: the choices' values, and an offer
    as "offer:H10,J7". With the board's moves they are all a game needs to store to resume.
    `deciders` says which side took each of them."""

    __slots__ = ("opening", "_board", "decisions", "deciders", "_step", "_x_side")

    def __init__(self, opening: Opening, board: Board, decisions: Sequence[str] = ()) -> None:
        """The opening `board` (its moves in order) and `decisions` reached, replayed and checked:
        OpeningError if they are not a legal opening so far. Moves beyond the opening's end are
        the game's own and are not checked here."""
        opening.check(board.rows, board.cols, board.k, board.rule)
        self.opening = opening
        start = Board(board.rows, board.cols, board.k, board.rule)
        state = _Replay(opening, start)
        moves = list(board.moves)
        tokens = list(decisions)
        while True:
            step = state.step()
            if step is None:
                break
            if step.kind in (StepKind.PLACE, StepKind.SELECT):
                if not moves:
                    break
                cell = moves.pop(0)
                state.act(Action.place(cell) if step.kind is StepKind.PLACE else Action.select(cell))
            else:
                if not tokens:
                    break
                state.act(_action_of(tokens.pop(0), board))
        if tokens:
            raise OpeningError(f"decisions after the opening's end: {', '.join(tokens)}")
        if moves and state.step() is not None:
            raise OpeningError("moves were played before the opening's decision")
        for cell in moves:
            # The game's own moves after the opening.
            try:
                state.board.push(cell)
            except MoveError as exc:
                raise OpeningError(str(exc)) from None
        self._board = state.board
        self.decisions: tuple[str, ...] = tuple(state.tokens)
        self.deciders: tuple[Side, ...] = tuple(state.sides)
        self._step = state.step() if not moves else None
        self._x_side = state.x_side

    @classmethod
    def start(cls, opening: Opening, rows: int, cols: int, k: int, rule: Rule) -> OpeningState:
        return cls(opening, Board(rows, cols, k, rule))

    # ------------------------------------------------------------------ reading
    @property
    def board(self) -> Board:
        """A copy of the position: the opening's stones (and any game moves after it)."""
        return self._board.copy()

    @property
    def step(self) -> Step | None:
        """The next step, or None when the opening is over and play goes on as usual."""
        return self._step

    @property
    def done(self) -> bool:
        return self._step is None

    @property
    def x_side(self) -> Side:
        """The side that plays X now: FIRST until a choice gives X to the second."""
        return self._x_side

    def side_of(self, mark: Mark) -> Side:
        return self._x_side if mark is Mark.X else self._x_side.other

    @property
    def to_act(self) -> Side:
        """Who acts next: the step's side during the opening, then the side of the mark to move."""
        step = self._step
        return step.side if step is not None else self.side_of(self._board.turn)

    def refusal(self, action: Action) -> str | None:
        """Why `action` cannot be taken now, or None."""
        try:
            self.apply(action)
        except OpeningError as exc:
            return str(exc)
        return None

    def cells(self) -> tuple[Cell, ...]:
        """The cells the next PLACE, OFFER or SELECT may use; () for a CHOOSE or after the end."""
        step = self._step
        if step is None or step.kind is StepKind.CHOOSE:
            return ()
        if step.kind is StepKind.SELECT:
            return step.offers
        board = self._board
        zone = _zone(self.opening, board)
        return tuple(
            cell
            for cell in board.legal_moves
            if (zone is None or _in_zone(cell, board, zone)) and board.forbidden(cell) is None
        )

    # ------------------------------------------------------------------ acting
    def apply(self, action: Action) -> OpeningState:
        """The state after `action`; OpeningError (saying why) if it is not allowed now."""
        if self._step is None:
            raise OpeningError("the opening is over", "over")
        replay = _Replay(
            self.opening, self._board.copy(), list(self.decisions), self._x_side, list(self.deciders)
        )
        replay.act(action)
        state = object.__new__(OpeningState)
        state.opening = self.opening
        state._board = replay.board
        state.decisions = tuple(replay.tokens)
        state.deciders = tuple(replay.sides)
        state._step = replay.step()
        state._x_side = replay.x_side
        return state

    def __repr__(self) -> str:
        moves = " ".join(cell_name(cell) for cell in self._board.moves)
        return f"OpeningState({self.opening.value}, moves=[{moves}], decisions={list(self.decisions)})"


# ---------------------------------------------------------------------------------- the plans
class _Replay:
    """The mutable walk behind OpeningState: the rules of each opening, step by step."""

    __slots__ = ("opening", "board", "tokens", "x_side", "sides")

    def __init__(
        self,
        opening: Opening,
        board: Board,
        tokens: list[str] | None = None,
        x_side: Side = Side.FIRST,
        sides: list[Side] | None = None,
    ) -> None:
        self.opening = opening
        self.board = board
        self.tokens: list[str] = tokens if tokens is not None else []
        self.x_side = x_side
        # The side that took each token, in step with `tokens`.
        self.sides: list[Side] = sides if sides is not None else []

    def _choices(self) -> list[Choice]:
        return [Choice(token) for token in self.tokens if token in _CHOICE_VALUES]

    def _offers(self) -> tuple[Cell, ...]:
        for token in reversed(self.tokens):
            if token.startswith(_OFFER):
                return _offer_cells(token, self.board)
        return ()

    def step(self) -> Step | None:
        # Code rather than a table: swap2 branches on the second player's choice.
        ply = self.board.ply
        choices = self._choices()
        if self.opening is Opening.FREE:
            return None
        if self.opening is Opening.SWAP:
            if ply < 3:
                return Step(StepKind.PLACE, Side.FIRST, count=3 - ply)
            if not choices:
                return Step(StepKind.CHOOSE, Side.SECOND, choices=(Choice.TAKE_X, Choice.TAKE_O))
            return None
        if self.opening is Opening.SWAP2:
            if ply < 3:
                return Step(StepKind.PLACE, Side.FIRST, count=3 - ply)
            if not choices:
                return Step(StepKind.CHOOSE, Side.SECOND, choices=tuple(Choice))
            if choices[0] is not Choice.PLACE_TWO:
                return None
            if ply < 5:
                return Step(StepKind.PLACE, Side.SECOND, count=5 - ply)
            if len(choices) < 2:
                return Step(StepKind.CHOOSE, Side.FIRST, choices=(Choice.TAKE_X, Choice.TAKE_O))
            return None
        # RIF
        if ply < 3:
            return Step(StepKind.PLACE, Side.FIRST, count=3 - ply)
        if not choices:
            return Step(StepKind.CHOOSE, Side.SECOND, choices=(Choice.TAKE_X, Choice.TAKE_O))
        o_side = self.x_side.other
        if ply < 4:
            return Step(StepKind.PLACE, o_side)
        offers = self._offers()
        if ply < 5 and len(offers) < RIF_OFFERS:
            return Step(StepKind.OFFER, self.x_side, count=RIF_OFFERS - len(offers), offers=offers)
        if ply < 5:
            return Step(StepKind.SELECT, o_side, offers=offers)
        return None

    def act(self, action: Action) -> None:
        step = self.step()
        if step is None:
            raise OpeningError("the opening is over", "over")
        if action.kind is not step.kind:
            raise OpeningError(f"the opening waits for a {step.kind.value}, not a {action.kind.value}")
        board = self.board
        if step.kind is StepKind.CHOOSE:
            choice = action.choice
            if choice not in step.choices:
                allowed = ", ".join(c.value for c in step.choices)
                raise OpeningError(f"choose one of {allowed}, not {quoted(choice)}")
            assert choice is not None
            self.tokens.append(choice.value)
            self.sides.append(step.side)
            if choice is not Choice.PLACE_TWO:
                # The chooser takes the colour named; the other side gets the other one.
                self.x_side = step.side if choice is Choice.TAKE_X else step.side.other
            return
        if step.kind is StepKind.OFFER:
            cells = step.offers + action.cells
            self._check_offers(action.cells, step.count, step.offers)
            token = _OFFER + ",".join(cell_name(cell) for cell in cells)
            if step.offers:
                # Offers may come one at a time: the token grows until the offer is complete.
                self.tokens[-1] = token
            else:
                self.tokens.append(token)
                self.sides.append(step.side)
            return
        cell = action.cell
        if cell is None:
            raise OpeningError(f"a {step.kind.value} needs a cell")
        if step.kind is StepKind.SELECT and cell not in step.offers:
            offered = ", ".join(cell_name(c) for c in step.offers)
            raise OpeningError(f"pick one of the offered places: {offered}", "pick", cells=offered)
        zone = _zone(self.opening, board)
        if step.kind is StepKind.PLACE and zone is not None and not _in_zone(cell, board, zone):
            raise _zone_error(board.ply, zone, board)
        if _taken(board, cell):
            raise OpeningError(f"{cell_name(cell)} is already taken", "taken", cell=cell_name(cell))
        try:
            board.push(cell)
        except MoveError as exc:
            raise OpeningError(str(exc)) from None
        if board.is_over():
            # No opening here can reach k in a row; a board that did is not this opening's.
            raise OpeningError("an opening stone may not end the game")

    def _check_offers(self, new: tuple[Cell, ...], count: int, made: tuple[Cell, ...]) -> None:
        board = self.board
        cells = made + new
        if not 1 <= len(new) <= count or len(set(cells)) != len(cells):
            more = "more " if made else ""
            raise OpeningError(f"offer {count} {more}different places", "offer_count", count=count)
        for cell in new:
            try:
                taken = board[cell] is not None
            except (IndexError, TypeError, ValueError):
                raise OpeningError(f"{quoted(cell)} is not a cell of this board") from None
            if taken:
                raise OpeningError(f"{cell_name(cell)} is already taken", "taken", cell=cell_name(cell))
            forbidden = board.forbidden(cell)
            if forbidden is not None:
                raise OpeningError(
                    f"{cell_name(cell)} is forbidden for X: {forbidden.shape}",
                    "forbidden",
                    cell=cell_name(cell),
                    shape=forbidden.shape.value,
                )
        for index, first in enumerate(cells):
            for second in cells[max(index + 1, len(made)) :]:
                if mirrors(board, first, second):
                    raise OpeningError(
                        f"{cell_name(first)} and {cell_name(second)} are mirror images of each"
                        " other here: offer places that differ",
                        "mirror",
                        first=cell_name(first),
                        second=cell_name(second),
                    )


_CHOICE_VALUES = frozenset(choice.value for choice in Choice)
_OFFER = "offer:"


def _offer_cells(token: str, board: Board) -> tuple[Cell, ...]:
    try:
        return tuple(
            parse_cell(name, board.rows, board.cols) for name in token[len(_OFFER) :].split(",")
        )
    except InvalidMoveError as exc:
        raise OpeningError(f"bad offer {quoted(token)}: {exc}") from None


def _action_of(token: str, board: Board) -> Action:
    if token in _CHOICE_VALUES:
        return Action.choose(Choice(token))
    if token.startswith(_OFFER):
        return Action.offer(_offer_cells(token, board))
    raise OpeningError(f"unknown opening decision {quoted(token)}")


# ----------------------------------------------------------------------------- RIF's geometry
def _zone(opening: Opening, board: Board) -> int | None:
    """For RIF's first three stones, how far from the centre the next one may be (0: on it)."""
    if opening is not Opening.RIF or board.ply >= 3:
        return None
    return board.ply


def _in_zone(cell: Cell, board: Board, radius: int) -> bool:
    row, col = cell
    centre_row, centre_col = board.rows // 2, board.cols // 2
    return abs(row - centre_row) <= radius and abs(col - centre_col) <= radius


def _taken(board: Board, cell: Cell) -> bool:
    try:
        return board[cell] is not None
    except (IndexError, TypeError, ValueError):
        return False  # not a cell: the push says so


def _zone_error(ply: int, radius: int, board: Board) -> OpeningError:
    centre = cell_name((board.rows // 2, board.cols // 2))
    if radius == 0:
        return OpeningError(f"the first stone goes on the centre, {centre}", "centre", centre=centre)
    side = 2 * radius + 1
    ordinal = "second" if ply == 1 else "third"
    return OpeningError(
        f"the {ordinal} stone goes within the {side}x{side} square around {centre}",
        "square",
        stone=ply + 1,
        side=side,
        centre=centre,
    )


def _symmetries(rows: int, cols: int) -> list[tuple[bool, bool, bool]]:
    """The board's symmetries as (transpose, flip rows, flip columns); transposes only on a
    square board."""
    transposes = (False, True) if rows == cols else (False,)
    return [(t, fr, fc) for t in transposes for fr in (False, True) for fc in (False, True)]


def _map(cell: Cell, rows: int, cols: int, symmetry: tuple[bool, bool, bool]) -> Cell:
    transpose, flip_rows, flip_cols = symmetry
    row, col = cell
    if transpose:
        row, col = col, row
    if flip_rows:
        row = rows - 1 - row
    if flip_cols:
        col = cols - 1 - col
    return row, col


def mirrors(board: Board, first: Cell, second: Cell) -> bool:
    """Whether a symmetry of the board that keeps every stone (with its colour) in place as a
    whole takes `first` to `second`: the two are then the same move."""
    rows, cols = board.rows, board.cols
    stones = {cell: board[cell] for cell in board.moves}
    for symmetry in _symmetries(rows, cols):
        keeps = all(stones.get(_map(c, rows, cols, symmetry)) is mark for c, mark in stones.items())
        if keeps and _map(first, rows, cols, symmetry) == second:
            return True
    return False


def rif_family(board: Board) -> str | None:
    """For a RIF opening's first three stones: "direct" (the O stone beside the centre) or
    "indirect" (diagonal to it); None before the second stone."""
    moves = board.moves
    if len(moves) < 2:
        return None
    (r0, c0), (r1, c1) = moves[0], moves[1]
    return "direct" if abs(r0 - r1) + abs(c0 - c1) == 1 else "indirect"
