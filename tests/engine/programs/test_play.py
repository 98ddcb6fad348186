"""`caro play`: whole terminal games driven by scripted input, and the real console script."""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from engine import Board, Cell, Mark, Outcome, Rule
from engine.game.notation import cell_name, parse_size
from engine.game.openings import Action, Choice, Opening, OpeningState, Side
from engine.game.records import Ending, load_record
from engine.programs.play import (
    Computer,
    add_arguments,
    build_game,
    play_game,
    play_opening,
    players_of,
    render,
    run,
)
from engine.programs.replay import board_text


class Script:
    """input() stand-in: answers from a list, then EOF; remembers the prompts it was shown."""

    def __init__(self, answers: Iterable[str]) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


class Scripted(Computer):
    """A computer player that plays fixed cells: the game loop without engine.ai."""

    def __init__(self, cells: Iterable[Cell]) -> None:
        super().__init__("scripted", random.Random(0))
        self.cells = list(cells)

    def choose(self, board: Board) -> tuple[Cell, str | None]:
        return self.cells.pop(0), "develop"


def run_game(
    board: Board, answers: Iterable[str], players: dict[Mark, Computer | None] | None = None
) -> tuple[Outcome | None, list[str], Script]:
    script = Script(answers)
    out: list[str] = []
    result = play_game(board, players or {Mark.X: None, Mark.O: None}, script, out.append)
    return result, out, script


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


# ----------------------------------------------------------------- drawing
def test_render_marks_the_last_move() -> None:
    board = Board.from_text("3x3 k3 freestyle B2 A1")
    assert render(board) == "  A B C\n1[O]. .\n2 . X .\n3 . . ."
    board.push_name("C3")
    assert render(board) == "  A B C\n1 O . .\n2 . X .\n3 . .[X]"
    assert render(Board(3, 3, 3)) == str(Board(3, 3, 3))


def test_render_aligns_two_digit_rows() -> None:
    board = Board.from_text("12x3 k3 freestyle B12")
    lines = render(board).splitlines()
    assert lines[0] == "   A B C"
    assert lines[1] == " 1 . . ."
    assert lines[12] == "12 .[X]."


def test_prompt_example_is_a_free_cell_near_the_centre() -> None:
    board = Board(15, 15, 5)
    _, _, script = run_game(board, ["H8", "quit"])
    assert script.prompts == ["X to move (e.g. H8): ", "O to move (e.g. H7): "]
    _, _, script = run_game(Board(4, 6, 4), ["quit"])
    assert script.prompts == ["X to move (e.g. C2): "]


# ----------------------------------------------------------------- games between two people
def test_two_people_play_to_a_win() -> None:
    result, out, script = run_game(Board(), ["A1", "A2", "B1", "B2", "C1"])
    assert result == Outcome(Mark.X, ((0, 0), (0, 1), (0, 2)))
    assert out[-1] == "X wins: A1 B1 C1"
    assert script.prompts[0] == "X to move (e.g. B2): "
    assert script.prompts[1] == "O to move (e.g. B2): "
    assert [p.split()[0] for p in script.prompts] == ["X", "O", "X", "O", "X"]
    assert "1(X X X)" in out[-2]  # the winning line marked on the final board


def test_two_people_play_to_a_draw() -> None:
    moves = ["A1", "B1", "C1", "B2", "A2", "C2", "B3", "A3", "C3"]
    result, out, _ = run_game(Board(), moves)
    assert result == Outcome(None, ())
    assert out[-1] == "Draw"


def test_bad_input_is_asked_again_with_the_reason() -> None:
    result, out, script = run_game(Board(), ["Z9", "hello", "B2", "b2", "", "A1", "quit"])
    assert result is None
    text = "\n".join(out)
    assert "Z9 is off the board (A1 to C3). Try again." in text
    assert "'hello' is not a move" in text
    assert "B2 is already taken. Try again." in text
    assert "'' is not a move" in text
    assert [p[0] for p in script.prompts] == ["X", "X", "X", "O", "O", "O", "X"]
    assert out[-1] == "Bye."


def test_undo_between_two_people_takes_back_one_move() -> None:
    board = Board()
    result, out, script = run_game(board, ["B2", "A1", "undo", "C1", "quit"])
    assert result is None
    assert "Took back 1 move." in out
    assert board.moves == ((1, 1), (0, 2))
    assert [p[0] for p in script.prompts] == ["X", "O", "X", "O", "X"]


def test_undo_on_an_empty_board_does_nothing() -> None:
    board = Board()
    _, out, _ = run_game(board, ["undo", "quit"])
    assert "Nothing to undo." in out and board.ply == 0


def test_eof_ends_cleanly() -> None:
    board = Board()
    result, out, _ = run_game(board, ["B2"])
    assert result is None
    assert out[-1] == "Bye." and board.moves == ((1, 1),)


def test_play_on_a_rectangular_caro_board() -> None:
    board = Board(4, 6, 4, Rule.CARO)
    result, out, _ = run_game(board, ["A1", "A2", "B1", "B2", "C1", "C2", "D1"])
    assert result is not None and result.winner is Mark.X
    assert out[-1] == "X wins: A1 B1 C1 D1"


# ----------------------------------------------------------------- games against a computer
def test_computer_moves_are_announced_and_played() -> None:
    board = Board()
    ai = Scripted([(0, 0), (0, 1), (1, 0)])
    result, out, script = run_game(board, ["B2", "C3", "A3", "C1"], {Mark.X: None, Mark.O: ai})
    assert "O (scripted) plays A1 (develop)" in out
    assert "O (scripted) plays B1 (develop)" in out
    assert "O (scripted) plays A2 (develop)" in out
    assert result == Outcome(Mark.X, ((0, 2), (1, 1), (2, 0)))
    assert all(p.startswith("X to move") for p in script.prompts)


def test_a_thinking_line_comes_before_each_computer_move() -> None:
    ai = Scripted([(0, 0), (0, 1), (1, 0)])
    _, out, _ = run_game(Board(), ["B2", "C3", "A3", "C1"], {Mark.X: None, Mark.O: ai})
    plays = [i for i, line in enumerate(out) if line.startswith("O (scripted) plays")]
    assert len(plays) == 3
    assert all(out[i - 1] == "O (scripted) is thinking…" for i in plays)


@pytest.mark.parametrize(
    ("moves", "final"),
    [
        (["A1", "B1", "A2", "B2", "A3"], "  A B C\n1(X)O .\n2(X)O .\n3(X). ."),
        (["A1", "A2", "B2", "B3", "C3"], "  A B C\n1(X). .\n2 O(X).\n3 . O(X)"),
        (["C1", "A2", "B2", "B3", "A3"], "  A B C\n1 . .(X)\n2 O(X).\n3(X)O ."),
    ],
)
def test_the_winning_line_is_marked_on_the_final_board(moves: list[str], final: str) -> None:
    _, out, _ = run_game(Board(), moves)
    assert out[-2] == final


def test_render_marks_a_winning_line_on_a_wide_board() -> None:
    board = Board(3, 12, 4)
    for name in ("J2", "A1", "K2", "A2", "L2", "A3", "I2"):
        board.push_name(name)
    outcome = board.outcome()
    assert outcome is not None
    assert render(board, outcome.line).splitlines()[2] == "2 O . . . . . . .(X X X X)"


def test_undo_against_the_computer_takes_back_both_moves() -> None:
    board = Board()
    ai = Scripted([(0, 0), (2, 2), (0, 2)])
    result, out, _ = run_game(board, ["B2", "undo", "C2", "quit"], {Mark.X: None, Mark.O: ai})
    assert result is None
    assert "Took back 2 moves." in out
    # After the undo X replays C2 and the computer answers with its next scripted cell.
    assert board.moves == ((1, 2), (2, 2))


def test_undo_when_the_computer_moved_first() -> None:
    board = Board()
    ai = Scripted([(1, 1), (0, 0), (0, 2)])
    result, out, _ = run_game(
        board, ["undo", "A3", "undo", "C3", "quit"], {Mark.X: ai, Mark.O: None}
    )
    assert result is None
    # The computer's opening is not the person's to take back...
    assert out.count("Nothing to undo.") == 1
    # ...but later undo takes back the computer's reply (A1) and the person's A3, keeping B2.
    assert "Took back 2 moves." in out
    assert board.moves == ((1, 1), (2, 2), (0, 2))


def test_computer_wins_are_reported() -> None:
    board = Board()
    ai = Scripted([(0, 0), (0, 1), (0, 2)])
    result, out, _ = run_game(board, ["B2", "C3"], {Mark.X: ai, Mark.O: None})
    assert result is not None and result.winner is Mark.X
    assert out[-1] == "X wins: A1 B1 C1"


def test_impossible_ai_never_loses_tic_tac_toe_from_the_terminal() -> None:
    # The real engine.ai through the game loop: a person trying the classic corner trap.
    for preference in (
        ["A1", "C3", "A3", "C1", "B1", "B2", "A2", "B3", "C2"],
        ["B2", "A1", "C3", "A3"],
    ):
        board = Board()

        def person(prompt: str, board: Board = board, preference: list[str] = preference) -> str:
            # The first cell of the plan still free, then any free cell.
            free = [board.move_name(c) for c in board.legal_moves]
            return next((name for name in preference if name in free), free[0])

        out: list[str] = []
        ai = Computer("impossible", random.Random(3))
        result = play_game(board, {Mark.X: None, Mark.O: ai}, person, out.append)
        assert result is not None and result == board.outcome(), out
        assert result.winner is not Mark.X


# ----------------------------------------------------------------- command-line arguments
def test_default_game_is_tic_tac_toe_between_people() -> None:
    board, players, _ = build_game(parse([]))
    assert board.spec == "3x3 k3 freestyle"
    assert players == {Mark.X: None, Mark.O: None}


@pytest.mark.parametrize(
    ("argv", "spec"),
    [
        (["--size", "15x15"], "15x15 k5 freestyle"),
        (["--size", "9x7", "--rule", "caro"], "9x7 k5 caro"),
        (["--size", "4x4"], "4x4 k4 freestyle"),
        (["--size", "3x7"], "3x7 k5 freestyle"),
        (["--size", "19", "--k", "6", "--rule", "EXACT"], "19x19 k6 exact"),
        (["--size", "1x1"], "1x1 k1 freestyle"),
    ],
)
def test_size_and_default_k(argv: list[str], spec: str) -> None:
    board, _, _ = build_game(parse(argv))
    assert board.spec == spec


@pytest.mark.parametrize("text", ["", "x", "3x", "3x3x3", "ax3", "-3x3", "3.5x3"])
def test_bad_sizes(text: str) -> None:
    with pytest.raises(ValueError, match="size"):
        parse_size(text)


@pytest.mark.parametrize(
    "argv",
    [
        ["--size", "30x30"],
        ["--size", "3x3", "--k", "4"],
        ["--rule", "gomoku"],
        ["--rule", "renju"],  # renju is five in a row: not on the default 3x3 board
        ["--size", "big"],
    ],
)
def test_run_reports_bad_arguments(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(parse(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("caro play: ") and len(err) > len("caro play: \n")


def test_renju_is_a_rule_of_the_game() -> None:
    board, _, _ = build_game(parse(["--size", "15x15", "--rule", "renju"]))
    assert board.rule is Rule.RENJU and board.k == 5


def test_vs_ai_seats_and_seeded_first() -> None:
    _, players, seed = build_game(parse(["--vs", "hard", "--seed", "5"]))
    assert players[Mark.X] is None and isinstance(players[Mark.O], Computer)
    assert seed == 5 and players[Mark.O].level == "hard"  # type: ignore[union-attr]
    _, players, _ = build_game(parse(["--vs", "easy", "--first", "ai", "--time-limit", "0.5"]))
    assert players[Mark.O] is None
    computer = players[Mark.X]
    assert computer is not None and computer.time_limit == 0.5

    def person_is_x(seed: int) -> bool:
        argv = ["--vs", "easy", "--first", "random", "--seed", str(seed)]
        return build_game(parse(argv))[1][Mark.X] is None

    assert {person_is_x(s) for s in range(20)} == {True, False}
    assert len({person_is_x(9) for _ in range(3)}) == 1  # a seed always seats the same way


def test_unknown_level_is_refused_by_argparse() -> None:
    with pytest.raises(SystemExit):
        parse(["--vs", "godlike"])


def test_levels_are_read_in_any_case() -> None:
    _, players, _ = build_game(parse(["--vs", "Hard", "--first", "ai"]))
    assert players[Mark.X] is not None and players[Mark.X].level == "hard"


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["play", "--vs", "god"], "caro play: error: argument --vs: unknown opponent 'god': "
         "choose human, easy, normal, hard or impossible"),
        (["pbrain", "--level", "god"], "caro pbrain: error: argument --level: unknown level "
         "'god': choose easy, normal, hard or impossible"),
    ],
)
def test_an_unknown_level_is_refused_naming_the_levels(argv: list[str], error: str) -> None:
    proc = subprocess.run(
        [*caro_command(), *argv], input="", capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == error
    assert "Level." not in proc.stderr  # the usage line names them as typed, too
    assert "easy,normal,hard,impossible}" in proc.stderr


# ----------------------------------------------------------------- the real console script
@pytest.mark.parametrize("limit", ["0", "-1", "nan", "soon", "7200"])
def test_a_time_limit_that_cannot_work_is_refused_before_the_game(limit: str) -> None:
    proc = subprocess.run(
        [*caro_command(), "play", "--vs", "easy", "--time-limit", limit],
        input="B2\n", capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines()[-1] == (
        "caro play: error: argument --time-limit: expected a number of seconds above 0 and at "
        f"most 3600, got {limit!r}"
    )


def caro_command() -> list[str]:
    script = Path(sys.executable).parent / "caro"
    return [str(script)] if script.exists() else [sys.executable, "-m", "engine"]


def test_console_script_plays_a_full_game_from_piped_stdin() -> None:
    moves = "a1\nB1\nZ9\nC1\nb2\nA2\nC2\nB3\nA3\nC3\n"
    proc = subprocess.run(
        [*caro_command(), "play", "--size", "3x3", "--k", "3"],
        input=moves,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Z9 is off the board (A1 to C3). Try again." in out
    assert "X to move (e.g. B2):" in out
    assert out.rstrip().endswith("Draw")


def test_console_script_against_the_ai() -> None:
    proc = subprocess.run(
        [*caro_command(), "play", "--vs", "impossible", "--first", "ai", "--seed", "1"],
        input="A1\nC3\nA3\nC1\nB1\nB3\nC2\nA2\nB2\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "the AI (impossible) plays X. Seed 1." in proc.stdout
    assert "X (impossible) plays" in proc.stdout
    last = proc.stdout.rstrip().splitlines()[-1]
    assert last in ("Draw", "Bye.") or last.startswith("X wins:")


# ----------------------------------------------------------------- --save
def test_a_game_saved_by_play_is_read_by_review_and_replay(tmp_path: Path) -> None:
    game = tmp_path / "game.caro"
    played = subprocess.run(
        [*caro_command(), "play", "--vs", "impossible", "--first", "ai", "--seed", "1",
         "--save", str(game)],
        input="A1\nC3\nA3\nC1\nB1\nB3\nC2\nA2\nB2\n",
        capture_output=True, text=True, timeout=120,
    )
    assert played.returncode == 0, played.stderr
    assert played.stdout.rstrip().splitlines()[-1] == (
        f"Saved to {game}: `caro review {game}` or `caro replay {game}` shows it again."
    )
    record = load_record(game)
    assert record.spec == "3x3 k3 freestyle"
    assert record.x_name == "caro AI (impossible)" and record.o_name == ""
    assert record.tags["Seed"] == "1"
    final = record.board()
    assert final.outcome() is not None  # played to its end: the moves and result agree
    assert record.ending in (Ending.LINE, Ending.FULL)

    reviewed = subprocess.run(
        [*caro_command(), "review", str(game)], capture_output=True, text=True, timeout=120
    )
    assert reviewed.returncode == 0, reviewed.stderr
    moves = len(record.moves)
    assert reviewed.stdout.startswith(f"Review of a 3x3 k3 freestyle game, {moves} moves\n")
    assert "caro AI (impossible, X): accuracy" in reviewed.stdout

    replayed = subprocess.run(
        [*caro_command(), "replay", str(game), "--animate", "--delay", "0"],
        capture_output=True, text=True, timeout=60,
    )
    assert replayed.returncode == 0, replayed.stderr
    # The replay ends on the saved game's final position, whichever game the AI played (its
    # moves depend on how much of its time limit the machine left it).
    assert board_text(record, len(record.moves)) in replayed.stdout


def test_a_quit_game_is_saved_unfinished(tmp_path: Path) -> None:
    game = tmp_path / "quit.psq"
    played = subprocess.run(
        [*caro_command(), "play", "--size", "15x15", "--save", str(game)],
        input="H8\nH9\nquit\n", capture_output=True, text=True, timeout=60,
    )
    assert played.returncode == 0, played.stderr
    record = load_record(game)  # piskvork's form, as the name asks
    assert game.read_text().startswith("Piskvorky 15x15")
    assert [cell_name(c) for c in record.moves] == ["H8", "H9"]
    assert record.ending is Ending.UNFINISHED and record.winner is None


def test_a_save_file_that_cannot_be_written_is_refused_before_the_game(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "game.caro"
    proc = subprocess.run(
        [*caro_command(), "play", "--save", str(missing)],
        input="B2\n", capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        f"caro play: --save {missing}: the folder {missing.parent} does not exist\n"
    )


# ----------------------------------------------------------------- --opening
class ScriptedDecisions(Computer):
    """A computer side of an opening that takes fixed actions: the loop without engine.ai."""

    def __init__(self, actions: Iterable[Action]) -> None:
        super().__init__("scripted", random.Random(0))
        self.actions = list(actions)

    def decide(self, state: OpeningState) -> Action:
        return self.actions.pop(0)


def swap2() -> OpeningState:
    return OpeningState.start(Opening.SWAP2, 15, 15, 5, Rule.FREESTYLE)


def test_a_person_plays_each_step_of_swap2_at_the_keyboard_against_scripted_choices() -> None:
    computer = ScriptedDecisions(
        [Action.choose(Choice.PLACE_TWO), Action.place((6, 6)), Action.place((9, 10))]
    )
    sides = {Side.FIRST: None, Side.SECOND: computer}
    script = Script(["H8", "H9", "J9", "o"])
    out: list[str] = []
    state, finished = play_opening(swap2(), sides, script, out.append)
    assert finished and state.decisions == ("place_two", "take_o")
    assert script.prompts[0] == "First player: place X (3 to place) (e.g. H8): "
    assert script.prompts[1] == "First player: place O (2 to place) (e.g. H7): "
    assert script.prompts[3] == "First player: choose x (take X) or o (take O): "
    assert "Second player (scripted) places two more stones" in out
    assert "Second player (scripted) places O on G7" in out
    assert "First player takes O" in out
    assert state.x_side is Side.SECOND


def test_the_ai_takes_its_side_and_the_game_goes_on_with_the_colours_it_chose() -> None:
    board = swap2().board
    for name in ("H8", "H9", "J9"):
        board.push_name(name)
    state = OpeningState(Opening.SWAP2, board)
    computer = ScriptedDecisions([Action.choose(Choice.TAKE_X)])
    sides = {Side.FIRST: None, Side.SECOND: computer}
    out: list[str] = []
    state, finished = play_opening(state, sides, Script([]), out.append)
    assert finished and state.x_side is Side.SECOND
    assert out[-1] == "The opening is over: the second player (the AI, scripted) plays X."
    players = players_of(state, sides)
    assert players[Mark.X] is computer and players[Mark.O] is None


@pytest.mark.parametrize(
    ("answers", "error"),
    [
        (["H8", "H8"], "H8 is already taken. Try again."),
        (["H8", "H9", "J9", "maybe"], "type one of x, take_x, o, take_o, two, place_two. Try again."),
        (["H8", "H9", "J9", "undo"], "The opening's stones and choices cannot be taken back."),
        (["H8", "Z99"], "Try again."),
        (["H8 H9"], "type one cell. Try again."),
    ],
)
def test_bad_opening_input_is_asked_again_with_the_reason(answers: list[str], error: str) -> None:
    sides = {Side.FIRST: None, Side.SECOND: None}
    out: list[str] = []
    script = Script(answers)
    play_opening(swap2(), sides, script, out.append)
    assert any(line.endswith(error) for line in out), out
    assert len(script.prompts) == len(answers) + 1  # asked again after the bad line


def test_rif_offers_and_selects_are_typed_as_cells() -> None:
    state = OpeningState.start(Opening.RIF, 15, 15, 5, Rule.RENJU)
    sides = {Side.FIRST: None, Side.SECOND: None}
    answers = ["H8", "H9", "I9", "x", "A1", "J10 J10", "J10, G6", "K11", "G6"]
    out: list[str] = []
    script = Script(answers)
    state, finished = play_opening(state, sides, script, out.append)
    assert finished and state.decisions == ("take_x", "offer:J10,G6")
    assert "Second player (X): offer 2 places for X's next stone: " in script.prompts
    assert "First player (O): pick X's stone from J10, G6: " in script.prompts
    assert any("offer 2 different places" in line for line in out)
    assert any("pick one of the offered places" in line for line in out)


def test_undo_after_the_opening_never_takes_back_its_stones() -> None:
    state = swap2()
    for name in ("H8", "H9", "J9"):
        state = state.apply(Action.place(state.board.parse_move(name)))
    board = state.apply(Action.choose(Choice.TAKE_O)).board
    script = Script(["A1", "undo", "undo"])
    out: list[str] = []
    play_game(board, {Mark.X: None, Mark.O: None}, script, out.append, floor=3)
    assert "Took back 1 move." in out and "Nothing to undo." in out
    assert board.ply == 3


def test_console_script_plays_swap2_against_the_ai_and_saves_the_opening(tmp_path: Path) -> None:
    game = tmp_path / "swap2.caro"
    proc = subprocess.run(
        [*caro_command(), "play", "--size", "15x15", "--vs", "normal", "--opening", "swap2",
         "--first", "ai", "--seed", "3", "--time-limit", "0.2", "--save", str(game)],
        input="x\nx\nx\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "You are the second player of the swap2 opening" in proc.stdout
    assert "First player (normal) places X on" in proc.stdout
    record = load_record(game)
    assert record.opening is Opening.SWAP2
    state = record.opening_state()
    assert len(record.moves) >= 3 and state.board.ply == len(record.moves)


def test_an_opening_the_board_cannot_have_is_refused_before_the_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(parse(["--size", "3x3", "--opening", "swap2"])) == 2
    assert "swap2 needs five or more in a row" in capsys.readouterr().err
    assert run(parse(["--size", "15x15", "--opening", "rif"])) == 2
    assert "renju on 15x15" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parse(["--opening", "pie"])
    assert "unknown opening 'pie'" in capsys.readouterr().err
