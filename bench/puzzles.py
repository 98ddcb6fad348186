"""`python -m bench.puzzles`: puzzles mined from AI-vs-AI games on 15x15.

Plays N games (hard against impossible, colours swapped every game, two random opening stones,
every move within a node limit), mines each (engine.analysis.puzzles.mine: the review's turning points,
kept when a proof confirms them), then proves every puzzle again from scratch. Prints puzzles
per 100 finished games, the seconds of mining per puzzle found (the review and the proofs, not
the games' play) and how many re-prove.
"""

from __future__ import annotations

import argparse
import time

from engine.ai import warm_up
from engine.analysis.puzzles import Limits, Puzzle, dedupe, mine, prove, self_play
from engine.game.notation import parse_size
from engine.game.types import Rule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--size", default="15x15")
    parser.add_argument("--rule", default="freestyle")
    parser.add_argument("--levels", default="hard,impossible")
    parser.add_argument("--move-nodes", type=int, default=2000, help="nodes per move played")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows, cols, k = parse_size(args.size).with_k()
    first, second = args.levels.split(",")
    warm_up()
    limits = Limits()
    play_s = mine_s = 0.0
    finished = 0
    found: list[Puzzle] = []
    games = self_play(
        args.games, rows, cols, k, Rule.parse(args.rule),
        levels=(first, second), node_limit=args.move_nodes, seed=args.seed,
    )
    start = time.perf_counter()
    while True:
        t0 = time.perf_counter()
        try:
            name, board = next(games)
        except StopIteration:
            break
        t1 = time.perf_counter()
        puzzles = mine(board, source=name, limits=limits)
        t2 = time.perf_counter()
        play_s += t1 - t0
        mine_s += t2 - t1
        finished += board.is_over()
        found.extend(puzzles)
        print(f"{name}: {board.ply} moves, {len(puzzles)} puzzles ({t2 - t1:.1f} s)", flush=True)
    unique = dedupe(found)
    t3 = time.perf_counter()
    proved = sum(prove(p, limits) is not None for p in unique)
    prove_s = time.perf_counter() - t3
    kinds = {kind: sum(p.kind == kind for p in unique) for kind in ("vcf", "vct", "solved")}
    print()
    print(f"games: {finished} finished of {args.games}, {play_s:.0f} s of play")
    print(f"puzzles: {len(unique)} ({kinds}), {100 * len(unique) / max(1, finished):.1f} per 100 "
          f"finished games")
    print(f"mining: {mine_s:.0f} s, {mine_s / max(1, len(unique)):.2f} s per puzzle")
    print(f"re-proved: {proved} of {len(unique)} in {prove_s:.1f} s")
    print(f"difficulty: max {max((p.difficulty for p in unique), default=0)}, "
          f"moves max {max((p.moves for p in unique), default=0)}")
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
