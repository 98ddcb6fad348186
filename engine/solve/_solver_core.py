"""The solver's compiled search: the same exact alpha-beta as engine.solve.solver, in numba.

Boards of up to 64 cells are searched here (bitboards fit one uint64 per side); engine.solve.solver
keeps the pure-Python search for larger boards and as the reference the tests compare with.

Everything the search reads is in flat arrays built once per board spec (see Tables in
engine.solve.solver); the transposition table is a pair of parallel arrays with two slots per bucket:
slot 0 keeps the entry with the most empty cells below it (the costliest to recompute), slot 1
always takes the newest. Keys are exact (both bitboards of the canonical position), so a probe
never confuses two positions.

The search stops when ctl[CTL_STOP] becomes non-zero (set by a timer thread from Python: the
compiled code runs without the GIL) or when the node count passes ctl[CTL_NODE_LIMIT]; it then
sets ctl[CTL_ABORTED] and unwinds without storing anything.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# ctl array slots.
CTL_NODES = 0
CTL_NODE_LIMIT = 1  # -1: no node limit
CTL_STOP = 2
CTL_ABORTED = 3
CTL_SIZE = 4

RULE_FREESTYLE = 0
RULE_EXACT = 1
RULE_CARO = 2

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_MIX1 = np.uint64(0x9E3779B97F4A7C15)
_MIX2 = np.uint64(0xC2B2AE3D27D4EB4F)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S29 = np.uint64(29)
_S56 = np.uint64(56)


@njit(cache=True, inline="always")
def _popcount(x: Any) -> Any:
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


@njit(cache=True, inline="always")
def _full_window_wins(rule: Any, own: Any, opp: Any, before: Any, after: Any) -> Any:
    if rule == RULE_FREESTYLE:
        return True
    if (own & before) != _ZERO or (own & after) != _ZERO:
        return False
    return not (rule == RULE_CARO and (opp & before) != _ZERO and (opp & after) != _ZERO)


@njit(cache=True, nogil=True)
def search_position(
    x_stones: Any, o_stones: Any, ply0: Any, alpha0: Any, beta0: Any,
    cells: Any, rule: Any, wmask: Any, wbefore: Any, wafter: Any, order: Any,
    perms: Any, inverse: Any, symbit: Any,
    tt_x: Any, tt_o: Any, tt_lo: Any, tt_hi: Any, tt_move: Any, tt_depth: Any, ctl: Any,
) -> Any:
    """Score of a position that is not over, for the side to move (fail-soft alpha-beta);
    x_stones/o_stones are the bitboards of X and O, ply0 the number of stones.

    The recursion is unrolled onto explicit per-depth arrays: numba's on-disk cache cannot hold
    a self-recursive function (loading one crashes), and the cache is what spares every worker
    process the seconds of compiling.
    """
    nsym = perms.shape[0]
    depth_max = cells - ply0 + 2
    kx = np.zeros((depth_max, nsym), dtype=np.uint64)
    ko = np.zeros((depth_max, nsym), dtype=np.uint64)
    for cell in range(cells):
        bit = _ONE << np.uint64(cell)
        for s in range(nsym):
            if (x_stones & bit) != _ZERO:
                kx[0, s] |= symbit[cell, s]
            elif (o_stones & bit) != _ZERO:
                ko[0, s] |= symbit[cell, s]
    f_me = np.zeros(depth_max, dtype=np.uint64)
    f_opp = np.zeros(depth_max, dtype=np.uint64)
    f_cand = np.zeros(depth_max, dtype=np.uint64)
    f_key_x = np.zeros(depth_max, dtype=np.uint64)
    f_key_o = np.zeros(depth_max, dtype=np.uint64)
    # Per-depth integers: see the I_ names below.
    f = np.zeros((depth_max, 14), dtype=np.int64)
    I_ALPHA, I_BETA, I_A, I_B, I_LOW, I_HIGH, I_OLD_LO, I_OLD_HI = 0, 1, 2, 3, 4, 5, 6, 7
    I_BEST, I_BEST_MOVE, I_FOUND, I_SLOT0, I_SYM, I_HINT = 8, 9, 10, 11, 12, 13
    f_next = np.zeros(depth_max, dtype=np.int64)  # next position in the move order; -1: hint
    f_child = np.zeros(depth_max, dtype=np.int64)

    if ply0 % 2 == 0:
        f_me[0] = x_stones
        f_opp[0] = o_stones
    else:
        f_me[0] = o_stones
        f_opp[0] = x_stones
    f[0, I_ALPHA] = alpha0
    f[0, I_BETA] = beta0
    win = cells + 1
    full = (_ONE << np.uint64(cells)) - _ONE if cells < 64 else ~_ZERO
    buckets = tt_x.shape[0] // 2
    n_order = order.shape[0]
    n_windows = wmask.shape[0]

    MODE_ENTER, MODE_NEXT, MODE_RETURN, MODE_FINISH = 0, 1, 2, 3
    mode = MODE_ENTER
    d = 0
    ret: Any = 0
    while True:
        if mode == MODE_ENTER:
            ctl[CTL_NODES] += 1
            if ctl[CTL_STOP] != 0 or (
                ctl[CTL_NODE_LIMIT] >= 0 and ctl[CTL_NODES] > ctl[CTL_NODE_LIMIT]
            ):
                ctl[CTL_ABORTED] = 1
                return 0
            me = f_me[d]
            opp = f_opp[d]
            alpha = f[d, I_ALPHA]
            beta = f[d, I_BETA]
            ply = ply0 + d
            occupied = me | opp
            empty = full ^ occupied
            empty_count = cells - ply
            my_moves = (empty_count + 1) // 2
            their_moves = empty_count // 2

            # One pass over the lines: immediate wins, the opponent's threats, which side can
            # still complete a line at all.
            my_live = False
            their_live = False
            has_threat = False
            immediate = False
            candidates = empty
            for w in range(n_windows):
                mask = wmask[w]
                mine = mask & me
                theirs = mask & opp
                if theirs == _ZERO:
                    need = _popcount(mask ^ mine)
                    if need <= my_moves:
                        my_live = True
                        if need == 1 and _full_window_wins(rule, me, opp, wbefore[w], wafter[w]):
                            immediate = True
                            break
                elif mine == _ZERO:
                    missing = mask ^ theirs
                    need = _popcount(missing)
                    if need <= their_moves:
                        their_live = True
                        before = wbefore[w]
                        after = wafter[w]
                        if need == 1 and _full_window_wins(rule, opp, me, before, after):
                            has_threat = True
                            stops = missing
                            if rule == RULE_CARO:
                                # A caro line blocked at both ends does not win: an end stops it.
                                if before != _ZERO and (after & me) != _ZERO:
                                    stops |= before & empty
                                if after != _ZERO and (before & me) != _ZERO:
                                    stops |= after & empty
                            candidates &= stops
            mode = MODE_RETURN
            if immediate:
                ret = win - ply - 1
                continue
            if empty_count == 1 or not (my_live or their_live):
                ret = 0
                continue
            high = win - ply - 3 if my_live else 0
            low = -(win - ply - 2) if their_live else 0
            if has_threat and candidates == _ZERO:
                ret = low
                continue
            if high <= low or low >= beta:
                ret = low
                continue
            if high <= alpha:
                ret = high
                continue

            # Canonical key: the smallest (X bits, O bits) over the board's symmetries.
            sym = 0
            key_x = kx[d, 0]
            key_o = ko[d, 0]
            for s in range(1, nsym):
                x = kx[d, s]
                o = ko[d, s]
                if x < key_x or (x == key_x and o < key_o):
                    key_x = x
                    key_o = o
                    sym = s
            h = (key_x * _MIX1) ^ (key_o * _MIX2)
            h ^= h >> _S29
            slot0 = np.int64(h % np.uint64(buckets)) * 2
            found: Any = -1
            if tt_depth[slot0] != 0 and tt_x[slot0] == key_x and tt_o[slot0] == key_o:
                found = slot0
            elif (
                tt_depth[slot0 + 1] != 0
                and tt_x[slot0 + 1] == key_x
                and tt_o[slot0 + 1] == key_o
            ):
                found = slot0 + 1
            hint = -1
            old_lo = low
            old_hi = high
            if found >= 0:
                lo = np.int64(tt_lo[found])
                hi = np.int64(tt_hi[found])
                old_lo = lo
                old_hi = hi
                if lo >= beta:
                    ret = lo
                    continue
                if hi <= alpha:
                    ret = hi
                    continue
                if lo == hi:
                    ret = lo
                    continue
                if lo > low:
                    low = lo
                if hi < high:
                    high = hi
                canon_move = np.int64(tt_move[found])
                if canon_move >= 0:
                    hint = inverse[sym, canon_move]
                if low >= high:
                    ret = low
                    continue
            f[d, I_A] = alpha if alpha > low else low
            f[d, I_B] = beta if beta < high else high
            f[d, I_LOW] = low
            f[d, I_HIGH] = high
            f[d, I_OLD_LO] = old_lo
            f[d, I_OLD_HI] = old_hi
            f[d, I_BEST] = -win - 1
            f[d, I_BEST_MOVE] = -1
            f[d, I_FOUND] = found
            f[d, I_SLOT0] = slot0
            f[d, I_SYM] = sym
            f[d, I_HINT] = hint
            f_key_x[d] = key_x
            f_key_o[d] = key_o
            f_cand[d] = candidates
            f_next[d] = -1
            mode = MODE_NEXT
            continue

        if mode == MODE_NEXT:
            me = f_me[d]
            opp = f_opp[d]
            occupied = me | opp
            candidates = f_cand[d]
            hint = f[d, I_HINT]
            index = -1
            while f_next[d] < n_order:
                i = f_next[d]
                f_next[d] = i + 1
                if i < 0:
                    if hint < 0:
                        continue
                    cand = hint
                else:
                    cand = order[i]
                    if cand == hint:
                        continue
                bit = _ONE << np.uint64(cand)
                if (candidates & bit) == _ZERO or (occupied & bit) != _ZERO:
                    continue
                index = cand
                break
            if index < 0:
                mode = MODE_FINISH
                continue
            bit = _ONE << np.uint64(index)
            x_to_move = (ply0 + d) % 2 == 0
            for s in range(nsym):
                if x_to_move:
                    kx[d + 1, s] = kx[d, s] | symbit[index, s]
                    ko[d + 1, s] = ko[d, s]
                else:
                    kx[d + 1, s] = kx[d, s]
                    ko[d + 1, s] = ko[d, s] | symbit[index, s]
            f_child[d] = index
            f_me[d + 1] = opp
            f_opp[d + 1] = me | bit
            f[d + 1, I_ALPHA] = -f[d, I_B]
            f[d + 1, I_BETA] = -f[d, I_A]
            d += 1
            mode = MODE_ENTER
            continue

        if mode == MODE_RETURN:
            if d == 0:
                return ret
            d -= 1
            score = -ret
            mode = MODE_NEXT
            if score > f[d, I_BEST]:
                f[d, I_BEST] = score
                f[d, I_BEST_MOVE] = f_child[d]
                if score > f[d, I_A]:
                    f[d, I_A] = score
                    if score >= f[d, I_B]:
                        mode = MODE_FINISH
            continue

        # MODE_FINISH: every child searched (or a cut-off): bound the result and store it.
        best = f[d, I_BEST]
        low = f[d, I_LOW]
        high = f[d, I_HIGH]
        alpha = f[d, I_ALPHA]
        beta = f[d, I_BETA]
        # Fail-soft results outside the window are bounds; inside it they are exact.
        if best < low:
            best = low
        if best > high:
            best = high
        new_lo = f[d, I_OLD_LO]
        new_hi = f[d, I_OLD_HI]
        alpha_w = alpha if alpha > low else low
        beta_w = beta if beta < high else high
        if best <= alpha_w:
            new_hi = min(new_hi, best)
        elif best >= beta_w:
            new_lo = max(new_lo, best)
        else:
            new_lo = best
            new_hi = best
        new_lo = max(new_lo, low)
        new_hi = min(new_hi, high)
        best_move = f[d, I_BEST_MOVE]
        canon_best = perms[f[d, I_SYM], best_move] if best_move >= 0 else -1

        # Replacement: the same position is updated where it is; otherwise slot 0 keeps the
        # entry with the most empty cells (the biggest subtree), slot 1 takes the newest.
        slot0 = f[d, I_SLOT0]
        depth = cells - (ply0 + d) + 1
        target = f[d, I_FOUND]
        if target < 0:
            if tt_depth[slot0] == 0 or depth >= tt_depth[slot0]:
                if tt_depth[slot0] != 0:
                    tt_x[slot0 + 1] = tt_x[slot0]
                    tt_o[slot0 + 1] = tt_o[slot0]
                    tt_lo[slot0 + 1] = tt_lo[slot0]
                    tt_hi[slot0 + 1] = tt_hi[slot0]
                    tt_move[slot0 + 1] = tt_move[slot0]
                    tt_depth[slot0 + 1] = tt_depth[slot0]
                target = slot0
            else:
                target = slot0 + 1
        tt_x[target] = f_key_x[d]
        tt_o[target] = f_key_o[d]
        tt_lo[target] = new_lo
        tt_hi[target] = new_hi
        tt_move[target] = canon_best
        tt_depth[target] = depth
        ret = best
        mode = MODE_RETURN
