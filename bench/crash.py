"""Crash run: SIGKILL the real bot at random moments while players play, many times over.

    python -m bench.crash --kills 100 --players 6 --seed 1
    python -m bench.crash --database postgresql --clusters 2 --kills 50

Each round the players (against the AI at easy and normal, on 3x3, 4x4 and 5x5) play for a random
0.2-2.5 s, then the bot is killed with SIGKILL and restarted on the same database. After every
kill: PRAGMA integrity_check is ok, every move the bot acknowledged to a player is stored, every
game a player saw finish is stored finished with exactly one result, and no result belongs to an
unfinished game; after every restart each player's board comes back to the stored position
(playable or finished). At the end: no AI worker of a killed bot is left running.

With `--clusters N` (N > 1 needs `--database postgresql` or a postgresql:// URL; `--database`
also takes an SQLite path) the players are spread over one guild per shard, and each round
SIGKILLs one cluster chosen at random while the others keep running. The checks then read the
database whichever its backend, and add: every finished rated game changed its member's rating
exactly once in each scope, and each member's rating changes chain from the start rating to
their standing (an update lost between two clusters would break the chain).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The scenario runs the real bot against the Discord double of the test kit (testkit/, which a
# clone has and an installed package does not); --help works without it.
try:
    from testkit.clusters import ClusterCrashCampaign, deploy, split_shards
    from testkit.faults import CrashCampaign, launch, settle, shutdown
except ModuleNotFoundError as exc:
    MISSING: ModuleNotFoundError | None = exc
else:
    MISSING = None
NEEDS = (
    "needs the repository's test kit (testkit/): run "
    "`.venv/bin/python -m bench.crash` from the root of a clone"
)


async def kill_rounds(campaign: Any, kills: int) -> list[str]:
    """`kills` rounds of play-then-kill, with progress every 10 kills; the problems found."""
    problems: list[str] = []
    for n in range(1, kills + 1):
        found = await campaign.round(campaign.rng.uniform(0.2, 2.5))
        problems += [f"kill {n}: {p}" for p in found]
        for problem in found:
            print(f"kill {n:3d}: PROBLEM {problem}", flush=True)
        if n % 10 == 0 or found:
            acked = sum(len(s.acked) for s in campaign.seats)
            print(f"kill {n:3d}: {acked} acknowledged moves, "
                  f"{sum(len(s.finished) for s in campaign.seats)} games seen finished, "
                  f"{len(found)} problem(s)", flush=True)
    return problems


async def main(args: argparse.Namespace) -> int:
    if args.clusters > 1 or args.database != "sqlite":
        return await clusters_main(args)
    workdir = Path(tempfile.mkdtemp(prefix="caro-crash-"))
    # Loop-lag reports in the log: if players ever wait, the log shows whether the bot's loop
    # was blocked or it was waiting on something.
    double, bot = await launch(workdir, CARO_LOOP_LAG_LOG="5")
    campaign = CrashCampaign(double, bot, random.Random(args.seed), players=args.players)
    problems: list[str] = []
    started = time.perf_counter()
    try:
        problems += await kill_rounds(campaign, args.kills)
        await settle(double)
        problems += [f"final: {p}" for p in campaign.check_database()]
    finally:
        problems += await shutdown(double, bot, allow_violations=True)
    for _ in range(50):
        if not campaign.leftover_workers():
            break
        await asyncio.sleep(0.1)
    leftover = campaign.leftover_workers()
    counts = bot.db_counts()
    acked = sum(len(s.acked) for s in campaign.seats)
    seen = sum(len(s.finished) for s in campaign.seats)
    unexpected = campaign.unexpected_violations()
    print(f"kills: {campaign.kills} in {time.perf_counter() - started:.0f} s")
    print(f"moves acknowledged to players: {acked}, all stored: "
          f"{not any('lost' in p for p in problems)}")
    print(f"games: {counts['games']}, moves stored: {counts['moves']}, results: {counts['results']}"
          f", games players saw finish: {seen}")
    print(f"interactions in flight at a kill (never answered): "
          f"{len(double.violations) - len(unexpected)}")
    print(f"other Discord rule violations: {len(unexpected)}")
    print(f"AI workers of killed bots still running: {len(leftover)}")
    print(f"problems: {len(problems) + len(unexpected) + len(leftover)}")
    for problem in problems + unexpected:
        print(f"  {problem}")
    print(f"(bot log and database in {workdir})")
    return 1 if problems or unexpected or leftover else 0


async def clusters_main(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="caro-crash-"))
    try:
        deployment = await deploy(
            workdir, layout=split_shards(args.clusters, args.shards_per_cluster),
            shard_count=args.clusters * args.shards_per_cluster, database=args.database,
            CARO_LOOP_LAG_LOG="5",
        )
    except ValueError as exc:
        print(f"python -m bench.crash: {exc}", file=sys.stderr)
        return 2
    double = deployment.double
    campaign = ClusterCrashCampaign(deployment, random.Random(args.seed), players=args.players)
    problems: list[str] = []
    started = time.perf_counter()
    try:
        problems += await kill_rounds(campaign, args.kills)
        await settle(double)
        problems += [f"final: {p}" for p in await campaign.check_stored()]
        counts = {table: (await deployment.database.rows(f"SELECT COUNT(*) FROM {table}"))[0][0]
                  for table in ("games", "moves", "results", "rating_changes")}
    finally:
        problems += await deployment.close(allow_violations=True)
    for _ in range(50):
        if not campaign.leftover_workers():
            break
        await asyncio.sleep(0.1)
    leftover = campaign.leftover_workers()
    acked = sum(len(s.acked) for s in campaign.seats)
    seen = sum(len(s.finished) for s in campaign.seats)
    unexpected = campaign.unexpected_violations()
    backend = "PostgreSQL" if deployment.database.is_postgres else "SQLite"
    print(f"database: {backend}; clusters: {args.clusters} of {args.shards_per_cluster} "
          f"shard(s); kills per cluster: {campaign.kills_per_cluster}")
    print(f"kills: {campaign.kills} in {time.perf_counter() - started:.0f} s")
    print(f"moves acknowledged to players: {acked}, all stored: "
          f"{not any('lost' in p for p in problems)}")
    print(f"games: {counts['games']}, moves stored: {counts['moves']}, results: "
          f"{counts['results']}, rating changes: {counts['rating_changes']}, games players saw "
          f"finish: {seen}")
    print(f"interactions in flight at a kill (never answered): "
          f"{len(double.violations) - len(unexpected)}")
    print(f"other Discord rule violations: {len(unexpected)}")
    print(f"AI workers of killed bots still running: {len(leftover)}")
    print(f"problems: {len(problems) + len(unexpected) + len(leftover)}")
    for problem in problems + unexpected:
        print(f"  {problem}")
    print(f"(bot logs and database in {workdir})")
    return 1 if problems or unexpected or leftover else 0


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1, got {text}")
    return value


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.crash",
                                     description=__doc__.split("\n")[0],
                                     epilog=f"This benchmark {NEEDS}.")
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", default="sqlite",
                        help="sqlite (a new file; one bot, the original campaign), an SQLite "
                        "path, postgresql (a throwaway server) or a postgresql:// URL of an "
                        "empty database")
    parser.add_argument("--clusters", type=positive, default=1,
                        help="bot processes (clusters) sharing the database, one killed per "
                        "round; >1 needs PostgreSQL")
    parser.add_argument("--shards-per-cluster", type=positive, default=1)
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = parse_args()
    if MISSING is not None:
        sys.exit(f"python -m bench.crash {NEEDS} (missing: {MISSING.name}).")
    sys.exit(asyncio.run(main(arguments)))
