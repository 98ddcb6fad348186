"""bench.match against two small Gomocup brains (tests.bench.toy_brain): each plays the first
empty cell of the board in reading order (the one moving first wins on a diagonal), and notes
its start."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench import match
from engine.game.types import Rule
from tests.bench import toy_brain

BRAIN = f"{sys.executable} {toy_brain.__file__}"


def brains(tmp_path: Path) -> tuple[list[str], Path]:
    starts = tmp_path / "starts.txt"
    args = [f"--{side}={name}={BRAIN} starts={starts}"
            for side, name in (("first", "one"), ("second", "two"))]
    return args, starts


def run(tmp_path: Path, *extra: str) -> tuple[list[dict[str, object]], int]:
    args, starts = brains(tmp_path)
    log = tmp_path / "games.jsonl"
    assert match.main([*args, "--games", "6", "--jobs", "2", "--turn", "5", "--stones", "2",
                       "--size", "7", "--log", str(log), *extra]) == 0
    games = [json.loads(line) for line in log.read_text().splitlines()]
    return games, len(starts.read_text().split())


def test_kept_brains_are_started_once_per_job_and_play_the_same_games(tmp_path: Path) -> None:
    fresh, started = run(tmp_path)
    assert len(fresh) == 6
    assert {(g["size"], g["rule"]) for g in fresh} == {(7, "freestyle")}  # for bench.losses
    assert started == 12  # by default each game starts its own two brains
    (tmp_path / "games.jsonl").unlink()
    (tmp_path / "starts.txt").unlink()
    kept, started = run(tmp_path, "--keep-brains")
    assert started == 4  # two jobs, two brains each
    # A RESTART leaves nothing of the last game behind: the same games, move for move.
    by_index = {g["index"]: g for g in fresh}
    for game in kept:
        assert [m["move"] for m in game["moves"]] == [  # type: ignore[union-attr]
            m["move"] for m in by_index[game["index"]]["moves"]]  # type: ignore[index]
        assert game["winner"] == by_index[game["index"]]["winner"]


def test_a_kept_brain_that_exits_is_started_again_for_the_next_game(tmp_path: Path) -> None:
    args, starts = brains(tmp_path)
    kept = match.Kept()
    brain = match.parse_brain(args[0].split("=", 1)[1])
    other = match.parse_brain(args[1].split("=", 1)[1])
    named = {brain.name: brain, other.name: other}
    game = match.play(match.Game(0, (), brain.name, other.name), named, 7,
                      match.Rule.FREESTYLE, 5.0, 0.5, kept)
    assert game.winner == brain.name
    for proc in kept._mine().values():
        proc.proc.kill()
        proc.proc.wait()
    again = match.play(match.Game(1, (), other.name, brain.name), named, 7,
                       match.Rule.FREESTYLE, 5.0, 0.5, kept)
    kept.close()
    assert again.winner == other.name
    assert len(starts.read_text().split()) == 4


def test_info_lines_asked_for_reach_their_brain_each_game(tmp_path: Path) -> None:
    heard = {name: tmp_path / f"{name}.txt" for name in ("one", "two")}
    assert match.main([
        f"--first=one={BRAIN} infos={heard['one']}",
        f"--second=two={BRAIN} infos={heard['two']}",
        "--info", "two=STRENGTH 60", "--games", "2", "--jobs", "1", "--turn", "5",
        "--stones", "2", "--size", "7", "--keep-brains"]) == 0
    one = heard["one"].read_text().splitlines()
    two = heard["two"].read_text().splitlines()
    assert "rule 0" in one and "STRENGTH 60" not in one
    assert two.count("STRENGTH 60") == 2  # once a game, after the standard lines
    assert two.index("STRENGTH 60") > two.index("rule 0")


def test_info_for_a_brain_not_in_the_match_or_of_two_lines_is_refused(tmp_path: Path) -> None:
    args, _ = brains(tmp_path)
    with pytest.raises(SystemExit):
        match.main([*args, "--info", "three=STRENGTH 60"])
    with pytest.raises(SystemExit):  # one INFO line, never a second command
        match.main([*args, "--info", "two=STRENGTH 60\nEND"])


def test_openings_written_once_are_read_back_by_the_next_match(tmp_path: Path) -> None:
    stored = tmp_path / "openings.json"
    first, _ = run(tmp_path, "--openings", str(stored))
    assert len(json.loads(stored.read_text())) == 3
    stored.write_text(json.dumps([[[0, 0], [6, 6]]] * 3))  # the file, not a search, decides
    (tmp_path / "games.jsonl").unlink()
    again, _ = run(tmp_path, "--openings", str(stored), "--keep-brains")
    assert {tuple(map(tuple, g["opening"])) for g in again} == {((0, 0), (6, 6))}  # type: ignore[arg-type]
    assert {tuple(map(tuple, g["opening"])) for g in first} != {((0, 0), (6, 6))}  # type: ignore[arg-type]


def test_an_openings_file_with_too_few_is_refused(tmp_path: Path) -> None:
    stored = tmp_path / "openings.json"
    stored.write_text(json.dumps([[[3, 3]]]))
    with pytest.raises(SystemExit, match="holds 1 openings; 3 are needed"):
        run(tmp_path, "--openings", str(stored))


def test_openings_in_a_given_square_keep_every_stone_inside_it_and_the_default_ones_as_they_were(
) -> None:
    default = match.openings(20, 15, Rule.FREESTYLE, 3, 1, None, 0)
    assert default == match.openings(20, 15, Rule.FREESTYLE, 3, 1, None, 0, None)
    wide = match.openings(20, 15, Rule.FREESTYLE, 3, 1, None, 0, 11)
    assert all(2 <= r <= 12 and 2 <= c <= 12 for cells in wide for r, c in cells)
    assert any(not (5 <= r <= 9 and 5 <= c <= 9) for cells in wide for r, c in cells)
    assert wide != default


@pytest.mark.parametrize("square", ["4", "17", "1"])
def test_a_square_that_is_even_too_big_or_too_small_for_the_stones_is_refused(
    tmp_path: Path, square: str
) -> None:
    with pytest.raises(SystemExit):
        run(tmp_path, "--square", square)
