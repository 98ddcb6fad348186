"""Nodes per second of the compiled core per phase of a move (the threat searches before the
main search, the main search, the guard), on the bench's 15x15 positions under a node limit:
which phase a node costs most in. CPU time (time.process_time), so a busy machine skews less.

    python bench/nps_phases.py [--limit 400000] [--moves 6]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from engine.ai import compiled, core, pns, warm_up
from engine.game.types import Rule
from engine.programs.bench import sample_positions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=400_000)
    parser.add_argument("--moves", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    warm_up()
    positions = [b for b in sample_positions(15, 15, 5, Rule.FREESTYLE, args.moves, args.seed,
                                             "easy") if b.ply > 0]
    totals = {"threats": [0, 0.0], "search": [0, 0.0], "guard": [0, 0.0]}
    for board in positions:
        compiled._ctx_cache.clear()
        g, s = compiled.state_of(board)
        ctx, tab = compiled._ctx_for(board)
        limit = args.limit
        out = np.zeros(8, dtype=np.int64)
        compiled._begin(ctx, float("inf"), limit)
        t = time.process_time()
        pns.threat_first(g, s, ctx, tab, 40, compiled.VCT_THREES, (1 << 62) - 1,
                         max(1, int(limit * compiled.VCT_SHARE)), out)
        totals["threats"][1] += time.process_time() - t
        totals["threats"][0] += int(ctx.stat[0])
        nodes = int(ctx.stat[0])
        if out[0] >= 0 or out[1] >= 0:
            continue
        compiled._begin(ctx, float("inf"), max(1, int((limit - nodes) * compiled.SEARCH_SHARE)))
        ranking = np.zeros(g.size, dtype=np.int32)
        t = time.process_time()
        core.search(g, s, ctx, compiled.MAX_DEPTH, out, ranking)
        totals["search"][1] += time.process_time() - t
        totals["search"][0] += int(ctx.stat[0])
        nodes += int(ctx.stat[0])
        ranked = [int(m) for m in ranking[: int(out[4])]]
        compiled._begin(ctx, float("inf"), max(1, limit - nodes))
        t = time.process_time()
        for candidate in ranked[:8]:
            if not pns.opponent_threat(g, s, ctx, tab, candidate, compiled.GUARD_THREES):
                break
            if ctx.stat[2]:
                break
        totals["guard"][1] += time.process_time() - t
        totals["guard"][0] += int(ctx.stat[0])
    all_n = sum(v[0] for v in totals.values())
    all_t = sum(v[1] for v in totals.values())
    for name, (n, sec) in [*totals.items(), ("all", (all_n, all_t))]:
        rate = n / sec if sec > 0 else 0.0
        print(f"{name:8s} nodes {n:>10,}  cpu {sec:7.3f} s  {rate:>10,.0f} nodes/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
