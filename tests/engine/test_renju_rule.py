"""Renju as a rule of the game (Rule.RENJU): the board refuses black's forbidden moves and judges
wins by side, every AI level and the threat searches keep to it, white aims at black's forbidden
points, the solver and the Monte Carlo yardstick know it, and the compiled core's forbidden-move
check agrees with engine.game.renju."""

from __future__ import annotations

import random

import pytest

from bench.renju import random_position
from engine import Board, ForbiddenMoveError, IllegalMoveError, Mark, Rule
from engine.ai import choose_move, compiled
from engine.ai.position import Position
from engine.ai.threats import Budget, vcf
from engine.game.notation import cell_name, parse_cell
from engine.game.records import GameRecord, read_record
from engine.game.renju import Shape, Stones
from engine.game.types import LEVELS, Cell
from engine.players.external import RULE_BITS
from engine.players.montecarlo import candidate_cells, monte_carlo_move
from engine.programs.pbrain import RULE_RENJU, rule_from_bits
from engine.solve import solver

# Far-apart edge stones for the side that only passes its turn.
O_FILLER = ("A1", "D1", "G1", "J1", "M1", "A3", "D3", "G3", "J3", "M3")
X_FILLER = ("A15", "E15", "I15", "M15", "C13", "G13", "K13", "O13")

# Black's double-three at H8: F8 G8 H8 on row 8 and H6 H7 H8 on column H.
DOUBLE_THREE = "F8 G8 H6 H7"
# Black's double-four at H8: E8 F8 G8 H8 and H5 H6 H7 H8.
DOUBLE_FOUR = "E8 F8 G8 H5 H6 H7"


def cell(name: str) -> Cell:
    return parse_cell(name, 15, 15)


def renju_board(x: str, o: str = "", *, to_move: Mark = Mark.X) -> Board:
    """A 15x15 renju board with X's stones `x` and O's `o`, fillers added so `to_move` is next."""
    xs, os = x.split(), o.split()
    if to_move is Mark.X:
        os += O_FILLER[: max(0, len(xs) - len(os))]
        xs += X_FILLER[: max(0, len(os) - len(xs))]
    else:
        os += O_FILLER[: max(0, len(xs) - 1 - len(os))]
        xs += X_FILLER[: max(0, len(os) + 1 - len(xs))]
    board = Board(15, 15, 5, Rule.RENJU)
    for i, name in enumerate(xs):
        board.push_name(name)
        if i < len(os):
            board.push_name(os[i])
    assert not board.is_over() and board.turn is to_move, board
    return board


# ----------------------------------------------------------------- the board
def test_renju_is_five_in_a_row_only() -> None:
    with pytest.raises(ValueError, match="k must be 5"):
        Board(15, 15, 4, Rule.RENJU)
    assert Rule.parse("Renju") is Rule.RENJU


def test_black_wins_with_exactly_five() -> None:
    board = renju_board("D8 E8 F8 G8")
    board.push_name("H8")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.X
    assert [cell_name(c) for c in outcome.line] == ["D8", "E8", "F8", "G8", "H8"]


def test_a_black_overline_is_refused_and_the_board_is_unchanged() -> None:
    board = renju_board("D8 E8 F8 G8 I8")
    before = board.text()
    with pytest.raises(ForbiddenMoveError) as refused:
        board.push_name("H8")
    assert str(refused.value).startswith("overline at H8")
    assert refused.value.forbidden.shape is Shape.OVERLINE
    assert isinstance(refused.value, IllegalMoveError)
    assert board.text() == before and board.turn is Mark.X


def test_white_wins_with_an_overline() -> None:
    board = renju_board("", "D8 E8 F8 G8 I8", to_move=Mark.O)
    board.push_name("H8")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.O and len(outcome.line) == 6


def test_a_double_three_is_refused_by_name_and_white_may_play_it() -> None:
    board = renju_board(DOUBLE_THREE)
    with pytest.raises(ForbiddenMoveError, match=r"^double-three at H8"):
        board.push_name("H8")
    assert board.forbidden(cell("H8")) is not None
    board.push_name("A8")  # black elsewhere; now white may take H8
    assert board.forbidden(cell("H8")) is None
    board.push_name("H8")
    assert board[cell("H8")] is Mark.O


def test_a_double_four_is_refused() -> None:
    board = renju_board(DOUBLE_FOUR, "D8 H4")
    with pytest.raises(ForbiddenMoveError, match=r"^double-four at H8"):
        board.push_name("H8")


def test_a_five_made_with_a_double_three_elsewhere_still_wins() -> None:
    # H8 makes D8-H8, exactly five, and also threes on column H and the diagonal: five first.
    board = renju_board("D8 E8 F8 G8 H6 H7 F6 G7")
    board.push_name("H8")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.X


def test_legal_moves_leave_out_forbidden_points_only_for_black() -> None:
    board = renju_board(DOUBLE_THREE)
    assert cell("H8") not in board.legal_moves
    assert cell("H8") not in list(board.legal_moves)
    assert len(board.legal_moves) == 15 * 15 - board.ply - 1
    assert [f.cell for f in board.forbidden_points()] == [cell("H8")]
    board.push_name("A8")
    assert cell("H8") in board.legal_moves
    assert board.forbidden_points() == ()


def test_a_forbidden_point_becomes_allowed_as_the_board_fills_and_again_after_pop() -> None:
    board = renju_board(DOUBLE_THREE)
    board.push_name("A8")
    board.push_name("E8")  # white blocks the row three
    board.push_name("A10")
    assert board.turn is Mark.O
    board.push_name("B12")
    assert board.forbidden(cell("H8")) is None
    board.pop()
    board.pop()
    board.pop()
    assert board.forbidden(cell("H8")) is None  # white to move
    board.pop()
    assert board.forbidden(cell("H8")) is not None
    copy = board.copy()
    with pytest.raises(ForbiddenMoveError):
        copy.push_name("H8")


def test_the_rule_survives_text_records_and_the_protocols() -> None:
    board = renju_board(DOUBLE_THREE)
    assert board.text().startswith("15x15 k5 renju ")
    again = Board.from_text(board.text())
    assert again == board and again.rule is Rule.RENJU
    with pytest.raises(ForbiddenMoveError):
        again.push_name("H8")
    record = GameRecord.from_board(board)
    assert read_record(record.to_text()).board() == board
    assert rule_from_bits(RULE_RENJU) == (Rule.RENJU, [])
    assert RULE_BITS[Rule.RENJU] == RULE_RENJU == 4


# ----------------------------------------------------------------- the AI
def _all_players() -> list[tuple[str, bool]]:
    return [(level.value, True) for level in LEVELS] + [("impossible", False)]


@pytest.mark.parametrize(("level", "compiled_core"), _all_players())
@pytest.mark.parametrize("stones", [DOUBLE_THREE, DOUBLE_FOUR])
def test_no_level_plays_a_forbidden_point_however_good_it_looks(
    level: str, compiled_core: bool, stones: str
) -> None:
    # In freestyle H8 is the best move there is (two threes, or two fours that win).
    board = renju_board(stones, "D8 H4" if stones == DOUBLE_FOUR else "")
    assert board.is_forbidden(cell("H8"))
    for seed in range(3):
        move = choose_move(
            board,
            level,
            rng=random.Random(seed),
            node_limit=20_000,
            compiled=compiled_core,
            fresh_tables=True,
        )
        assert move != cell("H8") and not board.is_forbidden(move)


# White's four on the diagonal I9-L12 needs H8, which is black's double-three: black cannot block.
TRAP_X = DOUBLE_THREE + " M13"
TRAP_O = "J10 K11 L12"


@pytest.mark.parametrize(
    ("level", "compiled_core"), [("hard", True), *[("impossible", c) for c in (True, False)]]
)
def test_white_wins_with_a_four_whose_only_block_is_a_forbidden_point(
    level: str, compiled_core: bool
) -> None:
    board = renju_board(TRAP_X, TRAP_O, to_move=Mark.O)
    move = choose_move(board, level, node_limit=50_000, compiled=compiled_core, fresh_tables=True)
    assert move == cell("I9")
    board.push(move)
    assert board.is_forbidden(cell("H8"))
    # Black has no legal block; whatever it plays, white completes the five.
    reply = choose_move(board, level, node_limit=20_000, compiled=compiled_core, fresh_tables=True)
    assert reply != cell("H8")
    board.push(reply)
    board.push_name("H8")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.O


def test_the_threat_search_sees_the_forbidden_block_only_under_renju() -> None:
    board = renju_board(TRAP_X, TRAP_O, to_move=Mark.O)
    i9 = cell("I9")[0] * 15 + cell("I9")[1]
    assert vcf(Position(board), Budget(10_000, None), 10) == [i9]
    # In freestyle black simply blocks at H8.
    freestyle = Board.from_text(board.text().replace("renju", "freestyle"))
    assert vcf(Position(freestyle), Budget(10_000, None), 10) != [i9]


def test_black_threat_moves_leave_out_forbidden_points() -> None:
    pos = Position(renju_board(DOUBLE_FOUR, "D8 H4"))
    h8 = cell("H8")[0] * 15 + cell("H8")[1]
    assert pos.forbidden(h8, 1) and not pos.forbidden(h8, 2)
    assert h8 not in pos.four_moves(1) and h8 not in pos.candidates()


def test_monte_carlo_never_chooses_a_forbidden_point() -> None:
    board = renju_board(DOUBLE_THREE)
    assert cell("H8") not in candidate_cells(board)
    assert monte_carlo_move(board, random.Random(1), playouts=20) != cell("H8")


@pytest.mark.parametrize("seed", range(2))
def test_ai_games_under_renju_never_play_a_forbidden_move(seed: int) -> None:
    # Board.push refuses a forbidden move, so a game played to the end proves none was chosen.
    board = Board(15, 15, 5, Rule.RENJU)
    rng = random.Random(seed)
    levels = ("normal", "hard") if seed % 2 == 0 else ("hard", "normal")
    while not board.is_over() and board.ply < 60:
        level = levels[board.ply % 2]
        board.push(choose_move(board, level, rng=rng, node_limit=3_000))


# ----------------------------------------------------------------- the solver
def _brute_force(board: Board) -> int:
    """Plain negamax over Board.legal_moves: 1 win, 0 draw, -1 loss for the side to move."""
    best = -2
    for move in list(board.legal_moves):
        board.push(move)
        outcome = board.outcome()
        if outcome is not None:
            value = 0 if outcome.winner is None else 1
        else:
            value = -_brute_force(board)
        board.pop()
        best = max(best, value)
        if best == 1:
            break
    return best if best > -2 else 0


def test_the_solver_keeps_black_off_forbidden_points() -> None:
    # Random 6x6 renju positions near the end, against a plain negamax over the board's legal
    # moves (which leave out black's forbidden points).
    rng = random.Random(7)
    checked = 0
    while checked < 8:
        board = Board(6, 6, 5, Rule.RENJU)
        for _ in range(rng.randint(29, 31)):
            moves = list(board.legal_moves)
            if board.is_over() or not moves:
                break
            board.push(rng.choice(moves))
        if board.is_over() or not list(board.legal_moves):
            continue
        expected = _brute_force(board)
        assert solver.solve(board) == expected, board.text()
        move = solver.perfect_move(board)
        assert not board.is_forbidden(move)
        checked += 1


def test_the_solver_sees_a_forbidden_block_as_a_loss_for_black() -> None:
    board = renju_board(TRAP_X, TRAP_O + " I9")
    assert solver.solve(board, time_limit=30) == -1


# ----------------------------------------------------------------- the compiled check
def test_the_compiled_check_agrees_with_engine_renju_on_random_positions() -> None:
    rng = random.Random(11)
    shapes: set[Shape] = set()
    for _ in range(60):
        grid = random_position(rng, 15, 40, 120)
        flat = [v for row in grid for v in row]
        theirs = {f.cell: f.shape for f in Stones(15, 15, flat).forbidden_points()}
        assert compiled.renju_forbidden(15, 15, flat) == theirs, grid
        shapes.update(theirs.values())
    assert shapes == set(Shape)


def test_the_compiled_check_reads_small_boards_and_edges() -> None:
    board = Board(6, 9, 5, Rule.RENJU)
    # Black's threes C2-E2 and E2-E4, the second one cell from the top edge.
    for name in ("C2", "I6", "D2", "G6", "E3", "A6", "E4", "A4"):
        board.push_name(name)
    expected = {f.cell: f.shape for f in board.forbidden_points()}
    assert expected[parse_cell("E2", 6, 9)] is Shape.DOUBLE_THREE
    assert compiled.renju_forbidden(6, 9, board.grid) == expected


# ----------------------------------------------------------------- the benchmarks' own checks
def test_the_core_bench_finds_no_disagreement_on_a_few_positions() -> None:
    from bench.renju_core import _run

    result = _run(seed=3, positions=6, low=60, high=120, reference=2)
    assert result.disagreements == [] and result.reference == 2 and result.cells > 400


def test_a_benchmark_game_is_played_to_the_end_without_a_forbidden_move() -> None:
    from bench.renju_games import play

    result = play("easy", "normal", seed=1, opening=2, time_limit=0.05)
    assert result.forbidden == 0 and result.plies > 2
