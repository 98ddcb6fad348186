"""Typed front of the compiled core (engine.ai.core): board in, move out.

Tables are built once per board shape and rule; the transposition, failure and proof-number
tables are allocated once per process and kept between moves of the same shape (entries are
about positions, so they stay true; a generation number lets new results replace old ones
first). Under a node limit the threat searches' tables start empty, so the move is reproducible.
The threat searches run are engine.ai.pns's: the core's VCF, then the proof-number VCT.

The core runs without the GIL: other threads go on while it thinks, and one of them can end a
search early through a Stop handed to think(). One lock keeps two searches off the tables at once.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ..game.board import DIRECTIONS, Board, zobrist_keys
from ..game.notation import MAX_SIDE
from ..game.renju import Shape
from ..game.types import Cell, Rule
from . import core, patterns, pns
from .core import Ctx, Geo, State
from .pns import PnTable
from .stop import Stop

RULE_CODES = {
    Rule.FREESTYLE: core.FREESTYLE,
    Rule.EXACT: core.EXACT,
    Rule.CARO: core.CARO,
    Rule.RENJU: core.RENJU,
}
NEAR_RADIUS = 2
WORTH_LEVELS = 8
TT_BUCKETS = 1 << 18  # two entries each: about 15 MB per process
FAIL_ENTRIES = 1 << 18
PN_ENTRIES = 1 << 18  # the proof-number search's table: about 7 MB per process
MAX_DEPTH = 64
# Share of the time left after the fours that the threes' threat search may take.
VCT_SHARE = 0.15
VCT_THREES = 4
GUARD_THREES = 3
SEARCH_SHARE = 0.85  # of the move's time: the rest is for the guard's check of the reply
# No iteration of the main search starts after this share of the move's time: the next one
# usually takes longer than all before it, so it would be cut short.
SOFT_SHARE = 0.5


@lru_cache(maxsize=32)
def geometry(rows: int, cols: int, k: int, rule: Rule) -> Geo:
    """The core's tables for one board shape and rule."""
    size = rows * cols
    windows: list[list[int]] = []
    starts: dict[tuple[int, int], int] = {}  # (direction, first cell) -> window
    for d, (dr, dc) in enumerate(DIRECTIONS):
        for r in range(rows):
            for c in range(cols):
                end_r, end_c = r + (k - 1) * dr, c + (k - 1) * dc
                if 0 <= end_r < rows and 0 <= end_c < cols:
                    starts[d, r * cols + c] = len(windows)
                    windows.append([(r + i * dr) * cols + c + i * dc for i in range(k)])
    # The line of 2k-1 cells centred on each cell, per direction (see Geo.lspan and Geo.lw).
    lspan = np.zeros((size, len(DIRECTIONS), 2), dtype=np.int32)
    lw = np.full((size, len(DIRECTIONS), k), -1, dtype=np.int32)
    for r in range(rows):
        for c in range(cols):
            for d, (dr, dc) in enumerate(DIRECTIONS):
                on = [
                    q for q in range(2 * k - 1)
                    if 0 <= r + (q - k + 1) * dr < rows and 0 <= c + (q - k + 1) * dc < cols
                ]
                lspan[r * cols + c, d] = (on[0], on[-1])
                for i in range(k):
                    first = (r + (i - k + 1) * dr) * cols + c + (i - k + 1) * dc
                    w = starts.get((d, first), -1) if i >= on[0] else -1
                    lw[r * cols + c, d, i] = w
    per_cell: list[list[int]] = [[] for _ in range(size)]
    for w, cells in enumerate(windows):
        for cell in cells:
            per_cell[cell].append(w)
    wcells = np.array(windows, dtype=np.int32).reshape(len(windows), k)
    widest = max(1, max(len(ws) for ws in per_cell))
    cw = np.full((size, widest), -1, dtype=np.int32)
    cwn = np.zeros(size, dtype=np.int32)
    for cell, ws in enumerate(per_cell):
        cw[cell, : len(ws)] = ws
        cwn[cell] = len(ws)
    nearc = np.full((size, (2 * NEAR_RADIUS + 1) ** 2), -1, dtype=np.int32)
    nearn = np.zeros(size, dtype=np.int32)
    for r in range(rows):
        for c in range(cols):
            cells = [
                rr * cols + cc
                for rr in range(max(0, r - NEAR_RADIUS), min(rows, r + NEAR_RADIUS + 1))
                for cc in range(max(0, c - NEAR_RADIUS), min(cols, c + NEAR_RADIUS + 1))
                if (rr, cc) != (r, c)
            ]
            nearc[r * cols + c, : len(cells)] = cells
            nearn[r * cols + c] = len(cells)
    # A live window of c stones is worth 8**c: one longer line outweighs many shorter ones. For
    # long k only the last WORTH_LEVELS counts keep growing, so that the sums stay far below the
    # search's win values (and within 64 bits) on any board.
    shift = max(0, k - WORTH_LEVELS)
    worth = np.array([8 ** max(1, c - shift) if c else 0 for c in range(k + 1)], dtype=np.int64)
    gain = np.zeros(k + 1, dtype=np.int64)
    gain[:k] = worth[1:] - worth[:-1]
    pat = _pattern_geometry(rows, cols, k, rule)
    _, x_keys, o_keys = zobrist_keys(rows, cols)
    zob = np.zeros((3, size), dtype=np.int64)
    # The board's unsigned 64-bit keys, read as signed (numba's arithmetic stays in int64).
    zob[1] = np.array(x_keys, dtype=np.uint64).view(np.int64)
    zob[2] = np.array(o_keys, dtype=np.uint64).view(np.int64)
    return Geo(
        rows, cols, k, RULE_CODES[rule], size, wcells, cw, cwn, nearc, nearn, worth, gain, zob,
        np.array([d[0] for d in DIRECTIONS], dtype=np.int32),
        np.array([d[1] for d in DIRECTIONS], dtype=np.int32),
        np.array([dr * cols + dc for dr, dc in DIRECTIONS], dtype=np.int32),
        lspan,
        lw,
        *pat,
    )


_COMBO32 = patterns.COMBO.astype(np.int32)
NetTables = tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int64]]


def _pattern_geometry(rows: int, cols: int, k: int, rule: Rule) -> tuple[Any, ...]:
    """Geo's pattern-board fields (engine.ai.patterns): on for five in a row, else off with
    empty tables of the same types."""
    size = rows * cols
    if k != patterns.K:
        return (0, 3, np.full((size, 4, patterns.DIGITS), -1, dtype=np.int32),
                np.ones(patterns.DIGITS, dtype=np.int64), np.zeros((3, 1), dtype=np.int8),
                np.zeros(1, dtype=np.int32), np.zeros((3, 1), dtype=np.int8),
                np.zeros((3, 2, 1), dtype=np.int64),
                1024, 2, np.zeros((3, 1, 0), dtype=np.int32), np.zeros(0, dtype=np.int64),
                np.zeros(0, dtype=np.int64))
    tables = patterns.tables(rule)
    weights = patterns.weights(rule)
    ln = np.full((size, 4, patterns.DIGITS), -1, dtype=np.int32)
    for r in range(rows):
        for c in range(cols):
            for d, (dr, dc) in enumerate(DIRECTIONS):
                for j in range(patterns.DIGITS):
                    o = -(j + 1) if j < patterns.REACH else j - patterns.REACH + 1
                    rr, cc = r + o * dr, c + o * dc
                    if 0 <= rr < rows and 0 <= cc < cols:
                        ln[r * cols + c, d, j] = rr * cols + cc
    ppow = np.array([tables.base ** j for j in range(patterns.DIGITS)], dtype=np.int64)
    edge = 3 if tables.base == 4 else 2
    return (1, tables.base, ln, ppow, tables.line, _COMBO32,
            np.ascontiguousarray(tables.comb[:, patterns.FIRST_KEY]), patterns.combo_values(rule),
            weights.windows, edge, *_rule_net(rule))


@lru_cache(maxsize=8)
def _rule_net(rule: Rule) -> NetTables:
    """One copy of the rule's hidden-layer tables for every board size's geometry."""
    net = patterns.weights(rule).net
    if net is None:
        return net_tables(patterns.net_combo_values(rule), np.zeros(0, dtype=np.int64),
                          np.zeros(0, dtype=np.int64))
    return net_tables(patterns.net_combo_values(rule), net.bias, net.out)


def net_tables(values: npt.NDArray[np.int64], bias: npt.NDArray[np.int64],
               out: npt.NDArray[np.int64]) -> NetTables:
    """Geo's nkv, nb1 and nw2 from engine.ai.patterns.net_combo_values and the units' biases and
    weights: the rows laid out [mark, combination, side * NET_UNITS + unit], so that a cell's
    change of combination moves both sides' sums in one short loop over one row, in 32 bits (the
    sums stay below a few million); a narrower net padded with units that add nothing (the
    core's loops have core.NET_UNITS turns); no units at all without a net."""
    marks, sides, combos, units = values.shape
    if units == 0:
        return (np.zeros((marks, combos, 0), dtype=np.int32), np.zeros(0, dtype=np.int64),
                np.zeros(0, dtype=np.int64))
    if units > core.NET_UNITS:
        raise ValueError(f"a net of {units} hidden units: the core plays at most {core.NET_UNITS}")
    # Every cell of the largest board at a key's largest number must still fit.
    if int(np.abs(values).max()) * MAX_SIDE * MAX_SIDE >= 2**31:
        raise ValueError("the hidden layer's numbers are too large for the core's 32-bit sums")
    padded = np.zeros((marks, sides, combos, core.NET_UNITS), dtype=np.int64)
    padded[..., :units] = values
    rows = padded.transpose(0, 2, 1, 3).reshape(marks, combos, sides * core.NET_UNITS)
    nb1 = np.zeros(core.NET_UNITS, dtype=np.int64)
    nw2 = np.zeros(core.NET_UNITS, dtype=np.int64)
    nb1[:units], nw2[:units] = bias, out
    return np.ascontiguousarray(rows, dtype=np.int32), nb1, nw2


def new_state(g: Geo, moves: list[int] | None = None) -> State:
    size, nw = g.size, g.wcells.shape[0]
    s = State(
        grid=np.zeros(size, dtype=np.int8),
        cnt=np.zeros((3, nw), dtype=np.int32),
        attack=np.zeros((3, size), dtype=np.int64),
        t4=np.zeros((3, size), dtype=np.int32),
        t3=np.zeros((3, size), dtype=np.int32),
        t2=np.zeros((3, size), dtype=np.int32),
        sums=np.zeros(3, dtype=np.int64),
        n4=np.zeros(3, dtype=np.int64),
        near=np.zeros(size, dtype=np.int32),
        moves=np.zeros(size + 1, dtype=np.int32),
        info=np.zeros(3, dtype=np.int64),
        n3=np.zeros(3, dtype=np.int64),
        wdelta=np.zeros((2, g.k), dtype=np.int64),
        t3m=np.zeros((3, (size + 63) // 64), dtype=np.int64),
        rf=np.zeros((size + 1, core.RF_COLS), dtype=np.int32),
        pcode=np.zeros((3, size, 4), dtype=np.int32),
        pcls=np.zeros((3, size, 4), dtype=np.int8),
        pkey=np.zeros((3, size), dtype=np.int32),
        p4=np.zeros((3, size), dtype=np.int8),
        psum=np.zeros((3, 2), dtype=np.int64),
        nacc=np.zeros((size + 1, 3, 2 * g.nb1.shape[0]), dtype=np.int32),
        plog=np.zeros((size + 1, 2 * 4 * patterns.DIGITS), dtype=np.int64),
        plogn=np.zeros(size + 1, dtype=np.int32),
        psave=np.zeros((size + 1, 3, 2), dtype=np.int64),
    )
    core.load(g, s, np.array(moves or [], dtype=np.int32))
    return s


def state_of(board: Board) -> tuple[Geo, State]:
    """The core's copy of `board` (its stones played in order, X first)."""
    g = geometry(board.rows, board.cols, board.k, board.rule)
    cols = board.cols
    return g, new_state(g, [row * cols + col for row, col in board.moves])


def new_ctx(size: int) -> Ctx:
    return Ctx(
        tt_key=np.zeros(2 * TT_BUCKETS, dtype=np.int64),
        tt_val=np.zeros(2 * TT_BUCKETS, dtype=np.int64),
        tt_move=np.zeros(2 * TT_BUCKETS, dtype=np.int32),
        tt_depth=np.full(2 * TT_BUCKETS, -1, dtype=np.int32),
        tt_flag=np.zeros(2 * TT_BUCKETS, dtype=np.int8),
        tt_gen=np.zeros(2 * TT_BUCKETS, dtype=np.int32),
        killers=np.full((core.MAX_PLY, 2), -1, dtype=np.int32),
        history=np.zeros((3, size), dtype=np.int64),
        movebuf=np.zeros((core.MAX_PLY, size), dtype=np.int32),
        scorebuf=np.zeros((core.MAX_PLY, size), dtype=np.int64),
        wbuf=np.zeros((core.MAX_PLY, size), dtype=np.int32),
        bbuf=np.zeros((core.MAX_PLY, size), dtype=np.int32),
        stamp=np.zeros(size, dtype=np.int32),
        scratch=np.zeros(size, dtype=np.int32),
        root=np.zeros(size, dtype=np.int32),
        rootval=np.zeros(size, dtype=np.int64),
        fail_key=np.zeros(FAIL_ENTRIES, dtype=np.int64),
        fail_depth=np.full(FAIL_ENTRIES, -1, dtype=np.int32),
        vframes=np.zeros((core.MAX_PLY, 16), dtype=np.int64),
        frames=np.zeros((core.MAX_PLY, 16), dtype=np.int64),
        stat=np.zeros(16, dtype=np.int64),
        counter=np.full((3, size), -1, dtype=np.int32),
    )


def new_table(size: int) -> PnTable:
    return PnTable(
        key=np.zeros(PN_ENTRIES, dtype=np.int64),
        phi=np.zeros(PN_ENTRIES, dtype=np.int64),
        delta=np.zeros(PN_ENTRIES, dtype=np.int64),
        budget=np.full(PN_ENTRIES, -1, dtype=np.int32),
        cphi=np.zeros((core.MAX_PLY, size), dtype=np.int64),
        cdelta=np.zeros((core.MAX_PLY, size), dtype=np.int64),
        cbud=np.zeros((core.MAX_PLY, size), dtype=np.int32),
        frames=np.zeros((core.MAX_PLY, 16), dtype=np.int64),
    )


# Held for the whole of a think(): the tables are one per process, and two searches on them at
# once (say a cut-short one still unwinding and the next) would corrupt each other's stacks.
_search_lock = threading.Lock()


_ctx_cache: dict[tuple[int, int, int, Rule], tuple[Ctx, PnTable]] = {}


def _ctx_for(board: Board) -> tuple[Ctx, PnTable]:
    """This process's search tables for the board's shape (one shape kept at a time)."""
    key = (board.rows, board.cols, board.k, board.rule)
    tables = _ctx_cache.get(key)
    if tables is None:
        _ctx_cache.clear()
        size = board.rows * board.cols
        tables = _ctx_cache[key] = (new_ctx(size), new_table(size))
    return tables


@dataclass(frozen=True, slots=True)
class CoreResult:
    move: int  # flat cell index
    value: int  # for the side to move; beyond core.WON a forced result
    depth: int  # deepest full iteration, or the threat line's length
    nodes: int
    kind: str  # "win", "vcf", "vct", "search" or "guard"
    ranking: tuple[int, ...]  # root moves best first (search only)


_rate: float | None = None
# Where the cycle counter is missing (it reads 0), the clock becomes a node count at this rate.
FALLBACK_NODES_PER_SECOND = 100_000


def cycles_per_second() -> float:
    """The rate of the core's cycle counter, measured once per process against perf_counter
    (0.0 where the counter does not run)."""
    global _rate
    if _rate is None:
        c0, t0 = core.cycles(), time.perf_counter()
        while time.perf_counter() - t0 < 0.02:
            pass
        c1, t1 = core.cycles(), time.perf_counter()
        _rate = max(0.0, (c1 - c0) / (t1 - t0))
    return _rate


def _begin(ctx: Ctx, deadline: float, node_limit: int | None, stop: Stop | None = None) -> None:
    """Counters for a new phase: stop at the perf_counter `deadline`, after `node_limit` or when
    `stop` is set."""
    ctx.stat[0] = 0
    ctx.stat[2] = 0
    ctx.stat[6] = 0
    ctx.stat[7] = 0
    ctx.stat[9] = 0
    ctx.history[:] = 0
    ctx.killers[:] = -1
    ctx.counter[:] = -1
    ctx.stat[1] = node_limit or 0
    ctx.stat[5] = (1 << 62) - 1
    if math.isfinite(deadline):
        rate = cycles_per_second()
        left = max(0.0, deadline - time.perf_counter())
        if rate > 0:
            ctx.stat[5] = core.cycles() + int(left * rate)
        else:
            ctx.stat[1] = max(1, min(ctx.stat[1] or 1 << 62, int(left * FALLBACK_NODES_PER_SECOND)))
    if stop is not None:
        stop.arm(ctx)


def _cycles_at(moment: float) -> int:
    if not math.isfinite(moment) or cycles_per_second() <= 0:
        return (1 << 62) - 1
    return int(core.cycles() + max(0.0, moment - time.perf_counter()) * cycles_per_second())


def think(
    board: Board,
    deadline: float | None,
    node_limit: int | None = None,
    *,
    stop: Stop | None = None,
    fresh: bool = False,
) -> CoreResult:
    """The core's move for the side to move on `board` (not over), by the perf_counter
    `deadline` or within `node_limit` nodes (reproducible: the clock is then not read), or
    sooner when `stop` is set. With `fresh`, the tables start empty, as in a new process, so
    that with a node limit the answer depends on nothing searched before.

    Thread-safe: a second think() waits for the first to end."""
    if board.is_over():
        raise ValueError("the game is over: there is no move to think about")
    with _search_lock:
        try:
            return _think(board, deadline, node_limit, stop, fresh)
        finally:
            if stop is not None:
                stop.disarm()


def _think(
    board: Board, deadline: float | None, node_limit: int | None, stop: Stop | None, fresh: bool
) -> CoreResult:
    g, s = state_of(board)
    if fresh:
        _ctx_cache.clear()
    ctx, tab = _ctx_for(board)
    if node_limit is not None:
        # The threat searches read afresh under a node limit; with `fresh` the main table starts
        # empty too, and the move comes out the same whatever this process searched before.
        _forget_threat_reads(ctx, tab)
    start = time.perf_counter()
    end = math.inf if deadline is None or node_limit is not None else deadline
    win = _winning_cell(g, s, board)
    if win is not None:
        return CoreResult(win, core.WIN, 1, 1, "win", ())
    nodes = 0

    _begin(ctx, end, node_limit, stop)
    vct_until = _cycles_at(start + (end - start) * VCT_SHARE if math.isfinite(end) else math.inf)
    vct_nodes = max(1, int(node_limit * VCT_SHARE)) if node_limit else 1 << 62
    vcf, vct = _threat_wins(g, s, ctx, tab, VCT_THREES, vct_until, vct_nodes)
    nodes += int(ctx.stat[0])
    if vcf >= 0:
        return CoreResult(vcf, core.WON, 0, nodes, "vcf", ())
    if vct >= 0:
        return CoreResult(vct, 0, 0, nodes, "vct", ())

    search_end = start + (end - start) * SEARCH_SHARE if math.isfinite(end) else math.inf
    search_nodes = None if node_limit is None else max(1, int((node_limit - nodes) * SEARCH_SHARE))
    _begin(ctx, search_end, search_nodes, stop)
    if math.isfinite(end) and node_limit is None:
        ctx.stat[9] = _cycles_at(start + (end - start) * SOFT_SHARE)
    out = np.zeros(8 + MAX_DEPTH + 1, dtype=np.int64)
    ranking = np.zeros(g.size, dtype=np.int32)
    core.search(g, s, ctx, MAX_DEPTH, out, ranking)
    nodes += int(ctx.stat[0])
    move, value, depth = int(out[0]), int(out[1]), int(out[2])
    _iterations[:] = [int(n) for n in out[9 : 9 + depth]]
    _cutoffs[:] = [int(ctx.stat[6]), int(ctx.stat[7])]
    ranked = tuple(int(m) for m in ranking[: int(out[4])])
    if value >= core.WON or len(ranked) < 2:
        return CoreResult(move, value, depth, nodes, "search", ranked)

    # The guard: the move must not leave the opponent a forced win by fours or threes, when
    # another of the top moves does not.
    guard_nodes = None if node_limit is None else max(1, node_limit - nodes)
    _begin(ctx, end, guard_nodes, stop)
    pool = [move, *(m for m in ranked[:8] if m != move)]
    chosen = move
    kind = "search"
    for i, candidate in enumerate(pool):
        threatened = pns.opponent_threat(g, s, ctx, tab, candidate, GUARD_THREES)
        if ctx.stat[2]:
            break
        if not threatened:
            chosen = candidate
            kind = "search" if i == 0 else "guard"
            break
    nodes += int(ctx.stat[0])
    return CoreResult(chosen, value, depth, nodes, kind, ranked)


def threat_win(board: Board, node_limit: int, threes: int = VCT_THREES) -> CoreResult:
    """A first move of a forced win for the side to move on `board` (not over): a five ("win"),
    by continuous fours ("vcf") or by fours and at most `threes` threes ("vct"), read within
    `node_limit` nodes from empty threat tables, so the answer depends on the position and the
    limit alone. Kind "none" (move -1) when none is proved, the opponent having a four of its own
    included; `nodes` is what the search spent either way."""
    if board.is_over():
        raise ValueError("the game is over: there is no move to think about")
    with _search_lock:
        g, s = state_of(board)
        ctx, tab = _ctx_for(board)
        _forget_threat_reads(ctx, tab)
        win = _winning_cell(g, s, board)
        if win is not None:
            return CoreResult(win, core.WIN, 1, 1, "win", ())
        _begin(ctx, math.inf, node_limit)
        vcf, vct = _threat_wins(g, s, ctx, tab, threes, _cycles_at(math.inf), node_limit)
        nodes = int(ctx.stat[0])
        if vcf >= 0:
            return CoreResult(vcf, core.WON, 0, nodes, "vcf", ())
        if vct >= 0:
            return CoreResult(vct, core.WON, 0, nodes, "vct", ())
        return CoreResult(-1, 0, 0, nodes, "none", ())


def _forget_threat_reads(ctx: Ctx, tab: PnTable) -> None:
    """Empty the threat searches' tables, so that what follows depends on the position alone
    (they would make its reads cheaper, and the VCF runs at every node of the proof-number
    search). Clearing the keys is enough."""
    tab.key[:] = 0
    ctx.fail_key[:] = 0


def _winning_cell(g: Geo, s: State, board: Board) -> int | None:
    """A cell where the side to move makes its line now, if there is one."""
    buf = np.zeros(g.size, dtype=np.int32)
    me = 1 if board.ply % 2 == 0 else 2
    return int(buf[0]) if core.win_cells(g, s, me, buf) > 0 else None


# The last think()'s main search, as bench.search_depth reads it: the nodes counted as each
# iteration completed, and its beta cut-offs with those the first move searched made.
_iterations: list[int] = []
_cutoffs: list[int] = [0, 0]


def last_search() -> tuple[list[int], int, int]:
    """The last think()'s main search: nodes at each completed iteration, beta cut-offs, and
    cut-offs by the first move searched."""
    return list(_iterations), _cutoffs[0], _cutoffs[1]


def _threat_wins(
    g: Geo, s: State, ctx: Ctx, tab: PnTable, threes: int, until: int, nodes: int
) -> tuple[int, int]:
    """The first move of a win by fours and of one by fours and at most `threes` threes, each -1
    when none was read, within `nodes` nodes and the cycle count `until`."""
    out = np.zeros(8, dtype=np.int64)
    pns.threat_first(g, s, ctx, tab, 40, threes, until, nodes, out)
    return int(out[0]), int(out[1])


# The core's verdicts on a black stone, as engine.game.renju's shapes (None: allowed or a five).
RENJU_SHAPES: dict[int, Shape | None] = {
    core.R_ALLOWED: None,
    core.R_FIVE: None,
    core.R_OVERLINE: Shape.OVERLINE,
    core.R_DOUBLE_FOUR: Shape.DOUBLE_FOUR,
    core.R_DOUBLE_THREE: Shape.DOUBLE_THREE,
}


def renju_verdicts(rows: int, cols: int, grid: Sequence[int]) -> npt.NDArray[np.int8]:
    """The compiled core's verdict (core.R_*) on a black stone on each cell of a position given
    as row-major values (0 empty, 1 X, 2 O), -1 on the stones: the second implementation of
    renju's forbidden moves, next to engine.game.renju, that the core's searches use."""
    g = geometry(rows, cols, 5, Rule.RENJU)
    cells = np.array(grid, dtype=np.int8)
    if cells.shape != (rows * cols,):
        raise ValueError(f"expected {rows} x {cols} cell values, got {cells.size}")
    out = np.zeros(rows * cols, dtype=np.int8)
    rf = np.zeros((rows * cols + 1, core.RF_COLS), dtype=np.int32)
    core.renju_verdicts(g, cells, rf, out)
    return out


def renju_forbidden(rows: int, cols: int, grid: Sequence[int]) -> dict[Cell, Shape]:
    """The forbidden points of black in a position (as renju_verdicts), with their shapes."""
    out = renju_verdicts(rows, cols, grid)
    found: dict[Cell, Shape] = {}
    for index in np.flatnonzero(out >= core.R_OVERLINE):
        shape = RENJU_SHAPES[int(out[index])]
        if shape is not None:
            found[divmod(int(index), cols)] = shape
    return found


def exercise() -> None:
    """Call every core function once with each of its signatures, so that numba loads (or, in a
    build, compiles) all of them now: no later call is the first (engine.support.cores)."""
    for rule in Rule:
        board = Board(7, 7, 5 if rule is Rule.RENJU else 4, rule)
        for name in ("D4", "C3", "D3", "E5", "D5"):
            board.push_name(name)
        think(board, time.perf_counter() + 0.05)
        if rule is Rule.RENJU:
            renju_verdicts(board.rows, board.cols, board.grid)
        g, s = state_of(board)
        for cell in range(g.size):
            if not s.grid[cell]:
                core.threat_class(g, s, cell, 1)


def _rules_part() -> None:
    """The small entry points: a position's set-up, its winning cells, a cell's threat class, the
    forbidden-move check and the cycle counter (what the searches below call is built here too)."""
    cycles_per_second()
    for rule in Rule:
        board = Board(7, 7, 5 if rule is Rule.RENJU else 4, rule)
        for name in ("D4", "C3", "D3", "E5", "D5"):
            board.push_name(name)
        g, s = state_of(board)
        _winning_cell(g, s, board)
        for cell in range(g.size):
            if not s.grid[cell]:
                core.threat_class(g, s, cell, 1)
        if rule is Rule.RENJU:
            renju_verdicts(board.rows, board.cols, board.grid)


def _compile(function: Any, *signature: object) -> None:
    """Compile one version of a core function without running it: the one its callers use,
    every integer an int64 (engine.ai.core._OneVersion)."""
    function.compile(tuple(signature))


def _search_part(name: str) -> None:
    import numba
    from numba import types

    typeof: Callable[[object], object] = numba.typeof

    board = Board(7, 7, 4, Rule.FREESTYLE)
    g, s = state_of(board)
    ctx, tab = _ctx_for(board)
    geo, state, context, table = typeof(g), typeof(s), typeof(ctx), typeof(tab)
    i64 = types.int64
    i64s = typeof(np.zeros(1, dtype=np.int64))
    i32s = typeof(np.zeros(1, dtype=np.int32))
    if name == "vcf":
        _compile(core.vcf, geo, state, context, i64, i64, i64)
    elif name == "threats":
        _compile(pns.threats, geo, state, context, table, i64, i64, i64, i64, i64, i64s)
    elif name == "search":
        _compile(core.search, geo, state, context, i64, i64s, i32s)
    else:
        raise ValueError(f"no part {name!r} of the core")


# The core's build in parts, each compiled in a process of its own, callees before their callers
# (engine.support.cores.build): a part loads what the parts before it put in the cache instead of
# compiling it again, and LLVM's memory for a compile is given back only when its process ends,
# so the build's peak is its largest part's, not the sum of them all.
PARTS = (
    "rules", "vcf", "threats", "search",
)


def build_part(name: str) -> None:
    """Compile one part of the core (PARTS) into the cache."""
    if name == "rules":
        _rules_part()
    else:
        _search_part(name)
