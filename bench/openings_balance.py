"""Swap2 balance: games where one AI level takes every decision of both sides of the opening
(engine.ai.openings) and then plays both colours, and how often each colour wins. The target
(issue #28): neither colour wins more than 65% of the games.

    python -m bench.openings_balance --games 100 --level impossible --move-time 0.1 --jobs 2
    python -m bench.openings_balance --opening swap --games 40 --rule caro

Each game draws its randomness from its own seed, so the openings differ. Printed: the games,
X's and O's wins and the draws (with X's share of the decided games and of all games), how the
decisions went (how often the second player placed two more stones, and which colour each
chooser took), the first player's score, the average game length and the slowest decision.
The exit status is 1 when a colour won more than --target of the games.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GameResult:
    winner: str | None  # "X", "O" or None for a draw
    first_won: bool | None  # the opening's first player won; None for a draw
    decisions: tuple[str, ...]
    plies: int
    slowest_decision: float  # seconds


@dataclass(frozen=True, slots=True)
class Setup:
    size: int
    rule: str
    opening: str
    level: str
    move_time: float
    decide_time: float


def play(setup: Setup, seed: int) -> GameResult:
    from engine import Board, Rule
    from engine.ai import choose_move, decide_opening, warm_up
    from engine.game.openings import Opening, OpeningState, Side

    warm_up()  # the compiled cores loaded before anything is timed
    rng = random.Random(f"openings/{seed}")
    board = Board(setup.size, setup.size, 5, Rule.parse(setup.rule))
    state = OpeningState(Opening.parse(setup.opening), board)
    slowest = 0.0
    while state.step is not None:
        start = time.perf_counter()
        action = decide_opening(state, setup.level, rng=rng, time_limit=setup.decide_time)
        slowest = max(slowest, time.perf_counter() - start)
        state = state.apply(action)
    board = state.board
    while not board.is_over():
        board.push(choose_move(board, setup.level, rng=rng, time_limit=setup.move_time))
    outcome = board.outcome()
    assert outcome is not None
    if outcome.winner is None:
        return GameResult(None, None, state.decisions, board.ply, slowest)
    winner_side = state.side_of(outcome.winner)
    return GameResult(
        outcome.winner.name, winner_side is Side.FIRST, state.decisions, board.ply, slowest
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--level", default="impossible")
    parser.add_argument("--opening", default="swap2", help="swap, swap2 or rif")
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--rule", default="freestyle")
    parser.add_argument("--move-time", type=float, default=0.1, help="seconds per game move")
    parser.add_argument(
        "--decide-time", type=float, default=1.0, help="seconds per opening decision"
    )
    parser.add_argument("--target", type=float, default=0.65, help="most a colour may win")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    setup = Setup(
        args.size, args.rule, args.opening, args.level, args.move_time, args.decide_time
    )
    seeds = [args.seed * 100_000 + g for g in range(args.games)]
    start = time.perf_counter()
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(play, [setup] * len(seeds), seeds))
    elapsed = time.perf_counter() - start

    n = len(results)
    x = sum(r.winner == "X" for r in results)
    o = sum(r.winner == "O" for r in results)
    draws = n - x - o
    decided = max(1, x + o)
    print(
        f"{args.opening} on {args.size}x{args.size} {args.rule}, {args.level} deciding both "
        f"sides, {args.decide_time:g} s per decision, {args.move_time:g} s per move, "
        f"seed {args.seed}: {n} games in {elapsed:.0f} s"
    )
    print(
        f"X won {x}, O won {o}, draws {draws}: X {100 * x / decided:.0f}% of the decided games "
        f"({100 * x / max(1, n):.0f}% of all), O {100 * o / max(1, n):.0f}% of all"
    )
    first = sum(r.first_won is True for r in results) + 0.5 * draws
    print(f"the opening's first player scored {first:g}/{n}")
    tokens = Counter(" ".join(r.decisions) for r in results)
    print("decisions (games, X's wins): " + ", ".join(
        f"{k or '-'} {v} ({sum(r.winner == 'X' for r in results if ' '.join(r.decisions) == k)})"
        for k, v in tokens.most_common()
    ))
    plies = sum(r.plies for r in results) / max(1, n)
    slowest = max((r.slowest_decision for r in results), default=0.0)
    print(f"{plies:.0f} plies a game on average; slowest decision {slowest:.2f} s")
    worst = max(x, o) / max(1, n)
    print(f"most wins by one colour: {100 * worst:.0f}% (target: at most {100 * args.target:.0f}%)")
    return 1 if worst > args.target else 0


if __name__ == "__main__":
    raise SystemExit(main())
