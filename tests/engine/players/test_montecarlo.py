"""The Monte Carlo reference opponent: its fast playouts agree with Board, and it plays sensibly."""

from __future__ import annotations

import random

import pytest

from engine import Board, Mark, Rule
from engine.players.montecarlo import (
    SMALL_BOARD_CELLS,
    candidate_cells,
    monte_carlo_move,
    monte_carlo_scores,
    playout_result,
)
from testkit.rules import K_RULES

# The spec's 5x5 k=4 position, X to move; the solver proves exactly these three moves win.
MC_POSITION = [(2, 1), (2, 2), (1, 2), (0, 3), (1, 1), (1, 0)]
WINNING_MOVES = {(1, 3), (1, 4), (3, 1)}


def board_with(rows: int, cols: int, k: int, cells: list[tuple[int, int]],
               rule: Rule = Rule.FREESTYLE) -> Board:
    board = Board(rows, cols, k, rule)
    for cell in cells:
        board.push(cell)
    return board


def referee(board: Board, order: list[tuple[int, int]]) -> object:
    """The winner by playing the order through Board itself."""
    board = board.copy()
    for cell in order:
        board.push(cell)
        if board.is_over():
            break
    outcome = board.outcome()
    assert outcome is not None
    return outcome.winner


@pytest.mark.parametrize("rule", K_RULES)
def test_playouts_agree_with_board_on_random_games(rule: Rule) -> None:
    rng = random.Random(f"playouts/{rule.value}")
    checked = decided = 0
    while checked < 700:
        rows, cols = rng.randint(1, 9), rng.randint(1, 9)
        k = rng.randint(1, min(max(rows, cols), 6))
        board = Board(rows, cols, k, rule)
        for _ in range(rng.randint(0, rows * cols)):
            if board.is_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        if board.is_over():
            continue
        order = list(board.legal_moves)
        rng.shuffle(order)
        expected = referee(board, order)
        assert playout_result(board, order) == expected, (board.text(), order)
        checked += 1
        decided += expected is not None
    # The sample must hold decided games of both kinds, not only draws.
    assert decided > 200


def test_opponent_completing_first_wins_even_if_mover_completes_later() -> None:
    # 1x7 k2, X to move: O's second stone (D1 E1) makes a pair before X's third (A1 C1 B1).
    board = Board(1, 7, 2)
    order = [(0, 0), (0, 3), (0, 2), (0, 4), (0, 1), (0, 5), (0, 6)]
    assert referee(board, order) == Mark.O
    assert playout_result(board, order) == Mark.O


def test_exact_overline_and_caro_blocked_line_do_not_end_the_playout() -> None:
    # 2x6 k3: X's C1 joins A1 B1 and D1 into four in a row; only freestyle counts that as a win.
    opening = [(0, 0), (1, 0), (0, 1), (1, 2), (0, 3), (1, 4)]
    order = [(0, 2), (0, 4), (1, 1), (0, 5), (1, 3), (1, 5)]
    for rule, winner in ((Rule.FREESTYLE, Mark.X), (Rule.EXACT, None), (Rule.CARO, None)):
        board = board_with(2, 6, 3, opening, rule)
        assert referee(board, order) == winner
        assert playout_result(board, order) == winner
    # Caro: X's B1 C1 D1 lies between O's A1 and E1, so it is blocked and the game is drawn.
    board = board_with(1, 5, 3, [(0, 1), (0, 0)], Rule.CARO)
    order = [(0, 2), (0, 4), (0, 3)]
    assert referee(board, order) is None
    assert playout_result(board, order) is None
    board = board_with(1, 5, 3, [(0, 1), (0, 0)], Rule.EXACT)
    assert playout_result(board, order) == Mark.X


def test_playout_result_rejects_orders_that_are_not_the_empty_cells() -> None:
    board = board_with(3, 3, 3, [(1, 1)])
    with pytest.raises(ValueError, match="every empty cell"):
        playout_result(board, [(0, 0)])
    with pytest.raises(ValueError, match="every empty cell"):
        playout_result(board, [(1, 1), *[c for c in board.legal_moves if c != (0, 0)]])


def test_takes_an_immediate_win() -> None:
    # X: A1 B1, O: A2 B2; X to move wins at C1 and Monte Carlo sees it as a sure win.
    board = board_with(3, 3, 3, [(0, 0), (1, 0), (0, 1), (1, 1)])
    scores = monte_carlo_scores(board, random.Random(1), playouts=40)
    assert scores[(0, 2)] == 40
    assert monte_carlo_move(board, random.Random(1), playouts=40) == (0, 2)


def test_takes_an_immediate_win_on_a_big_board_with_radius_candidates() -> None:
    # 11x11 k5, X to move: four in a row on row 6 with both ends open; O's stones are far away.
    board = board_with(11, 11, 5, [(5, 3), (0, 0), (5, 4), (0, 10), (5, 5), (10, 0), (5, 6), (10, 10)])
    assert monte_carlo_move(board, random.Random(3), playouts=30) in {(5, 2), (5, 7)}


def test_finds_a_winning_move_in_the_reference_position() -> None:
    board = board_with(5, 5, 4, MC_POSITION)
    assert monte_carlo_move(board, random.Random(7), playouts=1000) in WINNING_MOVES


def test_same_seed_same_move_and_board_untouched() -> None:
    board = board_with(9, 9, 5, [(4, 4), (3, 3), (4, 5)])
    before = board.text()
    first = monte_carlo_scores(board, random.Random(42), playouts=30)
    second = monte_carlo_scores(board, random.Random(42), playouts=30)
    assert first == second
    assert board.text() == before
    assert monte_carlo_move(board, random.Random(5), playouts=30) == monte_carlo_move(
        board, random.Random(5), playouts=30
    )


def test_candidates() -> None:
    big = Board(15, 15, 5)
    assert candidate_cells(big) == [(7, 7)]
    big.push((0, 0))
    assert candidate_cells(big, 1) == [(0, 1), (1, 0), (1, 1)]
    assert len(candidate_cells(big, 2)) == 8
    assert len(candidate_cells(big, None)) == 224
    small = Board(7, 7, 4)  # 49 cells: every empty cell is a candidate
    assert SMALL_BOARD_CELLS >= 7 * 7
    small.push((0, 0))
    assert len(candidate_cells(small)) == 48
    with pytest.raises(ValueError, match="radius"):
        candidate_cells(big, -1)


def test_bad_input_is_refused_with_a_clear_message() -> None:
    board = Board(3, 3, 3)
    with pytest.raises(ValueError, match="playouts"):
        monte_carlo_move(board, random.Random(0), playouts=0)
    over = board_with(3, 3, 3, [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)])
    with pytest.raises(ValueError, match="over"):
        monte_carlo_move(over, random.Random(0))
