"""The compiled core against the pure-Python Board, the reference for the rules, and its search
on positions with a known answer."""

import random
import threading
import time

import numpy as np
import pytest

from engine.ai import compiled, core, pns
from engine.game.board import Board, winning_line
from engine.game.types import Rule
from testkit.rules import K_RULES

SHAPES = [(3, 3, 3), (4, 4, 1), (4, 5, 2), (5, 5, 4), (6, 7, 4), (7, 6, 5), (9, 9, 5), (8, 3, 3),
          (10, 10, 6), (15, 15, 5)]


def random_positions(rows, cols, k, rule, count, rng):
    """Positions (not over) from random games, with the moves that led to each."""
    out = []
    while len(out) < count:
        board = Board(rows, cols, k, rule)
        # Stones cluster as in real games some of the time, so lines and threats appear.
        centre = (rows // 2, cols // 2)
        while not board.is_over() and len(out) < count:
            out.append(board.copy())
            moves = list(board.legal_moves)
            near = [m for m in moves if abs(m[0] - centre[0]) + abs(m[1] - centre[1]) <= 3]
            board.push(rng.choice(near if near and rng.random() < 0.8 else moves))
    return out


def reference_class(board: Board, cell: int, mark: int) -> int:
    """3 a win, 2 a fork (two or more winning cells after it), 1 a four, 0 none: by the rules
    of engine.game.board alone."""
    rows, cols, k, rule = board.rows, board.cols, board.k, board.rule
    grid = list(board.grid)
    if winning_line(grid, rows, cols, k, rule, *divmod(cell, cols), mark):
        return 3
    grid[cell] = mark
    wins = sum(
        1
        for c in range(rows * cols)
        if not grid[c] and winning_line(grid, rows, cols, k, rule, *divmod(c, cols), mark)
    )
    return 2 if wins >= 2 else wins


@pytest.mark.parametrize("rule", K_RULES)
def test_core_agrees_with_board_on_moves_wins_and_threats_for_random_positions(rule):
    rng = random.Random(f"core-parity/{rule.value}")
    checked = 0
    for rows, cols, k in SHAPES:
        positions = random_positions(rows, cols, k, rule, 6 if rows * cols > 100 else 10, rng)
        for board in positions:
            g, s = compiled.state_of(board)
            empty = [i for i in range(rows * cols) if not s.grid[i]]
            assert [divmod(i, cols) for i in empty] == list(board.legal_moves)
            for mark in (1, 2):
                buf = np.zeros(rows * cols, dtype=np.int32)
                wins = buf[: core.win_cells(g, s, mark, buf)].tolist()
                reference_wins = [
                    c for c in empty
                    if winning_line(board.grid, rows, cols, k, rule, *divmod(c, cols), mark)
                ]
                assert wins == reference_wins, (board.text(), mark)
                for cell in empty:
                    expected = reference_class(board, cell, mark)
                    assert core.threat_class(g, s, cell, mark) == expected, (
                        board.text(), mark, divmod(cell, cols)
                    )
                    if not wins:
                        # The search's quick fork test reads windows instead of playing.
                        assert core.makes_fork(g, s, cell, mark) == (expected == 2), (
                            board.text(), mark, divmod(cell, cols)
                        )
                    checked += 1
    assert checked > 1000


@pytest.mark.parametrize("rule", K_RULES)
def test_core_sees_the_move_that_ends_each_random_game_as_a_win_exactly_when_board_does(rule):
    rng = random.Random(f"core-ends/{rule.value}")
    for rows, cols, k in SHAPES:
        for _ in range(3):
            board = Board(rows, cols, k, rule)
            g, s = compiled.state_of(board)
            while not board.is_over():
                row, col = rng.choice(list(board.legal_moves))
                mark = 1 if board.ply % 2 == 0 else 2
                assert core.wins_at(g, s, row * cols + col, mark) == (
                    winning_line(board.grid, rows, cols, k, rule, row, col, mark) is not None
                )
                board.push((row, col))
                core.place(g, s, row * cols + col, mark)
            outcome = board.outcome()
            assert outcome is not None
            if outcome.winner is None:
                assert int(s.info[0]) == rows * cols


def test_taking_moves_back_restores_every_counter_exactly():
    rng = random.Random("core-undo")
    board = random_positions(15, 15, 5, Rule.CARO, 40, rng)[-1]
    g, s = compiled.state_of(board)
    before = [a.copy() for a in s]
    for cell in rng.sample([i for i in range(g.size) if not s.grid[i]], 12):
        core.place(g, s, cell, 1 + int(s.info[0]) % 2)
    for _ in range(12):
        core.unplace(g, s)
    ply = int(s.info[0])
    for name, old, new in zip(s._fields, before, s, strict=True):
        if name == "moves":  # a stack: what lies above its top is not part of the position
            old, new = old[:ply], new[:ply]
        if name in ("nacc", "plog", "plogn", "psave"):  # a row per ply: those above are stale
            old, new = old[: ply + 1], new[: ply + 1]
        assert np.array_equal(old, new), name


@pytest.mark.parametrize("rule", K_RULES)
def test_the_vcf_leaves_every_counter_as_it_found_it(rule):
    # The VCF places its stones without the attack values and the windows' worth (place_bare):
    # taking them all back must leave the position exactly as it was, wins found or not.
    rng = random.Random(f"core-vcf-undo/{rule.value}")
    found = 0
    for board in random_positions(15, 15, 5, rule, 60, rng)[::6]:
        g, s = compiled.state_of(board)
        ctx, _ = compiled._ctx_for(board)
        compiled._begin(ctx, float("inf"), 200_000)
        before = [a.copy() for a in s]
        for att in (1, 2):
            found += core.vcf(g, s, ctx, att, 8, 0) >= 0
        ply = int(s.info[0])
        for name, old, new in zip(s._fields, before, s, strict=True):
            if name == "moves":  # a stack: what lies above its top is not part of the position
                old, new = old[:ply], new[:ply]
            assert np.array_equal(old, new), name
    assert found > 0  # some of the positions hold a win by fours, so stones were placed


def test_core_hash_follows_the_board_zobrist_hash():
    board = Board.from_text("15x15 k5 freestyle H8 H9 I9 G7 J10")
    _, s = compiled.state_of(board)
    assert int(s.info[1]) & (2**64 - 1) == board.zobrist


def _think(text, seconds=0.5, node_limit=None, fresh=False):
    board = Board.from_text(text)
    deadline = None if node_limit else time.perf_counter() + seconds
    result = compiled.think(board, deadline, node_limit, fresh=fresh)
    return board, board.move_name(divmod(result.move, board.cols)), result


def test_core_takes_a_win_on_the_spot():
    _, move, result = _think("15x15 k5 freestyle H8 A1 H9 A2 H10 A3 H11 B5")
    assert move in {"H7", "H12"} and result.kind == "win"


def test_core_blocks_the_only_cell_of_a_four():
    _, move, _ = _think("15x15 k5 freestyle H8 H7 H9 A1 H10 A2 H11", node_limit=20_000)
    assert move == "H12"


def test_core_finds_a_win_by_continuous_fours():
    # X: a broken three on row 8 and one on column F; O has nothing on the board but scatter.
    text = "15x15 k5 freestyle E8 A1 F8 A3 H8 A5 F6 A7 F5 O15"
    board, move, result = _think(text, node_limit=200_000)
    assert result.kind == "vcf"
    board.push_name(move)
    g, s = compiled.state_of(board)
    buf = np.zeros(g.size, dtype=np.int32)
    assert core.win_cells(g, s, 1, buf) >= 1  # the first move of the line is a four


@pytest.mark.parametrize("rule", K_RULES)
def test_core_search_is_reproducible_under_a_node_limit_from_empty_tables(rule):
    # The main table is kept from one move to the next, so a search repeats itself exactly
    # only from empty tables (fresh), as caro pbrain --node-limit searches.
    text = f"15x15 k5 {rule.value} H8 H9 I9 G7 J10 K11 I8 I10"
    first = _think(text, node_limit=30_000, fresh=True)[2]
    again = _think(text, node_limit=30_000, fresh=True)[2]
    assert (first.move, first.value, first.nodes) == (again.move, again.value, again.nodes)
    assert Board.from_text(text).grid[first.move] == 0


def test_after_the_exercise_a_first_move_on_any_rule_compiles_nothing():
    compiled.exercise()
    entry_points = [core.load, core.win_cells, pns.threats, core.search]
    before = [len(f.signatures) for f in entry_points]
    assert all(before)
    for rule in K_RULES:
        board = Board.from_text(f"15x15 k5 {rule.value} H8 H9 I9 G7 J10 K11 I8 I10")
        compiled.think(board, None, 5_000)
    assert [len(f.signatures) for f in entry_points] == before


@pytest.mark.parametrize("helper", [core.blocks, core.gen_moves, core.pvs, pns._dfpn])
def test_a_function_only_compiled_code_calls_refuses_a_call_from_python(helper):
    # Compiled without the wrapper Python calls go through: numba would jump to no code.
    with pytest.raises(TypeError, match="no wrapper for calls from Python"):
        helper(1, 2)


@pytest.mark.parametrize("k", [9, 13, 26])
def test_long_lines_keep_the_evaluation_below_the_win_values(k):
    board = Board(26, 26, k)
    for name in ("M13", "N13", "M14", "N14", "M12", "L12", "N12"):
        board.push_name(name)
    result = compiled.think(board, None, 20_000)
    assert board.grid[result.move] == 0
    assert abs(result.value) < core.WON


def recount(g, grid):
    """The counters of engine.ai.core's State from the stones alone: each window of k cells,
    live for a mark when the other has no stone in it, adds its worth to that mark's sum, its
    gain to each of its cells' attack, and one to each cell's four/three/two count when it
    holds k-1, k-2 or k-3 of the mark's stones (and to the mark's count of such fours and
    threes); the cells whose three count is not zero, as bits."""
    size, k = g.size, g.k
    attack = np.zeros((3, size), dtype=np.int64)
    tiers = {name: np.zeros((3, size), dtype=np.int32) for name in ("t4", "t3", "t2")}
    sums = np.zeros(3, dtype=np.int64)
    n4 = np.zeros(3, dtype=np.int64)
    n3 = np.zeros(3, dtype=np.int64)
    cnt = np.zeros((3, len(g.wcells)), dtype=np.int32)
    for w, cells in enumerate(g.wcells):
        counts = {m: sum(1 for c in cells if grid[c] == m) for m in (1, 2)}
        for m in (1, 2):
            cnt[m, w] = counts[m]
            if counts[3 - m]:
                continue
            mine = counts[m]
            sums[m] += g.worth[mine]
            n4[m] += mine == k - 1
            n3[m] += mine == k - 2
            for c in cells:
                attack[m, c] += g.gain[mine]
                for name, count in (("t4", k - 1), ("t3", k - 2), ("t2", k - 3)):
                    tiers[name][m, c] += mine == count
    # The cells with a three count, as bits of 64-bit words (read as signed, as the core does).
    t3m = np.zeros((3, (size + 63) // 64), dtype=np.uint64)
    for m in (1, 2):
        for c in range(size):
            if tiers["t3"][m, c] > 0:
                t3m[m, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
    return {"cnt": cnt, "attack": attack, "sums": sums, "n4": n4, "n3": n3, **tiers,
            "t3m": t3m.view(np.int64)}


@pytest.mark.parametrize("rule", K_RULES)
def test_incremental_counters_match_a_recount_from_the_stones_after_moves_and_undos(rule):
    rng = random.Random(f"core-recount/{rule.value}")
    for rows, cols, k in SHAPES:
        board = random_positions(rows, cols, k, rule, 12, rng)[-1]
        g, s = compiled.state_of(board)
        empty = [i for i in range(g.size) if not s.grid[i]]
        for cell in rng.sample(empty, min(6, len(empty))):
            core.place(g, s, cell, 1 + int(s.info[0]) % 2)
        core.unplace(g, s)  # an undo in the middle of play, then the counts again
        counts = recount(g, s.grid)
        for name, expected in counts.items():
            assert np.array_equal(getattr(s, name), expected), (rows, cols, k, name)
        # The attack values the VCF computes from the window counts instead of keeping them.
        for mark in (1, 2):
            computed = [core.attack_at(g, s, mark, cell) for cell in range(g.size)]
            assert computed == counts["attack"][mark].tolist(), (rows, cols, k)


# ----------------------------------------------------------------------------- stopping
MIDGAME = "15x15 k5 freestyle H8 I9 G9 I7 J10 G7"


def _legal(board, move):
    return 0 <= move < board.rows * board.cols and board.grid[move] == 0


def test_a_stop_set_before_the_search_ends_it_at_once():
    board = Board.from_text(MIDGAME)
    stop = compiled.Stop()
    stop.set()
    result = compiled.think(board, None, 2_000_000, stop=stop)
    assert _legal(board, result.move)
    # Each of the three phases counts at most a node before it reads the flag.
    assert result.nodes < 1_000


def test_a_stop_between_phases_still_stops_the_next_one(monkeypatch):
    # think() resets the abort flag at each phase: a request made between two phases must
    # survive that reset.
    board = Board.from_text(MIDGAME)
    stop = compiled.Stop()
    real = pns.threat_first
    threat_nodes = []

    def then_stop(*args):
        real(*args)
        threat_nodes.append(int(args[2].stat[0]))
        stop.set()

    monkeypatch.setattr(pns, "threat_first", then_stop)
    stopped = compiled.think(board, None, 200_000, stop=stop, fresh=True)
    assert _legal(board, stopped.move)
    # The search and the guard after it stop at their first node.
    assert stopped.nodes - threat_nodes[0] < 1_000
    monkeypatch.undo()
    assert compiled.think(board, None, 200_000, fresh=True).nodes > threat_nodes[0] + 10_000


def test_a_stop_from_another_thread_ends_a_long_search():
    # The core runs without the GIL: the timer thread runs during the search, and the search
    # ends well before its minute (the bound only says it did not hang).
    board = Board.from_text(MIDGAME)
    stop = compiled.Stop()
    timer = threading.Timer(0.3, stop.set)
    start = time.perf_counter()
    timer.start()
    result = compiled.think(board, time.perf_counter() + 60, stop=stop)
    took = time.perf_counter() - start
    timer.join()
    assert _legal(board, result.move)
    assert took < 20


def test_other_threads_run_while_the_core_thinks():
    board = Board.from_text(MIDGAME)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    counter = threading.Thread(target=count)
    counter.start()
    compiled.think(board, None, 300_000)
    before = len(ticks)
    done.set()
    counter.join()
    assert before > 10


def test_fresh_tables_make_a_node_limited_search_independent_of_earlier_ones():
    board = Board.from_text(MIDGAME)
    first = compiled.think(board, None, 20_000, fresh=True)
    compiled.think(Board.from_text("15x15 k5 freestyle H8 H9 I9 G7 J10 K11 I8 I10"), None, 50_000)
    again = compiled.think(board, None, 20_000, fresh=True)
    assert first == again


def test_two_threads_never_search_the_same_tables_at_once():
    # Each answer must be the one it gets alone: two searches interleaved on the one set of
    # tables would disturb each other's stacks and counters.
    texts = [MIDGAME, "15x15 k5 freestyle H8 H9 I9 G7 J10 K11 I8 I10"]
    alone = [compiled.think(Board.from_text(t), None, 40_000, fresh=True) for t in texts]
    together: dict[int, compiled.CoreResult] = {}

    def run(i):
        together[i] = compiled.think(Board.from_text(texts[i]), None, 40_000, fresh=True)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [together[0], together[1]] == alone


def test_the_level_api_hands_its_stop_to_the_core():
    from engine.ai import analyse_move

    board = Board.from_text(MIDGAME)
    stop = compiled.Stop()
    stop.set()
    info = analyse_move(board, "impossible", node_limit=2_000_000, stop=stop)
    assert info.nodes < 1_000 and board[info.move] is None



def _uncached(func):
    # The core's dispatcher without its disk cache: a cached caller would be loaded, not
    # compiled, and would never ask for its callee's versions.
    return core._OneVersion(py_func=func, locals={}, targetoptions=dict(core._JIT_OPTIONS))


@_uncached
def _callee(a, b):
    return a + b


@_uncached
def _caller(cells):
    narrow = np.int32(cells[0])
    return _callee(narrow, 0) + _callee(cells[1], 1)


def test_a_compiled_function_has_one_version_whatever_its_callers_pass():
    # engine.ai.core's dispatcher types constants and narrow integers as int64. Should numba stop
    # asking it (a new numba), every helper comes out in several versions again and the core's
    # build takes twice the time and memory: this fails first.
    assert _caller(np.array([1, 2], dtype=np.int32)) == 4
    assert [str(sig) for sig in _callee.signatures] == ["(int64, int64)"]
