"""The pan window over a big board: where it starts, how it pans, follows and travels in ids."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.ui.window import Window, WindowError, follow, followed_window, initial_window
from engine import Board


def played(rows: int, cols: int, *names: str) -> Board:
    board = Board(rows, cols, 5)
    for name in names:
        board.push_name(name)
    return board


# ---------------------------------------------------------------------------- the window itself
def test_default_shape_leaves_an_action_row_for_the_controls() -> None:
    window = Window(2, 3)
    assert (window.rows, window.cols) == (4, 5)
    assert (window.bottom, window.right) == (6, 8)
    assert window.cells()[:6] == [(2, 3), (2, 4), (2, 5), (2, 6), (2, 7), (3, 3)]
    assert len(window.cells()) == 20
    assert window.grid()[1] == [(3, 3), (3, 4), (3, 5), (3, 6), (3, 7)]
    assert (5, 7) in window and (6, 7) not in window and (2, 2) not in window
    assert "C3" not in window


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((0, 0, 6, 5), "1x1 to 5x5"),
        ((0, 0, 4, 0), "1x1 to 5x5"),
        ((-1, 0), "off every board"),
        ((0, 26), "off every board"),
        ((True, 0), "whole number"),
        ((1.5, 0), "whole number"),
    ],
)
def test_impossible_windows_are_refused_with_a_reason(args: tuple[int, ...], words: str) -> None:
    with pytest.raises(WindowError, match=words):
        Window(*args)


# ---------------------------------------------------------------------------- initial_window
def test_empty_board_starts_at_the_centre() -> None:
    assert initial_window(Board(15, 15, 5)) == Window(5, 5, 4, 5)
    assert initial_window(Board(19, 19, 5)) == Window(7, 7, 4, 5)
    assert initial_window(Board(15, 15, 5), rows=5, cols=5) == Window(5, 5, 5, 5)


def test_window_is_centred_on_the_last_move() -> None:
    board = played(15, 15, "H8")  # (7, 7)
    window = initial_window(board)
    assert window == Window(5, 5, 4, 5)
    assert (7, 7) in window



def test_the_followed_window_is_the_first_one_moved_along_every_move() -> None:
    """What a board shown from the start shows, whichever process draws it first and when: not
    the window centred on the last move, which a board first drawn late would show."""
    board = played(15, 15, "H8", "A1", "H9")
    # From the centre (5, 5): H8 is in it; A1 takes it to the corner; H9 to its lower right.
    assert followed_window(board) == Window(5, 3, 4, 5)
    assert followed_window(board) != initial_window(board)
    assert followed_window(Board(15, 15, 5)) == initial_window(Board(15, 15, 5))

def test_even_side_leans_towards_the_stones() -> None:
    # Last move K10 = (9, 10); the other stones are above-left of it, so the spare row of the
    # 4-row window goes above the move rather than below.
    above = played(19, 19, "C3", "D4", "K10")
    assert initial_window(above) == Window(7, 8, 4, 5)
    below = played(19, 19, "R17", "Q16", "K10")
    assert initial_window(below) == Window(8, 8, 4, 5)


def test_window_near_an_edge_is_pushed_back_onto_the_board() -> None:
    assert initial_window(played(15, 15, "A1")) == Window(0, 0, 4, 5)
    assert initial_window(played(26, 26, "Z26")) == Window(22, 21, 4, 5)
    assert initial_window(played(26, 26, "A26")) == Window(22, 0, 4, 5)


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (3, 3), (4, 4), (2, 5), (4, 5)])
def test_small_board_window_covers_all_of_it(rows: int, cols: int) -> None:
    board = Board(rows, cols, 1)
    window = initial_window(board)
    assert window == Window(0, 0, rows, cols)
    assert window.cells() == [(r, c) for r in range(rows) for c in range(cols)]
    assert not any(window.can_pan(d, rows, cols) for d in ("up", "down", "left", "right"))


def test_board_narrower_than_the_window_keeps_the_full_width() -> None:
    window = initial_window(played(20, 3, "B10"))
    assert window == Window(7, 0, 4, 3)


def test_board_as_small_as_the_window_is_covered_exactly() -> None:
    window = initial_window(played(4, 5, "C2"))
    assert window == Window(0, 0, 4, 5)
    assert len(window.cells()) == 20


# ---------------------------------------------------------------------------- pan
def test_pan_steps_keep_one_line_of_overlap() -> None:
    window = Window(8, 8)
    assert window.pan("up", 19, 19) == Window(5, 8)  # 4 rows: step 3
    assert window.pan("down", 19, 19) == Window(11, 8)
    assert window.pan("left", 19, 19) == Window(8, 4)  # 5 cols: step 4
    assert window.pan("right", 19, 19) == Window(8, 12)
    assert window.pan("right", 19, 19, step=1) == Window(8, 9)


@pytest.mark.parametrize(
    ("start", "direction", "expected"),
    [
        (Window(1, 7), "up", Window(0, 7)),
        (Window(0, 7), "up", Window(0, 7)),
        (Window(13, 7), "down", Window(15, 7)),
        (Window(15, 7), "down", Window(15, 7)),
        (Window(7, 2), "left", Window(7, 0)),
        (Window(7, 0), "left", Window(7, 0)),
        (Window(7, 12), "right", Window(7, 14)),
        (Window(7, 14), "right", Window(7, 14)),
        # corners: each direction away from the corner moves, each towards it stays
        (Window(0, 0), "up", Window(0, 0)),
        (Window(0, 0), "left", Window(0, 0)),
        (Window(0, 0), "down", Window(3, 0)),
        (Window(0, 0), "right", Window(0, 4)),
        (Window(15, 14), "down", Window(15, 14)),
        (Window(15, 14), "right", Window(15, 14)),
        (Window(15, 14), "up", Window(12, 14)),
        (Window(15, 14), "left", Window(15, 10)),
        (Window(0, 14), "up", Window(0, 14)),
        (Window(0, 14), "right", Window(0, 14)),
        (Window(15, 0), "down", Window(15, 0)),
        (Window(15, 0), "left", Window(15, 0)),
    ],
)
def test_pan_is_clamped_at_every_edge_and_corner(
    start: Window, direction: str, expected: Window
) -> None:
    assert start.pan(direction, 19, 19) == expected
    assert start.can_pan(direction, 19, 19) == (expected != start)


def test_pan_with_a_huge_step_stops_at_the_edge() -> None:
    assert Window(10, 10).pan("down", 26, 26, step=100) == Window(22, 10)
    assert Window(10, 10).pan("left", 26, 26, step=100) == Window(10, 0)


def test_bad_pan_requests_are_refused() -> None:
    with pytest.raises(WindowError, match="up, down, left, right"):
        Window(0, 0).pan("north", 15, 15)
    with pytest.raises(WindowError, match="step"):
        Window(0, 0).pan("down", 15, 15, step=0)
    with pytest.raises(WindowError, match="1x1 to 26x26"):
        Window(0, 0).pan("down", 27, 15)


def test_pan_on_rectangular_boards() -> None:
    wide = Window(0, 0)
    assert wide.pan("down", 4, 20) == Window(0, 0)  # only 4 rows: nowhere to go
    assert wide.pan("right", 4, 20) == Window(0, 4)
    assert Window(0, 12).pan("right", 4, 20) == Window(0, 15)
    tall = Window(0, 0, 4, 5).clamp(20, 3)
    assert tall == Window(0, 0, 4, 3)
    assert tall.pan("down", 20, 3) == Window(3, 0, 4, 3)
    assert tall.pan("right", 20, 3) == tall
    assert Window(14, 0, 4, 3).pan("down", 20, 3) == Window(16, 0, 4, 3)


# ---------------------------------------------------------------------------- follow
def test_follow_keeps_a_window_that_already_shows_the_move() -> None:
    window = Window(5, 5)
    for corner in ((5, 5), (5, 9), (8, 5), (8, 9)):
        assert follow(window, corner, Board(15, 15, 5)) == window


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ((4, 6), Window(4, 5)),  # one row above: shift by one
        ((12, 6), Window(9, 5)),  # below: the move lands on the bottom row
        ((6, 0), Window(5, 0)),  # left
        ((6, 14), Window(5, 10)),  # right edge of the board
        ((0, 0), Window(0, 0)),  # diagonal, to the corner
        ((14, 14), Window(11, 10)),
    ],
)
def test_follow_moves_as_little_as_possible(cell: tuple[int, int], expected: Window) -> None:
    moved = follow(Window(5, 5), cell, Board(15, 15, 5))
    assert moved == expected
    assert cell in moved


def test_follow_refuses_a_cell_off_the_board() -> None:
    with pytest.raises(WindowError, match="not on a 15x15 board"):
        follow(Window(5, 5), (15, 3), Board(15, 15, 5))


@given(
    board_rows=st.integers(1, 26),
    board_cols=st.integers(1, 26),
    top=st.integers(0, 25),
    left=st.integers(0, 25),
    shape=st.tuples(st.integers(1, 5), st.integers(1, 5)),
    data=st.data(),
)
def test_follow_and_pan_always_stay_on_the_board(
    board_rows: int,
    board_cols: int,
    top: int,
    left: int,
    shape: tuple[int, int],
    data: st.DataObject,
) -> None:
    window = Window(top, left, *shape).clamp(board_rows, board_cols)
    assert window.fits(board_rows, board_cols)
    cell = (data.draw(st.integers(0, board_rows - 1)), data.draw(st.integers(0, board_cols - 1)))
    followed = follow(window, cell, Board(board_rows, board_cols, 1))
    assert cell in followed and followed.fits(board_rows, board_cols)
    # minimal: each coordinate moves by exactly how far the cell was outside the window
    assert abs(followed.top - window.top) == max(
        0, window.top - cell[0], cell[0] - window.bottom + 1
    )
    assert abs(followed.left - window.left) == max(
        0, window.left - cell[1], cell[1] - window.right + 1
    )
    for direction in ("up", "down", "left", "right"):
        panned = window.pan(direction, board_rows, board_cols)
        assert panned.fits(board_rows, board_cols)
        assert (panned.rows, panned.cols) == (window.rows, window.cols)


# ---------------------------------------------------------------------------- custom_id text
def test_encode_is_short_and_round_trips_everywhere_on_26x26() -> None:
    assert Window(3, 7).encode() == "w3.7"
    assert Window(3, 7, 5, 5).encode() == "w3.7.5x5"
    for top in range(26 - 4 + 1):
        for left in range(26 - 5 + 1):
            window = Window(top, left)
            text = window.encode()
            assert len(text) <= 6
            assert Window.decode(text, 26, 26) == window
    for rows in range(1, 6):
        for cols in range(1, 6):
            window = Window(21, 21, rows, cols)
            assert Window.decode(window.encode()) == window


@pytest.mark.parametrize(
    "text",
    [
        "",
        "w",
        "w3",
        "w3.",
        "w.7",
        "w03.7",
        "w3.07",
        "w-1.7",
        "w3.7.6x5",
        "w3.7.0x5",
        "w3.7.5",
        "w3.7.5x",
        "x3.7",
        "W3.7",
        " w3.7",
        "w3.7 ",
        "w3,7",
        "w26.0",
        "w99.99",
        "w123.4",
        "caro:m:1:0:A1",
    ],
)
def test_garbage_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="window|off every board"):
        Window.decode(text)


def test_decode_of_a_non_string_is_refused() -> None:
    with pytest.raises(WindowError, match="not a window"):
        Window.decode(37)  # type: ignore[arg-type]


def test_decode_checks_the_window_against_the_board() -> None:
    assert Window.decode("w11.10", 15, 15) == Window(11, 10)
    with pytest.raises(WindowError, match="past the edge of a 15x15 board"):
        Window.decode("w12.10", 15, 15)
    with pytest.raises(WindowError, match="past the edge of a 15x15 board"):
        Window.decode("w11.11", 15, 15)
    with pytest.raises(WindowError, match="both"):
        Window.decode("w1.1", 15)


def test_initial_window_refuses_a_shape_that_does_not_fit_a_message() -> None:
    with pytest.raises(WindowError, match="1x1 to 5x5 cells, not 6x5"):
        initial_window(Board(15, 15, 5), rows=6)
