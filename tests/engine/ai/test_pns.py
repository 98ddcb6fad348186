"""The proof-number VCT (engine.ai.pns): the wins it proves are real, checked move by move with
the pure-Python Board and threat code against every defender reply on the board."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine import Board, Rule
from engine.ai import compiled, core, pns
from engine.ai.position import Position
from engine.ai.threats import Budget, OutOfBudget, vcf
from engine.game.types import Cell
from testkit.rules import K_RULES

_tables: dict[tuple[int, int, int, Rule], tuple[core.Ctx, pns.PnTable]] = {}


def position(xs: list[Cell], os: list[Cell], rows: int = 15, cols: int = 15,
             rule: Rule = Rule.FREESTYLE) -> Board:
    board = Board(rows, cols, 5, rule)
    for i, x in enumerate(xs):
        board.push(x)
        if i < len(os):
            board.push(os[i])
    return board


def _fresh(board: Board, node_limit: int) -> tuple[core.Ctx, pns.PnTable]:
    key = (board.rows, board.cols, board.k, board.rule)
    if key not in _tables:
        size = board.rows * board.cols
        _tables[key] = (compiled.new_ctx(size), compiled.new_table(size))
    ctx, tab = _tables[key]
    # Fresh tables for every search: what one proved must not make the next one look cheap.
    tab.key[:] = 0
    ctx.fail_key[:] = 0
    ctx.fail_depth[:] = -1
    ctx.stat[:] = 0
    ctx.stat[1] = node_limit
    ctx.stat[5] = (1 << 62) - 1
    return ctx, tab


def dfpn(board: Board, threes: int, node_limit: int = 200_000) -> int:
    """The df-pn's first move of a win for the side to move, or -1."""
    g, s = compiled.state_of(board)
    ctx, tab = _fresh(board, node_limit)
    me = 1 if board.ply % 2 == 0 else 2
    return int(pns.dfpn_vct(g, s, ctx, tab, me, threes, 0))


def old_vct(board: Board, threes: int, node_limit: int = 200_000) -> int:
    g, s = compiled.state_of(board)
    ctx, _ = _fresh(board, node_limit)
    me = 1 if board.ply % 2 == 0 else 2
    return int(core.vct(g, s, ctx, me, threes, 0))


def python_vcf(board: Board, node_limit: int = 3_000) -> bool:
    """A win by fours found by the pure-Python VCF (a short read: where it gives up, the
    caller checks the position move by move instead)."""
    try:
        return vcf(Position(board), Budget(node_limit, None)) is not None
    except OutOfBudget:
        return False


def wins_against_every_defence(board: Board, threes: int, attacker_moves: int) -> bool:
    """The side to move wins whatever the defender plays: it takes a five on the spot, or has a
    win by fours (the pure-Python VCF), or plays the df-pn's move and wins again after every
    empty cell the defender could answer with (by the Board's own rules)."""
    attacker = 1 if board.ply % 2 == 0 else 2
    if Position(board).win_cells(attacker):
        return True
    if python_vcf(board):
        return True
    if attacker_moves <= 0:
        return False
    move = dfpn(board, threes)
    if move < 0:
        return False
    board.push(divmod(move, board.cols))
    try:
        for cell in list(board.legal_moves):
            board.push(cell)
            try:
                if board.outcome() is not None:
                    return False  # the defender made five (or filled the board)
                if not wins_against_every_defence(board, threes, attacker_moves - 1):
                    return False
            finally:
                board.pop()
    finally:
        board.pop()
    return True


def clustered_positions(rows: int, rule: Rule, count: int, seed: int) -> list[Board]:
    """Positions from random games whose stones cluster, side to move without a five or a four
    of either side on the board."""
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < count:
        board = Board(rows, rows, 5, rule)
        centre = rows // 2
        while not board.is_over() and len(out) < count and board.ply < 40:
            moves = list(board.legal_moves)
            near = [m for m in moves if abs(m[0] - centre) + abs(m[1] - centre) <= 3]
            board.push(rng.choice(near if near and rng.random() < 0.85 else moves))
            if board.is_over() or board.ply < 8:
                continue
            g, s = compiled.state_of(board)
            buf = np.zeros(g.size, dtype=np.int32)
            if core.win_cells(g, s, 1, buf) or core.win_cells(g, s, 2, buf):
                continue
            out.append(board.copy())
    return out


def double_three_position() -> Board:
    """X to move on 15x15: (7,8) makes two open threes at once; there is no win by fours."""
    return position([(7, 6), (7, 7), (5, 8), (6, 8)], [(0, 0), (0, 14), (14, 0), (14, 14)])


def test_dfpn_proves_the_double_three_and_it_holds_against_every_reply() -> None:
    board = double_three_position()
    assert not python_vcf(board)
    # The double three wins with one three; a longer win (the diagonal three at (5,9)) exists
    # too, but the passes allow one three more at a time, so the short one is found first.
    assert divmod(dfpn(board, 1), 15) == (7, 8)
    assert divmod(dfpn(board, 3), 15) == (7, 8)
    assert wins_against_every_defence(board, 2, 4)


def test_dfpn_finds_no_win_without_a_real_threat() -> None:
    quiet = position([(7, 7), (3, 3)], [(8, 8), (0, 0)])
    assert dfpn(quiet, 3) == -1
    # One open three is not yet a win when the defender may answer it.
    single = position([(7, 6), (7, 7)], [(0, 0), (14, 14)])
    assert dfpn(single, 3) == -1


def test_dfpn_leaves_the_position_as_it_found_it_and_stops_at_the_node_limit() -> None:
    board = double_three_position()
    g, s = compiled.state_of(board)
    before = (s.grid.copy(), s.t3.copy(), s.attack.copy(), int(s.info[0]), int(s.info[1]))
    ctx, tab = _fresh(board, 5)
    assert pns.dfpn_vct(g, s, ctx, tab, 1, 3, 0) == -1
    assert ctx.stat[2] == 1 and ctx.stat[0] <= 6
    after = (s.grid, s.t3, s.attack, int(s.info[0]), int(s.info[1]))
    assert all(np.array_equal(a, b) for a, b in zip(before[:3], after[:3], strict=True))
    assert before[3:] == after[3:]


@pytest.mark.parametrize("rule", K_RULES)
def test_every_win_dfpn_claims_on_random_positions_holds_against_every_defence(rule: Rule) -> None:
    claimed = 0
    for board in clustered_positions(9, rule, 400, seed=list(Rule).index(rule)):
        if python_vcf(board):
            continue
        if dfpn(board, 3) < 0:
            continue
        claimed += 1
        assert wins_against_every_defence(board, 3, 8), board.text()
        if claimed >= 4:
            break
    assert claimed >= 3  # the sample has to contain wins by threes to check any


def test_dfpn_proves_every_freestyle_win_the_old_vct_finds_with_as_many_threes() -> None:
    both = 0
    for board in clustered_positions(15, Rule.FREESTYLE, 300, seed=7):
        if python_vcf(board):
            continue
        if old_vct(board, 3) >= 0:
            assert dfpn(board, 3) >= 0, board.text()
            both += 1
    assert both >= 5


def test_dfpn_reads_wins_that_need_more_threes() -> None:
    deeper = 0
    for board in clustered_positions(15, Rule.FREESTYLE, 300, seed=11):
        if python_vcf(board) or dfpn(board, 1) >= 0:
            continue
        if dfpn(board, 4) >= 0:
            deeper += 1
            assert wins_against_every_defence(board, 4, 10), board.text()
            break
    assert deeper >= 1


def test_impossible_plays_the_proved_win_by_threes() -> None:
    board = double_three_position()
    result = compiled.think(board, None, 20_000)
    assert result.kind == "vct" and divmod(result.move, 15) == (7, 8)
    assert wins_against_every_defence(board, compiled.VCT_THREES, 6)
