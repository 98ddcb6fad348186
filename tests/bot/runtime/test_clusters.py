"""Sharded clusters: CARO_SHARD_COUNT / CARO_SHARD_IDS / CARO_CLUSTER as settings, the cluster and
shard on every log line, one process holding two shards (SQLite), and two cluster processes of
two shards each on one PostgreSQL database, through the Discord double: games on every shard, the
global leaderboard the same from both, one player's games finishing at once on both clusters, a
cluster SIGKILLed mid-game while the other keeps answering, clocks that ran out while it was down
settled once, and two clusters starting together on an empty database migrating it once."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import discord
import pytest

from bot.game.options import parse_options
from bot.game.ratings import AI_ANCHORS, updated
from bot.game.services import build_services
from bot.runtime import patches
from bot.runtime.config import Settings, SettingsError, load_settings
from bot.runtime.logs import LINE_FORMAT, ClusterTag, current_shard
from bot.storage import open_database
from engine.solve.solver import perfect_move
from testkit.boards import play_out
from testkit.bot_process import TOKEN, BotHandle, text_of
from testkit.clusters import Cluster, Database, Deployment, deploy, rating_chain_problems
from testkit.thinkers import Thinker

MANAGE_GUILD = 1 << 5
AI_EASY_RATING = AI_ANCHORS["easy"]


def settings(**env: str) -> Settings:
    return load_settings({"DISCORD_TOKEN": TOKEN, **env}, dotenv=False)


# ----------------------------------------------------------------- settings


def test_shard_settings_take_ranges_and_lists() -> None:
    unset = settings()
    assert (unset.shard_count, unset.shard_ids, unset.cluster) == (None, None, "main")
    assert unset.syncs_commands
    four = settings(CARO_SHARD_COUNT="4", CARO_SHARD_IDS="0-3")
    assert (four.shard_count, four.shard_ids, four.cluster) == (4, (0, 1, 2, 3), "shards-0-3")
    odd = settings(CARO_SHARD_COUNT="8", CARO_SHARD_IDS=" 5, 1-2 ,7")
    assert odd.shard_ids == (1, 2, 5, 7) and odd.cluster == "shards-1-2,5,7"
    assert not odd.syncs_commands  # shard 0 is another cluster's: that one syncs
    named = settings(CARO_SHARD_COUNT="4", CARO_SHARD_IDS="0,2", CARO_CLUSTER="eu-1")
    assert named.shard_ids == (0, 2) and named.cluster == "eu-1" and named.syncs_commands
    # A count alone: this process runs every shard of it.
    assert settings(CARO_SHARD_COUNT="3").shard_ids is None


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"CARO_SHARD_COUNT": "0"},
         "Setting CARO_SHARD_COUNT is invalid: expected a whole number of shards from 1 to 65536, "
         "got '0'"),
        ({"CARO_SHARD_COUNT": "two"},
         "Setting CARO_SHARD_COUNT is invalid: expected a whole number of shards from 1 to 65536, "
         "got 'two'"),
        ({"CARO_SHARD_IDS": "0-1"},
         "Setting CARO_SHARD_IDS is invalid: it needs CARO_SHARD_COUNT too (the number of shards "
         "of all clusters)"),
        ({"CARO_SHARD_COUNT": "2", "CARO_SHARD_IDS": "0-2"},
         "Setting CARO_SHARD_IDS is invalid: expected shard ids such as 0-3 or 0,2 (each from 0 "
         "to 1), got '0-2'"),
        ({"CARO_SHARD_COUNT": "4", "CARO_SHARD_IDS": "3-1"},
         "Setting CARO_SHARD_IDS is invalid: expected shard ids such as 0-3 or 0,2 (each from 0 "
         "to 3), got '3-1'"),
        ({"CARO_SHARD_COUNT": "4", "CARO_SHARD_IDS": "0;1"},
         "Setting CARO_SHARD_IDS is invalid: expected shard ids such as 0-3 or 0,2 (each from 0 "
         "to 3), got '0;1'"),
        ({"CARO_SHARD_COUNT": "4", "CARO_SHARD_IDS": "0,"},
         "Setting CARO_SHARD_IDS is invalid: expected shard ids such as 0-3 or 0,2 (each from 0 "
         "to 3), got '0,'"),
        ({"CARO_SHARD_COUNT": "4", "CARO_SHARD_IDS": "0-2,1"},
         "Setting CARO_SHARD_IDS is invalid: a shard is named twice in '0-2,1'"),
        ({"CARO_CLUSTER": "eu 1"},
         "Setting CARO_CLUSTER is invalid: expected a name of 1 to 32 letters, digits, '.', '_' "
         "or '-' (starting with a letter or digit), got 'eu 1'"),
    ],
)
def test_bad_shard_settings_are_refused_naming_the_setting(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(SettingsError) as refused:
        settings(**env)
    assert str(refused.value) == message


def test_a_bad_shard_setting_stops_the_program_with_one_line_and_exit_2(tmp_path: Path) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
    done = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env=clean | {"DISCORD_TOKEN": TOKEN, "CARO_SHARD_COUNT": "2", "CARO_SHARD_IDS": "2"},
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "Setting CARO_SHARD_IDS is invalid: expected shard ids such as 0-3 or 0,2 (each from 0 to "
        "1), got '2'"
    ]


# ----------------------------------------------------------------- log lines


def test_an_interactions_log_lines_carry_the_cluster_and_its_guilds_shard() -> None:
    """The mark is set where discord.py parses INTERACTION_CREATE, so whatever it starts from
    there (here: the parser itself logging, and a task it creates) carries the guild's shard."""
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(self.format(record))

    handler = Collect()
    handler.setFormatter(logging.Formatter(LINE_FORMAT))
    handler.addFilter(ClusterTag("eu-1"))
    log = logging.getLogger("caro.test.clusters")
    log.addHandler(handler)
    log.propagate = False
    log.setLevel(logging.INFO)

    async def scenario() -> None:
        client = discord.AutoShardedClient(intents=discord.Intents.none(), shard_count=4)
        parsers: dict[str, Any] = client._connection.parsers
        started: list[asyncio.Task[None]] = []

        async def later(data: dict[str, Any]) -> None:
            log.info("task for interaction %s", data["id"])

        def parse(data: dict[str, Any]) -> None:
            log.info("parsing interaction %s", data["id"])
            started.append(asyncio.get_running_loop().create_task(later(data)))

        parsers["INTERACTION_CREATE"] = parse
        patches.filter_repeated_interactions(client, patches.RepeatFilter())
        on_shard_3 = (1 << 22) * 7  # (id >> 22) % 4 == 3
        client._connection.parsers["INTERACTION_CREATE"]({"id": "1", "guild_id": str(on_shard_3)})
        client._connection.parsers["INTERACTION_CREATE"]({"id": "2"})  # a DM: no guild
        log.info("outside any interaction")
        await asyncio.gather(*started)

    try:
        asyncio.run(scenario())
    finally:
        log.removeHandler(handler)
    tags = [re.search(r"\[(.*?)\] caro\.test\.clusters: (.*)", line).groups()  # type: ignore[union-attr]
            for line in lines]
    assert tags == [
        ("eu-1 shard 3", "parsing interaction 1"),
        ("eu-1 shard -", "parsing interaction 2"),
        ("eu-1 shard -", "outside any interaction"),
        ("eu-1 shard 3", "task for interaction 1"),
        ("eu-1 shard -", "task for interaction 2"),
    ]
    assert current_shard.get() is None


# ----------------------------------------------------------------- the crash campaign's checks


async def test_the_crash_checks_find_a_lost_or_a_doubled_rating_update(tmp_path: Path) -> None:
    """bench.crash --clusters relies on these checks to say "0 lost or doubled rating changes":
    they must fail on exactly those."""
    path = tmp_path / "caro.db"
    storage = await open_database(path)
    svc = build_services(storage, Thinker())
    for _ in range(2):
        state = await svc.games.start(guild_id=10, channel_id=20, player_id=30,
                                  options=parse_options("easy", "3x3"), rng=random.Random(1))
        await svc.games.resign(state.id, 30)
    await storage.close()
    db = Database(str(path))
    assert await rating_chain_problems(db) == []

    with sqlite3.connect(path) as con:
        # A lost update, as two writers reading the same rating would leave it: the second game
        # computed from the start rating too, and its result overwrote the first's.
        [(first_after,)] = con.execute(
            "SELECT after FROM rating_changes WHERE scope = 0 ORDER BY game_id LIMIT 1").fetchall()
        con.execute("UPDATE rating_changes SET before = 1200.0, after = ? WHERE scope = 0"
                    " AND game_id = (SELECT MAX(game_id) FROM rating_changes)", (first_after,))
        con.execute("UPDATE standings SET rating = ? WHERE scope = 0", (first_after,))
    [lost] = await rating_chain_problems(db)
    assert lost.startswith("member 30 scope 0: rating changes do not chain")

    with sqlite3.connect(path) as con:
        # A doubled update: the server's standing counts a game more than its changes.
        con.execute("UPDATE standings SET losses = losses + 1 WHERE scope = 10")
    problems = await rating_chain_problems(db)
    assert "member 30 scope 10: 3 games counted, 2 rating changes" in problems


# ----------------------------------------------------------------- cluster processes


StartClusters = Callable[..., Awaitable[Deployment]]


@pytest.fixture
async def start_clusters(tmp_path: Path) -> AsyncIterator[StartClusters]:
    """`await start_clusters([[0, 1], [2, 3]], 4, database=dsn, CARO_...=...)`: a double with one
    guild on each shard, and one cluster process per list of shard ids, all started at once."""
    deployments: list[Deployment] = []

    async def start(layout: list[list[int]], shard_count: int, database: str | None = None,
                    **env: str) -> Deployment:
        deployment = await deploy(tmp_path / f"run{len(deployments)}", layout=layout,
                                  shard_count=shard_count, database=database, **env)
        deployments.append(deployment)
        return deployment

    yield start

    problems: list[str] = []
    for deployment in deployments:
        problems += await deployment.close()
    if problems:
        logs = "\n".join(f"--- {c.name} ---\n{c.log_text()}"
                         for d in deployments for c in d.clusters)
        pytest.fail("; ".join(problems) + "\n" + logs)


def guild_on(double: Any, shard: int, shard_count: int) -> str:
    return next(g for g in double.guild_ids if double.shard_of(g, shard_count) == shard)


def member_in(double: Any, name: str, guild_id: str) -> Any:
    return double.add_member(name, guild_id=guild_id)


async def test_without_shard_settings_one_process_runs_the_count_discord_recommends(
    tmp_path: Path,
) -> None:
    from testkit.discord_double import DiscordDouble
    from testkit.faults import shutdown

    double = DiscordDouble(token=TOKEN)
    await double.start()
    double.shard_count = 2  # what GET /gateway/bot answers
    second = double.add_guild("on shard 1", shard=(1, 2))
    (tmp_path / "bot").mkdir()
    bot = BotHandle(double, tmp_path / "bot", {"DISCORD_GUILD_ID": ""})
    try:
        await bot.start()
        await double.wait_shards(range(2), 2)
        alice = member_in(double, "alice", second)
        started = await alice.slash("caro start", difficulty="easy")
        assert started.callback_type == 4 and not started.ephemeral
    finally:
        problems = await shutdown(double, bot)
    log = bot.log_text()
    assert problems == [], log
    assert "Discord recommends 2 shard(s)" in log
    # Both shards of the recommended count identified, each with its [id, count].
    assert {s.shard for s in double.gateway.identified} == {(0, 2), (1, 2)}
    assert re.search(r"\[main shard 1\] caro\.bot: game 1 started", log), log


async def test_one_process_holding_both_shards_answers_in_guilds_on_each_and_logs_the_shard(
    start_clusters: StartClusters,
) -> None:
    deployment = await start_clusters([[0, 1]], 2)  # SQLite: one process owns every shard
    double, [bot] = deployment.double, deployment.clusters
    for shard in (0, 1):
        guild = guild_on(double, shard, 2)
        admin = member_in(double, f"admin{shard}", guild)
        admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
        assert (await admin.slash("caro settings", timeout=5)).ephemeral
        alice = member_in(double, f"alice{shard}", guild)
        started = await alice.slash("caro start", difficulty="easy")
        assert started.callback_type == 4 and started.message.channel_id == alice.channel_id
        end = await play_out(alice, started.message, perfect_move)
        assert "**You win!**" in text_of(end)
    log = bot.log_text()
    # The settings change is logged while answering the interaction: tagged with its shard.
    for shard in (0, 1):
        guild = guild_on(double, shard, 2)
        assert re.search(rf"\[shards-0-1 shard {shard}\] caro\.bot: guild {guild}: server settings",
                         log), log
    assert "connected as caro-bot" in log and "shards 0,1 of 2" in log
    assert await deployment.database.rows("SELECT COUNT(*) FROM results") == [(2,)]


# ----------------------------------------------------------------- two clusters, one PostgreSQL

TWO_CLUSTERS = [[0, 1], [2, 3]]


@dataclass(frozen=True)
class TwoServers:
    """Two clusters on one database, alice in a server of the first and dave in one of the
    second, each with the server's channel."""

    deployment: Deployment
    guilds: list[str]
    channels: list[str]
    alice: Any
    dave: Any

    @property
    def double(self) -> Any:
        return self.deployment.double


async def two_servers(start_clusters: StartClusters, dsn: str) -> TwoServers:
    deployment = await start_clusters(TWO_CLUSTERS, 4, database=dsn)
    double = deployment.double
    guilds = [guild_on(double, 1, 4), guild_on(double, 2, 4)]  # one on each cluster
    return TwoServers(deployment, guilds, [double.guilds[g].channel_id for g in guilds],
                      member_in(double, "alice", guilds[0]), member_in(double, "dave", guilds[1]))


@dataclass(frozen=True)
class PairedAcross:
    """Alice and dave paired from the queue, alice first: the game's own board in her server
    (`board`, posted by the first cluster), dave's in his (`there`, by the second)."""

    servers: TwoServers
    board: Any
    there: Any

    @property
    def x(self) -> Any:
        alice = self.servers.alice
        return alice if f"<@{alice.id}> (X)" in str(text_of(self.board)) else self.servers.dave

    @property
    def o(self) -> Any:
        return self.servers.dave if self.x is self.servers.alice else self.servers.alice

    def board_of(self, member: Any) -> Any:
        return self.board if member is self.servers.alice else self.there

    def channel_of(self, member: Any) -> str:
        return self.servers.channels[0 if member is self.servers.alice else 1]


async def paired_across(start_clusters: StartClusters, dsn: str, *, rated: bool = True
                        ) -> PairedAcross:
    from tests.bot.cogs.test_queue import posted_board

    servers = await two_servers(start_clusters, dsn)
    double, channels = servers.double, servers.channels
    first = await servers.alice.slash("caro queue", channel_id=channels[0], rated=rated)
    second = await servers.dave.slash("caro queue", channel_id=channels[1], rated=rated)
    board = await posted_board(double, channels[0], first.message.id, timeout=20)
    there = await posted_board(double, channels[1], second.message.id, timeout=20)
    return PairedAcross(servers, board, there)


async def fetch(dsn: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    con = await asyncpg.connect(dsn)
    try:
        return [tuple(row) for row in await con.fetch(sql, *args)]
    finally:
        await con.close()


async def every_row_sent(dsn: str, timeout: float) -> None:
    """Wait until every row of the outbox is sent (none left waiting, none given up)."""
    unsent = "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL"
    for _ in range(int(timeout * 10)):
        if await fetch(dsn, unsent) == [(0,)]:
            return
        await asyncio.sleep(0.1)
    assert await fetch(dsn, unsent) == [(0,)]


def cells_of(message: Any) -> list[tuple[str, str, bool]]:
    """A board's cell buttons: cell and ply drawn at (the id), stone, whether clickable."""
    return [(str(b["custom_id"]), str(b.get("label")), bool(b.get("disabled")))
            for b in message.buttons if str(b.get("custom_id", "")).startswith("caro:m:")]


def shards_in_log(cluster: Cluster, what: str) -> set[int]:
    """The shards tagged on this cluster's log lines that contain `what`."""
    return {int(s) for s in re.findall(rf"\[shards-[\d,-]+ shard (\d+)\] [^\n]*{what}",
                                       cluster.log_text())}


async def test_two_clusters_started_at_once_on_an_empty_database_migrate_it_once(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    clusters = (await start_clusters(TWO_CLUSTERS, 4, database=postgres_dsn)).clusters
    files = sorted(Path("bot/storage/postgres/migrations").glob("*.sql"))
    applied = await fetch(postgres_dsn, "SELECT version FROM schema_migrations ORDER BY version")
    assert applied == [(n,) for n in range(1, len(files) + 1)]
    for cluster in clusters:
        assert f"ready (schema {len(files)})" in cluster.log_text()
    # One sync: only the cluster holding shard 0 registered the commands.
    first, second = (c.log_text() for c in clusters)
    assert "synced 1 command(s) globally" in first
    assert "synced" not in second
    assert "commands are registered by the cluster holding shard 0" in second


async def test_two_clusters_answer_games_on_every_shard_and_show_one_global_leaderboard(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    deployment = await start_clusters(TWO_CLUSTERS, 4, database=postgres_dsn)
    double, clusters = deployment.double, deployment.clusters
    guilds = [guild_on(double, shard, 4) for shard in range(4)]
    alice = member_in(double, "alice", guilds[0])
    for guild in guilds[1:]:
        double.join(alice, guild)
    for guild in guilds:
        channel = double.guilds[guild].channel_id
        started = await alice.slash("caro start", channel_id=channel, difficulty="easy")
        assert started.callback_type == 4 and not started.ephemeral
        end = await play_out(alice, started.message, perfect_move)
        assert "**You win!**" in text_of(end)
    # Each game was played by the cluster holding its guild's shard.
    assert shards_in_log(clusters[0], "started: 3x3") == {0, 1}
    assert shards_in_log(clusters[1], "started: 3x3") == {2, 3}

    seen_from = []
    for guild in (guilds[0], guilds[3]):  # one guild on each cluster
        viewer = member_in(double, f"viewer in {guild}", guild)
        board = await viewer.slash("caro leaderboard", scope="global", mode="ai")
        seen_from.append(board.embeds)
    assert seen_from[0] == seen_from[1]
    rating = 1200.0
    for _ in guilds:
        rating = updated(rating, AI_EASY_RATING, "win")
    assert seen_from[0][0]["description"] == (
        f"**1.** <@{alice.id}>: {round(rating)} (4 W / 0 D / 0 L)"
    )


async def test_one_players_games_finishing_at_once_on_two_clusters_both_change_the_rating(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    double = (await start_clusters(TWO_CLUSTERS, 4, database=postgres_dsn)).double
    on_first, on_second = guild_on(double, 1, 4), guild_on(double, 2, 4)
    bob = member_in(double, "bob", on_first)
    double.join(bob, on_second)
    channels = [double.guilds[g].channel_id for g in (on_first, on_second)]
    for channel in channels:
        started = await bob.slash("caro start", channel_id=channel, difficulty="easy",
                                  size="9x9", first="me")
        assert started.callback_type == 4 and not started.ephemeral
    # Both resignations reach their clusters together: two transactions on the same global
    # rating row at the same moment.
    resigned = await asyncio.gather(
        *(bob.slash("caro resign", channel_id=channel) for channel in channels))
    assert all(r.callback_type == 4 for r in resigned), resigned
    two_losses = updated(updated(1200.0, AI_EASY_RATING, "loss"), AI_EASY_RATING, "loss")
    [(rating, losses)] = await fetch(
        postgres_dsn,
        "SELECT rating, losses FROM standings WHERE scope = 0 AND user_id = $1 AND mode = 'ai'",
        int(bob.id))
    assert (rating, losses) == (pytest.approx(two_losses), 2)
    changes = await fetch(
        postgres_dsn,
        "SELECT before, after FROM rating_changes WHERE scope = 0 AND user_id = $1"
        " ORDER BY before DESC", int(bob.id))
    # Chained: the second game started from the first one's result, not from 1200 again.
    assert len(changes) == 2 and changes[0][1] == pytest.approx(changes[1][0])
    # Each server's own rating moved once.
    per_server = await fetch(
        postgres_dsn, "SELECT scope, losses FROM standings WHERE scope != 0 AND user_id = $1"
        " ORDER BY scope", int(bob.id))
    assert sorted(per_server) == sorted([(int(on_first), 1), (int(on_second), 1)])


async def test_a_cluster_killed_mid_game_leaves_the_other_answering_then_resumes_its_games(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    deployment = await start_clusters(TWO_CLUSTERS, 4, database=postgres_dsn,
                                      CARO_MIN_TIMEOUT_SECONDS="1", CARO_AI_TIME_LIMIT="2")
    double, (first, second) = deployment.double, deployment.clusters
    mine, others = guild_on(double, 3, 4), guild_on(double, 0, 4)  # second's, first's
    admin = member_in(double, "admin", mine)
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert (await admin.slash("caro settings", timeout=0.05)).ephemeral  # 3 s per move
    alice, bob, carol = (member_in(double, n, mine) for n in ("alice", "bob", "carol"))
    # On the cluster about to die: a game between members whose clock runs out while it is
    # down, and one against the AI killed while the AI thinks.
    challenge = await alice.slash("caro challenge", opponent=bob, first="me")
    assert (await bob.click(challenge.message, "Accept")).callback_type == 7
    other_channel = double.add_channel("other", guild_id=mine)
    thinking = await carol.slash("caro start", difficulty="impossible", size="5x5",
                                 channel_id=other_channel)
    await carol.click(thinking.message, "A1")
    assert "thinking" in text_of(thinking.message)
    assert await second.stop(signal.SIGKILL) == -signal.SIGKILL

    # The other cluster keeps answering its guilds meanwhile.
    dave = member_in(double, "dave", others)
    started = await dave.slash("caro start", difficulty="easy")
    end = await play_out(dave, started.message, perfect_move)
    assert "**You win!**" in text_of(end)
    await asyncio.sleep(3.5)  # alice's 3 seconds ran out while her cluster was down
    assert "ran out of time" not in text_of(challenge.message)  # not the other cluster's to settle

    await second.start()
    await thinking.message.wait_for(lambda m: "Your turn" in text_of(m), timeout=30)
    await challenge.message.wait_for(lambda m: "ran out of time" in text_of(m), timeout=15)
    rows = await fetch(postgres_dsn,
                       "SELECT guild_id, mode, status, end_reason, ply FROM games ORDER BY id")
    assert rows == [(int(mine), "pvp", "finished", "timeout", 0),
                    (int(mine), "ai", "active", None, 2),
                    (int(others), "ai", "finished", "line", rows[2][4])]
    # Settled once: ratings moved once per member and scope (2 members x 2 scopes for the
    # timeout, 1 member x 2 scopes for dave's win).
    assert await fetch(postgres_dsn, "SELECT COUNT(*) FROM rating_changes") == [(6,)]
    logs = first.log_text() + second.log_text()
    assert len(re.findall(r"game 1: X ran out of time", logs)) == 1
    assert shards_in_log(second, "game 1: X ran out of time") == {3}
    assert "resuming the AI's pending move" in second.log_text()
    assert "resuming" not in first.log_text()


async def test_two_clusters_pair_the_queues_of_their_own_servers_each_member_once(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    deployment = await start_clusters(TWO_CLUSTERS, 4, database=postgres_dsn)
    double, clusters = deployment.double, deployment.clusters
    guilds = [guild_on(double, 1, 4), guild_on(double, 2, 4)]  # one on each cluster
    members = [member_in(double, f"m{n}", guilds[n // 2]) for n in range(4)]
    queued = await asyncio.gather(*(
        m.slash("caro queue", channel_id=double.guilds[guilds[n // 2]].channel_id,
                scope="server")
        for n, m in enumerate(members)
    ))
    assert all(q.callback_type == 4 and not q.ephemeral for q in queued), queued
    for q in queued:
        await q.message.wait_for(lambda m: "was paired with" in str(text_of(m)), timeout=20)
    rows = await fetch(postgres_dsn, "SELECT user_id, game_id FROM queue_entries ORDER BY id")
    assert len(rows) == 4 and len({user for user, _ in rows}) == 4
    games = await fetch(postgres_dsn, "SELECT id, guild_id, message_id FROM games ORDER BY id")
    assert len(games) == 2 and all(message is not None for _, _, message in games)
    # Each server's pair played in that server, paired and posted by the cluster holding it.
    assert {str(guild) for _, guild, _ in games} == set(guilds)
    assert shards_in_log(clusters[0], "paired: game") == {1}
    assert shards_in_log(clusters[1], "paired: game") == {2}


async def test_a_game_between_servers_on_two_clusters_shows_each_move_on_both_boards(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    from bot.cogs.outbox import LOOK_EVERY_S
    from tests.bot.cogs.test_openings import typed

    game = await paired_across(start_clusters, postgres_dsn)
    servers, board, there, x, o = game.servers, game.board, game.there, game.x, game.o
    double, clusters, guilds = servers.double, servers.deployment.clusters, servers.guilds
    assert "**Dave** (1200)" in text_of(board) and "**Alice** (1200)" in text_of(there)
    lags: list[float] = []
    for n, (member, cell) in enumerate(
        [(x, "H8"), (o, "A1"), (x, "H9"), (o, "A2"), (x, "H10"), (o, "A3"), (x, "H11"),
         (o, "A4"), (x, "H12")], start=1,
    ):
        answer = await typed(member, game.board_of(member), cell)
        assert answer.callback_type in (4, 6, 7), answer
        clicked = time.monotonic()
        await game.board_of(o if member is x else x).wait_for(
            lambda m, n=n: f"Moves played: {n}." in str(text_of(m)), timeout=15)
        # Drawn by the other cluster, woken by the database (NOTIFY), not at its next look.
        lags.append(time.monotonic() - clicked)
        await game.board_of(member).wait_for(
            lambda m, n=n: f"Moves played: {n}." in str(text_of(m)), timeout=15)
    # Tens of milliseconds when woken; 0 to LOOK_EVERY_S (5 s) at the sender's next look.
    assert max(lags) < 1.5 < LOOK_EVERY_S, lags
    for shown in (board, there):
        await shown.wait_for(lambda m: "wins!" in str(text_of(m)), timeout=15)
    # Each board redrawn by the cluster holding its server, through the outbox.
    rows = await fetch(postgres_dsn, "SELECT guild_id, COUNT(*) FROM outbox"
                       " WHERE kind = 'game_board' AND sent_at IS NOT NULL GROUP BY guild_id")
    assert {str(guild) for guild, _ in rows} == set(guilds)
    assert "outbox: post" in clusters[0].log_text() and "outbox: post" in clusters[1].log_text()
    # Every turn ping, in either server, was removed when its turn passed (by the cluster that
    # holds its server, whichever cluster drew the move).
    pings = [m for m in double.store.order if str(text_of(m)).endswith(", your move.")]
    assert pings, pings
    # The game's end removes the last one after the boards' last edits: it may still be going.
    for ping in pings:
        await ping.wait_for(lambda m: m.deleted, timeout=15)
    assert double.violations == []


async def test_a_takeback_between_servers_on_two_clusters_is_asked_in_one_and_accepted_in_other(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    from testkit.boards import refusal
    from tests.bot.cogs.test_openings import typed
    from tests.bot.cogs.test_queue_takeback import new_message

    game = await paired_across(start_clusters, postgres_dsn, rated=False)
    double, guilds, channels = game.servers.double, game.servers.guilds, game.servers.channels
    board, there, x, o = game.board, game.there, game.x, game.o
    x_channel, o_channel = game.channel_of(x), game.channel_of(o)
    await typed(x, game.board_of(x), "H8")
    for shown in (board, there):
        await shown.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=15)
    # Asked on X's cluster; the request is posted in O's server by O's cluster, which gets the
    # Accept; each board goes back, drawn by the cluster holding its server.
    assert "was asked, in their own server" in refusal(
        await x.slash("caro takeback", channel_id=x_channel))
    request = await new_message(double, o_channel, "asks to take back", timeout=20)
    assert (await o.click(request, "Accept")).callback_type == 7
    for shown in (board, there):
        await shown.wait_for(lambda m: "Moves played: 0." in str(text_of(m)), timeout=15)
    await new_message(double, x_channel, f"<@{x.id}>, ", timeout=20)
    assert await fetch(postgres_dsn, "SELECT ply, takebacks FROM games") == [(0, 1)]
    rows = await fetch(postgres_dsn, "SELECT kind, guild_id FROM outbox"
                       " WHERE kind LIKE 'takeback%' AND sent_at IS NOT NULL ORDER BY id")
    assert [(kind, str(guild)) for kind, guild in rows] == [
        ("takeback_request", guilds[channels.index(o_channel)]),
        ("takeback_answer", guilds[channels.index(x_channel)]),
    ]
    # X plays on from the position before the takeback.
    await typed(x, game.board_of(x), "H9")
    for shown in (board, there):
        await shown.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=15)
    assert double.violations == []


async def test_a_ping_in_one_cluster_goes_when_the_game_ends_in_the_other(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    from testkit.gates import until
    from tests.bot.cogs.test_openings import typed

    game = await paired_across(start_clusters, postgres_dsn)
    double, x, o = game.servers.double, game.x, game.o
    x_board, o_board = game.board_of(x), game.board_of(o)
    await typed(x, x_board, "H8")
    # O is called in their own server, by the cluster holding it.
    await until(lambda: any(text_of(m) == f"<@{o.id}>, your move." and not m.deleted
                            for m in double.store.order), 15.0)
    # X resigns on their board, in the other cluster: O's call goes with the game.
    asked = await x.click(x_board, "Resign")
    yes = next(b["custom_id"] for b in asked.message.buttons if b["label"] == "Yes, resign")
    await x.click_custom_id(asked.message, yes)
    await o_board.wait_for(lambda m: "resigned.**" in str(text_of(m)), timeout=15)
    await until(lambda: all(m.deleted for m in double.store.order
                            if text_of(m) == f"<@{o.id}>, your move."), 15.0)


# X's line on the H file, O's on the A file: X wins with its fifth move, the game's ninth.
WINNING_LINE = [("x", "H8"), ("o", "A1"), ("x", "H9"), ("o", "A2"), ("x", "H10"), ("o", "A3"),
                ("x", "H11"), ("o", "A4"), ("x", "H12")]


async def test_the_winning_move_shows_on_both_boards_while_the_other_boards_cluster_is_down(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    """The cluster of the click draws the game's end on the other server's board too, ratings
    included: it needs nothing of the cluster holding that server, which tidies up after the
    game once it is back."""
    from tests.bot.cogs.test_openings import typed

    game = await paired_across(start_clusters, postgres_dsn)
    servers, board, there = game.servers, game.board, game.there
    sides = {"x": game.x, "o": game.o}
    *before, (_, last) = WINNING_LINE
    for n, (side, cell) in enumerate(before, start=1):
        await typed(sides[side], game.board_of(sides[side]), cell)
        for shown in (board, there):
            await shown.wait_for(lambda m, n=n: f"Moves played: {n}." in str(text_of(m)),
                                 timeout=15)
    victim = servers.deployment.clusters[0 if game.o is servers.alice else 1]
    assert await victim.stop(signal.SIGKILL) == -signal.SIGKILL
    await typed(game.x, game.board_of(game.x), last)
    for shown in (board, there):
        await shown.wait_for(lambda m: "wins!" in str(text_of(m)), timeout=15)
        assert "Global rating" in str(text_of(shown))
    await victim.start()
    await every_row_sent(postgres_dsn, 20.0)
    # The end's row for the other board was drawn by the click's cluster; the one that told
    # the other cluster to tidy up drew nothing.
    assert await fetch(
        postgres_dsn, "SELECT payload->>'tidy', message_id IS NOT NULL, attempts FROM outbox"
        " WHERE kind = 'game_board' ORDER BY id DESC LIMIT 2") == [("1", False, 0),
                                                                   (None, True, 0)]
    assert servers.double.violations == []


async def test_a_call_sent_late_in_one_cluster_goes_when_a_move_in_the_other_ends_the_game(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    """O's call to move reaches Discord only after O moved (Discord was slow to answer it): O's
    cluster removes it as soon as it lands, its turn having passed, and the game's end, which X's
    cluster draws on both boards, leaves no call behind."""
    from testkit.gates import until
    from tests.bot.cogs.test_openings import typed

    game = await paired_across(start_clusters, postgres_dsn)
    double, board, there = game.servers.double, game.board, game.there
    sides = {"x": game.x, "o": game.o}
    call = f"<@{game.o.id}>, your move."

    async def move(n: int) -> None:
        side, cell = WINNING_LINE[n - 1]
        await typed(sides[side], game.board_of(sides[side]), cell)
        for shown in (board, there):
            await shown.wait_for(lambda m: f"Moves played: {n}." in str(text_of(m)), timeout=15)

    for n in range(1, 7):
        await move(n)
    # The call after X's seventh move is held by Discord.
    held = double.fail_next("POST", rf"^/channels/{game.channel_of(game.o)}/messages$",
                            status=500, mode="hold", content=re.escape(call))
    await move(7)
    await until(lambda: held.held == 1, 15.0)
    await move(8)

    def calls() -> list[Any]:
        return [m for m in double.store.order if text_of(m) == call]

    # O moved: Discord answers the held call with a 500, discord.py's retry makes it, and it goes.
    before = len(calls())
    held.release()
    await until(lambda: len(calls()) == before + 1, 20.0)
    await until(lambda: all(m.deleted for m in calls()), 15.0)
    await move(9)
    for shown in (board, there):
        await shown.wait_for(lambda m: "wins!" in str(text_of(m)), timeout=15)
    await until(lambda: all(m.deleted for m in double.store.order if text_of(m) == call), 15.0)
    assert double.violations == []


async def test_members_queueing_at_random_on_two_clusters_are_paired_once_with_identical_boards(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    """bench.queue_load, small: 12 members of four servers (two on each cluster) join at random
    over 30 s, play their games out on their own boards and may queue again."""
    from bench.queue_load import QueueLoad, summary

    deployment = await start_clusters(TWO_CLUSTERS, 4, database=postgres_dsn)
    load = QueueLoad(deployment, members=12, seconds=30, grace=20, requeue=0.5,
                     think=(0.1, 0.4), moves="quick", seed=3)
    report = await load.run()
    shown = "\n".join(summary(report))
    assert report.failures() == [], shown
    # Every member queued and was paired each time, in time; none twice at once.
    assert report.joined == 12 and report.slow == report.never_paired == [], shown
    assert report.paired_twice == [], shown
    # Games between servers of the two clusters were played, and their two boards were the
    # same after every move.
    assert report.games_across_clusters >= 1 and report.compared > 0, shown
    assert report.differing == [] and report.unseen == [], shown
    assert report.games_finished == report.pairs, shown
    # The database's round trip was timed under the run's load, beside the moves.
    assert report.round_trips_ms and min(report.round_trips_ms) > 0, shown


async def test_members_queueing_for_their_own_server_only_play_one_board_games(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    """bench.queue_load --scope server: the same members' load with every game within one
    server, whose click -> board figures are the baseline for games between two."""
    from bench.queue_load import QueueLoad, summary

    deployment = await start_clusters(TWO_CLUSTERS, 4, database=postgres_dsn)
    load = QueueLoad(deployment, members=8, seconds=8, grace=15, requeue=0.0,
                     think=(0.1, 0.3), moves="quick", seed=5, scope="server")
    report = await load.run()
    shown = "\n".join(summary(report))
    assert report.failures() == [], shown
    assert report.pairs >= 1 and report.games_across == 0, shown
    assert report.one_board_ms and report.both_boards_ms == [], shown
    assert report.games_finished == report.pairs, shown


@pytest.mark.parametrize("killed", ["second", "first"])
async def test_a_game_between_servers_goes_on_on_both_boards_after_either_cluster_is_killed(
    postgres_dsn: str, start_clusters: StartClusters, killed: str
) -> None:
    """The cluster holding one board is SIGKILLed mid-game; a move made meanwhile on the board
    of the other cluster shows on both (the process of the click draws both), the game goes on
    to its end with each move on both boards once the cluster is back, and nothing is posted
    twice."""
    from tests.bot.cogs.test_openings import typed

    game = await paired_across(start_clusters, postgres_dsn)
    servers, board, there, x, o = game.servers, game.board, game.there, game.x, game.o
    double, clusters, channels = servers.double, servers.deployment.clusters, servers.channels
    alice, dave = servers.alice, servers.dave
    victim, survivor = (clusters[1], alice) if killed == "second" else (clusters[0], dave)
    moves = iter([(x, "H8"), (o, "A1"), (x, "H9"), (o, "A2"), (x, "H10"), (o, "A3"),
                  (x, "H11"), (o, "A4"), (x, "H12")])
    played = 0

    async def move(member: Any, cell: str, shown_on: tuple[Any, ...]) -> None:
        nonlocal played
        answer = await typed(member, game.board_of(member), cell)
        assert answer.callback_type in (4, 6, 7), answer
        played += 1
        for shown in shown_on:
            await shown.wait_for(lambda m, n=played: f"Moves played: {n}." in str(text_of(m)),
                                 timeout=30)
        if len(shown_on) == 2:
            # The same cells on both: a cluster that draws its board first after the restart
            # shows the window the other board followed, not one around the last move.
            assert cells_of(board) == cells_of(there), (played, board.buttons, there.buttons)

    # Up to the survivor's turn, each move on both boards.
    member, cell = next(moves)
    await move(member, cell, (board, there))
    if member is survivor:
        member, cell = next(moves)
        await move(member, cell, (board, there))
    assert await victim.stop(signal.SIGKILL) == -signal.SIGKILL
    # The survivor moves while the other cluster is down: the survivor's process draws it on
    # both boards.
    member, cell = next(moves)
    assert member is survivor
    await move(member, cell, (board, there))
    await victim.start()
    for member, cell in moves:
        await move(member, cell, (board, there))
    for shown in (board, there):
        await shown.wait_for(lambda m: "wins!" in str(text_of(m)), timeout=30)
    # Nothing posted twice: one board in each server, and each member called at most once a
    # turn, in their own channel.
    turns = {x.id: 4, o.id: 4}  # the calls of the turns after the first: X's 4, O's 4
    for channel, member, own in ((channels[0], alice, board), (channels[1], dave, there)):
        assert [m for m in double.store.order if m.channel_id == channel
                and m.id != own.id and "Moves played" in str(text_of(m))] == []
        pings = [m for m in double.store.order if m.channel_id == channel
                 and text_of(m) == f"<@{member.id}>, your move."]
        assert len(pings) <= turns[member.id], pings
    # Every row of the outbox was sent in the end, none given up.
    await every_row_sent(postgres_dsn, 10.0)
    assert double.violations == []


async def test_a_board_posted_after_the_first_move_shows_the_window_the_other_board_followed(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    """The game's own board is posted late (Discord holds its post) and the member of the other
    server moves first on theirs: both boards then show the same cells, the window the first
    board followed from the centre, not one centred on the move."""
    from testkit.gates import until
    from tests.bot.cogs.test_openings import typed
    from tests.bot.cogs.test_queue import posted_board

    servers = await two_servers(start_clusters, postgres_dsn)
    double, guilds, channels = servers.double, servers.guilds, servers.channels
    alice, dave, erin = servers.alice, servers.dave, member_in(double, "erin", guilds[0])
    # Entries 2 and 3 draw X for the second (bot.game.queue.queued_game): dave, of the other
    # server, plays first.
    gone = await erin.slash("caro queue", channel_id=double.add_channel("x", guild_id=guilds[0]))
    await erin.click(gone.message, "Leave")
    held = double.fail_next("POST", rf"^/channels/{channels[0]}/messages$", status=500,
                            mode="hold")
    first = await alice.slash("caro queue", channel_id=channels[0])
    second = await dave.slash("caro queue", channel_id=channels[1])
    there = await posted_board(double, channels[1], second.message.id, timeout=20)
    assert f"<@{dave.id}> (X)" in str(text_of(there))
    await until(lambda: held.held == 1, 15.0)
    # Just below the first window (rows 6 to 9): it moves down one row to show the move.
    assert (await typed(dave, there, "H10")).callback_type in (4, 6, 7)
    held.release()
    board = await posted_board(double, channels[0], first.message.id, timeout=30)
    await board.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=15)
    assert cells_of(board) == cells_of(there), (board.buttons, there.buttons)
    assert (await typed(alice, board, "A1")).callback_type in (4, 6, 7)
    for shown in (board, there):
        await shown.wait_for(lambda m: "Moves played: 2." in str(text_of(m)), timeout=15)
    assert cells_of(board) == cells_of(there), (board.buttons, there.buttons)


async def test_the_second_board_posted_after_the_first_move_shows_it(
    postgres_dsn: str, start_clusters: StartClusters
) -> None:
    """Discord holds the post of the board in the other server while X moves on the game's own
    board: once posted, that board is drawn again with the move, and the same cells."""
    from testkit.gates import until
    from tests.bot.cogs.test_openings import typed
    from tests.bot.cogs.test_queue import posted_board

    servers = await two_servers(start_clusters, postgres_dsn)
    double, channels, alice, dave = servers.double, servers.channels, servers.alice, servers.dave
    held = double.fail_next("POST", rf"^/channels/{channels[1]}/messages$", status=500,
                            mode="hold")
    first = await alice.slash("caro queue", channel_id=channels[0])
    second = await dave.slash("caro queue", channel_id=channels[1])
    board = await posted_board(double, channels[0], first.message.id, timeout=20)
    # Entries 1 and 2 draw X for the first: alice.
    assert f"<@{alice.id}> (X)" in str(text_of(board))
    await until(lambda: held.held == 1, 15.0)
    assert (await typed(alice, board, "H10")).callback_type in (4, 6, 7)
    held.release()
    there = await posted_board(double, channels[1], second.message.id, timeout=30)
    await there.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=15)
    assert cells_of(board) == cells_of(there), (board.buttons, there.buttons)
