"""Board mechanics: construction, push/pop, state restoration, text form, copies and errors."""

from __future__ import annotations

import pickle

import pytest

from engine import Board, IllegalMoveError, InvalidMoveError, Mark, MoveError, Outcome, Rule


def snapshot(board: Board) -> tuple[object, ...]:
    """Everything observable about a board, to compare before and after push/pop."""
    return (
        tuple(board.grid),
        board.moves,
        board.turn,
        board.outcome(),
        board.zobrist,
        board.text(),
        board.ply,
        board.last_move,
        tuple(board.legal_moves),
        str(board),
    )


# ----------------------------------------------------------------- construction
def test_new_board_is_empty_and_x_to_move() -> None:
    board = Board(15, 15, 5, Rule.CARO)
    assert (board.rows, board.cols, board.k, board.rule) == (15, 15, 5, Rule.CARO)
    assert board.turn is Mark.X
    assert board.ply == 0 and board.moves == () and board.last_move is None
    assert board.outcome() is None and not board.is_over()
    assert len(board.legal_moves) == 225
    assert set(board.grid) == {0}
    assert board.zobrist == 0
    assert board.spec == "15x15 k5 caro"
    assert board.text() == "15x15 k5 caro"


def test_default_board_is_tic_tac_toe() -> None:
    board = Board()
    assert board.spec == "3x3 k3 freestyle"


def test_rule_may_be_given_by_name() -> None:
    assert Board(5, 5, 4, "exact").rule is Rule.EXACT  # type: ignore[arg-type]
    assert Rule.parse("  CaRo ") is Rule.CARO


@pytest.mark.parametrize(
    ("rows", "cols", "k"),
    [
        (0, 3, 3),
        (3, 0, 3),
        (27, 3, 3),
        (3, 27, 3),
        (-1, 3, 1),
        (3, 3, 0),
        (3, 3, 4),
        (3, 7, 8),
        (3, 3, -1),
        (2.5, 3, 2),
        ("3", 3, 3),
        (True, 3, 1),
        (3, 3, True),
        (3, 3, 2.0),
        (3, 3, None),
    ],
)
def test_bad_sizes_and_k_are_refused_with_a_message(rows: object, cols: object, k: object) -> None:
    with pytest.raises(ValueError) as info:
        Board(rows, cols, k)  # type: ignore[arg-type]
    assert str(info.value).strip()


def test_size_and_k_limits_are_inclusive() -> None:
    Board(1, 1, 1)
    Board(26, 26, 26)
    Board(1, 26, 26)
    Board(3, 7, 7)  # k may exceed the short side as long as the long side fits it


@pytest.mark.parametrize("name", ["renjuu", "", "free style", "5", "caro!"])
def test_bad_rule_names_are_refused_with_the_choices(name: str) -> None:
    with pytest.raises(ValueError) as info:
        Rule.parse(name)
    assert "freestyle" in str(info.value) and "caro" in str(info.value)
    with pytest.raises(ValueError):
        Board(3, 3, 3, name)  # type: ignore[arg-type]


def test_rule_parse_of_a_non_string_is_a_value_error() -> None:
    with pytest.raises(ValueError) as info:
        Rule.parse(None)  # type: ignore[arg-type]
    assert "choose one of" in str(info.value)


# ----------------------------------------------------------------- push and pop
def test_push_alternates_marks_and_records_moves() -> None:
    board = Board(3, 3, 3)
    board.push((1, 1))
    assert board[1, 1] is Mark.X and board.turn is Mark.O
    board.push((0, 0))
    assert board[0, 0] is Mark.O and board.turn is Mark.X
    assert board.moves == ((1, 1), (0, 0))
    assert board.last_move == (0, 0)
    assert board.ply == 2
    assert board[2, 2] is None
    assert board.grid[1 * 3 + 1] == 1 and board.grid[0] == 2
    assert board.text() == "3x3 k3 freestyle B2 A1"


def test_pop_restores_every_observable_piece_of_state() -> None:
    board = Board(6, 7, 4, Rule.CARO)
    history = [snapshot(board)]
    for cell in [(2, 3), (3, 3), (2, 4), (0, 0), (5, 6), (2, 2)]:
        board.push(cell)
        history.append(snapshot(board))
    for expected_before in reversed(history[:-1]):
        last = board.last_move
        assert board.pop() == last
        assert snapshot(board) == expected_before
    assert board.ply == 0 and board.zobrist == 0


def test_pop_after_a_win_reopens_the_game() -> None:
    board = Board(3, 3, 3)
    for name in ["A1", "A2", "B1", "B2"]:
        board.push_name(name)
    before = snapshot(board)
    board.push_name("C1")
    assert board.outcome() == Outcome(Mark.X, ((0, 0), (0, 1), (0, 2)))
    assert len(board.legal_moves) == 0 and list(board.legal_moves) == []
    assert board.pop() == (0, 2)
    assert snapshot(board) == before
    board.push_name("C3")  # the game goes on from there
    assert board.outcome() is None


def test_zobrist_depends_on_stones_not_order() -> None:
    a = Board(5, 5, 4)
    b = Board(5, 5, 4)
    for cell in [(0, 0), (1, 1), (2, 2), (3, 3)]:
        a.push(cell)
    for cell in [(2, 2), (3, 3), (0, 0), (1, 1)]:
        b.push(cell)
    assert a.zobrist == b.zobrist
    assert a.moves != b.moves
    c = Board(5, 5, 4)
    for cell in [(1, 1), (0, 0), (3, 3), (2, 2)]:  # same cells, colours swapped
        c.push(cell)
    assert c.zobrist != a.zobrist


def test_pop_on_empty_board_raises_index_error() -> None:
    board = Board()
    with pytest.raises(IndexError) as info:
        board.pop()
    assert str(info.value)


def test_occupied_cell_is_illegal_and_changes_nothing() -> None:
    board = Board()
    board.push((1, 1))
    before = snapshot(board)
    with pytest.raises(IllegalMoveError) as info:
        board.push((1, 1))
    assert "B2" in str(info.value) and "taken" in str(info.value)
    assert isinstance(info.value, MoveError) and isinstance(info.value, ValueError)
    assert snapshot(board) == before


@pytest.mark.parametrize(
    "cell",
    [(3, 0), (0, 3), (-1, 0), (0, -1), (99, 99), (1,), (1, 2, 3), None, "B2", (1.0, 1), ("1", 1)],
)
def test_off_board_or_malformed_cells_are_illegal_with_a_message(cell: object) -> None:
    board = Board()
    with pytest.raises(IllegalMoveError) as info:
        board.push(cell)  # type: ignore[arg-type]
    assert str(info.value).strip()
    assert board.ply == 0


def test_push_after_game_over_is_illegal() -> None:
    board = Board.from_text("3x3 k3 freestyle A1 A2 B1 B2 C1")
    assert board.is_over()
    with pytest.raises(IllegalMoveError) as info:
        board.push((2, 2))
    assert "over" in str(info.value)
    with pytest.raises(IllegalMoveError):
        board.push_name("C3")


def test_push_name_refuses_bad_text_and_occupied_cells() -> None:
    board = Board()
    board.push_name("B2")
    with pytest.raises(IllegalMoveError):
        board.push_name("b2")
    with pytest.raises(InvalidMoveError):
        board.push_name("B4")


def test_getitem_off_board_is_index_error() -> None:
    board = Board()
    with pytest.raises(IndexError) as info:
        board[3, 0]
    assert "off" in str(info.value)
    with pytest.raises(IndexError):
        board[-1, 0]


# ----------------------------------------------------------------- legal moves
def test_legal_moves_view_is_row_major_and_live() -> None:
    board = Board(2, 3, 3)
    view = board.legal_moves
    assert list(view) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    board.push((0, 1))
    assert list(board.legal_moves) == [(0, 0), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert len(board.legal_moves) == 5 and bool(board.legal_moves)
    assert (0, 0) in board.legal_moves
    assert (0, 1) not in board.legal_moves
    assert (5, 5) not in board.legal_moves
    assert "A1" not in board.legal_moves
    assert (0, 0.0) not in board.legal_moves
    assert "A1" in repr(board.legal_moves)


def test_full_board_draw_has_no_legal_moves() -> None:
    # X O X / X O O / O X X: nobody has three in a row.
    board = Board.from_text("3x3 k3 freestyle A1 B1 C1 B2 A2 C2 B3 A3 C3")
    assert board.outcome() == Outcome(None, ())
    assert board.outcome() is not None and board.outcome().is_draw  # type: ignore[union-attr]
    assert len(board.legal_moves) == 0 and not board.legal_moves
    with pytest.raises(IllegalMoveError):
        board.push((0, 0))


def test_winning_on_the_last_cell_is_a_win_not_a_draw() -> None:
    # X O X / O X O / O X X: the ninth stone, C3, both fills the board and completes a diagonal.
    board = Board.from_text("3x3 k3 freestyle A1 B1 C1 A2 B2 C2 B3 A3")
    assert board.outcome() is None
    board.push_name("C3")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.X
    assert outcome.line == ((0, 0), (1, 1), (2, 2))


# ----------------------------------------------------------------- text form, copies, pickling
def test_text_round_trips() -> None:
    text = "15x15 k5 caro H8 I9 G7 J10"
    board = Board.from_text(text)
    assert board.text() == text
    assert Board.from_text(board.text()) == board
    assert repr(board) == f"Board({text!r})"
    assert Board.from_text("  7X9   K4   ExAcT  a1 ").text() == "7x9 k4 exact A1"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3x3",
        "3x3 k3",
        "3y3 k3 freestyle",
        "3x3x3 k3 freestyle",
        "axb k3 freestyle",
        "3x3 3 freestyle",
        "3x3 k freestyle",
        "3x3 kk freestyle",
        "3x3 k\u00b2 freestyle",
        "1_5x15 k5 freestyle",
        "3x3 k-3 freestyle",
        "3x3 k3 renju",
        "0x3 k1 freestyle",
        "3x3 k4 freestyle",
        "3x3 k3 freestyle Z9",
        "3x3 k3 freestyle A1 A1",
        "3x3 k3 freestyle A1 A2 B1 B2 C1 C2",
    ],
)
def test_from_text_garbage_is_a_value_error_with_a_message(text: str) -> None:
    with pytest.raises(ValueError) as info:
        Board.from_text(text)
    assert str(info.value).strip()


def test_from_text_of_a_non_string_is_a_value_error() -> None:
    with pytest.raises(ValueError) as info:
        Board.from_text(None)  # type: ignore[arg-type]
    assert str(info.value).strip()


def test_copy_is_independent() -> None:
    board = Board.from_text("5x5 k4 exact C3 B2")
    twin = board.copy()
    assert twin == board and snapshot(twin) == snapshot(board)
    twin.push((0, 0))
    assert board.ply == 2 and twin.ply == 3
    assert board.zobrist != twin.zobrist
    assert twin != board
    board.pop()
    assert twin.moves[:2] == ((2, 2), (1, 1))


def test_equality_needs_same_spec_and_move_order() -> None:
    assert Board.from_text("3x3 k3 freestyle A1") == Board.from_text("3x3 k3 freestyle A1")
    assert Board.from_text("3x3 k3 freestyle A1") != Board.from_text("3x3 k3 exact A1")
    assert Board.from_text("3x3 k3 freestyle A1 B1 C1") != Board.from_text(
        "3x3 k3 freestyle C1 B1 A1"
    )
    assert Board() != "3x3 k3 freestyle"


def test_boards_are_unhashable_because_they_change() -> None:
    with pytest.raises(TypeError):
        hash(Board())


def test_pickle_round_trip_keeps_state() -> None:
    board = Board.from_text("9x7 k4 caro D5 E5 D4")
    clone = pickle.loads(pickle.dumps(board))
    assert clone == board and snapshot(clone) == snapshot(board)
    over = Board.from_text("3x3 k3 freestyle A1 A2 B1 B2 C1")
    assert pickle.loads(pickle.dumps(over)).outcome() == over.outcome()


def test_str_draws_coordinates_and_stones() -> None:
    board = Board.from_text("3x3 k3 freestyle B2 A1")
    assert str(board) == "  A B C\n1 O . .\n2 . X .\n3 . . ."
    wide = Board(10, 2, 2)
    lines = str(wide).splitlines()
    assert lines[0] == "   A B"
    assert lines[-1] == "10 . ."
