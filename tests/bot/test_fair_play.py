"""Fair play through the Discord double and the real bot process: accepting a challenge while the
challenger starts another game, boards too small to count shown as unrated, limits on running
games and challenges answered with a short private reply, and a late move after a restart."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from testkit.boards import refusal
from testkit.bot_process import TOKEN, BotHandle, StartBot, text_of
from testkit.members import accepted_game
from testkit.startup import run_to_exit

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


def rematch_of(message: Any) -> str:
    """The custom_id of the message's Rematch button (its label is in the game's language)."""
    return next(str(b["custom_id"]) for b in message.buttons
                if str(b.get("custom_id", "")).startswith("caro:rm:"))


def can_rematch(message: Any) -> bool:
    return any(str(b.get("custom_id", "")).startswith("caro:rm:") and not b.get("disabled")
               for b in message.buttons)


async def test_rematch_against_the_ai_meets_the_cooldown_on_starting_games(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, minh = double.add_member("alice"), double.add_member("minh", locale="vi")
    board = (await alice.slash("caro start", difficulty="easy")).message
    replies: list[str] = []
    for _ in range(12):
        await alice.slash("caro resign")
        await board.wait_for(can_rematch)
        rematch = await alice.click(board, "Rematch")
        if rematch.ephemeral:
            replies.append(refusal(rematch))
            break
        board = rematch.message
    # The /caro start and four Rematches: the same five starts in 30 seconds a command gets.
    assert running_bot.db_rows("SELECT COUNT(*) FROM games") == [(5,)]
    assert len(replies) == 1 and "Slow down a little: try again in" in replies[0], replies
    # /caro rematch is the same action: refused too, in the member's language.
    board = (await minh.slash("caro start", difficulty="easy")).message
    for _ in range(4):
        await minh.slash("caro resign")
        await board.wait_for(can_rematch)
        board = (await minh.click(board, rematch_of(board))).message
    await minh.slash("caro resign")
    assert "Chậm lại một chút" in refusal(await minh.slash("caro rematch"))
    assert running_bot.db_rows("SELECT COUNT(*) FROM games") == [(10,)]


async def test_rematch_between_members_meets_the_cooldown_on_challenges(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    board = (await alice.slash("caro challenge", opponent=bob)).message
    assert (await bob.click(board, "Accept")).callback_type == 7
    assert (await bob.click(board, "Resign")).callback_type == 7
    replies: list[str] = []
    for _ in range(12):
        rematch = await alice.click(board, "Rematch")
        if rematch.ephemeral:
            replies.append(refusal(rematch))
            break
        assert (await bob.click(rematch.message, "Decline")).callback_type == 7
    # The /caro challenge and four Rematches: Bob was pinged five times in the minute, as often
    # as five /caro challenge commands could ping him.
    assert running_bot.db_rows("SELECT COUNT(*) FROM challenges") == [(5,)]
    assert len(replies) == 1 and "Slow down a little: try again in" in replies[0], replies


async def test_a_second_challenge_between_two_members_names_the_waiting_one_and_pings_nobody(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    posted = await alice.slash("caro challenge", opponent=bob)
    waiting = posted.message
    link = f"https://discord.com/channels/{double.guild_id}/{waiting.channel_id}/{waiting.id}"
    # Again, from the other side, or in another channel: it is still the same two members.
    for sender, other, channel in [
        (alice, bob, None),
        (bob, alice, double.add_channel("other")),
        (alice, bob, double.add_channel("third")),
    ]:
        where = {} if channel is None else {"channel_id": channel}
        refused = await sender.slash("caro challenge", opponent=other, **where)
        assert refusal(refused) == (
            f"You and <@{other.id}> already have a challenge waiting for an answer: {link}"
        ), refused
    assert running_bot.db_rows("SELECT COUNT(*) FROM challenges") == [(1,)]
    # Someone else may still challenge either of them; once answered, the two may again.
    assert not (await carol.slash("caro challenge", opponent=bob)).ephemeral
    assert (await bob.click(waiting, "Decline")).callback_type == 7
    assert not (await bob.slash("caro challenge", opponent=alice)).ephemeral
    assert running_bot.db_rows("SELECT COUNT(*) FROM challenges") == [(3,)]


async def test_history_pages_past_the_last_are_refused_even_from_its_own_disabled_next(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    for n in range(3):  # six games, two pages of history: three against the AI...
        channel = double.add_channel(f"h{n}")
        assert not (await alice.slash("caro start", channel_id=channel)).ephemeral
        await alice.slash("caro resign", channel_id=channel)
    for n in range(3):  # ...and three against Bob
        board = await accepted_game(alice, bob, channel_id=double.add_channel(f"b{n}"))
        assert (await bob.click(board, "Resign")).callback_type == 7
    page = (await alice.slash("caro history")).message
    assert (await alice.click(page, "Next")).callback_type == 7
    assert "(page 2)" in text_of(page) and page.button("Next")["disabled"]
    shown = (text_of(page), page.edits)
    # The disabled Next is on the message, so it passes the "which message" check: a modified
    # client sends it, page after page. The history has no third page to show.
    forged = await alice.click_custom_id(page, page.button("Next")["custom_id"])
    assert refusal(forged) == "That page of the history does not exist."
    assert (text_of(page), page.edits) == shown
