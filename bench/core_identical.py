"""Prints the compiled core's answer (move, value, depth, nodes, kind, ranking) on fixed positions
under fixed node limits, one line each, so that two trees' outputs can be diffed byte for byte:
a change meant to make the core faster without changing its search must print the same lines.

    python bench/core_identical.py > mine.txt
    PYTHONPATH=/path/to/other/tree python bench/core_identical.py > theirs.txt
    diff mine.txt theirs.txt

It also prints to stderr, per rule, the nodes searched per CPU-second (the core loaded first), a
figure to compare between trees whose lines are the same.
"""

from __future__ import annotations

import argparse
import sys
import time

from engine.ai import compiled
from engine.game.types import Rule
from engine.programs.bench import sample_positions

LIMITS = (50_000, 200_000, 500_000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--limits", default=",".join(str(n) for n in LIMITS))
    args = parser.parse_args()
    limits = [int(x) for x in args.limits.split(",")]
    print(f"# engine from {compiled.__file__}", file=sys.stderr)
    cases = [
        (15, 15, 5, Rule.FREESTYLE, args.positions),
        (15, 15, 5, Rule.CARO, max(1, args.positions // 4)),
        (15, 15, 5, Rule.EXACT, max(1, args.positions // 4)),
        (15, 15, 5, Rule.RENJU, max(1, args.positions // 4)),
    ]
    for rows, cols, k, rule, count in cases:
        positions = [b for b in sample_positions(rows, cols, k, rule, count, 7) if b.ply > 0]
        compiled.think(positions[0], None, 1000, fresh=True)
        nodes, cpu = 0, 0.0
        for i, board in enumerate(positions):
            for limit in limits:
                start = time.process_time()
                r = compiled.think(board, None, limit, fresh=True)
                cpu += time.process_time() - start
                nodes += r.nodes
                print(f"{rows}x{cols}k{k} {rule.value} #{i} ply {board.ply} limit {limit}: "
                      f"move {r.move} value {r.value} depth {r.depth} nodes {r.nodes} "
                      f"kind {r.kind} ranking {list(r.ranking)}", flush=True)
        print(f"# {rule.value}: {nodes} nodes in {cpu:.2f} CPU-s, {nodes / cpu / 1000:.0f} kn/s",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
