"""bench.losses on logs written here: the opponent's values read from its MESSAGE lines, the
turning move of each lost game found, and the brains (tests.bench.toy_brain) asked again on
it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench import losses
from bench.losses import Turn, Value, line_said, value_said
from engine.game.types import Rule
from tests.bench import toy_brain


def said(value: str) -> list[str]:
    return [f"MESSAGE Speed 900K | Depth 20-30 | Eval {value} | Node 900K | Time 950ms",
            "MESSAGE Bestline H8 H9"]


def move(by: str, x: int, y: int, value: str | None = None) -> dict[str, object]:
    return {"by": by, "move": f"{x},{y}", "seconds": 0.5,
            "said": said(value) if value else ["MESSAGE depth 9 nodes 1000 time 500ms"]}


def game(index: int, moves: list[dict[str, object]], winner: str) -> dict[str, object]:
    return {"index": index, "size": 15, "rule": "freestyle", "opening": [[7, 7], [7, 8], [8, 7]],
            "black": "caro", "white": "rapfi", "winner": winner, "reason": "five", "moves": moves}


# Rapfi (white) moves first after the three-stone opening; caro's second move turns the game.
LOST = game(0, [
    move("rapfi", 6, 6, "-20"),
    move("caro", 9, 9),
    move("rapfi", 10, 10, "350"),
    move("caro", 0, 0),
    move("rapfi", 5, 5, "+M21"),
    move("caro", 0, 1),
    move("rapfi", 4, 4, "+M19"),
], "rapfi")
WON = game(1, [move("rapfi", 6, 6, "-M9"), move("caro", 9, 9)], "caro")


def write(tmp_path: Path, *records: dict[str, object]) -> Path:
    log = tmp_path / "games.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    return log


@pytest.mark.parametrize(("text", "value"), [
    ("Eval 54", Value(points=54)),
    ("Eval -120", Value(points=-120)),
    ("Eval +M29", Value(plies=29)),
    ("Eval -M12", Value(plies=-12)),
])
def test_rapfis_values_and_forced_results_are_read(text: str, value: Value) -> None:
    assert value_said([f"MESSAGE Depth 20-30 | {text} | Node 1"]) == value


def test_a_move_that_says_no_value_has_none() -> None:
    assert value_said(["MESSAGE depth 9 nodes 1000 time 500ms"]) is None


def test_rapfis_principal_variation_is_read_as_cells() -> None:
    assert line_said(["MESSAGE Bestline H8 G9 A15"], 15) == ((7, 7), (8, 6), (14, 0))
    assert line_said(["MESSAGE Bestline H8 P3 G9"], 15) == ((7, 7),)  # up to the board's edge
    assert line_said(["MESSAGE Eval 5"], 15) == ()


def test_each_attacker_move_of_a_winning_line_is_called_a_four_an_open_three_or_neither() -> None:
    # Black (to move after white's (0, 4)) has two in a row on row 7.
    turn = Turn(0, 15, Rule.FREESTYLE, ((7, 7), (0, 0), (7, 8), (0, 2), (14, 0)), (0, 4),
                Value(points=400),
                Value(plies=9), 4,
                line=((7, 9), (0, 6), (7, 10), (14, 14), (14, 12), (0, 8), (7, 8), (1, 1)))
    # The seventh cell of the line is taken: the line is read up to it.
    assert losses.line_kinds(turn) == [
        losses.THREES, losses.FOURS, losses.QUIET]


def test_the_turning_move_is_the_one_after_which_the_opponent_first_claims_a_forced_win() -> None:
    lost, played = losses.losses([LOST, WON], "caro", 300)
    assert played == 2
    assert [loss.game for loss in lost] == [0]
    loss = lost[0]
    assert loss.edge_at == 3 and loss.win_at == 5
    turn = loss.turn
    assert turn is not None
    assert turn.move == (0, 0)
    assert turn.value_before == Value(points=350) and turn.claimed == Value(plies=21)
    assert turn.before == ((7, 7), (7, 8), (8, 7), (6, 6), (9, 9), (10, 10))
    assert (turn.size, turn.rule) == (15, Rule.FREESTYLE)
    assert turn.after_opening == 4


def test_a_game_won_from_the_opening_has_no_turning_move() -> None:
    opening_lost = game(2, [move("rapfi", 6, 6, "+M15"), move("caro", 9, 9)], "rapfi")
    (loss,), _ = losses.losses([opening_lost], "caro", 300)
    assert loss.win_at == 1 and loss.turn is None


def test_the_report_counts_the_turning_moves_and_the_threat_searchs_proofs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # After caro's (0, 0) Rapfi (white) makes an open four of its open three: a win by fours.
    moves = [move("rapfi", 2, 2, "10"), move("caro", 9, 9), move("rapfi", 2, 3, "40"),
             move("caro", 10, 9), move("rapfi", 2, 4, "400"), move("caro", 0, 0),
             move("rapfi", 2, 5, "+M3")]
    record = game(0, moves, "rapfi")
    record["opening"] = [[7, 7], [11, 11], [8, 7]]
    assert losses.main([str(write(tmp_path, record)), "--name", "caro", "--prove", "1000",
                        "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "caro: 1 games, 1 lost" in out
    assert "turning moves (a forced win claimed right after one of caro's moves" in out
    assert "proves the opponent's win after 1 of 1 turning moves" in out


def test_the_brain_asked_again_and_the_judge_are_counted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    brain = f"{sys.executable} {toy_brain.__file__}"
    log = write(tmp_path, LOST)
    # The brains play the first empty cell, (0, 0): the turning move itself.
    assert losses.main([str(log), "--name", "caro",
                        "--again", f"{brain} say=0", "--again-turn", "0.1",
                        "--judge", f"{brain} say=-M7", "--judge-turn", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "asked again at 0.1 s: another move at 0 of 1" in out
    assert "already a forced loss at 1 of 1, a move that holds at 0" in out
    assert "where already lost: asked again, the same move at 1, another at 0" in out


def test_logs_without_the_brain_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        losses.main([str(write(tmp_path, LOST)), "--name", "someone"])
