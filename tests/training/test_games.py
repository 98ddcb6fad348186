"""training.games: the positions of bench.match's games, labelled for the side to move."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bench.losses import Value
from engine.game.types import Rule
from training import games, values

OPENING = [[7, 7], [0, 0], [14, 14]]  # X, O, X: O moves first after it


def _line(moves: list[tuple[str, tuple[int, int]]], winner: str | None, reason: str) -> str:
    return json.dumps({
        "index": 0, "size": 15, "rule": "freestyle", "opening": OPENING, "black": "b", "white": "a",
        "winner": winner, "reason": reason,
        "moves": [{"by": by, "move": f"{c},{r}", "seconds": 0.01, "said": []} for by, (r, c) in moves]})


# "b" (O) makes five along the top row while "a" (X) builds a four too late.
WON_BY_FIRST_MOVER = [("b", (0, 1)), ("a", (7, 8)), ("b", (0, 2)), ("a", (7, 9)), ("b", (0, 3)),
                      ("a", (7, 10)), ("b", (0, 4))]


def test_positions_are_labelled_by_the_result_for_the_side_to_move(tmp_path) -> None:
    log, out = tmp_path / "match.jsonl", tmp_path / "games.npz"
    log.write_text(_line(WON_BY_FIRST_MOVER, "b", "five") + "\n")
    assert games.main([str(log), "--brain", "a", "--jobs", "1", "--out", str(out)]) == 0
    data = dict(np.load(out))
    # The last position, where O can make five at once, is left out.
    assert list(data["ply"]) == [3, 4, 5, 6, 7, 8]
    assert list(data["result"]) == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert list(data["brain"]) == [False, True, False, True, False, True]
    assert np.isnan(data["search"]).all()
    assert str(data["rule"]) == "freestyle"
    # The positions read back from the file's moves are the game's, as the other tools read them.
    cells = [r * 15 + c for r, c in [tuple(s) for s in OPENING] + [m for _, m in WON_BY_FIRST_MOVER]]
    for ply, moves in zip(data["ply"], values.positions(data), strict=True):
        assert list(moves) == cells[:ply]


def test_a_drawn_game_is_half_a_point_and_a_timed_out_one_is_left_out(tmp_path) -> None:
    log, out = tmp_path / "match.jsonl", tmp_path / "games.npz"
    drawn = _line(WON_BY_FIRST_MOVER[:2], None, "draw")
    timed_out = _line(WON_BY_FIRST_MOVER[:3], "b", "a: no answer in time")
    log.write_text(f"{timed_out}\n\n{drawn}\n")
    assert games.main([str(log), "--jobs", "1", "--out", str(out)]) == 0
    data = np.load(out)
    assert list(data["result"]) == [0.5, 0.5]
    assert list(data["game"]) == [0, 0] and len(data["game_seed"]) == 1
    assert "brain" not in data.files


@pytest.mark.parametrize(("line", "says"), [
    ("not json", "line 1: not a game"),
    (_line([("b", (0, 1))], "a", "five"), "line 1: won by 'a'"),
    (_line([("b", (0, 15))], "b", "five"), "line 1: not a move of the board"),
    (json.dumps({"size": 19}), "only 15x15"),
    (_line([("b", (7, 7))], "b", "five"), "line 1: a cell played twice"),
])
def test_a_line_that_is_no_game_of_the_board_is_refused(tmp_path, capsys, line, says) -> None:
    log = tmp_path / "match.jsonl"
    log.write_text(line + "\n")
    with pytest.raises(SystemExit):
        games.main([str(log), "--out", str(tmp_path / "out.npz")])
    assert says in capsys.readouterr().err


def test_a_log_of_only_unfinished_games_is_refused(tmp_path, capsys) -> None:
    log = tmp_path / "match.jsonl"
    log.write_text(_line(WON_BY_FIRST_MOVER[:1], "a", "b: crashed") + "\n")
    with pytest.raises(SystemExit):
        games.main([str(log), "--out", str(tmp_path / "out.npz")])
    assert "no game that ended on the board" in capsys.readouterr().err


def _saying(moves: list[tuple[str, tuple[int, int]]], said: dict[int, str]) -> list[dict[str, object]]:
    return [{"by": by, "move": f"{c},{r}", "seconds": 0.01,
             "said": [f"MESSAGE Speed 1K | Depth 3-5 | Eval {said[i]} | Node 1K", "MESSAGE Bestline A1"]
             if i in said else []} for i, (by, (r, c)) in enumerate(moves)]


def test_a_brains_said_values_become_the_search_targets_for_both_sides(tmp_path) -> None:
    log, out = tmp_path / "match.jsonl", tmp_path / "games.npz"
    record = json.loads(_line(WON_BY_FIRST_MOVER, "b", "five"))
    record["moves"] = _saying(WON_BY_FIRST_MOVER, {0: "150", 2: "+M3"})
    log.write_text(json.dumps(record) + "\n")
    assert games.main([str(log), "--values", "b", "--value-scale", "150", "--jobs", "1",
                       "--out", str(out)]) == 0
    search = np.load(out)["search"]
    # b's value where it moved, one minus it where its move left the other side to move; none
    # where it said nothing (its move at ply 7, and a's reply after it).
    mine = 1.0 / (1.0 + np.exp(-1.0))
    np.testing.assert_allclose(search, [mine, 1.0 - mine, 1.0, 0.0, np.nan, np.nan])


def test_the_value_scale_is_the_one_that_best_predicts_the_results() -> None:
    # +100 from b, who then won three games of four: sigmoid(100 / s) = 0.75 at s = 91.
    played = [games.Game((0,), 0, score, ("b",), Rule.FREESTYLE, (Value(points=100),))
              for score in (1.0, 1.0, 1.0, 0.0)]
    scale, loss, count = games.value_scale(played, "b")
    assert (scale, count) == (90.0, 4)
    assert loss == pytest.approx(-(0.75 * np.log(0.75) + 0.25 * np.log(0.25)), abs=1e-3)


def test_values_asked_of_a_brain_that_said_none_are_refused(tmp_path, capsys) -> None:
    log = tmp_path / "match.jsonl"
    log.write_text(_line(WON_BY_FIRST_MOVER, "b", "five") + "\n")
    with pytest.raises(SystemExit):
        games.main([str(log), "--values", "a", "--out", str(tmp_path / "out.npz")])
    assert "a said no values" in capsys.readouterr().err
