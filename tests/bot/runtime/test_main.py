"""The bot process (bot/runtime/main.py) from start to stop: what it refuses before it connects
(no token, bad settings, a refused token, a database from a newer version), a restart in the
middle of a game, a stop while commands and the AI are in flight, and the compiled search core
built in the background while the pure-Python one plays."""

from __future__ import annotations

import asyncio
import re
import signal
import sqlite3
from pathlib import Path

from engine.solve.solver import perfect_move
from testkit.boards import is_over, play_out
from testkit.bot_process import TOKEN, StartBot, text_of
from testkit.faults import launch, shutdown
from testkit.startup import run_to_exit


def test_missing_token_explains_how_to_get_one(tmp_path: Path) -> None:
    done = run_to_exit({"CARO_DB": str(tmp_path / "x.db")}, tmp_path)
    assert done.returncode == 2
    assert "Developer Portal" in done.stderr and "Reset Token" in done.stderr
    assert "DISCORD_TOKEN=" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert not (tmp_path / "x.db").exists()


def test_token_from_dotenv_file_and_bad_setting(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=from-dotenv\nDISCORD_GUILD_ID=not-a-number\n")
    done = run_to_exit({}, tmp_path)
    assert done.returncode == 2
    assert "DISCORD_GUILD_ID" in done.stderr and "from-dotenv" not in done.stderr
    assert "Traceback" not in done.stderr


async def test_refused_token_exits_1_without_showing_it(tmp_path: Path) -> None:
    from testkit.discord_double import DiscordDouble

    double = DiscordDouble(token=TOKEN)
    await double.start()
    try:
        env = {
            "DISCORD_TOKEN": "wrong-secret-token",
            "DISCORD_API_BASE": double.api_base,
            "DISCORD_GATEWAY_URL": double.gateway_url,
            "CARO_DB": str(tmp_path / "caro.db"),
        }
        done = await asyncio.to_thread(run_to_exit, env, tmp_path)
    finally:
        await double.stop()
    assert done.returncode == 1
    assert "Discord refused the bot token" in done.stderr
    assert "wrong-secret-token" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


async def test_a_database_from_a_newer_version_stops_the_bot_with_one_line(tmp_path: Path) -> None:
    from testkit.discord_double import DiscordDouble

    path = tmp_path / "caro.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY)")
        db.execute("PRAGMA user_version = 99")
    double = DiscordDouble(token=TOKEN)
    await double.start()
    try:
        env = {
            "DISCORD_TOKEN": TOKEN,
            "DISCORD_API_BASE": double.api_base,
            "DISCORD_GATEWAY_URL": double.gateway_url,
            "CARO_DB": str(path),
        }
        done = await asyncio.to_thread(run_to_exit, env, tmp_path)
    finally:
        await double.stop()
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert "(CARO_DB) has schema version 99, newer than this version of caro knows" in last, last
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (99,)


async def test_restart_mid_game_then_finish(start_bot: StartBot) -> None:
    # DEBUG logging shows every request discord.py makes: the token must still never appear
    # (the fixture greps the log for it).
    bot = await start_bot(CARO_LOG_LEVEL="DEBUG")
    alice = bot.double.add_member("alice")
    start = await alice.slash("caro start", difficulty="normal")
    await alice.click(start.message, "B2")
    message = await start.message.wait_for(lambda m: "Your turn" in text_of(m), timeout=20)
    await bot.restart()  # SIGTERM, exit 0, start again on the same database
    end = await play_out(alice, message, perfect_move)
    assert is_over(end) and "**The AI wins.**" not in text_of(end)
    assert bot.db_counts()["results"] == 1
    assert await bot.stop(signal.SIGINT) == 0
    assert "shut down cleanly" in bot.log_text()
    assert bot.exit_codes == [0, 0]


async def test_stopping_while_commands_and_the_ai_are_in_flight_logs_no_error(
    tmp_path: Path,
) -> None:
    double, bot = await launch(tmp_path / "bot", CARO_AI_TIME_LIMIT="5",
                               CARO_WATCH_DELAY_SECONDS="0.01")
    try:
        alice = double.add_member("alice")
        started = await alice.slash("caro start", size="26x26", difficulty="impossible",
                                    first="ai")
        assert "thinking" in text_of(started)
        # Commands arriving as the stop begins: some are answered, some are cut short (Discord
        # then tells the member the interaction failed; nothing was half-written).
        in_flight = [
            asyncio.ensure_future(
                alice.slash("caro watch", channel_id=double.add_channel(f"w{i}"), size="9x9")
            )
            for i in range(3)
        ]
        await asyncio.sleep(0.05)
        assert await bot.stop() == 0
        await asyncio.gather(*in_flight, return_exceptions=True)
    finally:
        problems = await shutdown(double, bot, allow_violations=True)
    assert problems == []
    log = bot.log_text()
    assert " ERROR " not in log and "Traceback" not in log, log
    assert "shut down cleanly" in log


def _children(pid: int) -> dict[int, tuple[str, int]]:
    """The child processes of `pid`: their command line and nice value."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found[int(stat.parent.name)] = (command, int(fields[16]))
    return found


async def test_on_a_host_without_the_compiled_core_impossible_plays_while_it_builds(
    start_bot: StartBot, tmp_path: Path,
) -> None:
    bot = await start_bot(NUMBA_CACHE_DIR=str(tmp_path / "empty-cache"))
    assert bot.process is not None
    pid = bot.process.pid
    alice = bot.double.add_member("alice")
    game = (await alice.slash("caro start", difficulty="impossible", size="15x15")).message
    await alice.click(game, "H8")
    game = await game.wait_for(lambda m: "Your turn (X)." in text_of(m), timeout=30)
    assert "AI played" in text_of(game)
    # That move came from the pure-Python search: the build still runs, at the lowest priority,
    # in a process of its own (the AI workers never compile).
    builds = [(p, nice) for p, (cmd, nice) in _children(pid).items() if "prepare --background" in cmd]
    assert len(builds) == 1 and builds[0][1] == 19, _children(pid)
    log = bot.log_text()
    assert "search core: compiling for " in log and "search core ready" not in log
    assert re.search(r"\b(WARNING|ERROR)\b", log) is None, log
    # A stop ends the build with the bot: nothing of it is left running.
    assert await bot.stop() == 0
    assert not Path(f"/proc/{builds[0][0]}").exists()
