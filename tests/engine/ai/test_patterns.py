"""The pattern board (engine.ai.patterns): tables generated from the rules, cell patterns read
as a player reads them, and the compiled core's incremental copy equal to a recount."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest

from engine.ai import compiled, core, patterns
from engine.game.board import Board
from engine.game.types import Rule
from training import pattern_tables

NAMES = {"_": 0, "x": 1, "o": 2, "#": 3}


def line_class(line: str, rule: str) -> int:
    """The class of an own stone on the centre ('.') of an 11-cell line: x own, o opponent,
    # off the board, _ empty."""
    assert len(line) == 11 and line[5] == "."
    code = 0
    for digit, pos in enumerate(pattern_tables.neighbour_positions()):
        code |= NAMES[line[pos]] << (2 * digit)
    table = patterns._raw_tables()[rule]
    return int(table[code])


def test_the_shipped_pattern_tables_are_what_the_rules_generate():
    generated = pattern_tables.generate()
    shipped = patterns._raw_tables()
    assert set(generated) == set(shipped)
    for rule, table in generated.items():
        assert np.array_equal(table, shipped[rule]), rule


@pytest.mark.parametrize(
    ("line", "rule", "expected"),
    [
        ("_xxxx.____o", "freestyle", patterns.FIVE),
        ("xxxxx._____", "freestyle", patterns.FIVE),  # six in a row wins freestyle
        ("xxxxx._____", "exact", patterns.FREE),  # ... but not exactly five
        ("oxxxx.o____", "caro", patterns.FREE),  # blocked at both ends: no caro win
        ("oxxxx.#____", "caro", patterns.FIVE),  # the edge blocks nothing under caro
        ("__xxx.____o", "freestyle", patterns.F4),
        ("o_xxx.o____", "freestyle", patterns.B4),
        ("___xx.____o", "freestyle", patterns.F3),
        ("___x_.x____", "freestyle", patterns.F3),  # a split three
        ("__oxx.____o", "freestyle", patterns.B3),
        ("x_xx_._____", "exact", patterns.B3),  # one way to the four makes six
        ("____x.____o", "freestyle", patterns.F2),
        ("#####.#####", "freestyle", patterns.NONE),
        ("_____.__ooo", "freestyle", patterns.FREE),
    ],
)
def test_a_line_class_says_what_one_more_stone_makes_on_that_line(line, rule, expected):
    assert line_class(line, rule) == expected


def test_two_open_threes_crossing_make_a_three_three_and_a_four_with_an_open_three_a_four_three():
    board = Board(15, 15, 5, Rule.FREESTYLE)
    # X: H8 I8 on a row and G9 G10 on a column; O elsewhere.
    for name in ("H8", "A1", "I8", "A3", "G9", "A5", "G10", "A7"):
        board.push_name(name)
    cols = board.cols
    found = patterns.cell_patterns(list(board.grid), 15, 15, Rule.FREESTYLE, 1)
    g8 = board.parse_move("G8")
    assert found[g8[0] * cols + g8[1]] == patterns.F_F3X2
    board.push_name("J8")  # X: H8 I8 J8 - G8 now makes an open four... and the column three
    board.push_name("A9")
    found = patterns.cell_patterns(list(board.grid), 15, 15, Rule.FREESTYLE, 1)
    assert found[g8[0] * cols + g8[1]] == patterns.B_F4


def test_renju_black_double_three_is_a_forbidden_pattern_and_white_s_is_not():
    board = Board(15, 15, 5, Rule.RENJU)
    for name in ("H8", "A1", "I8", "A3", "G9", "A5", "G10", "C1"):
        board.push_name(name)
    r, c = board.parse_move("G8")
    black = patterns.cell_patterns(list(board.grid), 15, 15, Rule.RENJU, 1)
    assert black[r * 15 + c] == patterns.FORBID_P


@pytest.mark.parametrize("rule", list(Rule))
def test_the_core_pattern_board_equals_a_recount_after_moves_and_undos(rule):
    rng = random.Random(f"patterns/{rule.value}")
    board = Board(15, 15, 5, rule)
    g, s = compiled.state_of(board)
    values = patterns.combo_values(rule)
    units = patterns.net_combo_values(rule)
    comb = patterns.tables(rule).comb[:, patterns.FIRST_KEY]
    placed = 0
    while placed < 60 and not board.is_over():
        cell = rng.choice(list(board.legal_moves))
        if rule is Rule.RENJU and board.ply % 2 == 0 and board.is_forbidden(cell):
            continue
        board.push(cell)
        core.place(g, s, cell[0] * 15 + cell[1], 1 if board.ply % 2 == 1 else 2)
        placed += 1
        if placed % 10 == 0:
            empty = np.array(board.grid) == 0
            for mark in (1, 2):
                expected = patterns.cell_patterns(list(board.grid), 15, 15, rule, mark)
                assert np.array_equal(s.p4[mark][empty], expected[empty])
                keys = s.pkey[mark][empty]  # the cells' combinations
                assert np.array_equal(comb[mark][keys], expected[empty])
                assert s.psum[mark, 0] == values[mark, 0][keys].sum()
                assert s.psum[mark, 1] == values[mark, 1][keys].sum()
                if units.shape[3]:
                    assert np.array_equal(
                        s.nacc[s.info[0], mark], units[mark][:, keys].sum(axis=1).ravel()
                    )
    fresh = compiled.new_state(g, [])
    for _ in range(placed):
        core.unplace(g, s)
    for name in ("pcode", "pcls", "pkey", "p4", "psum"):
        assert np.array_equal(getattr(s, name), getattr(fresh, name)), name
    # The units' sums are a stack a row per ply: the empty board's row is as it was.
    assert s.info[0] == 0 and np.array_equal(s.nacc[0], fresh.nacc[0])


def test_a_threat_search_leaves_the_pattern_board_as_it_found_it():
    board = Board.from_text("15x15 k5 freestyle H8 H9 I8 I9 J8 J9 G9 K8 G7 F6")
    g, s = compiled.state_of(board)
    before = s.psum.copy(), s.p4.copy()
    ctx = compiled.new_ctx(g.size)
    compiled._begin(ctx, float("inf"), 50_000)
    core.vcf(g, s, ctx, 1, 10, 0)
    assert s.info[2] == 0
    assert np.array_equal(s.psum, before[0]) and np.array_equal(s.p4, before[1])


@pytest.mark.parametrize("rule", list(Rule))
def test_the_shipped_weights_name_their_fit_and_rank_the_threats_as_a_player_would(rule):
    w = patterns.weights(rule)
    assert w.version
    assert w.cell.shape == (2, patterns.NCAT)
    assert w.combo.shape == (2, patterns.NCOMBO)
    values = patterns.combo_values(rule)
    units = patterns.net_combo_values(rule)
    quiet = int(patterns.COMBO[0])  # four free lines: a cell of nothing

    def worth(side: int, *classes: int) -> int:
        # A cell with these line classes, its other lines free, to X as the side to move (0) or
        # waiting (1). With a net, on a quiet 15x15 board (200 empty cells of nothing, for both
        # sides) where the units weigh it against the rest: what the evaluation gives X then.
        c = [*classes] + [patterns.FREE] * (4 - len(classes))
        combo = int(patterns.COMBO[((c[0] * 9 + c[1]) * 9 + c[2]) * 9 + c[3]])
        value = int(values[1, side, combo])
        if w.net is None:
            return value
        me, them = (1, 2) if side == 0 else (2, 1)
        sums = w.net.bias + 200 * (units[me, 0, quiet] + units[them, 1, quiet])
        sums += units[1, side, combo] - units[1, side, quiet]
        net = int(np.maximum(sums, 0) @ w.net.out) >> 16
        return value + (net if side == 0 else -net)

    # The opponent's five to make (we face a four) outweighs their open four, which outweighs
    # their open three, which outweighs a cell of nothing; ours likewise (our own five to make
    # is never valued: it is played).
    nothing = worth(1)
    assert worth(1, patterns.FIVE) > worth(1, patterns.F4) > worth(1, patterns.F3)
    # A net weighs an open three to make for the side waiting against everything else on the
    # board: on a quiet one it is worth about nothing (within a fortieth of a logit).
    assert worth(1, patterns.F3) > nothing - (10 if w.net is not None else 0)
    assert worth(1, patterns.F4) > nothing
    nothing = worth(0)
    assert worth(0, patterns.F4) > worth(0, patterns.F3) > nothing
    assert worth(0, patterns.B4, patterns.F3) > worth(0, patterns.F3)


@pytest.mark.parametrize("rule", list(Rule))
def test_a_cells_pattern_depends_on_its_combination_alone(rule):
    # The core keys its tables by the combination (engine.ai.core.Geo).
    comb = patterns.tables(rule).comb
    for mark in (1, 2):
        assert np.array_equal(comb[mark], comb[mark][patterns.FIRST_KEY][patterns.COMBO])
    assert np.array_equal(patterns.COMBO[patterns.FIRST_KEY], np.arange(patterns.NCOMBO))


def test_a_combination_of_classes_is_the_same_whatever_the_order_of_the_directions():
    assert patterns.NCOMBO == 495  # four classes of nine, unordered
    rng = random.Random("combos")
    for _ in range(200):
        classes = [rng.randrange(patterns.CLASSES) for _ in range(4)]
        keys = set()
        for order in itertools.permutations(classes):
            keys.add(int(patterns.COMBO[((order[0] * 9 + order[1]) * 9 + order[2]) * 9 + order[3]]))
        assert len(keys) == 1


@pytest.mark.parametrize("rule", list(Rule))
def test_a_cell_is_worth_its_pattern_plus_its_combination_and_a_forbidden_point_nothing(rule):
    w = patterns.weights(rule)
    comb = patterns.tables(rule).comb
    values = patterns.key_values(rule)
    for key in range(0, patterns.CLASSES**4, 7):
        for side in (0, 1):
            for mark in (1, 2):
                expected = w.cell[side, comb[mark, key]] + w.combo[side, patterns.COMBO[key]]
                if comb[mark, key] == patterns.FORBID_P:
                    expected = 0
                assert values[mark, side, key] == expected
    # Renju black's double three is forbidden: two open threes (F3) and nothing else.
    double_three = ((patterns.F3 * 9 + patterns.F3) * 9 + patterns.FREE) * 9 + patterns.FREE
    if rule is Rule.RENJU:
        assert comb[1, double_three] == patterns.FORBID_P
        assert values[1, 0, double_three] == values[1, 1, double_three] == 0


def test_freestyle_exact_and_renju_play_with_freestyles_net_and_caro_with_its_own():
    # An evaluation is played under a rule once a match under that rule says so
    # (docs/benchmarks.md): exact and renju borrow freestyle's net, caro has a net of its own.
    net = patterns.weights(Rule.FREESTYLE).net
    assert net is not None and net.hidden == 16
    for rule in (Rule.FREESTYLE, Rule.EXACT, Rule.RENJU):
        assert patterns.weights_file(rule).name == "net-freestyle.npz"
        assert patterns.weights(rule).version == patterns.weights(Rule.FREESTYLE).version
        assert compiled.geometry(15, 15, 5, rule).nb1.shape == (core.NET_UNITS,)
    assert patterns.weights_file(Rule.CARO).name == "net-caro.npz"
    caro = patterns.weights(Rule.CARO)
    assert caro.net is not None and caro.version != patterns.weights(Rule.FREESTYLE).version
    assert compiled.geometry(15, 15, 5, Rule.CARO).nb1.shape == (core.NET_UNITS,)


def test_the_net_adds_its_units_above_zero_averaged_with_the_position_before_the_last_stone() -> None:
    board = Board.from_text("15x15 k5 freestyle H8 H9 I8 I9 J8")
    g, s = compiled.state_of(board)
    net = patterns.weights(Rule.FREESTYLE).net
    assert net is not None

    def cells(psum: np.ndarray, acc: np.ndarray, me: int) -> int:
        # The cells' part of the value for me to move: patterns, combinations and the layer.
        units = acc[me, :net.hidden] + acc[3 - me, net.hidden:] + net.bias
        assert (units > 0).any() and (units <= 0).any()
        return int(psum[me, 0] - psum[3 - me, 1]) + (int(np.maximum(units, 0) @ net.out) >> 16)

    me = 2
    windows = int(s.sums[me] * 9 // 8 - s.sums[3 - me])
    now = cells(s.psum, s.nacc[board.ply], me)
    before = cells(s.psave[board.ply], s.nacc[board.ply - 1], 3 - me)
    assert now != -before
    assert core.evaluate(g, s, me) == ((now - before) >> 1) + ((windows * g.pwin) >> 10)
    # What was saved is the position before the last stone (J8), valued for X, then to move.
    prior = Board.from_text("15x15 k5 freestyle H8 H9 I8 I9")
    _, t = compiled.state_of(prior)
    assert cells(t.psum, t.nacc[prior.ply], 3 - me) == before


def test_a_rules_own_evaluation_comes_before_the_one_it_borrows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without freestyle's net, renju and exact play freestyle's fit (BORROWED); with it, its net
    # (BORROWED_NET); a net of their own (training.net's net-RULE.npz) comes before either, and a
    # fit of their own (training.fit's weights-RULE.npz) before the fit they borrow. Caro borrows
    # nothing.
    for name in ("weights.npz", "weights-freestyle.npz"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setattr(patterns, "DATA", tmp_path)
    assert patterns.weights_file(Rule.RENJU).name == "weights-freestyle.npz"
    (tmp_path / "weights-renju.npz").write_bytes(b"")
    assert patterns.weights_file(Rule.RENJU).name == "weights-renju.npz"
    assert patterns.weights_file(Rule.EXACT).name == "weights-freestyle.npz"
    (tmp_path / "net-freestyle.npz").write_bytes(b"")
    for rule in (Rule.RENJU, Rule.EXACT):
        assert patterns.weights_file(rule).name == "net-freestyle.npz"
    assert patterns.weights_file(Rule.CARO).name == "weights.npz"
    (tmp_path / "net-renju.npz").write_bytes(b"")
    (tmp_path / "net-exact.npz").write_bytes(b"")
    assert patterns.weights_file(Rule.RENJU).name == "net-renju.npz"
    assert patterns.weights_file(Rule.EXACT).name == "net-exact.npz"


def test_boards_other_than_five_in_a_row_keep_the_window_evaluation():
    g = compiled.geometry(7, 7, 4, Rule.FREESTYLE)
    assert g.pat == 0


@pytest.mark.parametrize("rule", [Rule.FREESTYLE, Rule.CARO, Rule.RENJU])
def test_the_pure_python_search_values_positions_as_the_compiled_core_does(rule):
    from engine.ai.position import Position

    rng = random.Random(f"python-patterns/{rule.value}")
    board = Board(15, 15, 5, rule)
    pos = Position(board, patterns=True)
    while pos.board.ply < 40 and not pos.board.is_over():
        cell = rng.choice(pos.candidates() or list(range(225)))
        pos.push(cell)
        if pos.board.ply % 8 == 0 and not pos.board.is_over():
            g, s = compiled.state_of(pos.board)
            assert pos.evaluate() == core.evaluate(g, s, pos.turn)
    # Made at once from the board, the position reads its stones in the order they were played.
    built = Position(pos.board, patterns=True)
    assert built.evaluate() == pos.evaluate()
    while pos.board.ply:
        pos.pop()
    assert pos.pboard is not None
    assert pos.pboard.psum == Position(Board(15, 15, 5, rule), patterns=True).pboard.psum


def test_the_easier_levels_keep_the_window_evaluation():
    from engine.ai.position import Position

    board = Board.from_text("15x15 k5 freestyle H8 H9 I8")
    assert Position(board).pboard is None
    assert Position(board, patterns=True).pboard is not None


def test_a_net_too_large_for_the_cores_32_bit_sums_is_refused() -> None:
    values = np.zeros((3, 2, 4, 2), dtype=np.int64)
    bias, out = np.array([5, 6]), np.array([7, 8])
    values[1, 0, 3, 1] = 2**31 // (26 * 26) + 1
    with pytest.raises(ValueError, match="32-bit"):
        compiled.net_tables(values, bias, out)
    values[1, 0, 3, 1] -= 1
    assert compiled.net_tables(values, bias, out)[0][1, 3, 1] == values[1, 0, 3, 1]


def test_a_narrower_net_is_padded_with_units_that_add_nothing_and_a_wider_one_refused() -> None:
    values = np.arange(3 * 2 * 4 * 2, dtype=np.int64).reshape(3, 2, 4, 2)
    rows, bias, out = compiled.net_tables(values, np.array([5, 6]), np.array([7, 8]))
    units = core.NET_UNITS
    assert rows.shape == (3, 4, 2 * units) and bias.shape == out.shape == (units,)
    assert rows[1, 3, 1] == values[1, 0, 3, 1] and rows[1, 3, units + 1] == values[1, 1, 3, 1]
    assert not rows[:, :, 2:units].any() and not rows[:, :, units + 2:].any()
    assert list(bias[:3]) == [5, 6, 0] and list(out[:3]) == [7, 8, 0] and not out[2:].any()
    wide = np.zeros((3, 2, 4, units + 1), dtype=np.int64)
    none = np.zeros(units + 1, dtype=np.int64)
    with pytest.raises(ValueError, match=f"at most {units}"):
        compiled.net_tables(wide, none, none)
