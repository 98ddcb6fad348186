"""Renju's forbidden moves for black (engine.game.renju): each shape and its exceptions on hand-made
positions, then engine.game.renju against the brute-force reference on random positions."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bench.renju import random_position
from engine import Board, Cell, Mark, Outcome, Rule
from engine.game import renju
from engine.game._renju_reference import (
    reference_forbidden,
    reference_forbidden_points,
    reference_threes,
)
from engine.game.notation import parse_cell
from engine.game.renju import Forbidden, Shape, Stones

# Stones for the side that only has to pass its turn: on the edge rows, far from every shape
# below, and never two within a five of each other.
O_FILLER = ("A1", "D1", "G1", "J1", "M1", "A2", "D2", "G2", "J2", "M2")
X_FILLER = ("A15", "E15", "I15", "M15", "C14", "G14", "K14", "O14")


def cell(name: str) -> Cell:
    return parse_cell(name, 15, 15)


def board_with(x: str, o: str = "") -> Board:
    """A 15x15 board holding X's stones `x` and O's `o` (names like "H8"), played alternately,
    with filler stones for the side that has fewer."""
    xs, os = x.split(), o.split()
    os += O_FILLER[: max(0, len(xs) - 1 - len(os))]
    xs += X_FILLER[: max(0, len(os) - len(xs))]
    # The exact rule: a long black row on the board before the check does not end the game.
    board = Board(15, 15, 5, Rule.EXACT)
    for i, name in enumerate(xs):
        board.push_name(name)
        if i < len(os):
            board.push_name(os[i])
    assert not board.is_over(), board
    return board


def grid_with(x: str, o: str = "") -> list[list[int]]:
    """Rows of cell values holding exactly X's stones `x` and O's `o`."""
    grid = [[0] * 15 for _ in range(15)]
    for names, value in ((x, 1), (o, 2)):
        for name in names.split():
            r, c = cell(name)
            grid[r][c] = value
    return grid


def expected(name: str, shape: Shape, *lines: str) -> Forbidden:
    rows = tuple(sorted(tuple(sorted(cell(n) for n in line.split())) for line in lines))
    return Forbidden(cell(name), shape, rows)


def check(position: Board | list[list[int]], name: str) -> Forbidden | None:
    """engine.game.renju's answer, after asserting the reference gives the same."""
    answer = renju.forbidden(position, cell(name))
    rows = position if isinstance(position, list) else grid_of(position)
    assert reference_forbidden(rows, cell(name)) == answer
    return answer


def grid_of(board: Board) -> list[list[int]]:
    return [list(board.grid[r * 15 : (r + 1) * 15]) for r in range(15)]


# ----------------------------------------------------------------- double-three
@pytest.mark.parametrize(
    ("x", "move", "threes"),
    [
        # Two unbroken threes, along a row and a column.
        ("F8 G8 H6 H7", "H8", ("F8 G8 H8", "H6 H7 H8")),
        # A broken three (E8 _ G8 H8) with an unbroken one.
        ("E8 G8 H6 H7", "H8", ("E8 G8 H8", "H6 H7 H8")),
        # Both diagonals.
        ("F6 G7 J6 I7", "H8", ("F6 G7 H8", "J6 I7 H8")),
    ],
)
def test_two_threes_through_the_move_are_a_double_three(
    x: str, move: str, threes: tuple[str, ...]
) -> None:
    assert check(board_with(x), move) == expected(move, Shape.DOUBLE_THREE, *threes)


@pytest.mark.parametrize(
    "o",
    [
        "E8",  # O X X X _ _ : the straight four would need E8
        "D8 J8",  # O _ X X X _ O : each four it can become is blocked at one end
    ],
)
def test_a_three_blocked_by_white_is_not_a_three(o: str) -> None:
    assert check(board_with("F8 G8 H6 H7", o), "H8") is None


def test_a_three_whose_straight_four_would_be_an_overline_is_not_a_three() -> None:
    # O _ X X X _ _ X : I8 makes a four whose one side (J8) gives six, not five.
    assert check(board_with("F8 G8 H6 H7 K8", "D8"), "H8") is None


@pytest.mark.parametrize(
    ("x", "o", "why"),
    [
        # I8 would make a five in column I.
        ("I9 I10 I11 I12", "", "five"),
        # I8 would make an overline in column I.
        ("I5 I6 I7 I9 I10", "", "overline"),
        # I8 would make a second four, in column I.
        ("I9 I10 I11", "I12", "double-four"),
        # I8 would make two threes of its own (column I, and K6 J7 I8), each real.
        ("I9 I10 J7 K6", "", "double-three"),
    ],
)
def test_a_three_whose_straight_four_point_may_not_be_played_is_not_a_three(
    x: str, o: str, why: str
) -> None:
    # Row 8 is O _ X X [X] _ _: only I8 gives it a straight four. Column H is a real three.
    board = board_with("F8 G8 H6 H7 " + x, "D8 " + o)
    assert check(board, "H8") is None
    assert len(reference_threes(grid_of(board), cell("H8"), check_points=False)) == 2
    # Without the white stone on D8, E8 also makes the straight four, and may be played.
    open_row = board_with("F8 G8 H6 H7 " + x, o)
    assert check(open_row, "H8") == expected(
        "H8", Shape.DOUBLE_THREE, "F8 G8 H8", "H6 H7 H8"
    )


def test_the_straight_four_point_of_a_fake_three_is_itself_a_double_three() -> None:
    # The reason in the last case above: with H8 played, I8 makes a straight four on row 8
    # and two real threes.
    stones = Stones.of(board_with("F8 G8 H6 H7 I9 I10 J7 K6", "D8"))
    stones.place(cell("H8"), Mark.X)
    assert stones.forbidden(cell("I8")) == expected(
        "I8", Shape.DOUBLE_THREE, "I8 I9 I10", "K6 J7 I8"
    )


def test_a_three_is_real_again_when_what_spoiled_it_is_spoiled_in_turn() -> None:
    # As above, but white on M4 leaves I8's three K6 J7 I8 one straight-four point, H9, and H9
    # (with H8 and I8 played) makes two fours: column H and H9-K6. So I8's three is not real,
    # I8 makes a single three and may be played, and H8's row three is real after all.
    board = board_with("F8 G8 H6 H7 I9 I10 J7 K6", "D8 M4")
    assert check(board, "H8") == expected("H8", Shape.DOUBLE_THREE, "F8 G8 H8", "H6 H7 H8")
    stones = Stones.of(board)
    stones.place(cell("H8"), Mark.X)
    assert stones.forbidden(cell("I8")) is None
    stones.place(cell("I8"), Mark.X)
    assert stones.forbidden(cell("H9")) == expected(
        "H9", Shape.DOUBLE_FOUR, "H6 H7 H8 H9", "K6 J7 I8 H9"
    )


def test_the_board_edge_blocks_a_three_like_a_white_stone() -> None:
    # | X X [X] _ _ : a four A8-D8 could only become five at E8.
    assert check(board_with("A8 B8 C6 C7"), "C8") is None
    # | _ X X [X] _ _ : B8-E8 with A8 and F8 empty is a straight four.
    assert check(board_with("B8 C8 D6 D7"), "D8") == expected(
        "D8", Shape.DOUBLE_THREE, "B8 C8 D8", "D6 D7 D8"
    )


# ----------------------------------------------------------------- double-four
@pytest.mark.parametrize(
    ("x", "o", "fours"),
    [
        # Unbroken fours along a row and a column, each closed at one end.
        ("E8 F8 G8 H5 H6 H7", "D8 H4", ("E8 F8 G8 H8", "H5 H6 H7 H8")),
        # Broken fours: D8 _ F8 G8 H8 and H4 H5 _ H7 H8.
        ("D8 F8 G8 H4 H5 H7", "", ("D8 F8 G8 H8", "H4 H5 H7 H8")),
    ],
)
def test_two_fours_on_two_lines_are_a_double_four(x: str, o: str, fours: tuple[str, ...]) -> None:
    assert check(board_with(x, o), "H8") == expected("H8", Shape.DOUBLE_FOUR, *fours)


@pytest.mark.parametrize(
    ("x", "move", "fours"),
    [
        # X _ X [X] X _ X
        ("D8 F8 H8 J8", "G8", ("D8 F8 G8 H8", "F8 G8 H8 J8")),
        # X X _ X [X] _ X X
        ("C8 D8 F8 I8 J8", "G8", ("C8 D8 F8 G8", "F8 G8 I8 J8")),
        # X X X _ [X] _ X X X
        ("B8 C8 D8 H8 I8 J8", "F8", ("B8 C8 D8 F8", "F8 H8 I8 J8")),
    ],
)
def test_two_fours_on_one_line_are_a_double_four(x: str, move: str, fours: tuple[str, ...]) -> None:
    assert check(board_with(x), move) == expected(move, Shape.DOUBLE_FOUR, *fours)


@pytest.mark.parametrize(
    ("x", "o"),
    [
        ("E8 F8 G8", ""),  # a straight four: one four with two ways to five
        ("E8 F8 G8 H6 H7", ""),  # a straight four and a three
        ("E8 F8 G8 H6 H7", "D8"),  # a four and a three
    ],
)
def test_one_four_with_at_most_one_three_is_allowed(x: str, o: str) -> None:
    assert check(board_with(x, o), "H8") is None


# ----------------------------------------------------------------- overline
@pytest.mark.parametrize(
    ("x", "move", "row"),
    [
        ("D8 E8 F8 G8 I8", "H8", "D8 E8 F8 G8 H8 I8"),
        ("E8 F8 G8 I8 J8 K8", "H8", "E8 F8 G8 H8 I8 J8 K8"),
        ("H3 H4 H5 H6 H7 H9 H10", "H8", "H3 H4 H5 H6 H7 H8 H9 H10"),
    ],
)
def test_six_or_more_in_a_row_is_an_overline(x: str, move: str, row: str) -> None:
    assert check(grid_with(x), move) == expected(move, Shape.OVERLINE, row)


# ----------------------------------------------------------------- five wins
@pytest.mark.parametrize(
    ("x", "o", "without_the_five"),
    [
        # Fours in column H and on the diagonal E5-H8, besides the five on row 8.
        (
            "E8 F8 G8 H5 H6 H7 E5 F6 G7",
            "H4 D4",
            expected("H8", Shape.DOUBLE_FOUR, "E8 F8 G8 H8", "H5 H6 H7 H8", "E5 F6 G7 H8"),
        ),
        # Six in column H besides the five on row 8.
        (
            "E8 F8 G8 H5 H6 H7 H9 H10",
            "",
            expected("H8", Shape.OVERLINE, "H5 H6 H7 H8 H9 H10"),
        ),
        # Threes in column H and on the diagonal F6-H8, besides the five on row 8.
        (
            "E8 F8 G8 H6 H7 F6 G7",
            "",
            expected("H8", Shape.DOUBLE_THREE, "H6 H7 H8", "F6 G7 H8"),
        ),
    ],
)
def test_a_five_is_never_forbidden(x: str, o: str, without_the_five: Forbidden) -> None:
    # With D8 black, H8 makes D8-H8, exactly five.
    assert check(board_with("D8 " + x, o), "H8") is None
    # Without it the same move makes a straight four on row 8 instead, and is forbidden.
    assert check(board_with(x, o), "H8") == without_the_five


# ----------------------------------------------------------------- the position changes
def test_a_forbidden_point_becomes_allowed_when_white_blocks_one_three() -> None:
    board = board_with("F8 G8 H6 H7")
    assert renju.forbidden(board, cell("H8")) == expected(
        "H8", Shape.DOUBLE_THREE, "F8 G8 H8", "H6 H7 H8"
    )
    assert board.turn is Mark.O
    board.push_name("E8")
    assert check(board, "H8") is None


def test_stones_follow_place_and_remove_and_a_check_leaves_them_as_found() -> None:
    stones = Stones.of(board_with("F8 G8 H6 H7"))
    double_three = expected("H8", Shape.DOUBLE_THREE, "F8 G8 H8", "H6 H7 H8")
    assert stones.forbidden(cell("H8")) == double_three
    assert stones.forbidden(cell("H8")) == double_three
    stones.place(cell("E8"), Mark.O)
    assert stones.forbidden(cell("H8")) is None
    assert not stones.is_forbidden(cell("H8"))
    stones.remove(cell("E8"))
    assert stones.is_forbidden(cell("H8"))
    assert stones.forbidden_points() == (double_three,)


# ----------------------------------------------------------------- white, and the API
@pytest.mark.parametrize(
    ("stones", "move"),
    [
        ("F8 G8 H6 H7", "H8"),  # double-three
        ("E8 F8 G8 H5 H6 H7", "H8"),  # two fours (straight ones)
        ("D8 E8 F8 G8 I8", "H8"),  # six in a row
    ],
)
def test_white_is_never_forbidden(stones: str, move: str) -> None:
    # The cell black may not play, white may.
    black = board_with(stones)
    assert renju.forbidden(black, cell(move)) is not None
    assert renju.forbidden(black, cell(move), Mark.O) is None
    assert not renju.is_forbidden(black, cell(move), Mark.O)
    assert renju.forbidden_points(black, Mark.O) == ()
    # The same shapes in white stones: white may make them, and they make nothing for black.
    white = board_with("", stones)
    assert renju.forbidden(white, cell(move), Mark.O) is None
    assert renju.forbidden(white, cell(move)) is None


def test_forbidden_points_lists_each_forbidden_cell_once() -> None:
    board = board_with("F8 G8 H6 H7")
    double_three = expected("H8", Shape.DOUBLE_THREE, "F8 G8 H8", "H6 H7 H8")
    assert renju.forbidden_points(board) == (double_three,)
    assert reference_forbidden_points(grid_of(board)) == (double_three,)


def test_a_grid_of_values_reads_like_the_board() -> None:
    board = board_with("F8 G8 H6 H7", "E8")
    grid = grid_of(board)
    assert renju.forbidden_points(grid) == renju.forbidden_points(board)
    assert renju.forbidden(grid_with("F8 G8 H6 H7"), cell("H8")) is not None
    # Any board shape: a 6x9 board with the same double-three near its corner.
    small = [[0] * 9 for _ in range(6)]
    for r, c in ((1, 2), (1, 3), (3, 4), (2, 4)):
        small[r][c] = 1
    assert renju.forbidden(small, (1, 4)) == Forbidden(
        (1, 4), Shape.DOUBLE_THREE, (((1, 2), (1, 3), (1, 4)), ((1, 4), (2, 4), (3, 4)))
    )


def test_questions_about_taken_cells_and_other_games_are_refused() -> None:
    board = board_with("F8 G8 H6 H7")
    with pytest.raises(ValueError, match="not empty"):
        renju.forbidden(board, cell("F8"))
    with pytest.raises(ValueError, match="off the"):
        renju.forbidden(board, (15, 0))
    with pytest.raises(ValueError, match="k=4"):
        renju.forbidden(Board(15, 15, 4), (7, 7))
    with pytest.raises(ValueError, match="same length"):
        renju.forbidden([[0] * 5, [0] * 4], (0, 0))
    with pytest.raises(ValueError, match="0, 1 or 2"):
        renju.forbidden([[0, 3, 0, 0, 0]], (0, 0))


def test_forbidden_reads_as_the_cell_the_shape_and_its_rows() -> None:
    found = renju.forbidden(board_with("F8 G8 H6 H7"), cell("H8"))
    assert str(found) == "H8: double-three (H6 H7 H8; F8 G8 H8)"


# ----------------------------------------------------------------- against the reference
def test_renju_agrees_with_the_brute_force_reference_on_random_positions() -> None:
    rng = random.Random(20240528)
    shapes: Counter[Shape] = Counter()
    cells = fake = 0
    for _ in range(36):
        grid = random_position(rng, 15, 20, 120)
        found = renju.forbidden_points(grid)
        assert found == reference_forbidden_points(grid), grid
        shapes.update(f.shape for f in found)
        forbidden_cells = {f.cell for f in found}
        for r in range(15):
            for c in range(15):
                if grid[r][c] or (r, c) in forbidden_cells:
                    continue
                cells += 1
                if len(reference_threes(grid, (r, c), check_points=False)) >= 2:
                    fake += len(reference_threes(grid, (r, c))) < 2
    # The sample must reach every shape, and threes that are not real, to mean anything.
    assert cells > 5000
    assert min(shapes[s] for s in Shape) >= 10, shapes
    assert fake >= 3, fake


# A game of 15x15 renju between two engines (a self-play match of 2026-11-30), every cell taken
# but one after white's last move: an overline for black, who is to move.
SHUT_OUT = (
    "G8 H8 I6 H7 G7 G6 I8 I7 H9 G10 H6 G9 J6 F10 E11 K6 J7 I10 H10 I5 G11 F12 J8 J9 K7 I9 "
    "K8 H5 L8 M8 F11 H11 K9 G12 F13 M10 L7 N7 M9 N10 L6 L9 M5 N4 K10 K11 J10 M7 E12 D11 E13 "
    "E10 D13 D10 C10 C13 C14 B15 E14 E15 D14 B14 D12 F14 C12 B11 B12 A12 K5 L5 I12 F7 H13 "
    "G13 I11 H12 J11 G14 E8 I4 J3 F5 G5 N9 N11 N6 N8 D15 C15 L11 K12 F4 F6 H4 G4 G3 F2 H3 "
    "E5 G2 J5 K4 L4 M6 O8 D8 E4 E3 F3 D7 D9 E7 L13 D4 B7 C5 D6 B6 A7 N3 N5 C7 E9 H2 H1 C6 "
    "C8 C3 C4 C9 J12 K14 K13 L14 M13 J13 M12 L12 M14 N15 M4 K2 J2 I1 B10 M3 A6 A9 A4 A5 M11 "
    "M15 O13 N13 N12 L2 D2 K3 M1 D3 J1 A11 A10 L15 J15 O3 L3 B3 A3 A13 O4 B2 I13 I14 F15 M2 "
    "H14 D1 O6 O7 B1 L1 O15 C1 O9 E1 O11 O14 O10 G15 A1 N1 O1 A2 C2 E2 D5 E6 A8 B8 F8 B9 F9 "
    "C11 B13 J14 N14 H15 I15 K15 F1 G1 I3 N2 O2 A15 A14 I2 B5 B4 O5 J4 K1 L10"
)


def test_a_game_is_drawn_when_black_to_move_may_play_no_empty_cell() -> None:
    board = Board(15, 15, 5, Rule.RENJU)
    *before, last = SHUT_OUT.split()
    for name in before:
        board.push_name(name)
    assert not board.is_over() and len(board.legal_moves) == 2
    board.push_name(last)
    (cell,) = [(r, c) for r in range(15) for c in range(15) if board[(r, c)] is None]
    stones = board.renju_stones
    assert stones is not None
    forbidden = stones.forbidden(cell)
    assert forbidden is not None and forbidden.shape is Shape.OVERLINE
    # Drawn as a full board is, not a game where black must move and cannot.
    assert board.outcome() == Outcome(winner=None, line=())
    assert len(board.legal_moves) == 0
    board.pop()
    assert not board.is_over()
