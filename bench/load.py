"""Load benchmark: the real bot process against the local Discord double, many players at once.

    python -m bench.load --games 200 --rate 50 --duration 30 --hard 10 --idle-games 1000
    python -m bench.load --rate 300 --duration 45 --idle-games 0 --database sqlite,postgresql
    python -m bench.load --database postgresql --clusters 2 --idle-games 0
    python -m bench.load --database sqlite,postgresql --pg-durability async,full --idle-games 0
    python -m bench.load --database sqlite,postgresql --rounds 3 --pg-statements --idle-games 0

`--database`: sqlite (a new file, the default), an SQLite path or sqlite:///path, postgresql (a
throwaway server started for the run with the system's PostgreSQL, see testkit/postgres.py) or a
postgresql://... URL of an empty database; several, comma-separated, are measured one after the
other with the same seed and load, side by side, with each one's p99 over SQLite's (the first
run's if none is SQLite): on a busy shared machine only a comparison within one invocation is
like for like. `--rounds N` measures the list N times, every other round in reverse order, and
prints the median of the rounds' ratios and the ratio of the p99s of all rounds' clicks
together.

A throwaway server runs once per `--pg-durability` setting. `async` (the default):
synchronous_commit=off with fsync on, so a commit does not wait for the disk; a crash of the
machine or of the PostgreSQL server may lose the last fraction of a second of commits (at most
three wal_writer_delay, 0.6 s by default) and never corrupts anything. It is the closest
counterpart of the bot's SQLite (WAL, synchronous=NORMAL: a commit does not wait for the disk
either and a crash of the machine may lose the last commits; only a crash of the bot process
itself loses nothing, as the WAL write reached the OS). `full`: PostgreSQL's defaults, each
commit waits for its WAL flush. `none`: fsync off, as the tests run it: nothing is made durable
and a crash of the machine may corrupt the database. `--pg-statements` also loads
pg_stat_statements into a throwaway server and prints the statements run per acknowledged
click.

`--clusters N` runs N bot processes of `--shards-per-cluster` shards each (N > 1 needs
PostgreSQL). The players are spread over enough guilds on every shard that no server reaches its
cap of running games against the AI (bot.game.games.Limits: 40), so every game is live.

Each of the `--games` live games has a seat of `--members-per-game` simulated members (of one
server) who play against the AI (5x5, 4 in a row; most games at "easy" so the bot, not the AI,
is what is measured, and `--hard` games at "hard" so AI searches run in the process pool the
whole time). The benchmark sends `--rate` clicks per second, each by a random member whose
board is waiting for them, on a random free cell; a finished game is replaced by a new /caro
start of the seat's next member whose start cooldown allows it. The members do only what a
person may: they click only on their turn, and pace their starts by the bot's own start
cooldown (bot.game.cooldowns, see Pacer), never sending one into it. So every refusal is the
bot's doing: each is put down to the text id of the bot's private answer (error.cooldown,
click.not_your_turn, error.storage_unavailable, ...), printed as a table of refusals by reason,
and counted a problem (exit status 1); none is the target. Then more members start games until
`--idle-games` are live, to measure memory.

Printed: acknowledgements per second, click -> interaction response time (p50/p99/max, as the
double saw it), the bot processes' CPU milliseconds per acknowledged click (user + system time
from /proc/<pid>/stat, all clusters together: how many clicks one core serves, whatever the
machine), event-loop lag inside the bot (its own CARO_LOOP_LAG_LOG reports, one per second),
database size and the RSS of the bots and of their AI worker processes.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import functools
import gc
import math
import os
import random
import re
import statistics
import string
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.game.cooldowns import Cooldown, Cooldowns
from bot.i18n.texts import EN, LOADED

# The scenario runs the real bot against the Discord double of the test kit (testkit/, which a
# clone has and an installed package does not); --help works without it.
try:
    from bot.game.games import Limits
    from testkit.clusters import deploy, resolve_database, split_shards
    from testkit.discord_double import InteractionFailed
    from testkit.faults import FINAL, child_pids, free_cells, settle, text_of
    from testkit.postgres import PostgresServer
except ModuleNotFoundError as exc:
    MISSING: ModuleNotFoundError | None = exc
else:
    MISSING = None
NEEDS = (
    "needs the repository's test kit (testkit/): run "
    "`.venv/bin/python -m bench.load` from the root of a clone"
)

# What a throwaway PostgreSQL server keeps on disk (see the module's docstring), as server
# settings over testkit/postgres.py's THROWAWAY_SETTINGS, with how the output names it.
DURABILITY: dict[str, tuple[dict[str, str], str]] = {
    "async": ({"fsync": "on", "full_page_writes": "on", "synchronous_commit": "off"},
              "synchronous_commit=off, fsync on"),
    "full": ({"fsync": "on", "full_page_writes": "on", "synchronous_commit": "on"},
             "synchronous_commit=on, fsync on: PostgreSQL's defaults"),
    "none": ({}, "fsync off: nothing durable"),
}
LAG_LINE = re.compile(r"loop lag over [\d.]+ s: max ([\d.]+) ms, p99 ([\d.]+) ms")
SIZE = "5x5"


class Pacer:
    """When a member may next use an action the bot puts a per-member cooldown on
    (bot.game.cooldowns.Cooldown: at most `rate` uses in a window of `per` seconds), so that the
    member never sends into it, as a person told "slow down" would not.

    The bot takes a use somewhere between its sending and its answer, and the member only sees
    those two moments. So each use counts from its answer, the latest moment the bot can have
    taken it, and a use goes only once the `rate`-th last one was answered `per` seconds ago:
    any `rate` + 1 uses in a row then lie at least `per` seconds apart in the bot too, and no
    window of the bot's can hold one more than `rate`. A use that was refused or failed counts
    all the same, as the bot may have counted it. One use at a time: the caller waits for each
    answer before the next use."""

    def __init__(self, cooldown: Cooldown) -> None:
        self.rate, self.per = cooldown.rate, cooldown.per
        self._answered: collections.deque[float] = collections.deque(maxlen=cooldown.rate)

    def ready_at(self) -> float:
        """The first moment (loop time) the next use may be sent."""
        if len(self._answered) < self.rate:
            return -math.inf
        return self._answered[0] + self.per

    def ready(self, now: float) -> bool:
        return now >= self.ready_at()

    def answered(self, at: float) -> None:
        """The bot answered a use (or it failed) at `at`."""
        self._answered.append(at)


def start_cooldown() -> Cooldown:
    """The bot's own cooldown on starting a game, as the bot builds it."""
    return Cooldowns().start


@dataclass
class Player:
    member: Any
    level: str
    starts: Pacer = field(default_factory=lambda: Pacer(start_cooldown()))
    message: Any = None
    busy: bool = False
    games: int = 0
    # What `board` last read, and from which message at which edit.
    _read: tuple[bool, bool] = (False, False)
    _read_from: tuple[int, int] = (0, -1)

    def board(self) -> tuple[bool, bool]:
        """(the game on the member's board has ended, it is the member's turn), from its
        headline. Read again only once the bot has edited the board: every seat is looked at
        every tick, and reading every headline each time was most of this process's CPU at
        hundreds of clicks a second, CPU the bot on the same machine then lacked."""
        message = self.message
        source = (id(message), message.edits)
        if source != self._read_from:
            text = headline(message)
            self._read = (any(final in text for final in FINAL), "Your turn" in text)
            self._read_from = source
        return self._read


@dataclass
class Seat:
    """One live game's place: its members (of one server, so that the server's count of AI games
    stays as it was) take turns to start its games, each only when their start cooldown lets
    them, so the seat is seldom empty while its members wait."""

    members: list[Player]
    turn: int = 0

    @property
    def player(self) -> Player:
        """The member whose game the seat holds, or who last started (or tried to)."""
        return self.members[self.turn]

    def next_ready(self, now: float) -> Player | None:
        """The next member in turn whose cooldown lets them start now (the seat's turn moves to
        them), or None."""
        for step in range(1, len(self.members) + 1):
            index = (self.turn + step) % len(self.members)
            if self.members[index].starts.ready(now):
                self.turn = index
                return self.members[index]
        return None


@dataclass
class Figures:
    click_ms: list[float] = field(default_factory=list)
    # click_ms split: the clicks that ended their game (the result and ratings written too)
    ending_ms: list[float] = field(default_factory=list)
    other_ms: list[float] = field(default_factory=list)
    start_ms: list[float] = field(default_factory=list)
    failed: int = 0
    # (what was refused: "click" or "start", why: the text id of the bot's private answer)
    refusals: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)
    finished: int = 0
    idle_ticks: int = 0  # pacer ticks when no board was waiting for its player
    # pacer ticks when a seat had no game and none of its members' cooldowns let them start
    cooling_ticks: int = 0
    live_samples: list[int] = field(default_factory=list)  # live games, once a second
    # How late each tick ran, and the ticks dropped for it: this process short of CPU sends
    # fewer clicks than asked.
    late_ms: list[float] = field(default_factory=list)
    dropped_ticks: int = 0

    @property
    def acks(self) -> int:
        return len(self.click_ms) + len(self.start_ms)

    @property
    def refused(self) -> int:
        return sum(self.refusals.values())


@functools.cache
def reply_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Every English text of the bot as a pattern of its filled-in form, with its text id; the
    ones with more words of their own first, so that a text is not taken for a shorter one that
    its values happen to fit."""
    found: list[tuple[int, str, re.Pattern[str]]] = []
    for key, templates in [*((k, (v,)) for k, v in EN.items()),
                           *LOADED.source_plurals.items()]:
        for template in templates:
            parts = list(string.Formatter().parse(template))
            literal = "".join(text for text, *_ in parts)
            if not literal.strip():
                continue  # a text that is only a value matches anything
            pattern = "".join(re.escape(text) + (".+?" if name is not None else "")
                              for text, name, *_ in parts)
            found.append((len(literal), key, re.compile(pattern, re.DOTALL)))
    found.sort(key=lambda entry: -entry[0])
    return [(key, pattern) for _, key, pattern in found]


def reason_of(text: str) -> str:
    """Why the bot refused, from the text of its private answer: the text id it chose
    (error.cooldown, click.not_your_turn, click.finished, error.storage_unavailable, ...), or
    the text itself where no text of the bot's has its shape."""
    text = text.strip()
    for key, pattern in reply_patterns():
        if pattern.fullmatch(text):
            return key
    return f"unknown: {text[:60]!r}"


def refusal_reason(result: Any) -> str:
    """The reason (reason_of) of a refused interaction's answer: its response's text, else the
    text of the message it made (a deferred answer's follow-up)."""
    text = result.content or ""
    if not text and result.message is not None:
        text = text_of(result.message)
    return reason_of(text) if text else f"no text (callback type {result.callback_type})"


def headline(message: Any) -> str:
    """The text that says whose turn it is: the content, or the first text display of a
    Components V2 message (cheaper than walking every component on every pacer tick)."""
    if message.content:
        return str(message.content)
    components = message.payload.get("components") or []
    first = components[0] if components else {}
    return str(first.get("content", "")) if first.get("type") == 10 else text_of(message)


def ended(message: Any) -> bool:
    """Whether the game on `message` has ended, from its headline alone: the pacer asks it of
    every board at every tick, and fault_helpers.is_over, which walks every component, took
    half this process's CPU there."""
    text = headline(message)
    return any(final in text for final in FINAL)


def pct(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def memory(pids: list[int]) -> tuple[list[float], list[float]]:
    """([RSS MB of each bot], [RSS MB of each child process: the AI workers and
    multiprocessing's helper])."""
    children = [c for pid in pids for c in child_pids(pid)]
    return [rss_kb(p) / 1024 for p in pids], [rss_kb(c) / 1024 for c in children]


def cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process so far, all its threads (from /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    return sum(cpu_split(pid))


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its children (a PostgreSQL server: one process per
    connection)."""
    total = 0.0
    for one in (pid, *child_pids(pid)):
        with contextlib.suppress(OSError):  # ended meanwhile
            total += cpu_seconds(one)
    return total


def megabytes(values: list[float]) -> str:
    return ", ".join(f"{m:.1f}" for m in values) + " MB"


async def start_game(player: Player, figures: Figures) -> None:
    player.busy = True
    loop = asyncio.get_running_loop()
    try:
        started = time.perf_counter()
        result = await player.member.slash("caro start", difficulty=player.level, size=SIZE)
        figures.start_ms.append((time.perf_counter() - started) * 1000)
        if result.ephemeral:
            figures.refusals["start", refusal_reason(result)] += 1
        else:
            player.message = result.message
            player.games += 1
    except InteractionFailed:
        figures.failed += 1
    finally:
        player.starts.answered(loop.time())
        player.busy = False


async def click(player: Player, rng: random.Random, figures: Figures) -> None:
    player.busy = True
    try:
        free = free_cells(player.message)
        if not free:
            return
        cell = rng.choice(free)
        started = time.perf_counter()
        result = await player.member.click(player.message, cell)
        elapsed = (time.perf_counter() - started) * 1000
        figures.click_ms.append(elapsed)
        (figures.ending_ms if ended(player.message) else figures.other_ms).append(elapsed)
        if result.callback_type != 7:
            figures.refusals["click", refusal_reason(result)] += 1
    except InteractionFailed:
        figures.failed += 1
    finally:
        player.busy = False


async def keep_live(players: list[Player], figures: Figures, concurrency: int) -> None:
    """Start games for every player without a live one whose start cooldown lets them,
    `concurrency` at a time."""
    gate = asyncio.Semaphore(concurrency)
    loop = asyncio.get_running_loop()

    async def one(player: Player) -> None:
        async with gate:
            if player.starts.ready(loop.time()):
                await start_game(player, figures)

    await asyncio.gather(*(one(p) for p in players if p.message is None))


def seats_of(members: list[Any], levels: list[str], per_seat: int) -> list[Seat]:
    """The seats of the live games: member i sits at seat i % seats with the seat's level, so a
    seat's members are of one server when the members were spread over the servers that way."""
    seats = [Seat([]) for _ in levels]
    for i, member in enumerate(members[:len(levels) * per_seat]):
        seats[i % len(levels)].members.append(Player(member, levels[i % len(levels)]))
    return seats


async def play(seats: list[Seat], rate: float, seconds: float, rng: random.Random) -> Figures:
    figures = Figures()
    tasks: set[asyncio.Task[None]] = set()
    loop = asyncio.get_running_loop()
    began = loop.time()
    sampled = began
    n = 0
    while loop.time() - began < seconds:
        n += 1
        await asyncio.sleep(max(0.0, began + n / rate - loop.time()))
        now = loop.time()
        late = now - began - n / rate
        figures.late_ms.append(late * 1000)
        if late >= 2 / rate:
            # The ticks this process had no CPU for are dropped, not sent in a burst once it
            # has: a burst of clicks the players never spaced would be timed as the bot's.
            dropped = int(late * rate)
            n += dropped
            figures.dropped_ticks += dropped
        for seat in seats:
            player = seat.player
            if player.busy:
                continue
            if player.message is not None:
                if not player.board()[0]:
                    continue
                figures.finished += 1
                player.message = None
            # The seat's game ended (or its start was refused): the next member whose start
            # cooldown allows it starts the next one; none is sent into a cooldown.
            starter = seat.next_ready(now)
            if starter is None:
                figures.cooling_ticks += 1
            else:
                tasks.add(loop.create_task(start_game(starter, figures)))
        # Content only: parsing every board's buttons each tick would make the pacer itself the
        # bottleneck on a busy machine.
        ready = [p for p in (s.player for s in seats)
                 if p.message is not None and not p.busy and p.board()[1]]
        if ready:
            tasks.add(loop.create_task(click(rng.choice(ready), rng, figures)))
        else:
            figures.idle_ticks += 1
        if now - sampled >= 1:
            sampled = now
            figures.live_samples.append(sum(s.player.message is not None for s in seats))
        tasks = {t for t in tasks if not t.done()}
    await asyncio.gather(*tasks)
    return figures


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No garbage collection in this process (the double and the players) while it measures.

    Its double keeps every message and request of the run, and its full collections stalled
    every click in flight for 50-170 ms at random moments: the p99 click -> response measured
    those stalls, not the bot (a run's worst clicks fell on them). What is alive is frozen out
    of later collections and none runs until the end; the bot's own collector is untouched."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def rest_call_kinds(requests: list[Any]) -> collections.Counter[str]:
    """The bot's REST calls by kind: the path with its ids and tokens taken out."""
    kinds: collections.Counter[str] = collections.Counter()
    for request in requests:
        parts = request.path.strip("/").split("/")
        if parts[0] == "interactions":
            kind = "interaction response"
        elif parts[0] == "webhooks":
            kind = f"{request.method} follow-up" + (" edit" if "messages" in parts else "")
        else:
            kind = request.method + " /" + "/".join("{id}" if p.isdigit() else p for p in parts)
        kinds[kind] += 1
    return kinds


def lag_reports(log: str) -> list[tuple[float, float]]:
    return [(float(m.group(1)), float(m.group(2))) for m in LAG_LINE.finditer(log)]


@dataclass(frozen=True)
class Run:
    """One measured setup: a database as --database names it, and for a throwaway PostgreSQL
    server its durability (a key of DURABILITY)."""

    database: str
    durability: str | None = None

    @property
    def throwaway(self) -> bool:
        return self.database in ("postgresql", "postgres")

    @property
    def label(self) -> str:
        if self.throwaway:
            return f"PostgreSQL ({self.durability})"
        return "PostgreSQL" if "://" in self.database and not self.database.startswith(
            "sqlite") else "SQLite"


@dataclass
class Result:
    rows: list[tuple[str, str]]
    problems: list[str]
    click_ms: list[float]
    statements: list[str] = field(default_factory=list)
    bot_cpu_ms_per_click: float = float("nan")
    refusals: collections.Counter[tuple[str, str]] = field(default_factory=collections.Counter)


def runs_of(args: argparse.Namespace) -> list[Run]:
    runs: list[Run] = []
    for database in (d.strip() for d in args.database.split(",")):
        if database in ("postgresql", "postgres"):
            runs += [Run(database, d) for d in args.pg_durability]
        elif database:
            runs.append(Run(database))
    return runs


async def main(args: argparse.Namespace) -> int:
    runs = runs_of(args)
    if not runs:
        print("python -m bench.load: --database names no database", file=sys.stderr)
        return 2
    # Round after round, every other one in reverse order: a burst of other work on the machine,
    # or whatever the first run of an invocation pays, does not always fall on the same database.
    order = [(n, run) for n in range(args.rounds)
             for run in (runs if n % 2 == 0 else runs[::-1])]
    results: list[Result] = []
    for step, (n, run) in enumerate(order, start=1):
        if len(order) > 1:
            print(f"run {step} of {len(order)}: {label_of(run, n, args.rounds)} ...",
                  file=sys.stderr, flush=True)
        result = await measure(args, run)
        if result is None:
            return 2
        results.append(result)
    labels = [label_of(run, n, args.rounds) for n, run in order]
    keys = list(dict.fromkeys(k for r in results for k, _ in r.rows))
    table = [dict(r.rows) for r in results]
    ratios: dict[str, list[float]] = {}
    if len(runs) > 1:
        base_label = next((run.label for run in runs if run.label == "SQLite"), runs[0].label)
        keys.append(f"p99 / p99 of {base_label} (same round)")
        for (n, run), r, shown in zip(order, results, table, strict=True):
            base = next(b for (m, other), b in zip(order, results, strict=True)
                        if m == n and other.label == base_label)
            ratio = pct(r.click_ms, 0.99) / pct(base.click_ms, 0.99)
            shown[keys[-1]] = f"{ratio:.2f}x"
            ratios.setdefault(run.label, []).append(ratio)
    width = max(len(k) for k in keys)
    if len(results) == 1:
        for key in keys:
            print(f"{key:<{width}}  {table[0].get(key, '')}")
    else:
        # One column per run: the rows are long, so each value goes on its own line under its key.
        for key in keys:
            print(key)
            for label, shown in zip(labels, table, strict=True):
                if key in shown:
                    print(f"    {label:<26} {shown[key]}")
    for label, r in zip(labels, results, strict=True):
        print(f"refused, by reason (the target is none), {label}:")
        for line in refusal_table(r.refusals):
            print(f"    {line}")
    for label, r in zip(labels, results, strict=True):
        if r.statements:
            print(f"statements per acknowledged click, {label}:")
            for line in r.statements:
                print(f"    {line}")
    if args.rounds > 1 and ratios:
        # Besides the median of the rounds' ratios, the p99 of every round's clicks together: one
        # round's burst of other work on the machine weighs in once, in proportion.
        pooled: dict[str, list[float]] = {}
        for (_, run), r in zip(order, results, strict=True):
            pooled.setdefault(run.label, []).extend(r.click_ms)
        base_p99 = pct(pooled[base_label], 0.99)
        print(f"p99 / p99 of {base_label}: per round; median of the rounds; all rounds' clicks"
              " together (their p99)")
        for label, values in ratios.items():
            shown_values = ", ".join(f"{v:.2f}x" for v in values)
            all_p99 = pct(pooled[label], 0.99)
            print(f"    {label:<22} {shown_values}; median {statistics.median(values):.2f}x;"
                  f" together {all_p99 / base_p99:.2f}x ({all_p99:.1f} ms)")
    problems = [p for r in results for p in r.problems]
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


def label_of(run: Run, round_: int, rounds: int) -> str:
    return run.label if rounds == 1 else f"{run.label} #{round_ + 1}"


def throwaway_server(run: Run, statements: bool, workdir: Path) -> tuple[str, PostgresServer]:
    """A new PostgreSQL server with the run's durability and an empty database for the bot."""
    settings = dict(DURABILITY[run.durability or "async"][0])
    if statements:
        settings["shared_preload_libraries"] = "pg_stat_statements"
    url, server = resolve_database("postgresql", workdir, settings)
    assert server is not None
    return url, server


async def statement_counts(server: PostgresServer, clicks: int) -> list[str]:
    """The statements the bot ran since the last reset, per acknowledged click, most frequent
    first (BEGIN and COMMIT included: each is a round trip)."""
    rows = await in_maintenance_db(
        server,
        "SELECT s.query, s.calls, s.total_exec_time FROM pg_stat_statements s"
        " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'caro_bench'"
        " ORDER BY s.calls DESC",
    )
    per = max(1, clicks)
    total = sum(int(r["calls"]) for r in rows)
    lines = [f"{total / per:.2f} in all ({total} statements, {clicks} clicks); the most run:"]
    for r in rows[:12]:
        query = " ".join(str(r["query"]).split())
        query = query if len(query) <= 90 else query[:87] + "..."
        lines.append(f"{int(r['calls']) / per:6.2f}  {float(r['total_exec_time']) / max(1, int(r['calls'])):.3f} ms"
                     f"  {query}")
    return lines


async def in_maintenance_db(server: PostgresServer, sql: str) -> list[Any]:
    """Run one statement in the server's maintenance database, where pg_stat_statements is
    created and read (the bot's database stays as the bot made it); its rows."""
    import asyncpg  # type: ignore[import-untyped]

    con = await asyncpg.connect(server.dsn("postgres"))
    try:
        return list(await con.fetch(sql))
    finally:
        await con.close()


async def measure(args: argparse.Namespace, run: Run) -> Result | None:
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="caro-load-"))
    shard_count = args.clusters * args.shards_per_cluster
    most = max(args.games, args.idle_games)
    per_server = Limits().ai_games_per_server
    guilds_per_shard = max(1, math.ceil(math.ceil(most / per_server) / shard_count))
    server: PostgresServer | None = None
    database = run.database
    if run.throwaway:
        database, server = throwaway_server(run, args.pg_statements, workdir)
        if args.pg_statements:
            await in_maintenance_db(server, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    try:
        deployment = await deploy(
            workdir, layout=split_shards(args.clusters, args.shards_per_cluster),
            shard_count=shard_count, database=database, guilds_per_shard=guilds_per_shard,
            CARO_LOOP_LAG_LOG="1", CARO_LOG_LEVEL="INFO",
            CARO_FAST_DRAWING="0" if args.plain_drawing else "1",
        )
    except ValueError as exc:
        if server is not None:
            server.stop()
        print(f"python -m bench.load: {exc}", file=sys.stderr)
        return None
    except BaseException:
        if server is not None:
            server.stop()
        raise
    double = deployment.double
    pids = deployment.pids()
    server_pid = server.pid() if server is not None else None
    backend = "PostgreSQL" if deployment.database.is_postgres else "SQLite"
    if server is not None:
        backend += f" (throwaway server: {DURABILITY[run.durability or 'async'][1]})"
    elif not deployment.database.is_postgres:
        backend += " (WAL, synchronous=NORMAL)"
    rows: list[tuple[str, str]] = [
        ("database", backend),
        ("clusters", f"{args.clusters} of {args.shards_per_cluster} shard(s), "
                     f"{guilds_per_shard} guild(s) per shard"),
        ("drawing", "plain discord.ui (CARO_FAST_DRAWING=0)" if args.plain_drawing
         else "fast (CARO_FAST_DRAWING=1)"),
    ]
    statements: list[str] = []
    clicks: list[float] = []
    # What the bot refused (setup, clicking, the idle games' starts), by what and why.
    refusals: collections.Counter[tuple[str, str]] = collections.Counter()
    cpu_per_click = float("nan")
    try:
        await asyncio.sleep(2)  # AI workers warm up
        guilds = deployment.guilds
        # Member i sits at seat i % games, and seat j's members are all of server j % guilds.
        seats = seats_of(
            [double.add_member(f"p{i}", guild_id=guilds[i % args.games % len(guilds)])
             for i in range(args.games * args.members_per_game)],
            ["hard" if j < args.hard else "easy" for j in range(args.games)],
            args.members_per_game)
        players = [seat.player for seat in seats]
        t0 = time.perf_counter()
        setup = Figures()
        await keep_live(players, setup, concurrency=20)
        live = sum(p.message is not None for p in players)
        rows.append(("games started (setup)", f"{live} in {time.perf_counter() - t0:.1f} s, "
                     f"slash p50 {pct(setup.start_ms, 0.5):.0f} ms, "
                     f"p99 {pct(setup.start_ms, 0.99):.0f} ms"))

        logs_before = [len(c.log_text()) for c in deployment.clusters]
        t0 = time.perf_counter()
        workers = [c for pid in pids for c in child_pids(pid)]

        def cpu() -> tuple[float, float, float, float, float]:
            bots = [cpu_split(pid) for pid in pids]
            return (sum(user + system for user, system in bots), cpu_seconds(os.getpid()),
                    sum(map(cpu_seconds, workers)),
                    tree_cpu(server_pid) if server_pid is not None else 0.0,
                    sum(system for _user, system in bots))

        if server is not None and args.pg_statements:
            await in_maintenance_db(server, "SELECT pg_stat_statements_reset()")
        cpu0 = cpu()
        requests_before = len(double.requests)
        with collections_paused():
            figures = await play(seats, args.rate, args.duration, rng)
        elapsed = time.perf_counter() - t0
        cpu1 = cpu()
        rest_calls = rest_call_kinds(double.requests[requests_before:])
        if server is not None and args.pg_statements:
            statements = await statement_counts(server, len(figures.click_ms))
        lags = [lag for c, before in zip(deployment.clusters, logs_before, strict=True)
                for lag in lag_reports(c.log_text()[before:])]
        bot_mb, child_mb = memory(pids)
        clicks = figures.click_ms
        refusals += setup.refusals + figures.refusals
        bot_cpu_ms = (cpu1[0] - cpu0[0]) * 1000
        if clicks:
            cpu_per_click = bot_cpu_ms / len(clicks)
        rows += [
            ("live games", f"{args.games} ({args.hard} at hard, the rest easy; {SIZE} k4)"),
            ("target click rate", f"{args.rate:g}/s for {args.duration:g} s"),
            ("clicks acknowledged", f"{len(clicks)} ({len(clicks) / elapsed:.1f}/s)"),
            ("acks/second (clicks + starts)", f"{figures.acks / elapsed:.1f}"),
            ("click -> response p50", f"{pct(clicks, 0.5):.1f} ms"),
            ("click -> response p99", f"{pct(clicks, 0.99):.1f} ms"),
            ("click -> response p99, clicks that end the game",
             f"{pct(figures.ending_ms, 0.99):.1f} ms ({len(figures.ending_ms)} clicks, "
             f"p50 {pct(figures.ending_ms, 0.5):.1f} ms); the others "
             f"{pct(figures.other_ms, 0.99):.1f} ms"),
            ("click -> response max", f"{max(clicks, default=float('nan')):.1f} ms"),
            ("/caro start -> response p99", f"{pct(figures.start_ms, 0.99):.1f} ms"),
            ("games finished and replaced", str(figures.finished)),
            ("live games, sampled each second",
             f"median {statistics.median(figures.live_samples) if figures.live_samples else 0:g}, "
             f"min {min(figures.live_samples, default=0)}"),
            ("clicks not sent: no board waiting", str(figures.idle_ticks)),
            ("ticks late (this process short of CPU) p50 / p99",
             f"{pct(figures.late_ms, 0.5):.1f} / {pct(figures.late_ms, 0.99):.1f} ms"),
            ("clicks not sent: ticks dropped for lateness", str(figures.dropped_ticks)),
            ("seat ticks waiting for a start cooldown", str(figures.cooling_ticks)),
            ("refused / failed interactions", f"{figures.refused + setup.refused} / "
                                              f"{figures.failed + setup.failed}"),
            ("loop lag max (bot, 1 s reports)",
             f"{max((m for m, _ in lags), default=float('nan')):.1f} ms ({len(lags)} reports)"),
            ("loop lag p99 (worst 1 s window)",
             f"{max((p for _, p in lags), default=float('nan')):.1f} ms"),
            ("loop lag p99 (median 1 s window)",
             f"{statistics.median(p for _, p in lags) if lags else float('nan'):.1f} ms"),
            ("bot CPU per acknowledged click",
             f"{cpu_per_click:.2f} ms "
             f"(per ack, starts included: "
             f"{bot_cpu_ms / figures.acks if figures.acks else float('nan'):.2f} ms; "
             # The kernel's share: system calls (sockets, pipes, thread wake-ups) per click.
             f"system time {(cpu1[4] - cpu0[4]) * 1000 / max(1, len(clicks)):.2f} ms)"),
            ("REST calls per acknowledged click",
             f"{sum(rest_calls.values()) / max(1, len(clicks)):.2f} ("
             + ", ".join(f"{kind} {n / max(1, len(clicks)):.2f}"
                         for kind, n in rest_calls.most_common()) + ")"),
            ("bot CPU while clicking (all clusters)",
             f"{(cpu1[0] - cpu0[0]) / elapsed * 100:.0f}% of a core"),
            ("AI worker processes CPU (together)",
             f"{(cpu1[2] - cpu0[2]) / elapsed * 100:.0f}% of a core"),
        ]
        if server_pid is not None:
            rows.append(("PostgreSQL server CPU",
                         f"{(cpu1[3] - cpu0[3]) / elapsed * 100:.0f}% of a core, "
                         f"{(cpu1[3] - cpu0[3]) * 1000 / max(1, len(clicks)):.2f} ms per click"))
        rows += [
            ("this process (double + players) CPU",
             f"{(cpu1[1] - cpu0[1]) / elapsed * 100:.0f}% of a core"),
            ("machine load average (1 min)", f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"),
            (f"bot RSS with {args.games} live games", megabytes(bot_mb)),
            ("AI worker RSS", megabytes(child_mb)),
            ("database size", f"{await deployment.database.size_mb():.2f} MB"),
        ]

        if args.idle_games > args.games:
            extra = [Player(double.add_member(f"q{i}", guild_id=guilds[i % len(guilds)]), "easy")
                     for i in range(args.idle_games - args.games)]
            t0 = time.perf_counter()
            more = Figures()
            await keep_live(extra, more, concurrency=20)
            refusals += more.refusals
            live = sum(p.message is not None and not ended(p.message)
                       for p in [seat.player for seat in seats] + extra)
            await asyncio.sleep(2)
            bot_mb, child_mb = memory(pids)
            rows += [
                ("more games started",
                 f"{len(more.start_ms)} in {time.perf_counter() - t0:.1f} s, "
                 f"p99 {pct(more.start_ms, 0.99):.0f} ms"),
                (f"bot RSS with {live} live games", megabytes(bot_mb)),
                ("AI worker RSS (idle)", megabytes(child_mb)),
                ("database size", f"{await deployment.database.size_mb():.2f} MB"),
            ]
        rows.append(("Discord rule violations", str(len(double.violations))))
        await settle(double)  # let the last AI answers land before the bots are stopped
    finally:
        problems = await deployment.close(allow_violations=True)
        if server is not None:
            server.stop()
    rows.append(("bot logs and database", str(workdir)))
    if refusals:
        # The players do only what a member may (their turn, within the cooldowns): a refusal
        # means the bot said no to a member who did nothing wrong.
        problems.append(f"{run.label}: {sum(refusals.values())} interaction(s) refused: "
                        + ", ".join(f"{what} {why} {n}"
                                    for (what, why), n in refusals.most_common()))
    return Result(rows, problems + [str(v) for v in double.violations[:5]], clicks, statements,
                  cpu_per_click, refusals)


def refusal_table(refusals: collections.Counter[tuple[str, str]]) -> list[str]:
    """The refusals by reason, one line each, most first: how many, of what, the text id of the
    bot's answer and its English text."""
    if not refusals:
        return ["none"]
    return [f"{n:6}  {what:<5}  {why}" + (f"  ({EN[why]})" if why in EN else "")
            for (what, why), n in refusals.most_common()]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n")[0],
                                     epilog=f"This benchmark {NEEDS}.")
    parser.add_argument("--games", type=int, default=200, help="live games while clicking")
    parser.add_argument("--rate", type=float, default=50, help="clicks per second")
    parser.add_argument("--duration", type=float, default=30, help="seconds of clicking")
    parser.add_argument("--hard", type=int, default=10, help="how many of the games are at hard")
    parser.add_argument("--members-per-game", type=positive, default=3,
                        help="members who take turns to start each live game's next one, each "
                        "within the bot's start cooldown")
    parser.add_argument("--idle-games", type=int, default=1000,
                        help="then start games until this many are live, and measure memory")
    parser.add_argument("--database", default="sqlite",
                        help="sqlite (a new file), an SQLite path, postgresql (a throwaway "
                        "server) or a postgresql:// URL of an empty database; several, "
                        "comma-separated, are measured one after the other and compared")
    parser.add_argument("--pg-durability", type=durabilities, default=["async"],
                        help="for a throwaway PostgreSQL server: async (synchronous_commit=off, "
                        "the default), full (PostgreSQL's defaults) or none (fsync off); "
                        "several, comma-separated, are each measured")
    parser.add_argument("--pg-statements", action="store_true",
                        help="count the statements per click with pg_stat_statements "
                        "(throwaway PostgreSQL server only)")
    parser.add_argument("--clusters", type=positive, default=1,
                        help="bot processes (cluster) sharing the database; >1 needs PostgreSQL")
    parser.add_argument("--shards-per-cluster", type=positive, default=1)
    parser.add_argument("--rounds", type=positive, default=1,
                        help="measure the --database list this many times, every other round "
                        "in reverse order, and print the median p99 ratio")
    parser.add_argument("--plain-drawing", action="store_true",
                        help="run the bot with CARO_FAST_DRAWING=0: boards as plain discord.ui "
                        "items, discord.py's responses unpatched")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args(argv)


def durabilities(text: str) -> list[str]:
    chosen = [d.strip() for d in text.split(",") if d.strip()]
    unknown = [d for d in chosen if d not in DURABILITY]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"expected {', '.join(DURABILITY)} (comma-separated), got {text}")
    return chosen


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1, got {text}")
    return value


if __name__ == "__main__":
    arguments = parse_args()
    if MISSING is not None:
        sys.exit(f"python -m bench.load {NEEDS} (missing: {MISSING.name}).")
    sys.exit(asyncio.run(main(arguments)))
