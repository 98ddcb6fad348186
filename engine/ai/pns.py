"""Victory by continuous threats (fours and threes) as a depth-first proof-number search.

df-pn (Nagai 2002) over the threat tree of engine.ai.core: at an OR node the attacker plays one
of its threats (a four, or a three that leaves a fork cell, at most THREE_WIDTH threes per node,
the best by the core's attack values); at an AND node the defender plays one of the replies that
could stop it (the blocks of a four; against a three every cell of the attacker's threes through
a fork cell, under caro also the cells just past those segments, and every cell of a four of
the defender's own). A five is proved, a node without a threat disproved. Each node carries a
proof number (how many leaves must still be proved) and a disproof number; the search always
descends into the most proving child, within thresholds that send it back up as soon as a
sibling becomes the better bet, so it reads deep narrow wins without a depth-first search's
iterative deepening over depth. Values go to a table (key: Zobrist hash, attacker, node type)
that transpositions share; a disproof holds for the number of threes it was read with and fewer.
Each attacker node first asks the core's depth-first VCF for a win by fours alone (proved at
once), and the root allows one three more per pass, so short wins cost what they did in the old
depth-first VCT while the proof numbers steer the longer ones.

The replies at an AND node are complete: a defender's move outside the set leaves the attacker's
fork cell a fork (its segments and their ends are untouched, and the defender has no four to
answer with), so the attacker wins by playing it. Under caro a fork cell counts only if no
single stone stops both of its winning cells. A proof found is therefore a forced win.

Written for numba's nopython mode like the core, and compiled separately from it (its own disk
cache): this module imports the core's helpers, so editing it does not recompile the core.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .core import (
    CARO,
    FOUR_BONUS,
    I32,
    I64,
    MAX_PLY,
    VCT_THREE_WIDTH,
    Ctx,
    Geo,
    State,
    _low_bit,
    _next_stamp,
    _select_at,
    _tick,
    _unwind_counts,
    blocks,
    cycles,
    forbidden_at,
    has_win,
    jit,
    jit_inline,
    jit_inner,
    jit_spliced,
    line_wins,
    makes_fork,
    place,
    place_counts,
    threat_moves,
    unplace,
    unplace_counts,
    vcf,
    win_cells,
    win_cells_near,
)

INF = 1 << 40  # a proof or disproof number that can no longer change
THREE_WIDTH = VCT_THREE_WIDTH  # threes an attacker node offers (fours are all offered)
NODE_VCF_DEPTH = 8  # attacker fours the VCF at each attacker node reads
SALT_ATT = 0x2545F4914F6CDD1D
SALT_AND = 0x5851F42D4C957F2D
# Frame columns (PnTable.frames), one row per level of the explicit stack.
F_N, F_TPHI, F_TDELTA, F_KEY, F_BUD, F_SEL, F_PHI, F_DELTA, F_ALLOW, F_FORCED, F_SB = range(11)
_ENTER, _LOOP, _RETURN = 0, 1, 2


class PnTable(NamedTuple):
    """The proof-number search's table and stacks, allocated once per process and board shape.

    Values are stored as (phi, delta): at an OR node (proof, disproof) number, at an AND node
    (disproof, proof), so that every node's phi is the least delta of its children and its delta
    the sum of their phis."""

    key: I64
    phi: I64
    delta: I64
    budget: I32  # threes left when stored: a disproof holds at that budget and below
    cphi: I64  # [ply, i]: the values of the children of the node at that ply
    cdelta: I64
    cbud: I32  # [ply, i]: the threes the child has left
    frames: I64  # [level, column]


@jit_inline
def _key(hash_: int, att: int, is_and: int) -> int:
    return hash_ ^ (att * SALT_ATT) ^ (is_and * SALT_AND)


@jit_inline
def _probe(tab: PnTable, key: int) -> int:
    i = key & (tab.key.shape[0] - 1)
    return int(i) if tab.key[i] == key else -1


@jit_inline
def _store(tab: PnTable, key: int, phi: int, delta: int, budget: int) -> None:
    i = key & (tab.key.shape[0] - 1)
    tab.key[i] = key
    tab.phi[i] = phi
    tab.delta[i] = delta
    tab.budget[i] = budget


@jit_inline
def _init_child(tab: PnTable, p: int, i: int, key: int, is_and: int, bud: int, phi0: int,
                delta0: int) -> None:
    """Child i of the node at ply p: its stored values when the table has them (a disproof only
    if read with at least as many threes), else the first guess phi0/delta0."""
    e = _probe(tab, key)
    if e >= 0:
        phi = tab.phi[e]
        delta = tab.delta[e]
        disproof = delta >= INF if is_and else phi >= INF
        if not disproof or tab.budget[e] >= bud:
            tab.cphi[p, i] = phi
            tab.cdelta[p, i] = delta
            return
    tab.cphi[p, i] = phi0
    tab.cdelta[p, i] = delta0


@jit_spliced
def _real_fork(g: Geo, s: State, ctx: Ctx, f: int, att: int, wins: I32, out: I32) -> bool:
    """Under caro: does att's stone on the fork cell f leave winning cells that no single stone
    of the defender stops (a stone past the end of a five can block it)?"""
    place_counts(g, s, f, att)
    nw = win_cells_near(g, s, f, att, wins)
    real = False
    if nw >= 2:
        # blocks lists the stones that stop all of them, or the winning cells when none does:
        # the first listed stops them all exactly when there is a stopper.
        blocks(g, s, ctx, att, wins, nw, out)
        y = out[0]
        grid = s.grid
        grid[y] = 3 - att  # a throwaway stone: only the line checks below read it
        for j in range(nw):
            if wins[j] != y and line_wins(g, grid, wins[j], att):
                real = True
                break
        grid[y] = 0
    unplace_counts(g, s)
    return real


@jit_spliced
def _defences(g: Geo, s: State, ctx: Ctx, att: int, out: I32, wins: I32, tmp: I32) -> int:
    """Every defender move that could stop att's three, into out; 0 when att has no fork cell.
    The cells of att's threes through a fork cell, under caro also the cell just past each end
    of those segments, and the cells where the defender makes a four of its own."""
    dfn = 3 - att
    k = g.k
    cols, rows = g.cols, g.rows
    caro = g.rule == CARO
    grid = s.grid
    t3 = s.t3
    # Fork cells first (their own stamp), then the defences (a fresh stamp), as the candidate
    # checks below reuse the scratch arrays.
    bits = s.t3m
    nf = 0
    for word in range(bits.shape[1]):
        fb = bits[att, word]
        while fb != 0:
            f = word * 64 + _low_bit(fb)
            fb &= fb - 1
            if grid[f] != 0 or t3[att, f] < 2 or not makes_fork(g, s, f, att):
                continue
            if caro and not _real_fork(g, s, ctx, f, att, wins, tmp):
                continue
            out[nf] = f
            nf += 1
    if nf == 0:
        return 0
    # out[:nf] holds the fork cells; move them past the room the defences may need.
    for i in range(nf):
        wins[i] = out[i]
    st = _next_stamp(ctx)
    mark = ctx.stamp
    nr = 0
    for i in range(nf):
        f = wins[i]
        for j in range(g.cwn[f]):
            w = g.cw[f, j]
            if s.cnt[att, w] != k - 2 or s.cnt[dfn, w] != 0:
                continue
            for t in range(k):
                c = g.wcells[w, t]
                if grid[c] == 0 and mark[c] != st:
                    mark[c] = st
                    if not forbidden_at(g, s, c, dfn):
                        out[nr] = c
                        nr += 1
            if caro:
                a = g.wcells[w, 0]
                b = g.wcells[w, 1]
                dr = b // cols - a // cols
                dc = b % cols - a % cols
                for end in range(2):
                    e0 = a if end == 0 else g.wcells[w, k - 1]
                    sign = -1 if end == 0 else 1
                    r = e0 // cols + sign * dr
                    c2 = e0 % cols + sign * dc
                    if 0 <= r < rows and 0 <= c2 < cols:
                        c = r * cols + c2
                        if grid[c] == 0 and mark[c] != st:
                            mark[c] = st
                            out[nr] = c
                            nr += 1
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


@jit_inner
def _replies(g: Geo, s: State, ctx: Ctx, att: int, cell: int, allow_three: bool, out: I32,
             wins: I32, tmp: I32) -> tuple[int, bool]:
    """After att's stone on cell (att had no winning cell before it): the defender's replies
    into out and whether the move was a three; 0 replies when it is no threat (or leaves the
    defender a five).

    Called, not inlined (jit_inner): it has two callers, and an inlined copy in each, with the
    blocks and the three's defences in it, made the build optimise all of it twice more."""
    if has_win(g, s, 3 - att):
        return 0, False
    nw = win_cells_near(g, s, cell, att, wins)
    if nw > 0:
        return blocks(g, s, ctx, att, wins, nw, out), False
    if allow_three:
        return _defences(g, s, ctx, att, out, wins, tmp), True
    return 0, False


@jit_spliced
def _expand_or(g: Geo, s: State, ctx: Ctx, tab: PnTable, att: int, p: int, bud: int) -> tuple[
        int, bool]:
    """The attacker's threats at ply p into ctx.movebuf[p], with their children's first values
    and threes left; how many, and whether they are the forced block of a defender's four."""
    dfn = 3 - att
    moves = ctx.movebuf[p]
    scores = ctx.scorebuf[p]
    theirs = ctx.wbuf[p]
    nt = win_cells(g, s, dfn, theirs)
    forced = nt > 0
    n = 0
    if forced:
        if blocks(g, s, ctx, dfn, theirs, nt, moves) != 1:
            return 0, True
        n = 1
    else:
        n = threat_moves(g, s, att, bud > 0, moves, scores)
    replies = ctx.bbuf[p + 1]
    wins = ctx.wbuf[p + 1]
    tmp = ctx.movebuf[p + 1]
    allow = forced or bud > 0
    m = 0
    threes = 0
    for i in range(n):
        if not forced:
            _select_at(moves, scores, i, n)
            if scores[i] < FOUR_BONUS and threes >= THREE_WIDTH:
                break  # fours come first: the rest are threes
        c = moves[i]
        place_counts(g, s, c, att)
        nr, three = _replies(g, s, ctx, att, c, allow, replies, wins, tmp)
        if nr > 0:
            cb = bud - 1 if three and not forced else bud
            if three and not forced:
                threes += 1
            moves[m] = c  # m <= i: a slot already read
            tab.cbud[p, m] = cb
            # An AND child: disproof number 1, proof number its replies (all must be proved).
            _init_child(tab, p, m, _key(s.info[1], att, 1), 1, cb, 1, nr)
            m += 1
        unplace_counts(g, s)
    return m, forced


@jit_spliced
def _dfpn_vct(g: Geo, s: State, ctx: Ctx, tab: PnTable, att: int, max_threes: int,
              ply: int) -> int:
    """A first move of a proved win for att (to move) by fours and at most max_threes threes, or
    -1 (none within the limits, or the node limit or the clock ran out). One three more at a
    time, as short wins are the common case and cheap to prove; the table keeps what each pass
    proved and its unfinished values for the next."""
    if win_cells(g, s, att, ctx.wbuf[ply]) > 0:
        return int(ctx.wbuf[ply, 0])
    # The threat search reads only the window counters: the pattern board stays as it is.
    saved = s.info[2]
    s.info[2] = 1
    found = -1
    for threes in range(1, max_threes + 1):
        move = _dfpn(g, s, ctx, tab, att, threes, ply)
        if move >= 0 or ctx.stat[2]:
            found = move
            break
    s.info[2] = saved
    return found


@jit_spliced
def _dfpn(g: Geo, s: State, ctx: Ctx, tab: PnTable, att: int, max_threes: int, ply: int) -> int:
    """One df-pn pass from the root (att to move) with max_threes threes."""
    root_win = -1
    fr = tab.frames
    dfn = 3 - att
    base = s.info[0]
    lv = 0
    fr[0, F_TPHI] = INF
    fr[0, F_TDELTA] = INF
    fr[0, F_BUD] = max_threes
    fr[0, F_ALLOW] = 0
    mode = _ENTER
    while True:
        if ctx.stat[2]:
            _unwind_counts(g, s, base)
            return -1
        p = ply + lv
        if mode == _ENTER:
            if _tick(ctx):
                continue
            is_and = lv & 1
            bud = fr[lv, F_BUD]
            fr[lv, F_KEY] = _key(s.info[1], att, is_and)
            fr[lv, F_SB] = bud
            n = 0
            if is_and == 0:
                if win_cells(g, s, att, ctx.wbuf[p]) > 0:
                    fr[lv, F_PHI] = 0
                    fr[lv, F_DELTA] = INF
                    mode = _RETURN
                    continue
                if p >= MAX_PLY - 4:
                    fr[lv, F_SB] = -1  # cut off, not refuted: never reused as a disproof
                    n = 0
                else:
                    # A win by fours alone is proved at once by the depth-first VCF (its
                    # failure table makes the repeated misses cheap): without it the
                    # proof-number search would walk every chain of single fours (proof number
                    # 1 each) before the double four or the three that wins.
                    win = vcf(g, s, ctx, att, min(NODE_VCF_DEPTH, (MAX_PLY - 4 - p) // 2), p + 1)
                    if ctx.stat[2]:
                        continue
                    if win >= 0:
                        if lv == 0:
                            root_win = win
                        fr[lv, F_PHI] = 0
                        fr[lv, F_DELTA] = INF
                        mode = _RETURN
                        continue
                    n, forced = _expand_or(g, s, ctx, tab, att, p, bud)
                    fr[lv, F_FORCED] = 1 if forced else 0
            else:
                cell = s.moves[s.info[0] - 1]
                n, _three = _replies(g, s, ctx, att, cell, fr[lv, F_ALLOW] == 1,
                                     ctx.movebuf[p], ctx.wbuf[p], ctx.bbuf[p])
                h = s.info[1]
                for i in range(n):
                    c = ctx.movebuf[p, i]
                    tab.cbud[p, i] = bud
                    # An OR child: 1 and 1 until read.
                    _init_child(tab, p, i, _key(h ^ g.zob[dfn, c], att, 0), 0, bud, 1, 1)
            if n == 0:
                # The attacker has no threat here (OR), or its move was none (AND): disproved.
                fr[lv, F_PHI] = INF if is_and == 0 else 0
                fr[lv, F_DELTA] = 0 if is_and == 0 else INF
                mode = _RETURN
                continue
            fr[lv, F_N] = n
            mode = _LOOP
        elif mode == _LOOP:
            n = fr[lv, F_N]
            cphi = tab.cphi[p]
            cdelta = tab.cdelta[p]
            best = 0
            phi = cdelta[0]
            d2 = INF
            delta = cphi[0]
            for i in range(1, n):
                de = cdelta[i]
                if de < phi:
                    d2 = phi
                    phi = de
                    best = i
                elif de < d2:
                    d2 = de
                delta += cphi[i]
            infinite = False
            for i in range(n):
                if cphi[i] >= INF:
                    infinite = True
            delta = INF if infinite else min(delta, INF - 1)
            if phi >= fr[lv, F_TPHI] or delta >= fr[lv, F_TDELTA]:
                fr[lv, F_PHI] = phi
                fr[lv, F_DELTA] = delta
                mode = _RETURN
                continue
            fr[lv, F_SEL] = best
            fr[lv + 1, F_TPHI] = min(INF, fr[lv, F_TDELTA] - delta + cphi[best])
            fr[lv + 1, F_TDELTA] = min(INF, min(fr[lv, F_TPHI], d2 + 1))
            fr[lv + 1, F_BUD] = tab.cbud[p, best]
            is_and = lv & 1
            if is_and == 0:
                fr[lv + 1, F_ALLOW] = 1 if fr[lv, F_FORCED] == 1 or fr[lv, F_BUD] > 0 else 0
            place_counts(g, s, ctx.movebuf[p, best], dfn if is_and else att)
            lv += 1
            mode = _ENTER
        else:
            _store(tab, fr[lv, F_KEY], fr[lv, F_PHI], fr[lv, F_DELTA], fr[lv, F_SB])
            if lv == 0:
                break
            phi = fr[lv, F_PHI]
            delta = fr[lv, F_DELTA]
            lv -= 1
            unplace_counts(g, s)
            p = ply + lv
            i = fr[lv, F_SEL]
            tab.cphi[p, i] = phi
            tab.cdelta[p, i] = delta
            mode = _LOOP
    if fr[0, F_PHI] != 0:
        return -1
    if root_win >= 0:
        return root_win
    for i in range(fr[0, F_N]):
        if tab.cdelta[ply, i] == 0:
            return int(ctx.movebuf[ply, i])
    return -1


# What threats() runs.
THREAT_FIRST, OPPONENT_THREAT, DFPN_VCT = 0, 1, 2


@jit
def threats(g: Geo, s: State, ctx: Ctx, tab: PnTable, kind: int, a: int, b: int, c: int, d: int,
            out: I64) -> int:
    """The threat searches' one compiled entry point: threat_first, opponent_threat or dfpn_vct
    (below) as `kind` says, with their arguments in a to d.

    One entry point and one call of the proof-number search, copied into it (jit_spliced): its
    body is optimised and turned into machine code in this library alone, where _dfpn,
    dfpn_vct and the two entry points that called it each had a copy of it (and of the VCF that
    it links). The functions below are what Python calls."""
    me = 1 if s.info[0] % 2 == 0 else 2
    att, threes, ply = a, b, c  # dfpn_vct(att, max_threes, ply)
    saved = 0
    saved_limit = 0
    if kind == THREAT_FIRST:
        # threat_first(vcf_depth=a, vct_threes=b, vct_until=c, vct_nodes=d, out)
        out[0] = -1
        out[1] = -1
        out[0] = vcf(g, s, ctx, me, a, 0)
        if out[0] >= 0 or ctx.stat[2] or b <= 0:
            return 0
        if has_win(g, s, 3 - me):
            return 0
        saved = ctx.stat[5]
        saved_limit = ctx.stat[1]
        ctx.stat[5] = min(saved, c)
        cap = ctx.stat[0] + d
        ctx.stat[1] = cap if saved_limit <= 0 else min(saved_limit, cap)
        att, threes, ply = me, b, 0
    elif kind == OPPONENT_THREAT:
        # opponent_threat(move=a, vct_threes=b): 1 when the opponent has a win after the move
        place(g, s, a, me)
        found = vcf(g, s, ctx, 3 - me, 30, 0) >= 0
        if found or b <= 0 or ctx.stat[2]:
            unplace(g, s)
            return 1 if found else 0
        att, threes, ply = 3 - me, b, 0
    move = _dfpn_vct(g, s, ctx, tab, att, threes, ply)
    if kind == THREAT_FIRST:
        out[1] = move
        ctx.stat[5] = saved
        ctx.stat[1] = saved_limit
        if ctx.stat[2] and cycles() <= saved and (saved_limit <= 0 or ctx.stat[0] <= saved_limit):
            ctx.stat[2] = 0  # only the VCT's own share ran out: the main search goes on
        return 0
    if kind == OPPONENT_THREAT:
        unplace(g, s)
        return 1 if move >= 0 else 0
    return move


_NO_OUT = np.zeros(8, dtype=np.int64)  # the out of the kinds that write none


def threat_first(g: Geo, s: State, ctx: Ctx, tab: PnTable, vcf_depth: int, vct_threes: int,
                 vct_until: int, vct_nodes: int, out: I64) -> None:
    """The threat searches before the main one: out[0] a VCF move or -1, out[1] a proved VCT
    move or -1 (read until the cycle counter passes vct_until or vct_nodes more nodes are spent,
    whichever comes first, and never past the search's own limits)."""
    threats(g, s, ctx, tab, THREAT_FIRST, vcf_depth, vct_threes, vct_until, vct_nodes, out)


def opponent_threat(g: Geo, s: State, ctx: Ctx, tab: PnTable, move: int,
                    vct_threes: int) -> bool:
    """After our move, does the opponent have a win by fours (or, with vct_threes, threes)?"""
    return bool(threats(g, s, ctx, tab, OPPONENT_THREAT, move, vct_threes, 0, 0, _NO_OUT))


def dfpn_vct(g: Geo, s: State, ctx: Ctx, tab: PnTable, att: int, max_threes: int,
             ply: int) -> int:
    """A first move of a proved win for att (to move) by fours and at most max_threes threes, or
    -1 (none within the limits, or the node limit or the clock ran out)."""
    return int(threats(g, s, ctx, tab, DFPN_VCT, att, max_threes, ply, 0, _NO_OUT))
