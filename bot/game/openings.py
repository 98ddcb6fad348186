"""The opening rules in a game: what a member's click or choice means in the step the opening
waits for, and how a decision changes the game's row. The rules themselves are engine.game.openings';
this module only maps them onto seats and refusals. No Discord code here."""

from __future__ import annotations

from dataclasses import replace

from bot.game.errors import UserError
from bot.game.model import OPENING_PLIES, GameRow, GameState
from bot.i18n.texts import TextId
from engine import Board
from engine.game.openings import Action, Choice, Opening, OpeningError, OpeningState, StepKind

# The reason stored with an AI's opening stone (engine.ai.explain has none for an opening).
OPENING_REASON = "opening"


def click_action(opening: OpeningState, board: Board, cell_text: str) -> Action:
    """What a click on `cell_text` means in the opening's step; UserError if a cell means
    nothing now (a colour choice waits for its buttons)."""
    step = opening.step
    assert step is not None
    if step.kind is StepKind.CHOOSE:
        raise UserError("opening.choose_first")
    try:
        cell = board.parse_move(cell_text)
    except ValueError:
        raise UserError("click.off_board", cell=cell_text) from None
    if step.kind is StepKind.PLACE:
        return Action.place(cell)
    if step.kind is StepKind.SELECT:
        return Action.select(cell)
    return Action.offer([cell])


def applied(opening: OpeningState, action: Action) -> OpeningState:
    """The opening after `action`; UserError with the engine's reason if it is not allowed."""
    try:
        return opening.apply(action)
    except OpeningError as exc:
        raise refusal(exc) from None


def refusal(exc: OpeningError) -> UserError:
    """The member's private answer to an opening's refusal, in their language where the engine
    named it (a taken cell, a stone outside RIF's square, mirrored offers...); otherwise the
    engine's own words."""
    values = exc.values
    if exc.code == "taken":
        return UserError("click.taken", cell=values["cell"])
    if exc.code == "forbidden":
        return UserError("click.forbidden", cell=values["cell"], shape=TextId(f"shape.{values['shape']}"))
    if exc.code in _CODED:
        return UserError(f"opening.error.{exc.code}", **values)
    return UserError("opening.refused", reason=str(exc))


# The refusals with a text of their own (opening.error.<code>).
_CODED = frozenset({"centre", "square", "mirror", "pick", "offer_count", "over"})


def decided_row(row: GameRow, before: OpeningState, after: OpeningState) -> tuple[GameRow, bool]:
    """The game's row after a decision (a choice or an offer) took `before` to `after`, and
    whether it swapped the seats: the seats are always who plays X and O now."""
    swap = after.x_side is not before.x_side
    new = replace(row, decisions=after.decisions)
    if swap:
        new = replace(new, x=row.o, o=row.x)
    return new, swap


def opening_stones(state: GameState) -> int:
    """How many of the game's first moves its opening placed (they cannot be taken back); 0
    in a free game. While the opening is under way, all of them."""
    if state.row.opening is Opening.FREE:
        return 0
    if state.opening is not None:
        return state.board.ply
    board = Board(state.board.rows, state.board.cols, state.board.k, state.board.rule)
    for cell in state.board.moves[:OPENING_PLIES]:
        try:
            if OpeningState(state.row.opening, board, state.row.decisions).done:
                break
        except OpeningError:
            pass  # fewer stones than the decisions were taken on: the opening went further
        board.push(cell)
    return board.ply


def parse_choice(text: str) -> Choice:
    try:
        return Choice(text)
    except ValueError:
        raise UserError("click.forged") from None


def choice_step(state: GameState) -> tuple[Choice, ...]:
    """The choices the opening of `state` offers now; () when it waits for no choice."""
    opening = state.opening
    step = None if opening is None else opening.step
    if step is None or step.kind is not StepKind.CHOOSE:
        return ()
    return step.choices


__all__ = [
    "OPENING_REASON",
    "applied",
    "choice_step",
    "click_action",
    "decided_row",
    "opening_stones",
    "parse_choice",
    "refusal",
]
