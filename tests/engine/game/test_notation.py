"""Cell names ("H8") in both directions, and every way a move text can be wrong."""

from __future__ import annotations

import pytest

from engine import Board, InvalidMoveError, MoveError
from engine.game.notation import MAX_SIDE, cell_name, column_letter, parse_cell


def test_every_cell_of_the_largest_board_round_trips() -> None:
    board = Board(MAX_SIDE, MAX_SIDE, 5)
    names = set()
    for row in range(MAX_SIDE):
        for col in range(MAX_SIDE):
            name = board.move_name((row, col))
            names.add(name)
            assert board.parse_move(name) == (row, col)
            assert board.parse_move(name.lower()) == (row, col)
            assert board.parse_move(f"  {name}\t") == (row, col)
    assert len(names) == MAX_SIDE * MAX_SIDE


def test_names_follow_spreadsheet_convention() -> None:
    assert cell_name((0, 0)) == "A1"
    assert cell_name((7, 7)) == "H8"
    assert cell_name((25, 25)) == "Z26"
    assert cell_name((14, 0)) == "A15"
    assert column_letter(2) == "C"
    board = Board(15, 15, 5)
    assert board.parse_move("h8") == (7, 7)
    # Column letter first, then the row counted from the top.
    assert board.parse_move("B1") == (0, 1)
    assert board.parse_move("A2") == (1, 0)


def test_space_between_letter_and_number_is_accepted() -> None:
    board = Board(15, 15, 5)
    assert board.parse_move(" H 8 ") == (7, 7)
    assert board.parse_move("o15") == (14, 14)


def test_rectangular_board_names_use_columns_for_letters() -> None:
    board = Board(3, 7, 3)  # 3 rows, 7 columns: A..G, 1..3
    assert board.parse_move("G3") == (2, 6)
    assert board.move_name((2, 6)) == "G3"
    with pytest.raises(InvalidMoveError, match="off the board"):
        board.parse_move("A4")
    tall = Board(7, 3, 3)
    assert tall.parse_move("C7") == (6, 2)
    with pytest.raises(InvalidMoveError, match="off the board"):
        tall.parse_move("D1")


@pytest.mark.parametrize(
    "text",
    [
        "Z99",
        "",
        "   ",
        "8H",
        "A0",
        "AA1",
        "A",
        "1",
        "H8H",
        "H-8",
        "H8.",
        "#1",
        "A123",
        "ä1",
        "H 8 9",
    ],
)
def test_garbage_move_texts_are_invalid_with_a_message(text: str) -> None:
    board = Board(15, 15, 5)
    with pytest.raises(InvalidMoveError) as info:
        board.parse_move(text)
    assert isinstance(info.value, MoveError) and isinstance(info.value, ValueError)
    assert str(info.value).strip()


def test_off_board_message_names_the_board_range() -> None:
    board = Board(3, 3, 3)
    with pytest.raises(InvalidMoveError) as info:
        board.parse_move("D1")
    assert "A1 to C3" in str(info.value)
    with pytest.raises(InvalidMoveError) as info:
        board.parse_move("a0")
    assert "A0" in str(info.value)


@pytest.mark.parametrize("value", [None, 7, (0, 0), b"A1"])
def test_non_text_moves_are_invalid_with_a_message(value: object) -> None:
    board = Board(3, 3, 3)
    with pytest.raises(InvalidMoveError) as info:
        board.parse_move(value)  # type: ignore[arg-type]
    assert str(info.value).strip()


def test_push_name_plays_and_returns_the_cell() -> None:
    board = Board(3, 3, 3)
    assert board.push_name("b2") == (1, 1)
    assert board.moves == ((1, 1),)
    with pytest.raises(InvalidMoveError):
        board.push_name("Z9")
    assert board.ply == 1  # a bad text changes nothing


def test_move_name_of_an_off_board_cell_is_invalid() -> None:
    board = Board(3, 3, 3)
    for cell in [(3, 0), (0, 3), (-1, 0), (0, -1)]:
        with pytest.raises(InvalidMoveError) as info:
            board.move_name(cell)
        assert str(info.value)
    with pytest.raises(InvalidMoveError):
        cell_name((0, MAX_SIDE))


def test_parse_cell_checks_against_the_given_size() -> None:
    assert parse_cell("e5", 5, 5) == (4, 4)
    with pytest.raises(InvalidMoveError):
        parse_cell("e6", 5, 5)
