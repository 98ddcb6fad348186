"""Fair play through the Discord double and the real bot process: accepting a challenge while the
challenger starts another game, boards too small to count shown as unrated, limits on running
games and challenges answered with a short private reply, and a late move after a restart."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from tests.bot.test_bot_process import TOKEN, _run_bot, refusal
from tests.conftest import BotHandle, StartBot, text_of

MANAGE_GUILD = 1 << 5


async def test_accepting_while_the_challenger_starts_a_game_never_loses_it(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    for attempt in range(8):
        # A new pair each time: the challenge cooldown and the cap on pending challenges are
        # not what is tested here.
        alice, bob = double.add_member(f"alice{attempt}"), double.add_member(f"bob{attempt}")
        channel = double.add_channel(f"race-{attempt}")
        challenge = await alice.slash("caro challenge", opponent=bob, channel_id=channel)
        assert challenge.callback_type == 4 and not challenge.ephemeral
        accepted, started = await asyncio.gather(
            bob.click(challenge.message, "Accept"),
            alice.slash("caro start", channel_id=channel, difficulty="easy"),
        )
        if accepted.callback_type == 7:
            # The accept won: the start is refused with a link to the game, which stays live.
            assert started.ephemeral, started
            assert "already" in str(started.content)
        else:
            # The start won: the accept is refused privately and the challenge stays open.
            assert accepted.ephemeral, accepted
            assert "started another game" in str(accepted.content), accepted.content
    rows = running_bot.db_rows("SELECT mode, status FROM games WHERE mode = 'pvp'")
    assert rows and all(status == "active" for _, status in rows), rows


async def test_a_tiny_board_says_unrated_and_moves_no_rating(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    game = await alice.slash("caro start", difficulty="impossible", size="1x1k1")
    assert game.callback_type == 4 and not game.ephemeral, game
    assert "Unrated" in text_of(game.message)
    won = await alice.click(game.message, "A1")
    assert won.callback_type == 7
    assert "You win" in text_of(game.message) and "Unrated" in text_of(game.message)
    assert running_bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(0,)]
    assert running_bot.db_rows("SELECT COUNT(*) FROM standings") == [(0,)]
    normal = await alice.slash("caro start", difficulty="easy", channel_id=double.add_channel("n"))
    assert "Unrated" not in text_of(normal.message)


async def test_pending_challenges_to_one_member_are_capped(running_bot: BotHandle) -> None:
    double = running_bot.double
    target = double.add_member("target")
    posted = 0
    replies: list[str] = []
    for n in range(8):
        challenger = double.add_member(f"challenger{n}")
        result = await challenger.slash("caro challenge", opponent=target,
                                        channel_id=double.add_channel(f"c{n}"))
        if result.ephemeral:
            replies.append(str(result.content))
        else:
            posted += 1
    assert posted == 5  # Limits.challenges_per_challenged
    assert len(replies) == 3 and all("too many challenges" in r for r in replies)


async def test_a_move_after_the_deadline_is_refused_right_after_a_restart(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_MIN_TIMEOUT_SECONDS="1")
    double = bot.double
    admin, alice, bob = (double.add_member(n) for n in ("admin", "alice", "bob"))
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert (await admin.slash("caro settings", timeout=0.05)).ephemeral  # 3 s per move
    challenge = await alice.slash("caro challenge", opponent=bob, first="me")
    assert (await bob.click(challenge.message, "Accept")).callback_type == 7
    await bot.stop()
    await asyncio.sleep(3.5)  # Alice's 3 seconds run out while the bot is down
    await bot.start()
    # Clicked as soon as the bot is back: refused whether or not the deadline watcher has run.
    late = await alice.click(challenge.message, "B2")
    assert any(text in refusal(late) for text in ("Too late", "This game is over")), late
    await challenge.message.wait_for(lambda m: "ran out of time" in text_of(m), timeout=10)
    rows = bot.db_rows("SELECT status, end_reason, ply FROM games")
    assert rows == [("finished", "timeout", 0)]
    assert bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(4,)]


async def test_a_database_from_a_newer_version_stops_the_bot_with_one_line(tmp_path: Path) -> None:
    from tests.discord_double import DiscordDouble

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
        done = await asyncio.to_thread(_run_bot, env, tmp_path)
    finally:
        await double.stop()
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert "(CARO_DB) has schema version 99, newer than this version of caro knows" in last, last
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (99,)


async def test_a_fourth_running_ai_game_is_refused_with_a_short_private_reply(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    for i in range(3):
        started = await alice.slash("caro start", channel_id=double.add_channel(f"limit-{i}"))
        assert started.callback_type == 4 and not started.ephemeral
    fourth = await alice.slash("caro start", channel_id=double.add_channel("limit-3"))
    assert "You already have 3 games against the AI running" in refusal(fourth)
    assert running_bot.db_rows("SELECT COUNT(*) FROM games") == [(3,)]
    assert "Traceback" not in running_bot.log_text()
