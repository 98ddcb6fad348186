"""Several cluster processes of the real bot on one database, against one Discord double: the
handle of one cluster, a whole deployment (double with a guild per shard, database, clusters)
for tests/bot/runtime/test_clusters.py and the benchmarks (bench/load.py, bench/crash.py), and
reading the database whatever its backend."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sqlite3
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.game.ratings import START_RATING
from testkit.bot_process import TOKEN, BotHandle
from testkit.discord_double import InteractionFailed
from testkit.faults import (
    CrashCampaign,
    Seat,
    cell_buttons,
    child_pids,
    game_id_of,
    is_over,
    players_turn,
    shutdown,
    stones_of,
    text_of,
)
from testkit.postgres import PostgresServer
from testkit.sqlite_rows import player_result


class Cluster(BotHandle):
    """One cluster process (`python -m bot` with CARO_SHARD_COUNT / CARO_SHARD_IDS); several
    share one double. Ready when the double sees each of its shards connected and the bot says
    it is ready (every shard's guilds in, AI workers up)."""

    def __init__(self, double: Any, workdir: Path, shard_ids: list[int], shard_count: int,
                 env: dict[str, str]) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        super().__init__(double, workdir, {
            "CARO_SHARD_COUNT": str(shard_count),
            "CARO_SHARD_IDS": ",".join(map(str, shard_ids)),
            # Several guilds: the commands are registered globally, not in one test guild.
            "DISCORD_GUILD_ID": "",
            **env,
        })
        self.shard_ids = shard_ids
        self.shard_count = shard_count

    @property
    def name(self) -> str:
        return self.workdir.name

    async def start(self, *, wait: bool = True) -> None:
        assert self.process is None, "already running"
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child process
        try:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.workdir, env=self.env(), stdout=log,
                stderr=asyncio.subprocess.STDOUT, stdin=asyncio.subprocess.DEVNULL,
            )
        finally:
            log.close()
        if wait:
            await self.wait_ready()

    async def wait_ready(self, timeout: float = 60) -> None:
        assert self.process is not None
        live = asyncio.ensure_future(
            self.double.wait_shards(self.shard_ids, self.shard_count, timeout=timeout))
        exited = asyncio.ensure_future(self.process.wait())
        await asyncio.wait({live, exited}, return_when=asyncio.FIRST_COMPLETED)
        exited.cancel()
        if not live.done():
            live.cancel()
            raise AssertionError(f"{self.name} exited with {self.process.returncode} before it "
                                 f"was ready\n--- log ---\n{self.log_text()}")
        if live.exception() is not None:
            raise AssertionError(f"{live.exception()}\n--- log ---\n{self.log_text()}")
        # Connected is not yet settled: wait for on_ready (every shard's guilds in, the work
        # owed from before started) and the AI workers, in this start's part of the log.
        starts = len(self.exit_codes) + 1
        for _ in range(int(timeout * 10)):
            log = self.log_text()
            if log.count("AI workers ready") >= starts and log.count("connected as") >= starts:
                return
            if self.process.returncode is not None:
                break
            await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name} not ready\n--- log ---\n{self.log_text()}")


class Database:
    """Direct reads of the bot's database for checks (SQLite file or PostgreSQL URL); SQL is
    written with `?` placeholders and numbered for PostgreSQL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.is_postgres = url.startswith(("postgresql://", "postgres://"))
        self.path = None if self.is_postgres else Path(url.removeprefix("sqlite:///"))

    async def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        if self.path is not None:
            path = self.path

            def read() -> list[tuple[Any, ...]]:
                with contextlib.closing(sqlite3.connect(path)) as db:
                    return [tuple(r) for r in db.execute(sql, params).fetchall()]

            return await asyncio.to_thread(read)
        import asyncpg

        parts = sql.split("?")
        text = parts[0] + "".join(f"${n}{part}" for n, part in enumerate(parts[1:], start=1))
        con = await asyncpg.connect(self.url)
        try:
            return [tuple(r) for r in await con.fetch(text, *params)]
        finally:
            await con.close()

    async def size_mb(self) -> float:
        if self.path is not None:
            files = self.path.parent.glob(self.path.name + "*")
            return sum(p.stat().st_size for p in files) / 1024 / 1024
        [(size,)] = await self.rows("SELECT pg_database_size(current_database())")
        return float(size) / 1024 / 1024


@dataclass
class Deployment:
    """A double with `guilds_per_shard` guilds on each shard, one database, and one cluster
    process per list of shard ids."""

    double: Any
    clusters: list[Cluster]
    database: Database
    workdir: Path
    server: PostgresServer | None = None
    guilds: list[str] = field(default_factory=list)

    def cluster_of(self, guild_id: str) -> Cluster:
        for cluster in self.clusters:
            if self.double.shard_of(guild_id, cluster.shard_count) in cluster.shard_ids:
                return cluster
        raise LookupError(f"no cluster holds guild {guild_id}")

    def pids(self) -> list[int]:
        return [c.process.pid for c in self.clusters if c.process is not None]

    async def close(self, *, allow_violations: bool = False) -> list[str]:
        """Stop the clusters (SIGTERM), the double and a PostgreSQL server started here; the
        problems a clean run must not have."""
        problems: list[str] = []
        for cluster in self.clusters:
            if cluster.process is not None:
                code = await cluster.stop()
                if code != 0:
                    problems.append(f"{cluster.name} exited with {code} on SIGTERM")
            log = cluster.log_text()
            if "Traceback" in log:
                problems.append(f"{cluster.name} logged a traceback")
            if TOKEN in log:
                problems.append(f"the token appears in {cluster.name}'s log")
        # A handle without a process or a log: shutdown() then stops the double and checks the
        # Discord rules (the clusters' logs were checked above, one by one).
        nobody = BotHandle(self.double, self.workdir / "none", {})
        problems += await shutdown(self.double, nobody, allow_violations=allow_violations)
        if self.server is not None:
            self.server.stop()
        return problems


def split_shards(clusters: int, shards_per_cluster: int) -> list[list[int]]:
    """[[0, 1], [2, 3]] for 2 clusters of 2: consecutive shard ids per cluster."""
    return [list(range(n * shards_per_cluster, (n + 1) * shards_per_cluster))
            for n in range(clusters)]


def resolve_database(
    database: str | None, workdir: Path, settings: Mapping[str, str] | None = None
) -> tuple[str, PostgresServer | None]:
    """`None`/"sqlite": a new SQLite file in workdir; "postgresql": a new throwaway PostgreSQL
    server (testkit/postgres.py; `settings` as PostgresServer.start takes them); else the URL or
    path as given."""
    if database in (None, "sqlite"):
        return str(workdir / "caro.db"), None
    if database in ("postgresql", "postgres"):
        server = PostgresServer.start(settings)
        try:
            return server.create_database("caro_bench"), server
        except BaseException:
            server.stop()
            raise
    if database.startswith(("postgresql://", "postgres://")):
        return database, None
    # The clusters run in their own folders: a relative SQLite path is made absolute here.
    return str(Path(database.removeprefix("sqlite:///")).resolve()), None


async def deploy(workdir: Path, *, layout: list[list[int]], shard_count: int,
                 database: str | None = None, guilds_per_shard: int = 1,
                 **env: str) -> Deployment:
    """Start everything at once and wait until every cluster is ready."""
    from testkit.discord_double import DiscordDouble

    url, server = resolve_database(database, workdir)
    if len(layout) > 1 and not Database(url).is_postgres:
        if server is not None:
            server.stop()
        raise ValueError("several clusters need a database they can share: PostgreSQL "
                         "(an SQLite file belongs to one process)")
    double = DiscordDouble(token=TOKEN)
    await double.start()
    double.shard_count = shard_count
    guilds = [double.add_guild(f"guild {n} on shard {shard}", shard=(shard, shard_count))
              for shard in range(shard_count) for n in range(guilds_per_shard)]
    workdir.mkdir(parents=True, exist_ok=True)
    clusters = [Cluster(double, workdir / f"cluster{n}", ids, shard_count,
                        {"CARO_DATABASE_URL": url if "://" in url else f"sqlite:///{url}", **env})
                for n, ids in enumerate(layout)]
    deployment = Deployment(double, clusters, Database(url), workdir, server, guilds)
    try:
        for cluster in clusters:
            await cluster.start(wait=False)
        await asyncio.gather(*(cluster.wait_ready() for cluster in clusters))
        await double.wait_ready()  # the commands are registered (by the cluster of shard 0)
    except BaseException:
        for cluster in clusters:
            if cluster.process is not None and cluster.process.returncode is None:
                cluster.process.kill()
                await cluster.process.wait()
            cluster.process = None
        await double.stop()
        if server is not None:
            server.stop()
        raise
    return deployment


class ClusterCrashCampaign:
    """testkit/faults.CrashCampaign for a deployment: players in guilds on every shard play
    against the AI while a random cluster is SIGKILLed, then restarted; the checks read the
    database through `Database`, so they hold on SQLite and on PostgreSQL alike:
    every acknowledged move stored, every game a player saw finish stored finished with one
    result, stats and ratings changed exactly once per rated game (rating changes chain from
    the start rating to the standing, with no change lost or doubled), and every board back to
    the stored position after the restart."""

    def __init__(self, deployment: Deployment, rng: Any, players: int = 6) -> None:
        self.deployment = deployment
        self.double = deployment.double
        self.rng = rng
        levels, sizes = ("easy", "normal"), ("3x3", "4x4", "5x5")
        guilds = deployment.guilds
        self.seats = [
            Seat(self.double.add_member(f"player{i}", guild_id=guilds[i % len(guilds)]),
                 levels[i % 2], sizes[i % 3])
            for i in range(players)
        ]
        self.kills = 0
        self.kills_per_cluster = {c.name: 0 for c in deployment.clusters}
        self.worker_pids: set[int] = set()

    async def round(self, seconds: float) -> list[str]:
        """Play for `seconds`, SIGKILL one cluster, check the database, restart it, check the
        boards."""
        tasks = [asyncio.ensure_future(self._play(seat)) for seat in self.seats]
        await asyncio.wait(tasks, timeout=seconds)
        victim = self.rng.choice(self.deployment.clusters)
        assert victim.process is not None
        self.worker_pids |= set(child_pids(victim.process.pid))
        await victim.stop(signal.SIGKILL)
        self.kills += 1
        self.kills_per_cluster[victim.name] += 1
        for task in tasks:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        problems = [f"player crashed: {r!r}" for r in results
                    if isinstance(r, BaseException) and not isinstance(
                        r, asyncio.CancelledError | InteractionFailed)]
        problems += await self.check_stored()
        await victim.start()
        problems += await self.check_boards()
        return problems

    async def stored_moves(self, game: int) -> dict[int, tuple[str, bool]]:
        rows = await self.deployment.database.rows(
            "SELECT ply, cell, by_ai FROM moves WHERE game_id = ? ORDER BY ply", game)
        return {int(ply): (str(cell), bool(by_ai)) for ply, cell, by_ai in rows}

    # The players' side of a round and the end-of-run checks are the single-bot campaign's
    # (they use only the double, the seats, the random source and the worker pids).
    async def _play(self, seat: Seat) -> None:
        await CrashCampaign._play(self, seat)  # type: ignore[arg-type]

    def leftover_workers(self) -> list[int]:
        return CrashCampaign.leftover_workers(self)  # type: ignore[arg-type]

    def unexpected_violations(self) -> list[str]:
        return CrashCampaign.unexpected_violations(self)  # type: ignore[arg-type]

    async def check_stored(self) -> list[str]:
        db = self.deployment.database
        problems: list[str] = []
        # Every move and every game's outcome in two reads, not one per acknowledged move: a
        # campaign checks after each kill, and by its end it has thousands of moves to check.
        stored = {
            (int(game), int(ply)): (str(cell), bool(by_ai))
            for game, ply, cell, by_ai in await db.rows(
                "SELECT game_id, ply, cell, by_ai FROM moves")
        }
        outcomes: dict[int, list[tuple[Any, ...]]] = {}
        for game, *outcome in await db.rows(
            f"SELECT g.id, g.status, {player_result('g')}, COUNT(r.game_id) FROM games g"
            " LEFT JOIN results r ON r.game_id = g.id"
            " GROUP BY g.id, g.status, g.winner, g.x_user_id"
        ):
            outcomes[int(game)] = [tuple(outcome)]
        for seat in self.seats:
            for game, ply, cell in seat.acked:
                if stored.get((game, ply)) != (cell, False):
                    problems.append(f"acknowledged move {cell} (game {game}, ply {ply}) lost")
            for game, result in seat.finished.items():
                rows = outcomes.get(game, [])
                if rows != [("finished", result, 1)]:
                    problems.append(f"finished game {game} ({result}) is stored as {rows}")
        wrong_ply = await db.rows(
            "SELECT g.id FROM games g WHERE g.ply != (SELECT COUNT(*) FROM moves m"
            " WHERE m.game_id = g.id)")
        if wrong_ply:
            problems.append(f"games whose ply does not match their moves: {wrong_ply}")
        orphans = await db.rows(
            "SELECT r.game_id FROM results r JOIN games g ON g.id = r.game_id"
            f" WHERE g.status != 'finished' OR {player_result('g')} != r.result")
        if orphans:
            problems.append(f"results for games not finished that way: {orphans}")
        # Each finished rated game against the AI moved its member's rating in two scopes (the
        # server's and the global one), once each.
        changes = await db.rows(
            "SELECT g.id, COUNT(c.game_id) FROM games g LEFT JOIN rating_changes c"
            " ON c.game_id = g.id WHERE g.status = 'finished' AND g.rated AND g.mode = 'ai'"
            " GROUP BY g.id HAVING COUNT(c.game_id) != 2")
        if changes:
            problems.append(f"finished games without exactly 2 rating changes: {changes}")
        problems += await rating_chain_problems(db)
        return problems

    async def check_boards(self, timeout: float = 20) -> list[str]:
        """Every player's board comes back to what is stored, and playable or finished."""
        problems = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        for seat in self.seats:
            message = seat.message
            if message is None or not cell_buttons(message):
                continue
            game = game_id_of(message)
            while True:
                stored_moves = await self.stored_moves(game)
                stored = {c: ("O" if ai else "X") for c, ai in stored_moves.values()}
                if "(X) vs AI" not in text_of(message):
                    stored = {c: ("X" if s == "O" else "O") for c, s in stored.items()}
                if stones_of(message) == stored and (players_turn(message) or is_over(message)):
                    break
                if loop.time() > deadline:
                    problems.append(f"game {game}: board not back to the stored state after "
                                    f"the restart: shows {stones_of(message)} / "
                                    f"{text_of(message)!r}, stored {stored_moves}")
                    break
                await asyncio.sleep(0.1)
        return problems


async def rating_chain_problems(db: Database) -> list[str]:
    """Per member and scope (against the AI): the standing counts as many games as there are
    rating changes, and the changes chain from the start rating to the standing's rating. A lost
    update (two writers computing from the same rating) leaves two changes starting from the
    same rating; a doubled one, more changes than games."""
    problems: list[str] = []
    standings = await db.rows(
        "SELECT scope, user_id, rating, wins + draws + losses FROM standings WHERE mode = 'ai'")
    for scope, user, rating, games in standings:
        steps = await db.rows(
            "SELECT before, after FROM rating_changes WHERE scope = ? AND user_id = ?"
            " AND mode = 'ai'", scope, user)
        if len(steps) != games:
            problems.append(f"member {user} scope {scope}: {games} games counted, "
                            f"{len(steps)} rating changes")
            continue
        if not steps:
            continue
        befores = sorted(round(float(b), 6) for b, _ in steps)
        # In a chain every change starts where another ended, or at the start rating, and the
        # one nobody continued is the standing.
        starts = sorted([round(START_RATING, 6)] + [round(float(a), 6) for _, a in steps])
        end = round(float(rating), 6)
        if end not in starts:
            problems.append(f"member {user} scope {scope}: rating {rating} is not the end of "
                            "its changes")
            continue
        starts.remove(end)
        if befores != starts:
            problems.append(f"member {user} scope {scope}: rating changes do not chain "
                            f"(befores {befores}, expected {starts})")
    return problems
