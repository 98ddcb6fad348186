"""bench.paired: two logs of the same games compared game by game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.paired import main, pair


def game(index: int, winner: str | None, black: str = "caro",
         opening: tuple[tuple[int, int], ...] = ((7, 7), (7, 8), (8, 8))) -> dict[str, object]:
    return {"index": index, "size": 15, "rule": "freestyle", "opening": [list(c) for c in opening],
            "black": black, "white": "rapfi" if black == "caro" else "caro", "winner": winner,
            "reason": "five", "moves": []}


def test_pairs_games_by_number_and_scores_the_difference_of_each_pair() -> None:
    first = [game(0, "caro"), game(1, "caro", black="rapfi"), game(2, None), game(3, "rapfi")]
    second = [game(0, "rapfi"), game(1, "caro", black="rapfi"), game(2, "rapfi")]
    result = pair(first, second, "caro")
    assert result.games == 3  # game 3 has no partner
    assert result.first == pytest.approx(2.5 / 3)
    assert result.second == pytest.approx(1 / 3)
    assert result.difference == pytest.approx(0.5)
    assert (result.better, result.worse) == (2, 0)
    assert result.margin > 0


def test_refuses_logs_whose_games_of_one_number_differ() -> None:
    with pytest.raises(ValueError, match="another game"):
        pair([game(0, "caro")], [game(0, "caro", black="rapfi")], "caro")
    with pytest.raises(ValueError, match="another game"):
        pair([game(0, "caro")], [game(0, "caro", opening=((1, 1), (2, 2), (3, 3)))], "caro")


def test_the_command_prints_both_scores_and_says_when_nothing_pairs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    a.write_text("".join(json.dumps(game(i, "caro")) + "\n" for i in range(4)))
    b.write_text("".join(json.dumps(game(i, "rapfi" if i % 2 else "caro")) + "\n"
                         for i in range(4)))
    c.write_text(json.dumps(game(9, "caro")) + "\n")
    assert main([str(a), str(b), "--name", "caro"]) == 0
    out = capsys.readouterr().out
    assert "4 games paired" in out and "100.0%" in out and "50.0%" in out
    assert "+50.0" in out
    assert main([str(a), str(c), "--name", "caro"]) == 2
    assert "no game" in capsys.readouterr().err
