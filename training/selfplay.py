"""Self-play games of caro's "impossible" and the positions they went through, for the fit of
the evaluation (training.fit).

    python -m training.selfplay --games 400 --nodes 12000 --jobs 2 --out /tmp/caro-selfplay.npz

Each game starts from seeded random stones in the centre (three to five of them) and is played
by the compiled core at a node limit from fresh tables, so a seed gives the same games on any
machine; one move in twenty is instead a random pick among the core's best three, so that the
games do not all follow one line. Every position after the opening is kept with what the core's
evaluation reads from it (engine.ai.patterns' cell-pattern counts for the side to move and the
side waiting, and the window term) and how the game ended for the side to move: 1 won, 0.5
drawn, 0 lost. Positions where the side to move can make five at once are left out: they say
nothing an evaluation needs to learn. With each position, what the core's search made of it:
its value as the side to move's chance to win (sigmoid(value / 400), 1 or 0 for a proven
result, NaN for a forced reply it did not search), which training.net can blend into its
targets (`--search`).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.game.types import Mark, Rule
from training.fit import SCALE

if TYPE_CHECKING:
    from engine.ai.compiled import CoreResult

SIZE = 15


def _features(board_moves: list[int], rule: Rule) -> tuple[npt.NDArray[np.int64], int, int]:
    """The side to move's features: pattern counts [2, NCAT] flattened, the window term."""
    from engine.ai import compiled, core, patterns

    g = compiled.geometry(SIZE, SIZE, 5, rule)
    s = compiled.new_state(g, board_moves)
    me = 1 if len(board_moves) % 2 == 0 else 2
    empty = s.grid == 0
    counts = np.zeros((2, patterns.NCAT), dtype=np.int64)
    counts[0] = np.bincount(s.p4[me][empty], minlength=patterns.NCAT)
    counts[1] = np.bincount(s.p4[3 - me][empty], minlength=patterns.NCAT)
    windows = int(s.sums[me] * 9 // 8 - s.sums[3 - me])
    five = core.win_cells(g, s, me, np.zeros(g.size, dtype=np.int32)) > 0
    return counts.reshape(-1), windows, int(five)


def search_chance(result: CoreResult) -> float:
    """The side to move's chance to win as the core's search saw it: sigmoid(value / 400) as
    the fit reads its evaluation, 1 for a win it proved, 0 for a loss; NaN where it did not
    search (a move forced by a four, which it plays at once with no value)."""
    from engine.ai import core

    if result.kind in ("win", "vcf", "vct") or result.value >= core.WON:
        return 1.0
    if result.depth == 0:
        return math.nan
    if result.value <= -core.WON:
        return 0.0
    return 1.0 / (1.0 + math.exp(-result.value / SCALE))


def play(seed: int, nodes: int, rule_name: str) -> tuple[list[list[int]], float, list[float]]:
    """One game: its positions (move lists, each a prefix of the next), the result for X and
    the search's chance for the side to move in each position."""
    from engine.ai import compiled
    from engine.game.board import Board
    from engine.programs.arena import random_opening

    rule = Rule(rule_name)
    rng = random.Random(f"training.selfplay/{rule_name}/{seed}")
    board = Board(SIZE, SIZE, 5, rule)
    for cell in random_opening(board, rng.randint(3, 5), rng):
        board.push(cell)
    positions: list[list[int]] = []
    chances: list[float] = []
    while not board.is_over():
        moves = [r * SIZE + c for r, c in board.moves]
        positions.append(moves)
        result = compiled.think(board, None, nodes, fresh=True)
        chances.append(search_chance(result))
        move = result.move
        if result.kind in ("search", "guard") and len(result.ranking) >= 3 and rng.random() < 0.05:
            move = rng.choice(result.ranking[:3])
        cell = divmod(move, SIZE)
        if board.rule is Rule.RENJU and board.is_forbidden(cell):
            cell = divmod(result.move, SIZE)
        board.push(cell)
    outcome = board.outcome()
    assert outcome is not None
    x_score = 0.5 if outcome.winner is None else (1.0 if outcome.winner is Mark.X else 0.0)
    return positions, x_score, chances


Job = tuple[list[npt.NDArray[np.int64]], list[int], list[float], list[float], list[int], list[int],
            int]


def _job(args: tuple[int, int, str]) -> Job:
    from engine.ai import warm_up

    warm_up()
    seed, nodes, rule_name = args
    positions, x_score, chances = play(seed, nodes, rule_name)
    rule = Rule(rule_name)
    feats, windows, labels, searched, plies = [], [], [], [], []
    for moves, chance in zip(positions, chances, strict=True):
        f, w, five = _features(moves, rule)
        if five:
            continue
        feats.append(f)
        windows.append(w)
        labels.append(x_score if len(moves) % 2 == 0 else 1.0 - x_score)
        searched.append(chance)
        plies.append(len(moves))
    return feats, windows, labels, searched, plies, positions[-1] if positions else [], seed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--nodes", type=int, default=12_000, help="core nodes a move")
    parser.add_argument("--rule", choices=[r.value for r in Rule], default="freestyle")
    parser.add_argument("--seed", type=int, default=0, help="first game's seed")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    feats: list[npt.NDArray[np.int64]] = []
    windows: list[int] = []
    labels: list[float] = []
    searched: list[float] = []
    games: list[int] = []
    plies: list[int] = []
    # Every position is a prefix of its game's last one: those moves, one game after the other,
    # and where each game starts, let a fit read any other features from the positions.
    game_moves: list[int] = []
    game_start: list[int] = []
    jobs = [(args.seed + i, args.nodes, args.rule) for i in range(args.games)]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for done, (f, w, lab, chance, ply, moves, seed) in enumerate(pool.map(_job, jobs), 1):
            feats += f
            windows += w
            labels += lab
            searched += chance
            games += [seed] * len(lab)
            plies += ply
            game_start.append(len(game_moves))
            game_moves += moves
            if done % 20 == 0:
                print(f"{done} games, {len(labels)} positions, "
                      f"{time.perf_counter() - start:.0f} s", flush=True)
    np.savez_compressed(
        args.out, counts=np.array(feats, dtype=np.int64), windows=np.array(windows, dtype=np.int64),
        result=np.array(labels, dtype=np.float64), search=np.array(searched, dtype=np.float64),
        game=np.array(games, dtype=np.int64),
        ply=np.array(plies, dtype=np.int64), game_seed=np.array([j[0] for j in jobs], dtype=np.int64),
        game_start=np.array(game_start, dtype=np.int64),
        game_moves=np.array(game_moves, dtype=np.int16),
        rule=np.array(args.rule), nodes=np.array(args.nodes))
    print(f"wrote {args.out}: {args.games} games, {len(labels)} positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
