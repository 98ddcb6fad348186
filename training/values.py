"""The search's value of every position of a self-play file, added to a copy of it.

    python -m training.values /tmp/caro-selfplay.npz --nodes 3000 --jobs 2 --out /tmp/valued.npz

training.selfplay keeps what its search made of each position (`search`); files made before it
did lack it. This reads each position back from the file's game moves, searches it with the
compiled core at a node limit from fresh tables (so the same file and limit give the same values
anywhere) and writes the file again with `search` (training.selfplay.search_chance: the value as
a chance to win; NaN for a reply to a four, which the core plays without a search) and
`search_nodes`, for training.net's `--search`.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import numpy.typing as npt

CHUNK = 2000  # positions a worker takes at a time


def positions(data: dict[str, npt.NDArray[np.generic]]) -> list[npt.NDArray[np.int64]]:
    """Each position of the file as its moves from the empty board."""
    if "game_moves" not in data:
        raise ValueError("the data has no game moves (made before training.selfplay kept them)")
    starts = np.asarray(data["game_start"], dtype=np.int64)
    # Where each game's moves start, by the game's seed (the positions name their game by it).
    first = {int(seed): int(starts[i]) for i, seed in enumerate(np.asarray(data["game_seed"]))}
    moves = np.asarray(data["game_moves"], dtype=np.int64)
    return [moves[first[int(seed)]:first[int(seed)] + int(ply)]
            for seed, ply in zip(np.asarray(data["game"]), np.asarray(data["ply"]), strict=True)]


def _values(args: tuple[list[npt.NDArray[np.int64]], str, int]) -> list[float]:
    from engine.ai import compiled, warm_up
    from engine.game.board import Board
    from engine.game.types import Rule
    from training.selfplay import SIZE, search_chance

    warm_up()
    chunk, rule_name, nodes = args
    out = []
    for moves in chunk:
        board = Board(SIZE, SIZE, 5, Rule(rule_name))
        for cell in moves:
            board.push(divmod(int(cell), SIZE))
        out.append(search_chance(compiled.think(board, None, nodes, fresh=True)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="a training.selfplay file")
    parser.add_argument("--nodes", type=int, default=3000, help="core nodes a position")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if args.nodes < 1 or args.jobs < 1:
        parser.error("--nodes and --jobs must be at least 1")
    start = time.perf_counter()
    data = dict(np.load(args.data))
    try:
        todo = positions(data)
    except ValueError as error:
        parser.error(str(error))
    rule = str(data["rule"])
    chunks = [(todo[i:i + CHUNK], rule, args.nodes) for i in range(0, len(todo), CHUNK)]
    chances: list[float] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for part in pool.map(_values, chunks):
            chances += part
            print(f"{len(chances)} of {len(todo)} positions, "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
    data["search"] = np.array(chances, dtype=np.float64)
    data["search_nodes"] = np.array(args.nodes)
    np.savez_compressed(args.out, **data)  # type: ignore[arg-type]
    print(f"wrote {args.out}: {len(chances)} positions valued at {args.nodes} nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
