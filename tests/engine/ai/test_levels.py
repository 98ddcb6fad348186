"""The AI ladder: legality, reproducibility, tactics at every level, perfect play where provable."""

from __future__ import annotations

import pickle
import random
from collections.abc import Sequence

import pytest

from engine import Board, IllegalMoveError, Mark, Rule
from engine.ai import (
    DEFAULT_TIME_LIMITS,
    LEVELS,
    REASONS,
    MoveInfo,
    analyse_move,
    choose_move,
    explain,
)
from engine.ai.position import Position
from engine.ai.search import WIN, Searcher
from engine.ai.threats import Budget, OutOfBudget, fork_cells, vcf, vct
from engine.game.types import Cell


def position(
    xs: Sequence[Cell],
    os: Sequence[Cell],
    rows: int = 15,
    cols: int = 15,
    k: int = 5,
    rule: Rule = Rule.FREESTYLE,
) -> Board:
    """A board with these X and O stones (X has as many as O, or one more)."""
    assert len(os) <= len(xs) <= len(os) + 1
    board = Board(rows, cols, k, rule)
    for i, x in enumerate(xs):
        board.push(x)
        if i < len(os):
            board.push(os[i])
    return board


def random_board(rows: int, cols: int, k: int, rule: Rule, plies: int, seed: int) -> Board:
    rng = random.Random(seed)
    board = Board(rows, cols, k, rule)
    while board.ply < plies:
        cells = list(board.legal_moves)
        if not cells:
            break
        board.push(rng.choice(cells))
        if board.is_over():
            board.pop()
            break
    return board


SPECS = [
    (1, 1, 1, Rule.FREESTYLE),
    (1, 6, 3, Rule.FREESTYLE),
    (3, 3, 3, Rule.FREESTYLE),
    (4, 4, 3, Rule.EXACT),
    (5, 5, 4, Rule.CARO),
    (6, 9, 4, Rule.FREESTYLE),
    (9, 9, 5, Rule.CARO),
    (15, 15, 5, Rule.EXACT),
    (19, 19, 5, Rule.FREESTYLE),
    (26, 26, 5, Rule.CARO),
]


# ---------------------------------------------------------------------------------- the API
def test_public_names() -> None:
    assert LEVELS == ("easy", "normal", "hard", "impossible")
    assert set(DEFAULT_TIME_LIMITS) == set(LEVELS)
    assert REASONS == (
        "win", "block", "fork", "threat", "defend", "center", "near_center", "develop"
    )


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s[0]}x{s[1]}k{s[2]}{s[3].value}")
def test_legal_move_and_board_untouched(level: str, spec: tuple[int, int, int, Rule]) -> None:
    rows, cols, k, rule = spec
    for plies in (0, 1, min(rows * cols - 1, 7)):
        board = random_board(rows, cols, k, rule, plies, seed=plies)
        if board.is_over():
            continue
        before = board.text()
        info = analyse_move(board, level, rng=random.Random(3), node_limit=400)
        assert isinstance(info, MoveInfo)
        assert info.move in board.legal_moves
        assert info.reason in REASONS
        assert board.text() == before
        assert info.nodes >= 0 and info.depth >= 0 and info.seconds >= 0


def test_results_cross_process_boundaries() -> None:
    # The bot runs choose_move in a process pool: the inputs and the answer must pickle.
    board = position([(7, 7)], [(8, 8)])
    info = analyse_move(board, "normal", node_limit=300)
    assert pickle.loads(pickle.dumps(info)) == info
    assert pickle.loads(pickle.dumps(board)) == board


@pytest.mark.parametrize("level", LEVELS)
def test_reproducible_for_the_same_rng_and_node_limit(level: str) -> None:
    board = random_board(15, 15, 5, Rule.FREESTYLE, 0, 0)
    for cell in [(7, 7), (8, 8), (7, 8), (6, 6), (9, 7), (5, 9)]:
        board.push(cell)
    moves = {choose_move(board, level, rng=random.Random(11), node_limit=1500) for _ in range(3)}
    assert len(moves) == 1
    info = analyse_move(board, level, rng=random.Random(11), node_limit=1500)
    assert info.move == moves.pop()


@pytest.mark.parametrize("level", ["hard", "impossible"])
def test_any_budget_gives_a_legal_move(level: str) -> None:
    # The budget can run out in any phase (threat search, main search, final check): whatever
    # the phase, the move must be legal and the board untouched.
    boards = [vcf_position(), random_board(15, 15, 5, Rule.CARO, 24, 5)]
    board = boards[0].copy()
    board.push((7, 7))  # X to move no more: O's turn, X threatens fours everywhere
    boards.append(board)
    for board in boards:
        before = board.text()
        for limit in (1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233):
            move = choose_move(board, level, node_limit=limit)
            assert move in board.legal_moves, (limit, board.text())
            assert analyse_move(board, level, node_limit=limit).move == move
        assert board.text() == before
    for time_limit in (0.001, 0.01, 0.03):
        assert choose_move(boards[1], level, time_limit=time_limit) in boards[1].legal_moves


def test_bad_level_and_finished_board_are_value_errors() -> None:
    board = Board(3, 3, 3)
    with pytest.raises(ValueError, match="unknown AI level"):
        choose_move(board, "grandmaster")
    for cell in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]:
        board.push(cell)
    assert board.is_over()
    for level in LEVELS:
        with pytest.raises(ValueError, match="over"):
            choose_move(board, level)
    with pytest.raises(ValueError):
        choose_move(Board(3, 3, 3), "easy", time_limit=0)


def test_default_time_limit_is_used_when_none_given() -> None:
    board = position([(7, 7)], [(8, 8)])
    info = analyse_move(board, "normal")
    assert info.move in board.legal_moves and info.nodes > 0


# ---------------------------------------------------------------------------------- tactics
WIN_POSITIONS = [
    # X to move, X wins at the cell given.
    (
        position([(7, 3), (7, 4), (7, 5), (7, 6)], [(0, 0), (0, 14), (14, 0), (14, 14)]),
        [(7, 2), (7, 7)],
    ),
    (position([(3, 3), (4, 4), (5, 5), (6, 6)], [(2, 2), (9, 9), (0, 0), (14, 14)]), [(7, 7)]),
    (
        position(
            [(2, 1), (3, 1), (4, 1), (5, 1)], [(1, 1), (8, 8), (0, 0), (0, 5)], 9, 9, 5, Rule.CARO
        ),
        [(6, 1)],
    ),
]
BLOCK_POSITIONS = [
    # X to move, O threatens to win at the cell given; X has no win of its own.
    (position([(0, 0), (14, 14), (0, 14), (3, 3)], [(7, 3), (7, 4), (7, 5), (7, 6)]), None),
    (position([(7, 2), (0, 0), (14, 14), (3, 3)], [(7, 3), (7, 4), (7, 5), (7, 6)]), (7, 7)),
]


@pytest.mark.parametrize("level", ["normal", "hard", "impossible"])
def test_takes_an_immediate_win(level: str) -> None:
    for board, winning in WIN_POSITIONS:
        for seed in range(3):
            move = choose_move(board, level, rng=random.Random(seed), node_limit=2000)
            assert move in winning
            board.push(move)
            assert board.outcome() is not None and board.outcome().winner is Mark.X  # type: ignore[union-attr]
            board.pop()


@pytest.mark.parametrize("level", ["normal", "hard", "impossible"])
def test_blocks_an_immediate_loss(level: str) -> None:
    # O has an open four in the first position (X cannot stop both ends: any block loses,
    # but the AI must still pick one of the two ends); a single threat in the others.
    board, _ = BLOCK_POSITIONS[1]
    assert choose_move(board, level, rng=random.Random(0), node_limit=2000) == (7, 7)
    board, _ = BLOCK_POSITIONS[0]
    assert choose_move(board, level, rng=random.Random(0), node_limit=2000) in {(7, 2), (7, 7)}
    # Broken four: O has (3,3),(4,4),(5,5),_,(7,7) and X holds (2,2): X must take (6,6).
    board = position([(2, 2), (0, 0), (13, 1), (10, 12)], [(3, 3), (4, 4), (5, 5), (7, 7)])
    assert choose_move(board, level, rng=random.Random(0), node_limit=2000) == (6, 6)


def test_easy_takes_an_immediate_win_more_often_than_not() -> None:
    board, winning = WIN_POSITIONS[0]
    wins = sum(choose_move(board, "easy", rng=random.Random(seed)) in winning for seed in range(60))
    assert wins > 30
    assert wins < 60  # and it is loose: not every time


def test_easy_is_loose() -> None:
    board = position([(7, 7), (8, 8)], [(7, 8)])
    moves = {choose_move(board, "easy", rng=random.Random(seed)) for seed in range(30)}
    assert len(moves) >= 4


# ---------------------------------------------------------------------------------- small boards
def test_impossible_finds_the_5x5_k4_win() -> None:
    from engine.solve import solver

    board = position([(2, 1), (1, 2), (1, 1)], [(2, 2), (0, 3), (1, 0)], 5, 5, 4)
    assert board.turn is Mark.X
    info = analyse_move(board, "impossible")
    assert info.solved and info.value == 1
    board.push(info.move)
    assert solver.solve(board) == -1  # the opponent, now to move, is lost


def _never_loses(board: Board, ai: Mark, seen: dict[str, None]) -> int:
    """Explores every reply of the opponent; returns the number of positions checked."""
    key = board.text()
    if key in seen or board.is_over():
        outcome = board.outcome()
        assert outcome is None or outcome.winner in (ai, None), board.text()
        return 0
    seen[key] = None
    if board.turn is ai:
        board.push(choose_move(board, "impossible"))
        checked = 1 + _never_loses(board, ai, seen)
        board.pop()
        return checked
    checked = 0
    for cell in list(board.legal_moves):
        board.push(cell)
        checked += _never_loses(board, ai, seen)
        board.pop()
    return checked


@pytest.mark.parametrize("ai", [Mark.X, Mark.O])
def test_3x3_impossible_never_loses(ai: Mark) -> None:
    checked = _never_loses(Board(3, 3, 3), ai, {})
    assert checked > 40


def test_3x3_impossible_wins_when_the_opponent_errs() -> None:
    # X took a corner and O an edge next to it: X wins by force from here.
    board = position([(0, 0)], [(0, 1)], 3, 3, 3)
    info = analyse_move(board, "impossible")
    assert info.solved and info.value == 1


def test_small_board_search_is_perfect_without_the_solver() -> None:
    # hard searches 3x3 at full width to the end: it must find the same forced win.
    from engine.solve import solver

    board = position([(0, 0)], [(0, 1)], 3, 3, 3)
    info = analyse_move(board, "hard", node_limit=200_000)
    assert info.solved and info.value == 1
    board.push(info.move)
    assert solver.solve(board) == -1
    # ... and a full-width search read to the end proves the draw of the empty 3x3 board.
    info = analyse_move(position([(1, 1)], [], 3, 3, 3), "hard", node_limit=200_000)
    assert info.solved and info.value == 0


# ---------------------------------------------------------------------------------- threats
def vcf_position() -> Board:
    # X: a three on row 7 blocked on the left, and two stones on column 6 under its end.
    # X (7,6) makes a four, O must answer (7,7), then X (6,6) or (10,6) is an open four.
    return position(
        [(7, 3), (7, 4), (7, 5), (8, 6), (9, 6)],
        [(7, 2), (0, 0), (0, 14), (14, 0), (14, 14)],
    )


def test_vcf_finds_a_forced_win_on_15x15() -> None:
    board = vcf_position()
    line = vcf(Position(board), Budget(20_000, None))
    assert line is not None
    cells = [divmod(i, 15) for i in line]
    assert cells[0] == (7, 6) and cells[1] == (7, 7)
    for cell in cells:
        board.push(cell)
    assert board.outcome() is not None and board.outcome().winner is Mark.X  # type: ignore[union-attr]


def test_vcf_finds_nothing_without_fours() -> None:
    board = position([(7, 7), (3, 3)], [(8, 8), (0, 0)])
    assert vcf(Position(board), Budget(20_000, None)) is None


@pytest.mark.parametrize("level", ["hard", "impossible"])
def test_top_levels_play_the_forced_win(level: str) -> None:
    info = analyse_move(vcf_position(), level, node_limit=5000)
    assert info.move == (7, 6)
    assert info.solved and info.value == 1


def test_impossible_stops_an_open_three() -> None:
    # O has an open three on row 7 (cols 5-7); X has nothing. Not stopping it loses.
    board = position([(0, 0), (14, 14), (0, 14), (3, 10)], [(7, 5), (7, 6), (7, 7), (12, 2)])
    move = choose_move(board, "impossible", node_limit=20_000)
    assert move in {(7, 4), (7, 8), (7, 3), (7, 9)}


def double_three_position() -> Board:
    """X to move on 15x15: (7,8) makes two open threes at once; there is no win by fours."""
    return position(
        [(7, 6), (7, 7), (5, 8), (6, 8)],
        [(0, 0), (0, 14), (14, 0), (14, 14)],
    )


def test_vct_finds_a_forced_win_from_threes_on_15x15() -> None:
    board = double_three_position()
    pos = Position(board)
    assert vcf(pos, Budget(20_000, None)) is None
    line = vct(pos, Budget(20_000, None), 2)
    assert line is not None
    assert divmod(line[0], 15) == (7, 8)
    assert pos.board == board  # the search leaves the position as it found it
    # The line is a real game: every ply legal, ending in X's five.
    for index in line:
        board.push(divmod(index, 15))
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.X


def test_vct_needs_a_real_threat() -> None:
    quiet = position([(7, 7), (3, 3)], [(8, 8), (0, 0)])
    assert vct(Position(quiet), Budget(20_000, None), 3) is None
    # One open three is not yet a win when the defender may answer it.
    single = position([(7, 6), (7, 7)], [(0, 0), (14, 14)])
    assert vct(Position(single), Budget(50_000, None), 1) is None


def test_vct_budget_runs_out_cleanly() -> None:
    board = double_three_position()
    pos = Position(board)
    with pytest.raises(OutOfBudget):
        vct(pos, Budget(3, None), 2)
    assert pos.board == board and pos.evaluate() == Position(board).evaluate()


def test_fork_cells_of_an_open_three() -> None:
    pos = Position(position([(7, 5), (7, 6), (7, 7)], [(0, 0), (14, 14)]))
    assert fork_cells(pos, 1) == [7 * 15 + 4, 7 * 15 + 8]


def test_impossible_plays_the_win_by_threes() -> None:
    info = analyse_move(double_three_position(), "impossible", node_limit=20_000)
    assert info.move == (7, 8)
    assert info.solved and info.value == 1  # proven against every defence (engine.ai.pns)


def test_impossible_defends_against_a_win_by_threes() -> None:
    # From an arena game on 9x9: O's D8 here let X win by three threes (E5 first). Whatever
    # impossible plays instead must leave X no such win.
    board = Board.from_text("9x9 k5 freestyle F6 D6 F5 F8 D4 C5 E7")
    move = choose_move(board, "impossible", node_limit=60_000)
    board.push(move)
    assert vcf(Position(board), Budget(None, None)) is None
    assert vct(Position(board), Budget(None, None), 3) is None


def test_impossible_search_leaves_read_wins_by_fours() -> None:
    # X to move with an open three and nothing to fear: with leaf threat checks (impossible) the
    # leaf is a win in three plies; without them (the other levels) a plain evaluation.
    xs, os = [(7, 5), (7, 6), (7, 7)], [(0, 0), (14, 14), (0, 14)]
    won = Searcher(Position(position(xs, os)), Budget(1000, None), 8, 8, leaf_vcf=4)
    assert won.negamax(0, -WIN, WIN, 0) == WIN - 3
    plain = Position(position(xs, os))
    assert Searcher(plain, Budget(1000, None), 8, 8).negamax(0, -WIN, WIN, 0) == plain.evaluate()


# ---------------------------------------------------------------------------------- explain
def test_explain_codes() -> None:
    board, _ = WIN_POSITIONS[0]
    assert explain(board, (7, 7)) == "win"
    board, _ = BLOCK_POSITIONS[1]
    assert explain(board, (7, 7)) == "block"
    board = vcf_position()
    assert explain(board, (7, 6)) == "threat"
    board.push((7, 6))
    board.push((7, 7))
    assert explain(board, (6, 6)) == "fork"
    board = position([(0, 0), (14, 14), (0, 14), (3, 10)], [(7, 5), (7, 6), (7, 7), (12, 2)])
    assert explain(board, (7, 8)) == "defend"
    assert explain(board, (7, 3)) == "defend"
    assert explain(board, (12, 12)) == "develop"
    assert explain(Board(15, 15, 5), (7, 7)) == "center"
    assert explain(Board(15, 15, 5), (6, 8)) == "near_center"
    assert explain(Board(15, 15, 5), (0, 0)) == "develop"
    assert explain(position([(7, 7)], []), (8, 8)) == "near_center"
    assert explain(Board(4, 4, 3), (1, 2)) == "center"  # a middle cell of an even side


def test_explain_rejects_illegal_moves() -> None:
    board = position([(7, 7)], [])
    with pytest.raises(IllegalMoveError):
        explain(board, (7, 7))


def test_explain_respects_caro_blocked_ends() -> None:
    # Under CARO, O's five between X stones at both ends would not win: nothing to block.
    board = position(
        [(7, 2), (7, 8), (0, 0), (14, 14)], [(7, 3), (7, 4), (7, 5), (7, 6)], rule=Rule.CARO
    )
    assert explain(board, (7, 7)) != "block"
    board = position(
        [(7, 2), (0, 0), (14, 14), (12, 12)], [(7, 3), (7, 4), (7, 5), (7, 6)], rule=Rule.CARO
    )
    assert explain(board, (7, 7)) == "block"
    # ... and a stone just past the far end blocks it too: the five would be shut at both ends.
    assert explain(board, (7, 8)) == "block"


def test_analyse_move_reason_matches_explain() -> None:
    board = vcf_position()
    info = analyse_move(board, "hard", node_limit=3000)
    assert info.reason == explain(board, info.move)


# ---------------------------------------------------------------------------------- strength
def test_15x15_impossible_beats_easy() -> None:
    for game, ai in enumerate((Mark.X, Mark.O)):
        board = Board(15, 15, 5)
        rng = random.Random(game)
        while not board.is_over():
            level = "impossible" if board.turn is ai else "easy"
            board.push(choose_move(board, level, rng=rng, node_limit=1500))
        outcome = board.outcome()
        assert outcome is not None and outcome.winner is ai, board.text()


def test_explain_says_centre_only_for_the_centre_cell() -> None:
    empty = position([], [])
    assert explain(empty, (7, 7)) == "center"
    answered = position([(7, 7)], [])
    # The centre is taken: a stone beside it does not "take the centre".
    assert explain(answered, (7, 8)) == "near_center"
    assert explain(answered, (6, 6)) == "near_center"
    assert explain(answered, (3, 3)) == "develop"
