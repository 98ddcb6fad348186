"""How deep and how well-ordered the compiled core's search is at a given time, on fixed 15x15
freestyle positions (bench/data/depth_positions.txt: balanced three-stone openings played on by
"impossible" to 10, 18 and 26 stones, none of them a win by threats for the side to move).

    python -m bench.search_depth [--seconds 1] [--rule freestyle]

Per position, one move of "impossible" as the bot plays it (engine.ai.compiled.think at the
level's deadline, from fresh tables): the deepest iteration the main search completed, its nodes
and nodes per CPU-second, the effective branching factor (the nodes of the last completed
iteration over those of the one before), and the share of beta cut-offs made by the first move
searched. Then the medians. Whole-move wall time is printed too: at 1 s nothing may pass 1 s.

    python -m bench.search_depth --make   # writes the position file anew (not needed to run it)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

FILE = Path(__file__).with_name("data") / "depth_positions.txt"


def make(count: int, seed: int) -> list[str]:
    from bench.match import openings
    from engine.ai import compiled, core
    from engine.game.board import Board
    from engine.game.types import Rule

    lines = []
    for cells in openings(count, 15, Rule.FREESTYLE, 3, seed, 60, 100_000):
        board = Board(15, 15, 5, Rule.FREESTYLE)
        for cell in cells:
            board.push(cell)
        for stop in (10, 18, 26):
            while board.ply < stop and not board.is_over():
                board.push(divmod(compiled.think(board, None, 60_000, fresh=True).move, 15))
            if board.is_over():
                break
            # A quiet position: no win by threats for the side to move, no four to answer.
            threat = compiled.threat_win(board, 200_000)
            g, s = compiled.state_of(board)
            them = 2 if board.ply % 2 == 0 else 1
            facing = core.win_cells(g, s, them, np.zeros(g.size, dtype=np.int32))
            if threat.kind == "none" and facing == 0:
                lines.append(board.text())
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="the move's time")
    parser.add_argument("--make", action="store_true", help="write the position file anew")
    parser.add_argument("--openings", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    from engine.ai import compiled, warm_up
    from engine.ai.levels import CORE_SHARE
    from engine.game.board import Board

    warm_up()
    if args.make:
        FILE.parent.mkdir(exist_ok=True)
        FILE.write_text("\n".join(make(args.openings, args.seed)) + "\n")
        print(f"wrote {FILE}")
        return 0
    boards = [Board.from_text(line) for line in FILE.read_text().splitlines() if line.strip()]
    print(f"{len(boards)} positions, {args.seconds:g} s a move (main search: what is left of it "
          f"after the threat searches)")
    print(f"{'pos':>3} {'ply':>3} {'kind':>6} {'depth':>5} {'nodes':>9} {'knps':>6} {'ebf':>5} "
          f"{'1st-cut':>7} {'wall s':>6}")
    depths, ebfs, firsts, rates, walls = [], [], [], [], []
    for i, board in enumerate(boards):
        compiled._ctx_cache.clear()
        start = time.perf_counter()
        cpu = time.process_time()
        # The level's deadline, as engine.ai.levels gives it the compiled core.
        result = compiled.think(board, start + args.seconds * CORE_SHARE)
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu
        iters, cuts, first = compiled.last_search()
        ebf = iters[-1] / iters[-2] if len(iters) >= 2 and iters[-2] else float("nan")
        share = first / cuts if cuts else float("nan")
        rate = result.nodes / cpu / 1000 if cpu > 0 else float("nan")
        print(f"{i:>3} {board.ply:>3} {result.kind:>6} {result.depth:>5} {result.nodes:>9} "
              f"{rate:>6.0f} {ebf:>5.2f} {100 * share:>6.1f}% {wall:>6.3f}")
        if result.kind in ("search", "guard"):
            depths.append(result.depth)
            ebfs.append(ebf)
            firsts.append(share)
            rates.append(rate)
        walls.append(wall)
    if depths:
        print(f"median: depth {statistics.median(depths):g} (min {min(depths)}, max "
              f"{max(depths)}), kn/s {statistics.median(rates):.0f}, ebf "
              f"{statistics.median(np.nan_to_num(ebfs)):.2f}, first-move cut-offs "
              f"{100 * statistics.median(np.nan_to_num(firsts)):.1f}%, slowest move "
              f"{max(walls):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
