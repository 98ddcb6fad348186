"""A game between two servers from /caro queue (bot/cogs/queue.py) against what members and
servers may do to it, through the Discord double and the real bot process: the slash commands
used from the channel of the other server's board, a member leaving their server mid-game, a
server removing the bot mid-game (the member's forfeit also between two bot processes on one
PostgreSQL), a member whose turn is recent never asked for, a blocked member queueing from another server, and a join and Leave loop that
alternates servers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import bot.cogs.queue as queue_cog
from testkit.boards import refusal
from testkit.bot_process import text_of
from testkit.gates import until
from tests.bot.cogs.test_openings import typed
from tests.bot.cogs.test_queue import PAIRED, Across, Sides, paired_across, posted_board
from tests.bot.runtime import test_clusters
from tests.bot.runtime.test_clusters import TWO_CLUSTERS, fetch, guild_on, member_in

# The fixture of the two-cluster tests: bot processes on one PostgreSQL, each holding its shards.
start_clusters = test_clusters.start_clusters

GONE = ("{member}, your opponent can no longer play from their server (they left it, or it"
        " removed the bot): they forfeit, and the game counts as their resignation.")


def lines_to(double: Any, member: Any) -> list[Any]:
    return [m for m in double.store.order if text_of(m) == GONE.format(member=f"<@{member.id}>")]


async def test_the_commands_in_the_other_servers_channel_act_on_its_own_board(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    game = await paired_across(bot)
    alice, dave, board, there, theirs = (
        game.alice, game.dave, game.board, game.there, game.theirs)
    # As on the game's own board: no hints between members, no takeback in a rated game, no
    # rematch between two servers.
    no_hint = "Hints are only given in games against the easy or normal AI."
    assert refusal(await dave.slash("caro hint", channel_id=theirs)) == no_hint
    assert refusal(await alice.slash("caro hint")) == no_hint
    for member, channel in ((dave, theirs), (alice, double.channel_id)):
        assert refusal(await member.slash("caro takeback", channel_id=channel)).startswith(
            "Moves cannot be taken back in a rated game.")
    no_rematch = ("There is no rematch in a game between two servers: queue again with"
                  " `/caro queue`.")
    assert refusal(await dave.slash("caro rematch", channel_id=theirs)) == no_rematch

    # /caro board there moves that server's board only.
    resign_id = next(str(b["custom_id"]) for b in there.buttons
                     if str(b["custom_id"]).startswith("caro:r:"))
    own = board.snapshot()
    moved = await dave.slash("caro board", channel_id=theirs)
    assert moved.callback_type == 4 and not moved.ephemeral
    new = moved.message
    await there.wait_for(lambda m: m.buttons == [])
    link = f"https://discord.com/channels/{game.other}/{theirs}/{new.id}"
    assert text_of(there) == f"This board moved here: {link}"
    assert bot.db_rows("SELECT message_id FROM game_boards") == [(int(new.id),)]
    assert bot.db_rows("SELECT message_id FROM games") == [(int(board.id),)]
    assert board.snapshot() == own
    assert "**Alice** (1200)" in text_of(new) and f"<@{alice.id}>" not in text_of(new)
    # A click on the old board leads to the new one, in this server.
    answer = refusal(await dave.click_custom_id(there, resign_id))
    assert link in answer and f"/{double.channel_id}/" not in answer

    # Moves on the new board and on the game's own show on both.
    x, o = (alice, dave) if f"<@{alice.id}> (X)" in str(text_of(board)) else (dave, alice)
    boards = {alice.id: board, dave.id: new}
    for n, (member, cell) in enumerate([(x, "H8"), (o, "A1"), (x, "H9")], start=1):
        played = await typed(member, boards[member.id], cell)
        assert played.callback_type in (4, 6, 7), played
        for shown in (board, new):
            await shown.wait_for(lambda m, n=n: f"Moves played: {n}." in str(text_of(m)),
                                 timeout=10)
    # The old message stays a pointer: the moves are drawn on the new one only.
    assert text_of(there) == f"This board moved here: {link}" and there.edits == 1

    done = await dave.slash("caro resign", channel_id=theirs)
    assert str(done.content).endswith(f"/{theirs}/{new.id}"), done.content
    for shown in (board, new):
        await shown.wait_for(lambda m: "resigned.**" in str(text_of(m)), timeout=10)
    # Over: still no rematch from either channel.
    assert refusal(await dave.slash("caro rematch", channel_id=theirs)) == no_rematch
    assert refusal(await alice.slash("caro rematch")) == no_rematch
    assert double.violations == []


async def test_a_move_sent_from_the_other_servers_board_after_it_was_reposted_leads_to_the_new_one(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    game = await paired_across(bot)
    sides = Sides(game)
    dave, there = game.dave, game.there
    # Moves on both boards until dave is to move, one of them his on this board: its process
    # knows it as the game's board in his server.
    moves = [(sides.x, sides.x_board, "H8"), (sides.o, sides.o_board, "A1"),
             (sides.x, sides.x_board, "H9")]
    if sides.x is dave:
        moves.append((sides.o, sides.o_board, "A2"))
    for n, (member, board, cell) in enumerate(moves, start=1):
        assert (await typed(member, board, cell)).callback_type in (4, 6, 7)
        for shown in (game.board, there):
            await shown.wait_for(lambda m, n=n: f"Moves played: {n}." in str(text_of(m)),
                                 timeout=10)
    # Dave opens the move form on his board, then posts it again (another device) and sends
    # the form from the old one.
    form = await dave.click(there, "Type a move")
    assert form.modal is not None
    moved = await dave.slash("caro board", channel_id=game.theirs)
    new = moved.message
    await there.wait_for(lambda m: m.buttons == [])
    edits = there.edits
    link = f"https://discord.com/channels/{game.other}/{game.theirs}/{new.id}"
    answer = refusal(await dave.submit_modal(there, form.modal["custom_id"], {"cell": "B2"}))
    assert link in answer and f"/{double.channel_id}/" not in answer
    assert text_of(there) == f"This board moved here: {link}" and there.edits == edits
    assert bot.db_rows("SELECT COUNT(*) FROM moves") == [(len(moves),)]
    # From the new board the move is his.
    assert (await typed(dave, new, "B2")).callback_type in (4, 6, 7)
    await game.board.wait_for(
        lambda m: f"Moves played: {len(moves) + 1}." in str(text_of(m)), timeout=10)
    assert double.violations == []


async def x_plays_h8(game: Across) -> Any:
    """X's first move (H8) on X's own board, once the other board shows it; X."""
    alice, board, there = game.alice, game.board, game.there
    x = alice if f"<@{alice.id}> (X)" in str(text_of(board)) else game.dave
    await typed(x, board if x is alice else there, "H8")
    await there.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=10)
    return x


async def test_a_member_who_leaves_their_server_mid_game_forfeits_it(start_bot: Any) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    game = await paired_across(bot)
    alice, dave, board, there = game.alice, game.dave, game.board, game.there
    x = await x_plays_h8(game)

    # Dave leaves his server: the bot hears nothing, and finds out when it asks, once his turn
    # has lasted a while (bot.cogs.queue.SEAT_TURN_S).
    double.leave(dave, game.other)
    if x is dave:
        await typed(alice, board, "J9")
    for shown in (board, there):
        await shown.wait_for(lambda m: "resigned.**" in str(text_of(m)), timeout=100)
    assert f"**<@{alice.id}> wins" in str(text_of(board))
    assert "**Alice** (1200) wins" in str(text_of(there))
    assert bot.db_rows("SELECT status, end_reason FROM games") == [("finished", "resign")]
    # Alice is told why, in her own channel, replying to her board; dave is not named there.
    await double.store.changes.wait_until(lambda: bool(lines_to(double, alice)), 10)
    (told,) = lines_to(double, alice)
    assert told.channel_id == str(double.channel_id)
    assert str(told.payload["message_reference"]["message_id"]) == board.id
    assert f"<@{dave.id}>" not in str(text_of(told))
    # Once: rated once, told once, even after the next rounds of asking.
    await asyncio.sleep(11)
    assert bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(4,)]
    assert len(lines_to(double, alice)) == 1
    assert bot.log_text().count("forfeited by") == 1
    assert double.violations == []


async def test_a_member_whose_turn_is_recent_is_not_asked_for(start_bot: Any) -> None:
    # Asking Discord for every seat of every game each round would not scale: only a turn that
    # has lasted a while is worth a call.
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    game = await paired_across(bot)
    await x_plays_h8(game)
    since = len(double.requests)
    # Two rounds of looking at the seats, and more.
    await asyncio.sleep(25)
    asked = [r.path for r in double.requests[since:]
             if r.method == "GET" and "/members/" in r.path]
    assert asked == []
    assert bot.db_rows("SELECT status FROM games") == [("active",)]
    assert double.violations == []


def test_a_turn_is_slow_once_it_has_lasted_and_a_move_starts_it_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = [100.0]
    monkeypatch.setattr(queue_cog.time, "monotonic", lambda: clock[0])
    turns = queue_cog.SlowTurns()
    assert turns.slow(0, {1: (3, 7), 2: (5, 8)}) == []
    clock[0] += queue_cog.SEAT_TURN_S
    # Game 2 moved on (another stage): its turn starts again.
    assert turns.slow(0, {1: (3, 7), 2: (6, 9)}) == [1]
    # Another shard's turns are its own; a game over is forgotten.
    assert turns.slow(1, {1: (3, 7)}) == []
    clock[0] += queue_cog.SEAT_TURN_S
    assert turns.slow(0, {2: (6, 9)}) == [2]
    assert turns.slow(0, {1: (3, 7)}) == []


async def test_a_server_that_removes_the_bot_mid_game_forfeits_its_member(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    game = await paired_across(bot)
    alice, dave, board, there = game.alice, game.dave, game.board, game.there
    shown_there = there.snapshot()

    double.remove_bot(game.other)
    await board.wait_for(lambda m: "resigned.**" in str(text_of(m)), timeout=15)
    assert f"**<@{alice.id}> wins" in str(text_of(board))
    assert bot.db_rows("SELECT status, end_reason FROM games") == [("finished", "resign")]
    await double.store.changes.wait_until(lambda: bool(lines_to(double, alice)), 10)
    (told,) = lines_to(double, alice)
    assert told.channel_id == str(double.channel_id)
    assert f"<@{dave.id}>" not in str(text_of(told))
    # Nothing is sent to, or waits for, the server that removed the bot.
    await asyncio.sleep(3)
    assert there.snapshot() == shown_there
    assert bot.db_rows(
        "SELECT COUNT(*) FROM outbox WHERE guild_id = ? AND sent_at IS NULL AND failed_at IS NULL",
        (int(game.other),)) == [(0,)]
    assert bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(4,)]
    assert double.violations == []


async def test_a_blocked_member_queueing_from_another_server_is_not_paired_with_the_blocker(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    other = double.add_guild("another server")
    alice, carol = double.add_member("alice"), double.add_member("carol")
    bob = double.add_member("bob")
    double.join(bob, other)
    # Blocked in this server; bob queues from the other.
    await alice.slash("caro block", member=bob)
    await bob.slash("caro queue", channel_id=double.guilds[other].channel_id)
    await alice.slash("caro queue")
    assert not await double.store.changes.wait_until(
        lambda: bot.db_rows("SELECT COUNT(*) FROM games") != [(0,)], 5.0)
    # Bob waited longer and meets the next member who may meet him.
    await carol.slash("caro queue", channel_id=double.add_channel("games"))
    await until(lambda: bot.db_rows(PAIRED) != [], 10.0)
    assert bot.db_rows(PAIRED) == [(int(bob.id), int(carol.id))]
    assert bot.db_rows("SELECT user_id, status FROM queue_entries ORDER BY id") == [
        (int(bob.id), "paired"), (int(alice.id), "waiting"), (int(carol.id), "paired")]


async def test_a_join_and_leave_loop_alternating_servers_meets_one_cooldown(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    other = double.add_guild("another server")
    bob = double.add_member("bob")
    double.join(bob, other)
    channels = (double.channel_id, double.guilds[other].channel_id)
    for n in range(5):
        waiting = await bob.slash("caro queue", channel_id=channels[n % 2])
        assert not waiting.ephemeral
        await bob.click(waiting.message, "Leave")
    for channel in channels:
        assert refusal(await bob.slash("caro queue", channel_id=channel)).startswith(
            "Slow down a little: try again in ")
    assert bot.db_rows("SELECT status, COUNT(*) FROM queue_entries GROUP BY status") == [
        ("left", 5)]


async def test_a_member_leaving_a_server_of_one_cluster_forfeits_and_the_other_tells_the_opponent(
    postgres_dsn: str, start_clusters: Any,
) -> None:
    deployment = await start_clusters(TWO_CLUSTERS, 4, database=postgres_dsn)
    double, clusters = deployment.double, deployment.clusters
    guilds = [guild_on(double, 1, 4), guild_on(double, 2, 4)]  # one on each cluster
    alice, dave = member_in(double, "alice", guilds[0]), member_in(double, "dave", guilds[1])
    channels = [double.guilds[guild].channel_id for guild in guilds]
    first = await alice.slash("caro queue", channel_id=channels[0])
    second = await dave.slash("caro queue", channel_id=channels[1])
    board = await posted_board(double, channels[0], first.message.id, timeout=20)
    there = await posted_board(double, channels[1], second.message.id, timeout=20)

    # Only dave's cluster can find out he left, once his turn has lasted a while; alice's
    # draws her board and tells her.
    double.leave(dave, guilds[1])
    if f"<@{alice.id}> (X)" in str(text_of(board)):
        await typed(alice, board, "H8")
    for shown in (board, there):
        await shown.wait_for(lambda m: "resigned.**" in str(text_of(m)), timeout=100)
    assert f"**<@{alice.id}> wins" in str(text_of(board))
    await double.store.changes.wait_until(lambda: bool(lines_to(double, alice)), 15)
    (told,) = lines_to(double, alice)
    assert told.channel_id == str(channels[0])
    assert str(told.payload["message_reference"]["message_id"]) == board.id
    assert "forfeited by" in clusters[1].log_text()
    assert "forfeited by" not in clusters[0].log_text()
    assert await fetch(postgres_dsn, "SELECT status, end_reason FROM games") == [
        ("finished", "resign")]
    assert double.violations == []
