"""Soak run: a busy community for an hour on PostgreSQL, with faults on a schedule, then an audit.

    python -m bench.soak                       # 60 min, 4 processes x 4 shards, 1,000 servers
    python -m bench.soak --minutes 20 --rate 60
    python -m bench.soak --short               # the CI variant: under 3 minutes in all

The real bot runs as `--processes` cluster processes of `--shards` shards each on one throwaway
PostgreSQL server (testkit/postgres.py), against the Discord double with `--servers` servers
spread over the shards. Members of those servers, all driven from this process, do what a
community does:

* games against the AI (`--seats` boards kept live, sizes 3x3 to 7x7, easy and normal, some
  casual with a /caro takeback now and then), clicked at `--rate` clicks per second in all by a
  pacer like bench.load's: a member clicks only on their turn and starts games within the bot's
  start cooldown;
* games between members: a /caro challenge, accepted with the button, played out; rated ones
  and casual ones, where the member who just moved asks for a takeback and the other accepts;
* tournaments of each format (round robin, Swiss, arena), each in a channel of its own, of AI
  entries and members who play their boards; a new one of the format once one is over, and
  those still under way at the end are cancelled;
* puzzles (/caro puzzle play) and daily puzzles (/caro puzzle daily), given up: a rated failure;
* replays and reviews of finished games, /caro stats and /caro leaderboard;
* settings: members change their board theme; and the season boundary (below).

The season boundary is crossed through the bot's own configuration: `--season-at` into the run
an administrator of every server changes its season length with /caro settings from monthly
(the default: the season is named after the month, "2026-11") to quarterly ("2026-Q4"). Every
game finished after that counts in the new season, whose ratings start from the soft reset of the
member's last one (bot.game.seasons), exactly as at a month's end; nothing in the bot knows it is
a benchmark, and no clock is moved.

Faults, on a schedule (seconds into the run): a SIGKILL of a random cluster process every
`--kill-every` (it is restarted at once and its members wait until it is ready), a PostgreSQL
restart (pg_ctl stop -m fast, then start) every `--pg-restart-every`, and one database outage of
`--outage-seconds` at `--outage-at`.

At the end the audit, one line per check with PASS or FAIL (exit status 1 on any FAIL):
every acknowledged move stored exactly once, every finished rated game counted once in the
all-time and season standings (each member's wins/draws/losses recomputed from the stored games
and compared, and each rating chain checked from its start to the standing), every tournament's
posts made exactly once, every puzzle attempt rated once, no Discord rule violation, no
traceback in any log, no interaction answered after Discord's 3-s deadline (those in flight to a
process when it was killed are counted apart: nobody can answer them), memory of each process
lifetime after warm-up, rows per finished game, and click p99 and bot CPU per click in the first
window (`--window`, an hour by default) against the last.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import itertools
import math
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from bench import load
from bot.game.cooldowns import Cooldowns
from bot.game.ratings import START_RATING
from bot.game.seasons import soft_reset

try:
    from testkit.clusters import Cluster, Deployment, deploy, split_shards
    from testkit.discord_double import InteractionFailed
    from testkit.faults import free_cells, settle, text_of
    from testkit.members import MANAGE_GUILD
except ModuleNotFoundError as exc:
    MISSING: ModuleNotFoundError | None = exc
else:
    MISSING = None
NEEDS = (
    "needs the repository's test kit (testkit/) and PostgreSQL: run "
    "`.venv/bin/python -m bench.soak` from the root of a clone"
)

AI_SIZES = ("3x3", "4x4", "5x5", "7x7k4")
CASUAL_AI_EVERY = 5  # every fifth AI seat plays casual games (rated=False) and takes back moves
PVP_SIZE = "5x5k4"
TOURNAMENT_SIZE = "3x3"
FORMATS = ("round_robin", "swiss", "arena")
MOVER = re.compile(r"<@!?(\d+)> to move")
TOURNAMENT_ID = re.compile(r"Tournament #(\d+)")
THEMES = ("paper", "night", "classic")
FINAL_MARKS = ("**You win!**", "**The AI wins.**", "**Draw.**")
PVP_FINAL = (" wins", "Draw", "resigned", "ran out of time")
# Refusals a member may get while a fault is on: the bot says the database is unavailable.
FAULT_REASONS = {"error.storage_unavailable"}


class Down(Exception):
    """The member's server is on a cluster process that is down (killed, restarting): a person
    would see the bot offline and wait."""


@dataclass
class Window:
    """Figures of one time window of the run."""

    click_ms: list[float] = field(default_factory=list)
    bot_cpu_s: float = 0.0


@dataclass
class Lifetime:
    """One bot process's life: its cluster, pid, and RSS samples (seconds into the run, MB)."""

    cluster: str
    pid: int
    started: float
    samples: list[tuple[float, float]] = field(default_factory=list)
    cpu_last: float = 0.0


@dataclass
class Interaction:
    cluster: str
    started: float
    ended: float
    failed: bool


class Soak:
    def __init__(self, args: argparse.Namespace, deployment: Deployment, rng: random.Random,
                 server: Any) -> None:
        self.args = args
        self.deployment = deployment
        self.double = deployment.double
        self.server = server
        self.rng = rng
        self.loop = asyncio.get_running_loop()
        self.began = self.loop.time()
        self.until = self.began + args.minutes * 60
        self.cluster_of = {g: deployment.cluster_of(g) for g in deployment.guilds}
        # The servers in turn from each shard (the deployment lists them shard by shard), so
        # that the first n of them, where the members play, are on every process.
        shards = collections.defaultdict(list)
        for g in deployment.guilds:
            shards[self.double.shard_of(g, len(deployment.clusters) * args.shards)].append(g)
        self.guilds = [g for row in itertools.zip_longest(*shards.values()) for g in row
                       if g is not None]
        self.up = {c.name: True for c in deployment.clusters}
        self.kills: list[tuple[str, float]] = []
        self.pg_restarts: list[float] = []
        self.refused_starts: list[tuple[str, float, int]] = []  # (cluster, when, exit status)
        self.outages: list[tuple[float, float]] = []
        self.crashed: list[str] = []
        self.database_fault = asyncio.Lock()
        self.season_switched: tuple[float, float] | None = None
        self.interactions: list[Interaction] = []
        self.refusals: collections.Counter[tuple[str, str]] = collections.Counter()
        self.fault_refusals: collections.Counter[tuple[str, str]] = collections.Counter()
        self.skipped_down = 0
        self.acked: list[tuple[int, int, str]] = []
        self.activity: collections.Counter[str] = collections.Counter()
        self.windows: list[Window] = []
        self.lifetimes: list[Lifetime] = []
        self.tournaments: dict[int, tuple[str, str]] = {}  # id -> (format, channel)
        self.finished_games: set[int] = set()
        self.stuck_boards = 0
        self.last_refusal = ""
        self.reposted: list[str] = []  # boards found out of date and reposted with /caro board
        self.problems: list[str] = []
        self.rows_at_warmup: dict[str, int] = {}
        self.finished_at_warmup = 0

    # ------------------------------------------------------------------ time and interactions
    def now(self) -> float:
        return float(self.loop.time() - self.began)

    def running(self) -> bool:
        return bool(self.loop.time() < self.until)

    def window(self) -> Window:
        last = max(1, round(self.args.minutes * 60 / self.args.window)) - 1
        index = min(int(self.now() // self.args.window), last)
        while len(self.windows) <= index:
            self.windows.append(Window())
        window: Window = self.windows[index]
        return window

    def fault_on(self) -> bool:
        """A database fault is under way (or just ended: the bot's pool reconnects)."""
        now = self.now()
        return any(start - 1 <= now <= end + 5 for start, end in self.outages) or any(
            at - 1 <= now <= at + 10 for at in self.pg_restarts)

    async def act(self, what: str, guild: str, call: Callable[[], Awaitable[Any]]) -> Any:
        """One interaction of a member of `guild`: refused with Down when its process is down;
        timed, and put down to its process for the deadline check."""
        cluster = self.cluster_of[guild]
        if not self.up[cluster.name]:
            self.skipped_down += 1
            raise Down
        started = self.now()
        try:
            result = await call()
        except InteractionFailed:
            self.interactions.append(Interaction(cluster.name, started, self.now(), True))
            raise
        except AssertionError as exc:
            if "no bot session" in str(exc):  # killed between the check and the send
                self.skipped_down += 1
                raise Down from exc
            raise
        self.interactions.append(Interaction(cluster.name, started, self.now(), False))
        self.activity[what] += 1
        if result.ephemeral and what not in ("takeback", "settings", "season", "stats",
                                              "leaderboard", "add_ai", "replay", "review"):
            reason = load.refusal_reason(result)
            (self.fault_refusals if self.fault_on() else self.refusals)[what, reason] += 1
        return result

    async def clicked(self, what: str, guild: str, member: Any, message: Any,
                      custom_id: str) -> bool:
        """A click on a board's cell; True if the bot acknowledged it with the board's update
        (the move is then the member's acknowledged move). The reason of a refusal is kept in
        `last_refusal`."""
        self.last_refusal = ""
        started = time.perf_counter()
        result = await self.act(what, guild, partial(member.click_custom_id, message, custom_id))
        ms = (time.perf_counter() - started) * 1000
        self.window().click_ms.append(ms)
        if result.callback_type == 7 and not result.ephemeral:
            _, _, game, ply, cell = custom_id.split(":")
            self.acked.append((int(game), int(ply), cell))
            return True
        reason = load.refusal_reason(result)
        (self.fault_refusals if self.fault_on() else self.refusals)[what, reason] += 1
        self.last_refusal = reason
        return False

    async def pause(self, low: float, high: float) -> None:
        await asyncio.sleep(self.rng.uniform(low, high))

    # ------------------------------------------------------------------ games against the AI
    async def ai_games(self) -> None:
        """The seats of games against the AI, clicked at `--rate` per second in all."""
        guilds = self.guilds
        seats = []
        for i in range(self.args.seats):
            guild = guilds[i % len(guilds)]
            seats.append(AiSeat(
                [self.double.add_member(f"s{i}m{m}", guild_id=guild) for m in range(3)],
                guild, AI_SIZES[i % len(AI_SIZES)], "normal" if i % 7 == 3 else "easy",
                rated=i % CASUAL_AI_EVERY != 0))
        # The seats' first games start over the first seconds, as a community's members come
        # by one after the other, not all in the processes' first second.
        ramp = min(20.0, 0.1 * self.args.minutes * 60)
        first_start = {id(seat): self.began + ramp * i / len(seats)
                       for i, seat in enumerate(seats)}
        tasks: set[asyncio.Task[None]] = set()
        n = 0
        rate = self.args.rate
        began = self.loop.time()
        while self.running():
            n += 1
            await asyncio.sleep(max(0.0, began + n / rate - self.loop.time()))
            late = self.loop.time() - began - n / rate
            if late >= 2 / rate:
                n += int(late * rate)  # ticks this process had no CPU for are dropped
            now = self.loop.time()
            ready = []
            for seat in seats:
                if seat.busy or not self.up[self.cluster_of[seat.guild].name]:
                    continue
                if seat.message is None:
                    if seat.pacer().ready(now) and now >= first_start[id(seat)]:
                        tasks.add(self.loop.create_task(self.start_ai(seat)))
                    continue
                over, mine = seat.board()
                if over:
                    self.finished_games.add(seat.game)
                    seat.message = None
                elif mine:
                    ready.append(seat)
                elif now - seat.changed_at() > 120:
                    # Not the member's turn for two minutes: the board did not come back.
                    self.stuck_boards += 1
                    self.problems.append(f"board of game {seat.game} stuck: "
                                         f"{load.headline(seat.message)[:80]!r}")
                    seat.message = None
                    seat.turn = (seat.turn + 1) % len(seat.members)
            if ready:
                tasks.add(self.loop.create_task(self.click_ai(self.rng.choice(ready))))
            tasks = {t for t in tasks if not t.done()}
        await asyncio.gather(*tasks, return_exceptions=True)

    async def start_ai(self, seat: AiSeat) -> None:
        seat.busy = True
        member = seat.members[seat.turn]
        try:
            result = await self.act("start", seat.guild, partial(member.slash,
                "caro start", difficulty=seat.level, size=seat.size, rated=seat.rated))
            if not result.ephemeral and result.message is not None:
                seat.message = result.message
                seat.game = int(free_cells(result.message)[0].split(":")[2]) \
                    if free_cells(result.message) else 0
        except (Down, InteractionFailed):
            pass
        finally:
            seat.pacer().answered(self.loop.time())
            seat.busy = False
            if seat.message is None:
                seat.turn = (seat.turn + 1) % len(seat.members)

    async def click_ai(self, seat: AiSeat) -> None:
        seat.busy = True
        try:
            free = free_cells(seat.message)
            if not free:
                return
            custom_id = self.rng.choice(free)
            seat.game = int(custom_id.split(":")[2])
            member = seat.members[seat.turn]
            ok = await self.clicked("click", seat.guild, member, seat.message, custom_id)
            if ok and not seat.rated and self.rng.random() < 0.15:
                await asyncio.sleep(1.0)  # the AI's answer, then take both back
                if not seat.board()[0]:
                    await self.act("takeback", seat.guild, partial(member.slash, "caro takeback"))
        except (Down, InteractionFailed):
            pass
        finally:
            seat.busy = False

    # ------------------------------------------------------------------ games between members
    async def pvp(self, index: int) -> None:
        guild = self.guilds[(index * 7 + 3) % len(self.guilds)]
        a, b = (self.double.add_member(f"pvp{index}{side}", guild_id=guild) for side in "ab")
        pacer = load.Pacer(Cooldowns().challenge)
        rated = index % 2 == 0
        while self.running():
            try:
                await asyncio.sleep(max(0.0, pacer.ready_at() - self.loop.time()))
                challenger, opponent = (a, b) if self.rng.random() < 0.5 else (b, a)
                try:
                    made = await self.act("challenge", guild, partial(challenger.slash,
                        "caro challenge", opponent=opponent, size=PVP_SIZE, rated=rated))
                finally:
                    pacer.answered(self.loop.time())
                if made.ephemeral or made.message is None:
                    await self.pause(2, 5)
                    continue
                board = made.message
                answer = await self.act("accept", guild, partial(opponent.click, board, "Accept"))
                if answer.callback_type != 7:
                    continue
                await self.play_pvp(guild, board, {a.id: a, b.id: b}, casual=not rated)
                rated = not rated if index % 3 == 0 else rated
            except (Down, InteractionFailed):
                await self.pause(2, 5)
            except AssertionError as exc:  # a disabled button after a redraw, and the like
                self.activity["pvp: " + str(exc)[:40]] += 1
                await self.pause(1, 3)

    async def play_pvp(self, guild: str, board: Any, members: dict[str, Any],
                       casual: bool) -> None:
        changed = self.loop.time()
        edits = board.edits
        while self.running():
            await self.pause(0.3, 1.0)
            if board.edits != edits:
                edits, changed = board.edits, self.loop.time()
            # The whole text: a members' board says whose move it is below its headline.
            found = MOVER.search(text_of(board))
            if found is None:
                game = game_of(board)
                if game is not None:
                    self.finished_games.add(game)
                return
            if self.loop.time() - changed > 150:
                self.stuck_boards += 1
                self.problems.append(f"members' board stuck: {load.headline(board)[:80]!r}")
                return
            mover = members.get(found.group(1))
            free = free_cells(board)
            if mover is None or not free:
                continue
            if not self.up[self.cluster_of[guild].name]:
                continue
            ok = await self.clicked("pvp click", guild, mover, board, self.rng.choice(free))
            if not ok and self.last_refusal == "click.stale" and not self.fault_on():
                # The board shows an older move than the game has stored (its last update was
                # lost, see the report): the member asks for the board again, as the refusal
                # says to use the latest board.
                fresh = await self.act("board", guild, partial(mover.slash, "caro board"))
                if not fresh.ephemeral and fresh.message is not None \
                        and game_of(fresh.message) is not None:
                    self.reposted.append(f"game {game_of(fresh.message)} at "
                                         f"{self.now():.0f} s")
                    board, edits, changed = fresh.message, fresh.message.edits, self.loop.time()
                continue
            if ok and casual and self.rng.random() < 0.2:
                asked = await self.act("takeback", guild, partial(mover.slash, "caro takeback"))
                if not asked.ephemeral and asked.message is not None:
                    other = next(m for k, m in members.items() if k != mover.id)
                    request = asked.message
                    await self.act("takeback accept", guild,
                                   partial(other.click, request, "Accept"))

    # ------------------------------------------------------------------ tournaments
    async def tournament_series(self, form: str, guild: str) -> None:
        """Tournaments of one format, one after the other, in a channel of their own."""
        channel = self.double.add_channel(f"t-{form}", guild_id=guild)
        organiser = self.double.add_member(f"org-{form}", guild_id=guild)
        players = {m.id: m for m in (self.double.add_member(f"{form}{i}", guild_id=guild)
                                     for i in range(2))}
        number = 0
        while self.running() and self.until - self.loop.time() > 20:
            number += 1
            try:
                await self.one_tournament(form, guild, channel, organiser, players)
            except (Down, InteractionFailed):
                await self.pause(3, 6)
            except AssertionError as exc:
                self.activity["tournament: " + str(exc)[:40]] += 1
                await self.pause(3, 6)

    async def one_tournament(self, form: str, guild: str, channel: str, organiser: Any,
                             players: dict[str, Any]) -> None:
        options: dict[str, Any] = {"format": form, "size": TOURNAMENT_SIZE,
                                   "turn_seconds": 60, "rated": True}
        if form == "swiss":
            options["rounds"] = 2
        if form == "arena":
            options["minutes"] = 5
        created = await self.act("tournament", guild, partial(organiser.slash,
            "caro tournament create", channel_id=channel, **options))
        if created.ephemeral or created.message is None:
            await self.pause(5, 10)
            return
        announcement = created.message
        found = TOURNAMENT_ID.search(" ".join(
            [text_of(announcement)] + [str(e.get("title", "")) for e in announcement.embeds]))
        if found is None:
            return
        tid = int(found.group(1))
        self.tournaments[tid] = (form, channel)
        for level in ("easy", "normal"):
            await self.act("add_ai", guild, partial(organiser.slash,
                "caro tournament add_ai", channel_id=channel, level=level))
        for member in players.values():
            await self.act("join", guild, partial(member.click, announcement,
                                                                                "Join"))
        started = await self.act("tournament", guild, partial(organiser.slash,
            "caro tournament start", channel_id=channel))
        if started.ephemeral:
            await self.act("tournament", guild, partial(organiser.slash,
                "caro tournament cancel", channel_id=channel))
            return
        ends = (f"Tournament #{tid} is over", f"Tournament #{tid} was cancelled")
        seen = 0
        while True:
            history = self.double.messages(channel)
            if any(e in text_of(m) for m in history[-6:] for e in ends):
                return
            if not self.running() or self.until - self.loop.time() < 15:
                # The run ends: the tournament is cancelled, so its last post is made too.
                try:
                    await self.act("tournament", guild, partial(organiser.slash,
                        "caro tournament cancel", channel_id=channel))
                except (Down, InteractionFailed):
                    await asyncio.sleep(5)
                    continue
                await self.double.store.changes.wait_until(
                    lambda: any(e in text_of(m) for m in self.double.messages(channel)[-6:]
                                for e in ends), 30)
                return
            seen = len(history)
            for message in history[max(0, seen - 12):]:
                mover = MOVER.search(load.headline(message))
                if mover is None or mover.group(1) not in players:
                    continue
                free = free_cells(message)
                if free and self.up[self.cluster_of[guild].name]:
                    await self.clicked("tournament click", guild, players[mover.group(1)],
                                       message, self.rng.choice(free))
            await self.pause(0.5, 1.0)

    # ------------------------------------------------------------------ puzzles, replays, settings
    async def puzzles(self, index: int) -> None:
        guild = self.guilds[(index * 11 + 5) % len(self.guilds)]
        member = self.double.add_member(f"puzzler{index}", guild_id=guild)
        while self.running():
            try:
                which = "caro puzzle daily" if self.rng.random() < 0.3 else "caro puzzle play"
                opened = await self.act("puzzle", guild, partial(member.slash, which))
                if not opened.ephemeral and opened.message is not None:
                    await self.pause(1, 3)
                    message = opened.message
                    if any(b.get("label") == "Give up" for b in message.buttons):
                        await self.act("puzzle give up", guild,
                                       partial(member.click, message, "Give up"))
            except (Down, InteractionFailed, AssertionError):
                pass
            await self.pause(4, 8)

    async def browsing(self, index: int) -> None:
        """Replays and reviews of finished games, stats, leaderboards and board themes."""
        guild = self.guilds[(index * 13 + 1) % len(self.guilds)]
        member = self.double.add_member(f"reader{index}", guild_id=guild)
        while self.running():
            await self.pause(2, 5)
            try:
                roll = self.rng.random()
                if roll < 0.35 and self.finished_games:
                    game = self.rng.choice(sorted(self.finished_games)[-200:])
                    await self.act("replay", guild, partial(member.slash, "caro replay",
                                                                         game=game))
                elif roll < 0.45 and self.finished_games:
                    game = self.rng.choice(sorted(self.finished_games)[-200:])
                    await self.act("review", guild, partial(member.slash, "caro review",
                                                                         game=game))
                elif roll < 0.65:
                    await self.act("stats", guild, partial(member.slash, "caro stats"))
                elif roll < 0.8:
                    await self.act("leaderboard", guild, partial(member.slash,
                        "caro leaderboard", mode="ai"))
                else:
                    theme = self.rng.choice(THEMES)
                    await self.act("settings", guild, partial(member.slash,
                        "caro settings", theme=theme))
            except (Down, InteractionFailed, AssertionError):
                pass

    async def season_boundary(self) -> None:
        """At `--season-at`, an administrator of every server turns its seasons quarterly."""
        await asyncio.sleep(max(0.0, self.args.season_at - self.now()))
        admins = {}
        for guild in self.deployment.guilds:
            admin = self.double.add_member(f"admin-{guild}", guild_id=guild)
            admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
            admins[guild] = admin
        began = self.now()
        left = list(self.deployment.guilds)
        gate = asyncio.Semaphore(8)

        async def switch(guild: str) -> bool:
            async with gate:
                try:
                    answer = await self.act("season", guild, partial(admins[guild].slash,
                        "caro settings", season_length="quarterly"))
                except (Down, InteractionFailed):
                    return False
                # Taken unless the bot said its database was away (then asked again).
                text = answer.content or (text_of(answer.message) if answer.message else "")
                return load.reason_of(text) != "error.storage_unavailable" if text else True

        while left and self.running():
            done = await asyncio.gather(*(switch(g) for g in left))
            left = [g for g, ok in zip(left, done, strict=True) if not ok]
            if left:
                await asyncio.sleep(2)
        self.season_switched = (began, self.now())
        if left:
            self.problems.append(f"{len(left)} server(s) never took the new season length")

    # ------------------------------------------------------------------ faults and sampling
    async def kills_on_schedule(self) -> None:
        every = self.args.kill_every
        if every <= 0:
            return
        at = self.args.kill_first if self.args.kill_first is not None else every
        while at < self.args.minutes * 60 - 30:  # none in the last 30 s: the audit follows
            await asyncio.sleep(max(0.0, at - self.now()))
            victim = self.rng.choice(self.deployment.clusters)
            await self.kill(victim)
            at += every

    async def kill(self, victim: Cluster) -> None:
        print(f"{self.now():7.0f} s  SIGKILL {victim.name}", file=sys.stderr, flush=True)
        self.up[victim.name] = False
        self.sample_process(victim)
        await victim.stop(signal.SIGKILL)
        self.kills.append((victim.name, self.now()))
        # Restarted as a supervisor (systemd's Restart=always) would: a process started while
        # the database is away refuses to start (exit 2, one line in its log) and is started
        # again 5 s later.
        while True:
            await victim.start(wait=False)
            try:
                await victim.wait_ready(timeout=180)
                break
            except AssertionError:
                assert victim.process is not None
                if victim.process.returncode is None:  # not ready in time: killed, started again
                    victim.process.kill()
                code = await victim.process.wait()
                victim.process = None
                self.refused_starts.append((victim.name, self.now(), code))
                print(f"{self.now():7.0f} s  {victim.name} exited with {code} on its start; "
                      "started again in 5 s", file=sys.stderr, flush=True)
                await asyncio.sleep(5)
        self.track(victim)
        self.up[victim.name] = True

    async def pg_restarts_on_schedule(self) -> None:
        every = self.args.pg_restart_every
        first = self.args.pg_restart_first
        if every <= 0 and first is None:
            return
        at = first if first is not None else every
        while at < self.args.minutes * 60 - 20:
            await asyncio.sleep(max(0.0, at - self.now()))
            # One database fault at a time: a restart due during the outage waits for its end.
            async with self.database_fault:
                print(f"{self.now():7.0f} s  PostgreSQL restart", file=sys.stderr, flush=True)
                self.pg_restarts.append(self.now())
                try:
                    await asyncio.to_thread(self.server.halt)
                    await asyncio.to_thread(self.server.resume)
                except subprocess.CalledProcessError as exc:
                    self.problems.append(f"PostgreSQL restart at {self.now():.0f} s failed: "
                                         f"{str(exc.stderr)[-300:]}")
            if every <= 0:
                return
            at += every

    async def outage(self) -> None:
        if self.args.outage_seconds <= 0:
            return
        await asyncio.sleep(max(0.0, self.args.outage_at - self.now()))
        print(f"{self.now():7.0f} s  database outage of {self.args.outage_seconds:g} s",
              file=sys.stderr, flush=True)
        async with self.database_fault:
            start = self.now()
            self.outages.append((start, math.inf))  # refusals from now on are the fault's
            await asyncio.to_thread(self.server.halt)
            await asyncio.sleep(self.args.outage_seconds)
            await asyncio.to_thread(self.server.resume)
            self.outages[-1] = (start, self.now())

    def track(self, cluster: Cluster) -> None:
        assert cluster.process is not None
        pid = cluster.process.pid
        life = Lifetime(cluster.name, pid, self.now(), cpu_last=load.cpu_seconds(pid))
        self.lifetimes.append(life)

    def sample_process(self, cluster: Cluster) -> None:
        for life in self.lifetimes:
            if life.cluster == cluster.name and cluster.process is not None \
                    and life.pid == cluster.process.pid:
                try:
                    cpu = load.cpu_seconds(life.pid)
                    life.samples.append((self.now(), load.rss_kb(life.pid) / 1024))
                except OSError:
                    return
                self.window().bot_cpu_s += cpu - life.cpu_last
                life.cpu_last = cpu

    async def sampling(self) -> None:
        warmed = False
        report = 60.0
        while self.running():
            await asyncio.sleep(5)
            for cluster in self.deployment.clusters:
                if self.up[cluster.name]:
                    self.sample_process(cluster)
            if not warmed and self.now() >= self.args.warmup:
                warmed = True
                self.rows_at_warmup = await table_rows(self.deployment)
                self.finished_at_warmup = await finished_count(self.deployment)
            if self.now() >= report:
                report += 60
                clicks = sum(len(w.click_ms) for w in self.windows)
                print(f"{self.now():7.0f} s  {clicks} clicks, {len(self.acked)} acknowledged, "
                      f"{len(self.finished_games)} games seen finished, load "
                      f"{os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)

    async def run(self) -> None:
        for cluster in self.deployment.clusters:
            self.track(cluster)
        guilds = self.guilds
        jobs = [self.ai_games(), self.kills_on_schedule(), self.pg_restarts_on_schedule(),
                self.outage(), self.season_boundary(), self.sampling()]
        jobs += [self.pvp(i) for i in range(self.args.pvp_pairs)]
        jobs += [self.tournament_series(form, guilds[(n * 5 + 2) % len(guilds)])
                 for n, form in enumerate(FORMATS)]
        jobs += [self.puzzles(i) for i in range(self.args.puzzlers)]
        jobs += [self.browsing(i) for i in range(self.args.readers)]
        tasks = [asyncio.ensure_future(j) for j in jobs]
        try:
            ended = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True),
                                           self.args.minutes * 60 + 240)
        except TimeoutError:
            self.crashed.append("the run's activities did not end within 4 min of its end")
        else:
            # One activity failing (this process's bug, a fault it could not make) must not
            # cost the audit of everything else: it is a FAIL of its own.
            self.crashed += [f"{getattr(job, '__qualname__', 'activity')}: {result!r}"[:200]
                             for job, result in zip(jobs, ended, strict=True)
                             if isinstance(result, BaseException)]
        for cluster in self.deployment.clusters:
            self.sample_process(cluster)


@dataclass
class AiSeat:
    members: list[Any]
    guild: str
    size: str
    level: str
    rated: bool
    turn: int = 0
    message: Any = None
    game: int = 0
    busy: bool = False
    pacers: dict[int, load.Pacer] = field(default_factory=dict)
    _read: tuple[bool, bool] = (False, False)
    _read_from: tuple[int, int] = (0, -1)
    _changed: float = 0.0

    def pacer(self) -> load.Pacer:
        return self.pacers.setdefault(self.turn, load.Pacer(Cooldowns().start))

    def board(self) -> tuple[bool, bool]:
        """(over, the member's turn), read again only once the bot edited the board."""
        source = (id(self.message), self.message.edits)
        if source != self._read_from:
            text = load.headline(self.message)
            self._read = (any(f in text for f in FINAL_MARKS), "Your turn" in text)
            self._read_from = source
            self._changed = asyncio.get_running_loop().time()
        return self._read

    def changed_at(self) -> float:
        return self._changed


def game_of(message: Any) -> int | None:
    for button in message.buttons:
        custom_id = str(button.get("custom_id", ""))
        if custom_id.startswith("caro:m:"):
            return int(custom_id.split(":")[2])
    return None


# ---------------------------------------------------------------------- the database's side
HISTORY_TABLES = {"games", "moves", "results", "rating_changes", "season_rating_changes",
                  "tournament_pairings", "tournament_entries", "tournaments", "reviews",
                  "puzzle_attempts", "clock_warnings", "outbox"}
# Rows per finished game a table may gain (moves: a 7x7 board's cells; the rest a few each).
ROWS_PER_GAME = {"moves": 49.0, "rating_changes": 4.0, "season_rating_changes": 2.0}


async def table_rows(deployment: Deployment) -> dict[str, int]:
    tables = [str(name) for (name,) in await deployment.database.rows(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
    counts: dict[str, int] = {}
    for table in tables:
        # Table names from the catalogue, never from input.
        counts[table] = int((await deployment.database.rows(f"SELECT COUNT(*) FROM {table}"))[0][0])
    return counts


async def finished_count(deployment: Deployment) -> int:
    return int((await deployment.database.rows(
        "SELECT COUNT(*) FROM games WHERE status = 'finished'"))[0][0])


def chain_problem(start: float, steps: list[tuple[float, float]], end: float) -> str | None:
    """None when `steps` (before, after) chain from `start` to `end` with none lost or doubled."""
    befores = sorted(round(b, 6) for b, _ in steps)
    starts = sorted([round(start, 6)] + [round(a, 6) for _, a in steps])
    if round(end, 6) not in starts:
        return f"rating {end:.2f} is not the end of its changes"
    starts.remove(round(end, 6))
    if befores != starts:
        return "rating changes do not chain"
    return None


def result_for(winner: str | None, mark: str) -> str:
    if winner is None:
        return "draw"
    return "win" if winner == mark else "loss"


async def audit_ratings(deployment: Deployment) -> tuple[list[str], dict[str, int]]:
    """Every finished rated game counted once in each scope and in its season, the standings'
    W/D/L recomputed from the stored games and each rating chain checked."""
    db = deployment.database
    problems: list[str] = []
    games = {int(r[0]): r for r in await db.rows(
        "SELECT id, guild_id, mode, x_user_id, o_user_id, winner FROM games"
        " WHERE status = 'finished' AND rated")}
    changes = await db.rows("SELECT game_id, scope, user_id, mode, before, after"
                            " FROM rating_changes")
    season_changes = await db.rows("SELECT game_id, guild_id, season, user_id, mode, before,"
                                   " after, id FROM season_rating_changes")
    per_game = collections.Counter(int(c[0]) for c in changes)
    per_game_season = collections.Counter(int(c[0]) for c in season_changes)
    counted = 0
    for game, (_, _guild, _mode, x, o, _winner) in games.items():
        members = sum(u is not None for u in (x, o))
        if per_game[game] not in (0, 2 * members) or (
                per_game[game] == 0 and members and per_game_season[game]):
            problems.append(f"game {game}: {per_game[game]} rating changes for {members} member(s)")
        if per_game[game]:
            counted += 1
            if per_game_season[game] != members:
                problems.append(f"game {game}: {per_game_season[game]} season rating changes "
                                f"for {members} member(s)")
    uncounted = [g for g, (_, _, mode, x, o, _) in games.items()
                 if per_game[g] == 0 and mode in ("ai", "pvp") and (x or o)]
    if uncounted:
        problems.append(f"{len(uncounted)} finished rated game(s) without rating changes: "
                        f"{uncounted[:10]}")
    # W/D/L from the games themselves, per (scope, member, mode) and per season.
    tally: dict[tuple[Any, ...], collections.Counter[str]] = collections.defaultdict(
        collections.Counter)
    steps: dict[tuple[Any, ...], list[tuple[float, float]]] = collections.defaultdict(list)
    for game, scope, user, mode, before, after in changes:
        row = games.get(int(game))
        if row is None:
            problems.append(f"rating change of game {game}, which is not finished and rated")
            continue
        mark = "X" if row[3] == user else "O"
        tally["all", int(scope), int(user), str(mode)][result_for(row[5], mark)] += 1
        steps["all", int(scope), int(user), str(mode)].append((float(before), float(after)))
    season_rows: dict[tuple[Any, ...], list[tuple[int, float, float]]] = collections.defaultdict(
        list)
    for game, guild, season, user, mode, before, after, change_id in season_changes:
        row = games.get(int(game))
        if row is None:
            problems.append(f"season rating change of game {game}, not finished and rated")
            continue
        mark = "X" if row[3] == user else "O"
        season_key = ("season", int(guild), str(season), int(user), str(mode))
        tally[season_key][result_for(row[5], mark)] += 1
        season_rows[season_key].append((int(change_id), float(before), float(after)))
    standings = await db.rows("SELECT scope, user_id, mode, rating, wins, draws, losses"
                              " FROM standings")
    for scope, user, mode, rating, wins, draws, losses in standings:
        key = ("all", int(scope), int(user), str(mode))
        t = tally.get(key, collections.Counter())
        if (t["win"], t["draw"], t["loss"]) != (wins, draws, losses):
            problems.append(f"member {user} scope {scope} {mode}: standing {wins}/{draws}/"
                            f"{losses}, games say {t['win']}/{t['draw']}/{t['loss']}")
        found = chain_problem(START_RATING, steps.get(key, []), float(rating))
        if found:
            problems.append(f"member {user} scope {scope} {mode}: {found}")
    seasons = await db.rows("SELECT guild_id, season, starts, user_id, mode, rating, wins,"
                            " draws, losses FROM season_standings ORDER BY starts, season")
    finals: dict[tuple[int, int, str], list[tuple[Any, str, float]]] = collections.defaultdict(
        list)
    for guild, season, starts, user, mode, rating, *_ in seasons:
        finals[int(guild), int(user), str(mode)].append((starts, str(season), float(rating)))
    boundaries = 0
    for guild, season, _starts, user, mode, rating, wins, draws, losses in seasons:
        season_key = ("season", int(guild), str(season), int(user), str(mode))
        t = tally.get(season_key, collections.Counter())
        if (t["win"], t["draw"], t["loss"]) != (wins, draws, losses):
            problems.append(f"member {user} season {season} {mode}: standing {wins}/{draws}/"
                            f"{losses}, games say {t['win']}/{t['draw']}/{t['loss']}")
        rows = sorted(season_rows.get(season_key, []))
        # The season's first change starts at the soft reset of the season the member played
        # last in this server before it, or at the start rating.
        others = [(s, name, r) for s, name, r in finals[int(guild), int(user), str(mode)]
                  if name != season]
        first = rows[0][1] if rows else None
        expected = {round(START_RATING, 6)} | {round(soft_reset(START_RATING, r), 6)
                                               for _, _, r in others}
        if first is not None and round(first, 6) not in expected:
            problems.append(f"member {user} season {season}: first rating {first:.2f} is not "
                            f"a soft reset of a past season ({sorted(expected)})")
        if others and first is not None and round(first, 6) != round(START_RATING, 6):
            boundaries += 1
        start = first if first is not None else float(rating)
        found = chain_problem(start, [(b, a) for _, b, a in rows], float(rating))
        if found:
            problems.append(f"member {user} season {season} {mode}: {found}")
    return problems, {"rated games counted": counted, "members across the boundary":
                      boundaries, "standings": len(standings), "season standings": len(seasons)}


async def audit_moves(deployment: Deployment, acked: list[tuple[int, int, str]]) -> list[str]:
    db = deployment.database
    problems = []
    taken_back = {int(g) for (g,) in await db.rows("SELECT id FROM games WHERE takebacks > 0")}
    stored = collections.Counter((int(g), int(p)) for g, p in await db.rows(
        "SELECT game_id, ply FROM moves"))
    cells = {(int(g), int(p)): str(c) for g, p, c in await db.rows(
        "SELECT game_id, ply, cell FROM moves")}
    for game, ply, cell in acked:
        if game in taken_back:
            continue
        if stored[game, ply] != 1 or cells.get((game, ply)) != cell:
            problems.append(f"acknowledged move {cell} (game {game}, ply {ply}) stored "
                            f"{stored[game, ply]} time(s) as {cells.get((game, ply))}")
    wrong = await db.rows("SELECT g.id FROM games g WHERE g.ply != (SELECT COUNT(*) FROM moves m"
                          " WHERE m.game_id = g.id)")
    if wrong:
        problems.append(f"games whose ply does not match their moves: {wrong[:10]}")
    results = await db.rows("SELECT game_id, COUNT(*) FROM results GROUP BY game_id, user_id"
                            " HAVING COUNT(*) > 1")
    if results:
        problems.append(f"games with a result counted twice: {results[:10]}")
    return problems


async def audit_tournaments(soak: Soak) -> tuple[list[str], str]:
    db = soak.deployment.database
    problems = []
    summary: collections.Counter[str] = collections.Counter()
    for tid, (form, channel) in sorted(soak.tournaments.items()):
        texts = [text_of(m) for m in soak.double.messages(channel)]
        status = await db.rows("SELECT status FROM tournaments WHERE id = ?", tid)
        state = str(status[0][0]) if status else "missing"
        summary[f"{form} {state}"] += 1
        began = sum(f"Tournament #{tid} has begun" in t for t in texts)
        ended = sum(f"Tournament #{tid} is over" in t or f"Tournament #{tid} was cancelled" in t
                    for t in texts)
        if state in ("finished", "cancelled") and ended != 1:
            problems.append(f"tournament #{tid} ({form}, {state}): final post made {ended} times")
        if began > 1:
            problems.append(f"tournament #{tid} ({form}): 'has begun' posted {began} times")
        rounds = collections.Counter(m.group(0) for t in texts
                                     for m in re.finditer(rf"#{tid}\S*,? round \d+ of \d+ is over",
                                                          t))
        doubled = [r for r, n in rounds.items() if n > 1]
        if doubled:
            problems.append(f"tournament #{tid}: posted more than once: {doubled}")
        posted = collections.Counter(game_of(m) for m in soak.double.messages(channel)
                                     if game_of(m) is not None)
        boards = await db.rows("SELECT game_id FROM tournament_pairings WHERE tournament_id = ?"
                               " AND game_id IS NOT NULL", tid)
        twice = [g for g, n in posted.items() if n > 1]
        if twice:
            problems.append(f"tournament #{tid}: boards posted twice: {twice[:5]}")
        missing = [int(g) for (g,) in boards if int(g) not in posted]
        if missing:
            problems.append(f"tournament #{tid}: pairings' games never posted: {missing[:5]}")
    return problems, ", ".join(f"{k} {n}" for k, n in sorted(summary.items())) or "none"


async def audit_puzzles(deployment: Deployment) -> tuple[list[str], str]:
    db = deployment.database
    problems = []
    rated = {(int(g), int(u)): int(n) for g, u, n in await db.rows(
        "SELECT guild_id, user_id, COUNT(*) FROM puzzle_attempts WHERE rated"
        " AND outcome IN ('solved', 'failed') GROUP BY guild_id, user_id")}
    ratings = {(int(g), int(u)): int(s) + int(f) for g, u, s, f in await db.rows(
        "SELECT guild_id, user_id, solved, failed FROM puzzle_ratings")}
    for key in set(rated) | set(ratings):
        if rated.get(key, 0) != ratings.get(key, 0):
            problems.append(f"member {key[1]}: {rated.get(key, 0)} rated attempts, rating counts "
                            f"{ratings.get(key, 0)}")
    twice = await db.rows("SELECT guild_id, user_id, puzzle_id FROM puzzle_attempts WHERE rated"
                          " GROUP BY guild_id, user_id, puzzle_id HAVING COUNT(*) > 1")
    if twice:
        problems.append(f"puzzles rated twice for one member: {twice[:5]}")
    kinds = await db.rows("SELECT kind, outcome, COUNT(*) FROM puzzle_attempts"
                          " GROUP BY kind, outcome ORDER BY kind, outcome")
    return problems, ", ".join(f"{k} {o} {n}" for k, o, n in kinds) or "none"


# ---------------------------------------------------------------------- the run
@dataclass
class Check:
    name: str
    ok: bool | None  # None: not applicable in this run
    detail: str


def table(checks: list[Check]) -> list[str]:
    width = max(len(c.name) for c in checks)
    lines = [f"| {'check':<{width}} | result | detail |", f"|{'-' * (width + 2)}|--------|---|"]
    for c in checks:
        verdict = "n/a" if c.ok is None else "PASS" if c.ok else "FAIL"
        lines.append(f"| {c.name:<{width}} | {verdict:<6} | {c.detail} |")
    return lines


async def soak_run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    workdir = Path(tempfile.mkdtemp(prefix="caro-soak-"))
    shard_count = args.processes * args.shards
    wall0 = time.perf_counter()
    deployment = await deploy(
        workdir, layout=split_shards(args.processes, args.shards), shard_count=shard_count,
        database="postgresql", guilds_per_shard=max(1, math.ceil(args.servers / shard_count)),
        # AI-vs-AI tournament games at a brisk pace; a challenge whose Accept never reached the
        # bot (its process killed) expires within a minute, not five.
        CARO_LOG_LEVEL="INFO", CARO_WATCH_DELAY_SECONDS="0.3", CARO_CHALLENGE_SECONDS="60",
        CARO_AI_WORKERS=str(args.ai_workers),
    )
    server = deployment.server
    assert server is not None
    print(f"ready in {time.perf_counter() - wall0:.0f} s: {args.processes} processes x "
          f"{args.shards} shards, {len(deployment.guilds)} servers ({workdir})",
          file=sys.stderr, flush=True)
    # SIGTERM or Ctrl-C stops the run through the `finally` below: the processes and the
    # PostgreSQL server it started are stopped, not left behind.
    task = asyncio.current_task()
    assert task is not None
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, task.cancel)
    soak = Soak(args, deployment, rng, server)
    checks: list[Check] = []
    info: list[tuple[str, str]] = []
    try:
        await soak.run()
        await settle(deployment.double, 1.0)
        await asyncio.sleep(3)
        checks, info = await audit(soak)
    finally:
        problems = await deployment.close(allow_violations=True)
    exited = [p for p in problems if "exited with" in p]
    checks.append(Check("every process stopped cleanly on SIGTERM", not exited,
                        "; ".join(exited) or "all exited 0"))
    load_avg = os.getloadavg()
    info.append(("wall time (setup, run, audit)", f"{time.perf_counter() - wall0:.0f} s"))
    info.append(("machine load (1/5/15 min)",
                 f"{load_avg[0]:.1f} / {load_avg[1]:.1f} / {load_avg[2]:.1f} on "
                 f"{os.cpu_count()} CPUs"))
    info.append(("logs", str(workdir)))
    print()
    for line in table(checks):
        print(line)
    print()
    width = max(len(k) for k, _ in info)
    for key, value in info:
        print(f"{key:<{width}}  {value}")
    for problem in soak.problems[:20]:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if any(c.ok is False for c in checks) else 0


async def audit(soak: Soak) -> tuple[list[Check], list[tuple[str, str]]]:
    args = soak.args
    deployment = soak.deployment
    checks: list[Check] = []
    info: list[tuple[str, str]] = []
    moves = await audit_moves(deployment, soak.acked)
    checks.append(Check("every acknowledged move stored exactly once", not moves,
                        f"{len(soak.acked)} acknowledged" + (f"; {moves[0]}" if moves else "")
                        + (f" (+{len(moves) - 1} more)" if len(moves) > 1 else "")))
    ratings, figures = await audit_ratings(deployment)
    checks.append(Check(
        "every finished game counted once, all-time and season", not ratings,
        f"{figures['rated games counted']} rated games; W/D/L recomputed for "
        f"{figures['standings']} standings and {figures['season standings']} season standings; "
        f"{figures['members across the boundary']} member(s) soft-reset into the new season"
        + (f"; {ratings[0]} (+{len(ratings) - 1} more)" if ratings else "")))
    switched = soak.season_switched
    checks.append(Check(
        "season boundary crossed", switched is not None and figures[
            "members across the boundary"] > 0,
        f"monthly -> quarterly at {switched[0]:.0f}-{switched[1]:.0f} s" if switched
        else "not reached"))
    tournaments, summary = await audit_tournaments(soak)
    checks.append(Check("every tournament's posts made exactly once",
                        not tournaments if soak.tournaments else None,
                        summary + (f"; {tournaments[0]}" if tournaments else "")))
    puzzles, kinds = await audit_puzzles(deployment)
    checks.append(Check("every puzzle attempt rated once", not puzzles,
                        kinds + (f"; {puzzles[0]}" if puzzles else "")))
    double = deployment.double
    late_answers = [v for v in double.violations if "response after" in v]
    rules = [v for v in double.violations
             if "not acknowledged within" not in v and "response after" not in v]
    checks.append(Check("Discord rule violations", not rules,
                        f"{len(rules)}" + (f": {rules[0][:120]}" if rules else "")))
    logs = {c.name: c.log_text() for c in deployment.clusters}
    tracebacks = {name: log.count("Traceback") for name, log in logs.items()}
    checks.append(Check("tracebacks in the logs", not any(tracebacks.values()),
                        ", ".join(f"{k} {v}" for k, v in tracebacks.items())))
    excused, late = 0, 0
    for inter in soak.interactions:
        if not inter.failed:
            continue
        if any(name == inter.cluster and inter.started - 1 <= at <= inter.ended + 1
               for name, at in soak.kills):
            excused += 1
        else:
            late += 1
    checks.append(Check(
        "interactions answered after Discord's deadline", late + len(late_answers) == 0,
        f"{late} never answered and {len(late_answers)} answered late, of "
        f"{len(soak.interactions)}; {excused} in flight to a process when it was SIGKILLed "
        "(never answered, counted apart)"
        + (f"; {late_answers[0][:100]}" if late_answers else "")))
    checks.append(Check("every activity and fault ran to the end", not soak.crashed,
                        "; ".join(soak.crashed[:2]) or "yes"))
    checks.append(Check("boards that never came back after a fault", soak.stuck_boards == 0,
                        str(soak.stuck_boards)))
    internal = sum(n for (_, why), n in (soak.refusals + soak.fault_refusals).items()
                   if why == "error.internal")
    checks.append(Check("internal errors answered to members", internal == 0, str(internal)))
    # Memory: each process lifetime long enough, from its first sample after warm-up to its last.
    grown = []
    judged = 0
    for life in soak.lifetimes:
        after = [(t, mb) for t, mb in life.samples if t - life.started >= args.warmup]
        if not after or after[-1][0] - after[0][0] < args.memory_span:
            continue
        judged += 1
        growth = after[-1][1] / after[0][1] - 1
        grown.append((growth, f"{life.cluster} pid {life.pid}: {after[0][1]:.0f} -> "
                      f"{after[-1][1]:.0f} MB over {after[-1][0] - after[0][0]:.0f} s"))
    worst = max(grown, default=None)
    checks.append(Check(
        "memory growth of each process after warm-up <= 10%",
        None if not judged else worst is not None and worst[0] <= 0.10,
        (f"{judged} process lifetime(s) of >= {args.memory_span:g} s after a {args.warmup:g}-s "
         f"warm-up; worst {worst[0] * 100:+.1f}% ({worst[1]})") if worst else
        f"no process lived {args.warmup + args.memory_span:g} s between kills"))
    rows = await table_rows(deployment)
    finished = await finished_count(deployment)
    base_rows = soak.rows_at_warmup or dict.fromkeys(rows, 0)
    gained = finished - soak.finished_at_warmup if soak.rows_at_warmup else finished
    unbounded = []
    per_game = []
    for name, count in sorted(rows.items()):
        growth = (count - base_rows.get(name, 0)) / max(1, gained)
        per_game.append(f"{name} {count / max(1, finished):.2f}")
        if growth > ROWS_PER_GAME.get(name, 4.0):
            unbounded.append(f"{name} +{growth:.1f} per game")
    checks.append(Check("rows per finished game bounded", not unbounded and finished > 0,
                        (", ".join(unbounded) or f"{finished} finished games; none over its bound")))
    size = await deployment.database.size_mb()
    info.append(("rows per finished game, by table", ", ".join(per_game)))
    info.append(("database size", f"{size:.1f} MB, {size / max(1, finished) * 1000:.1f} MB per "
                 f"1,000 finished games ({finished} finished)"))
    windows = [w for w in soak.windows if w.click_ms]
    if windows:
        first, last = windows[0], windows[-1]

        def cpu_ms(w: Window) -> float:
            return w.bot_cpu_s * 1000 / max(1, len(w.click_ms))

        for n, w in enumerate(windows):
            info.append((f"window {n + 1} ({args.window:g} s)",
                         f"{len(w.click_ms)} clicks, p99 {load.pct(w.click_ms, 0.99):.0f} ms, "
                         f"bot CPU {cpu_ms(w):.1f} ms per click"))
        p99_ratio = load.pct(last.click_ms, 0.99) / load.pct(first.click_ms, 0.99)
        cpu_ratio = cpu_ms(last) / cpu_ms(first) if cpu_ms(first) else float("nan")
        checks.append(Check("click p99 and bot CPU per click, last window over first",
                            None if len(windows) < 2 else p99_ratio <= 2 and cpu_ratio <= 2,
                            f"p99 {p99_ratio:.2f}x, CPU {cpu_ratio:.2f}x (target <= 2x)"))
    clicks = [ms for w in soak.windows for ms in w.click_ms]
    minutes = args.minutes
    info += [
        ("deployment", f"{args.processes} processes x {args.shards} shards, "
                       f"{len(deployment.guilds)} servers, PostgreSQL (throwaway server)"),
        ("run", f"{minutes:g} min, target {args.rate:g} clicks/s on {args.seats} AI seats"),
        ("clicks", f"{len(clicks)} ({len(clicks) / (minutes * 60):.1f}/s), p50 "
                   f"{load.pct(clicks, 0.5):.0f} ms, p99 {load.pct(clicks, 0.99):.0f} ms"),
        ("activity", ", ".join(f"{k} {n}" for k, n in soak.activity.most_common())),
        ("faults", f"{len(soak.kills)} SIGKILL(s) ("
                   + ", ".join(f"{c} at {t:.0f} s" for c, t in soak.kills) + f"); "
                   f"{len(soak.pg_restarts)} PostgreSQL restart(s) ("
                   + ", ".join(f"{t:.0f} s" for t in soak.pg_restarts) + "); outage "
                   + (", ".join(f"{a:.0f}-{b:.0f} s" for a, b in soak.outages) or "none")),
        ("starts refused (database away), started again",
         ", ".join(f"{c} at {t:.0f} s (exit {code})" for c, t, code in soak.refused_starts)
         or "none"),
        ("interactions not sent: process down", str(soak.skipped_down)),
        ("members' boards found out of date (click.stale), reposted with /caro board",
         f"{len(soak.reposted)}" + (f": {', '.join(soak.reposted[:5])}" if soak.reposted
                                    else "")),
        ("refused, by reason (outside faults)",
         ", ".join(f"{w} {why} {n}" for (w, why), n in soak.refusals.most_common(8)) or "none"),
        ("refused during database faults",
         ", ".join(f"{w} {why} {n}" for (w, why), n in soak.fault_refusals.most_common(6))
         or "none"),
        ("RSS per process at the end", ", ".join(
            f"{life.cluster} {life.samples[-1][1]:.0f} MB" for life in soak.lifetimes
            if life.samples and life is max((x for x in soak.lifetimes
                                             if x.cluster == life.cluster),
                                            key=lambda x: x.started))),
    ]
    return checks, info


SHORT = {"minutes": 1.6, "processes": 2, "shards": 2, "servers": 100, "rate": 25, "seats": 40,
         "pvp_pairs": 3, "puzzlers": 2, "readers": 2, "kill_every": 45, "kill_first": 25,
         "pg_restart_every": 0, "pg_restart_first": 50, "outage_at": 70, "outage_seconds": 6,
         "season_at": 40, "warmup": 15, "memory_span": 45, "window": 32, "ai_workers": 1}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.soak",
                                     description=__doc__.split("\n")[0],
                                     epilog=f"This benchmark {NEEDS}.")
    parser.add_argument("--short", action="store_true",
                        help="the CI variant: ~1.6 min of activity, 2 processes x 2 shards, 100 "
                        "servers, one SIGKILL, one PostgreSQL restart and a 6-s outage")
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--processes", type=int, default=4, help="bot cluster processes")
    parser.add_argument("--shards", type=int, default=4, help="shards per process")
    parser.add_argument("--servers", type=int, default=1000, help="servers in the double")
    parser.add_argument("--rate", type=float, default=100, help="AI-game clicks per second")
    parser.add_argument("--seats", type=int, default=240, help="AI boards kept live")
    parser.add_argument("--pvp-pairs", type=int, default=12)
    parser.add_argument("--puzzlers", type=int, default=6)
    parser.add_argument("--readers", type=int, default=6)
    parser.add_argument("--kill-every", type=float, default=240,
                        help="seconds between SIGKILLs of a random process (0: none)")
    parser.add_argument("--kill-first", type=float, default=None)
    parser.add_argument("--pg-restart-every", type=float, default=900,
                        help="seconds between PostgreSQL restarts (0: none)")
    parser.add_argument("--pg-restart-first", type=float, default=None)
    parser.add_argument("--outage-at", type=float, default=None,
                        help="seconds into the run of the database outage (default: 40%%)")
    parser.add_argument("--outage-seconds", type=float, default=60)
    parser.add_argument("--season-at", type=float, default=None,
                        help="seconds into the run of the season boundary (default: half way)")
    parser.add_argument("--warmup", type=float, default=300,
                        help="seconds after a process starts before its memory is the baseline")
    parser.add_argument("--memory-span", type=float, default=900,
                        help="the shortest life after warm-up whose memory growth is judged")
    parser.add_argument("--window", type=float, default=None,
                        help="seconds per window of click p99 / CPU (default: an hour, or a "
                        "third of a shorter run)")
    parser.add_argument("--ai-workers", type=int, default=1, help="CARO_AI_WORKERS per process")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.short:
        for key, value in SHORT.items():
            setattr(args, key, value)
    seconds = args.minutes * 60
    if args.outage_at is None:
        args.outage_at = 0.4 * seconds
    if args.season_at is None:
        args.season_at = 0.5 * seconds
    if args.window is None:
        args.window = 3600.0 if seconds >= 7200 else seconds / 3
    return args


if __name__ == "__main__":
    arguments = parse_args()
    if MISSING is not None:
        sys.exit(f"python -m bench.soak {NEEDS} (missing: {MISSING.name}).")
    sys.exit(asyncio.run(soak_run(arguments)))
