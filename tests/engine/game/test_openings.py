"""Opening rules: swap, swap2 and RIF, step by step, replayed from what a game stores."""

from __future__ import annotations

import pytest

from engine.game.board import Board
from engine.game.openings import (
    Action,
    Choice,
    Opening,
    OpeningError,
    OpeningState,
    Side,
    StepKind,
    mirrors,
    rif_family,
)
from engine.game.types import Mark, Rule


def cell(board: Board, name: str) -> tuple[int, int]:
    return board.parse_move(name)


def play(state: OpeningState, *names: str) -> OpeningState:
    for name in names:
        state = state.apply(Action.place(state.board.parse_move(name)))
    return state


def fresh(opening: Opening, size: int = 15, rule: Rule = Rule.FREESTYLE) -> OpeningState:
    return OpeningState.start(opening, size, size, 5, rule)


# ------------------------------------------------------------------------------ which boards
def test_free_is_no_opening_at_all() -> None:
    state = fresh(Opening.FREE)
    assert state.done and state.to_act is Side.FIRST and state.x_side is Side.FIRST


@pytest.mark.parametrize(
    ("opening", "rows", "cols", "k", "rule", "refused"),
    [
        (Opening.SWAP2, 3, 3, 3, Rule.FREESTYLE, True),
        (Opening.SWAP2, 15, 15, 4, Rule.FREESTYLE, True),
        (Opening.SWAP2, 8, 20, 5, Rule.CARO, True),
        (Opening.SWAP2, 9, 9, 5, Rule.CARO, False),
        (Opening.SWAP, 19, 19, 5, Rule.EXACT, False),
        (Opening.RIF, 15, 15, 5, Rule.FREESTYLE, True),
        (Opening.RIF, 19, 19, 5, Rule.RENJU, True),
        (Opening.RIF, 15, 15, 5, Rule.RENJU, False),
    ],
)
def test_an_opening_is_refused_where_its_stones_would_decide_the_game(
    opening: Opening, rows: int, cols: int, k: int, rule: Rule, refused: bool
) -> None:
    assert (opening.refusal(rows, cols, k, rule) is not None) is refused
    if refused:
        with pytest.raises(OpeningError):
            OpeningState.start(opening, rows, cols, k, rule)


def test_an_unknown_opening_name_lists_the_choices() -> None:
    assert Opening.parse(" SWAP2 ") is Opening.SWAP2
    with pytest.raises(ValueError, match="free, swap, swap2, rif"):
        Opening.parse("swap3")


# ------------------------------------------------------------------------------ swap
def test_swap_places_three_stones_then_the_second_player_picks_a_colour() -> None:
    state = fresh(Opening.SWAP)
    assert state.step is not None and state.step.kind is StepKind.PLACE
    assert state.step.side is Side.FIRST and state.step.count == 3
    state = play(state, "H8", "H9")
    assert state.step is not None and state.step.count == 1
    state = play(state, "J9")
    step = state.step
    assert step is not None and step.kind is StepKind.CHOOSE and step.side is Side.SECOND
    assert step.choices == (Choice.TAKE_X, Choice.TAKE_O)
    with pytest.raises(OpeningError, match="place_two"):
        state.apply(Action.choose(Choice.PLACE_TWO))
    taken = state.apply(Action.choose(Choice.TAKE_X))
    assert taken.done and taken.x_side is Side.SECOND
    # Three stones are down, so O moves next: the first player, who now has O.
    assert taken.board.turn is Mark.O and taken.to_act is Side.FIRST
    kept = state.apply(Action.choose(Choice.TAKE_O))
    assert kept.x_side is Side.FIRST and kept.to_act is Side.SECOND


def test_an_action_out_of_turn_is_refused_with_what_the_opening_waits_for() -> None:
    state = fresh(Opening.SWAP)
    with pytest.raises(OpeningError, match="waits for a place"):
        state.apply(Action.choose(Choice.TAKE_X))
    state = play(state, "A1", "B1", "C1")
    with pytest.raises(OpeningError, match="waits for a choose"):
        state.apply(Action.place((5, 5)))
    with pytest.raises(OpeningError, match="already taken"):
        fresh(Opening.SWAP).apply(Action.place((0, 0))).apply(Action.place((0, 0)))


# ------------------------------------------------------------------------------ swap2
def test_swap2_second_player_may_place_two_more_and_hand_the_choice_back() -> None:
    state = play(fresh(Opening.SWAP2), "H8", "H9", "J9")
    assert state.step is not None and state.step.choices == tuple(Choice)
    state = state.apply(Action.choose(Choice.PLACE_TWO))
    step = state.step
    assert step is not None and step.kind is StepKind.PLACE and step.side is Side.SECOND
    assert step.count == 2 and state.x_side is Side.FIRST
    state = play(state, "G7", "K10")
    step = state.step
    assert step is not None and step.kind is StepKind.CHOOSE and step.side is Side.FIRST
    assert step.choices == (Choice.TAKE_X, Choice.TAKE_O)
    final = state.apply(Action.choose(Choice.TAKE_O))
    assert final.done and final.x_side is Side.SECOND
    # Five stones: O (the first player) plays the sixth.
    assert final.board.ply == 5 and final.to_act is Side.FIRST
    assert final.decisions == ("place_two", "take_o")
    # Who took each decision, kept when the opening is read back from what a game stores.
    assert final.deciders == (Side.SECOND, Side.FIRST)
    stored = OpeningState(Opening.SWAP2, final.board, final.decisions)
    assert stored.deciders == (Side.SECOND, Side.FIRST)


def test_swap2_second_player_taking_a_colour_ends_the_opening_at_three_stones() -> None:
    state = play(fresh(Opening.SWAP2, rule=Rule.CARO), "H8", "H9", "J9")
    final = state.apply(Action.choose(Choice.TAKE_O))
    assert final.done and final.x_side is Side.FIRST and final.to_act is Side.SECOND


# ------------------------------------------------------------------------------ RIF
def rif() -> OpeningState:
    return fresh(Opening.RIF, rule=Rule.RENJU)


def test_rif_first_three_stones_must_make_one_of_the_canonical_openings() -> None:
    state = rif()
    with pytest.raises(OpeningError, match="centre, H8"):
        state.apply(Action.place((0, 0)))
    state = play(state, "H8")
    with pytest.raises(OpeningError, match="3x3 square around H8"):
        play(state, "H10")
    state = play(state, "I9")
    assert rif_family(state.board) == "indirect"
    with pytest.raises(OpeningError, match="5x5 square around H8"):
        play(state, "L8")
    assert len(state.cells()) == 25 - 2
    state = play(state, "J10")
    assert state.step is not None and state.step.kind is StepKind.CHOOSE


def test_rif_goes_swap_fourth_stone_two_offers_and_white_picks_the_fifth() -> None:
    state = play(rif(), "H8", "H9", "I9").apply(Action.choose(Choice.TAKE_X))
    assert rif_family(state.board) == "direct" and state.x_side is Side.SECOND
    step = state.step
    # The second player took X, so the first now has O and places the fourth stone anywhere.
    assert step is not None and step.kind is StepKind.PLACE and step.side is Side.FIRST
    state = play(state, "A1")
    step = state.step
    assert step is not None and step.kind is StepKind.OFFER and step.side is Side.SECOND
    assert step.count == 2
    board = state.board
    with pytest.raises(OpeningError, match="2 different places"):
        state.apply(Action.offer([cell(board, "J10"), cell(board, "J10")]))
    state = state.apply(Action.offer([cell(board, "J10"), cell(board, "G6")]))
    step = state.step
    assert step is not None and step.kind is StepKind.SELECT and step.side is Side.FIRST
    with pytest.raises(OpeningError, match="pick one of the offered places: J10, G6"):
        state.apply(Action.select(cell(board, "K11")))
    final = state.apply(Action.select(cell(board, "G6")))
    assert final.done and final.board.ply == 5 and final.board.turn is Mark.O
    assert final.to_act is Side.FIRST
    assert final.decisions == ("take_x", "offer:J10,G6")


def test_rif_offers_that_mirror_each_other_are_refused() -> None:
    # X H8, O H9, X H7, O H10: symmetric about column H, so G6 and I6 are the same move.
    state = play(rif(), "H8", "H9", "H7").apply(Action.choose(Choice.TAKE_O))
    state = play(state, "H10")
    board = state.board
    assert mirrors(board, cell(board, "G6"), cell(board, "I6"))
    with pytest.raises(OpeningError, match="mirror images"):
        state.apply(Action.offer([cell(board, "G6"), cell(board, "I6")]))
    assert state.refusal(Action.offer([cell(board, "G6"), cell(board, "I5")])) is None


# ------------------------------------------------------------------------------ stored and replayed
def test_a_stored_opening_resumes_at_the_same_step_with_the_same_colours() -> None:
    state = play(rif(), "H8", "I9", "J8").apply(Action.choose(Choice.TAKE_X))
    state = play(state, "G9")
    state = state.apply(Action.offer([(5, 9), (9, 5)]))
    resumed = OpeningState(Opening.RIF, state.board, state.decisions)
    assert resumed.step == state.step and resumed.x_side is state.x_side
    assert resumed.decisions == state.decisions
    final = resumed.apply(Action.select((9, 5)))
    # The game's own moves after the opening replay too.
    board = final.board
    board.push((0, 0))
    again = OpeningState(Opening.RIF, board, final.decisions)
    assert again.done and again.x_side is Side.SECOND and again.board.ply == 6


def test_stored_openings_that_break_the_rules_are_refused_on_replay() -> None:
    board = Board(15, 15, 5, Rule.FREESTYLE)
    for name in ("H8", "H9", "J9", "A1"):
        board.push_name(name)
    with pytest.raises(OpeningError, match="before the opening's decision"):
        OpeningState(Opening.SWAP, board)
    with pytest.raises(OpeningError, match="unknown opening decision"):
        OpeningState(Opening.SWAP, board, ["take_z"])
    with pytest.raises(OpeningError, match="after the opening's end"):
        OpeningState(Opening.SWAP, board, ["take_x", "take_o"])
    assert OpeningState(Opening.SWAP, board, ["take_x"]).done


def test_rif_offers_may_come_one_at_a_time_and_resume_half_made() -> None:
    state = play(rif(), "H8", "H9", "I9").apply(Action.choose(Choice.TAKE_O))
    state = play(state, "F5")
    board = state.board
    state = state.apply(Action.offer([cell(board, "J10")]))
    step = state.step
    assert step is not None and step.kind is StepKind.OFFER and step.count == 1
    assert step.offers == (cell(board, "J10"),) and state.decisions == ("take_o", "offer:J10")
    resumed = OpeningState(Opening.RIF, state.board, state.decisions)
    assert resumed.step == step
    with pytest.raises(OpeningError, match="1 more different places"):
        resumed.apply(Action.offer([cell(board, "J10")]))
    done = resumed.apply(Action.offer([cell(board, "G7")]))
    assert done.decisions == ("take_o", "offer:J10,G7")
    assert done.step is not None and done.step.kind is StepKind.SELECT


def test_refusals_a_player_can_meet_carry_a_code_and_their_details() -> None:
    def refused(state: OpeningState, action: Action) -> tuple[str | None, dict[str, object]]:
        with pytest.raises(OpeningError) as caught:
            state.apply(action)
        return caught.value.code, caught.value.values

    assert refused(rif(), Action.place((0, 0))) == ("centre", {"centre": "H8"})
    state = play(rif(), "H8")
    assert refused(state, Action.place((9, 7))) == ("square", {"stone": 2, "side": 3, "centre": "H8"})
    assert refused(state, Action.place((7, 7))) == ("taken", {"cell": "H8"})
    state = play(state, "H9", "H7").apply(Action.choose(Choice.TAKE_O))
    state = play(state, "H10")
    board = state.board
    assert refused(state, Action.offer([cell(board, "G6"), cell(board, "I6")])) == (
        "mirror",
        {"first": "G6", "second": "I6"},
    )
    state = state.apply(Action.offer([cell(board, "G6"), cell(board, "I5")]))
    assert refused(state, Action.select(cell(board, "A1"))) == ("pick", {"cells": "G6, I5"})
    done = state.apply(Action.select(cell(board, "I5")))
    assert refused(done, Action.place((0, 0))) == ("over", {})
