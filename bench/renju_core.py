"""Renju's forbidden-move check in the compiled core (engine.ai.core.renju_verdict) against
engine.game.renju, whole positions at a time, and against the brute-force reference on a sample.

    python -m bench.renju_core
    python -m bench.renju_core --positions 100000 --jobs 2 --reference 300

Positions are bench.renju's random 15x15 clusters of `--stones` stones. For each, every empty
cell's verdict comes from both implementations and the forbidden points (cell and shape) are
compared. Printed: positions and cells checked, microseconds per cell for each (the compiled
core's includes the call from Python, shared out over the position's empty cells), the
forbidden points by shape, and the disagreements (the first few listed). With `--reference N`
the first N positions of the first job are also checked against engine.game._renju_reference.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from bench.renju import random_position

SIZE = 15


@dataclass(frozen=True, slots=True)
class JobResult:
    cells: int
    core_s: float
    python_s: float
    shapes: Counter[str]
    disagreements: list[str]
    reference: int  # positions also checked against the brute-force reference


def _run(seed: int, positions: int, low: int, high: int, reference: int) -> JobResult:
    from engine.ai import compiled
    from engine.game._renju_reference import reference_forbidden_points
    from engine.game.renju import Stones

    compiled.renju_verdicts(SIZE, SIZE, [0] * SIZE * SIZE)  # loaded before the clock starts
    rng = random.Random(seed)
    cells = 0
    core_s = python_s = 0.0
    shapes: Counter[str] = Counter()
    disagreements: list[str] = []
    checked_reference = 0
    for n in range(positions):
        grid = random_position(rng, SIZE, low, high)
        flat = [v for row in grid for v in row]
        cells += flat.count(0)
        start = time.perf_counter()
        mine = compiled.renju_forbidden(SIZE, SIZE, flat)
        core_s += time.perf_counter() - start
        start = time.perf_counter()
        found = Stones(SIZE, SIZE, flat).forbidden_points()
        python_s += time.perf_counter() - start
        theirs = {f.cell: f.shape for f in found}
        shapes.update(str(shape) for shape in theirs.values())
        if mine != theirs:
            disagreements.append(_show(grid, f"core {mine}, engine.game.renju {theirs}"))
        if n < reference:
            checked_reference += 1
            slow = {f.cell: f.shape for f in reference_forbidden_points(grid)}
            if mine != slow:
                disagreements.append(_show(grid, f"core {mine}, reference {slow}"))
    return JobResult(cells, core_s, python_s, shapes, disagreements, checked_reference)


def _show(grid: list[list[int]], what: str) -> str:
    rows = ["".join(".XO"[v] for v in row) for row in grid]
    return what + "\n    " + "\n    ".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stones", default="60-120", help="stones per position, LOW-HIGH")
    parser.add_argument(
        "--reference",
        type=int,
        default=0,
        help="positions also checked against the brute-force reference",
    )
    args = parser.parse_args()
    low, high = (int(x) for x in args.stones.split("-"))
    jobs = max(1, args.jobs)
    shares = [args.positions // jobs + (i < args.positions % jobs) for i in range(jobs)]
    with ProcessPoolExecutor(jobs) as pool:
        futures = [
            pool.submit(
                _run, args.seed * 1000 + i, share, low, high, args.reference if i == 0 else 0
            )
            for i, share in enumerate(shares)
        ]
        results = [f.result() for f in futures]
    cells = sum(r.cells for r in results)
    core_s = sum(r.core_s for r in results)
    python_s = sum(r.python_s for r in results)
    shapes: Counter[str] = Counter()
    disagreements: list[str] = []
    for r in results:
        shapes.update(r.shapes)
        disagreements += r.disagreements
    print(
        f"positions: {args.positions} (15x15, {low}-{high} stones, seed {args.seed}, {jobs} jobs)"
    )
    print(f"cells checked: {cells}")
    print(f"compiled core (renju_verdicts): {core_s / cells * 1e6:7.2f} us per cell")
    print(f"engine.game.renju (forbidden_points): {python_s / cells * 1e6:6.2f} us per cell")
    print(
        "forbidden points: "
        + ", ".join(f"{k} {v}" for k, v in sorted(shapes.items()))
        + f" (total {sum(shapes.values())})"
    )
    print(f"also checked against the brute-force reference: {results[0].reference} positions")
    print(f"disagreements: {len(disagreements)}")
    for text in disagreements[:10]:
        print("  " + text)
    return 1 if disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
