"""The compiled search core (numba, nopython, cached on disk): the big-board "impossible".

The board lives in flat arrays. Every segment of k cells in a row (a "window") keeps its count of
X and O stones; a window's code is that pair of counts, and what it is worth, what one more stone
adds to it, and whether it is a four (k-1 stones, no opponent) or a three (k-2) come from tables
built once per board shape. A move touches only the windows through its cell, so all of it is
updated incrementally: the evaluation sums, every cell's attack value, and per cell the number of
fours and threes it would complete (from which winning cells, four moves and forks are read in
one pass over the board, with the real rule checked on the line for exact and caro).

On top: victory by continuous fours (VCF) as a depth-first AND/OR search with a failure table
(and by fours and threes, VCT, the same way: the bot's VCT is engine.ai.pns's proof-number
search, which calls this VCF at its nodes; this one stays as its reference in tests and
bench.vct_compare), and a principal-variation search with a two-slot transposition
table (one depth-preferred slot, one always replaced), killer and history ordering, late-move
reductions, threat-aware move generation (facing a four only its blocks, facing an open three
only its defences and our own fours) and iterative deepening until the deadline.

The Board in engine.board stays the reference for the rules: tests check this core against it.
Everything here is written for numba's nopython mode; engine.ai.compiled is the typed wrapper.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, cast

import numba
import numba.extending
import numpy as np
import numpy.typing as npt
from numba.core import cgutils, types
from numba.core.registry import CPUDispatcher
from numba.cpython.unsafe.numbers import trailing_zeros

from ..support import splice

# The build copies each spliced helper (jit_spliced) once, not once per block (speed only).
splice.install()

I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

FREESTYLE, EXACT, CARO, RENJU = 0, 1, 2, 3
WIN = 1 << 40
WON = WIN - 10_000  # any value beyond this is a forced result
MAX_PLY = 160  # deepest recursion (search plies plus threat-sequence plies) with own buffers
EXACT_FLAG, LOWER_FLAG, UPPER_FLAG = 0, 1, 2
# Move-ordering bonuses, far above any attack value so the classes never mix.
FOUR_BONUS = 1 << 34
BLOCK_BONUS = 1 << 33
TT_BONUS = 1 << 50
KILLER_BONUS = 1 << 44
COUNTER_BONUS = 1 << 43
# Order ranks of a cell's pattern (engine.ai.patterns.CATEGORIES), ours and the opponent's, in
# units of 1 << 27: below the four and block bonuses, above any attack value.
ORDER_OWN = np.array([0, 0, 1, 1, 2, 2, 3, 4, 9, 5, 6, 12, 15, 31], dtype=np.int64)
ORDER_THEIRS = np.array([0, 0, 0, 1, 1, 1, 2, 3, 7, 3, 4, 10, 13, 30], dtype=np.int64)
# Quiet moves an inner node searches at depth d (move-count pruning): LMP_BASE + (d*d + 3d) / 2,
# on top of every forcing move (a four, a block of a four or of an open three, the killers).
# From LMP_FULL_DEPTH on, every candidate is searched.
LMP_BASE = 3
LMP_FULL_DEPTH = 8
# Late-move reductions: log(depth) * log(move number) / LMR_DIVISOR plies, for quiet moves.
LMR_DIVISOR = 2.2
# Static pruning at a node off the principal variation, not facing a four (evaluation units:
# 400 a unit of logit). Razoring: at depth d <= RAZOR_DEPTH a static value below alpha by more
# than RAZOR_BASE + RAZOR_STEP * d ends the node as a leaf (the static value, or a win by fours).
# Futility: at depth d <= FUTILITY_DEPTH one above beta by FUTILITY_STEP * d ends it too.
RAZOR_DEPTH = 2
RAZOR_BASE = 40
RAZOR_STEP = 30
FUTILITY_DEPTH = 3
FUTILITY_STEP = 130
# Internal iterative reduction: a node of at least IIR_DEPTH, not facing a four, with no move
# from the table (its order is a guess) is searched a ply shallower.
IIR_DEPTH = 4
HISTORY_MAX = 1 << 13  # history values stay within +-HISTORY_MAX (the gravity of the update)
ASPIRATION = 160  # half-width of the root's first window around the last iteration's value
ROOT_WIDTH = 40  # root moves the threat searches (engine.ai.pns) and the guard look at
LEAF_VCF_DEPTH = 5  # attacker fours a leaf reads for a win by continuous fours
VCT_THREE_WIDTH = 7  # threes tried per attacker node of the VCT


class Geo(NamedTuple):
    """Geometry of one (rows, cols, k, rule): fixed for a game."""

    rows: int
    cols: int
    k: int
    rule: int
    size: int
    wcells: I32  # [window, i]: the k cells of each window
    cw: I32  # [cell, j]: the windows through each cell (cwn[cell] of them)
    cwn: I32
    nearc: I32  # [cell, j]: cells within two king steps (nearn[cell] of them)
    nearn: I32
    worth: I64  # [c]: worth of a live window holding c stones
    gain: I64  # [c]: what one more stone adds to a live window holding c
    zob: I64  # [mark, cell]: Zobrist keys, those of engine.board
    dr: I32
    dc: I32
    # Per cell and direction d, the line of 2k-1 cells centred on it, at offsets q - (k-1)
    # steps of stride[d] for q in 0..2k-2: lspan[cell, d] the first and last q on the board,
    # lw[cell, d, i] the window made of offsets i..i+k-1 (-1 when it leaves the board).
    stride: I32
    lspan: I32
    lw: I32
    # The pattern board (engine.ai.patterns), on when pat is 1 (five in a row): ln[cell, d, j]
    # the cell at digit j of cell's line code in direction d (-1 off the board), ppow[j] the
    # digit's weight (pbase ** j), pline[mark, code] the line class, pcix[key] the combination
    # of four classes (key = the four classes as base-9 digits; patterns.COMBO), pcomb[mark,
    # combination] the cell pattern, pkv[mark, side, combination] what such a cell is worth to
    # mark as the side to move (0) or waiting (1), pwin the window term's weight in 1/1024ths.
    # The hidden layer (engine.ai.patterns.Net; no units where there is none): nkv[mark,
    # combination, side * units + unit] what such a cell adds to each unit's sum for each side
    # (engine.ai.compiled.net_tables), nb1[unit] the units' biases, nw2[unit] their weights in
    # the evaluation; NET_UNITS units, or none. The tables are keyed by the combination, which
    # alone decides a cell's worth, rather than by the key: small enough to stay in the cache.
    pat: int
    pbase: int
    ln: I32
    ppow: I64
    pline: I8
    pcix: I32
    pcomb: I8
    pkv: I64
    pwin: int
    pedge: int
    nkv: I32
    nb1: I64
    nw2: I64


class State(NamedTuple):
    """The position and its incremental bookkeeping; changed only by place/unplace."""

    grid: I8
    cnt: I32  # [mark, window]: stones of that mark (row 0 unused)
    attack: I64  # [mark, cell]: what a stone of mark there adds to its live windows
    t4: I32  # [mark, cell]: live windows of mark holding k-1 stones through the cell
    t3: I32  # [mark, cell]: ... holding k-2 stones
    t2: I32  # [mark, cell]: ... holding k-3 stones
    sums: I64  # [mark]: worth of mark's live windows
    n4: I64  # [mark]: how many live windows of mark hold k-1 stones
    near: I32  # [cell]: stones within two king steps
    moves: I32  # the move stack
    info: I64  # [0]: ply, [1]: Zobrist hash, [2]: 1 while the pattern board is frozen (below)
    n3: I64  # [mark]: how many live windows of mark hold k-2 stones
    wdelta: I64  # [2, k]: _apply's scratch (zero between calls): one line's attack changes
    # [mark, cell // 64]: bit cell % 64 set where t3[mark, cell] > 0. The threat searches list
    # the cells that make a four at every node: read from these words that is a few steps
    # instead of a pass over the board.
    t3m: I64
    # [level, column]: renju_verdict's stack (RF_* columns), one level per nested real-three
    # check; size + 1 levels, as each holds one more stone than the one before.
    rf: I32
    # The pattern board: [mark, cell, d] the line code and class, [mark, cell] the combination
    # of the four classes and the cell pattern, [mark, side] the sum over empty cells of
    # pkv[mark, side, combination]. Classes, combinations and patterns are kept for the empty
    # cells only: an occupied cell's are those it had when its stone came.
    pcode: I32
    pcls: I8
    pkey: I32
    p4: I8
    psum: I64
    # [ply, mark, side * units + unit]: the sum over empty cells of nkv[mark, combination, ...],
    # in the row of the stones placed so far (rows above it are stale).
    nacc: I32
    # The undo log of the pattern board, a row per ply like nacc: plog[ply, i] one cell whose
    # class changed when that ply's stone came (PLOG_* fields: what it was before), plogn[ply]
    # how many, psave[ply] the sums before.
    plog: I64
    plogn: I32
    psave: I64


class Ctx(NamedTuple):
    """One search's tables and counters (reused between moves of a process)."""

    tt_key: I64
    tt_val: I64
    tt_move: I32
    tt_depth: I32
    tt_flag: I8
    tt_gen: I32
    killers: I32  # [ply, 2]
    history: I64  # [mark, cell]
    movebuf: I32  # [ply, cell]
    scorebuf: I64  # [ply, cell]
    wbuf: I32  # [ply, cell]: winning cells found at that ply
    bbuf: I32  # [ply, cell]: blocks / defences at that ply
    stamp: I32  # [cell]: scratch marks for de-duplicating cell sets
    scratch: I32  # [cell]: candidate cells of blocks
    root: I32  # [cell]: the root's moves, in their current order
    rootval: I64  # [cell]: their values in the last iteration
    fail_key: I64  # threat-search failure table: key, and the depth it failed at
    fail_depth: I32
    vframes: I64  # [ply, column]: the threat searches' stacks
    frames: I64  # [ply, column]: the main search's stack
    stat: I64  # [0] nodes, [1] node limit, [2] aborted, [3] generation, [4] stamp counter,
    # [5] the cycle count at which the search stops, [6] beta cut-offs of the main search,
    # [7] those made by the first move searched, [8] forcing moves of the last gen_moves,
    # [9] the cycle count after which no new iteration starts (0: none)
    counter: I32  # [mark, cell]: mark's reply that last refuted the opponent's move on cell


F = TypeVar("F", bound=Callable[..., Any])
# _nrt is numba's own option (its type stubs do not list it), hence the dict.
# numba writes two wrappers for every function it compiles: one that Python calls, unpacking each
# argument from a Python object, and one callable through a C pointer. With the position's tuples
# of arrays for arguments each is a large piece of code, optimised and turned into machine code
# in the function's library, inlined helpers included. Nothing calls the core through a C
# pointer, so no function has the second; only those that Python calls have the first (jit and
# jit_inline_public: the others cannot be called from Python).
_JIT_OPTIONS: dict[str, Any] = {
    "nopython": True, "_nrt": False, "nogil": True, "boundscheck": None, "no_cfunc_wrapper": True,
}


class _OneVersion(CPUDispatcher):
    """numba's dispatcher, but a call from compiled code with a constant argument (a literal 0,
    a module constant such as ROOT_WIDTH) uses the version for the constant's plain type.

    numba types a constant as a literal type and compiles a separate version of the callee for
    it: the big searches and helpers came out in two or three versions each, every one typed,
    lowered, optimised and turned into machine code again. LLVM still sees the constant once
    the helper is inlined. Likewise a narrower signed integer (a cell read from an int32 array)
    is passed as int64: one version for both, and no value changes on the way."""

    def get_call_template(self, args: Any, kws: Any) -> Any:
        plain = tuple(_plain(a) for a in args)
        return super().get_call_template(plain, {k: _plain(v) for k, v in kws.items()})


class _CompiledCallersOnly(_OneVersion):
    """_OneVersion for a function compiled without the wrapper Python calls go through
    (_JIT_OPTIONS): a call from Python raises TypeError, where numba would jump to no code."""

    def __call__(self, *args: Any, **kws: Any) -> Any:
        raise TypeError(f"{self.py_func.__name__} has no wrapper for calls from Python: only "
                        "compiled code calls it")


def _plain(arg: Any) -> Any:
    unliteral: Callable[[Any], Any] = types.unliteral
    arg = unliteral(arg)
    narrow = getattr(arg, "signed", False) and getattr(arg, "bitwidth", 64) < 64
    return types.int64 if isinstance(arg, types.Integer) and narrow else arg


def _dispatcher(func: F, **options: Any) -> F:
    kind = _CompiledCallersOnly if options.get("no_cpython_wrapper") else _OneVersion
    disp = kind(py_func=func, locals={}, targetoptions={**_JIT_OPTIONS, **options})
    # Cached on disk: only the first run of a host compiles.
    disp.enable_caching()
    return cast(F, disp)


def jit(func: F) -> F:
    """numba's nopython JIT, cached on disk so only the first run of a machine compiles.

    Without numba's reference counting (_nrt=False): the core allocates nothing (its buffers
    live in Ctx), and counting references cost every inlined helper that takes the position's
    tuples an atomic increment and decrement per array they hold, on every call.

    Without the GIL (nogil=True): the core touches no Python object, so a search leaves the
    interpreter free; another thread stops it by setting its Ctx's stat[2] (engine.ai.compiled's
    Stop), which every search reads at each node."""
    return _dispatcher(func)


def jit_inner(func: F) -> F:
    """jit, for a function only compiled code calls: no wrapper for calls from Python (see
    _JIT_OPTIONS)."""
    return _dispatcher(func, no_cpython_wrapper=True)


def jit_inline(func: F) -> F:
    """jit, inlined into its callers: the hottest helpers, where a call (which passes every
    array of the position along) would cost more than the work.

    LLVM does the inlining (forceinline: numba marks the function alwaysinline), after numba
    has typed and lowered the helper once. numba's own inlining (inline="always") copies the
    helper's IR into every call site before typing, and types and lowers each copy again: the
    same machine code, for many times the compile time and memory."""
    return _dispatcher(func, forceinline=True, no_cpython_wrapper=True)


def jit_spliced(func: F) -> F:
    """A helper with one caller (or two, where its body is small), copied into it by numba
    before typing (inline="always"): it is typed and lowered as part of its caller, and has no
    library of its own.

    A forceinline helper (jit_inline) is compiled into a library of its own first, optimised
    and turned into machine code there, and that library, with everything it links (a helper
    that calls the VCF links the VCF's whole body), is linked into each caller and optimised
    again. For a helper called from one place that library is pure cost; so it is for a small
    body shared by two thin helpers (placing a stone with or without the attack values), where
    it would add one more round of optimising the window counters' code to each."""
    return _dispatcher(func, inline="always", no_cpython_wrapper=True)


def jit_inline_public(func: F) -> F:
    """jit_inline, for a helper that Python calls too (engine.ai.compiled, the tests): with the
    wrapper that unpacks its arguments from Python objects."""
    return _dispatcher(func, forceinline=True)


@numba.extending.intrinsic
def _cycles(typingctx: Any) -> Any:
    """The CPU's cycle counter (LLVM's readcyclecounter): a clock read in nanoseconds and with
    nothing from Python in it, so the compiled code stays cacheable. engine.ai.compiled turns
    seconds into cycles with a rate it measures once per process."""
    from llvmlite import ir  # type: ignore[import-untyped]  # numba's own dependency

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
            builder.module, fnty, "llvm.readcyclecounter"
        )
        return builder.call(fn, [])

    return numba.types.int64(), codegen


@jit
def cycles() -> int:
    return _cycles()  # type: ignore[call-arg]


@jit_inline
def _tick(ctx: Ctx) -> bool:
    """Count one node; True when the search must stop (the clock is read every 256 nodes)."""
    stat = ctx.stat
    if stat[2]:
        return True
    stat[0] += 1
    if stat[1] > 0 and stat[0] > stat[1]:
        stat[2] = 1
        return True
    if (stat[0] & 255) == 0 and cycles() > stat[5]:
        stat[2] = 1
        return True
    return False


# ----------------------------------------------------------------------------- bookkeeping
@jit_inline
def _low_bit(word: int) -> int:
    """Where word's lowest set bit is (word not 0): the next cell of a bit set (see State.t3m)."""
    return int(trailing_zeros(word))  # type: ignore[call-arg]


@jit_inline
def _nonneg(x: Any) -> int:
    """x, which is never negative, as a number the compiler knows is not: used as an index
    it skips numba's check for a negative index (see _apply)."""
    return int(np.int64(np.uint32(x)))


@jit_inline
def _window(g: Geo, s: State, w: int, sign: int) -> None:
    """Add (sign 1) or take away (sign -1) what window w contributes as it stands."""
    k = g.k
    for m in (1, 2):
        mine = s.cnt[m, w]
        if s.cnt[3 - m, w] != 0:
            continue
        s.sums[m] += sign * g.worth[mine]
        add = sign * g.gain[mine]
        four = mine == k - 1
        three = mine == k - 2
        two = mine == k - 3
        if four:
            s.n4[m] += sign
        if three:
            s.n3[m] += sign
        for j in range(k):
            c = g.wcells[w, j]
            s.attack[m, c] += add
            if four:
                s.t4[m, c] += sign
            elif three:
                s.t3[m, c] += sign
            elif two:
                s.t2[m, c] += sign


@jit_inline
def _apply(g: Geo, s: State, cell: int, mark: int, delta: int, full: bool) -> None:
    """Every window through cell gains (delta 1) or loses (delta -1) a stone of mark: each
    window's contribution changes by what its new counts are worth minus what the old ones
    were, and only the counters that change are written (the same totals as taking the window
    away and adding it back; a window holding both marks before and after changes nothing).

    The attack values are written per line, not per window: on each of the four lines the k
    windows through cell cover its 2k-1 cells, and a cell's change is the sum of the changes
    of the windows that hold it, a contiguous run of them, so one walk along the line with a
    running sum per mark writes each cell once (2k-1 writes a mark instead of k per window;
    the walk is split where windows stop starting). One loop with the arrays in locals: an inlined helper per window would handle the position's
    tuples on each call.

    Indices read from arrays (window numbers, counts, cells) go through np.uint32, which none
    of them needs: numba checks every signed index for a negative value to wrap it, a compare
    and a select per access that the compiler cannot drop for a value it loaded. Unsigned, the
    check is gone.

    With full False (a constant at each call, so the compiler drops what it turns off) only the
    counts, the four and three tiers and their totals change, and the two-stone tier under renju
    only: the windows' worth and the attack values stay as they were, for a search that reads
    neither and takes back every stone it places the same way (see place_bare)."""
    k = g.k
    twos = full or g.rule == RENJU
    other = 3 - mark
    worth = g.worth
    gain = g.gain
    wcells = g.wcells
    lw = g.lw
    lspan = g.lspan
    cnt = s.cnt
    attack = s.attack
    t4 = s.t4
    t3 = s.t3
    t2 = s.t2
    t3m = s.t3m
    wd = s.wdelta
    # The totals are summed in locals: written through the arrays, every window would store
    # them again (the compiler cannot tell the arrays apart).
    sum_mine = 0
    sum_other = 0
    n4_mine = 0
    n4_other = 0
    n3_mine = 0
    n3_other = 0
    for d in range(4):
        lo = _nonneg(lspan[cell, d, 0])
        hi = _nonneg(lspan[cell, d, 1])
        whi = min(k - 1, hi - k + 1)  # the windows lo..whi lie on the board
        if whi < lo:
            continue
        for i in range(lo, whi + 1):
            w = np.uint32(lw[cell, d, i])
            a = _nonneg(cnt[mark, w])
            b = _nonneg(cnt[other, w])
            a2 = a + delta
            cnt[mark, w] = a2
            dm = 0
            if b == 0:
                # Mark's window stays live: its worth, its cells' attack and its tier change.
                if full:
                    sum_mine += worth[np.uint32(a2)] - worth[np.uint32(a)]
                    dm = gain[np.uint32(a2)] - gain[np.uint32(a)]
                d4 = int(a2 == k - 1) - int(a == k - 1)
                d3 = int(a2 == k - 2) - int(a == k - 2)
                d2 = int(a2 == k - 3) - int(a == k - 3) if twos else 0
                n4_mine += d4
                n3_mine += d3
                if d4 != 0 or d3 != 0 or d2 != 0:
                    for j in range(k):
                        c = np.uint32(wcells[w, j])
                        if d4 != 0:
                            t4[mark, c] += d4
                        if d3 != 0:
                            v = t3[mark, c] + d3
                            t3[mark, c] = v
                            if v == 0 or v == d3:  # the count left or reached zero
                                t3m[mark, c >> 6] ^= 1 << (c & 63)
                        if d2 != 0:
                            t2[mark, c] += d2
            if full:
                wd[0, i] = dm
            # The other mark's window (count b) is live while mark has no stone in it: it is
            # switched off by mark's first stone and on again when that stone goes.
            sw = int(a2 == 0) - int(a == 0)
            do = 0
            if sw != 0:
                if full:
                    sum_other += sw * worth[np.uint32(b)]
                    do = sw * gain[np.uint32(b)]
                if b == k - 1:
                    n4_other += sw
                    for j in range(k):
                        t4[other, np.uint32(wcells[w, j])] += sw
                elif b == k - 2:
                    n3_other += sw
                    for j in range(k):
                        c = np.uint32(wcells[w, j])
                        v = t3[other, c] + sw
                        t3[other, c] = v
                        if v == 0 or v == sw:
                            t3m[other, c >> 6] ^= 1 << (c & 63)
                elif b == k - 3 and twos:
                    for j in range(k):
                        t2[other, np.uint32(wcells[w, j])] += sw
            if full:
                wd[1, i] = do
        if not full:
            continue
        # Cell q of the line lies in the windows max(lo, q-k+1)..min(whi, q): up to whi the
        # run only gains windows, after it only loses them (from q = lo + k on).
        step = g.stride[d]
        c = cell + (lo - (k - 1)) * step
        run_mine = 0
        run_other = 0
        for q in range(lo, whi + 1):
            run_mine += wd[0, q]
            run_other += wd[1, q]
            uc = np.uint32(c)
            attack[mark, uc] += run_mine
            attack[other, uc] += run_other
            c += step
        for q in range(whi + 1, min(hi, whi + k - 1) + 1):
            if q - k >= lo:
                run_mine -= wd[0, q - k]
                run_other -= wd[1, q - k]
            uc = np.uint32(c)
            attack[mark, uc] += run_mine
            attack[other, uc] += run_other
            c += step
        for i in range(lo, whi + 1):
            wd[0, i] = 0
            wd[1, i] = 0
    s.sums[mark] += sum_mine
    s.sums[other] += sum_other
    s.n4[mark] += n4_mine
    s.n4[other] += n4_other
    s.n3[mark] += n3_mine
    s.n3[other] += n3_other


# The hidden units the core plays (engine.ai.compiled pads a narrower net's tables with units
# that add nothing): its loops over them then have a constant number of turns, which the compiler
# lays out as a few vector operations; a count read from the tables made each a general loop,
# much slower (docs/benchmarks.md).
NET_UNITS = 16


@jit_inline
def _combination(pcix: I32, pcls: I8, m: int, e: int) -> int:
    """The combination of cell e's four line classes for mark m (its row in the per-cell tables)."""
    four = ((pcls[m, e, 0] * 9 + pcls[m, e, 1]) * 9 + pcls[m, e, 2]) * 9 + pcls[m, e, 3]
    return _nonneg(pcix[_nonneg(four)])


# Fields of State.plog: the cell, the mark, the direction whose class changed, then the class,
# the combination and the cell pattern it had.
PLOG_MARK, PLOG_DIR, PLOG_CLS, PLOG_KEY, PLOG_P4 = 16, 18, 20, 24, 48


@jit_inline
def _pat_apply(g: Geo, s: State, cell: int, mark: int, delta: int) -> None:
    """A stone of mark arrives on cell (delta 1) or leaves it (-1): the line codes of the cells
    within REACH on its four lines change by one digit, and with them the classes and patterns
    of the empty ones. The cell's own patterns stop counting in the sums. Each ply keeps a row of
    the units' sums (a stone placed fills the next row from the one below) and an undo log of
    the classes it changed and the sums before: a stone taken back restores them from there,
    and the row below is as it was, so only the codes are computed again."""
    psum = s.psum
    pkey = s.pkey
    p4 = s.p4
    ln = g.ln
    pcode = s.pcode
    pcls = s.pcls
    grid = s.grid
    other = 3 - mark  # a stone is digit 1 in its own mark's codes, 2 in the other's
    row = _nonneg(s.info[0] + (1 if delta > 0 else 0))
    pkv = g.pkv
    nacc = s.nacc
    nkv = g.nkv
    if delta > 0:
        for m in (1, 2):
            s.psave[row, m, 0] = psum[m, 0]
            s.psave[row, m, 1] = psum[m, 1]
            q = _nonneg(pkey[m, cell])
            psum[m, 0] -= pkv[m, 0, q]
            psum[m, 1] -= pkv[m, 1, q]
            if g.nb1.shape[0] != 0:
                for h in range(2 * NET_UNITS):
                    nacc[row, m, h] = nacc[row - 1, m, h] - nkv[m, q, h]
    pline = g.pline
    pcix = g.pcix
    pcomb = g.pcomb
    log = s.plog[row]
    n = 0
    # The sums move in locals, written once: through the array every change would store them
    # again (the compiler cannot tell the arrays apart).
    s10 = psum[1, 0]
    s11 = psum[1, 1]
    s20 = psum[2, 0]
    s21 = psum[2, 1]
    for d in range(4):
        for j in range(10):
            e = ln[cell, d, j]
            if e < 0:
                continue
            step = g.ppow[j + 5 if j < 5 else j - 5] * delta
            c1 = pcode[1, e, d] + step * mark
            c2 = pcode[2, e, d] + step * other
            pcode[1, e, d] = c1
            pcode[2, e, d] = c2
            if delta < 0 or grid[e] != 0:
                continue
            for m in (1, 2):
                cls = pline[m, _nonneg(c1 if m == 1 else c2)]
                was = pcls[m, e, d]
                if cls != was:
                    log[n] = (
                        e
                        | (m << PLOG_MARK)
                        | (d << PLOG_DIR)
                        | (np.int64(was) << PLOG_CLS)
                        | (np.int64(pkey[m, e]) << PLOG_KEY)
                        | (np.int64(p4[m, e]) << PLOG_P4)
                    )
                    n += 1
                    pcls[m, e, d] = cls
                    key = _combination(pcix, pcls, m, e)
                    old = _nonneg(pkey[m, e])
                    pkey[m, e] = key
                    p4[m, e] = pcomb[m, key]
                    if m == 1:
                        s10 += pkv[1, 0, key] - pkv[1, 0, old]
                        s11 += pkv[1, 1, key] - pkv[1, 1, old]
                    else:
                        s20 += pkv[2, 0, key] - pkv[2, 0, old]
                        s21 += pkv[2, 1, key] - pkv[2, 1, old]
                    if g.nb1.shape[0] != 0:
                        for h in range(2 * NET_UNITS):
                            nacc[row, m, h] += nkv[m, key, h] - nkv[m, old, h]
    if delta > 0:
        psum[1, 0] = s10
        psum[1, 1] = s11
        psum[2, 0] = s20
        psum[2, 1] = s21
        s.plogn[row] = n
        return
    # Taken back: what the stone changed, as it was.
    for i in range(s.plogn[row]):
        v = log[i]
        e = _nonneg(v & 0xFFFF)
        m = _nonneg((v >> PLOG_MARK) & 3)
        pcls[m, e, (v >> PLOG_DIR) & 3] = (v >> PLOG_CLS) & 15
        pkey[m, e] = (v >> PLOG_KEY) & 0xFFFFFF
        p4[m, e] = (v >> PLOG_P4) & 0xFF
    for m in (1, 2):
        psum[m, 0] = s.psave[row, m, 0]
        psum[m, 1] = s.psave[row, m, 1]


@jit_spliced
def _place_counted(g: Geo, s: State, cell: int, mark: int, full: bool) -> None:
    """place_counts (full True) or place_bare (full False)."""
    _apply(g, s, cell, mark, 1, full)
    s.grid[cell] = mark
    if full:
        near = s.near
        nearc = g.nearc
        for j in range(g.nearn[cell]):
            near[np.uint32(nearc[cell, j])] += 1
    ply = s.info[0]
    s.moves[ply] = cell
    s.info[0] = ply + 1
    s.info[1] ^= g.zob[mark, cell]


@jit_spliced
def _unplace_counted(g: Geo, s: State, full: bool) -> None:
    """unplace_counts (full True) or unplace_bare (full False)."""
    ply = s.info[0] - 1
    cell = _nonneg(s.moves[ply])
    mark = _nonneg(s.grid[cell])
    _apply(g, s, cell, mark, -1, full)
    s.grid[cell] = 0
    if full:
        near = s.near
        nearc = g.nearc
        for j in range(g.nearn[cell]):
            near[np.uint32(nearc[cell, j])] -= 1
    s.info[0] = ply
    s.info[1] ^= g.zob[mark, cell]


@jit_inline
def place_counts(g: Geo, s: State, cell: int, mark: int) -> None:
    """place, less the pattern board: for the threat searches, which read only the window
    counters and take back every stone they place (unplace_counts). Their inlined copies of
    place then carry no pattern code, which the build would optimise again in each."""
    _place_counted(g, s, cell, mark, True)


@jit_inline
def unplace_counts(g: Geo, s: State) -> None:
    """unplace, less the pattern board: the undo of place_counts."""
    _unplace_counted(g, s, True)


@jit_inline
def place_bare(g: Geo, s: State, cell: int, mark: int) -> None:
    """place_counts, less the windows' worth, the attack values (most of its work) and the
    cells near a stone: for the VCF, which reads only the four and three tiers, computes the
    attack values it orders by (attack_at) and takes back every stone it places (unplace_bare),
    so the values it left alone are right again when it returns."""
    _place_counted(g, s, cell, mark, False)


@jit_inline
def unplace_bare(g: Geo, s: State) -> None:
    """The undo of place_bare."""
    _unplace_counted(g, s, False)


@jit_inline_public
def attack_at(g: Geo, s: State, mark: int, cell: int) -> int:
    """s.attack[mark, cell] as the full counters would hold it, computed from the windows'
    counts: what each of mark's live windows through cell adds to it (see _window)."""
    k = g.k
    other = 3 - mark
    cnt = s.cnt
    gain = g.gain
    total = 0
    for d in range(4):
        lo = _nonneg(g.lspan[cell, d, 0])
        whi = min(k - 1, _nonneg(g.lspan[cell, d, 1]) - k + 1)
        for i in range(lo, whi + 1):
            w = np.uint32(g.lw[cell, d, i])
            if cnt[other, w] == 0:
                total += gain[np.uint32(cnt[mark, w])]
    return int(total)


@jit_inline_public
def place(g: Geo, s: State, cell: int, mark: int) -> None:
    if g.pat and s.info[2] == 0:
        _pat_apply(g, s, cell, mark, 1)
    place_counts(g, s, cell, mark)


@jit_inline_public
def unplace(g: Geo, s: State) -> None:
    if g.pat and s.info[2] == 0:
        cell = _nonneg(s.moves[s.info[0] - 1])
        _pat_apply(g, s, cell, _nonneg(s.grid[cell]), -1)
    unplace_counts(g, s)


@jit_inner
def reset(g: Geo, s: State) -> None:
    """The empty board: every window empty, counted once."""
    s.grid[:] = 0
    s.cnt[:, :] = 0
    s.attack[:, :] = 0
    s.t4[:, :] = 0
    s.t3[:, :] = 0
    s.t2[:, :] = 0
    s.sums[:] = 0
    s.n4[:] = 0
    s.n3[:] = 0
    s.near[:] = 0
    s.info[:] = 0
    for w in range(g.wcells.shape[0]):
        _window(g, s, w, 1)
    s.t3m[:, :] = 0
    for m in (1, 2):
        for c in range(g.size):
            if s.t3[m, c] > 0:
                s.t3m[m, c >> 6] |= 1 << (c & 63)
    s.psum[:, :] = 0
    s.nacc[:, :, :] = 0
    if g.pat:
        # Every neighbour off the board is an edge; every cell is empty.
        for m in (1, 2):
            for c in range(g.size):
                for d in range(4):
                    code = 0
                    for j in range(10):
                        if g.ln[c, d, j] < 0:
                            code += g.pedge * g.ppow[j]
                    s.pcode[m, c, d] = code
                    s.pcls[m, c, d] = g.pline[m, code]
                key = _combination(g.pcix, s.pcls, m, c)
                s.pkey[m, c] = key
                s.p4[m, c] = g.pcomb[m, key]
                s.psum[m, 0] += g.pkv[m, 0, key]
                s.psum[m, 1] += g.pkv[m, 1, key]
                for h in range(g.nkv.shape[2]):
                    s.nacc[0, m, h] += g.nkv[m, key, h]


@jit
def load(g: Geo, s: State, moves: I32) -> None:
    """The empty board, then `moves` played in order, X first (one call from Python instead of
    one per stone)."""
    reset(g, s)
    for i in range(moves.shape[0]):
        place(g, s, moves[i], 1 if i % 2 == 0 else 2)


# ----------------------------------------------------------------------------- renju
# Verdicts on a black stone (those of engine.renju): OVERLINE and above forbid it.
R_ALLOWED, R_FIVE, R_OVERLINE, R_DOUBLE_FOUR, R_DOUBLE_THREE = 0, 1, 2, 3, 4
R_REACH = 5  # cells each side of the stone that decide its shapes (engine.renju.REACH)
# Columns of State.rf: the cell, its threes' count, the three and point being tried, the real
# threes found, then per three its two straight-four points (-1 when it has one).
RF_CELL, RF_N, RF_I, RF_J, RF_REAL, RF_POINTS = 0, 1, 2, 3, 4, 5
RF_MAX_THREES = 16  # four lines, at most four windows each
RF_COLS = RF_POINTS + 2 * RF_MAX_THREES


@jit_inline
def _renju_line(g: Geo, grid: I8, r0: int, c0: int, d: int) -> int:
    """The 2 * R_REACH + 1 cells of line d centred on (r0, c0), two bits each from the far
    negative end (0 empty, 1 black, 2 white or off the board)."""
    rows, cols = g.rows, g.cols
    dr = g.dr[d]
    dc = g.dc[d]
    code = 0
    for o in range(-R_REACH, R_REACH + 1):
        r = r0 + o * dr
        c = c0 + o * dc
        v = 2
        if 0 <= r < rows and 0 <= c < cols:
            x = grid[r * cols + c]
            v = 1 if x == 1 else (0 if x == 0 else 2)
        code |= v << (2 * (o + R_REACH))
    return code


@jit_inline
def _at(code: int, o: int) -> int:
    return (code >> (2 * (o + R_REACH))) & 3


@jit_inline
def _renju_open(g: Geo, grid: I8, cell: int, rf: I32, t: int) -> int:
    """A black stone on the empty cell, read as engine.renju._analyse reads each line: the
    verdict when its shapes decide it (the stone taken off again), or -1 with the stone left on
    and level t of rf holding its threes, whose realness the caller must check."""
    grid[cell] = 1
    r0 = cell // g.cols
    c0 = cell % g.cols
    five = False
    over = False
    fours = 0
    n = 0
    for d in range(4):
        code = _renju_line(g, grid, r0, c0, d)
        lo = 0
        while lo > -R_REACH and _at(code, lo - 1) == 1:
            lo -= 1
        hi = 0
        while hi < R_REACH and _at(code, hi + 1) == 1:
            hi += 1
        run = hi - lo + 1
        if run == 5:
            five = True
        elif run > 5:
            over = True
        # Fours: five cells holding the stone, four black and one empty, neither neighbour
        # black. A straight four is two such windows side by side with the same stones.
        last = -1
        for a in range(-4, 1):
            black = 0
            empty = 0
            mask = 0
            for o in range(a, a + 5):
                v = _at(code, o)
                if v == 1:
                    black += 1
                    mask |= 1 << (o + R_REACH)
                elif v == 0:
                    empty += 1
            if black == 4 and empty == 1 and _at(code, a - 1) != 1 and _at(code, a + 5) != 1:
                if mask != last:
                    fours += 1
                last = mask
            else:
                last = -1
        # Threes: ". a b c d ." with neither outer neighbour black, a..d three black and one
        # empty (the straight-four point). The same stones from two windows side by side are
        # one three with two points.
        last = -1
        for a in range(-4, 0):
            if _at(code, a) != 0 or _at(code, a + 5) != 0:
                last = -1
                continue
            if _at(code, a - 1) == 1 or _at(code, a + 6) == 1:
                last = -1
                continue
            black = 0
            empty = 0
            mask = 0
            point = 0
            for o in range(a + 1, a + 5):
                v = _at(code, o)
                if v == 1:
                    black += 1
                    mask |= 1 << (o + R_REACH)
                elif v == 0:
                    empty += 1
                    point = o
            if black == 3 and empty == 1:
                at = (r0 + point * g.dr[d]) * g.cols + c0 + point * g.dc[d]
                if mask == last:
                    rf[t, RF_POINTS + 2 * (n - 1) + 1] = at
                else:
                    rf[t, RF_POINTS + 2 * n] = at
                    rf[t, RF_POINTS + 2 * n + 1] = -1
                    n += 1
                last = mask
            else:
                last = -1
    verdict = -1
    if five:
        verdict = R_FIVE
    elif over:
        verdict = R_OVERLINE
    elif fours >= 2:
        verdict = R_DOUBLE_FOUR
    elif n < 2:
        verdict = R_ALLOWED
    if verdict >= 0:
        grid[cell] = 0
        return verdict
    rf[t, RF_CELL] = cell
    rf[t, RF_N] = n
    rf[t, RF_I] = 0
    rf[t, RF_J] = 0
    rf[t, RF_REAL] = 0
    return -1


@jit_inner
def renju_verdict(g: Geo, grid: I8, cell: int, rf: I32) -> int:
    """engine.renju's verdict on a black stone on the empty cell (R_*), the grid left as found.

    A three is real when one of its straight-four points is itself allowed with the stone in
    place, so each such point is judged the same way, one level deeper: a loop over the
    explicit stack rf rather than a recursive function, which numba's disk cache could not
    load back."""
    verdict = _renju_open(g, grid, cell, rf, 0)
    if verdict >= 0:
        return verdict
    top = 0
    while True:
        n = rf[top, RF_N]
        i = rf[top, RF_I]
        decided = -1
        if rf[top, RF_REAL] + n - i < 2:
            decided = R_ALLOWED
        else:
            point = rf[top, RF_POINTS + 2 * i + rf[top, RF_J]]
            child = _renju_open(g, grid, point, rf, top + 1)
            if child < 0:
                top += 1
                continue
            decided = -2 - child  # the child's verdict, handed to the level below
        while True:
            if decided <= -2:
                # A point of the three being tried at `top` was judged.
                if decided == -2 - R_ALLOWED:
                    rf[top, RF_REAL] += 1
                    if rf[top, RF_REAL] == 2:
                        decided = R_DOUBLE_THREE
                    else:
                        rf[top, RF_I] += 1
                        rf[top, RF_J] = 0
                        break
                else:
                    j = rf[top, RF_J] + 1
                    i = rf[top, RF_I]
                    if j == 2 or rf[top, RF_POINTS + 2 * i + j] < 0:
                        rf[top, RF_I] = i + 1
                        rf[top, RF_J] = 0
                    else:
                        rf[top, RF_J] = j
                    break
            # `top` is decided: take its stone off and hand the verdict down.
            grid[rf[top, RF_CELL]] = 0
            if top == 0:
                return decided
            top -= 1
            decided = -2 - decided


@jit
def renju_verdicts(g: Geo, grid: I8, rf: I32, out: I8) -> None:
    """renju_verdict of every empty cell into out (-1 for a stone): a whole position's
    forbidden points in one call."""
    for c in range(g.size):
        out[c] = -1 if grid[c] != 0 else renju_verdict(g, grid, c, rf)


@jit_inline
def forbidden_at(g: Geo, s: State, cell: int, mark: int) -> bool:
    """Whether mark may not play the empty cell: black's renju shapes, nothing otherwise.

    Only a cell where black makes two threes, two fours or a longer row can be forbidden: one
    in two live windows of k-3 or k-2 black stones, or in one of k-1 (an overline's). The
    counters say so at once, so most cells never reach the check."""
    if g.rule != RENJU or mark != 1:
        return False
    if s.t4[1, cell] == 0 and s.t3[1, cell] < 2 and s.t2[1, cell] < 2:
        return False
    return renju_verdict(g, s.grid, cell, s.rf) >= R_OVERLINE


# ----------------------------------------------------------------------------- rules
@jit_inline
def line_wins(g: Geo, grid: I8, cell: int, mark: int) -> bool:
    """Would a stone of mark on cell win under the rule? The cell itself is not read (as in
    engine.board.winning_line, which this mirrors)."""
    rows, cols, k, rule = g.rows, g.cols, g.k, g.rule
    if rule == RENJU:
        # Black wins with exactly five, white with five or more.
        rule = EXACT if mark == 1 else FREESTYLE
    other = 3 - mark
    reach = k if rule == FREESTYLE else k + 1
    r0 = cell // cols
    c0 = cell % cols
    for d in range(4):
        dr = g.dr[d]
        dc = g.dc[d]
        back = 0
        r = r0 - dr
        c = c0 - dc
        while back < reach and 0 <= r < rows and 0 <= c < cols and grid[r * cols + c] == mark:
            back += 1
            r -= dr
            c -= dc
        start_blocked = 0 <= r < rows and 0 <= c < cols and grid[r * cols + c] == other
        fwd = 0
        r = r0 + dr
        c = c0 + dc
        while fwd < reach and 0 <= r < rows and 0 <= c < cols and grid[r * cols + c] == mark:
            fwd += 1
            r += dr
            c += dc
        end_blocked = 0 <= r < rows and 0 <= c < cols and grid[r * cols + c] == other
        run = back + 1 + fwd
        if run < k:
            continue
        if rule != FREESTYLE and (run != k or (rule == CARO and start_blocked and end_blocked)):
            continue
        return True
    return False


@jit_inline_public
def wins_at(g: Geo, s: State, cell: int, mark: int) -> bool:
    """Would mark win by playing the empty cell? A four's cell is needed (the counters say),
    and under exact and caro the line is checked against the rule."""
    if s.grid[cell] != 0 or s.t4[mark, cell] <= 0:
        return False
    return g.rule == FREESTYLE or line_wins(g, s.grid, cell, mark)


@jit_inline_public
def win_cells(g: Geo, s: State, mark: int, out: I32) -> int:
    """The cells where mark wins at once, in ascending order, into out; how many.

    The loop reads plain arrays and calls line_wins only on a four's cell: calling wins_at per
    cell made this scan hundreds of times slower, as numba handles the position's tuples on
    every call of an inlined helper inside a loop."""
    n = 0
    if s.n4[mark] == 0:
        return 0
    grid = s.grid
    t4 = s.t4
    freestyle = g.rule == FREESTYLE
    for c in range(g.size):
        if grid[c] == 0 and t4[mark, c] > 0 and (freestyle or line_wins(g, grid, c, mark)):
            out[n] = c
            n += 1
    return n


@jit_inline
def _sort_cells(out: I32, n: int) -> None:
    """out[:n] in ascending order, in place: the few cells of a threat, as the reference lists
    them (an insertion sort: the core allocates nothing)."""
    for i in range(1, n):
        v = out[i]
        j = i - 1
        while j >= 0 and out[j] > v:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = v


@jit_inline
def win_cells_near(g: Geo, s: State, cell: int, mark: int, out: I32) -> int:
    """win_cells(mark) just after mark's stone on cell, when mark had no winning cell before
    it: a new winning cell then shares a line with that stone within k-1 steps (its four, or
    the run line_wins reads, holds the stone; a stone of mark elsewhere on the line can only
    lengthen a run past k), so the four lines through the cell are read instead of the board.
    Same cells, in ascending order."""
    if s.n4[mark] == 0:
        return 0
    rows, cols, k = g.rows, g.cols, g.k
    grid = s.grid
    t4 = s.t4
    freestyle = g.rule == FREESTYLE
    r0 = cell // cols
    c0 = cell % cols
    n = 0
    for d in range(4):
        dr = g.dr[d]
        dc = g.dc[d]
        for step in range(1 - k, k):
            r = r0 + step * dr
            c = c0 + step * dc
            if not (0 <= r < rows and 0 <= c < cols):
                continue
            e = r * cols + c
            if grid[e] == 0 and t4[mark, e] > 0 and (freestyle or line_wins(g, grid, e, mark)):
                out[n] = e
                n += 1
    # The four lines meet only at the (occupied) cell: no cell is listed twice.
    _sort_cells(out, n)
    return n


@jit_inline
def has_win(g: Geo, s: State, mark: int) -> bool:
    if s.n4[mark] == 0:
        return False
    if g.rule == FREESTYLE:
        # A live window of k-1 of mark's stones has one empty cell, and it wins.
        return True
    grid = s.grid
    t4 = s.t4
    freestyle = g.rule == FREESTYLE
    for c in range(g.size):
        if grid[c] == 0 and t4[mark, c] > 0 and (freestyle or line_wins(g, grid, c, mark)):
            return True
    return False


@jit_inline
def _next_stamp(ctx: Ctx) -> int:
    ctx.stat[4] += 1
    return int(ctx.stat[4])


@jit_inline
def blocks(g: Geo, s: State, ctx: Ctx, mark: int, wins: I32, nwins: int, out: I32) -> int:
    """Cells where mark's opponent stops every one of mark's winning cells, into out (when
    none does, the winning cells themselves, so the caller finds the loss). Under caro a stone
    just past either end of the line can block it too. Under renju black's forbidden points are
    left out, and none may be left: 0 then, a win for white."""
    if g.rule != CARO:
        if g.rule == RENJU and mark == 2:
            # Black may not block on a forbidden point: none left means white wins (0).
            n = 0
            for i in range(nwins):
                if not forbidden_at(g, s, wins[i], 1):
                    out[n] = wins[i]
                    n += 1
            return n
        for i in range(nwins):
            out[i] = wins[i]
        return nwins
    grid = s.grid
    rows, cols, k = g.rows, g.cols, g.k
    other = 3 - mark
    st = _next_stamp(ctx)
    n = 0
    cand = ctx.stamp
    found = ctx.scratch  # the candidates are distinct cells
    nf = 0
    for i in range(nwins):
        w = wins[i]
        if cand[w] != st:
            cand[w] = st
            found[nf] = w
            nf += 1
        r0 = w // cols
        c0 = w % cols
        for d in range(4):
            for sign in (1, -1):
                for step in range(1, k + 1):
                    r = r0 + sign * step * g.dr[d]
                    c = c0 + sign * step * g.dc[d]
                    if not (0 <= r < rows and 0 <= c < cols):
                        break
                    cell = r * cols + c
                    if grid[cell] != mark:
                        if grid[cell] == 0 and cand[cell] != st:
                            cand[cell] = st
                            found[nf] = cell
                            nf += 1
                        break
    for i in range(nf):
        cell = found[i]
        grid[cell] = other  # a throwaway stone: only the line checks below read it
        stops = True
        for j in range(nwins):
            if wins[j] != cell and line_wins(g, grid, wins[j], mark):
                stops = False
                break
        grid[cell] = 0
        if stops:
            out[n] = cell
            n += 1
    if n == 0:
        for i in range(nwins):
            out[i] = wins[i]
        return nwins
    # Ascending order, as the reference lists them.
    _sort_cells(out, n)
    return n


@jit_inline
def wins_after(g: Geo, s: State, cell: int, mark: int) -> int:
    """How many winning cells mark would have with a stone on the empty cell."""
    place_counts(g, s, cell, mark)
    n = 0
    if s.n4[mark] > 0:
        grid = s.grid
        t4 = s.t4
        freestyle = g.rule == FREESTYLE
        for c in range(g.size):
            if grid[c] == 0 and t4[mark, c] > 0 and (freestyle or line_wins(g, grid, c, mark)):
                n += 1
    unplace_counts(g, s)
    return n


@jit
def threat_class(g: Geo, s: State, cell: int, mark: int) -> int:
    """What a stone of mark on the empty cell is: 3 a win, 2 a fork (two or more winning
    cells after it), 1 a four (one), 0 none of these."""
    if wins_at(g, s, cell, mark):
        return 3
    n = wins_after(g, s, cell, mark)
    return 2 if n >= 2 else (1 if n == 1 else 0)


@jit_inline_public
def makes_fork(g: Geo, s: State, cell: int, mark: int) -> bool:
    """Would a stone of mark on the empty cell make two new winning cells (an open or double
    four)? Only mark's threes through the cell can become fours, each with one cell left to
    complete it, so this reads those windows instead of playing the stone."""
    if s.t3[mark, cell] < 2 or forbidden_at(g, s, cell, mark):
        return False
    k = g.k
    grid = s.grid
    first = -1
    grid[cell] = mark  # a throwaway stone: only the line checks below read it
    found = False
    for j in range(g.cwn[cell]):
        w = g.cw[cell, j]
        if s.cnt[mark, w] != k - 2 or s.cnt[3 - mark, w] != 0:
            continue
        for i in range(k):
            e = g.wcells[w, i]
            if grid[e] == 0 and e != first:
                if g.rule == FREESTYLE or line_wins(g, grid, e, mark):
                    if first < 0:
                        first = e
                    else:
                        found = True
                break
        if found:
            break
    grid[cell] = 0
    return found


@jit_inline
def find_fork(g: Geo, s: State, mark: int) -> int:
    """A cell where mark would make two winning cells at once (an open or double four), or -1.
    Such a cell lies in two of mark's threes' windows, which the counters give for free."""
    grid = s.grid
    t3 = s.t3
    bits = s.t3m
    for word in range(bits.shape[1]):
        b = bits[mark, word]
        while b != 0:
            c = word * 64 + _low_bit(b)
            b &= b - 1
            if grid[c] == 0 and t3[mark, c] >= 2 and makes_fork(g, s, c, mark):
                return c
    return -1


# ----------------------------------------------------------------------------- threat search
@jit_inline
def _fail_probe(ctx: Ctx, key: int, depth: int) -> bool:
    i = key & (ctx.fail_key.shape[0] - 1)
    return bool(ctx.fail_key[i] == key and ctx.fail_depth[i] >= depth)


@jit_inline
def _fail_store(ctx: Ctx, key: int, depth: int) -> None:
    i = key & (ctx.fail_key.shape[0] - 1)
    ctx.fail_key[i] = key
    ctx.fail_depth[i] = depth


# Frame columns of the threat searches (ctx.vframes) and of the main search (ctx.frames). The
# searches are loops over explicit stacks, not recursive functions: numba cannot load a
# recursive function back from its disk cache (numba issue #6061), and the cache is what makes
# a process's first move fast.
V_N, V_I, V_J, V_NR, V_KEY, V_DEPTH, V_CD, V_TRIED, V_FORCED = 0, 1, 2, 3, 4, 5, 6, 7, 8
_ENTER, _TRY, _REPLY, _RETURN = 0, 1, 2, 3


@jit_inline
def _unwind_counts(g: Geo, s: State, base: int) -> None:
    """_unwind, for the threat searches (place_counts)."""
    while s.info[0] > base:
        unplace_counts(g, s)


@jit_inline
def _unwind_bare(g: Geo, s: State, base: int) -> None:
    """_unwind, for the VCF (place_bare)."""
    while s.info[0] > base:
        unplace_bare(g, s)


@jit_inline
def _unwind(g: Geo, s: State, base: int) -> None:
    while s.info[0] > base:
        unplace(g, s)


@jit
def vcf(g: Geo, s: State, ctx: Ctx, att: int, depth: int, ply: int) -> int:
    """A first move of a win by continuous fours for att (to move), or -1 (_vcf, with the
    pattern board frozen: the threat searches read only the window counters, and every stone
    they place they take back)."""
    saved = s.info[2]
    s.info[2] = 1
    found = _vcf(g, s, ctx, att, depth, ply)
    s.info[2] = saved
    return found


@jit_spliced
def _vcf(g: Geo, s: State, ctx: Ctx, att: int, depth: int, ply: int) -> int:
    """A first move of a win by continuous fours for att (to move), or -1.

    Each level of the stack is one attacker node (buffers at ply + 2 * level): its four moves,
    the one being tried, and the defender's replies to it (usually one forced block)."""
    vf = ctx.vframes[ply:]
    dfn = 3 - att
    base = s.info[0]
    lv = 0
    mode = _ENTER
    ok = False
    found = -1
    while True:
        if ctx.stat[2]:
            _unwind_bare(g, s, base)
            return -1
        p = ply + 2 * lv
        if mode == _ENTER:
            d = depth - lv
            wins = ctx.wbuf[p]
            if _tick(ctx):
                continue
            if win_cells(g, s, att, wins) > 0:
                ok, found, mode = True, wins[0], _RETURN
                continue
            if d <= 0 or has_win(g, s, dfn):
                # A defender's four would need an answer: the fours stop being continuous.
                ok, mode = False, _RETURN
                continue
            key = s.info[1] ^ (att * 0x5BD1E995)
            if _fail_probe(ctx, key, d):
                ok, mode = False, _RETURN
                continue
            moves = ctx.movebuf[p]
            scores = ctx.scorebuf[p]
            n = 0
            grid = s.grid
            t3 = s.t3
            bits = s.t3m
            for word in range(bits.shape[1]):  # the cells with t3[att] > 0, in order
                b = bits[att, word]
                while b != 0:
                    c = word * 64 + _low_bit(b)
                    b &= b - 1
                    if grid[c] == 0 and not forbidden_at(g, s, c, att):
                        moves[n] = c
                        scores[n] = attack_at(g, s, att, c) + t3[att, c] * FOUR_BONUS
                        n += 1
            vf[lv, V_N] = n
            vf[lv, V_I] = 0
            vf[lv, V_KEY] = key
            mode = _TRY
        elif mode == _TRY:
            i = vf[lv, V_I]
            if i >= vf[lv, V_N]:
                _fail_store(ctx, vf[lv, V_KEY], depth - lv)
                ok, mode = False, _RETURN
                continue
            _select_at(ctx.movebuf[p], ctx.scorebuf[p], i, vf[lv, V_N])
            four = ctx.movebuf[p, i]
            place_bare(g, s, four, att)
            threats = ctx.wbuf[p + 1]
            nt = win_cells_near(g, s, four, att, threats)  # att had no winning cell here
            if nt == 0:
                unplace_bare(g, s)
                vf[lv, V_I] = i + 1
                continue
            vf[lv, V_NR] = blocks(g, s, ctx, att, threats, nt, ctx.bbuf[p])
            vf[lv, V_J] = 0
            mode = _REPLY
        elif mode == _REPLY:
            j = vf[lv, V_J]
            if j >= vf[lv, V_NR]:
                unplace_bare(g, s)
                ok, found, mode = True, ctx.movebuf[p, vf[lv, V_I]], _RETURN
                continue
            place_bare(g, s, ctx.bbuf[p, j], dfn)
            lv += 1
            mode = _ENTER
        else:
            if lv == 0:
                return int(found) if ok else -1
            lv -= 1
            unplace_bare(g, s)  # the defender's reply
            if ok:
                vf[lv, V_J] += 1
                mode = _REPLY
            else:
                unplace_bare(g, s)  # the attacker's four
                vf[lv, V_I] += 1
                mode = _TRY


@jit_inline
def _sort(moves: I32, scores: I64, n: int) -> None:
    """Insertion sort, best score first; ties keep their (cell) order for reproducibility."""
    for i in range(1, n):
        m = moves[i]
        sc = scores[i]
        j = i - 1
        while j >= 0 and scores[j] < sc:
            moves[j + 1] = moves[j]
            scores[j + 1] = scores[j]
            j -= 1
        moves[j + 1] = m
        scores[j + 1] = sc


@jit_inline
def _select_at(moves: I32, scores: I64, i: int, n: int) -> None:
    """The best of moves[i:n] to position i (ties to the lower cell): one step of the selection
    that _sort's order is, taken when move i is about to be tried, so a threat search that
    succeeds early or stops after a few threes does not order the rest of its list."""
    best = i
    bs = scores[i]
    bm = moves[i]
    for j in range(i + 1, n):
        sj = scores[j]
        if sj > bs or (sj == bs and moves[j] < bm):
            best = j
            bs = sj
            bm = moves[j]
    if best != i:
        moves[best] = moves[i]
        scores[best] = scores[i]
        moves[i] = bm
        scores[i] = bs


@jit_inline
def _select_top(moves: I32, scores: I64, n: int, width: int) -> int:
    """The best min(n, width) moves to the front, best first; how many. Ties go to the lower
    cell, so this is the prefix _sort gives on a list in cell order, at width passes over the
    list instead of a full quadratic sort (only that prefix is searched)."""
    m = min(n, width)
    for i in range(m):
        _select_at(moves, scores, i, n)
    return m


@jit_inline
def _fork_defences(g: Geo, s: State, ctx: Ctx, att: int, out: I32) -> int:
    """Against a three (a cell that would give att two winning cells): the fork cells, the other
    empty cells of att's threes through them, and the defender's own fours (they gain a tempo).
    0 when att has no such cell."""
    dfn = 3 - att
    st = _next_stamp(ctx)
    mark = ctx.stamp
    nr = 0
    any_fork = False
    grid = s.grid
    t3 = s.t3
    bits = s.t3m
    for word in range(bits.shape[1]):
        fb = bits[att, word]
        while fb != 0:
            f = word * 64 + _low_bit(fb)
            fb &= fb - 1
            if grid[f] != 0 or t3[att, f] < 2 or not makes_fork(g, s, f, att):
                continue
            any_fork = True
            for j in range(g.cwn[f]):
                w = g.cw[f, j]
                if s.cnt[att, w] == g.k - 2 and s.cnt[dfn, w] == 0:
                    for i in range(g.k):
                        c = g.wcells[w, i]
                        if s.grid[c] == 0 and mark[c] != st:
                            mark[c] = st
                            if not forbidden_at(g, s, c, dfn):
                                out[nr] = c
                                nr += 1
    if not any_fork:
        return 0
    for word in range(bits.shape[1]):
        b = bits[dfn, word]
        while b != 0:
            c = word * 64 + _low_bit(b)
            b &= b - 1
            if grid[c] == 0 and mark[c] != st:
                mark[c] = st
                if not forbidden_at(g, s, c, dfn):
                    out[nr] = c
                    nr += 1
    return nr


@jit_inline
def threat_moves(g: Geo, s: State, att: int, threes: bool, moves: I32, scores: I64) -> int:
    """The empty cells where att makes a four and, with threes, those where it makes a three,
    in cell order, into moves with their order scores (fours first, then by the threes made
    and the attack value); how many. The threat searches' attacker moves (_vct and
    engine.ai.pns)."""
    n = 0
    grid = s.grid
    t3 = s.t3
    attack = s.attack
    if not threes:  # the fours alone: the cells of State.t3m
        bits = s.t3m
        for word in range(bits.shape[1]):
            b = bits[att, word]
            while b != 0:
                c = word * 64 + _low_bit(b)
                b &= b - 1
                if grid[c] == 0 and not forbidden_at(g, s, c, att):
                    moves[n] = c
                    scores[n] = FOUR_BONUS + attack[att, c]
                    n += 1
        return n
    t2 = s.t2
    for c in range(g.size):
        if grid[c] != 0 or forbidden_at(g, s, c, att):
            continue
        if t3[att, c] > 0:
            moves[n] = c
            scores[n] = FOUR_BONUS + attack[att, c]
            n += 1
        elif t2[att, c] > 0:
            moves[n] = c
            scores[n] = attack[att, c] + (t2[att, c] << 20)
            n += 1
    return n


@jit_inner
def _vct(g: Geo, s: State, ctx: Ctx, att: int, depth: int, ply: int) -> int:
    """A first move of a forced win by fours and at most `depth` threes, or -1.

    Each level is one attacker node: its threats (fours first, then threes that leave a fork
    cell; when the defender has a four, only the single block, which must itself threaten),
    the one being tried, and the defender's replies to it (the blocks of a four; against a
    three, the narrowed set of _fork_defences)."""
    vf = ctx.vframes[ply:]
    dfn = 3 - att
    base = s.info[0]
    lv = 0
    vf[0, V_DEPTH] = depth
    mode = _ENTER
    ok = False
    found = -1
    while True:
        if ctx.stat[2]:
            _unwind_counts(g, s, base)
            return -1
        p = ply + 2 * lv
        if mode == _ENTER:
            d = vf[lv, V_DEPTH]
            wins = ctx.wbuf[p]
            if _tick(ctx):
                continue
            if win_cells(g, s, att, wins) > 0:
                ok, found, mode = True, wins[0], _RETURN
                continue
            if p >= MAX_PLY - 4:
                ok, mode = False, _RETURN
                continue
            moves = ctx.movebuf[p]
            scores = ctx.scorebuf[p]
            theirs = ctx.bbuf[p]
            nt = win_cells(g, s, dfn, theirs)
            if nt > 0:
                if blocks(g, s, ctx, dfn, theirs, nt, moves) != 1:
                    ok, mode = False, _RETURN
                    continue
                scores[0] = FOUR_BONUS
                vf[lv, V_N] = 1
                vf[lv, V_FORCED] = 1
            else:
                key = s.info[1] ^ (att * 0x2545F491) ^ 0x7F4A7C15
                if _fail_probe(ctx, key, d):
                    ok, mode = False, _RETURN
                    continue
                n = threat_moves(g, s, att, d > 0, moves, scores)
                vf[lv, V_N] = n
                vf[lv, V_FORCED] = 0
                vf[lv, V_KEY] = key
            vf[lv, V_I] = 0
            vf[lv, V_TRIED] = 0
            mode = _TRY
        elif mode == _TRY:
            i = vf[lv, V_I]
            forced = vf[lv, V_FORCED] == 1
            if not forced and i < vf[lv, V_N]:
                _select_at(ctx.movebuf[p], ctx.scorebuf[p], i, vf[lv, V_N])
            is_three = not forced and ctx.scorebuf[p, i] < FOUR_BONUS if i < vf[lv, V_N] else False
            if i >= vf[lv, V_N] or (is_three and vf[lv, V_TRIED] >= VCT_THREE_WIDTH):
                if not forced:
                    _fail_store(ctx, vf[lv, V_KEY], vf[lv, V_DEPTH])
                ok, mode = False, _RETURN
                continue
            threat = ctx.movebuf[p, i]
            place_counts(g, s, threat, att)
            replies = ctx.bbuf[p + 1]
            nr = 0
            three = False
            if not has_win(g, s, dfn):
                threats = ctx.wbuf[p + 1]
                nw = win_cells_near(g, s, threat, att, threats)  # att had no winning cell here
                if nw > 0:
                    nr = blocks(g, s, ctx, att, threats, nw, replies)
                    if nr == 0:
                        # Renju: black may block on no cell, so white's four wins.
                        unplace_counts(g, s)
                        ok, found, mode = True, threat, _RETURN
                        continue
                elif forced or vf[lv, V_DEPTH] > 0:
                    nr = _fork_defences(g, s, ctx, att, replies)
                    three = True
            if nr == 0:
                unplace_counts(g, s)  # not a threat (or it lets the defender win): next one
                vf[lv, V_I] = i + 1
                continue
            if is_three:
                vf[lv, V_TRIED] += 1
            vf[lv, V_CD] = vf[lv, V_DEPTH] - (1 if three and not forced else 0)
            vf[lv, V_NR] = nr
            vf[lv, V_J] = 0
            mode = _REPLY
        elif mode == _REPLY:
            j = vf[lv, V_J]
            if j >= vf[lv, V_NR]:
                unplace_counts(g, s)
                ok, found, mode = True, ctx.movebuf[p, vf[lv, V_I]], _RETURN
                continue
            place_counts(g, s, ctx.bbuf[p + 1, j], dfn)
            vf[lv + 1, V_DEPTH] = vf[lv, V_CD]
            lv += 1
            mode = _ENTER
        else:
            if lv == 0:
                return int(found) if ok else -1
            lv -= 1
            unplace_counts(g, s)  # the defender's reply
            if ok:
                vf[lv, V_J] += 1
                mode = _REPLY
            else:
                unplace_counts(g, s)  # the attacker's threat
                vf[lv, V_I] += 1
                mode = _TRY


@jit
def vct(g: Geo, s: State, ctx: Ctx, att: int, max_threes: int, ply: int) -> int:
    """A first move of a forced win by continuous fours and threes, deepening one three at a
    time (short wins first, and cheaply), or -1. Threes are defended by the usual narrowed set,
    so a line found is the strongest of hints rather than a proof. The pattern board is frozen
    meanwhile (see vcf)."""
    saved = s.info[2]
    s.info[2] = 1
    found = -1
    for depth in range(1, max_threes + 1):
        move = _vct(g, s, ctx, att, depth, ply)
        if move >= 0 or ctx.stat[2]:
            found = move
            break
    s.info[2] = saved
    return found


# ----------------------------------------------------------------------------- the search
@jit_inline_public
def evaluate(g: Geo, s: State, me: int) -> int:
    """The search's value of the position for me, the side to move. Five in a row: the cells'
    part (_cells) averaged with the same before the last stone, for the side that was to move
    then and negated, plus the window term at its fitted weight. Other k: the window term
    alone."""
    # The side to move is a tempo ahead: its lines count a little more.
    windows = s.sums[me] * 9 // 8 - s.sums[3 - me]
    if g.pat:
        ply = _nonneg(s.info[0])
        cells = _cells(g, s.psum, s.nacc[ply], me)
        if ply > 0:
            # Alone, the cells' part swings with whose turn it is; the average holds steadier.
            cells = (cells - _cells(g, s.psave[ply], s.nacc[ply - 1], 3 - me)) >> 1
        return int(cells + ((windows * g.pwin) >> 10))
    return int(windows)


@jit_inline_public
def position_value(g: Geo, s: State, me: int) -> int:
    """The position's own value for me, the side to move, as training.fit and training.net
    model it: evaluate's without the average."""
    windows = s.sums[me] * 9 // 8 - s.sums[3 - me]
    if g.pat:
        return int(_cells(g, s.psum, s.nacc[_nonneg(s.info[0])], me) + ((windows * g.pwin) >> 10))
    return int(windows)


@jit_inline
def _cells(g: Geo, psum: I64, acc: I32, me: int) -> int:
    """From the pattern board's sums (psum) and a row of the hidden layer's (acc): what the
    empty cells are worth to me, to move, less what they are worth to the opponent, waiting,
    plus the hidden layer's units above zero where the rule has a net."""
    them = 3 - me
    net = 0
    if g.nb1.shape[0] != 0:
        for h in range(NET_UNITS):
            a = g.nb1[h] + acc[me, h] + acc[them, NET_UNITS + h]
            if a > 0:
                net += a * g.nw2[h]
    return int(psum[me, 0] - psum[them, 1] + (net >> 16))


@jit_inline
def _tt_probe(ctx: Ctx, key: int) -> int:
    """The slot holding key, or -1."""
    i = (key & ((ctx.tt_key.shape[0] >> 1) - 1)) << 1
    if ctx.tt_key[i] == key and ctx.tt_depth[i] >= 0:
        return int(i)
    if ctx.tt_key[i + 1] == key and ctx.tt_depth[i + 1] >= 0:
        return int(i + 1)
    return -1


@jit_inline
def _tt_store(ctx: Ctx, key: int, depth: int, flag: int, value: int, move: int) -> None:
    """Two slots per bucket: the first keeps the deepest result (of this search generation),
    the second always takes the newest, so shallow results do not evict expensive ones and
    recent ones are still kept."""
    i = (key & ((ctx.tt_key.shape[0] >> 1) - 1)) << 1
    gen = ctx.stat[3]
    slot = i if ctx.tt_key[i] == key or ctx.tt_gen[i] != gen or depth >= ctx.tt_depth[i] else i + 1
    ctx.tt_key[slot] = key
    ctx.tt_depth[slot] = depth
    ctx.tt_flag[slot] = flag
    ctx.tt_val[slot] = value
    ctx.tt_move[slot] = move
    ctx.tt_gen[slot] = gen


@jit_inline
def _to_tt(value: int, ply: int) -> int:
    # Forced results are stored relative to the node, so a transposition at another ply reads
    # the right distance to the end.
    if value >= WON:
        return value + ply
    if value <= -WON:
        return value - ply
    return value


@jit_inline
def _from_tt(value: int, ply: int) -> int:
    if value >= WON:
        return value - ply
    if value <= -WON:
        return value + ply
    return value


@jit_inline
def gen_moves(g: Geo, s: State, ctx: Ctx, me: int, ply: int, hint: int, width: int) -> int:
    """Moves worth searching into movebuf[ply] with their order scores in scorebuf[ply]; how
    many. With width > 0 the best `width` of them, best first; with width 0 all of them, in cell
    order (the main search picks the next best as it goes: most nodes cut off at the first).
    ctx.stat[8] is set to how many are forcing (see below).

    Threat-aware: facing a four only its blocks; facing a possible open/double four (an open
    three) only our own fours and the cells of the opponent's threes. Otherwise the empty cells
    near a stone, ordered by threats made and stopped, hint, killers, the counter-move, history
    and attack value. Forcing: a four of ours, a block of a four or of two of the opponent's
    threes, and every move of a node that faces a four or an open three.
    """
    them = 3 - me
    moves = ctx.movebuf[ply]
    scores = ctx.scorebuf[ply]
    theirs = ctx.wbuf[ply]
    nt = win_cells(g, s, them, theirs)
    if nt > 0:
        nb = blocks(g, s, ctx, them, theirs, nt, moves)
        # None only under renju, when black's every block is forbidden: lost, any move will do.
        if nb > 0:
            for i in range(nb):
                scores[i] = BLOCK_BONUS
            ctx.stat[8] = nb
            return nb
    # A fork cell lies in two of the opponent's live windows of k-2 stones.
    threatened = s.n3[them] >= 2 and find_fork(g, s, them) >= 0
    k0 = ctx.killers[ply, 0]
    k1 = ctx.killers[ply, 1]
    ply0 = s.info[0]
    cm = ctx.counter[me, s.moves[ply0 - 1]] if ply0 > 0 else -1
    n = 0
    forcing = 0
    pat = g.pat
    grid = s.grid
    near = s.near
    t3 = s.t3
    attack = s.attack
    history = ctx.history
    for c in range(g.size):
        if grid[c] != 0 or near[c] == 0 or forbidden_at(g, s, c, me):
            continue
        my3 = t3[me, c]
        their3 = t3[them, c]
        if threatened and my3 == 0 and their3 == 0:
            continue
        sc = attack[me, c] + (attack[them, c] * 7 >> 3) + history[me, c]
        if pat:
            sc += (ORDER_OWN[s.p4[me, c]] + ORDER_THEIRS[s.p4[them, c]]) << 27
        if my3 > 0:
            sc += FOUR_BONUS * (2 if my3 >= 2 else 1)
        if their3 >= 2:
            sc += BLOCK_BONUS
        if threatened or my3 > 0 or their3 >= 2:
            forcing += 1
        if c == hint:
            sc += TT_BONUS
        elif c == k0 or c == k1:  # noqa: SIM109 - two scalar compares, no tuple
            sc += KILLER_BONUS
        elif c == cm:
            sc += COUNTER_BONUS
        moves[n] = c
        scores[n] = sc
        n += 1
    ctx.stat[8] = forcing
    if n == 0:
        # No stone yet (or none near): every empty cell, centre first.
        cr = g.rows // 2
        cc = g.cols // 2
        for c in range(g.size):
            if s.grid[c] == 0:
                moves[n] = c
                scores[n] = -(abs(c // g.cols - cr) + abs(c % g.cols - cc))
                n += 1
    if width > 0:
        return _select_top(moves, scores, n, width)
    return n


@jit_inline
def _lmp(depth: int) -> int:
    """Quiet moves searched at an inner node of this depth (see LMP_BASE)."""
    if depth >= LMP_FULL_DEPTH:
        return 1 << 30
    return LMP_BASE + (depth * depth + 3 * depth) // 2


@jit_inline
def _reduction(depth: int, i: int) -> int:
    """Plies a quiet late move is searched less (log-log, as the best engines reduce)."""
    if depth < 3 or i < 2:
        return 0
    return int(0.4 + math.log(depth) * math.log(i) / LMR_DIVISOR)


@jit_inline
def _history_add(ctx: Ctx, mark: int, cell: int, bonus: int) -> None:
    """History with gravity: a value moves toward +-HISTORY_MAX and never past it."""
    h = ctx.history[mark, cell]
    ctx.history[mark, cell] = h + bonus - h * abs(bonus) // HISTORY_MAX


# Columns of the main search's frames.
P_D, P_A, P_B, P_BEST, P_BMOVE, P_N, P_I, P_KEY, P_SA, P_ND, P_STAGE, P_QUIET, P_RET = range(13)
P_W, P_CHK = 13, 14  # how many of the node's moves are searched; whether it faces a four


@jit_spliced
def _leaf_vcf(g: Geo, s: State, ctx: Ctx, me: int, ply: int) -> bool:
    """vcf(me, LEAF_VCF_DEPTH) at a leaf (where neither side has a winning cell), True when it
    finds a win. Without a four to make, what vcf would do (count its node, note the failure)
    is done here, and so is its stop at a failure already recorded: a call of vcf costs about
    1,500 cycles (measured) before it reads anything."""
    key = s.info[1] ^ (me * 0x5BD1E995)
    # A live window of k-2 of me's stones has empty cells, each of which would make a four.
    if s.n3[me] > 0:
        if _fail_probe(ctx, key, LEAF_VCF_DEPTH):
            # vcf would count its node and stop at this failure (the defender has no winning
            # cell at a quiet leaf, and me none either).
            _tick(ctx)
            return False
        return vcf(g, s, ctx, me, LEAF_VCF_DEPTH, ply) >= 0
    if _tick(ctx):
        return False
    if not _fail_probe(ctx, key, LEAF_VCF_DEPTH):
        _fail_store(ctx, key, LEAF_VCF_DEPTH)
    return False


@jit_spliced
def _enter(g: Geo, s: State, ctx: Ctx, ply: int) -> bool:
    """A node's first visit: True when it is decided at once (value in its P_RET), else its
    moves are generated and its frame set up for the loop over them."""
    fr = ctx.frames
    depth = fr[ply, P_D]
    alpha = fr[ply, P_A]
    beta = fr[ply, P_B]
    if _tick(ctx):
        fr[ply, P_RET] = 0
        return True
    me = 1 if s.info[0] % 2 == 0 else 2
    them = 3 - me
    if has_win(g, s, me):
        fr[ply, P_RET] = WIN - ply - 1
        return True
    if s.info[0] >= g.size:
        fr[ply, P_RET] = 0
        return True
    in_check = s.n4[them] > 0 and has_win(g, s, them)
    if ply >= MAX_PLY - 50:
        fr[ply, P_RET] = evaluate(g, s, me)
        return True
    # An open or double four to make, and no four of theirs to answer first: won in three
    # plies (under caro one stone may stop both ends, so the search decides there).
    if not in_check and g.rule != CARO and s.n3[me] >= 2 and find_fork(g, s, me) >= 0:
        fr[ply, P_RET] = WIN - ply - 3
        return True
    if depth <= 0 and not in_check:
        fr[ply, P_RET] = evaluate(g, s, me)
        # A quiet-looking leaf may hide a win by fours for the side to move.
        if s.info[0] < g.size - 1 and _leaf_vcf(g, s, ctx, me, ply):
            fr[ply, P_RET] = WIN - ply - 3
        return True
    key = s.info[1]
    hint = -1
    slot = _tt_probe(ctx, key)
    tv = 0
    tf = -1
    if slot >= 0:
        hint = ctx.tt_move[slot]
        tv = _from_tt(ctx.tt_val[slot], ply)
        tf = ctx.tt_flag[slot]
        if ctx.tt_depth[slot] >= depth and (
            tf == EXACT_FLAG or (tf == LOWER_FLAG and tv >= beta) or (tf == UPPER_FLAG and tv <= alpha)
        ):
            fr[ply, P_RET] = tv
            return True
    if beta - alpha == 1 and not in_check and depth <= FUTILITY_DEPTH and abs(beta) < WON:
        # Far below alpha or far above beta: a few more plies would rarely turn it around.
        static = evaluate(g, s, me)
        # A shallower search's bound on the node says more than the static value, on its side.
        if abs(tv) < WON and (
            tf == EXACT_FLAG or (tf == LOWER_FLAG and tv > static) or (tf == UPPER_FLAG and tv < static)
        ):
            static = tv
        if depth <= RAZOR_DEPTH and static + RAZOR_BASE + RAZOR_STEP * depth < alpha:
            fr[ply, P_RET] = static
            if s.info[0] < g.size - 1 and _leaf_vcf(g, s, ctx, me, ply):
                fr[ply, P_RET] = WIN - ply - 3
            return True
        if static - FUTILITY_STEP * depth >= beta:
            fr[ply, P_RET] = static
            return True
    if hint < 0 and depth >= IIR_DEPTH and not in_check:
        depth -= 1
        fr[ply, P_D] = depth
    n = gen_moves(g, s, ctx, me, ply, hint, 0)
    if n == 0:
        fr[ply, P_RET] = 0
        return True
    fr[ply, P_N] = n
    fr[ply, P_W] = n if in_check else min(n, _lmp(depth) + ctx.stat[8])
    fr[ply, P_CHK] = 1 if in_check else 0
    fr[ply, P_I] = 0
    fr[ply, P_KEY] = key
    fr[ply, P_SA] = alpha
    fr[ply, P_BEST] = -WIN
    fr[ply, P_BMOVE] = ctx.movebuf[ply, 0]
    # A forced reply costs the defender no thought: search it one ply deeper for free, so
    # lines of fours are read further.
    fr[ply, P_ND] = depth if in_check and ply < 40 else depth - 1
    return False


@jit_inline
def _finish(ctx: Ctx, ply: int) -> int:
    """Store a searched node in the table; its value."""
    fr = ctx.frames
    best = fr[ply, P_BEST]
    sa = fr[ply, P_SA]
    flag = UPPER_FLAG if best <= sa else (LOWER_FLAG if best >= fr[ply, P_B] else EXACT_FLAG)
    _tt_store(ctx, fr[ply, P_KEY], fr[ply, P_D], flag, _to_tt(best, ply), fr[ply, P_BMOVE])
    return int(best)


@jit_inline
def _reward_quiet(g: Geo, s: State, ctx: Ctx, ply: int, move: int) -> None:
    """A quiet move cut off at this node: it becomes a killer and the counter-move to the
    last move, its history rises and that of the quiet moves searched before it falls."""
    if ctx.killers[ply, 0] != move:
        ctx.killers[ply, 1] = ctx.killers[ply, 0]
        ctx.killers[ply, 0] = move
    me = 1 if s.info[0] % 2 == 0 else 2
    them = 3 - me
    if s.info[0] > 0:
        ctx.counter[me, s.moves[s.info[0] - 1]] = move
    depth = ctx.frames[ply, P_D]
    bonus = min(32 * depth * depth, HISTORY_MAX // 4)
    _history_add(ctx, me, move, bonus)
    for j in range(ctx.frames[ply, P_I]):
        m = ctx.movebuf[ply, j]
        if s.t3[me, m] == 0 and s.t3[them, m] < 2:
            _history_add(ctx, me, m, -bonus)


@jit_spliced
def pvs(g: Geo, s: State, ctx: Ctx, depth: int, alpha: int, beta: int, ply: int) -> int:
    """Principal-variation search of the position (value for the side to move), as a loop over
    an explicit stack of frames, one per ply.

    Moves are picked best first as they are needed. The first gets the full window; the others
    a null window, quiet late ones first at a depth reduced by log(depth) * log(move number)
    (late-move reductions), re-searched at full depth and then with the full window when they
    beat alpha. Past a depth-dependent count, quiet moves are not searched at all (move-count
    pruning). Near the leaves, a node off the principal variation whose static value (or the
    table's bound from a shallower search, where it says more) lies far below alpha or far
    above beta ends at once (razoring, futility pruning); a deeper one without a move from the
    table is searched a ply shallower (internal iterative reduction).
    Cut-offs feed the killers, the counter-moves and the history."""
    fr = ctx.frames
    base = s.info[0]
    top = ply
    fr[top, P_D] = depth
    fr[top, P_A] = alpha
    fr[top, P_B] = beta
    sp = top
    mode = _ENTER
    ret = 0
    while True:
        if ctx.stat[2]:
            _unwind(g, s, base)
            return 0
        if mode == _ENTER:
            if _enter(g, s, ctx, sp):
                ret = fr[sp, P_RET]
                mode = _RETURN
            else:
                mode = _TRY
        elif mode == _TRY:
            i = fr[sp, P_I]
            if i >= fr[sp, P_W]:
                ret = _finish(ctx, sp)
                mode = _RETURN
                continue
            _select_at(ctx.movebuf[sp], ctx.scorebuf[sp], i, fr[sp, P_N])
            move = ctx.movebuf[sp, i]
            me = 1 if s.info[0] % 2 == 0 else 2
            them = 3 - me
            quiet = s.t3[me, move] == 0 and s.t3[them, move] < 2 and fr[sp, P_CHK] == 0
            fr[sp, P_QUIET] = 1 if quiet else 0
            place(g, s, move, me)
            nd = fr[sp, P_ND]
            a = fr[sp, P_A]
            if i == 0:
                fr[sp, P_STAGE] = 2
                fr[sp + 1, P_D] = nd
                fr[sp + 1, P_A] = -fr[sp, P_B]
                fr[sp + 1, P_B] = -a
            else:
                r = 0
                if quiet:
                    r = _reduction(fr[sp, P_D], i)
                    if ctx.scorebuf[sp, i] >= COUNTER_BONUS:
                        r -= 1  # a killer or the counter-move: it refuted a sibling line
                    r = max(0, min(r, nd - 1))
                fr[sp, P_STAGE] = 0 if r > 0 else 1
                fr[sp + 1, P_D] = nd - r
                fr[sp + 1, P_A] = -a - 1
                fr[sp + 1, P_B] = -a
            sp += 1
            mode = _ENTER
        else:
            if sp == top:
                return int(ret)
            sp -= 1
            v = -ret
            stage = fr[sp, P_STAGE]
            a = fr[sp, P_A]
            b = fr[sp, P_B]
            if stage == 0 and v > a:
                # The reduced search beat alpha: again at full depth.
                fr[sp, P_STAGE] = 1
                fr[sp + 1, P_D] = fr[sp, P_ND]
                fr[sp + 1, P_A] = -a - 1
                fr[sp + 1, P_B] = -a
                sp += 1
                mode = _ENTER
                continue
            if stage == 1 and a < v < b:
                fr[sp, P_STAGE] = 2
                fr[sp + 1, P_D] = fr[sp, P_ND]
                fr[sp + 1, P_A] = -b
                fr[sp + 1, P_B] = -a
                sp += 1
                mode = _ENTER
                continue
            unplace(g, s)
            move = ctx.movebuf[sp, fr[sp, P_I]]
            if v > fr[sp, P_BEST]:
                fr[sp, P_BEST] = v
                fr[sp, P_BMOVE] = move
                if v > a:
                    fr[sp, P_A] = v
                    if v >= b:
                        ctx.stat[6] += 1
                        if fr[sp, P_I] == 0:
                            ctx.stat[7] += 1
                        if fr[sp, P_QUIET]:
                            _reward_quiet(g, s, ctx, sp, move)
                        ret = _finish(ctx, sp)
                        mode = _RETURN
                        continue
            fr[sp, P_I] += 1
            mode = _TRY


@jit
def search(g: Geo, s: State, ctx: Ctx, max_depth: int, out: I64, ranking: I32) -> None:
    """Iterative deepening from the root until max_depth, a proven result, the deadline, or the
    soft limit (ctx.stat[9]: no iteration starts after it, as the next would not finish).

    out: [0] best move, [1] its value, [2] deepest iteration completed, [3] nodes, [4] root
    moves written to ranking, best first (as the last complete iteration ordered them); where out
    is longer, out[8 + d] the nodes counted when iteration d completed.
    Every candidate is a root move. From depth 5 each iteration first searches a window of
    ASPIRATION around the last value, widened on the side it fails. Quiet root moves past the
    fifth are searched a ply shallower first, again at full depth when they beat the best.
    The root's moves are re-ordered after each iteration, best first; when the deadline cuts an
    iteration short, a move that already beat the previous best in it is kept (it was searched
    with the previous best's value as the bar, at the new depth).
    """
    ctx.stat[3] += 1
    me = 1 if s.info[0] % 2 == 0 else 2
    them = 3 - me
    root = ctx.root
    n = gen_moves(g, s, ctx, me, 0, -1, g.size)
    for i in range(n):
        root[i] = ctx.movebuf[0, i]
    best = root[0]
    best_value = 0
    done = 0
    out[0] = best
    out[1] = 0
    out[2] = 0
    for i in range(n):
        ranking[i] = root[i]
    out[4] = n
    if n == 1:
        out[3] = ctx.stat[0]
        return
    values = ctx.rootval
    for depth in range(1, max_depth + 1):
        delta = ASPIRATION
        lo = -WIN
        hi = WIN
        if depth >= 5 and abs(best_value) < WON:
            lo = best_value - delta
            hi = best_value + delta
        iter_best = -1
        iter_value = -WIN
        while True:
            alpha = lo
            beta = hi
            iter_best = -1
            iter_value = -WIN
            for i in range(n):
                move = root[i]
                quiet = s.t3[me, move] == 0 and s.t3[them, move] < 2
                place(g, s, move, me)
                # The first move with the full window; the others with a null window (at a
                # reduced depth for a late quiet one, again at full depth if that fails high),
                # then the full window if the move may be better. One call of pvs, which is
                # copied in here (jit_spliced).
                r = 1 if quiet and i >= 5 and depth >= 4 else 0
                stage = 2 if i == 0 else 0  # 0 reduced null window, 1 null window, 2 full
                while True:
                    d = depth - 1 - r if stage == 0 else depth - 1
                    v = -pvs(g, s, ctx, d, -beta if stage == 2 else -alpha - 1, -alpha, 1)
                    if stage == 2:
                        break
                    if stage == 0 and r > 0 and v > alpha and not ctx.stat[2]:
                        stage = 1
                        continue
                    if v > alpha and v < beta and not ctx.stat[2]:
                        stage = 2
                        continue
                    break
                unplace(g, s)
                if ctx.stat[2]:
                    break
                values[i] = v if (i == 0 or v > alpha) else alpha - 1
                if v > iter_value:
                    iter_value = v
                    iter_best = i
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
            if ctx.stat[2]:
                break
            if iter_value <= lo and lo > -WIN:
                lo = max(-WIN, lo - delta * 3)
                delta *= 4
                continue
            if iter_value >= hi and hi < WIN:
                hi = min(WIN, hi + delta * 3)
                delta *= 4
                continue
            break
        if ctx.stat[2]:
            # A partial pass: keep a move that beat the previous best at the new depth.
            if iter_best > 0 and iter_value > values[0] - 1 and iter_value > lo:
                best = root[iter_best]
                best_value = iter_value
            break
        # Best first, the rest in their order of value (stable on ties).
        _sort(root, values, n)
        best = root[0]
        best_value = values[0]
        done = depth
        if out.shape[0] > 8 + depth:
            out[8 + depth] = ctx.stat[0]
        for i in range(n):
            ranking[i] = root[i]
        if abs(best_value) >= WON:
            break
        if ctx.stat[9] > 0 and cycles() > ctx.stat[9]:
            break
    out[0] = best
    out[1] = best_value
    out[2] = done
    out[3] = ctx.stat[0]
