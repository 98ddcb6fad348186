"""The AI review of a game: scripted games with planted mistakes, found and explained."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Board, Mark, Rule
from engine.analysis.review import (
    Proof,
    Review,
    TurningPoint,
    TurnKind,
    Verdict,
    begin_review,
    conclude_review,
    continue_review,
    evaluation_chance,
    move_accuracy,
    review_game,
)
from engine.game.notation import cell_name, parse_cell
from engine.game.records import Ending, GameRecord, read_record
from engine.programs.replay import animate, board_text, step

FIVE = (15, 15, 5, Rule.FREESTYLE)
# X builds H8-K8 against O's G8; O must take L8 at move 8 and plays A1 instead; X wins on L8.
MISSED_BLOCK = ["H8", "G8", "I8", "H9", "J8", "J9", "K8", "A1", "L8"]
# Both sides build an open three on rows 8 and 9; O's J9 at move 6 leaves X's three open, X
# then has a win by an open four (G8 or K8) and plays A1 at move 7; O wins from move 8.
MISSED_WIN = ["H8", "H9", "I8", "I9", "J8", "J9", "A1", "K9", "L9", "G9"]
# Tic-tac-toe: O's edge reply (A2) to X's centre loses; the solver proves it.
TTT_EDGE = ["B2", "A2", "A1", "C3"]


def names(cells: tuple[tuple[int, int], ...]) -> list[str]:
    return [cell_name(c) for c in cells]


def point(review: Review, ply: int, kind: TurnKind) -> TurningPoint:
    found = [p for p in review.turning_points if p.ply == ply and p.kind is kind]
    assert found, f"no {kind} at move {ply}: {review.turning_points}"
    return found[0]


def replay(moves: list[str], line: tuple[tuple[int, int], ...], before: int) -> Board:
    board = Board(*FIVE)
    for name in moves[:before]:
        board.push_name(name)
    for cell in line:
        board.push(cell)
    return board


def test_a_missed_block_is_found_and_the_block_is_named_as_the_better_move() -> None:
    review = review_game(MISSED_BLOCK, *FIVE)
    blunder = point(review, 8, TurnKind.LOSING_MOVE)
    assert blunder.mover is Mark.O and cell_name(blunder.move) == "A1"
    assert blunder.better is not None and cell_name(blunder.better) == "L8"
    assert blunder.proof is Proof.THREATS
    assert names(blunder.refutation) == ["L8"]  # X's five follows the move played
    assert blunder.line[0] == blunder.better
    assert review.move_reviews[7].verdict is Verdict.BLUNDER
    assert review.summary_of(Mark.O).blunders >= 1 and review.summary_of(Mark.X).blunders == 0
    # Only O's move changed the game.
    assert [p.ply for p in review.turning_points] == [8]


def test_the_review_text_counts_each_kind_of_move_in_the_right_number() -> None:
    text = review_game(TTT_EDGE, 3, 3, 3, Rule.FREESTYLE).text(("Ann", "Bob")).splitlines()
    assert text[0] == "Review of a 3x3 k3 freestyle game, 4 moves"
    assert text[1].endswith(", 0 inaccuracies, 0 mistakes, 0 blunders")
    assert text[2].endswith(", 0 inaccuracies, 0 mistakes, 1 blunder")
    one = review_game(TTT_EDGE[:1], 3, 3, 3, Rule.FREESTYLE).text().splitlines()
    assert one[0] == "Review of a 3x3 k3 freestyle game, 1 move"


def test_a_missed_forced_win_names_the_winning_move_and_its_sequence() -> None:
    review = review_game(MISSED_WIN, *FIVE)
    missed = point(review, 7, TurnKind.MISSED_WIN)
    assert missed.mover is Mark.X and cell_name(missed.move) == "A1"
    assert missed.better is not None and cell_name(missed.better) in ("G8", "K8")
    # The line shown is a real win: played out from the position before move 7, X wins.
    won = replay(MISSED_WIN, missed.line, before=6)
    outcome = won.outcome()
    assert outcome is not None and outcome.winner is Mark.X
    # O's J9 (move 6) let X in: it should have stopped the open three at G8 or K8.
    let_in = point(review, 6, TurnKind.LOSING_MOVE)
    assert let_in.better is not None and cell_name(let_in.better) in ("G8", "K8")
    # And O's own forced win began with the four at move 8, played out to the end.
    began = point(review, 8, TurnKind.WIN_BEGAN)
    assert began.mover is Mark.O and names(began.refutation) == ["K9", "L9", "G9"]


def test_the_solver_proves_a_thrown_away_draw_on_a_small_board() -> None:
    review = review_game(TTT_EDGE, 3, 3, 3, Rule.FREESTYLE)
    lost = point(review, 2, TurnKind.LOST_DRAW)
    assert lost.proof is Proof.SOLVER and cell_name(lost.move) == "A2"
    assert lost.better is not None and cell_name(lost.better) in ("A1", "C1", "A3", "C3")
    assert review.move_reviews[1].chance_played == 0.0 and review.move_reviews[1].chance_best == 0.5


def test_a_perfectly_played_small_game_has_no_turning_points() -> None:
    # A drawn game in which every move keeps the draw: the solver agrees at every move.
    review = review_game(
        ["B2", "A1", "C1", "A3", "A2", "C2", "B3", "B1", "C3"], 3, 3, 3, Rule.FREESTYLE
    )
    assert review.turning_points == ()
    assert all(m.chance_played == m.chance_best == 0.5 for m in review.move_reviews)
    assert review.summary_of(Mark.X).accuracy == review.summary_of(Mark.O).accuracy == 100.0


def test_the_same_node_limit_gives_the_same_review() -> None:
    first = review_game(MISSED_WIN, *FIVE, node_limit=800)
    second = review_game(MISSED_WIN, *FIVE, node_limit=800)
    assert first.to_dict() | {"seconds": 0} == second.to_dict() | {"seconds": 0}


def test_a_review_does_not_depend_on_what_the_engine_searched_before() -> None:
    # The compiled core keeps its tables between searches; a review must not read them.
    from engine.ai import compiled
    from engine.programs.review import bench_game

    game = bench_game(15, 15, 5, 24).moves
    first = review_game(game, *FIVE, node_limit=3000)
    other = Board.from_text("15x15 k5 freestyle H8 H9 I9 G7 J10 K11 I8 I10")
    compiled.think(other, None, 200_000)
    second = review_game(game, *FIVE, node_limit=3000)
    assert first.to_dict() | {"seconds": 0} == second.to_dict() | {"seconds": 0}


def test_progress_is_reported_for_every_move() -> None:
    seen: list[tuple[int, int]] = []
    review_game(MISSED_BLOCK, *FIVE, node_limit=500, progress=lambda d, t: seen.append((d, t)))
    assert seen[: len(MISSED_BLOCK)] == [(i, len(MISSED_BLOCK)) for i in range(1, 10)]
    assert seen[-1] == (9, 9)


def test_a_review_out_of_time_says_so_and_covers_only_the_moves_reached() -> None:
    review = review_game(MISSED_WIN, *FIVE, budget_s=1e-6)
    assert not review.complete
    assert len(review.move_reviews) < len(MISSED_WIN)
    assert "time ran out" in review.text()


def test_a_review_survives_the_json_cache_unchanged() -> None:
    review = review_game(MISSED_WIN, *FIVE, node_limit=2000)
    stored = json.loads(json.dumps(review.to_dict()))
    back = Review.from_dict(stored)
    assert back.turning_points == review.turning_points
    assert back.summaries == review.summaries
    assert back.moves == review.moves
    with pytest.raises(ValueError, match="not a stored review"):
        Review.from_dict({"version": 1, "board": "15x15 k5 freestyle"})


@pytest.mark.parametrize(
    ("moves", "options", "message"),
    [
        (["H8", "H8"], {}, "move 2: H8 is already taken"),
        (["H8", "Z99"], {}, "not a move|off the board"),
        (["H8"], {"budget_s": 0}, "budget_s must be positive"),
        (["H8"], {"node_limit": 0}, "node_limit must be"),
    ],
)
def test_bad_input_is_refused_with_a_reason(
    moves: list[str], options: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        review_game(moves, *FIVE, **options)  # type: ignore[arg-type]


def test_accuracy_is_100_for_no_loss_and_falls_with_the_loss() -> None:
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=0.01)
    assert move_accuracy(0.1) > move_accuracy(0.3) > move_accuracy(1.0) >= 0.0


def test_the_evaluation_favours_the_side_with_more_open_lines() -> None:
    board = Board.from_text("15x15 k5 freestyle H8 A1 I8 A15 J8")  # X three in the middle
    assert evaluation_chance(board, Mark.X) > 0.6 > 0.4 > evaluation_chance(board, Mark.O)
    assert evaluation_chance(Board(*FIVE), Mark.X) == 0.5


# ---------------------------------------------------------------------------- the programs
def write(tmp_path: Path, moves: list[str], name: str = "game.caro") -> Path:
    board = Board(*FIVE)
    for move in moves:
        board.push_name(move)
    record = GameRecord.from_board(board, x_name="Alice", o_name="Bob")
    path = tmp_path / name
    path.write_text(record.to_psq() if name.endswith(".psq") else record.to_text())
    return path


def caro(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args], capture_output=True, text=True, timeout=120
    )


def test_caro_review_prints_the_turning_points_of_a_psq_file(tmp_path: Path) -> None:
    result = caro("review", str(write(tmp_path, MISSED_BLOCK, "game.psq")))
    assert result.returncode == 0, result.stderr
    assert "Move 8, Bob (O): A1 lets the opponent force a win" in result.stdout
    assert "Better: L8" in result.stdout
    assert result.stdout.startswith("Review of a 15x15 k5 freestyle game, 9 moves")


def test_caro_review_json_matches_the_library(tmp_path: Path) -> None:
    result = caro("review", str(write(tmp_path, MISSED_BLOCK)), "--json", "--nodes", "1000")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [(p["ply"], p["kind"], p["better"]) for p in data["turning_points"]] == [
        (8, "losing_move", "L8")
    ]


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["review", "missing.caro"], 1, "cannot read missing.caro"),
        (["review", "--nodes", "0", "x"], 2, "--nodes must be from 1"),
        (["review", "--budget", "soon", "x"], 2, "--budget must be a number"),
        (["review"], 2, "give the FILE"),
        (["replay", "missing.caro"], 1, "cannot read missing.caro"),
        (["replay", "--delay", "-1", "x"], 2, "--delay must be 0 seconds or more"),
        (["review", "--k", "0", "x"], 2, "--k must be from 1 to 26"),
        (["replay", "--k", "99", "x"], 2, "--k must be from 1 to 26"),
    ],
)
def test_the_programs_refuse_bad_arguments_in_one_line(
    args: list[str], code: int, words: str
) -> None:
    result = caro(*args)
    assert result.returncode == code
    assert words in result.stderr and "Traceback" not in result.stderr


def test_a_file_that_is_not_a_game_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n")
    for program in ("review", "replay"):
        result = caro(program, str(path))
        assert result.returncode == 1 and "not a game record" in result.stderr
        assert "Traceback" not in result.stderr


def test_replay_steps_to_every_position_and_back() -> None:
    record = read_record("15x15 k5 freestyle " + " ".join(MISSED_BLOCK))
    commands = iter(["n"] * 9 + ["n"] + ["p"] * 9 + ["p", "l", "f", "5", "99", "what", "q"])
    shown: list[str] = []
    step(record, lambda _prompt: next(commands), shown.append)
    boards = [s for s in shown if s.startswith(("Start", "Move"))]
    captions = [b.splitlines()[0] for b in boards]
    assert captions[:10] == ["Start: 15x15 k5 freestyle, 9 moves"] + [
        f"Move {i}/9: {'X' if i % 2 else 'O'} {MISSED_BLOCK[i - 1]}" for i in range(1, 10)
    ]
    assert "That was the last move" in shown[shown.index(boards[9]) + 1]
    assert captions[10:19] == list(reversed(captions[:9]))
    assert "This is the start" in " ".join(shown)
    assert captions[19:] == [captions[9], captions[0], captions[5]]
    assert "The game has 9 moves: give 0 to 9." in shown
    # The final board shows the result and the winning stones in lower case.
    final = boards[9]
    assert final.endswith("X wins: H8 I8 J8 K8 L8")
    assert " 8 . . . . . . O x x x x[x]. . ." in final


def test_replay_animation_shows_every_position_in_order() -> None:
    record = read_record(
        "3x3 k3 freestyle " + " ".join(["B2", "A1", "C1", "A3", "A2", "C2", "B3", "B1", "C3"])
    )
    shown: list[str] = []
    waits: list[float] = []
    animate(record, shown.append, 0.25, sleep=waits.append)
    assert len(shown) == 10 and waits == [0.25] * 9
    assert shown[-1].endswith("Draw: the board is full")
    assert board_text(record, 0).splitlines()[0] == "Start: 3x3 k3 freestyle, 9 moves"


def test_a_review_sliced_through_a_process_boundary_equals_one_in_a_single_call() -> None:
    whole = review_game(MISSED_BLOCK, *FIVE, node_limit=1500)
    work = begin_review(MISSED_BLOCK, *FIVE, node_limit=1500)
    seen = []
    while not work.analysed:
        # What a process pool does: the work goes out pickled and comes back pickled.
        work = pickle.loads(
            pickle.dumps(continue_review(pickle.loads(pickle.dumps(work)), positions=2))
        )
        seen.append(work.done)
    assert seen == [2, 4, 6, 8, 9]
    sliced = conclude_review(pickle.loads(pickle.dumps(work)))
    assert sliced.to_dict() | {"seconds": 0} == whole.to_dict() | {"seconds": 0}
    assert pickle.loads(pickle.dumps(sliced)).turning_points == whole.turning_points


def test_caro_replay_animates_a_psq_file_to_the_winning_board(tmp_path: Path) -> None:
    result = caro(
        "replay", "--animate", "--delay", "0", str(write(tmp_path, MISSED_BLOCK, "g.psq"))
    )
    assert result.returncode == 0, result.stderr
    captions = [line for line in result.stdout.splitlines() if line.startswith(("Start", "Move"))]
    assert len(captions) == len(MISSED_BLOCK) + 1
    assert captions[-1] == "Move 9/9: Alice (X) L8"
    assert result.stdout.rstrip().endswith("Alice (X) wins: H8 I8 J8 K8 L8")


def test_a_game_exported_and_imported_gets_the_same_review(tmp_path: Path) -> None:
    direct = review_game(MISSED_WIN, *FIVE, node_limit=1500)
    for name in ("game.psq", "game.caro"):
        record = read_record(write(tmp_path, MISSED_WIN, name).read_text())
        again = review_game(
            record.moves, record.rows, record.cols, record.k, record.rule, node_limit=1500
        )
        assert again.turning_points == direct.turning_points


# A random 6x6 four-in-a-row game in which both sides keep handing a proven win back and forth
# until O's last move: the review once said O's win "began" at move 20 and that O missed it there.
SEESAW = ["F1", "A2", "B5", "A3", "E4", "E2", "A5", "C2", "D5", "B1", "E5", "C6", "D2", "C4", "E6", "B4", "A6", "A4", "F6", "F5", "D3", "D6", "A1", "C1", "C3", "D4"]


def test_a_review_names_each_move_once_and_a_forced_win_begins_after_every_missed_one() -> None:
    review = review_game(SEESAW, 6, 6, 4, Rule.FREESTYLE)
    plies = [p.ply for p in review.turning_points]
    assert len(plies) == len(set(plies)), review.turning_points
    assert point(review, 20, TurnKind.MISSED_WIN).mover is Mark.O
    for began in (p for p in review.turning_points if p.kind is TurnKind.WIN_BEGAN):
        assert all(p.ply < began.ply for p in review.turning_points if p is not began)


def test_players_are_named_once_with_their_mark_in_reviews_and_replays() -> None:
    text = review_game(SEESAW, 6, 6, 4, Rule.FREESTYLE).text((None, "caro AI (hard)"))
    assert "\nX: accuracy " in text and "\ncaro AI (hard, O): accuracy " in text
    assert "Move 6, caro AI (hard, O): missed a forced win with E2" in text
    assert "Move 5, X: E4 lets the opponent force a win" in text
    assert "X (X)" not in text and ") (O)" not in text
    record = GameRecord(
        6, 6, 4, Rule.FREESTYLE, tuple(parse_cell(n, 6, 6) for n in SEESAW),
        x_name="", o_name="caro AI (hard)", winner=Mark.O, ending=Ending.LINE,
    )
    assert board_text(record, 1).splitlines()[0] == "Move 1/26: X F1"
    assert board_text(record, 26).splitlines()[0] == "Move 26/26: caro AI (hard, O) D4"
    assert board_text(record, 26).splitlines()[-1] == "caro AI (hard, O) wins: A4 B4 C4 D4"
