"""The real bot process (`python -m bot`) against the Discord double: whole games, refusals,
restarts and responsiveness, as a Discord user would see them."""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

from bot.game.ratings import updated
from engine.solver import perfect_move
from testkit.boards import board_of, cells, first_empty, is_over, play_out, ply_of, refusal
from testkit.bot_process import TOKEN, BotHandle, StartBot, text_of
from testkit.sqlite_rows import player_result
from testkit.startup import run_to_exit


async def test_win_draw_and_loss_then_stats_and_leaderboard(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice = double.add_member("alice")

    win = await alice.slash("caro start", difficulty="easy")
    assert win.callback_type == 4 and not win.ephemeral
    assert "vs AI (O, easy)" in str(text_of(win)) and "Your turn (X)." in str(text_of(win))
    end = await play_out(alice, win.message, perfect_move)
    assert "**You win!**" in text_of(end)
    green = [b for b in cells(end) if b["style"] == 3]
    assert len(green) == 3 and all(b["label"] == "X" for b in green)
    assert all(b["disabled"] for b in cells(end))
    assert [b["label"] for b in end.buttons if b not in cells(end)] == ["Rematch", "Review"]

    draw = await alice.slash("caro start", difficulty="impossible")
    end = await play_out(alice, draw.message, perfect_move)
    assert "**Draw.**" in text_of(end) and not any(b["style"] == 3 for b in cells(end))

    loss = await alice.slash("caro start", difficulty="impossible", first="ai")
    assert "vs AI (X, impossible)" in str(text_of(loss)) and "thinking" in str(text_of(loss))
    end = await play_out(alice, loss.message, first_empty)
    assert "**The AI wins.**" in text_of(end)
    assert re.search(r"AI played \*\*[A-C][1-3]\*\*: completes a winning line\.", text_of(end))

    stats = await alice.slash("caro stats")
    assert stats.callback_type == 4
    embed = stats.embeds[0]
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    # Elo against the AI's anchors: a win over easy (800), a draw and a loss against impossible.
    rating = updated(updated(updated(1200, 800, "win"), 2000, "draw"), 2000, "loss")
    assert fields[f"against the AI: rating {round(rating)}"] == (
        "1 W / 1 D / 1 L, 3 played, win rate 33%"
    )
    assert fields["vs AI easy"] == "1 W / 0 D / 0 L, 1 played, win rate 100%"
    assert fields["vs AI impossible"] == "0 W / 1 D / 1 L, 2 played, win rate 0%"
    assert not any(name.startswith("against people") for name in fields)

    bob = double.add_member("bob")
    about_alice = await bob.slash("caro stats", user=alice)
    assert about_alice.embeds[0]["title"].lower() == "stats of alice"
    own = await bob.slash("caro stats")
    assert "No finished games" in own.embeds[0]["description"]
    board = await bob.slash("caro leaderboard", mode="ai")
    assert board.embeds[0]["title"] == "Leaderboard: this server, against the AI"
    assert board.embeds[0]["description"] == (
        f"**1.** <@{alice.id}>: {round(rating)} (1 W / 1 D / 1 L)"
    )
    assert "Listed after 3 rated games" in board.embeds[0]["footer"]["text"]
    people = await bob.slash("caro leaderboard", scope="global", mode="pvp")
    assert "Nobody has 3 rated games" in people.embeds[0]["description"]
    helped = await bob.slash("caro help")
    assert helped.ephemeral and "k of your marks in a row" in helped.embeds[0]["description"]

    assert running_bot.db_counts()["results"] == 3
    rows = running_bot.db_rows(f"SELECT status, {player_result()} FROM games ORDER BY id")
    assert rows == [("finished", "win"), ("finished", "draw"), ("finished", "loss")]


async def test_strangers_forgeries_and_replays_change_nothing(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    start = await alice.slash("caro start", difficulty="impossible")
    message = start.message
    game_id = int(message.buttons[0]["custom_id"].split(":")[2])
    before, edits = running_bot.db_counts(), message.edits

    assert "This is not your game" in refusal(await bob.click(message, "B2"))
    forged = {
        "caro:forged:1": "not one of this bot's game buttons",
        f"caro:m:{game_id}:0:Z9": "There is no cell Z9 on this board",
        f"caro:m:{game_id}:7:A1": "That board is out of date",
        "caro:m:999:0:A1": "That game does not exist",
        "something-else": "not one of this bot's game buttons",
        "caro:m:1:0:" + "A" * 200: "not one of this bot's game buttons",
    }
    for custom_id, text in forged.items():
        assert text in refusal(await alice.click_custom_id(message, custom_id)), custom_id
    assert running_bot.db_counts() == before
    assert message.edits == edits

    again = await alice.slash("caro start", difficulty="easy")
    text = refusal(again)
    assert "already have a game running in this channel" in text
    assert f"/channels/{double.guild_id}/{double.channel_id}/{message.id}" in text
    assert running_bot.db_counts() == before

    # Two clicks on the same turn (sent before either is answered): one move is applied.
    first_id = message.button("A1")["custom_id"]
    second_id = message.button("C3")["custom_id"]
    results = await asyncio.gather(
        alice.click_custom_id(message, first_id), alice.click_custom_id(message, second_id)
    )
    types = sorted(r.callback_type for r in results)
    assert types == [4, 7], results
    stale = next(r for r in results if r.callback_type == 4)
    assert stale.ephemeral and "out of date" in str(stale.content)
    message = await message.wait_for(lambda m: "Your turn" in text_of(m), timeout=20)
    assert running_bot.db_rows("SELECT ply FROM games WHERE id = ?", (game_id,)) == [(2,)]
    # Replaying the first click (a stale board) is refused too.
    assert "out of date" in refusal(await alice.click_custom_id(message, first_id))
    assert running_bot.db_rows("SELECT COUNT(*) FROM moves") == [(2,)]

    # Finish the game; then its buttons only explain that it is over.
    end = await play_out(alice, message, first_empty)
    assert is_over(end)
    last = cells(end)[-1]["custom_id"]
    assert "This game is over" in refusal(await alice.click_custom_id(end, last))


async def test_hostile_options_are_refused_and_create_nothing(running_bot: BotHandle) -> None:
    alice = running_bot.double.add_member("alice")
    cases = [
        ({"difficulty": "godlike"}, "**godlike** is not a valid difficulty"),
        ({"size": "99x99"}, "**99x99** is not a valid size. Choose one of: 3x3, 4x4, 5x5, 9x9,"),
        ({"rule": "'; DROP TABLE games; --"}, "is not a valid rule"),
        ({"first": "both"}, "**both** is not a valid first player"),
    ]
    for options, text in cases:
        assert text in refusal(await alice.slash("caro start", **options)), options
    assert running_bot.db_counts() == {"games": 0, "moves": 0, "results": 0}
    assert running_bot.double.messages() == []
    ok = await alice.slash("caro start", size="5x5", rule="caro", difficulty="hard")
    assert "**5x5, 4 in a row, caro rule**" in str(text_of(ok))
    assert len(cells(ok.message)) == 25
    assert [b["label"] for b in ok.message.buttons if b not in cells(ok.message)] == ["Resign"]


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


async def test_stats_answered_while_the_ai_thinks_and_pending_move_resumed(
    start_bot: StartBot,
) -> None:
    # A 3 s budget makes "impossible" think for seconds on 5x5, like a slow machine would.
    bot = await start_bot(CARO_AI_TIME_LIMIT="3")
    double = bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    start = await alice.slash("caro start", difficulty="impossible", size="5x5")
    message = start.message
    await alice.click(message, "A1")
    assert "The AI is thinking" in text_of(message)  # messages are live: updated in place

    stats = await bob.slash("caro stats")
    assert stats.callback_type == 4
    # The stats answer came back while the board still waits for the AI's move.
    assert "The AI is thinking" in text_of(message)
    message = await message.wait_for(lambda m: "Your turn" in text_of(m), timeout=20)
    edit_times = [r.time for r in double.requests if r.method == "PATCH"]
    stats_time = next(
        r.time for r in double.requests
        if r.method == "POST" and f"/interactions/{stats.interaction_id}/" in r.path
    )
    assert edit_times and stats_time < max(edit_times)

    # The player moves, the bot dies before the AI answers, a new process finishes that move.
    await alice.click(message, "B2")
    assert "thinking" in text_of(message)
    code = await bot.stop(signal.SIGKILL)  # no chance to answer
    assert code == -signal.SIGKILL
    await bot.start()
    message = await message.wait_for(lambda m: "Your turn" in text_of(m), timeout=30)
    assert ply_of(message) == 4
    patched = [
        r for r in double.requests
        if r.method == "PATCH" and r.path.endswith(f"/channels/{double.channel_id}/messages/{message.id}")
    ]
    assert patched, "the resumed move is drawn through the channel message endpoint"
    assert bot.db_rows("SELECT COUNT(*) FROM moves") == [(4,)]


async def test_a_fast_ai_answers_in_the_same_edit_and_a_slow_one_after(
    start_bot: StartBot,
) -> None:
    # A wait no busy test machine outlasts (the default is 60 ms).
    running_bot = await start_bot(CARO_QUICK_REPLY_SECONDS="2")
    alice, bob = running_bot.double.add_member("alice"), running_bot.double.add_member("bob")
    easy = (await alice.slash("caro start", difficulty="easy", size="5x5")).message
    # The first search of a new process may wait for its AI workers to start.
    await alice.click(easy, "C3")
    easy = await easy.wait_for(lambda m: "Your turn (X)." in text_of(m), timeout=20)
    edits = easy.edits
    board = board_of(easy, 4)
    result = await alice.click(easy, board.move_name(first_empty(board)))
    assert result.callback_type == 7
    # The response itself shows the AI's answer: no board with "thinking" in between.
    assert "Your turn (X)." in text_of(easy) and "AI played" in text_of(easy)
    assert ply_of(easy) == 4 and easy.edits == edits + 1
    await asyncio.sleep(0.5)
    assert easy.edits == edits + 1  # and nothing is drawn after it

    hard = (await bob.slash("caro start", difficulty="hard", size="5x5")).message
    result = await bob.click(hard, "C3")
    assert result.callback_type == 7
    # A slower level: the member's move at once, the answer when it comes.
    assert "The AI is thinking" in text_of(hard) and ply_of(hard) == 1
    hard = await hard.wait_for(lambda m: "Your turn (X)." in text_of(m), timeout=20)
    assert ply_of(hard) == 2 and hard.edits == 2


async def test_a_fast_ai_that_moves_first_is_on_the_board_as_it_is_posted(
    start_bot: StartBot,
) -> None:
    running_bot = await start_bot(CARO_QUICK_REPLY_SECONDS="2")
    alice, bob = running_bot.double.add_member("alice"), running_bot.double.add_member("bob")
    # The first search of a new process may wait for its AI workers to start.
    warm = (await alice.slash("caro start", difficulty="easy", size="5x5", first="me")).message
    await alice.click(warm, "C3")
    await warm.wait_for(lambda m: ply_of(m) == 2, timeout=20)

    easy = (await bob.slash("caro start", difficulty="easy", size="5x5", first="ai")).message
    # The board arrives with the AI's first move on it: one message, never edited.
    assert ply_of(easy) == 1 and "AI played" in text_of(easy) and "Your turn (O)." in text_of(easy)
    assert board_of(easy, 4).ply == 1
    await asyncio.sleep(0.5)
    assert easy.edits == 0
    # The member plays on it, as on any board (the click knows its message without a read).
    await bob.click(easy, board_of(easy, 4).move_name(first_empty(board_of(easy, 4))))
    easy = await easy.wait_for(lambda m: ply_of(m) == 3, timeout=20)

    carol = running_bot.double.add_member("carol")
    hard = (await carol.slash("caro start", difficulty="hard", size="5x5", first="ai")).message
    # A slower level: the empty board at once, the AI's move when it comes.
    assert ply_of(hard) == 0 and "The AI is thinking" in text_of(hard)
    hard = await hard.wait_for(lambda m: ply_of(m) == 1, timeout=20)
    assert "Your turn (O)." in text_of(hard) and hard.edits == 1


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
