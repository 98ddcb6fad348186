"""Several cluster processes of the real bot on one database, against one Discord double: the
handle of one cluster, a whole deployment (double with a guild per shard, database, clusters)
for tests/test_clusters.py and the benchmarks (bench/load.py, bench/crash.py), and reading the
database whatever its backend."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import TOKEN, BotHandle
from tests.postgres import PostgresServer


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
        from tests.fault_helpers import shutdown

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


def resolve_database(database: str | None, workdir: Path) -> tuple[str, PostgresServer | None]:
    """`None`/"sqlite": a new SQLite file in workdir; "postgresql": a new throwaway PostgreSQL
    server (tests/postgres.py); else the URL or path as given."""
    if database in (None, "sqlite"):
        return str(workdir / "caro.db"), None
    if database in ("postgresql", "postgres"):
        server = PostgresServer.start()
        return server.create_database("caro_bench"), server
    if database.startswith(("postgresql://", "postgres://")):
        return database, None
    # The clusters run in their own folders: a relative SQLite path is made absolute here.
    return str(Path(database.removeprefix("sqlite:///")).resolve()), None


async def deploy(workdir: Path, *, layout: list[list[int]], shard_count: int,
                 database: str | None = None, guilds_per_shard: int = 1,
                 **env: str) -> Deployment:
    """Start everything at once and wait until every cluster is ready."""
    from tests.discord_double import DiscordDouble

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
