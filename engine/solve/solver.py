"""Perfect play: the game-theoretic value of a position and a move that keeps it.

The search is negamax alpha-beta over bitboards with a transposition table keyed by the
position's canonical form under the board's symmetries (8 on square boards, 4 on rectangular
ones). Scores count the distance to the end, so the fastest win and the slowest loss fall out of
the same search:

    win  = WIN - end_ply      (WIN = cells + 1, so every win scores >= 1)
    draw = 0
    loss = -(WIN - end_ply)

`end_ply` is the number of stones on the board when the game ends. Because the stone count of a
position is fixed, a score depends on the position only, never on the path to it, which is what
lets the transposition table (and its per-process memo of bounds) be shared between searches.

Pruning that keeps the search exact:
- a side with an immediate win takes it (the fastest possible win, no search needed);
- a side facing an immediate win must stop it, so only the stopping cells are searched, and if
  no single cell stops every threat the side loses two plies later;
- a line of k that already holds an enemy stone, or needs more stones than its owner has moves
  left, can never be completed; with no completable line for either side the game is a draw, and
  with none for one side that side's score is capped at a draw.

At the root a narrow-window search settles win/draw/loss, a second one the distance, and then
each candidate move is proven best or not by a null-window search of its own (for a draw: that
it does not lose). That last part is the costly one, so only perfect_move with an rng asks for
every best move; analyse and perfect_move without one stop at the first in a fixed order.

What is solved stays solved for the life of the process: the transposition tables per board
spec (bounded by MAX_TABLE_ENTRIES), root answers per exact position (MAX_MEMO_ENTRIES), and
boards of at most FULL_TABLE_MAX_CELLS cells are solved whole on first use. clear_tables()
forgets it all.

The rules are evaluated on bitboards for speed (Board.push validates and builds tuples on every
call); tests check them against Board on every rule.

Boards of up to COMPILED_MAX_CELLS (64) cells are searched by the compiled core in
engine.solve._solver_core (numba): the same search over uint64 bitboards, with its own transposition
table per spec (numpy arrays, two slots per bucket). The pure-Python _Searcher below handles
larger boards and is the reference the compiled core is tested against.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from operator import add
from types import FrameType, ModuleType
from typing import Any, NoReturn

import numpy as np

from ..game.board import Board
from ..game.renju import Stones
from ..game.types import Cell, Rule
from ..support import cores

__all__ = [
    "SolveResult",
    "SolveTimeout",
    "analyse",
    "clear_tables",
    "perfect_move",
    "solve",
]

# Transposition entries kept per process (each a small dict entry). A spec's table
# has two generations: when the young one fills half of this it becomes the old one and the
# previous old one is dropped, so recent entries survive. Starting on another spec when the total
# is over the limit drops the other specs' tables.
MAX_TABLE_ENTRIES = 1_000_000
# Root results kept per process (position -> value and best moves), across all board specs.
MAX_MEMO_ENTRIES = 200_000
# Boards this small are solved whole the first time they are asked about: afterwards every
# position is a dictionary lookup (tic-tac-toe has a few thousand positions).
FULL_TABLE_MAX_CELLS = 9
# Under a tighter time budget the whole-board build is skipped, and the position searched alone.
FULL_TABLE_MIN_TIME = 0.2
# Boards of up to this many cells are searched by the compiled core (one uint64 per side);
# larger ones by the pure-Python search below, which is also the reference the tests compare with.
COMPILED_MAX_CELLS = 64
# Compiled transposition-table entries per board spec, by board size: 20 bytes an entry, so the
# largest is 2**23 entries = 160 MB. Small boards never fill a big table, and a big table costs
# its allocation (and memory in every AI worker that touches the spec).
COMPILED_TABLE_ENTRIES = ((16, 1 << 16), (20, 1 << 20), (24, 1 << 22), (64, 1 << 23))
# Compiled tables kept per process across specs before the others are dropped.
COMPILED_TABLE_MAX_BYTES = 400_000_000
# Clock readings are spaced by work, not nodes: a node scans every line of k, so on 15x15 (572
# lines) the clock is read every few nodes and on 3x3 every few hundred: the readings stay evenly spaced in time.
CLOCK_WORK = 4096


class SolveTimeout(Exception):
    """The time or node budget ran out before the position's value was proven."""

    def __init__(
        self, message: str = "not proven within the budget", nodes: int = 0, seconds: float = 0.0
    ) -> None:
        super().__init__(message)
        self.nodes = nodes
        self.seconds = seconds


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The proven value of a position for the side to move.

    value: 1 the side to move wins, 0 draw, -1 it loses.
    best_move: the first best move in the solver's fixed order: cells on the most lines of k
        first, then the nearest to the centre, then row-major (perfect_move without an rng
        plays it; with one it picks among all the best moves).
    plies: plies from this position to the end of the game under perfect play: the fastest win,
        the slowest loss; for a draw the number of empty cells, since a drawn game ends only when
        the board is full.
    nodes: positions searched by this call (0 when the answer was already known).
    seconds: wall-clock time of this call.
    """

    value: int
    best_move: Cell | None
    plies: int
    nodes: int
    seconds: float


# ----------------------------------------------------------------------------- board geometry
@dataclass(frozen=True, slots=True)
class _Geometry:
    """Everything about a board spec that the search reads but never changes."""

    rows: int
    cols: int
    k: int
    rule: Rule
    cells: int
    # Every line of k cells: (mask, cell just before it, cell just after it); 0 for off-board.
    windows: tuple[tuple[int, int, int], ...]
    windows_by_cell: tuple[tuple[tuple[int, int, int], ...], ...]
    # perms[s][cell] is where symmetry s sends the cell; inverse[s] undoes it.
    perms: tuple[tuple[int, ...], ...]
    inverse: tuple[tuple[int, ...], ...]
    # Canonical-key increments: key_x[cell][s] = 1 << perms[s][cell], key_o shifted by `cells`.
    key_x: tuple[tuple[int, ...], ...]
    key_o: tuple[tuple[int, ...], ...]
    # Cells most likely to matter first: those on the most lines, then nearest the centre.
    order: tuple[int, ...]


def _symmetries(rows: int, cols: int) -> list[tuple[int, ...]]:
    def perm(f: object) -> tuple[int, ...]:
        out = []
        for index in range(rows * cols):
            r, c = divmod(index, cols)
            nr, nc = f(r, c)  # type: ignore[operator]
            out.append(nr * cols + nc)
        return tuple(out)

    r1, c1 = rows - 1, cols - 1
    maps = [
        lambda r, c: (r, c),
        lambda r, c: (r1 - r, c),
        lambda r, c: (r, c1 - c),
        lambda r, c: (r1 - r, c1 - c),
    ]
    if rows == cols:
        maps += [
            lambda r, c: (c, r),
            lambda r, c: (c1 - c, r),
            lambda r, c: (c, r1 - r),
            lambda r, c: (c1 - c, r1 - r),
        ]
    return [perm(f) for f in maps]


@lru_cache(maxsize=32)
def _geometry(rows: int, cols: int, k: int, rule: Rule) -> _Geometry:
    cells = rows * cols

    def bit(r: int, c: int) -> int:
        return 1 << (r * cols + c) if 0 <= r < rows and 0 <= c < cols else 0

    windows: list[tuple[int, int, int]] = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(rows):
            for c in range(cols):
                end_r, end_c = r + (k - 1) * dr, c + (k - 1) * dc
                if not (0 <= end_r < rows and 0 <= end_c < cols):
                    continue
                mask = 0
                for i in range(k):
                    mask |= bit(r + i * dr, c + i * dc)
                windows.append((mask, bit(r - dr, c - dc), bit(end_r + dr, end_c + dc)))
    through: list[list[tuple[int, int, int]]] = [[] for _ in range(cells)]
    for window in windows:
        mask = window[0]
        while mask:
            low_bit = mask & -mask
            through[low_bit.bit_length() - 1].append(window)
            mask ^= low_bit
    by_cell = tuple(tuple(ws) for ws in through)
    perms = _symmetries(rows, cols)
    inverse = []
    for p in perms:
        inv = [0] * cells
        for index, image in enumerate(p):
            inv[image] = index
        inverse.append(tuple(inv))
    key_x = tuple(tuple(1 << p[index] for p in perms) for index in range(cells))
    key_o = tuple(tuple(1 << (cells + p[index]) for p in perms) for index in range(cells))
    mid_r, mid_c = (rows - 1) / 2, (cols - 1) / 2
    order = sorted(
        range(cells),
        key=lambda i: (
            -len(by_cell[i]),
            abs(i // cols - mid_r) + abs(i % cols - mid_c),
            i,
        ),
    )
    return _Geometry(
        rows, cols, k, rule, cells, tuple(windows), by_cell, tuple(perms), tuple(inverse),
        key_x, key_o, tuple(order),
    )


def _wins_at(geo: _Geometry, own: int, opp: int, index: int) -> bool:
    """Whether the side owning `own` (the side to move) wins by playing the empty cell `index`."""
    rule = geo.rule
    if rule is Rule.RENJU:
        rule = _side_rule(rule, (own | opp).bit_count() % 2 == 0)
    own |= 1 << index
    for mask, before, after in geo.windows_by_cell[index]:
        if own & mask == mask and _full_window_wins(rule, own, opp, before, after):
            return True
    return False


def _side_rule(rule: Rule, black: bool) -> Rule:
    """The rule a side's lines are judged by (renju: exact for black, freestyle for white)."""
    if rule is Rule.RENJU:
        return Rule.EXACT if black else Rule.FREESTYLE
    return rule


def _renju_stones(geo: _Geometry, me: int, opp: int) -> Stones | None:
    """Under renju with black to move, the position as engine.game.renju.Stones (to skip black's
    forbidden points); None otherwise."""
    ply = (me | opp).bit_count()
    if geo.rule is not Rule.RENJU or ply % 2:
        return None
    grid = [(me >> i & 1) + 2 * (opp >> i & 1) for i in range(geo.cells)]
    return Stones(geo.rows, geo.cols, grid)


def _full_window_wins(rule: Rule, own: int, opp: int, before: int, after: int) -> bool:
    """Whether a window filled by `own` wins, given the cells just beyond its ends (`before`,
    `after`; 0 at the board edge): an own stone there makes an overline, which only freestyle
    allows, and caro also refuses a line `opp` closes at both ends."""
    return rule is Rule.FREESTYLE or not (
        own & before or own & after or (rule is Rule.CARO and opp & before and opp & after)
    )


# ----------------------------------------------------------------------------- shared tables
# Transposition tables per spec: canonical key -> (lower bound, upper bound, canonical best cell
# or -1). Bounds on distance-to-end scores are true of the position whatever search found them.
_TABLES: dict[tuple[int, int, int, Rule], list[dict[int, tuple[int, int, int]]]] = {}
# Root answers: (spec, stones) -> (score, best cells in the fixed move order, whether that is all
# of them or only the first).
_Answer = tuple[int, tuple[Cell, ...], bool]
_MEMO: dict[tuple[int, int, int, Rule, bytes], _Answer] = {}
_FULL_TABLES_BUILT: set[tuple[int, int, int, Rule]] = set()


def clear_tables() -> None:
    """Forget every solved position (frees memory; the next searches start cold)."""
    _TABLES.clear()
    _CORE_TABLES.clear()
    _MEMO.clear()
    _FULL_TABLES_BUILT.clear()


def _spec(board: Board) -> tuple[int, int, int, Rule]:
    return (board.rows, board.cols, board.k, board.rule)


def _memo_key(board: Board) -> tuple[int, int, int, Rule, bytes]:
    return (board.rows, board.cols, board.k, board.rule, bytes(board.grid))


def _remember(key: tuple[int, int, int, Rule, bytes], answer: _Answer) -> None:
    if len(_MEMO) >= MAX_MEMO_ENTRIES:
        _MEMO.clear()
        _FULL_TABLES_BUILT.clear()
    _MEMO[key] = answer


# ----------------------------------------------------------------------------- the search
class _Budget:
    """Counts nodes and watches the clock; raises SolveTimeout when either runs out."""

    __slots__ = ("start", "deadline", "node_limit", "nodes", "next_check", "every", "ctl", "timer")

    def __init__(self, time_limit: float | None, node_limit: int | None) -> None:
        self.every = 64
        self.start = time.perf_counter()
        self.deadline = None if time_limit is None else self.start + time_limit
        self.node_limit = node_limit
        self.nodes = 0
        self.next_check = 0
        self.ctl: np.ndarray[Any, np.dtype[np.int64]] | None = None
        self.timer: threading.Timer | None = None

    def compiled_control(self) -> np.ndarray[Any, np.dtype[np.int64]]:
        """The compiled core's control array for this budget: its node limit, and a stop flag
        that one timer thread raises at the deadline (the core runs without the GIL and reads
        no clock). One per budget, so a root search of many moves starts one thread, not many."""
        if self.ctl is None:
            core = _compiled()
            ctl = self.ctl = np.zeros(core.CTL_SIZE, dtype=np.int64)
            ctl[core.CTL_NODE_LIMIT] = -1 if self.node_limit is None else self.node_limit
            if self.deadline is not None:
                left = self.deadline - time.perf_counter()
                if left <= 0:
                    ctl[core.CTL_STOP] = 1
                else:
                    self.timer = threading.Timer(left, ctl.__setitem__, (core.CTL_STOP, 1))
                    self.timer.daemon = True
                    self.timer.start()
        return self.ctl

    def close(self) -> None:
        """Stops the timer thread, if one was started."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def check(self) -> None:
        """Called when nodes reaches next_check; sets the next one."""
        if self.node_limit is not None and self.nodes > self.node_limit:
            self.raise_timeout()
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            self.raise_timeout()
        step = self.every
        if self.node_limit is not None:
            step = max(1, min(step, self.node_limit + 1 - self.nodes))
        self.next_check = self.nodes + step

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def raise_timeout(self) -> NoReturn:
        if self.node_limit is not None and self.nodes > self.node_limit:
            message = f"node limit of {self.node_limit:,} reached before the value was proven"
        else:
            assert self.deadline is not None
            message = (
                f"time limit of {self.deadline - self.start:g} s reached"
                " before the value was proven"
            )
        raise SolveTimeout(message, self.nodes, self.elapsed())


class _Searcher:
    """One search over one board spec, sharing the spec's transposition table."""

    def __init__(self, geo: _Geometry, budget: _Budget) -> None:
        self.geo = geo
        self.budget = budget
        spec = (geo.rows, geo.cols, geo.k, geo.rule)
        tables = _TABLES.get(spec)
        if sum(len(young) + len(old) for young, old in _TABLES.values()) > MAX_TABLE_ENTRIES:
            _TABLES.clear()
            if tables is not None:
                _TABLES[spec] = tables
        if tables is None:
            tables = _TABLES[spec] = [{}, {}]
        self.tables = tables  # [young, old]
        budget.every = max(1, CLOCK_WORK // (len(geo.windows) + geo.cells // 4 + 1))
        self.win = geo.cells + 1

    def search(self, me: int, opp: int, keys: list[int], alpha: int, beta: int) -> int:
        """Score of a position that is not over, for the side to move (fail-soft alpha-beta).

        me/opp are the bitboards of the side to move and of the other side; keys are the
        position's exact keys under each symmetry (X stones low, O stones shifted by `cells`).
        """
        budget = self.budget
        budget.nodes += 1
        if budget.nodes >= budget.next_check:
            budget.check()
        geo = self.geo
        cells = geo.cells
        occupied = me | opp
        ply = occupied.bit_count()
        rule = their_rule = geo.rule
        if rule is Rule.RENJU:
            rule = _side_rule(geo.rule, ply % 2 == 0)
            their_rule = _side_rule(geo.rule, ply % 2 == 1)
        empty_count = cells - ply
        my_moves = (empty_count + 1) // 2
        their_moves = empty_count // 2
        win = self.win

        # One pass over the lines: immediate wins, the opponent's threats, and which side can
        # still complete any line at all.
        my_live = False
        their_live = False
        threats: list[tuple[int, int, int]] = []
        for mask, before, after in geo.windows:
            mine = mask & me
            theirs = mask & opp
            if not theirs:
                missing = mask ^ mine
                need = missing.bit_count()
                if need <= my_moves:
                    my_live = True
                    if need == 1 and _full_window_wins(rule, me, opp, before, after):
                        return win - ply - 1
            elif not mine:
                missing = mask ^ theirs
                need = missing.bit_count()
                if need <= their_moves:
                    their_live = True
                    if need == 1 and _full_window_wins(their_rule, opp, me, before, after):
                        threats.append((missing, before, after))
        if empty_count == 1 or not (my_live or their_live):
            return 0

        # Bounds that hold whatever is searched: no win before my next-but-one move, no loss
        # before the opponent's next move, and a side with no completable line cannot win.
        high = win - ply - 3 if my_live else 0
        low = -(win - ply - 2) if their_live else 0
        if threats:
            # Only a move that stops every threat avoids losing at once.
            empty = ((1 << cells) - 1) ^ occupied
            candidates = empty
            for missing, before, after in threats:
                stops = missing
                if rule is Rule.CARO:
                    # A caro line blocked at both ends does not win, so an end can stop it.
                    if before and after & me:
                        stops |= before & empty
                    if after and before & me:
                        stops |= after & empty
                candidates &= stops
            if not candidates:
                return low
        else:
            candidates = -1
        if high <= low:
            return low
        if low >= beta:
            return low
        if high <= alpha:
            return high

        tables = self.tables
        key = min(keys)
        sym = keys.index(key)
        entry = tables[0].get(key)
        if entry is None:
            entry = tables[1].get(key)
        hint = -1
        if entry is not None:
            lo, hi, canon_move = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
            if lo > low:
                low = lo
            if hi < high:
                high = hi
            if canon_move >= 0:
                hint = geo.inverse[sym][canon_move]
            if low >= high:
                return low
        a = alpha if alpha > low else low
        b = beta if beta < high else high

        key_table = geo.key_x if ply % 2 == 0 else geo.key_o
        best = -win - 1
        best_move = -1
        order = geo.order if hint < 0 else (hint, *geo.order)
        searched_hint = False
        # Black's forbidden points under renju are no moves: with none left, the bounds answer.
        stones = _renju_stones(geo, me, opp) if geo.rule is Rule.RENJU else None
        for index in order:
            bit = 1 << index
            if not (candidates & bit) or occupied & bit:
                continue
            if stones is not None and stones.is_forbidden(divmod(index, geo.cols)):
                continue
            if index == hint:
                if searched_hint:
                    continue
                searched_hint = True
            child_keys = list(map(add, keys, key_table[index]))
            score = -self.search(opp, me | bit, child_keys, -b, -a)
            if score > best:
                best = score
                best_move = index
                if score > a:
                    a = score
                    if a >= b:
                        break
        # Fail-soft results outside the window are bounds; inside it they are exact.
        if best < low:
            best = low
        if best > high:
            best = high
        old_lo, old_hi = (low, high) if entry is None else (entry[0], entry[1])
        new_lo, new_hi = old_lo, old_hi
        alpha_w = alpha if alpha > low else low
        beta_w = beta if beta < high else high
        if best <= alpha_w:
            new_hi = min(old_hi, best)
        elif best >= beta_w:
            new_lo = max(old_lo, best)
        else:
            new_lo = new_hi = best
        new_lo = max(new_lo, low)
        new_hi = min(new_hi, high)
        young = tables[0]
        if len(young) >= MAX_TABLE_ENTRIES // 2:
            tables[1] = young
            young = tables[0] = {}
        canon_best = geo.perms[sym][best_move] if best_move >= 0 else -1
        young[key] = (new_lo, new_hi, canon_best)
        return best


# ----------------------------------------------------------------------------- compiled core
def _compiled() -> ModuleType:
    """engine.solve._solver_core, imported on first use: it loads numba, which a process playing with
    the pure-Python search until the cores are built (engine.support.cores) does without."""
    from . import _solver_core

    return _solver_core


class _CoreTables:
    """One board spec's geometry as arrays, and its compiled transposition table."""

    def __init__(self, geo: _Geometry, entries: int) -> None:
        core = _compiled()
        self.cells = geo.cells
        self.rule = {
            Rule.FREESTYLE: core.RULE_FREESTYLE,
            Rule.EXACT: core.RULE_EXACT,
            Rule.CARO: core.RULE_CARO,
        }[geo.rule]
        self.wmask = np.array([w[0] for w in geo.windows], dtype=np.uint64)
        self.wbefore = np.array([w[1] for w in geo.windows], dtype=np.uint64)
        self.wafter = np.array([w[2] for w in geo.windows], dtype=np.uint64)
        self.order = np.array(geo.order, dtype=np.int64)
        self.perms = np.array(geo.perms, dtype=np.int64)
        self.inverse = np.array(geo.inverse, dtype=np.int64)
        self.symbit = np.array(
            [[1 << p[cell] for p in geo.perms] for cell in range(geo.cells)], dtype=np.uint64
        )
        self.tt_x = np.zeros(entries, dtype=np.uint64)
        self.tt_o = np.zeros(entries, dtype=np.uint64)
        self.tt_lo = np.zeros(entries, dtype=np.int8)
        self.tt_hi = np.zeros(entries, dtype=np.int8)
        self.tt_move = np.zeros(entries, dtype=np.int8)
        self.tt_depth = np.zeros(entries, dtype=np.uint8)
        self.nbytes = entries * 20

    def search(
        self, x: int, o: int, ply: int, alpha: int, beta: int, budget: _Budget
    ) -> int:
        """Score of a position that is not over for the side to move; SolveTimeout when the
        budget runs out."""
        core = _compiled()
        ctl = budget.compiled_control()
        ctl[core.CTL_NODES] = budget.nodes
        score = core.search_position(
            np.uint64(x), np.uint64(o), ply, alpha, beta,
            self.cells, self.rule, self.wmask, self.wbefore, self.wafter, self.order,
            self.perms, self.inverse, self.symbit,
            self.tt_x, self.tt_o, self.tt_lo, self.tt_hi, self.tt_move, self.tt_depth, ctl,
        )
        budget.nodes = int(ctl[core.CTL_NODES])
        if ctl[core.CTL_ABORTED]:
            budget.raise_timeout()
        return int(score)


_CORE_TABLES: dict[tuple[int, int, int, Rule], _CoreTables] = {}


def _core_tables(geo: _Geometry) -> _CoreTables:
    spec = (geo.rows, geo.cols, geo.k, geo.rule)
    tables = _CORE_TABLES.get(spec)
    if tables is None:
        entries = next(n for most, n in COMPILED_TABLE_ENTRIES if geo.cells <= most)
        if sum(t.nbytes for t in _CORE_TABLES.values()) + entries * 20 > COMPILED_TABLE_MAX_BYTES:
            _CORE_TABLES.clear()
        tables = _CORE_TABLES[spec] = _CoreTables(geo, entries)
    return tables


# (side to move's stones, other side's stones, alpha, beta) -> score of that position.
_SearchFn = Callable[[int, int, int, int], int]


def _search_fn(geo: _Geometry, budget: _Budget) -> _SearchFn:
    """The exact search for positions of this spec: compiled when the board fits a uint64."""
    # Renju's forbidden moves are the pure-Python search's only.
    if geo.cells <= COMPILED_MAX_CELLS and geo.rule is not Rule.RENJU and cores.usable():
        tables = _core_tables(geo)

        def compiled(me: int, opp: int, alpha: int, beta: int) -> int:
            ply = (me | opp).bit_count()
            x, o = (me, opp) if ply % 2 == 0 else (opp, me)
            return tables.search(x, o, ply, alpha, beta, budget)

        return compiled
    searcher = _Searcher(geo, budget)
    _ensure_recursion(geo.cells)
    return lambda me, opp, alpha, beta: searcher.search(
        me, opp, _keys(geo, me, opp), alpha, beta
    )


def _keys(geo: _Geometry, me: int, opp: int) -> list[int]:
    """The symmetric keys of a position given by the side to move's and the other's stones."""
    ply = (me | opp).bit_count()
    x, o = (me, opp) if ply % 2 == 0 else (opp, me)
    keys = [0] * len(geo.perms)
    for index in range(geo.cells):
        if x >> index & 1:
            keys = list(map(add, keys, geo.key_x[index]))
        elif o >> index & 1:
            keys = list(map(add, keys, geo.key_o[index]))
    return keys


# ----------------------------------------------------------------------------- public API
def _check_limits(time_limit: float | None, node_limit: int | None) -> None:
    if time_limit is not None and (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, int | float)
        or not time_limit >= 0
    ):
        raise ValueError(f"time_limit must be a number of seconds >= 0, not {time_limit!r}")
    if node_limit is not None and (
        isinstance(node_limit, bool) or not isinstance(node_limit, int) or node_limit < 1
    ):
        raise ValueError(f"node_limit must be a whole number >= 1, not {node_limit!r}")


def _bitboards(board: Board, geo: _Geometry) -> tuple[int, int, list[int]]:
    """(stones of the side to move, stones of the other side, symmetric keys)."""
    x = o = 0
    keys = [0] * len(geo.perms)
    for index, value in enumerate(board.grid):
        if value == 1:
            x |= 1 << index
            keys = list(map(add, keys, geo.key_x[index]))
        elif value == 2:
            o |= 1 << index
            keys = list(map(add, keys, geo.key_o[index]))
    if board.ply % 2 == 0:
        return x, o, keys
    return o, x, keys


def _root_value(board: Board, budget: _Budget) -> int:
    """1, 0 or -1: the sign of the position's score, by a search with the narrowest window."""
    geo = _geometry(board.rows, board.cols, board.k, board.rule)
    search = _search_fn(geo, budget)
    me, opp, _ = _bitboards(board, geo)
    value = search(me, opp, -1, 1)
    return 0 if value == 0 else (1 if value > 0 else -1)


def _root(board: Board, budget: _Budget, every_best: bool) -> _Answer:
    """(score, best moves in the fixed order, complete) of a position that is not over.

    Proving a move best costs a search of its own (for a draw: that it does not lose), so unless
    `every_best` is asked for, the moves are tried in the fixed order and the first best one ends
    the work. The fixed order (lines through the cell, then nearness to the centre) does not
    depend on what earlier searches left in the tables, so the answer is reproducible.
    """
    geo = _geometry(board.rows, board.cols, board.k, board.rule)
    search = _search_fn(geo, budget)
    me, opp, _ = _bitboards(board, geo)
    cells = geo.cells
    win = cells + 1
    ply = board.ply

    def child_score(index: int, alpha: int, beta: int) -> int:
        """Score of playing `index`, for the side to move now."""
        if _wins_at(geo, me, opp, index):
            return win - ply - 1
        if ply + 1 == cells:
            return 0
        return -search(opp, me | 1 << index, -beta, -alpha)

    # A narrow window settles win/draw/loss cheaply; the distance is then refined only on the
    # side of zero where it lies.
    inf = win + 1
    value = search(me, opp, -1, 1)
    if value > 0:
        score = search(me, opp, 0, inf)
    elif value < 0:
        score = search(me, opp, -inf, 0)
    else:
        score = 0
    occupied = me | opp
    stones = _renju_stones(geo, me, opp)
    best: list[Cell] = []
    for index in geo.order:
        if occupied >> index & 1:
            continue
        if stones is not None and stones.is_forbidden(divmod(index, geo.cols)):
            continue
        # Null window: no move beats the position's score, so "not below it" means "equal".
        if child_score(index, score - 1, score) >= score:
            best.append(divmod(index, geo.cols))
            if not every_best:
                break
    return score, tuple(best), every_best


def _ensure_recursion(depth: int) -> None:
    # One Python frame per ply: a nearly empty 26x26 board can need ~700 of them, close to the
    # default limit of 1000; Python 3.11+ keeps pure-Python recursion off the C stack.
    frame: FrameType | None = sys._getframe()
    used = 0
    while frame is not None:
        used += 1
        frame = frame.f_back
    needed = used + depth + 100
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def _build_full_table(spec: tuple[int, int, int, Rule]) -> None:
    """Solve every reachable position of a tiny board at once, by plain minimax."""
    geo = _geometry(*spec)
    cells = geo.cells
    win = cells + 1
    scores: dict[tuple[int, int], int] = {}

    def score_of(x: int, o: int, ply: int) -> int:
        known = scores.get((x, o))
        if known is not None:
            return known
        me, opp = (x, o) if ply % 2 == 0 else (o, x)
        results: list[int] = []
        for index in range(cells):
            bit = 1 << index
            if (x | o) & bit:
                results.append(-win - 1)
            elif _wins_at(geo, me, opp, index):
                results.append(win - ply - 1)
            elif ply + 1 == cells:
                results.append(0)
            elif ply % 2 == 0:
                results.append(-score_of(x | bit, o, ply + 1))
            else:
                results.append(-score_of(x, o | bit, ply + 1))
        best = max(results)
        scores[(x, o)] = best
        grid = bytes((x >> i & 1) + 2 * (o >> i & 1) for i in range(cells))
        moves = tuple(divmod(i, geo.cols) for i in geo.order if results[i] == best)
        _remember((*spec, grid), (best, moves, True))
        return best

    score_of(0, 0, 0)
    _FULL_TABLES_BUILT.add(spec)


def _answer(
    board: Board,
    time_limit: float | None,
    node_limit: int | None,
    *,
    value_only: bool = False,
    every_best: bool = False,
) -> tuple[int, tuple[Cell, ...], _Budget]:
    """(score, best moves, budget used) of the position; with value_only the score is only
    its sign (1, 0, -1) and no moves are given, which spares the distance and per-move work;
    otherwise the first best move in the fixed order, or every best move if asked."""
    if not isinstance(board, Board):
        raise TypeError(f"expected a Board, not {type(board).__name__}")
    _check_limits(time_limit, node_limit)
    if board.is_over():
        raise ValueError("the game is over: there is nothing left to solve")
    budget = _Budget(time_limit, node_limit)
    try:
        return _answer_within(board, budget, value_only=value_only, every_best=every_best)
    finally:
        budget.close()


def _answer_within(
    board: Board, budget: _Budget, *, value_only: bool, every_best: bool
) -> tuple[int, tuple[Cell, ...], _Budget]:
    spec = _spec(board)
    time_limit = None if budget.deadline is None else budget.deadline - budget.start
    memo_key = _memo_key(board)
    known = _MEMO.get(memo_key)
    if (
        known is None
        and board.rows * board.cols <= FULL_TABLE_MAX_CELLS
        and board.rule is not Rule.RENJU
        and spec not in _FULL_TABLES_BUILT
        and (time_limit is None or time_limit >= FULL_TABLE_MIN_TIME)
    ):
        _build_full_table(spec)
        known = _MEMO.get(memo_key)
    if known is None and value_only:
        return _root_value(board, budget), (), budget
    if known is None or (every_best and not known[2]):
        known = _root(board, budget, every_best)
        _remember(memo_key, known)
    return known[0], known[1], budget


def _value_and_plies(board: Board, score: int) -> tuple[int, int]:
    cells = board.rows * board.cols
    if score == 0:
        return 0, cells - board.ply
    end_ply = cells + 1 - abs(score)
    return (1 if score > 0 else -1), end_ply - board.ply


def solve(board: Board, *, time_limit: float | None = None, node_limit: int | None = None) -> int:
    """Game-theoretic value for the side to move: 1 wins, 0 draw, -1 loses.

    ValueError if the game is already over; SolveTimeout if the budget runs out first.
    The board is never changed.
    """
    score, _, _ = _answer(board, time_limit, node_limit, value_only=True)
    return 0 if score == 0 else (1 if score > 0 else -1)


def analyse(
    board: Board, *, time_limit: float | None = None, node_limit: int | None = None
) -> SolveResult:
    """Value, best move, plies to the end, nodes and time for the side to move."""
    score, best, budget = _answer(board, time_limit, node_limit)
    value, plies = _value_and_plies(board, score)
    return SolveResult(
        value=value,
        best_move=best[0] if best else None,
        plies=plies,
        nodes=budget.nodes,
        seconds=budget.elapsed(),
    )


def perfect_move(
    board: Board,
    *,
    rng: random.Random | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
) -> Cell:
    """A move that keeps the best value, the fastest win or the slowest loss.

    Among equally good moves: a choice by `rng` if given (reproducible), else the first in the
    fixed order (see SolveResult.best_move). SolveTimeout if the value cannot be proven within
    the budget.
    """
    try:
        _, best, _ = _answer(board, time_limit, node_limit, every_best=rng is not None)
    except SolveTimeout:
        # Proving every best move ran out of budget, but if one is already proven (say by an
        # analyse just before), playing it is still perfect play: better than no move at all.
        known = _MEMO.get(_memo_key(board)) if rng is not None else None
        if known is None or not known[1]:
            raise
        return known[1][0]
    if rng is None:
        return best[0]
    return best[rng.randrange(len(best))]


def exercise_core() -> None:
    """Call the compiled core once, so that numba loads (or, in a build, compiles) it now."""
    geo = _geometry(3, 4, 3, Rule.FREESTYLE)
    tables = _CoreTables(geo, 4)
    tables.search(1, 2, 2, -1, 1, _Budget(None, None))
