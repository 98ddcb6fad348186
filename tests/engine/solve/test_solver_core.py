"""The solver's compiled core against its pure-Python search, the reference.

Both searches are exact, so on every position the pure-Python one proves they must agree on the
value, the distance to the end, the first best move in the fixed order and the set of every best
move. The reference runs with COMPILED_MAX_CELLS at 0 (every board then goes the Python way) and
FULL_TABLE_MAX_CELLS at 0 (so 3x3 is searched, not looked up in the whole-board table).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from engine import Board, Rule
from engine.solve import solver
from engine.solve.solver import SolveTimeout, analyse
from testkit.rules import K_RULES

Cell = tuple[int, int]


@pytest.fixture(autouse=True)
def _cold_tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(solver, "FULL_TABLE_MAX_CELLS", 0)
    solver.clear_tables()
    yield
    solver.clear_tables()


def both_ways(
    board: Board, monkeypatch: pytest.MonkeyPatch, every_best: bool = True
) -> tuple[tuple[object, ...], ...]:
    """(value, plies, first best move, every best move) by the compiled core, then by Python;
    without every_best, the set of every best move is left out (it costs a search per move)."""
    answers = []
    for most in (solver.COMPILED_MAX_CELLS, 0):
        with monkeypatch.context() as patch:
            patch.setattr(solver, "COMPILED_MAX_CELLS", most)
            solver.clear_tables()
            result = analyse(board)
            every: tuple[Cell, ...] = ()
            if every_best:
                _, every, _ = solver._answer(board, None, None, every_best=True)
            answers.append((result.value, result.plies, result.best_move, frozenset(every)))
    return tuple(answers)


@pytest.mark.parametrize("rule", K_RULES)
@pytest.mark.parametrize("rows,cols,k", [(3, 3, 3), (4, 4, 4), (4, 5, 4), (4, 4, 3), (3, 5, 3)])
def test_compiled_core_matches_python_on_empty_small_boards(
    rows: int, cols: int, k: int, rule: Rule, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = Board(rows, cols, k, rule)
    # Proving every best move of the empty 4x5 board takes the reference seconds per rule.
    compiled, python = both_ways(board, monkeypatch, every_best=rows * cols <= 16)
    assert compiled == python


def random_position(rng: random.Random, rows: int, cols: int, k: int, rule: Rule) -> Board:
    """A game not over, reached by random moves: up to half the board filled."""
    while True:
        board = Board(rows, cols, k, rule)
        for _ in range(rng.randrange(1, rows * cols // 2 + 1)):
            board.push(rng.choice(list(board.legal_moves)))
            if board.is_over():
                break
        if not board.is_over():
            return board


@pytest.mark.parametrize("rule", K_RULES)
def test_compiled_core_matches_python_on_random_positions(
    rule: Rule, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(f"core-{rule}")
    specs = [(3, 3, 3), (4, 4, 3), (4, 4, 4), (3, 5, 3), (4, 5, 4), (5, 5, 4), (3, 7, 4)]
    seen_values = set()
    for rows, cols, k in specs:
        for _ in range(10):
            board = random_position(rng, rows, cols, k, rule)
            if rows * cols >= 20 and board.ply < 10:
                continue  # the reference needs seconds to minutes on a nearly empty 4x5 or 5x5
            compiled, python = both_ways(board, monkeypatch)
            assert compiled == python, board.text()
            seen_values.add(compiled[0])
    # The sample must exercise wins, losses and draws, or it proves little.
    assert seen_values == {-1, 0, 1}


def test_tiny_compiled_table_still_gives_exact_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    # Four entries (two buckets): nearly every store replaces another position's entry.
    monkeypatch.setattr(solver, "COMPILED_TABLE_ENTRIES", ((64, 4),))
    result = analyse(Board(4, 4, 4))
    assert (result.value, result.plies, result.best_move) == (0, 16, (1, 1))
    result = analyse(Board(4, 4, 3, Rule.CARO))
    assert (result.value, result.plies) == (1, 5)


def test_compiled_tables_over_the_memory_cap_drop_other_specs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(solver, "COMPILED_TABLE_ENTRIES", ((64, 1024),))
    monkeypatch.setattr(solver, "COMPILED_TABLE_MAX_BYTES", 1024 * 20 * 2)
    analyse(Board(4, 4, 3))
    analyse(Board(3, 4, 3))
    assert set(solver._CORE_TABLES) == {(4, 4, 3, Rule.FREESTYLE), (3, 4, 3, Rule.FREESTYLE)}
    analyse(Board(3, 5, 3))
    assert set(solver._CORE_TABLES) == {(3, 5, 3, Rule.FREESTYLE)}


def test_compiled_node_limit_is_exact() -> None:
    with pytest.raises(SolveTimeout) as info:
        analyse(Board(5, 5, 4), node_limit=1000)
    assert info.value.nodes == 1001
    assert "node limit of 1,000" in str(info.value)


def test_compiled_time_limit_stops_the_search() -> None:
    # (6,6,4) cannot be proven in 0.3 s: the timer thread must stop the GIL-free core.
    with pytest.raises(SolveTimeout) as info:
        analyse(Board(6, 6, 4), time_limit=0.3)
    assert info.value.nodes > 0
    assert 0.3 <= info.value.seconds < 3
    assert "time limit of 0.3 s" in str(info.value)


def test_compiled_search_resumes_after_a_timeout() -> None:
    # A timeout stores nothing half-done: the same spec then solves correctly.
    with pytest.raises(SolveTimeout):
        analyse(Board(4, 5, 4), node_limit=5000)
    result = analyse(Board(4, 5, 4))
    assert (result.value, result.plies, result.best_move) == (0, 20, (1, 2))


@pytest.mark.slow
def test_five_by_five_four_in_a_row_is_a_draw() -> None:
    # Published (Uiterwijk 2019, Table I): (5,5,4) is a draw. Seconds with the compiled core.
    result = analyse(Board(5, 5, 4))
    assert (result.value, result.plies, result.best_move) == (0, 25, (2, 2))
