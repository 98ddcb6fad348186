"""The AI levels' ladder, measured again: games between the levels at their own time limits, the
pair scores with error bars, every level's rating on the members' scale and the anchors derived
from it (bot/game/ladder.py holds the method and the table the bot uses).

    python -m bench.ladder                      # the shipped ladder: 15x15 freestyle
    python -m bench.ladder --pairs normal-easy --games 4 --size 7x7 --k 4   # a quick look

Each pair plays through `caro arena`'s Python API (engine.programs.arena): random openings of
`--openings` stones near the centre, each played once with each colour, every level at its
default time a move unless `--time-limit` is given (LEVEL@SECONDS plays a level at another time:
a bridge between two levels too far apart for either to lose a game). Pairings against outside
engines, which this tool does not play (Rapfi, measured with `python -m bench.match`), are
carried over from the shipped table when their level plays in this run on its board (15x15
freestyle) at the levels' own times, unless `--outside` says otherwise, so they stay on the scale.

Printed: the machine's load before and after, one line per pair (games, W/D/L, score, Elo with
its 95% interval), the fitted rating of every player with its interval, the anchors, and the
table as Python to paste into bot/game/ladder.py's MEASURED.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import time

from bot.game import ladder
from bot.game.ladder import Pairing
from bot.game.ratings import LADDER_PIN, START_RATING
from engine.game.notation import parse_size
from engine.game.types import LEVELS, Mark, Rule
from engine.programs.arena import LevelPlayer, run_games, schedule

# The adjacent levels, easy-hard, and bridges between hard and impossible: impossible wins
# (nearly) every game against hard, and a clean sweep only says "stronger by at least so much",
# so impossible at 0.002 s and at 0.01 s a move (each of which loses some games to its neighbours)
# tie the two together with finite scores.
BRIDGE = "impossible@0.01"
LOW_BRIDGE = "impossible@0.002"
DEFAULT_PAIRS = (f"normal-easy,hard-normal,hard-easy:100,impossible-hard,{LOW_BRIDGE}-hard,"
                 f"{BRIDGE}-hard,{BRIDGE}-{LOW_BRIDGE},impossible-{BRIDGE}")
# Games per pair unless a pair names its own (hard-easy:100): impossible thinks for up to its
# 0.8 s a move, the others for milliseconds.
DEFAULT_GAMES = 200
# The board of the shipped table (bot.game.ladder.LADDER_SIZE): 15x15, five in a row, freestyle.
SHIPPED = (15, 15, 5, Rule.FREESTYLE)
DEFAULT_SLOW_GAMES = 100


def load() -> str:
    """The machine's load average over the last minute, or "?" where the OS has none."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "?"


PLAYER = r"([a-z]+(?:@[0-9.]+)?)"


def player(name: str) -> LevelPlayer:
    """A level at its own time a move, or LEVEL@SECONDS: a bridge player at another time."""
    level, _, seconds = name.partition("@")
    if level not in LEVELS:
        raise ValueError(f"{name!r}: not one of {', '.join(LEVELS)}")
    if not seconds:
        return LevelPlayer(level)
    try:
        limit = float(seconds)
    except ValueError:
        limit = 0.0
    if not 0 < limit < 60:
        raise ValueError(f"{name!r}: write LEVEL@SECONDS with a time a move, like impossible@0.05")
    return LevelPlayer(level, time_limit=limit, name=name)


def parse_pairs(text: str, games: int, slow_games: int) -> list[tuple[str, str, int]]:
    """`a-b[:N],...` as (stronger-or-first, second, games) triples."""
    pairs = []
    for entry in filter(None, (e.strip().lower() for e in text.split(","))):
        m = re.fullmatch(PLAYER + "-" + PLAYER + r"(?::(\d+))?", entry)
        if m is None or m[1] == m[2]:
            raise ValueError(f"{entry!r}: write A-B or A-B:GAMES with two different players, each "
                             f"a level of {', '.join(LEVELS)} or LEVEL@SECONDS")
        for name in (m[1], m[2]):
            player(name)  # refuses an unknown level or a bad time
        count = int(m[3]) if m[3] else slow_games if "impossible" in entry else games
        if count < 2:
            raise ValueError(f"{entry!r}: at least 2 games a pair (one with each colour)")
        pairs.append((m[1], m[2], count))
    if not pairs:
        raise ValueError("no pairs to play")
    return pairs


def parse_outside(text: str) -> list[Pairing]:
    """`NAME-LEVEL:W/D/L,...`: an outside engine's results against a level."""
    out = []
    for entry in filter(None, (e.strip() for e in text.split(","))):
        m = re.fullmatch(r"([\w.]+)-([a-z]+):(\d+)/(\d+)/(\d+)", entry)
        if m is None or m[2] not in LEVELS:
            raise ValueError(f"{entry!r}: write NAME-LEVEL:WINS/DRAWS/LOSSES (NAME's results)")
        out.append(Pairing(m[1], m[2], int(m[3]), int(m[4]), int(m[5]), "given with --outside"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ladder", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", default=DEFAULT_PAIRS,
                        help=f"LEVEL-LEVEL[:GAMES], comma-separated (default {DEFAULT_PAIRS})")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                        help=f"games per pair without impossible (default {DEFAULT_GAMES})")
    parser.add_argument("--slow-games", type=int, default=DEFAULT_SLOW_GAMES,
                        help=f"games per pair with impossible (default {DEFAULT_SLOW_GAMES})")
    parser.add_argument("--size", default="15x15", help="board ROWSxCOLS (default 15x15)")
    parser.add_argument("--k", type=int, default=5, help="stones in a row to win (default 5)")
    parser.add_argument("--rule", default="freestyle", help="freestyle, exact, caro or renju")
    parser.add_argument("--openings", type=int, default=2,
                        help="random stones near the centre per game pair (default 2)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds a move for every level (default: each level's own)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="games at a time (default 1, so impossible meets its time limit)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the openings (default 1)")
    parser.add_argument("--outside", default=None,
                        help="NAME-LEVEL:W/D/L of engines this tool does not play, comma-separated "
                        "(default: those of the shipped table whose level plays)")
    args = parser.parse_args(argv)
    try:
        pairs = parse_pairs(args.pairs, args.games, args.slow_games)
        rows, cols, k = parse_size(args.size).with_k(args.k)
        rule = Rule.parse(args.rule)
        if args.jobs < 1:
            raise ValueError("--jobs must be at least 1")
        played = {name for first, second, _ in pairs for name in (first, second)}
        # The shipped outside results belong on the shipped ladder's board, at the levels' times.
        shipped = (rows, cols, k, rule) == SHIPPED and args.time_limit is None
        outside = (parse_outside(args.outside) if args.outside is not None else
                   [p for p in ladder.MEASURED
                    if not (ladder.is_level(p.first) and ladder.is_level(p.second))
                    and {p.first, p.second} & played] if shipped else [])
    except ValueError as exc:
        print(f"bench.ladder: error: {exc}", file=sys.stderr)
        return 2

    today = datetime.date.today().isoformat()
    times = "default times" if args.time_limit is None else f"{args.time_limit:g} s a move"
    print(f"{rows}x{cols} k{k} {rule.value}, {times}, openings {args.openings}, seed {args.seed}, "
          f"jobs {args.jobs}; {today}, load average {load()} at the start")
    measured: list[Pairing] = []
    for first, second, games in pairs:
        players = [player(first), player(second)]
        if args.time_limit is not None:
            players = [p if "@" in p.name else LevelPlayer(p.level, time_limit=args.time_limit)
                       for p in players]
        specs = schedule(players, rows=rows, cols=cols, k=k, rule=rule, games=games,
                         seed=args.seed, openings=args.openings)
        loads = [load()]
        start = time.perf_counter()
        results = [r for r in run_games(specs, jobs=args.jobs) if r.error is None]
        loads.append(load())
        wins = sum(1 for r in results if r.winner is not None
                   and (r.x if r.winner is Mark.X else r.o) == first)
        draws = sum(1 for r in results if r.winner is None)
        conditions = (f"{rows}x{cols} k{k} {rule.value}, {times}, openings {args.openings}, "
                      f"{today}, load {loads[0]}-{loads[1]}")
        pairing = Pairing(first, second, wins, draws, len(results) - wins - draws, conditions)
        measured.append(pairing)
        elo, error = pairing.elo()
        abandoned = f", {games - len(results)} abandoned" if len(results) < games else ""
        print(f"{first} v {second}: {pairing.games} games{abandoned}, "
              f"+{pairing.wins} ={pairing.draws} -{pairing.losses}, {100 * pairing.score:.1f}%, "
              f"{elo:+.0f} ± {error:.0f} Elo ({time.perf_counter() - start:.0f} s, "
              f"load {loads[0]}-{loads[1]})", flush=True)
    for pairing in outside:
        elo, error = pairing.elo()
        print(f"{pairing.first} v {pairing.second}: {pairing.games} games, +{pairing.wins} "
              f"={pairing.draws} -{pairing.losses}, {100 * pairing.score:.1f}%, {elo:+.0f} ± "
              f"{error:.0f} Elo (carried over: {pairing.conditions})")

    table = [*measured, *outside]
    try:
        fitted = ladder.fit(table, pin=LADDER_PIN, at=START_RATING)
    except ValueError as exc:
        print(f"bench.ladder: cannot fit: {exc}", file=sys.stderr)
        return 1
    print(f"\nratings ({LADDER_PIN} pinned at {START_RATING:g}, a new member's start), 95%:")
    for rating in sorted(fitted.values(), key=lambda r: r.rating):
        print(f"  {rating.name:<12} {rating.rating:6.0f} ± {rating.error:.0f}  ({rating.games} games)")
    levels = [level for level in LEVELS if level in fitted]
    anchors = ", ".join(f"{level} {value:g}"
                        for level, value in ladder.anchors(fitted, levels).items())
    print(f"anchors (rounded to {ladder.ROUND_TO:g}): {anchors}")
    print("\nMEASURED for bot/game/ladder.py:")
    for pairing in table:
        first = f"Level.{pairing.first.upper()}" if pairing.first in LEVELS else repr(pairing.first)
        second = f"Level.{pairing.second.upper()}" if pairing.second in LEVELS else repr(pairing.second)
        print(f"    Pairing({first}, {second}, {pairing.wins}, {pairing.draws}, {pairing.losses},\n"
              f"            {pairing.conditions!r}),")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
