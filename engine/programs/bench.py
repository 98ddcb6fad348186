"""`caro bench`: how long each AI level takes per move, how fast the solver is, and the
Monte Carlo reference's speed on the same position as "impossible".

Positions come from seeded self-play games, so the figures describe middlegames as well as
empty boards, and the same seed measures the same positions on every run. Figures are printed,
never judged: what counts as fast enough is for the reader of the table.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..game.board import Board
from ..game.notation import parse_sizes as parse_size_list
from ..game.types import Cell, Level, Rule
from ..players.montecarlo import monte_carlo_move
from ..support.stats import percentile

DEFAULT_SIZES = "3x3k3,5x5k4,9x9k5,15x15k5"
SOLVER_SPECS = ((3, 3, 3), (4, 4, 4))
SOLVER_EXTRA_SPECS = ((5, 4, 4), (5, 5, 4))
# The 5x5 k=4 position of the spec where X (to move) has a forced win: the reference question
# is how long Monte Carlo needs to find a winning move there, against the "impossible" level.
MC_POSITION = "5x5 k4 freestyle B3 C3 C2 D1 B2 A2"


def parse_sizes(text: str) -> list[tuple[int, int, int]]:
    """ "3x3k3,9x9k5,15x15" -> [(3, 3, 3), (9, 9, 5), (15, 15, 5)]: k defaults as everywhere."""
    return [size.with_k() for size in parse_size_list(text)]


def sample_positions(rows: int, cols: int, k: int, rule: Rule, count: int, seed: int,
                     level: str = Level.EASY) -> list[Board]:
    """`count` unfinished positions from seeded self-play games of `level`, spread over the
    games' plies (the empty board included when it is drawn)."""
    from ..ai import choose_move

    if count < 1:
        return []
    rng = random.Random(f"bench/{rows}x{cols}k{k}/{rule.value}/{seed}")
    pool: list[Board] = []
    games = max(1, math.ceil(count / 3))
    for _ in range(games):
        board = Board(rows, cols, k, rule)
        while not board.is_over():
            pool.append(board.copy())
            board.push(choose_move(board, level, rng=rng))
    picked = sorted(rng.sample(range(len(pool)), min(count, len(pool))))
    return [pool[i] for i in picked]


@dataclass(frozen=True, slots=True)
class LatencyRow:
    size: str
    level: str
    moves: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    nodes_per_second: float
    mean_depth: float
    solved: int


def measure_level(positions: Sequence[Board], level: str, *, seed: int = 0,
                  time_limit: float | None = None, node_limit: int | None = None) -> LatencyRow:
    """Time one analyse_move per position (wall clock around the call)."""
    from ..ai import analyse_move

    if not positions:
        raise ValueError("no positions to measure")
    times = []
    nodes = 0
    search_seconds = 0.0
    depths = 0
    solved = 0
    for i, board in enumerate(positions):
        rng = random.Random(f"bench/{level}/{seed}/{i}")
        start = time.perf_counter()
        info = analyse_move(board, level, rng=rng, time_limit=time_limit, node_limit=node_limit)
        times.append(time.perf_counter() - start)
        nodes += info.nodes
        search_seconds += info.seconds
        depths += info.depth
        solved += bool(info.solved)
    times.sort()
    first = positions[0]
    return LatencyRow(
        size=f"{first.rows}x{first.cols} k{first.k}",
        level=level,
        moves=len(times),
        p50_ms=1000 * statistics.median(times),
        p95_ms=1000 * percentile(times, 0.95),
        max_ms=1000 * times[-1],
        nodes_per_second=nodes / search_seconds if search_seconds > 0 else 0.0,
        mean_depth=depths / len(positions),
        solved=solved,
    )


def solver_line(rows: int, cols: int, k: int, rule: Rule, time_limit: float | None) -> list[str]:
    """Cold solve of the empty board: the tables are cleared first so nothing is remembered."""
    from ..solve.solver import SolveTimeout, analyse, clear_tables

    clear_tables()
    board = Board(rows, cols, k, rule)
    start = time.perf_counter()
    try:
        result = analyse(board, time_limit=time_limit)
    except SolveTimeout as exc:
        return [f"({rows},{cols},{k})", "timeout", "-", f"{exc.nodes:,}", f"{exc.seconds:.2f}"]
    seconds = time.perf_counter() - start
    value = {1: "X wins", 0: "draw", -1: "O wins"}[result.value]
    return [f"({rows},{cols},{k})", value, str(result.plies), f"{result.nodes:,}", f"{seconds:.2f}"]


def _is_winning(board: Board, move: Cell, time_limit: float) -> str:
    """"yes"/"no" if the solver proves whether `move` keeps a forced win, else "unknown"."""
    from ..solve.solver import SolveTimeout, solve

    after = board.copy()
    after.push(move)
    outcome = after.outcome()
    if outcome is not None:
        return "yes" if outcome.winner is not None else "no"
    try:
        return "yes" if solve(after, time_limit=time_limit) == -1 else "no"
    except SolveTimeout:
        return "unknown"


def mc_position_lines(playouts: int, seed: int, time_limit: float | None,
                      node_limit: int | None) -> list[list[str]]:
    """"impossible" and MC(playouts) on MC_POSITION: time, move, and whether it wins."""
    from ..ai import analyse_move
    from ..solve.solver import clear_tables

    board = Board.from_text(MC_POSITION)
    clear_tables()
    start = time.perf_counter()
    info = analyse_move(board, Level.IMPOSSIBLE, rng=random.Random(seed), time_limit=time_limit,
                        node_limit=node_limit)
    ai_seconds = time.perf_counter() - start
    start = time.perf_counter()
    mc_move = monte_carlo_move(board, random.Random(seed), playouts)
    mc_seconds = time.perf_counter() - start
    return [
        [Level.IMPOSSIBLE.value, board.move_name(info.move), f"{1000 * ai_seconds:.1f}",
         _is_winning(board, info.move, 60.0)],
        [f"mc({playouts})", board.move_name(mc_move), f"{1000 * mc_seconds:.1f}",
         _is_winning(board, mc_move, 60.0)],
    ]


def tic_tac_toe_micros(seed: int, repeats: int = 5) -> tuple[float, int]:
    """Median microseconds per "impossible" move on 3x3 positions after one warm-up pass (the
    solver's tables filled), and how many calls the median is over."""
    from ..ai import choose_move

    positions = sample_positions(3, 3, 3, Rule.FREESTYLE, 12, seed)
    for i, board in enumerate(positions):
        choose_move(board, Level.IMPOSSIBLE, rng=random.Random(i))
    times = []
    for _ in range(repeats):
        for i, board in enumerate(positions):
            rng = random.Random(i)
            start = time.perf_counter()
            choose_move(board, Level.IMPOSSIBLE, rng=rng)
            times.append(time.perf_counter() - start)
    return 1e6 * statistics.median(times), len(times)


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns right-aligned except the first."""
    widths = [max(len(x) for x in col) for col in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


LATENCY_HEADER = ("size", "level", "moves", "p50 ms", "p95 ms", "max ms", "nodes/s", "depth",
                  "solved")


def latency_cells(row: LatencyRow) -> list[str]:
    return [row.size, row.level, str(row.moves), f"{row.p50_ms:.1f}", f"{row.p95_ms:.1f}",
            f"{row.max_ms:.1f}",
            f"{row.nodes_per_second:,.0f}" if row.nodes_per_second else "-",
            f"{row.mean_depth:.1f}",
            f"{row.solved}/{row.moves}"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sizes", default=DEFAULT_SIZES,
                        help=f"comma-separated ROWSxCOLSkK boards (default {DEFAULT_SIZES})")
    parser.add_argument("--levels", default=None, help="comma-separated AI levels (default all)")
    parser.add_argument("--rule", default="freestyle", help="freestyle, exact, caro or renju")
    parser.add_argument("--moves", type=int, default=10,
                        help="positions timed per level and size (default 10)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds per move (default: each level's own)")
    parser.add_argument("--node-limit", type=int, default=None, help="search nodes per move")
    parser.add_argument("--seed", type=int, default=0, help="seed of the self-play positions")
    parser.add_argument("--from-level", default=Level.EASY.value,
                        help="level whose self-play games give the positions (default easy)")
    parser.add_argument("--mc-playouts", type=int, default=1000,
                        help="playouts per candidate for the MC line (default 1000)")
    parser.add_argument("--solver-all", action="store_true",
                        help="also solve (5,4,4) and (5,5,4), which can take long")
    parser.add_argument("--solver-time-limit", type=float, default=120.0,
                        help="seconds per solver run (default 120)")
    parser.add_argument("--no-solver", action="store_true", help="skip the solver table")
    parser.add_argument("--no-extras", action="store_true",
                        help="skip the 5x5 k4 MC line and the 3x3 microsecond line")


def run(args: argparse.Namespace) -> int:
    from ..ai import LEVELS

    try:
        sizes = parse_sizes(args.sizes)
        rule = Rule.parse(args.rule)
        levels = [x.strip().lower() for x in (args.levels or ",".join(LEVELS)).split(",") if x.strip()]
        from_level = args.from_level.strip().lower()
        unknown = [x for x in [*levels, from_level] if x not in LEVELS]
        if unknown or not levels:
            raise ValueError(f"unknown level {', '.join(unknown) or '(none)'}: choose from {', '.join(LEVELS)}")
        if args.moves < 1:
            raise ValueError("--moves must be at least 1")
        if args.mc_playouts < 1:
            raise ValueError("--mc-playouts must be at least 1")
        for name in ("time_limit", "solver_time_limit"):
            value = getattr(args, name)
            if value is not None and not value > 0:
                raise ValueError(f"--{name.replace('_', '-')} must be positive")
        if args.node_limit is not None and args.node_limit < 1:
            raise ValueError("--node-limit must be at least 1")
    except ValueError as exc:
        print(f"caro bench: error: {exc}", file=sys.stderr)
        return 2

    started = time.perf_counter()
    from ..ai import warm_up

    # The compiled core loads before any move is timed, as it does in the bot's AI workers.
    warm_up()
    print(f"move latency ({rule.value}, {args.moves} positions per size from {from_level} self-play, "
          f"seed {args.seed})")
    rows = []
    for r, c, k in sizes:
        print(f"  sampling {r}x{c} k{k} positions...", file=sys.stderr, flush=True)
        positions = sample_positions(r, c, k, rule, args.moves, args.seed, from_level)
        for level in levels:
            print(f"  timing {level} on {r}x{c} k{k}...", file=sys.stderr, flush=True)
            rows.append(latency_cells(measure_level(positions, level, seed=args.seed,
                                                    time_limit=args.time_limit,
                                                    node_limit=args.node_limit)))
    print(format_table(LATENCY_HEADER, rows), flush=True)

    if not args.no_solver:
        specs = SOLVER_SPECS + (SOLVER_EXTRA_SPECS if args.solver_all else ())
        print(f"\nsolver, empty board, cold tables (limit {args.solver_time_limit:g}s)")
        solver_rows = []
        for r, c, k in specs:
            print(f"  solving ({r},{c},{k})...", file=sys.stderr, flush=True)
            solver_rows.append(solver_line(r, c, k, rule, args.solver_time_limit))
        print(format_table(("(m,n,k)", "value", "plies", "nodes", "seconds"), solver_rows), flush=True)

    if not args.no_extras:
        print(f"\n{MC_POSITION}, X to move (X has a forced win)")
        lines = mc_position_lines(args.mc_playouts, args.seed, args.time_limit, args.node_limit)
        print(format_table(("player", "move", "ms", "winning"), lines))
        micros, calls = tic_tac_toe_micros(args.seed)
        print(f"\n3x3 impossible after warm-up: median {micros:.0f} µs per move ({calls} calls)")
    print(f"\nbench took {time.perf_counter() - started:.0f}s", file=sys.stderr)
    return 0
