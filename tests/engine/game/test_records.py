"""Game records: caro's own form and piskvork's .psq, written and read back move for move."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import Board, Mark, Rule
from engine.game.openings import Action, Choice, Opening, OpeningState, Side
from engine.game.records import (
    Ending,
    GameRecord,
    IllegalRecordError,
    MalformedRecordError,
    RecordError,
    UnknownFormatError,
    load_record,
    read_record,
    save_record,
)


def random_game(rows: int, cols: int, k: int, rule: Rule, seed: int) -> Board:
    """A game of random moves played to its end (a line or a full board)."""
    rng = random.Random(seed)
    board = Board(rows, cols, k, rule)
    while not board.is_over():
        board.push(rng.choice(list(board.legal_moves)))
    return board


SPECS = [
    (3, 3, 3, Rule.FREESTYLE),
    (15, 15, 5, Rule.CARO),
    (9, 7, 4, Rule.EXACT),
    (20, 20, 5, Rule.FREESTYLE),
    (26, 26, 5, Rule.CARO),
]


@pytest.mark.parametrize(("rows", "cols", "k", "rule"), SPECS)
@pytest.mark.parametrize("seed", range(3))
def test_caro_text_round_trips_every_move_names_and_result(
    rows: int, cols: int, k: int, rule: Rule, seed: int
) -> None:
    board = random_game(rows, cols, k, rule, seed)
    record = GameRecord.from_board(
        board, x_name="Alice", o_name="caro AI (hard)", tags={"Id": "42"}
    )
    back = read_record(record.to_text())
    assert back == record
    assert back.moves == board.moves
    assert back.board() == board
    assert back.winner is (board.outcome().winner if board.outcome() else None)  # type: ignore[union-attr]
    assert back.tags == {"Id": "42"}


@pytest.mark.parametrize(("rows", "cols", "k", "rule"), SPECS)
def test_psq_round_trips_every_move_given_k_and_rule(
    rows: int, cols: int, k: int, rule: Rule
) -> None:
    board = random_game(rows, cols, k, rule, seed=7)
    record = GameRecord.from_board(board, x_name="Alice", o_name="Bob")
    back = read_record(record.to_psq(), k=k, rule=rule)
    assert back.moves == board.moves
    assert (back.rows, back.cols, back.k, back.rule) == (rows, cols, k, rule)
    assert (back.x_name, back.o_name) == ("Alice", "Bob")
    assert back.winner is record.winner and back.ending is record.ending


def test_psq_is_written_as_piskvork_writes_it_column_first_from_one() -> None:
    board = Board(9, 7, 4)  # 9 rows, 7 columns: piskvork writes width x height
    for name in ("A1", "G9", "B1"):
        board.push_name(name)
    lines = GameRecord.from_board(board, x_name="a", o_name="b").to_psq().splitlines()
    assert lines == ["Piskvorky 7x9, 0:0, 0", "1,1,0", "7,9,0", "2,1,0", "a", "b", "-1"]


def test_a_gomocup_psq_file_with_times_and_brain_paths_reads_as_freestyle_five() -> None:
    text = (
        "Piskvorky 20x20, 11:11, 0\r\n"
        "10,10,1203\r\n11,11,987\r\n10,11,15\r\n11,12,0\r\n10,12,3\r\n11,13,0\r\n10,13,2\r\n"
        "11,14,3\r\n10,14,1\r\n"
        "C:\\gomocup\\pbrain-one.exe\r\nC:\\gomocup\\pbrain-two.exe\r\n-1\r\n"
    )
    record = read_record(text)
    assert (record.rows, record.cols, record.k, record.rule) == (20, 20, 5, Rule.FREESTYLE)
    assert len(record.moves) == 9 and record.moves[0] == (9, 9)
    assert record.winner is Mark.X and record.ending is Ending.LINE
    assert record.x_name == "C:\\gomocup\\pbrain-one.exe"


def test_a_psq_saved_with_the_second_player_first_swaps_the_names() -> None:
    record = read_record("Piskvorky 15x15, 0:0, 1\n8,8,0\nsecond\nfirst\n-1\n")
    assert (record.x_name, record.o_name) == ("first", "second")


def test_a_board_text_line_is_read_as_a_record() -> None:
    record = read_record("3x3 k3 freestyle B2 A1 C3\n")
    assert record.moves == ((1, 1), (0, 0), (2, 2)) and record.ending is Ending.UNFINISHED


def test_a_resigned_game_keeps_its_winner_and_ending() -> None:
    board = Board.from_text("15x15 k5 caro H8 I9 H9")
    record = GameRecord.from_board(board, winner=Mark.X, ending=Ending.RESIGN)
    back = read_record(record.to_text())
    assert back.winner is Mark.X and back.ending is Ending.RESIGN


def test_names_with_line_breaks_stay_on_one_line() -> None:
    board = Board.from_text("3x3 k3 freestyle B2")
    record = GameRecord.from_board(board, x_name="evil\nMoves: A1", o_name="ok")
    assert record.x_name == "evil Moves: A1"
    assert read_record(record.to_text()).moves == ((1, 1),)


def test_save_and_load_pick_the_form_from_the_suffix(tmp_path: Path) -> None:
    board = random_game(15, 15, 5, Rule.FREESTYLE, seed=1)
    record = GameRecord.from_board(board, x_name="a", o_name="b")
    psq = save_record(record, tmp_path / "game.psq")
    own = save_record(record, tmp_path / "game.caro")
    assert psq.read_text().startswith("Piskvorky 15x15")
    assert own.read_text().startswith("caro game record 1")
    assert load_record(psq).moves == load_record(own).moves == board.moves


# ---------------------------------------------------------------------------- bad files
@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("", UnknownFormatError, "not a game record"),
        ("hello world\n", UnknownFormatError, "not a game record"),
        ("x" * 70_000, UnknownFormatError, "too long"),
        ("Piskvorky 15x15\n8,8,0\n", MalformedRecordError, "line 1"),
        ("Piskvorky 40x40, 0:0, 0\n", IllegalRecordError, "up to 26x26"),
        (
            "Piskvorky 15x15, 0:0, 0\n8,8,0\n8,8,0\n",
            IllegalRecordError,
            "line 3: H8 is already taken",
        ),
        ("Piskvorky 15x15, 0:0, 0\n8,16,0\n", IllegalRecordError, "line 2: 8,16 is off"),
        ("caro game record 1\nBoard: 15x15 k5 caro\n", MalformedRecordError, "no Moves"),
        ("caro game record 1\nBoard: 15x15\nMoves: H8\n", MalformedRecordError, "15x15 k5 caro"),
        (
            "caro game record 1\nBoard: 15x15 k5 go\nMoves: H8\n",
            MalformedRecordError,
            "unknown rule",
        ),
        (
            "caro game record 1\nBoard: 3x3 k3 freestyle\nMoves: B2 Z9\n",
            IllegalRecordError,
            "move 2",
        ),
        (
            "caro game record 1\nBoard: 3x3 k3 freestyle\nMoves: B2\nthis line\n",
            MalformedRecordError,
            "line 4",
        ),
        (
            "caro game record 1\nBoard: 3x3 k3 freestyle\nResult: O\nEnding: line\nMoves: A1 B1 A2 B2 A3\n",
            IllegalRecordError,
            "the result says line (O), but the moves end in line (X)",
        ),
        (
            "caro game record 1\nBoard: 3x3 k3 freestyle\nResult: X\nEnding: line\nMoves: A1\n",
            IllegalRecordError,
            "do not end it",
        ),
        (
            "caro game record 1\nBoard: 3x3 k3 freestyle\nResult: maybe\nMoves: A1\n",
            MalformedRecordError,
            "Result is X, O, draw or none",
        ),
        (
            "caro game record 1\nBoard: 3x3 k3 freestyle\nResult: X\nEnding: gave up\nMoves: A1\n",
            MalformedRecordError,
            "Ending is one of",
        ),
        (
            "caro game record 1\nBoard: 3x3 k3 freestyle\nMoves: A1\nMoves: A2\n",
            MalformedRecordError,
            "twice",
        ),
        ("3x3 k3 freestyle A1 A1\n", IllegalRecordError, "A1 is already taken"),
        ("3x3 k3 freestyle A1 B1 A2 B2 A3 C3\n", IllegalRecordError, "the game is over"),
    ],
)
def test_bad_files_raise_a_record_error_that_says_what_is_wrong(
    text: str, error: type[RecordError], words: str
) -> None:
    with pytest.raises(error) as caught:
        read_record(text)
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_a_record_that_contradicts_the_k_asked_for_is_refused() -> None:
    with pytest.raises(IllegalRecordError, match="k3 game, not k5"):
        read_record("3x3 k3 freestyle B2", k=5)


def test_a_binary_file_is_refused_as_not_text(tmp_path: Path) -> None:
    path = tmp_path / "game.psq"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(UnknownFormatError, match="not a text file"):
        load_record(path)


def test_the_board_after_any_ply_is_available_for_a_replay_stepper() -> None:
    board = random_game(7, 7, 4, Rule.FREESTYLE, seed=3)
    record = GameRecord.from_board(board)
    for ply in range(len(board.moves) + 1):
        assert record.board(ply).moves == board.moves[:ply]
    with pytest.raises(ValueError, match="ply must be from 0"):
        record.board(len(board.moves) + 1)


@pytest.mark.parametrize("key", ["Moves", "result", "bad:key", "", "9lives"])
def test_a_tag_that_would_not_read_back_is_refused(key: str) -> None:
    with pytest.raises(IllegalRecordError, match="tag name"):
        GameRecord.from_board(Board.from_text("3x3 k3 freestyle B2"), tags={key: "v"})


def test_a_small_psq_board_asks_for_its_k() -> None:
    text = "Piskvorky 3x3, 0:0, 0\n2,2,0\n"
    with pytest.raises(IllegalRecordError, match="does not say k"):
        read_record(text)
    assert read_record(text, k=3).moves == ((1, 1),)


# ---------------------------------------------------------------------------- openings
def swap2_game() -> tuple[Board, tuple[str, ...]]:
    """A swap2 opening (three stones, two more, the first takes O) and a few moves after it."""
    state = OpeningState.start(Opening.SWAP2, 15, 15, 5, Rule.FREESTYLE)
    for name in ("H8", "H9", "J9"):
        state = state.apply(Action.place(state.board.parse_move(name)))
    state = state.apply(Action.choose(Choice.PLACE_TWO))
    for name in ("G7", "K10"):
        state = state.apply(Action.place(state.board.parse_move(name)))
    state = state.apply(Action.choose(Choice.TAKE_O))
    board = state.board
    for name in ("A1", "A2"):
        board.push_name(name)
    return board, state.decisions


def test_a_caro_record_keeps_the_opening_and_its_decisions_and_reads_them_back() -> None:
    board, decisions = swap2_game()
    record = GameRecord.from_board(
        board,
        x_name="Bob",
        o_name="caro AI (hard)",
        opening=Opening.SWAP2,
        opening_decisions=decisions,
    )
    text = record.to_text()
    assert "Opening: swap2 place_two take_o\n" in text
    back = read_record(text)
    assert back == record
    assert back.opening is Opening.SWAP2 and back.opening_decisions == ("place_two", "take_o")
    state = back.opening_state()
    assert state.done and state.x_side is Side.SECOND


def test_a_rif_record_keeps_the_offer_of_the_fifth_move() -> None:
    state = OpeningState.start(Opening.RIF, 15, 15, 5, Rule.RENJU)
    for name in ("H8", "H9", "I9"):
        state = state.apply(Action.place(state.board.parse_move(name)))
    state = state.apply(Action.choose(Choice.TAKE_X))
    state = state.apply(Action.place(state.board.parse_move("A1")))
    board = state.board
    state = state.apply(Action.offer([board.parse_move("J10"), board.parse_move("G6")]))
    state = state.apply(Action.select(board.parse_move("G6")))
    record = GameRecord.from_board(
        state.board, opening=Opening.RIF, opening_decisions=state.decisions
    )
    assert "Opening: rif take_x offer:J10,G6\n" in record.to_text()
    assert read_record(record.to_text()).opening_decisions == ("take_x", "offer:J10,G6")


def test_an_old_record_without_an_opening_reads_as_a_free_game() -> None:
    record = read_record("caro game record 1\nBoard: 15x15 k5 caro\nMoves: H8 I9\n")
    assert record.opening is Opening.FREE and record.opening_decisions == ()
    assert "Opening" not in record.to_text()


def test_the_psq_form_has_no_place_for_the_opening_and_reads_back_as_free() -> None:
    board, decisions = swap2_game()
    record = GameRecord.from_board(board, opening=Opening.SWAP2, opening_decisions=decisions)
    back = read_record(record.to_psq())
    assert back.moves == record.moves and back.opening is Opening.FREE


@pytest.mark.parametrize(
    ("line", "error", "words"),
    [
        ("Opening: swap3", MalformedRecordError, "unknown opening"),
        ("Opening:", MalformedRecordError, "Opening names the opening"),
        ("Opening: swap2", IllegalRecordError, "before the opening's decision"),
        ("Opening: swap2 place_two take_o take_x", IllegalRecordError, "after the opening's end"),
        ("Opening: rif", IllegalRecordError, "renju on 15x15"),
    ],
)
def test_an_opening_that_does_not_replay_is_refused_naming_its_line(
    line: str, error: type[RecordError], words: str
) -> None:
    text = f"caro game record 1\nBoard: 15x15 k5 freestyle\n{line}\nMoves: H8 H9 J9 G7 K10 A1\n"
    with pytest.raises(error, match=words) as caught:
        read_record(text)
    assert "line 3" in str(caught.value)


def test_a_record_built_with_decisions_its_opening_refuses_is_refused() -> None:
    board, _ = swap2_game()
    with pytest.raises(IllegalRecordError, match="free game has no opening decisions"):
        GameRecord.from_board(board, opening_decisions=("take_x",))
    with pytest.raises(IllegalRecordError, match="swap opening"):
        GameRecord.from_board(board, opening=Opening.SWAP, opening_decisions=("place_two",))
