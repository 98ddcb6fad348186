"""Arena benchmark: a server's arena tournament of 64 members for 10 minutes, through the real bot
process and the local Discord double, compared with `bench.load` in the same invocation.

    python -m bench.tournament_arena --players 64 --minutes 10 --rate 25
    python -m bench.tournament_arena --database postgresql --cancel-after 60

An organiser creates an arena (`/caro tournament create format:arena`), the members join with the
announcement's Join button and the organiser starts it. Then, for the arena's whole time and
until the games under way when it ends are played out and the final announcement is up, a pacer
sends `--rate` clicks per second: each by a random member whose tournament board in the channel
waits for them (the board says "<@member> to move"), on a random free cell. The bot itself pairs
whoever is free, posts their games and writes the results; the players only click.

Then `bench.load` runs on a new bot with as many live games as the arena has at once (one per
two players, against the AI at easy, on the same board) and the same click rate, for
`--load-seconds`: the bot under the same clicks with no tournament. Both are measured the same
way: click -> interaction response (as the double saw it) and the bot process's CPU per
acknowledged click (user + system time from /proc, the tournament's own work included: pairing,
posting boards, results, standings). Printed side by side, with the arena's figures over
`bench.load`'s; the target is 1.5x at most for both.

`--cancel-after S`: the organiser cancels the arena after S seconds of clicking (a quick run; the
arena's own length is at least 5 minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from testkit.clusters import deploy
    from testkit.discord_double import InteractionFailed
    from testkit.faults import free_cells, settle, text_of
except ModuleNotFoundError as exc:
    MISSING: ModuleNotFoundError | None = exc
else:
    MISSING = None
from bench import load

NEEDS = (
    "needs the repository's test kit (testkit/): run "
    "`.venv/bin/python -m bench.tournament_arena` from the root of a clone"
)
SIZE = load.SIZE
MOVER = re.compile(r"<@!?(\d+)> to move")
MAX_PLAYERS = 64
# How long after the arena's time the games under way may take to end (their turn clock is 120 s).
GRACE = 300.0


@dataclass
class Board:
    message: Any
    busy: bool = False


@dataclass
class Figures:
    click_ms: list[float] = field(default_factory=list)
    refused: int = 0
    failed: int = 0
    idle_ticks: int = 0
    boards: int = 0
    live_samples: list[int] = field(default_factory=list)


def mover_of(message: Any) -> str | None:
    """Whose turn the board says it is; None once the game is over (or not a board)."""
    found = MOVER.search(load.headline(message))
    return found.group(1) if found else None


class Boards:
    """The tournament boards the bot posted in the channel, found as they appear."""

    def __init__(self, double: Any, channel_id: str) -> None:
        self.double = double
        self.channel_id = channel_id
        self.seen = 0
        self.live: dict[str, Board] = {}
        self.total = 0

    def refresh(self) -> None:
        order = self.double.store.order
        for message in order[self.seen:]:
            if (message.channel_id == self.channel_id and message.visible_to is None
                    and any(str(b.get("custom_id", "")).startswith("caro:m:")
                            for b in message.buttons)):
                self.live[message.id] = Board(message)
                self.total += 1
        self.seen = len(order)
        for key in [k for k, b in self.live.items() if not b.busy and mover_of(b.message) is None]:
            del self.live[key]


async def click(board: Board, member: Any, rng: random.Random, figures: Figures) -> None:
    board.busy = True
    try:
        free = free_cells(board.message)
        if not free:
            return
        started = time.perf_counter()
        result = await member.click_custom_id(board.message, rng.choice(free))
        figures.click_ms.append((time.perf_counter() - started) * 1000)
        if result.callback_type != 7:
            figures.refused += 1
    except InteractionFailed:
        figures.failed += 1
    finally:
        board.busy = False


async def play(boards: Boards, members: dict[str, Any], rate: float, until: float,
               over: Callable[[], bool], rng: random.Random) -> Figures:
    """Click at `rate` until `over()` holds or the loop's time reaches `until`."""
    figures = Figures()
    tasks: set[asyncio.Task[None]] = set()
    loop = asyncio.get_running_loop()
    began = loop.time()
    n = 0
    while loop.time() < until and not over():
        n += 1
        await asyncio.sleep(max(0.0, began + n / rate - loop.time()))
        boards.refresh()
        if n % max(1, round(rate)) == 0:
            figures.live_samples.append(len(boards.live))
        ready = [(b, mover) for b in boards.live.values() if not b.busy
                 and (mover := mover_of(b.message)) in members]
        if ready:
            board, mover = rng.choice(ready)
            tasks.add(loop.create_task(click(board, members[mover], rng, figures)))
        else:
            figures.idle_ticks += 1
        tasks = {t for t in tasks if not t.done()}
    await asyncio.gather(*tasks)
    figures.boards = boards.total
    return figures


async def arena(args: argparse.Namespace) -> tuple[list[tuple[str, str]], list[float], float,
                                                   list[str]]:
    """Run the arena; (rows, click times, bot CPU ms per click, problems)."""
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="caro-arena-"))
    deployment = await deploy(workdir, layout=[[0]], shard_count=1, database=args.database,
                              CARO_LOOP_LAG_LOG="1", CARO_LOG_LEVEL="INFO",
                              CARO_FAST_DRAWING="1")
    double = deployment.double
    (pid,) = deployment.pids()
    guild = deployment.guilds[0]
    rows: list[tuple[str, str]] = [("database", "PostgreSQL" if deployment.database.is_postgres
                                    else "SQLite")]
    problems: list[str] = []
    clicks: list[float] = []
    cpu_per_click = float("nan")
    try:
        await asyncio.sleep(2)  # AI workers warm up, as bench.load waits
        organiser = double.add_member("organiser", guild_id=guild)
        created = await organiser.slash(
            "caro tournament create", format="arena", minutes=args.minutes, size=SIZE,
            max_players=MAX_PLAYERS, starts_in=60,
        )
        if created.ephemeral or created.message is None:
            raise RuntimeError(f"the arena was not created: {text_of(created.message)}")
        announcement = created.message
        members = {m.id: m for m in (double.add_member(f"p{i}", guild_id=guild)
                                     for i in range(args.players))}
        t0 = time.perf_counter()
        joins = []
        for member in members.values():
            started = time.perf_counter()
            joined = await member.click(announcement, "Join")
            joins.append((time.perf_counter() - started) * 1000)
            if joined.callback_type != 7:
                problems.append(f"{member.id} could not join: {text_of(joined.message)}")
        rows.append(("players joined with the button",
                     f"{len(joins)} in {time.perf_counter() - t0:.1f} s, p99 "
                     f"{load.pct(joins, 0.99):.0f} ms"))
        boards = Boards(double, announcement.channel_id)
        log_before = len(deployment.clusters[0].log_text())
        started_at = await organiser.slash("caro tournament start")
        if "starts now" not in text_of(started_at.message):
            raise RuntimeError(f"the arena did not start: {text_of(started_at.message)}")
        loop = asyncio.get_running_loop()
        cancelling = args.cancel_after is not None and args.cancel_after < args.minutes * 60
        # The games under way when the time is up are played out before the final announcement.
        final_text = "was cancelled" if cancelling else "is over"

        def over() -> bool:
            return any(f"Tournament #1 {final_text}" in text_of(m)
                       for m in double.messages(announcement.channel_id)[-5:])

        until = loop.time() + (args.cancel_after if cancelling else args.minutes * 60 + GRACE)
        cpu0 = load.cpu_split(pid)
        mine0 = load.cpu_seconds(os.getpid())
        t0 = time.perf_counter()
        with load.collections_paused():
            figures = await play(boards, members, args.rate, until,
                                 (lambda: False) if cancelling else over, rng)
        elapsed = time.perf_counter() - t0
        cpu1 = load.cpu_split(pid)
        mine1 = load.cpu_seconds(os.getpid())
        if cancelling:
            await organiser.slash("caro tournament cancel")
        if not await double.store.changes.wait_until(over, 60):
            problems.append(f"no final announcement {GRACE:g} s after the arena's time was up")
        clicks = figures.click_ms
        bot_ms = (sum(cpu1) - sum(cpu0)) * 1000
        cpu_per_click = bot_ms / len(clicks) if clicks else float("nan")
        lags = load.lag_reports(deployment.clusters[0].log_text()[log_before:])
        games = await deployment.database.rows(
            "SELECT status, COUNT(*) FROM games WHERE tournament_id = 1 GROUP BY status")
        pairings = await deployment.database.rows(
            "SELECT COUNT(*), COUNT(outcome) FROM tournament_pairings WHERE tournament_id = 1")
        live = figures.live_samples
        rows += [
            ("players", f"{args.players} members, arena of {args.minutes} min on {SIZE}"),
            ("clicking", f"{elapsed:.0f} s at a target of {args.rate:g}/s"
             + (f" (cancelled after {args.cancel_after:g} s)" if final_text == "was cancelled"
                else "")),
            ("clicks acknowledged", f"{len(clicks)} ({len(clicks) / elapsed:.1f}/s)"),
            ("click -> response p50", f"{load.pct(clicks, 0.5):.1f} ms"),
            ("click -> response p99", f"{load.pct(clicks, 0.99):.1f} ms"),
            ("click -> response max", f"{max(clicks, default=float('nan')):.1f} ms"),
            ("bot CPU per acknowledged click",
             f"{cpu_per_click:.2f} ms (system time "
             f"{(cpu1[1] - cpu0[1]) * 1000 / max(1, len(clicks)):.2f} ms)"),
            ("bot CPU while clicking", f"{(sum(cpu1) - sum(cpu0)) / elapsed * 100:.0f}% of a core"),
            ("boards posted by the bot", str(figures.boards)),
            ("live boards (sampled each second)",
             f"median {statistics.median(live) if live else float('nan'):g}, "
             f"min {min(live, default=0)}, max {max(live, default=0)}"),
            ("games by status", ", ".join(f"{status} {n}" for status, n in games)),
            ("pairings (with a result)", f"{pairings[0][0]} ({pairings[0][1]})"),
            ("clicks not sent: no board waiting", str(figures.idle_ticks)),
            ("refused / failed clicks", f"{figures.refused} / {figures.failed}"),
            ("loop lag max (bot, 1 s reports)",
             f"{max((m for m, _ in lags), default=float('nan')):.1f} ms ({len(lags)} reports)"),
            ("loop lag p99 (median 1 s window)",
             f"{statistics.median(p for _, p in lags) if lags else float('nan'):.1f} ms"),
            ("this process (double + players) CPU", f"{(mine1 - mine0) / elapsed * 100:.0f}% of a core"),
            ("machine load average (1 min)", f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"),
            ("bot RSS", load.megabytes(load.memory([pid])[0])),
            ("Discord rule violations", str(len(double.violations))),
        ]
        if figures.failed:
            problems.append(f"{figures.failed} clicks failed")
        await settle(double)
    finally:
        problems += await deployment.close(allow_violations=True)
        problems += [str(v) for v in double.violations[:5]]
    rows.append(("bot logs and database", str(workdir)))
    return rows, clicks, cpu_per_click, problems


async def main(args: argparse.Namespace) -> int:
    print(f"arena: {args.players} players for "
          f"{args.cancel_after if args.cancel_after is not None else args.minutes * 60:g} s ...",
          file=sys.stderr, flush=True)
    arena_rows, arena_clicks, arena_cpu, problems = await arena(args)
    games = args.players // 2
    print(f"bench.load: {games} games at easy for {args.load_seconds:g} s ...", file=sys.stderr,
          flush=True)
    load_args = load.parse_args([
        "--games", str(games), "--hard", "0", "--idle-games", "0", "--rate", f"{args.rate:g}",
        "--duration", f"{args.load_seconds:g}", "--database", args.database,
        "--seed", str(args.seed),
    ])
    result = await load.measure(load_args, load.runs_of(load_args)[0])
    if result is None:
        return 2
    problems += result.problems
    width = max(len(k) for k, _ in arena_rows)
    print("arena")
    for key, value in arena_rows:
        print(f"    {key:<{width}}  {value}")
    print(f"bench.load ({games} live games against easy, {args.rate:g} clicks/s)")
    for key, value in result.rows:
        print(f"    {key:<{width}}  {value}")
    load_p99 = load.pct(result.click_ms, 0.99)
    arena_p99 = load.pct(arena_clicks, 0.99)
    load_cpu = result.bot_cpu_ms_per_click
    print("arena over bench.load (target: at most 1.5x)")
    print(f"    click -> response p99       {arena_p99 / load_p99:.2f}x "
          f"({arena_p99:.1f} ms over {load_p99:.1f} ms)")
    print(f"    bot CPU per click           {arena_cpu / load_cpu:.2f}x "
          f"({arena_cpu:.2f} ms over {load_cpu:.2f} ms)")
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.tournament_arena",
                                     description=__doc__.split("\n")[0],
                                     epilog=f"This benchmark {NEEDS}.")
    parser.add_argument("--players", type=players, default=MAX_PLAYERS,
                        help=f"members in the arena (2 to {MAX_PLAYERS})")
    parser.add_argument("--minutes", type=minutes, default=10,
                        help="the arena's length (5 to 1440, as the bot allows)")
    parser.add_argument("--rate", type=float, default=25, help="clicks per second, both runs")
    parser.add_argument("--load-seconds", type=float, default=60,
                        help="seconds of clicking in the bench.load run")
    parser.add_argument("--cancel-after", type=float, default=None,
                        help="cancel the arena after this many seconds of clicking")
    parser.add_argument("--database", default="sqlite",
                        help="sqlite (a new file) or postgresql (a throwaway server), both runs")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args(argv)


def players(text: str) -> int:
    value = int(text)
    if not 2 <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"expected 2 to {MAX_PLAYERS}, got {text}")
    return value


def minutes(text: str) -> int:
    value = int(text)
    if not 5 <= value <= 1440:
        raise argparse.ArgumentTypeError(f"expected 5 to 1440, got {text}")
    return value


if __name__ == "__main__":
    arguments = parse_args()
    if MISSING is not None:
        sys.exit(f"python -m bench.tournament_arena {NEEDS} (missing: {MISSING.name}).")
    sys.exit(asyncio.run(main(arguments)))
