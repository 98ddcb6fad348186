"""`caro-bot` as an operator meets it: each bad setting is one line and exit 2, each refusal or
unreachable Discord one line and exit 1, never a traceback; --help, --version and --sync; the
database checked before anything is sent to Discord; a lost Discord logged one line per reconnect
attempt, and a prompt stop while it is away. The real program runs as a subprocess throughout."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sqlite3
import subprocess
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from bot.runtime import config
from bot.runtime import main as bot_main
from bot.runtime.config import MAX_SNOWFLAKE, Settings, load_settings
from testkit.bot_process import TOKEN
from testkit.faults import launch, shutdown
from testkit.startup import closed_port, run_bot


def only_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one line the program printed on stderr (after any log lines), with no traceback."""
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines, done
    return lines[-1]


# ------------------------------------------------------------------ settings: exit 2, one line

SERVER_ID = "expected a server id (a whole number written with the digits 0-9), got"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DISCORD_GUILD_ID", "¹²³", f"{SERVER_ID} '¹²³'"),
        ("DISCORD_GUILD_ID", "１２３", f"{SERVER_ID} '１２３'"),
        ("DISCORD_GUILD_ID", "0", f"expected a server id from 1 to {MAX_SNOWFLAKE}, got 0"),
        ("DISCORD_GUILD_ID", str(2**64),
         f"expected a server id from 1 to {MAX_SNOWFLAKE}, got {2**64}"),
        ("DISCORD_API_BASE", "discord.com",
         "expected an http(s) URL such as https://discord.com/api/v10, got 'discord.com'"),
        ("DISCORD_API_BASE", "https://discord.com/api/v9",
         "expected a URL ending in /api/v10 (like https://discord.com/api/v10), "
         "got 'https://discord.com/api/v9'"),
        ("DISCORD_API_BASE", "http://127.0.0.1:99999/api/v10",
         "the port in 'http://127.0.0.1:99999/api/v10' is not a number from 1 to 65535"),
        ("DISCORD_GATEWAY_URL", "gateway.discord.gg",
         "expected a ws:// or wss:// URL such as wss://gateway.discord.gg/, "
         "got 'gateway.discord.gg'"),
        ("DISCORD_GATEWAY_URL", "https://gateway.discord.gg",
         "expected a ws:// or wss:// URL such as wss://gateway.discord.gg/, "
         "got 'https://gateway.discord.gg'"),
        ("CARO_AI_TIME_LIMIT", "5000",
         "expected a number of seconds above 0 and below 3600, got '5000'"),
        ("CARO_QUICK_REPLY_SECONDS", "3",
         "expected a number of seconds above 0 and below 2.5, got '3'"),
        ("CARO_WATCH_DELAY_SECONDS", "nan",
         "expected a number of seconds above 0 and below 86400, got 'nan'"),
        ("CARO_LOG_LEVEL", "LOUD", "expected DEBUG, INFO, WARNING or ERROR, got 'LOUD'"),
        ("CARO_AI_WORKERS", "0",
         "expected a whole number of worker processes from 1 to 64, got '0'"),
        ("CARO_AI_WORKERS", "two",
         "expected a whole number of worker processes from 1 to 64, got 'two'"),
        ("CARO_FAST_DRAWING", "maybe",
         "expected 1, true, yes or on, or 0, false, no or off, got 'maybe'"),
    ],
)
def test_a_bad_setting_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, name: str, value: str, message: str
) -> None:
    done = run_bot(tmp_path, DISCORD_TOKEN=TOKEN, **{name: value})
    assert done.returncode == 2
    assert done.stderr == f"Setting {name} is invalid: {message}\n"
    assert not (tmp_path / "caro.db").exists()


def test_a_token_pasted_as_the_server_id_is_not_echoed(tmp_path: Path) -> None:
    token = "MTQ2OTk5NzEyMzQ1Njc4OTAx.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"
    done = run_bot(tmp_path, DISCORD_TOKEN=token, DISCORD_GUILD_ID=token)
    assert done.returncode == 2
    assert done.stderr == (
        "Setting DISCORD_GUILD_ID is invalid: expected a server id (a whole number written with "
        "the digits 0-9), got '[redacted]'\n"
    )


def test_settings_accept_what_discord_and_proxies_use() -> None:
    settings = load_settings({
        "DISCORD_TOKEN": "t", "DISCORD_GUILD_ID": str(MAX_SNOWFLAKE),
        "DISCORD_API_BASE": "https://proxy.example:8443/discord/api/v10/",
        "DISCORD_GATEWAY_URL": "wss://proxy.example/gateway?v=10",
    })
    assert settings.guild_id == MAX_SNOWFLAKE
    assert settings.api_base == "https://proxy.example:8443/discord/api/v10"
    assert settings.gateway_url == "wss://proxy.example/gateway?v=10"
    assert settings.force_sync is False
    assert settings.ai_workers == 2


def test_the_ai_pool_is_sized_by_caro_ai_workers() -> None:
    assert load_settings({"DISCORD_TOKEN": "t", "CARO_AI_WORKERS": " 1 "}).ai_workers == 1
    assert load_settings({"DISCORD_TOKEN": "t", "CARO_AI_WORKERS": "64"}).ai_workers == 64


def test_fast_drawing_is_on_unless_turned_off() -> None:
    assert load_settings({"DISCORD_TOKEN": "t"}).fast_drawing is True
    for off in ("0", "false", "False", " no ", "OFF"):
        assert load_settings({"DISCORD_TOKEN": "t", "CARO_FAST_DRAWING": off}).fast_drawing is False
    for on in ("1", "true", "Yes", "on"):
        assert load_settings({"DISCORD_TOKEN": "t", "CARO_FAST_DRAWING": on}).fast_drawing is True


# ------------------------------------------------------------------ the database: before Discord

def db_refusal(tmp_path: Path, db: Path | str) -> str:
    # Discord here is a closed port: a program that tried it would say so instead (exit 1).
    done = run_bot(tmp_path, DISCORD_TOKEN=TOKEN, CARO_DB=str(db),
                   DISCORD_API_BASE=f"http://127.0.0.1:{closed_port()}/api/v10")
    assert done.returncode == 2, done
    assert done.stdout == ""
    return done.stderr


def test_a_database_in_a_missing_folder_is_refused_before_connecting(tmp_path: Path) -> None:
    db = tmp_path / "nowhere" / "caro.db"
    assert db_refusal(tmp_path, db) == (
        f"Setting CARO_DB is invalid: {db}: the folder {db.parent} does not exist\n"
    )


def test_a_database_path_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    assert db_refusal(tmp_path, tmp_path) == (
        f"Setting CARO_DB is invalid: {tmp_path} is a directory; give a file path such as "
        f"{tmp_path}/caro.db\n"
    )


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a database\n")
    assert db_refusal(tmp_path, notes) == f"Setting CARO_DB is invalid: {notes} is not an SQLite database\n"
    assert notes.read_text() == "my notes, not a database\n"


def test_a_database_in_a_place_that_cannot_be_written_is_refused(tmp_path: Path) -> None:
    # /proc takes no new files, even from root (chmod would not stop root).
    assert db_refusal(tmp_path, "/proc/caro.db").startswith(
        "Setting CARO_DB is invalid: /proc/caro.db: cannot write in /proc ("
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in read-only folders")
def test_a_database_in_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert db_refusal(tmp_path, folder / "caro.db") == (
            f"Setting CARO_DB is invalid: {folder}/caro.db: cannot write in {folder} "
            "(Permission denied)\n"
        )
    finally:
        folder.chmod(0o755)


def test_a_damaged_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "caro.db"
    db.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    assert db_refusal(tmp_path, db).startswith(
        f"Setting CARO_DB is invalid: {db}: SQLite cannot read it ("
    )


def test_a_database_locked_by_another_program_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "caro.db"
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("CREATE TABLE t (x)")
        holder.execute("BEGIN EXCLUSIVE")
        assert db_refusal(tmp_path, db) == (
            f"The database {db} (CARO_DB) is locked by another program: is another caro-bot "
            "running on it?\n"
        )
    finally:
        holder.close()


@pytest.mark.parametrize("tables", [("games",), ("notes", "tags")])
def test_another_programs_sqlite_file_is_named_as_such_and_left_untouched(
    tmp_path: Path, tables: tuple[str, ...]
) -> None:
    # A file with a `games` table of its own used to fail in the first migration ("table games
    # already exists"), with no word of what the file is or what to do.
    db = tmp_path / "app.db"
    other = sqlite3.connect(db)
    for table in tables:
        other.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, body TEXT)")
        other.execute(f"INSERT INTO {table} (body) VALUES ('theirs')")
    other.commit()
    other.close()
    before = db.read_bytes()
    assert db_refusal(tmp_path, db) == (
        f"The database {db} (CARO_DB) is not caro's: it is another program's SQLite file "
        f"(tables {', '.join(sorted(tables))}, no caro schema); it was left untouched. Point "
        "CARO_DB at a new file, or at an existing caro database\n"
    )
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]  # no -wal, no -shm


def test_a_caro_database_from_an_earlier_run_is_accepted(tmp_path: Path) -> None:
    from bot.runtime.preflight import check_database
    from bot.storage import open_database

    async def create() -> None:
        await (await open_database(str(tmp_path / "caro.db"))).close()

    asyncio.run(create())
    check_database(str(tmp_path / "caro.db"))  # caro's own tables: no refusal


# ------------------------------------------------------------------ refusals: exit 1, one line

def test_an_unreachable_api_base_names_the_setting(tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{closed_port()}/api/v10"
    done = run_bot(tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=base,
                   CARO_DB=str(tmp_path / "caro.db"))
    assert done.returncode == 1
    assert only_line(done) == (
        f"Could not reach Discord's API at {base} (set by DISCORD_API_BASE): Connection refused."
    )


def test_a_host_that_does_not_resolve_is_a_dns_failure(tmp_path: Path) -> None:
    base = "http://caro-test.invalid/api/v10"  # .invalid never resolves (RFC 6761)
    done = run_bot(tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=base,
                   CARO_DB=str(tmp_path / "caro.db"))
    assert done.returncode == 1
    assert only_line(done).startswith(
        f"Could not reach Discord's API at {base} (set by DISCORD_API_BASE): DNS lookup failed ("
    )


async def test_an_unreachable_gateway_names_the_setting(tmp_path: Path) -> None:
    from testkit.discord_double import DiscordDouble

    gateway = f"ws://127.0.0.1:{closed_port()}/gateway"
    async with DiscordDouble(token=TOKEN) as double:
        done = await asyncio.to_thread(
            run_bot, tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=double.api_base,
            DISCORD_GATEWAY_URL=gateway, CARO_DB=str(tmp_path / "caro.db"),
        )
    assert done.returncode == 1
    assert only_line(done) == (
        f"Could not reach Discord's gateway at {gateway} (set by DISCORD_GATEWAY_URL): "
        "Connection refused."
    )


async def test_a_gateway_url_with_no_websocket_there_is_refused(tmp_path: Path) -> None:
    # discord.py 2.7 crashes on a first connection that fails past the TCP connect
    # (`'NoneType' object has no attribute 'sequence'`); bot.runtime.main turns that into this line, and
    # this test fails loudly if discord.py changes how it fails.
    from testkit.discord_double import DiscordDouble

    async with DiscordDouble(token=TOKEN) as double:
        gateway = double.gateway_url.replace("/gateway", "/not-the-gateway")
        done = await asyncio.to_thread(
            run_bot, tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=double.api_base,
            DISCORD_GATEWAY_URL=gateway, CARO_DB=str(tmp_path / "caro.db"),
        )
    assert done.returncode == 1
    assert only_line(done) == (
        f"Could not reach Discord's gateway at {gateway} (set by DISCORD_GATEWAY_URL): "
        "no websocket there (HTTP 404 Invalid response status)."
    )


async def test_an_api_base_that_is_not_discord_is_refused(tmp_path: Path) -> None:
    from testkit.discord_double import DiscordDouble

    async with DiscordDouble(token=TOKEN) as double:
        base = double.api_base.replace("/api/v10", "/elsewhere/api/v10")
        done = await asyncio.to_thread(
            run_bot, tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=base,
            DISCORD_GATEWAY_URL=double.gateway_url, CARO_DB=str(tmp_path / "caro.db"),
        )
    assert done.returncode == 1
    line = only_line(done)
    assert line.startswith(f"Discord's API at {base} answered 404 ")
    assert line.endswith("; check DISCORD_API_BASE.")


async def test_discord_failing_at_login_is_one_line(tmp_path: Path) -> None:
    from testkit.discord_double import DiscordDouble

    async with DiscordDouble(token=TOKEN) as double:
        double.fail_next("GET", r"/users/@me$", status=503)
        done = await asyncio.to_thread(
            run_bot, tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=double.api_base,
            DISCORD_GATEWAY_URL=double.gateway_url, CARO_DB=str(tmp_path / "caro.db"),
        )
    assert done.returncode == 1
    line = only_line(done)
    assert line.startswith(f"Discord's API at {double.api_base} kept answering 503 (")
    assert line.endswith("): Discord is having trouble; try again later.")


async def test_a_server_the_bot_is_not_in_says_which_and_how_to_invite(tmp_path: Path) -> None:
    from testkit.discord_double import DiscordDouble

    async with DiscordDouble(token=TOKEN) as double:
        stranger = str(int(double.guild_id) + 1)
        done = await asyncio.to_thread(
            run_bot, tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=double.api_base,
            DISCORD_GATEWAY_URL=double.gateway_url, DISCORD_GUILD_ID=stranger,
            CARO_DB=str(tmp_path / "caro.db"),
        )
    assert done.returncode == 1
    assert only_line(done) == (
        f"Discord refused the slash commands for server {stranger} (DISCORD_GUILD_ID): the bot "
        "is not in that server, or was invited without the applications.commands scope. "
        "Invite it with https://discord.com/oauth2/authorize?client_id="
        f"{double.application_id}&scope=bot+applications.commands&permissions=51200 "
        "(or fix or clear DISCORD_GUILD_ID)."
    )


async def test_a_start_that_fails_never_says_it_shut_down_cleanly(tmp_path: Path) -> None:
    from testkit.discord_double import DiscordDouble

    # Before anything is set up (Discord's API unreachable), and after the database and the AI
    # workers were (the gateway unreachable once logged in): neither stop was clean.
    api = f"http://127.0.0.1:{closed_port()}/api/v10"
    early = await asyncio.to_thread(
        run_bot, tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=api,
        CARO_DB=str(tmp_path / "caro.db"),
    )
    gateway = f"ws://127.0.0.1:{closed_port()}/gateway"
    async with DiscordDouble(token=TOKEN) as double:
        late = await asyncio.to_thread(
            run_bot, tmp_path, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=double.api_base,
            DISCORD_GATEWAY_URL=gateway, CARO_DB=str(tmp_path / "caro.db"),
        )
    for done, where in ((early, "Discord's API"), (late, "Discord's gateway")):
        assert done.returncode == 1
        assert only_line(done).startswith(f"Could not reach {where} at ")
        assert "shut down cleanly" not in done.stderr + done.stdout, done.stderr
    assert "database" in late.stderr  # it did get as far as opening the database


def test_env_example_lists_every_setting_the_bot_reads() -> None:
    import ast

    import bot.runtime.config

    root = Path(__file__).resolve().parents[3]
    tree = ast.parse(Path(bot.runtime.config.__file__).read_text(encoding="utf-8"))
    read = {
        node.value for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and re.fullmatch(r"(DISCORD|CARO)_[A-Z0-9_]+", node.value)
    }
    example = (root / ".env.example").read_text(encoding="utf-8").splitlines()
    listed: dict[str, str] = {}
    for number, line in enumerate(example):
        found = re.fullmatch(r"(?:# )?((?:DISCORD|CARO)_[A-Z0-9_]+)=.*", line)
        if found:
            above = example[number - 1] if number else ""
            listed[found.group(1)] = above
    assert "DISCORD_TOKEN" in read and len(read) > 10  # the scan still finds the settings
    assert sorted(read - set(listed)) == [], "settings bot/runtime/config.py reads without a line"
    assert sorted(set(listed) - read) == [], "lines for settings bot/runtime/config.py does not read"
    for name, comment in listed.items():
        # Each one says what it is for, on the line above it.
        assert comment.startswith("# ") and not re.match(r"# (?:DISCORD|CARO)_", comment), name


# ------------------------------------------------------------------ the command line

async def test_help_and_version_never_start_the_bot(tmp_path: Path) -> None:
    from testkit.discord_double import DiscordDouble

    async with DiscordDouble(token=TOKEN) as double:
        env = dict(DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=double.api_base,
                   DISCORD_GATEWAY_URL=double.gateway_url, CARO_DB=str(tmp_path / "caro.db"))
        helped = await asyncio.to_thread(run_bot, tmp_path, "--help", **env)
        versioned = await asyncio.to_thread(run_bot, tmp_path, "--version", **env)
        wrong = await asyncio.to_thread(run_bot, tmp_path, "--frobnicate", **env)
        assert double.requests == []
    assert helped.returncode == 0
    assert helped.stdout.startswith("usage: caro-bot [-h] [--version] [--prepare] [--sync]")
    assert "--sync" in helped.stdout and "--prepare" in helped.stdout and ".env" in helped.stdout
    assert versioned.returncode == 0 and versioned.stdout == f"caro-bot {version('caro')}\n"
    assert wrong.returncode == 2 and "unrecognized arguments: --frobnicate" in wrong.stderr
    assert not (tmp_path / "caro.db").exists()


def test_sync_flag_reaches_the_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[Settings] = []

    async def fake_run(settings: Settings) -> None:
        seen.append(settings)

    monkeypatch.setattr(bot_main, "run", fake_run)
    monkeypatch.setattr(bot_main, "setup_logging", lambda *a, **k: None)
    monkeypatch.setenv("DISCORD_TOKEN", "t")
    monkeypatch.setenv("CARO_DB", str(tmp_path / "caro.db"))
    monkeypatch.chdir(tmp_path)
    assert bot_main.main(["--sync"]) == 0
    assert bot_main.main([]) == 0
    assert [s.force_sync for s in seen] == [True, False]


# ------------------------------------------------------------------ Discord away while running

async def test_reconnects_log_one_line_each_and_stopping_is_prompt(tmp_path: Path) -> None:
    double, bot = await launch(tmp_path / "bot")
    stopped_double = False
    try:
        await double.stop()  # Discord goes away: the gateway closes, nothing listens any more
        stopped_double = True
        # discord.py backs off exponentially; wait for a pause long enough that a stop which
        # waited for it would show.
        # The bot is an AutoShardedClient: each shard reconnects by itself.
        attempt = (r"WARNING +\[main shard -\] discord\.shard: Attempting a reconnect for "
                   r"shard ID 0 in ([\d.]+)s \((.+)\)")
        deadline = time.monotonic() + 120
        while not any(float(d) >= 8 for d, _ in re.findall(attempt, bot.log_text())):
            assert time.monotonic() < deadline, bot.log_text()
            await asyncio.sleep(0.1)
        pause = float(re.findall(attempt, bot.log_text())[-1][0])
        began = time.monotonic()
        code = await bot.stop(signal.SIGTERM)
        took = time.monotonic() - began
    finally:
        if bot.process is not None:
            await bot.stop(signal.SIGKILL)
        if not stopped_double:
            await double.stop()
    log = bot.log_text()
    attempts = re.findall(attempt, log)
    assert len(attempts) >= 2
    # The first says how the connection was lost: on a busy machine the gateway's close can
    # reach discord.py as a timeout. Every later one is a connection refused.
    assert all("Cannot connect to host 127.0.0.1" in why for _, why in attempts[1:]), attempts
    assert "Traceback" not in log, log
    assert code == 0
    # A stop that waited for the reconnect would take about the pause; a busy machine's own
    # slowness in stopping (seconds under load) stays well below it.
    assert took < pause - 1, f"stopping took {took:.1f} s while Discord was away ({pause} s pause)"


async def test_a_normal_run_still_stops_cleanly(tmp_path: Path) -> None:
    double, bot = await launch(tmp_path / "bot")
    alice = double.add_member("alice")
    started = await alice.slash("caro start", difficulty="easy")
    assert started.callback_type == 4
    problems: list[Any] = await shutdown(double, bot)
    assert problems == []


def test_the_bot_runs_on_uvloop_where_it_is_installed() -> None:
    import uvloop

    factory = bot_main.loop_factory()
    assert factory is uvloop.new_event_loop
    loop = factory()
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()


# ------------------------------------------------------------------ misspelled settings


async def test_a_misspelled_setting_in_dotenv_is_warned_of_once_naming_the_one_meant(
    tmp_path: Path,
) -> None:
    workdir = tmp_path / "bot"
    workdir.mkdir()
    (workdir / ".env").write_text("CARO_WATCH_DELAY_SECOND=0.2\n", encoding="utf-8")
    double, bot = await launch(workdir, CARO_AI_WORKER="1")
    problems: list[Any] = await shutdown(double, bot)
    assert problems == []
    log = bot.log_text()
    for typo, meant in (
        ("CARO_WATCH_DELAY_SECOND", "CARO_WATCH_DELAY_SECONDS"),
        ("CARO_AI_WORKER", "CARO_AI_WORKERS"),
    ):
        warned = [line for line in log.splitlines() if typo + " " in line]
        assert len(warned) == 1, log
        assert "WARNING" in warned[0] and f"did you mean {meant}?" in warned[0]


def test_every_caro_setting_the_bot_reads_is_one_it_knows() -> None:
    source = Path(config.__file__).read_text(encoding="utf-8")
    read = set(re.findall(r'"(CARO_[A-Z_]+)"', source)) - set(config.TEST_SETTINGS)
    assert read == set(config.SETTINGS)
    assert config.unknown_settings({"CARO_DB": "x", "CARO_PG_BINDIR": "/usr", "PATH": "/"}) == []
    assert config.unknown_settings({"CARO_ZZZ": "1"}) == [
        "Setting CARO_ZZZ is not one caro reads and is ignored: the settings are "
        + ", ".join(config.SETTINGS)
    ]
