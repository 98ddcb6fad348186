"""`caro arena`: rating maths, scheduling, known tournaments and reproducibility."""

from __future__ import annotations

import argparse
import math
import random
import sys

import pytest

from engine import Board, Mark, Rule
from engine.game.notation import parse_size
from engine.game.openings import Opening, OpeningState, Side
from engine.game.types import Cell
from engine.programs import COMMANDS
from engine.programs.arena import (
    BrainPlayer,
    GameResult,
    LevelPlayer,
    MonteCarloPlayer,
    RandomPlayer,
    add_arguments,
    elo_estimate,
    elo_from_score,
    format_report,
    pairwise,
    parse_player,
    play_game,
    player_name,
    run,
    run_games,
    schedule,
    standings,
)


def first_legal(board: Board, rng: random.Random) -> Cell:
    """Always the first empty cell in row-major order."""
    return next(iter(board.legal_moves))


def greedy(board: Board, rng: random.Random) -> Cell:
    """Wins when it can, else blocks the first cell where the opponent would win, else the
    first empty cell."""
    moves = list(board.legal_moves)
    for mark in (board.turn, board.turn.other):
        for cell in moves:
            if completes_line(board, cell, mark):
                return cell
    return moves[0]


def completes_line(board: Board, cell: Cell, mark: Mark) -> bool:
    """Would a stone of `mark` on the empty `cell` make k in a row (freestyle)?"""
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            r, c = cell[0] + sign * dr, cell[1] + sign * dc
            while 0 <= r < board.rows and 0 <= c < board.cols and board[r, c] is mark:
                run += 1
                r, c = r + sign * dr, c + sign * dc
        if run >= board.k:
            return True
    return False


first_legal.name = "first"  # type: ignore[attr-defined]
greedy.name = "greedy"  # type: ignore[attr-defined]


def result(x: str, o: str, winner: Mark | None, index: int = 0) -> GameResult:
    return GameResult(pair=(0, 1), index=index, x=x, o=o, winner=winner, text="",
                      move_times={x: (0.001,), o: (0.002,)})


# ------------------------------------------------------------------------------ rating maths
def test_elo_from_score_known_values() -> None:
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_from_score(10 / 11) == pytest.approx(400.0)
    for bad in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="strictly between"):
            elo_from_score(bad)


def test_elo_estimate_half_and_half() -> None:
    scores = [1.0, 0.0] * 10
    elo, err = elo_estimate(scores)
    assert elo == 0.0
    half = 1.959963984540054 * 0.5 / math.sqrt(20)
    expected = (elo_from_score(0.5 + half) - elo_from_score(0.5 - half)) / 2
    assert err == pytest.approx(expected)
    assert err == pytest.approx(163.3, abs=0.1)


def test_elo_estimate_draws_narrow_the_error_bar() -> None:
    _, decisive = elo_estimate([1.0, 0.0] * 10)
    elo, drawn = elo_estimate([0.5] * 20)
    assert elo == 0.0
    assert drawn == 0.0  # identical results: no spread at all
    mixed_elo, mixed = elo_estimate([1.0, 0.5, 0.5, 0.5] * 5)
    assert mixed_elo == pytest.approx(elo_from_score(0.625))
    assert 0 < mixed < decisive


def test_elo_estimate_clips_sweeps_to_finite_values_with_an_error_bar() -> None:
    elo, err = elo_estimate([1.0] * 10)
    assert elo == pytest.approx(elo_from_score(1 - 0.5 / 11))
    assert 500 < elo < 550  # as if one more game had been drawn: 10.5 of 11
    assert err > 50
    low, low_err = elo_estimate([0.0] * 10)
    assert low == pytest.approx(-elo)
    assert low_err == pytest.approx(err)
    with pytest.raises(ValueError, match="no games"):
        elo_estimate([])


def test_standings_order_and_counts() -> None:
    results = [
        result("a", "b", Mark.X), result("b", "a", Mark.O), result("a", "b", None),
        result("c", "a", None), result("a", "c", Mark.O), result("b", "c", Mark.X),
    ]
    table = standings(results, ["b", "c", "a"], anchor="b")
    assert [s.name for s in table] == ["a", "c", "b"]
    a, c, b = table
    assert (a.games, a.wins, a.draws, a.losses) == (5, 2, 2, 1)
    assert a.score == pytest.approx(3 / 5)
    assert (b.wins, b.draws, b.losses) == (1, 1, 2)
    assert (c.wins, c.draws, c.losses) == (1, 1, 1)
    assert a.elo > c.elo == 0.0 > b.elo
    assert b.anchor_elo == 0.0
    assert a.anchor_elo == pytest.approx(elo_estimate([1.0, 1.0, 0.5])[0])
    assert a.move_count == 5
    matrix = pairwise(results, ["a", "b", "c"])
    assert matrix["a", "b"] == pytest.approx(5 / 6)
    assert matrix["b", "a"] == pytest.approx(1 / 6)
    assert matrix["c", "b"] == 0.0


# ------------------------------------------------------------------------------ tournaments
def test_greedy_beats_first_legal_with_colours_alternated() -> None:
    # 3x3: with X, greedy wins (first legal never blocks); with O it holds a draw.
    specs = schedule([first_legal, greedy], rows=3, cols=3, k=3, rule=Board().rule, games=4)
    assert [(s.x, s.o) for s in specs] == [(first_legal, greedy), (greedy, first_legal)] * 2
    results = run_games(specs)
    assert [(r.x, r.o, r.winner) for r in results] == [
        ("first", "greedy", None), ("greedy", "first", Mark.X),
    ] * 2
    table = {s.name: s for s in standings(results, ["first", "greedy"])}
    assert (table["greedy"].wins, table["greedy"].draws, table["greedy"].losses) == (2, 2, 0)
    assert (table["first"].wins, table["first"].draws, table["first"].losses) == (0, 2, 2)
    assert results[1].text == "3x3 k3 freestyle A1 B1 C1 A2 B2 C2 A3"


def test_colour_alone_decides_2x2() -> None:
    # On 2x2 with k=2 any two stones make a line, so X wins every game on its second move.
    specs = schedule([first_legal, RandomPlayer()], rows=2, cols=2, k=2, rule=Board().rule, games=6)
    results = run_games(specs)
    assert all(r.winner is Mark.X and len(r.text.split()) == 6 for r in results)
    table = {s.name: (s.wins, s.draws, s.losses) for s in standings(results, ["first", "random"])}
    assert table == {"first": (3, 0, 3), "random": (3, 0, 3)}


def test_same_seed_same_games_in_any_process_layout() -> None:
    players = [RandomPlayer(), MonteCarloPlayer(playouts=8, name="mc8")]
    kwargs = {"rows": 4, "cols": 4, "k": 3, "rule": Board().rule, "games": 4, "openings": 2}
    one = run_games(schedule(players, seed=11, **kwargs))  # type: ignore[arg-type]
    again = run_games(schedule(players, seed=11, **kwargs), jobs=2)  # type: ignore[arg-type]
    other = run_games(schedule(players, seed=12, **kwargs))  # type: ignore[arg-type]
    assert [(r.x, r.o, r.text) for r in one] == [(r.x, r.o, r.text) for r in again]
    assert [r.text for r in one] != [r.text for r in other]


def test_openings_are_shared_by_each_colour_swapped_pair() -> None:
    players = [first_legal, greedy]
    specs = schedule(players, rows=9, cols=9, k=5, rule=Board().rule, games=6, seed=3, openings=3)
    openings = [s.opening for s in specs]
    assert openings[0] == openings[1] and openings[2] == openings[3]
    assert len({openings[0], openings[2], openings[4]}) == 3
    for opening in openings:
        assert len(opening) == 3 and len(set(opening)) == 3
        assert all(2 <= r <= 6 and 2 <= c <= 6 for r, c in opening)
    game = play_game(specs[0])
    assert game.text.split()[3:6] == [Board(9, 9).move_name(c) for c in openings[0]]


def test_schedule_refuses_bad_tournaments() -> None:
    rule = Board().rule
    with pytest.raises(ValueError, match="two players"):
        schedule([first_legal], rows=3, cols=3, k=3, rule=rule, games=2)
    with pytest.raises(ValueError, match="different names"):
        schedule([RandomPlayer(), RandomPlayer()], rows=3, cols=3, k=3, rule=rule, games=2)
    with pytest.raises(ValueError, match="at least 1"):
        schedule([first_legal, greedy], rows=3, cols=3, k=3, rule=rule, games=0)


def test_parse_player_and_size() -> None:
    mc = parse_player("mc@200", mc_playouts=50)
    assert isinstance(mc, MonteCarloPlayer) and mc.playouts == 200 and mc.name == "mc@200"
    assert parse_player("MC", mc_playouts=50) == MonteCarloPlayer(playouts=50, name="mc")
    assert parse_player("random") == RandomPlayer()
    for bad, message in (("mc@0", "mc@PLAYOUTS"), ("foo", "unknown player"), ("random@3", "no @")):
        with pytest.raises(ValueError, match=message):
            parse_player(bad)
    assert parse_size("9x9").with_k(5) == (9, 9, 5)
    assert parse_size("7").with_k(5) == (7, 7, 5)
    assert parse_size("6X8").with_k(5) == (6, 8, 5)
    with pytest.raises(ValueError, match="like 15x15"):
        parse_size("nine")


def test_report_has_standings_matrix_and_times() -> None:
    results = [result("a", "b", Mark.X), result("b", "a", None)]
    text = format_report(results, ["a", "b"], anchor="b")
    header = text.splitlines()[0].split()
    assert header == ["player", "games", "score%", "W/D/L", "Elo", "±95%", "vs", "b", "±95%",
                      "moves", "ms/move", "p95", "ms", "max", "ms"]
    first = text.splitlines()[1].split()
    assert first[:4] == ["a", "2", "75.0", "1/1/0"]
    assert "score % of row against column:" in text
    assert text.splitlines()[-1].split() == ["b", "25", "-"]
    even = format_report([result("a", "b", Mark.X), result("b", "a", Mark.X)], ["a", "b"])
    assert [line.split()[4] for line in even.splitlines()[1:3]] == ["+0", "+0"]  # never "-0"


def test_cli_runs_a_small_tournament(capsys: pytest.CaptureFixture[str]) -> None:
    assert COMMANDS["arena"][0] == "engine.programs.arena"
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--size", "4x4", "--k", "3", "--levels", "random,mc@5", "--games",
                              "2", "--jobs", "1", "--seed", "4"])
    assert run(args) == 0
    out, err = capsys.readouterr()
    assert "4x4 k3 freestyle, 2 games per pair" in out
    assert "vs random" in out
    assert "[2/2" in err
    bad = parser.parse_args(["--levels", "random,nobody"])
    assert run(bad) == 2
    assert "unknown player 'nobody'" in capsys.readouterr().err


def test_node_limited_levels_replay_the_same_games() -> None:
    players = [parse_player("normal", node_limit=150), parse_player("hard", node_limit=150)]
    assert isinstance(players[1], LevelPlayer) and players[1].node_limit == 150
    kwargs = {"rows": 5, "cols": 5, "k": 4, "rule": Board().rule, "games": 2, "seed": 5,
              "openings": 2}
    one = run_games(schedule(players, **kwargs))  # type: ignore[arg-type]
    two = run_games(schedule(players, **kwargs), jobs=2)  # type: ignore[arg-type]
    assert [(r.x, r.o, r.text, r.winner) for r in one] == [(r.x, r.o, r.text, r.winner) for r in two]


def test_level_entries_with_their_own_time_limit() -> None:
    player = parse_player("Hard@0.2", time_limit=1.0, node_limit=None)
    assert player == LevelPlayer(level="hard", time_limit=0.2, name="hard@0.2")
    assert parse_player("normal", time_limit=1.0) == LevelPlayer("normal", 1.0, None, "normal")
    for bad in ("hard@0", "hard@-1", "hard@soon", "hard@inf"):
        with pytest.raises(ValueError, match="LEVEL@SECONDS"):
            parse_player(bad)


def crashes_on_third_move(board: Board, rng: random.Random) -> Cell:
    if board.ply >= 4:
        raise RuntimeError("search blew up")
    return first_legal(board, rng)


crashes_on_third_move.name = "crashy"  # type: ignore[attr-defined]


def cheats(board: Board, rng: random.Random) -> Cell:
    return (0, 0)  # taken after the first move


cheats.name = "cheat"  # type: ignore[attr-defined]


def test_a_failing_player_abandons_only_its_games() -> None:
    players = [greedy, crashes_on_third_move, cheats]
    results = run_games(schedule(players, rows=3, cols=3, k=3, rule=Board().rule, games=2))
    failed = [r for r in results if r.error is not None]
    assert len(failed) == 6  # every game with crashy or cheat, whoever fails first
    crash = next(r for r in results if r.x == "greedy" and r.o == "crashy")
    assert crash.error == (
        "crashy failed in 3x3 k3 freestyle A1 B1 C1 A2 B2: RuntimeError: search blew up"
    )
    cheat = next(r for r in results if r.x == "greedy" and r.o == "cheat")
    assert cheat.error is not None and "cheat failed in 3x3 k3 freestyle A1:" in cheat.error
    assert "A1 is already taken" in cheat.error
    assert standings(results, ["greedy", "crashy", "cheat"]) == []
    report = format_report(results, ["greedy", "crashy", "cheat"])
    assert "6 game(s) abandoned and not counted:" in report


def test_a_piskvork_brain_plays_in_the_arena_as_brain_command() -> None:
    command = f"{sys.executable} -m engine pbrain --level normal"
    brain = parse_player(f"brain:{command}", time_limit=0.3)
    assert isinstance(brain, BrainPlayer)
    assert brain.command == (sys.executable, "-m", "engine", "pbrain", "--level", "normal")
    assert brain.turn_time == 0.3 and brain.name == f"brain:{command}"
    players = [LevelPlayer("easy", time_limit=0.3), brain]
    specs = schedule(players, rows=7, cols=7, k=5, rule=Rule.FREESTYLE, games=2, seed=3)
    results = run_games(specs, jobs=1)
    assert [r.error for r in results] == [None, None]
    assert all(Board.from_text(r.text).is_over() for r in results)
    assert {r.x for r in results} == {"easy", brain.name}  # each colour once


# ------------------------------------------------------------------------------ opening rules
def test_a_swap2_tournament_plays_each_opening_through_and_scores_the_colours_it_gave() -> None:
    players = [LevelPlayer("easy", time_limit=0.05), RandomPlayer()]
    specs = schedule(players, rows=9, cols=9, k=5, rule=Rule.FREESTYLE, games=4, seed=2,
                     opening_rule=Opening.SWAP2)
    results = run_games(specs)
    assert all(r.error is None for r in results)
    for spec, r in zip(specs, results, strict=True):
        assert r.opening.split()[0] == "swap2"
        decisions = tuple(r.opening.split()[1:])
        board = Board.from_text(r.text)
        state = OpeningState(Opening.SWAP2, board, decisions)
        assert state.done
        # The first player of the spec ends up with the colour its choices gave it.
        assert (r.x if state.x_side is Side.FIRST else r.o) == player_name(spec.x)
    assert sum(len(r.move_times.get("random", ())) for r in results) > 0


def test_the_cli_takes_an_opening_and_refuses_one_the_board_cannot_have(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--size", "9x9", "--levels", "easy@0.05,random", "--games", "2",
                              "--jobs", "1", "--opening", "SWAP"])
    assert run(args) == 0
    assert "opening swap, 2 games" in capsys.readouterr().out
    rif = parser.parse_args(["--size", "9x9", "--levels", "easy,random", "--opening", "rif"])
    assert run(rif) == 2
    assert "renju on 15x15" in capsys.readouterr().err
    both = parser.parse_args(["--levels", "easy,random", "--opening", "swap", "--openings", "2"])
    assert run(both) == 2
    assert "do not mix" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser.parse_args(["--opening", "swap3"])
    assert "unknown opening 'swap3'" in capsys.readouterr().err
