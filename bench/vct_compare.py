"""The old depth-first VCT (engine.ai.core.vct) against the proof-number VCT (engine.ai.pns) on
the same positions and node budget.

    python -m bench.vct_compare --positions 400 --nodes 20000 --threes 4

Positions come from random games on 15x15 freestyle whose stones cluster as in real play, side
to move with no win by fours (the VCF finds none) and no four of the opponent's: exactly where
"impossible" runs its VCT. Printed: how many wins each search finds, the nodes and CPU time it
spends (on all positions, and on those it proves), and the positions only one of them proves.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from engine.ai import compiled, core, pns
from engine.game.board import Board


def positions(count: int, rng: random.Random, size: int = 15) -> list[Board]:
    """Positions with the side to move holding no win by fours, from clustered random games."""
    out: list[Board] = []
    ctx = compiled.new_ctx(size * size)
    while len(out) < count:
        board = Board(size, size, 5)
        centre = size // 2
        while not board.is_over() and len(out) < count and board.ply < 60:
            moves = list(board.legal_moves)
            near = [m for m in moves if abs(m[0] - centre) + abs(m[1] - centre) <= 4]
            board.push(rng.choice(near if near and rng.random() < 0.85 else moves))
            if board.is_over() or board.ply < 8:
                continue
            g, s = compiled.state_of(board)
            me = 1 if board.ply % 2 == 0 else 2
            buf = np.zeros(g.size, dtype=np.int32)
            if core.win_cells(g, s, me, buf) or core.win_cells(g, s, 3 - me, buf):
                continue
            ctx.stat[:] = 0
            ctx.stat[5] = (1 << 62) - 1
            if core.vcf(g, s, ctx, me, 40, 0) >= 0:
                continue
            out.append(board.copy())
    return out


def run(board: Board, which: str, nodes: int, threes: int) -> tuple[int, int, float]:
    """The move found (or -1), the nodes spent and the CPU seconds, with fresh tables."""
    g, s = compiled.state_of(board)
    ctx = compiled.new_ctx(g.size)
    tab = compiled.new_table(g.size)
    ctx.stat[1] = nodes
    ctx.stat[5] = (1 << 62) - 1
    me = 1 if board.ply % 2 == 0 else 2
    t0 = time.process_time()
    if which == "old":
        move = core.vct(g, s, ctx, me, threes, 0)
    else:
        move = pns.dfpn_vct(g, s, ctx, tab, me, threes, 0)
    return int(move), int(min(ctx.stat[0], nodes)), time.process_time() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--threes", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    boards = positions(args.positions, random.Random(args.seed))
    results: dict[str, list[tuple[int, int, float]]] = {"old": [], "dfpn": []}
    for board in boards:
        for which in results:
            results[which].append(run(board, which, args.nodes, args.threes))
    print(f"{len(boards)} positions, node budget {args.nodes}, threes {args.threes}")
    for which, rows in results.items():
        proved = [r for r in rows if r[0] >= 0]
        print(
            f"{which:5s} wins {len(proved):4d}  nodes all {sum(r[1] for r in rows):>10,}"
            f"  cpu all {sum(r[2] for r in rows):7.2f}s"
            f"  nodes/win mean {np.mean([r[1] for r in proved]) if proved else 0:9.0f}"
            f"  median {np.median([r[1] for r in proved]) if proved else 0:9.0f}"
        )
    only_old = sum(1 for o, n in zip(results["old"], results["dfpn"], strict=True) if o[0] >= 0 > n[0])
    only_new = sum(1 for o, n in zip(results["old"], results["dfpn"], strict=True) if n[0] >= 0 > o[0])
    print(f"proved by the old search only: {only_old}; by df-pn only: {only_new}")


if __name__ == "__main__":
    main()
