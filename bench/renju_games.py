"""AI-vs-AI renju games (15x15, Rule.RENJU): how often each level wins as black and as white, and
how many forbidden moves any level chose (the target is none).

    python -m bench.renju_games --pairs hard-impossible --games 20 --time-limit 1
    python -m bench.renju_games --pairs easy-normal,normal-hard,easy-hard --games 50 --jobs 2

Each pair plays `--games` games, the two levels taking black in turn. Every game starts from
`--opening` random stones within two cells of the centre (seeded per game), so that the games
differ. A move is checked before it is played: a forbidden one is counted and loses the game for
the side that chose it (Board.push would refuse it). Printed per pair: games, each level's wins as
black and as white, draws, the average game length, the slowest move, and the forbidden moves.
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

SIZE = 15


@dataclass(frozen=True, slots=True)
class GameResult:
    black: str
    white: str
    winner: str | None  # "black", "white" or None for a draw
    plies: int
    forbidden: int  # forbidden moves chosen (the game ends at the first)
    slowest: float  # seconds of the slowest move


def play(black: str, white: str, seed: int, opening: int, time_limit: float) -> GameResult:
    from engine import Board, Mark, Rule
    from engine.ai import choose_move, warm_up

    warm_up()  # the compiled cores loaded before any move is timed

    rng = random.Random(f"renju/{seed}")
    board = Board(SIZE, SIZE, 5, Rule.RENJU)
    centre = SIZE // 2
    while board.ply < opening:
        cell = (centre + rng.randint(-2, 2), centre + rng.randint(-2, 2))
        if cell in board.legal_moves:
            board.push(cell)
    slowest = 0.0
    while not board.is_over():
        level = black if board.turn is Mark.X else white
        start = time.perf_counter()
        move = choose_move(board, level, rng=rng, time_limit=time_limit)
        slowest = max(slowest, time.perf_counter() - start)
        if board.is_forbidden(move):
            # The side that chose it loses.
            other = "white" if board.turn is Mark.X else "black"
            return GameResult(black, white, other, board.ply, 1, slowest)
        board.push(move)
    outcome = board.outcome()
    assert outcome is not None
    winner = None if outcome.winner is None else ("black" if outcome.winner is Mark.X else "white")
    return GameResult(black, white, winner, board.ply, 0, slowest)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="hard-impossible", help="LEVEL-LEVEL,...")
    parser.add_argument("--games", type=int, default=20, help="games per pair")
    parser.add_argument("--time-limit", type=float, default=1.0, help="seconds per move")
    parser.add_argument("--opening", type=int, default=2, help="random stones to start from")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    pairs = [tuple(p.split("-")) for p in args.pairs.split(",")]
    tasks = []
    for a, b in pairs:
        for g in range(args.games):
            black, white = (a, b) if g % 2 == 0 else (b, a)
            tasks.append((black, white, args.seed * 100_000 + g, args.opening, args.time_limit))
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        results = list(pool.map(play, *zip(*tasks, strict=True)))
    print(
        f"renju 15x15, {args.games} games per pair, {args.time_limit:g} s per move, "
        f"{args.opening} random opening stones, seed {args.seed}"
    )
    total_forbidden = 0
    for a, b in pairs:
        mine = [r for r in results if {r.black, r.white} == {a, b}]
        line = [f"{a} vs {b}: {len(mine)} games"]
        for level in (a, b):
            as_black = [r for r in mine if r.black == level]
            as_white = [r for r in mine if r.white == level]
            won_black = sum(r.winner == "black" for r in as_black)
            won_white = sum(r.winner == "white" for r in as_white)
            line.append(
                f"{level} won {won_black}/{len(as_black)} as black, "
                f"{won_white}/{len(as_white)} as white"
            )
        draws = sum(r.winner is None for r in mine)
        forbidden = sum(r.forbidden for r in mine)
        total_forbidden += forbidden
        plies = sum(r.plies for r in mine) / max(1, len(mine))
        slowest = max((r.slowest for r in mine), default=0.0)
        line.append(
            f"draws {draws}, {plies:.0f} plies on average, slowest move {slowest:.2f} s, "
            f"forbidden moves {forbidden}"
        )
        print("; ".join(line))
    print(f"forbidden moves chosen, all games: {total_forbidden}")
    return 1 if total_forbidden else 0


if __name__ == "__main__":
    raise SystemExit(main())
