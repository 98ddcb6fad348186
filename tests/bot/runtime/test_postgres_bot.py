"""The real bot process on PostgreSQL: `CARO_DATABASE_URL=postgresql://…` against the Discord
double and a throwaway PostgreSQL server — a game played to its end and rated, the password kept
out of the log — and the one-line refusals before Discord is contacted when the database cannot
be used."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from bot.game.ratings import AI_ANCHORS, updated
from bot.runtime.config import SettingsError, load_settings
from engine import Board
from engine.solve.solver import perfect_move
from testkit.bot_process import TOKEN, StartBot, text_of

PASSWORD = "hunter2-pg-secret"
FINAL = ("**You win!**", "**The AI wins.**", "**Draw.**")
MANAGE_GUILD = 1 << 5


def cells(message: Any) -> list[dict[str, Any]]:
    """The cell buttons of a game message (custom_id caro:m:<game>:<ply>:<cell>)."""
    return [b for b in message.buttons if str(b.get("custom_id", "")).startswith("caro:m:")]


def board_of(message: Any) -> Board:
    """The 3x3 position drawn on a game message's buttons."""
    board = Board(3, 3, 3)
    stones: dict[str, list[tuple[int, int]]] = {"X": [], "O": []}
    for button in cells(message):
        if button.get("label") in stones:
            stones[button["label"]].append(
                board.parse_move(button["custom_id"].rsplit(":", 1)[1]))
    order = [stones["X"], stones["O"]]  # any interleaving gives the same position
    for i in range(len(stones["X"]) + len(stones["O"])):
        board.push(order[i % 2][i // 2])
    return board


async def play_out(member: Any, message: Any) -> Any:
    """Play `member`'s side perfectly until the game ends; the final message."""
    while True:
        message = await message.wait_for(
            lambda m: "Your turn" in text_of(m) or any(t in text_of(m) for t in FINAL),
            timeout=20)
        if any(t in text_of(message) for t in FINAL):
            return message
        board = board_of(message)
        result = await member.click(message, board.move_name(perfect_move(board)))
        assert result.callback_type == 7 and not result.ephemeral, result


def run_bot(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
    return subprocess.run([sys.executable, "-m", "bot"], env=base | env, cwd=cwd,
                          capture_output=True, text=True, timeout=60, check=False)


def with_password(dsn: str) -> str:
    # The test server trusts local connections, so any password logs in: what matters here is
    # that it never shows.
    return dsn.replace("postgresql://caro@", f"postgresql://caro:{PASSWORD}@", 1)


async def test_a_game_is_played_to_its_end_and_rated_on_postgresql(
    postgres_dsn: str, start_bot: StartBot
) -> None:
    # postgres_dsn first: the bot (start_bot) is stopped before its database is dropped.
    bot = await start_bot(CARO_DATABASE_URL=with_password(postgres_dsn))
    alice = bot.double.add_member("alice")
    started = await alice.slash("caro start", difficulty="easy")
    assert started.callback_type == 4 and not started.ephemeral
    end = await play_out(alice, started.message)
    assert "**You win!**" in text_of(end)
    stats = await alice.slash("caro stats")
    rating = updated(1200, AI_ANCHORS["easy"], "win")
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields[f"against the AI: rating {round(rating)}"].startswith("1 W / 0 D / 0 L")

    con = await asyncpg.connect(postgres_dsn)
    try:
        games = await con.fetch("SELECT status, winner, x_user_id, ply FROM games")
        assert [(g["status"], g["winner"], g["x_user_id"]) for g in games] == [
            ("finished", "X", int(alice.id))]
        assert await con.fetchval("SELECT COUNT(*) FROM moves") == games[0]["ply"]
        assert await con.fetchval("SELECT COUNT(*) FROM results") == 1
        global_rating = await con.fetchval(
            "SELECT rating FROM standings WHERE scope = 0 AND user_id = $1 AND mode = 'ai'",
            int(alice.id))
        assert global_rating == pytest.approx(rating)
        assert await con.fetchval("SELECT COUNT(*) FROM rating_changes") == 2
    finally:
        await con.close()
    # CARO_DATABASE_URL wins over the CARO_DB the harness also sets: no SQLite file appeared.
    assert not bot.db_path.exists()
    assert "database postgresql://" in bot.log_text()
    assert PASSWORD not in bot.log_text()


async def test_killed_mid_game_on_postgresql_the_move_resumes_and_the_clock_is_settled_once(
    postgres_dsn: str, start_bot: StartBot
) -> None:
    bot = await start_bot(CARO_DATABASE_URL=postgres_dsn, CARO_MIN_TIMEOUT_SECONDS="1",
                          CARO_AI_TIME_LIMIT="2")
    double = bot.double
    admin, alice, bob, carol = (double.add_member(n) for n in ("admin", "alice", "bob", "carol"))
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert (await admin.slash("caro settings", timeout=0.05)).ephemeral  # 3 s per move
    # A game between members whose clock will run out while the bot is down…
    challenge = await alice.slash("caro challenge", opponent=bob, first="me")
    assert (await bob.click(challenge.message, "Accept")).callback_type == 7
    # …and one against the AI, killed while the AI thinks.
    other = double.add_channel("other")
    start = await carol.slash("caro start", difficulty="impossible", size="5x5", channel_id=other)
    message = start.message
    await carol.click(message, "A1")
    assert "thinking" in text_of(message)
    assert await bot.stop(signal.SIGKILL) == -signal.SIGKILL
    await asyncio.sleep(3.5)
    await bot.start()
    message = await message.wait_for(lambda m: "Your turn" in text_of(m), timeout=30)
    await challenge.message.wait_for(lambda m: "ran out of time" in text_of(m), timeout=15)
    con = await asyncpg.connect(postgres_dsn)
    try:
        rows = await con.fetch("SELECT mode, status, end_reason, ply FROM games ORDER BY id")
        assert [tuple(r) for r in rows] == [("pvp", "finished", "timeout", 0),
                                             ("ai", "active", None, 2)]
        assert await con.fetchval("SELECT COUNT(*) FROM rating_changes") == 4
    finally:
        await con.close()


async def run_refused(env: dict[str, str], tmp_path: Path, code: int = 2) -> str:
    """The bot's last stderr line when it refuses to start (exit `code`: 2 for a bad setting, 1
    for a database nothing answers at) before contacting Discord."""
    from testkit.discord_double import DiscordDouble

    double = DiscordDouble(token=TOKEN)
    await double.start()
    try:
        done = await asyncio.to_thread(run_bot, {
            "DISCORD_TOKEN": TOKEN, "DISCORD_API_BASE": double.api_base,
            "DISCORD_GATEWAY_URL": double.gateway_url, **env}, tmp_path)
    finally:
        await double.stop()
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert PASSWORD not in done.stderr + done.stdout
    return done.stderr.strip().splitlines()[-1]


async def test_an_unreachable_server_stops_the_bot_with_one_line(tmp_path: Path) -> None:
    url = f"postgresql://caro:{PASSWORD}@/caro?host={tmp_path}/no-server-here"
    # Exit 1, not 2: the server may be down or starting (bench.soak restarted a killed process
    # during an outage), and a supervisor that never restarts a bad setting must restart this.
    last = await run_refused({"CARO_DATABASE_URL": url}, tmp_path, code=1)
    assert last == (
        f"Cannot reach PostgreSQL at {tmp_path}/no-server-here/.s.PGSQL.5432 (no such file or "
        f"directory): is it running? (CARO_DATABASE_URL is {url.replace(PASSWORD, '***')})"
    )


async def test_a_server_refusing_connections_is_named_by_host_and_port_not_as_a_bad_setting(
    tmp_path: Path,
) -> None:
    from testkit.startup import closed_port

    port = closed_port()
    url = f"postgresql://caro:{PASSWORD}@127.0.0.1:{port}/caro"
    last = await run_refused({"CARO_DATABASE_URL": url}, tmp_path, code=1)
    assert last == (
        f"Cannot reach PostgreSQL at 127.0.0.1:{port} (connection refused): is it running? "
        f"(CARO_DATABASE_URL is postgresql://caro:***@127.0.0.1:{port}/caro)"
    )


async def test_a_login_the_server_refuses_stops_the_bot_with_one_line(
    tmp_path: Path, postgres_dsn: str
) -> None:
    url = postgres_dsn.replace("postgresql://caro@", f"postgresql://intruder:{PASSWORD}@", 1)
    last = await run_refused({"CARO_DATABASE_URL": url}, tmp_path)
    assert "cannot use the database" in last and '"intruder" does not exist' in last


async def test_a_postgres_database_from_a_newer_version_stops_the_bot(
    tmp_path: Path, postgres_dsn: str
) -> None:
    con = await asyncpg.connect(postgres_dsn)
    try:
        await con.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY,"
                          " name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        await con.execute("INSERT INTO schema_migrations VALUES (99, 'future')")
        last = await run_refused({"CARO_DATABASE_URL": postgres_dsn}, tmp_path)
        assert "(CARO_DATABASE_URL) has schema version 99, newer than this version" in last
        assert await con.fetchval("SELECT to_regclass('games')") is None  # nothing created
    finally:
        await con.close()


def test_the_database_setting_url_or_path() -> None:
    base = {"DISCORD_TOKEN": TOKEN}
    assert load_settings(base, dotenv=False).db_path == "caro.db"
    assert load_settings(base | {"CARO_DB": "/srv/caro.db"}, dotenv=False).db_path == "/srv/caro.db"
    url = "postgresql://caro@db.internal:5432/caro"
    both = load_settings(base | {"CARO_DB": "/srv/caro.db", "CARO_DATABASE_URL": url},
                         dotenv=False)
    assert both.db_path == url
    lite = load_settings(base | {"CARO_DATABASE_URL": "sqlite:///data/caro.db"}, dotenv=False)
    assert lite.db_path == "sqlite:///data/caro.db"
    secret = load_settings(base | {"CARO_DATABASE_URL": f"postgresql://caro:{PASSWORD}@db/caro"},
                           dotenv=False)
    assert PASSWORD in secret.secrets and TOKEN in secret.secrets
    assert PASSWORD not in repr(secret)
    for bad, problem in (("mysql://db/caro", "expected sqlite:///"),
                         ("sqlite:///", "no file named"),
                         (f"postgresql://caro:{PASSWORD}@db:99999/caro", "port")):
        with pytest.raises(SettingsError) as refused:
            load_settings(base | {"CARO_DATABASE_URL": bad}, dotenv=False)
        message = str(refused.value)
        assert message.startswith("Setting CARO_DATABASE_URL is invalid") and problem in message
        assert PASSWORD not in message


async def test_the_url_chooses_the_backend(tmp_path: Path, postgres_dsn: str) -> None:
    from bot.storage import PostgresStorage, SqliteStorage, open_database

    lite = await open_database(f"sqlite:///{tmp_path}/caro.db")
    pg = await open_database(postgres_dsn)
    try:
        assert isinstance(lite, SqliteStorage) and (tmp_path / "caro.db").is_file()
        assert isinstance(pg, PostgresStorage) and await pg.schema_version() >= 1
    finally:
        await lite.close()
        await pg.close()


def test_a_sqlite_url_is_checked_like_caro_db_and_named_as_set(tmp_path: Path) -> None:
    from bot.runtime.preflight import PreflightError, check_database

    with pytest.raises(PreflightError) as refused:
        check_database(f"sqlite:///{tmp_path}/missing/caro.db")
    assert str(refused.value).startswith("Setting CARO_DATABASE_URL is invalid:")
    assert "does not exist" in str(refused.value)
    check_database(f"sqlite:///{tmp_path}/caro.db")  # a new file in a writable folder: fine
    with pytest.raises(PreflightError, match="Setting CARO_DB is invalid"):
        check_database(str(tmp_path / "missing" / "caro.db"))
