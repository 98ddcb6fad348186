"""The solver against published m,n,k results, a plain minimax, and every line of tic-tac-toe.

Published values. The first two sources are quoted as a public research note compiled them
(Wikipedia and the paper were not fetched directly from here); the third was read directly.
- Wikipedia "m,n,k-game", specific results: "(3,3,3) is a draw"; "(m,n,3) is a win if m >= 3
  and n >= 4 or m >= 4 and n >= 3"; "(5,5,4) is a draw"; "(6,5,4) is a win".
  https://en.wikipedia.org/wiki/M,n,k-game
- J. W. H. M. Uiterwijk, "Solving Strong and Weak 4-in-a-Row", IEEE CoG 2019: Theorem 2, a
  game with m < k or n < k is a draw (pairing strategy); Table I, 4x4, 4x5, 4x6 and 5x5 with
  k = 4 are draws and 5x6 is the smallest first-player win.
- D. Friedman, "Optimal mnk-games" (2020): 2x5 k3 a draw; (3,4,3) won on the first player's 4th
  stone (ply 7), (4,4,3) on the 3rd (ply 5); k = 2 wins on 2x3 and larger.
  http://dfriedman.org/ramblings/2020/12/31/optimal-mnk.html
k = 1 and k = 2 otherwise follow from the rules: the first stone wins with k = 1; with k = 2 the
first player wins unless the board is 1x2 or 2x1, where each side gets one stone.
(6,5,4) is still beyond a test's time; (5,5,4) is proven in tests/engine/solve/test_solver_core.py.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
from collections.abc import Iterator

import pytest

from engine import Board, Mark, Rule
from engine.programs import COMMANDS
from engine.programs import solve as solver_cli
from engine.solve import solver
from engine.solve.solver import SolveResult, SolveTimeout, analyse, perfect_move, solve
from testkit.rules import K_RULES

Cell = tuple[int, int]


# ---------------------------------------- reference minimax
def minimax_scores(board: Board, memo: dict[bytes, int] | None = None) -> dict[Cell, int]:
    """Distance score of every legal move for the side to move, by plain memoised minimax on Board.

    Score of a game ending at ply p: cells + 1 - p for the winner, its negation for the loser,
    0 for a draw (the same scale as the solver, so fastest win / slowest loss compare directly).
    `memo` (position -> score) may be shared between calls on boards of one spec.
    """
    cells = board.rows * board.cols
    if memo is None:
        memo = {}

    def value(b: Board) -> int:
        key = bytes(b.grid)
        if key in memo:
            return memo[key]
        best = -cells - 2
        for cell in list(b.legal_moves):
            best = max(best, move_score(b, cell))
        memo[key] = best
        return best

    def move_score(b: Board, cell: Cell) -> int:
        b.push(cell)
        outcome = b.outcome()
        if outcome is None:
            score = -value(b)
        elif outcome.winner is None:
            score = 0
        else:
            score = cells + 1 - b.ply
        b.pop()
        return score

    work = board.copy()
    return {cell: move_score(work, cell) for cell in list(work.legal_moves)}


def expected(board: Board, memo: dict[bytes, int] | None = None) -> tuple[int, int, list[Cell]]:
    """(value, plies, best moves in row-major order) by the reference minimax."""
    scores = minimax_scores(board, memo)
    best = max(scores.values())
    cells = board.rows * board.cols
    if best == 0:
        value, plies = 0, cells - board.ply
    else:
        value = 1 if best > 0 else -1
        plies = cells + 1 - abs(best) - board.ply
    return value, plies, sorted(c for c, s in scores.items() if s == best)


def random_position(
    rng: random.Random, rows: int, cols: int, k: int, rule: Rule, stones: int
) -> Board:
    """A game still in progress with `stones` stones, from random play (retries finished ones)."""
    while True:
        board = Board(rows, cols, k, rule)
        for _ in range(stones):
            if board.is_over():
                break
            board.push(rng.choice(list(board.legal_moves)))
        if not board.is_over() and board.ply == stones:
            return board


@pytest.fixture(autouse=True)
def fresh_tables() -> Iterator[None]:
    # Each test starts cold, so no test passes only because another one filled the tables.
    solver.clear_tables()
    yield
    solver.clear_tables()


# ---------------------------------------- published values
@pytest.mark.parametrize(
    ("rows", "cols", "k", "value", "plies"),
    [
        (1, 1, 1, 1, 1),
        (3, 3, 1, 1, 1),
        (1, 2, 2, 0, 2),
        (2, 1, 2, 0, 2),
        (2, 2, 2, 1, 3),
        (1, 3, 2, 1, 3),
        (3, 3, 2, 1, 3),
        (3, 3, 3, 0, 9),
        (2, 5, 3, 0, 10),  # m < k: pairing draw
        (3, 4, 3, 1, 7),
        (4, 3, 3, 1, 7),
        (4, 4, 3, 1, 5),
        (3, 5, 3, 1, None),
        (4, 5, 3, 1, None),
        (3, 5, 4, 0, 15),  # m < k: pairing draw
        (4, 4, 4, 0, 16),
        (4, 5, 4, 0, 20),
        (5, 4, 4, 0, 20),
    ],
)
def test_published_values_of_empty_boards(
    rows: int, cols: int, k: int, value: int, plies: int | None
) -> None:
    board = Board(rows, cols, k)
    result = analyse(board)
    assert result.value == value
    assert solve(board) == value
    if plies is not None:
        assert result.plies == plies
    assert result.best_move is not None and result.best_move in board.legal_moves


@pytest.mark.parametrize("rule", K_RULES)
def test_4x4_k4_is_a_draw_under_every_rule(rule: Rule) -> None:
    # No line can be longer than 4 and no line of 4 has an on-board end, so the rules coincide.
    result = analyse(Board(4, 4, 4, rule))
    assert (result.value, result.plies) == (0, 16)
    assert result.nodes > 0


def test_every_opening_of_4x4_k4_draws_and_perfect_move_may_play_any() -> None:
    board = Board(4, 4, 4)
    for cell in list(board.legal_moves):
        board.push(cell)
        assert solve(board) == 0, cell  # O, to move, holds the draw and can do no better
        board.pop()
    picked = {perfect_move(board, rng=random.Random(seed)) for seed in range(150)}
    assert picked == set(board.legal_moves)


# ---------------------------------------- against minimax
@pytest.mark.parametrize(
    ("rows", "cols", "k", "rule", "stones", "count"),
    [
        (3, 4, 3, Rule.FREESTYLE, 5, 30),
        (3, 4, 3, Rule.FREESTYLE, 3, 10),
        (3, 4, 3, Rule.EXACT, 4, 15),
        (4, 4, 3, Rule.FREESTYLE, 7, 15),
        (4, 4, 3, Rule.EXACT, 7, 15),
        (4, 4, 3, Rule.CARO, 7, 12),
        (3, 5, 3, Rule.CARO, 6, 12),
        (2, 6, 2, Rule.EXACT, 3, 10),
        (1, 7, 3, Rule.CARO, 2, 10),
    ],
)
def test_value_plies_and_moves_match_plain_minimax(
    rows: int, cols: int, k: int, rule: Rule, stones: int, count: int
) -> None:
    rng = random.Random(rows * 1000 + cols * 100 + k * 10 + stones)
    for _ in range(count):
        board = random_position(rng, rows, cols, k, rule, stones)
        before = board.text()
        value, plies, best = expected(board)
        assert solve(board) == value, board.text()
        result = analyse(board)
        assert (result.value, result.plies) == (value, plies), board.text()
        assert result.best_move in best, board.text()
        assert perfect_move(board) == result.best_move, board.text()
        # Every move perfect_move may pick is one of the minimax-best ones, and all can come up.
        picked = {perfect_move(board, rng=random.Random(seed)) for seed in range(40)}
        assert picked <= set(best), board.text()
        if len(best) <= 3:
            assert picked == set(best), board.text()
        assert board.text() == before


@pytest.mark.parametrize(
    ("text", "value", "plies", "seeds", "moves"),
    [
        # X has B2 C2 on row 2 with A2 and D2 free: either completes three now; X wins later
        # anyway.
        pytest.param(
            "4x4 k3 freestyle B2 A1 C2 D1", 1, 1, 20, {(1, 0), (1, 3)}, id="fastest-win"
        ),
        # O is lost, but blocking C1 drags the game to ply 11 where any other move loses at ply 5.
        pytest.param("4x4 k3 freestyle B1 B2 A1", -1, 8, 10, {(0, 2)}, id="slowest-loss"),
        # 1x7 k3 caro, X B1 C1, O A1: X threatens D1 (A1 is O's, E1 open). O may take D1, or take
        # E1 so that B1-C1-D1 would be blocked at both ends and not win. Both hold the draw.
        pytest.param(
            "1x7 k3 caro B1 A1 C1", 0, 4, 20, {(0, 3), (0, 4)}, id="caro-threat-stopped-far-end"
        ),
    ],
)
def test_perfect_move_picks_among_the_best_by_distance(
    text: str, value: int, plies: int, seeds: int, moves: set[Cell]
) -> None:
    board = Board.from_text(text)
    result = analyse(board)
    assert (result.value, result.plies) == (value, plies)
    assert {perfect_move(board, rng=random.Random(s)) for s in range(seeds)} == moves


# ---------------------------------------- tic-tac-toe exhaustively
def test_tic_tac_toe_perfect_move_never_loses_and_converts_every_win() -> None:
    """From EVERY reachable 3x3 position, perfect_move for the side to move, against every
    sequence of replies, ends with the best result minimax allows: a win where one is forced
    (in exactly the minimax number of plies), never a loss where a draw can be held."""
    reference: dict[bytes, tuple[int, int]] = {}
    minimax_memo: dict[bytes, int] = {}

    def ref(b: Board) -> tuple[int, int]:
        key = bytes(b.grid)
        if key not in reference:
            value, plies, _ = expected(b, minimax_memo)
            reference[key] = (value, plies)
        return reference[key]

    # outcomes[(position, solver mark)] = set of (winner, final ply) the solver's policy allows
    outcomes: dict[tuple[bytes, Mark], frozenset[tuple[Mark | None, int]]] = {}

    def play(b: Board, me: Mark) -> frozenset[tuple[Mark | None, int]]:
        outcome = b.outcome()
        if outcome is not None:
            return frozenset({(outcome.winner, b.ply)})
        key = (bytes(b.grid), me)
        if key in outcomes:
            return outcomes[key]
        result: set[tuple[Mark | None, int]] = set()
        moves = [perfect_move(b)] if b.turn is me else list(b.legal_moves)
        for cell in moves:
            b.push(cell)
            result |= play(b, me)
            b.pop()
        outcomes[key] = frozenset(result)
        return outcomes[key]

    visited: set[bytes] = set()

    def visit(b: Board) -> None:
        if b.is_over() or bytes(b.grid) in visited:
            return
        visited.add(bytes(b.grid))
        me = b.turn
        value, plies = ref(b)
        ends = play(b, me)
        their_wins = [p for winner, p in ends if winner is me.other]
        if value == 1:
            # Every line wins, and the opponent's best defence lasts exactly the minimax plies.
            assert all(winner is me for winner, _ in ends), (b.text(), ends)
            assert max(p for _, p in ends) == b.ply + plies, (b.text(), ends)
        elif value == 0:
            assert not their_wins, (b.text(), ends)
        else:
            # Lost anyway: the opponent's fastest win takes the full minimax number of plies.
            assert min(their_wins) == b.ply + plies, (b.text(), ends)
        for cell in list(b.legal_moves):
            b.push(cell)
            visit(b)
            b.pop()

    board = Board(3, 3, 3)
    visit(board)
    # Every position, not only the ones the solver reaches in its own games: tic-tac-toe has
    # 5,478 legal positions, 958 of them finished.
    assert len(visited) == 4520
    assert ref(Board(3, 3, 3)) == (0, 9)


def never_loses(b: Board, me: Mark, rng: random.Random) -> None:
    """perfect_move plays `me` (ties broken by rng) against every possible reply."""
    outcome = b.outcome()
    if outcome is not None:
        assert outcome.winner in (me, None), b.text()
        return
    moves = [perfect_move(b, rng=rng)] if b.turn is me else list(b.legal_moves)
    for cell in moves:
        b.push(cell)
        never_loses(b, me, rng)
        b.pop()


def test_tic_tac_toe_as_x_and_as_o_from_the_start_with_random_tie_breaks() -> None:
    for seed in range(3):
        never_loses(Board(3, 3, 3), Mark.X, random.Random(seed))
        never_loses(Board(3, 3, 3), Mark.O, random.Random(seed))


# ---------------------------------------- the rules on bitboards
@pytest.mark.parametrize("rule", K_RULES)
@pytest.mark.parametrize(
    ("rows", "cols", "k"), [(5, 5, 3), (6, 6, 4), (1, 7, 3), (7, 4, 2), (6, 7, 5)]
)
def test_bitboard_win_test_agrees_with_board(rows: int, cols: int, k: int, rule: Rule) -> None:
    geo = solver._geometry(rows, cols, k, rule)
    rng = random.Random(rows * cols * k)
    for _ in range(15):
        board = Board(rows, cols, k, rule)
        while not board.is_over():
            x = sum(1 << i for i, v in enumerate(board.grid) if v == 1)
            o = sum(1 << i for i, v in enumerate(board.grid) if v == 2)
            me, opp = (x, o) if board.turn is Mark.X else (o, x)
            for cell in list(board.legal_moves):
                board.push(cell)
                outcome = board.outcome()
                board_says = outcome is not None and outcome.winner is not None
                board.pop()
                assert solver._wins_at(geo, me, opp, cell[0] * cols + cell[1]) == board_says, (
                    board.text(),
                    cell,
                )
            board.push(rng.choice(list(board.legal_moves)))


# ---------------------------------------- budgets and big boards
def test_timeout_on_an_open_15x15_board_by_nodes() -> None:
    board = Board(15, 15, 5, Rule.CARO)
    board.push((7, 7))
    with pytest.raises(SolveTimeout) as info:
        perfect_move(board, node_limit=300)
    assert info.value.nodes == 301
    assert not isinstance(info.value, ValueError)
    assert board.text() == "15x15 k5 caro H8"


def test_timeout_on_an_open_15x15_board_by_time() -> None:
    with pytest.raises(SolveTimeout):
        solve(Board(15, 15, 5), time_limit=0.2)


def test_forced_results_are_proven_on_15x15() -> None:
    # X has an open four: X to move wins at once; O to move loses two plies later.
    board = Board.from_text("15x15 k5 freestyle E8 E1 F8 G1 G8 I1 H8")
    assert board.turn is Mark.O
    result = analyse(board, node_limit=1000)
    assert (result.value, result.plies) == (-1, 2)
    board.push_name("A15")
    result = analyse(board, node_limit=1000)
    assert (result.value, result.plies) == (1, 1)
    assert perfect_move(board, rng=random.Random(1), node_limit=1000) in {(7, 3), (7, 8)}


def test_table_overflow_keeps_answers_right(monkeypatch: pytest.MonkeyPatch) -> None:
    # The pure-Python search's tables (the compiled core has its own, tested below).
    monkeypatch.setattr(solver, "COMPILED_MAX_CELLS", 0)
    monkeypatch.setattr(solver, "MAX_TABLE_ENTRIES", 40)
    result = analyse(Board(4, 4, 3))
    assert (result.value, result.plies) == (1, 5)
    result = analyse(Board(3, 4, 3))
    assert (result.value, result.plies) == (1, 7)
    assert all(len(young) <= 20 and len(old) <= 20 for young, old in solver._TABLES.values())
    # The limit is per process: starting on another spec when over it drops the other tables.
    assert sum(len(young) + len(old) for young, old in solver._TABLES.values()) > 40
    result = analyse(Board(3, 5, 3))
    assert result.value == 1
    assert set(solver._TABLES) == {(3, 5, 3, Rule.FREESTYLE)}


# ---------------------------------------- API contract
def test_finished_game_is_a_value_error() -> None:
    board = Board.from_text("3x3 k3 freestyle A1 B1 A2 B2 A3")
    for call in (solve, analyse, perfect_move):
        with pytest.raises(ValueError, match="over"):
            call(board)  # type: ignore[operator]


@pytest.mark.parametrize(
    "limits",
    [
        {"time_limit": -1},
        {"time_limit": "1"},
        {"node_limit": 0},
        {"node_limit": 2.5},
        {"node_limit": True},
    ],
)
def test_bad_budgets_are_value_errors(limits: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="limit"):
        solve(Board(3, 3, 3), **limits)  # type: ignore[arg-type]


def test_result_fields_and_memo() -> None:
    board = Board(4, 4, 3)
    first = analyse(board)
    assert isinstance(first, SolveResult)
    assert first.nodes > 0 and first.seconds >= 0
    again = analyse(board)
    assert again.nodes == 0  # already solved in this process
    assert (again.value, again.plies) == (first.value, first.plies)
    assert again.best_move == first.best_move
    with pytest.raises(AttributeError):
        first.value = 0  # type: ignore[misc]


def test_perfect_move_is_reproducible_with_a_seed() -> None:
    board = Board(3, 3, 3)
    a = [perfect_move(board, rng=random.Random(7)) for _ in range(5)]
    b = [perfect_move(board, rng=random.Random(7)) for _ in range(5)]
    assert a == b
    # Every opening draws; without an rng the fixed order's first (the centre) is played.
    assert perfect_move(board) == (1, 1)
    assert analyse(Board(4, 4, 4)).best_move == (1, 1)  # the inner cells are on the most lines


# ---------------------------------------- caro solve
def run_cli(*argv: str) -> tuple[int, str, str]:
    """`caro solve ARGV...`, without importing the other subcommands' modules."""
    assert COMMANDS["solve"][0] == "engine.programs.solve"
    parser = argparse.ArgumentParser(prog="caro solve")
    solver_cli.add_arguments(parser)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = solver_cli.run(parser.parse_args(list(argv)))
    return code, out.getvalue(), err.getvalue()


def test_cli_solves_tic_tac_toe_and_4x4_k3() -> None:
    code, out, _ = run_cli("3x3", "3")
    assert code == 0
    assert "3x3 k3 freestyle: draw" in out
    assert "plies to the end: 9" in out
    code, out, _ = run_cli("4x4", "3", "--rule", "exact")
    assert code == 0 and "first player wins" in out and "plies to the end: 5" in out


def test_cli_with_moves_speaks_for_the_side_to_move() -> None:
    code, out, _ = run_cli("3x3", "3", "--moves", "A1 B1 A2 B2")
    assert code == 0
    assert "X wins (X to move)" in out and "best move: A3" in out and "plies to the end: 1" in out
    code, out, _ = run_cli("4x4", "3", "--moves", "B2 A4 C2")
    assert code == 0 and "X wins (O to move)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("3y3", "3"), "write ROWSxCOLS like 15x15"),
        (("3x3", "three"), "k must be a whole number"),
        (("3x3", "4"), "k must be from 1 to 3"),
        (("3x3", "3", "--rule", "gomoku"), "unknown rule"),
        (("3x3", "3", "--time-limit", "soon"), "--time-limit must be a number"),
        (("3x3", "3", "--time-limit", "0"), "more than 0"),
        (("3x3", "3", "--moves", "B2 B2"), "already taken"),
        (("3x3", "3", "--moves", "A1 B1 A2 B2 A3"), "already over"),
        (("30x3", "3"), "from 1 to 26"),
    ],
)
def test_cli_rejects_bad_arguments_clearly(argv: tuple[str, ...], message: str) -> None:
    code, out, err = run_cli(*argv)
    assert code == 2
    assert out == ""
    assert message in err


def test_cli_reports_a_timeout() -> None:
    code, _, err = run_cli("15x15", "5", "--time-limit", "0.2")
    assert code == 1
    assert "not proven" in err and "nodes" in err


def test_perfect_move_falls_back_to_a_proven_best_move_when_the_rest_would_overrun() -> None:
    board = Board(4, 5, 4)
    board.push((1, 2))
    first = analyse(board)  # proves one best move only
    assert first.value == 0
    # Proving every best move (for the rng's choice) needs far more than one node.
    assert perfect_move(board, rng=random.Random(1), node_limit=1) == first.best_move
    solver.clear_tables()
    with pytest.raises(SolveTimeout):
        perfect_move(board, rng=random.Random(1), node_limit=1)
