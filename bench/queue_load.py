"""The queue across servers under load: the real bot on two cluster processes and one PostgreSQL,
through the local Discord double.

    python -m bench.queue_load                      # 100 members over 600 s (the issue's target)
    python -m bench.queue_load --members 12 --seconds 60

Servers: `--shards` shards split between `--clusters` processes, one server per shard (so with
the defaults, four servers, two on each process). Each of `--members` members belongs to one of
them (in turn) and has a channel of their own there. Each joins `/caro queue` (15x15, rated, any
server) at a random moment of the first `--seconds`, waits to be paired, then plays their game on
their own board: the board in their own channel, or, when the partner is of the same server, the
one board of the game. A member moves only on their turn, after a short think (`--think`), by the
board's "type a move" form: `--moves quick` (the default) builds a line of five from a random
start, so a game ends in about ten moves; `--moves random` plays random free cells. After a game
a member queues again with the chance `--requeue`, while the first `--seconds` last. Members who
still wait after them wait `--grace` seconds more, then leave; the games still on are played out.

Read from the database (every process's clock is the machine's): per queue entry the time from
joining to being paired, and the time from when a partner existed (another member waiting at the
same time) to being paired, which the issue wants within 30 s for every member; members paired
twice at once (two games of theirs running at the same time; the target is 0).

Read from the double, which calls the benchmark at each edit of a message as it lands
(MessageStore.watch): for every move, when each board of the game first showed it, from the
moment the member sent the move (click -> both boards updated: p50/p95/p99/max, for games between
two servers, and click -> board for games within one); and whether a game's two boards were
identical after every move. Identical means: the same number of moves played, the same cell
buttons (cell, stone, ply drawn at, enabled or not), the same other buttons (by custom id:
labels are in each member's language), and the same picture (the whole position, the last move
and the winning line, drawn as PNG bytes). The texts differ only in how each board names the
players (a mention for the member of its own server, name and rating for the other) and in the
language; they are not compared. Also counted: boards posted twice (two messages of one game in
one channel; the target is 0).

On PostgreSQL the database's transactions during the run are counted too (pg_stat_database:
every statement outside a transaction is one), of every process and every loop, and given per
move played: what the queue's games cost the database. One database round trip (`SELECT 1` on a
connection of the benchmark's own, four times a second) is timed beside the moves. This
process, where the double answers, runs no garbage collection while the members play (as
bench.load's): its pauses, up to 200 ms, would be counted as the bot's. The bot's processes
collect as they always do.

The issue's target for a move between two servers is the single-server p99 plus one database
round trip, under the same load: `--scope server` runs the same members queueing for their own
server only, so every game is within one server and the run's click -> board figures are that
baseline.

Exit status 1 when a target is missed: a member not paired within 30 s of a partner existing,
one paired twice, two boards that differed after a move, a board posted twice, or a process that
logged a traceback or broke a Discord rule.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.load import collections_paused, positive

# The scenario runs the real bot against the Discord double of the test kit (testkit/, which a
# clone has and an installed package does not); --help works without it.
try:
    from testkit.bot_process import text_of
    from testkit.clusters import Deployment, deploy, split_shards
    from testkit.faults import linked_message_id
except ModuleNotFoundError as exc:
    MISSING: ModuleNotFoundError | None = exc
else:
    MISSING = None
NEEDS = (
    "needs the repository's test kit (testkit/): run "
    "`.venv/bin/python -m bench.queue_load` from the root of a clone"
)

PAIRED_WITHIN_S = 30.0
# How many of the slowest moves between two servers are shown step by step.
SLOWEST = 3
SIDE = 15
COLUMNS = "ABCDEFGHIJKLMNO"
TYPE_A_MOVE = "Type a move"
PLAYED = re.compile(r"Moves played: (\d+)\.")
CELL_ID = re.compile(r"^caro:m:(\d+):(\d+):([A-Z]+\d+)$")


def cell_name(row: int, col: int) -> str:
    return f"{COLUMNS[col]}{row + 1}"


@dataclass(frozen=True)
class Look:
    """What a board shows, as compared between a game's boards (see the module's docstring)."""

    ply: int | None
    cells: tuple[tuple[str, str, bool], ...]
    controls: tuple[tuple[str, bool], ...]
    pictures: tuple[str, ...]
    over: bool


def look_of(message: Any) -> Look:
    cells, controls = [], []
    for button in message.buttons:
        custom_id = str(button.get("custom_id", ""))
        entry = (custom_id, str(button.get("label") or ""), bool(button.get("disabled")))
        if CELL_ID.match(custom_id):
            cells.append(entry)
        elif custom_id:
            controls.append((custom_id, entry[2]))
    played = PLAYED.search(text_of(message))
    pictures = tuple(hashlib.sha1(a["data"]).hexdigest() for a in message.attachments)
    return Look(
        ply=int(played.group(1)) if played else None,
        cells=tuple(sorted(cells)),
        controls=tuple(sorted(controls)),
        pictures=pictures,
        over=not any(b.get("label") == TYPE_A_MOVE for b in message.buttons),
    )


@dataclass
class Shown:
    """Each state a message took, as it landed: (monotonic time, look)."""

    states: list[tuple[float, Look]] = field(default_factory=list)


@dataclass
class Move:
    game: int
    ply: int  # moves played once it is on the board
    sent: float  # monotonic, as the member sent it


@dataclass
class Player:
    member: Any
    guild: str
    channel: str
    join_at: float
    rng: random.Random
    games: list[int] = field(default_factory=list)


@dataclass
class Report:
    members: int = 0
    joined: int = 0
    entries: int = 0
    pairs: int = 0
    games_across: int = 0
    games_across_clusters: int = 0
    games_within: int = 0
    games_finished: int = 0
    moves: int = 0
    waits: list[float] = field(default_factory=list)  # join -> paired, s
    partner_waits: list[float] = field(default_factory=list)  # a partner existed -> paired, s
    slow: list[str] = field(default_factory=list)
    never_paired: list[str] = field(default_factory=list)
    paired_twice: list[str] = field(default_factory=list)
    both_boards_ms: list[float] = field(default_factory=list)
    first_board_ms: list[float] = field(default_factory=list)  # click -> the first of the two
    second_after_ms: list[float] = field(default_factory=list)  # the first -> the other
    last_moves_ms: list[float] = field(default_factory=list)  # the moves that ended a game
    first_moves_ms: list[float] = field(default_factory=list)  # a game's first move
    other_moves_ms: list[float] = field(default_factory=list)  # neither first nor last
    slowest: list[str] = field(default_factory=list)  # the slowest such moves, step by step
    before_posted_ms: list[float] = field(default_factory=list)  # a board not posted yet
    one_board_ms: list[float] = field(default_factory=list)
    compared: int = 0
    differing: list[str] = field(default_factory=list)
    unseen: list[str] = field(default_factory=list)
    posted_twice: list[str] = field(default_factory=list)
    refused: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    round_trips_ms: list[float] = field(default_factory=list)  # SELECT 1, during the run
    load: tuple[tuple[float, float, float], tuple[float, float, float]] | None = None
    seconds: float = 0.0
    transactions: int | None = None  # the database's, during the run (PostgreSQL)
    # This process's garbage collections during the run (none unless asked for), ms: the
    # double answers from it too.
    collections_ms: list[float] = field(default_factory=list)

    def failures(self) -> list[str]:
        found = [f"not paired within {PAIRED_WITHIN_S:.0f} s of a partner: {s}" for s in self.slow]
        found += [f"never paired though a partner waited: {s}" for s in self.never_paired]
        found += [f"paired twice at once: {s}" for s in self.paired_twice]
        found += [f"boards differ: {s}" for s in self.differing]
        found += [f"a move never shown: {s}" for s in self.unseen]
        found += [f"board posted twice: {s}" for s in self.posted_twice]
        return found + self.problems


def pct(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class QueueLoad:
    """The members' side of the run and its checks, on a running deployment."""

    def __init__(self, deployment: Deployment, *, members: int, seconds: float, grace: float,
                 requeue: float, think: tuple[float, float], moves: str, seed: int,
                 scope: str = "any") -> None:
        self.deployment = deployment
        self.scope = scope
        self.double = deployment.double
        self.seconds = seconds
        self.grace = grace
        self.requeue = requeue
        self.think = think
        self.moves_kind = moves
        rng = random.Random(seed)
        guilds = deployment.guilds
        self.players = []
        for n in range(members):
            guild = guilds[n % len(guilds)]
            member = self.double.add_member(f"m{n}", guild_id=guild)
            channel = self.double.add_channel(f"queue-{n}", guild_id=guild)
            self.players.append(Player(member, guild, channel, rng.uniform(0, seconds),
                                       random.Random(rng.random())))
        self.shown: dict[str, Shown] = {}
        self.sent: list[Move] = []
        self.boards: dict[int, set[str]] = {}  # game -> its board messages, as members found them
        self.occupied: dict[int, set[str]] = {}
        self.refused: dict[str, int] = {}
        self.joined: set[str] = set()
        self.start = self.stop_joining = self.stop_waiting = 0.0
        self.double.store.watch(self._landed)

    def _landed(self, message: Any) -> None:
        if message.visible_to is not None or not message.buttons and message.id not in self.shown:
            return
        landed = time.monotonic()  # before this process reads the board: not the bot's time
        look = look_of(message)
        if look.cells or look.ply is not None or message.id in self.shown:
            self.shown.setdefault(message.id, Shown()).states.append((landed, look))

    async def run(self) -> Report:
        started = time.monotonic()
        load_before = os.getloadavg()
        self.start = started
        self.stop_joining = started + self.seconds
        self.stop_waiting = self.stop_joining + self.grace
        transactions = await self._transactions()
        round_trips: list[float] = []
        probe = asyncio.create_task(self._round_trips(round_trips))
        collections: list[float] = []
        began = [0.0]

        def timed(phase: str, _: dict[str, Any]) -> None:
            if phase == "start":
                began[0] = time.perf_counter()
            else:
                collections.append((time.perf_counter() - began[0]) * 1000)

        try:
            # The double answers from this process: its collections would pause it, and be
            # counted as the bot's (bench.load). Any that runs all the same is counted.
            with collections_paused():
                gc.callbacks.append(timed)
                try:
                    results = await asyncio.gather(*(self._life(p) for p in self.players),
                                                   return_exceptions=True)
                finally:
                    gc.callbacks.remove(timed)
        finally:
            probe.cancel()
            await asyncio.gather(probe, return_exceptions=True)
        report = Report(members=len(self.players), seconds=time.monotonic() - started,
                        round_trips_ms=round_trips, collections_ms=collections)
        after = await self._transactions()
        if transactions is not None and after is not None:
            report.transactions = after - transactions
        report.load = (load_before, os.getloadavg())
        for player, result in zip(self.players, results, strict=True):
            if isinstance(result, BaseException):
                report.problems.append(f"{player.member.name}: {result!r}")
        report.joined = len(self.joined)
        report.refused = dict(self.refused)
        await self._check_queue(report)
        await self._check_boards(report)
        return report

    async def _transactions(self) -> int | None:
        """The transactions PostgreSQL has counted so far in the bot's database (every
        statement outside a transaction is one): None on SQLite."""
        db = self.deployment.database
        if db.path is not None:
            return None
        # The counters are flushed by each backend now and then, not at every commit.
        await asyncio.sleep(1.5)
        rows = await db.rows("SELECT xact_commit + xact_rollback FROM pg_stat_database"
                             " WHERE datname = current_database()")
        return int(rows[0][0])

    async def _round_trips(self, found: list[float]) -> None:
        """One database round trip, timed four times a second on a connection of its own for
        the whole run (PostgreSQL; SQLite has no round trip): the issue's allowance for the
        other board, measured under the run's own load."""
        db = self.deployment.database
        if db.path is not None:
            return
        import asyncpg

        con = await asyncpg.connect(db.url)
        try:
            while True:
                began = time.perf_counter()
                await con.fetchval("SELECT 1")
                found.append((time.perf_counter() - began) * 1000)
                await asyncio.sleep(0.25)
        finally:
            await con.close()

    # ----------------------------------------------------------------- the members

    async def _life(self, player: Player) -> None:
        await asyncio.sleep(max(0.0, self.start + player.join_at - time.monotonic()))
        while True:
            queued = await player.member.slash("caro queue", channel_id=player.channel,
                                               scope=self.scope)
            if queued.ephemeral:
                reason = str(queued.content or "")[:60]
                self.refused[reason] = self.refused.get(reason, 0) + 1
                return
            self.joined.add(player.member.id)
            message = queued.message
            waited = await self.double.store.changes.wait_until(
                lambda m=message: "was paired with" in text_of(m),
                max(1.0, self.stop_waiting - time.monotonic()))
            if not waited:
                if any(b.get("label") == "Leave" for b in message.buttons):
                    await player.member.click(message, "Leave")
                if "was paired with" not in text_of(message):
                    return
            board = await self._board_of(player, message)
            await self._play(player, board)
            if time.monotonic() >= self.stop_joining or player.rng.random() >= self.requeue:
                return
            await asyncio.sleep(player.rng.uniform(2.0, 15.0))
            if time.monotonic() >= self.stop_joining:
                return

    async def _board_of(self, player: Player, queued: Any) -> Any:
        """The board the member plays on: the one their queue message links to (their own
        channel's, or the game's one board when the partner is of the same server)."""
        await queued.wait_for(lambda m: linked_message_id(text_of(m)) is not None, 30)
        board_id = str(linked_message_id(text_of(queued)))
        assert await self.double.store.changes.wait_until(
            lambda: self.double.store.get(board_id) is not None, 30), "board never posted"
        board = self.double.store.get(board_id)
        game = int(CELL_ID.match(next(  # type: ignore[union-attr]
            b["custom_id"] for b in board.buttons
            if CELL_ID.match(str(b.get("custom_id", ""))))).group(1))
        player.games.append(game)
        self.boards.setdefault(game, set()).add(board.id)
        self.occupied.setdefault(game, set())
        return board

    async def _play(self, player: Player, board: Any) -> None:
        member = player.member
        game = player.games[-1]
        mark = 0 if f"<@{member.id}> (X)" in text_of(board) else 1
        plan = self._plan(player.rng)
        while True:
            await board.wait_for(
                lambda m: (look := look_of(m)).over
                or (look.ply is not None and look.ply % 2 == mark), timeout=600)
            if look_of(board).over:
                return
            ply = look_of(board).ply
            assert ply is not None
            await asyncio.sleep(player.rng.uniform(*self.think))
            taken = self.occupied[game]
            cell = next((c for c in plan if c not in taken), None)
            if cell is None or self.moves_kind == "random":
                cell = player.rng.choice([cell_name(r, c) for r in range(SIDE)
                                          for c in range(SIDE) if cell_name(r, c) not in taken])
            try:
                form = await member.click(board, TYPE_A_MOVE)
            except AssertionError:  # the game ended meanwhile (its clock, say)
                continue
            if form.modal is None:
                continue
            sent = time.monotonic()
            answer = await member.submit_modal(board, form.modal["custom_id"], {"cell": cell})
            if answer.ephemeral:
                reason = str(answer.content or "")[:60]
                self.refused[reason] = self.refused.get(reason, 0) + 1
                continue
            taken.add(cell)
            self.sent.append(Move(game, ply + 1, sent))
            await board.wait_for(lambda m, n=ply + 1: (look_of(m).ply or 0) >= n
                                 or look_of(m).over, timeout=60)

    def _plan(self, rng: random.Random) -> list[str]:
        """Five cells in a row from a random start (quick games)."""
        row, col = rng.randrange(SIDE), rng.randrange(SIDE - 4)
        cells = [cell_name(row, col + n) for n in range(5)]
        rng.shuffle(cells)
        return cells

    # ----------------------------------------------------------------- the checks

    async def _check_queue(self, report: Report) -> None:
        db = self.deployment.database
        members = {p.member.id: p.member.name for p in self.players}
        rows = await db.rows(
            "SELECT id, user_id, joined_at, status, paired_at, left_at, game_id, guild_id"
            " FROM queue_entries ORDER BY id")
        report.entries = len(rows)
        now = time.time()
        spans = [(int(i), str(u), float(j), float(p if p is not None else (le or now)), str(g))
                 for i, u, j, _, p, le, _, g in rows]
        # Queueing for their own server only, a member's partners are of that server.
        anywhere = self.scope == "any"
        for entry, user, joined, status, paired, _, _, guild in rows:
            end = float(paired) if paired is not None else now
            others = [max(float(joined), j2) for i2, u2, j2, e2, g2 in spans
                      if i2 != entry and u2 != str(user) and j2 < end and e2 > float(joined)
                      and (anywhere or g2 == str(guild))]
            name = members.get(str(user), str(user))
            if status == "paired":
                report.waits.append(float(paired) - float(joined))
            if not others:
                continue
            since = min(others)
            if status == "paired":
                wait = float(paired) - since
                report.partner_waits.append(wait)
                if wait > PAIRED_WITHIN_S:
                    report.slow.append(f"{name} (entry {entry}): {wait:.1f} s")
            elif end - since > PAIRED_WITHIN_S:
                report.never_paired.append(f"{name} (entry {entry}): {end - since:.1f} s")
        games = await db.rows(
            "SELECT id, guild_id, x_user_id, o_user_id, status,"
            " EXTRACT(EPOCH FROM created_at), EXTRACT(EPOCH FROM finished_at) FROM games"
            " ORDER BY id")
        report.pairs = len(games)
        report.games_finished = sum(1 for g in games if g[4] == "finished")
        # Members paired twice at once: two of their games running at the same time.
        spans_of: dict[int, list[tuple[float, float, int]]] = {}
        for game, _, x, o, _, created, finished in games:
            for user in (x, o):
                spans_of.setdefault(int(user), []).append(
                    (float(created), float(finished) if finished is not None else now, int(game)))
        for user, spans_of_user in spans_of.items():
            spans_of_user.sort()
            for (_, end1, g1), (start2, _, g2) in zip(spans_of_user, spans_of_user[1:],
                                                      strict=False):
                if start2 < end1:
                    report.paired_twice.append(
                        f"{members.get(str(user), user)}: games {g1} and {g2}")
        twice = await db.rows(
            "SELECT user_id, COUNT(*) FROM queue_entries WHERE status = 'paired'"
            " GROUP BY user_id, game_id HAVING COUNT(*) > 1")
        report.paired_twice += [f"{members.get(str(u), u)}: {n} entries on one game"
                                for u, n in twice]
        boards = await db.rows("SELECT game_id, guild_id FROM game_boards")
        across = {int(g): str(guild) for g, guild in boards}
        report.games_across = len(across)
        report.games_within = report.pairs - report.games_across
        cluster_of = self.deployment.cluster_of
        report.games_across_clusters = sum(
            1 for game, guild, *_ in games
            if int(game) in across and cluster_of(str(guild)) is not cluster_of(across[int(game)]))

    async def _check_boards(self, report: Report) -> None:
        # Boards of a game, as the double holds them (a board posted twice shows here).
        by_game: dict[int, dict[str, list[str]]] = {}
        for message in self.double.store.order:
            if message.visible_to is not None:
                continue
            game = next((int(m.group(1)) for b in message.buttons
                         if (m := CELL_ID.match(str(b.get("custom_id", ""))))), None)
            if game is None:
                states = self.shown.get(message.id)
                game = next((int(m.group(1)) for _, look in (states.states if states else [])
                             for c, _, _ in look.cells if (m := CELL_ID.match(c))), None)
            if game is not None:
                by_game.setdefault(game, {}).setdefault(message.channel_id, []).append(message.id)
        for game, channels in by_game.items():
            for channel, ids in channels.items():
                if len(ids) > 1:
                    report.posted_twice.append(f"game {game}: {len(ids)} boards in {channel}")
        report.moves = len(self.sent)
        across: list[tuple[float, Move, list[float]]] = []
        last: dict[int, int] = {}
        for move in self.sent:
            last[move.game] = max(last.get(move.game, 0), move.ply)
        for move in self.sent:
            boards = sorted(m for ids in by_game.get(move.game, {}).values() for m in ids)
            times = []
            for board in boards:
                states = self.shown.get(board, Shown()).states
                first = next((t for t, look in states
                              if (look.ply or 0) >= move.ply or look.over), None)
                if first is None:
                    report.unseen.append(f"game {move.game} move {move.ply} on {board}")
                else:
                    times.append(first)
            if len(times) != len(boards) or not times:
                continue
            lag_ms = (max(times) - move.sent) * 1000
            if len(boards) != 2:
                report.one_board_ms.append(lag_ms)
                continue
            # A move made before the other board was posted shows when that board is posted.
            posted = max(self.shown[board].states[0][0] for board in boards)
            if posted > move.sent:
                report.before_posted_ms.append(lag_ms)
                continue
            report.both_boards_ms.append(lag_ms)
            if move.ply == last[move.game]:
                report.last_moves_ms.append(lag_ms)
            elif move.ply == 1:
                report.first_moves_ms.append(lag_ms)
            else:
                report.other_moves_ms.append(lag_ms)
            times.sort()
            report.first_board_ms.append((times[0] - move.sent) * 1000)
            report.second_after_ms.append((times[1] - times[0]) * 1000)
            across.append((lag_ms, move, times))
        across.sort(key=lambda found: -found[0])
        for lag_ms, move, times in across[:SLOWEST]:
            report.slowest.append(await self._steps(lag_ms, move, times))
        for game, channels in by_game.items():
            boards = [ids[0] for ids in channels.values()]
            if len(boards) != 2:
                continue
            # The last state each board showed at each number of moves played.
            settled = []
            for board in boards:
                at: dict[int | str, Look] = {}
                for _, look in self.shown.get(board, Shown()).states:
                    if look.over:
                        at["end"] = look
                    elif look.ply is not None:
                        at[look.ply] = look
                settled.append(at)
            for key in sorted(set(settled[0]) | set(settled[1]), key=str):
                first, second = settled[0].get(key), settled[1].get(key)
                if first is None or second is None:
                    continue  # a state one board skipped: counted above if a move never showed
                report.compared += 1
                if first != second:
                    report.differing.append(f"game {game} at {key}: {describe(first, second)}")


    async def _steps(self, lag_ms: float, move: Move, times: list[float]) -> str:
        """Where the time of one move between two servers went: from the member's move to the
        first board drawn (the interaction's answer), the other board's outbox row written, the
        other board landing at the double and its row marked sent."""
        # The database's times are the machine's clock; the double's are monotonic.
        offset = time.time() - time.monotonic()
        rows = await self.deployment.database.rows(
            "SELECT payload, created_at, sent_at, attempts FROM outbox"
            " WHERE kind = ? ORDER BY id", "game_board")
        sent_wall = move.sent + offset
        row = next((r for r in rows if float(r[1]) >= sent_wall - 0.001
                    and int(_payload(r[0]).get("game", -1)) == move.game), None)

        def at(wall: Any) -> str:
            return "-" if wall is None else f"{(float(wall) - sent_wall) * 1000:.0f}"

        steps = f"first board {(times[0] - move.sent) * 1000:.0f}"
        if row is not None:
            steps += (f", row written {at(row[1])}, other board "
                      f"{(times[-1] - move.sent) * 1000:.0f}, marked sent {at(row[2])}"
                      f" ({row[3]} failed tries)")
        else:
            steps += f", other board {(times[-1] - move.sent) * 1000:.0f} (no outbox row found)"
        return f"game {move.game} move {move.ply}: {lag_ms:.0f} ms; ms after the move: {steps}"


def _payload(raw: Any) -> dict[str, Any]:
    return json.loads(raw) if isinstance(raw, str | bytes) else dict(raw)


def describe(first: Look, second: Look) -> str:
    parts = [name for name in ("ply", "cells", "controls", "pictures", "over")
             if getattr(first, name) != getattr(second, name)]
    return "differ in " + ", ".join(parts)


def summary(report: Report) -> list[str]:
    def ms(values: list[float]) -> str:
        if not values:
            return "none"
        return (f"p50 {pct(values, 0.5):.0f} / p95 {pct(values, 0.95):.0f} / p99 "
                f"{pct(values, 0.99):.0f} / max {max(values, default=float('nan')):.0f} ms"
                f" ({len(values)} moves)")

    def secs(values: list[float]) -> str:
        return (f"p50 {pct(values, 0.5):.1f} / p95 {pct(values, 0.95):.1f} / max "
                f"{max(values, default=float('nan')):.1f} s ({len(values)} entries)")

    lines = [
        f"members                                 {report.members}",
        f"members queued                          {report.joined} ({report.entries} entries)",
        f"pairs made (games)                      {report.pairs}: {report.games_across} between"
        f" two servers ({report.games_across_clusters} of them across the two processes),"
        f" {report.games_within} within one; {report.games_finished} finished",
        f"join -> paired                          {secs(report.waits)}",
        f"partner waiting -> paired               {secs(report.partner_waits)}"
        f" (target: every one <= {PAIRED_WITHIN_S:.0f} s)",
        f"over {PAIRED_WITHIN_S:.0f} s / never paired with a partner   "
        f"{len(report.slow)} / {len(report.never_paired)}",
        f"members paired twice at once            {len(report.paired_twice)} (target 0)",
        f"moves played                            {report.moves}",
        f"two boards identical after each move    {report.compared - len(report.differing)}"
        f" of {report.compared} states compared; {len(report.differing)} differing (target 0)",
        f"boards posted twice                     {len(report.posted_twice)} (target 0)",
        f"click -> both boards updated            {ms(report.both_boards_ms)}",
        f"  the first of the two boards           {ms(report.first_board_ms)}",
        f"  the other board after the first       {ms(report.second_after_ms)}",
        f"  of them, the moves that ended a game  {ms(report.last_moves_ms)}",
        f"  of them, the first moves of a game    {ms(report.first_moves_ms)}",
        f"  of them, every other move             {ms(report.other_moves_ms)}",
        *(f"  slowest: {line}" for line in report.slowest),
        f"  a move before the other board's post  {ms(report.before_posted_ms)}",
        f"click -> the board updated (one server) {ms(report.one_board_ms)}",
        f"refused                                 {report.refused or 'none'}",
        *([f"a database round trip (SELECT 1)        p50 {pct(report.round_trips_ms, 0.5):.1f}"
           f" / p99 {pct(report.round_trips_ms, 0.99):.1f} ms ({len(report.round_trips_ms)}"
           " timed during the run)"] if report.round_trips_ms else []),
        *([f"database transactions                   {report.transactions:,}"
           f" ({report.transactions / max(1, report.moves):.1f} a move played), every process"]
          if report.transactions is not None else []),
        f"the double's process: collections       {len(report.collections_ms)}, of 20 ms or"
        f" more {sum(1 for c in report.collections_ms if c >= 20)}, longest"
        f" {max(report.collections_ms, default=0.0):.0f} ms",
        f"wall time                               {report.seconds:.0f} s",
    ]
    if report.load is not None:
        before, after = report.load
        lines.append("load average (1/5/15 min)               "
                     f"before {before[0]:.2f} {before[1]:.2f} {before[2]:.2f}, "
                     f"after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}"
                     f" on {os.cpu_count()} CPUs")
    return lines


async def main(args: argparse.Namespace) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="caro-queue-load-"))
    deployment = await deploy(workdir, layout=split_shards(args.clusters,
                                                           args.shards // args.clusters),
                              shard_count=args.shards, database=args.database)
    try:
        load = QueueLoad(deployment, members=args.members, seconds=args.seconds,
                         grace=args.grace, requeue=args.requeue,
                         think=(args.think[0], args.think[1]), moves=args.moves, seed=args.seed,
                         scope=args.scope)
        report = await load.run()
        # The figures first: a process that fails to stop must not take them with it.
        for line in summary(report):
            print(line, flush=True)
    finally:
        try:
            closing = await deployment.close()
        except AssertionError as exc:
            closing = [str(exc).split("\n")[0]]
    failures = report.failures() + closing
    for failure in failures:
        print(f"PROBLEM: {failure}", file=sys.stderr)
    if failures:
        print(f"the processes' logs are kept in {workdir}", file=sys.stderr)
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failures else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.queue_load",
                                     description=__doc__.split("\n")[0],
                                     epilog=f"This benchmark {NEEDS}.")
    parser.add_argument("--members", type=positive, default=100)
    parser.add_argument("--seconds", type=float, default=600.0,
                        help="members join at random moments of this many seconds")
    parser.add_argument("--grace", type=float, default=45.0,
                        help="how long members still waiting after --seconds wait on")
    parser.add_argument("--requeue", type=float, default=0.5,
                        help="the chance that a member queues again after a game")
    parser.add_argument("--think", type=float, nargs=2, default=(0.3, 2.0),
                        metavar=("MIN", "MAX"), help="seconds a member thinks before a move")
    parser.add_argument("--moves", choices=("quick", "random"), default="quick")
    parser.add_argument("--clusters", type=positive, default=2)
    parser.add_argument("--shards", type=positive, default=4,
                        help="shards in all (one server each), split between the clusters")
    parser.add_argument("--database", default="postgresql",
                        help="postgresql (a throwaway server) or a postgresql:// URL of an "
                        "empty database")
    parser.add_argument("--scope", choices=("any", "server"), default="any",
                        help="the members' /caro queue scope: any server (the default), or "
                        "their own only, so that every game is within one server: the same load's "
                        "single-server figures, to set beside a run of games between two")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.shards % args.clusters:
        parser.error("--shards must be a multiple of --clusters")
    return args


if __name__ == "__main__":
    arguments = parse_args()
    if MISSING is not None:
        sys.exit(f"python -m bench.queue_load {NEEDS} (missing: {MISSING.name}).")
    sys.exit(asyncio.run(main(arguments)))
