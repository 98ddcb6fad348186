"""/caro queue (bot/cogs/queue.py), through the Discord double and the real bot process: two
members of a server queue from two channels, are paired, their game is posted in the channel of
the one who waited longer with both mentioned, both queue messages link to it, and the rated
game ends with both ratings changed once; Leave, a second entry refused, a block that keeps two
apart, and the texts in Vietnamese."""

from __future__ import annotations

import asyncio
import re
import signal
from dataclasses import dataclass
from typing import Any

from testkit.boards import cells, refusal
from testkit.bot_process import BotHandle, text_of
from testkit.gates import until
from tests.bot.cogs.test_openings import typed


async def posted_board(double: Any, channel_id: str, after: str, timeout: float = 15.0,
                       *, type_label: str = "Type a move") -> Any:
    """The first message of the bot's in `channel_id` after message `after` that is a board
    (with a button `type_label`: "Type a move" in English)."""

    def boards() -> list[Any]:
        return [
            m for m in double.store.channel_history(channel_id)
            if int(m.id) > int(after) and any(b.get("label") == type_label for b in m.buttons)
        ]

    assert await double.store.changes.wait_until(lambda: bool(boards()), timeout), (
        "no board was posted")
    return boards()[0]


@dataclass
class Across:
    """Alice (the test server) and dave (another) paired from the queue: the game's own board
    in alice's channel, its second board in dave's."""

    other: str
    theirs: str
    alice: Any
    dave: Any
    board: Any
    there: Any


class Sides:
    """X and O of a game between two servers: each one's member, channel and board."""

    def __init__(self, game: Across) -> None:
        alice = (game.alice, game.board.channel_id, game.board)
        dave = (game.dave, game.theirs, game.there)
        x_is_alice = f"<@{game.alice.id}> (X)" in str(text_of(game.board))
        (self.x, self.x_channel, self.x_board), (self.o, self.o_channel, self.o_board) = (
            (alice, dave) if x_is_alice else (dave, alice))
        # How each member is called on the other's board: display name and rating.
        self.names = {game.alice.id: "**Alice** (1200)", game.dave.id: "**Dave** (1200)"}


async def paired_across(bot: BotHandle, *, dave_locale: str | None = None,
                        rated: bool = True) -> Across:
    double = bot.double
    other = double.add_guild("another server")
    alice = double.add_member("alice")
    dave = double.add_member("dave", guild_id=other,
                             **({} if dave_locale is None else {"locale": dave_locale}))
    theirs = double.guilds[other].channel_id
    casual: dict[str, Any] = {} if rated else {"rated": False}
    first = await alice.slash("caro queue", **casual)
    second = await dave.slash("caro queue", channel_id=theirs, **casual)
    board = await posted_board(double, double.channel_id, first.message.id)
    label = "Nhập nước đi" if dave_locale == "vi" else "Type a move"
    there = await posted_board(double, theirs, second.message.id, type_label=label)
    return Across(other, theirs, alice, dave, board, there)


async def test_two_members_queue_are_paired_and_play_a_rated_game(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    games = double.add_channel("games")
    first = await alice.slash("caro queue")
    assert not first.ephemeral
    assert text_of(first.message) == (
        f"<@{alice.id}> is looking for an opponent: **15x15, 5 in a row, freestyle**, rated."
        " Waiting for this game now: 1. Your game will be posted in this channel, or in your"
        " opponent's if they are in this server."
    )
    assert refusal(await alice.slash("caro queue", rated=False)).startswith(
        "You are in the queue already")
    second = await bob.slash("caro queue", channel_id=games)
    assert "Waiting for this game now: 2." in str(text_of(second.message))

    # Alice waited longer: the board is in her channel, and mentions both.
    board = await posted_board(double, double.channel_id, first.message.id)
    assert f"<@{alice.id}>" in text_of(board) and f"<@{bob.id}>" in text_of(board)
    link = f"/{board.channel_id}/{board.id}"
    await first.message.wait_for(lambda m: link in str(text_of(m)))
    await second.message.wait_for(lambda m: link in str(text_of(m)))
    assert str(text_of(second.message)).startswith(
        f"<@{bob.id}> was paired with <@{alice.id}>: the game is here: ")
    assert second.message.buttons == []
    # One queued game at a time.
    assert refusal(await bob.slash("caro queue", channel_id=games)).startswith(
        "Your game from the queue is still on")

    x, o = (alice, bob) if f"<@{alice.id}> (X)" in text_of(board) else (bob, alice)
    for member, cell in [(x, "H8"), (o, "A1"), (x, "H9"), (o, "A2"), (x, "H10"), (o, "A3"),
                         (x, "H11"), (o, "A4"), (x, "H12")]:
        answer = await typed(member, board, cell)
        assert answer.callback_type in (4, 6, 7), answer
    await board.wait_for(lambda m: f"**<@{x.id}> wins!**" in str(text_of(m)))
    assert f"Rating <@{x.id}>: 1200 -> 1216." in text_of(board)
    assert f"Rating <@{o.id}>: 1200 -> 1184." in text_of(board)
    # Counted once: the server's rating and the global one, for each player.
    assert running_bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(4,)]
    assert running_bot.db_rows("SELECT status FROM queue_entries ORDER BY id") == [
        ("paired",), ("paired",)]
    # Over: they may queue again.
    again = await alice.slash("caro queue")
    assert not again.ephemeral


async def test_leave_takes_a_member_out_and_only_they_can(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    waiting = await alice.slash("caro queue", size="9x9", rule="freestyle", rated=False)
    assert "**9x9, 5 in a row, freestyle**, casual" in str(text_of(waiting.message))
    assert refusal(await bob.click(waiting.message, "Leave")) == (
        f"This is <@{alice.id}>'s place in the queue; join it yourself with `/caro queue`.")
    left = await alice.click(waiting.message, "Leave")
    assert left.callback_type == 7
    assert text_of(waiting.message) == f"<@{alice.id}> left the queue."
    assert waiting.message.buttons == []
    # Out of the queue: bob waits alone.
    await bob.slash("caro queue", size="9x9", rated=False)
    assert running_bot.db_rows("SELECT status FROM queue_entries ORDER BY id") == [
        ("left",), ("waiting",)]


async def test_a_block_keeps_two_members_apart_in_the_queue(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    await alice.slash("caro block", member=bob)
    first = await alice.slash("caro queue")
    await bob.slash("caro queue")
    await carol.slash("caro queue", size="9x9")
    # Nobody can be paired: alice and bob blocked, carol asks for another game.
    assert not await double.store.changes.wait_until(
        lambda: running_bot.db_rows("SELECT COUNT(*) FROM games") != [(0,)], 5.0)
    assert "Waiting for this game now" in str(text_of(first.message))


async def test_the_queue_speaks_vietnamese(running_bot: BotHandle) -> None:
    double = running_bot.double
    an = double.add_member("an", locale="vi")
    waiting = await an.slash("caro queue")
    assert str(text_of(waiting.message)).startswith(
        f"<@{an.id}> đang tìm đối thủ: **15x15, 5 quân liên tiếp, luật tự do**, tính điểm.")
    assert [b["label"] for b in waiting.message.buttons] == ["Rời hàng chờ"]
    await an.click(waiting.message, "Rời hàng chờ")
    assert text_of(waiting.message) == f"<@{an.id}> đã rời hàng chờ."


# Who was paired with whom, the one who waited longer first.
PAIRED = ("SELECT user_id, partner_id FROM queue_entries WHERE status = 'paired'"
          " ORDER BY joined_at, id LIMIT 1")


async def test_a_member_who_left_the_server_is_taken_out_and_never_paired(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    first = await alice.slash("caro queue")
    # Alice leaves the server while she waits: the bot (no members intent) hears nothing.
    double.leave(alice)
    await bob.slash("caro queue", channel_id=double.add_channel("games"))
    await first.message.wait_for(lambda m: text_of(m) == f"<@{alice.id}> left the queue.")
    assert first.message.buttons == []
    assert running_bot.db_rows("SELECT user_id, status FROM queue_entries ORDER BY id") == [
        (int(alice.id), "left"), (int(bob.id), "waiting")]
    assert running_bot.db_rows("SELECT COUNT(*) FROM games") == [(0,)]
    assert (f"queue: {alice.id} left server {double.guild_id}; entry 1 taken out of the queue"
            in running_bot.log_text())
    # Bob still waits, and meets the next member who comes.
    await carol.slash("caro queue")
    assert await double.store.changes.wait_until(
        lambda: running_bot.db_rows(PAIRED) != [], 10.0)
    assert running_bot.db_rows(PAIRED) == [(int(bob.id), int(carol.id))]


async def test_a_server_that_removes_the_bot_has_its_waiting_entries_taken_out(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")  # commands everywhere, not in one test server
    double = bot.double
    other = double.add_guild("another server")
    dave, erin = (double.add_member(name, guild_id=other) for name in ("dave", "erin"))
    alice = double.add_member("alice")
    double.join(dave, double.guild_id)
    channel = double.guilds[other].channel_id
    await dave.slash("caro queue", channel_id=channel)
    await erin.slash("caro queue", size="9x9", channel_id=channel)
    await alice.slash("caro queue")
    double.remove_bot(other)
    # Nothing shows on Discord: the database says it.
    await until(lambda: bot.db_rows("SELECT status FROM queue_entries ORDER BY id") == [
        ("left",), ("left",), ("waiting",)], 10.0)
    # The log line follows the commit that the rows above show: wait for it too.
    await until(lambda: (f"queue: the bot was removed from server {other}; entries taken out"
                         " of the queue: 1, 2") in bot.log_text(), 5.0)
    # Out of that queue, dave may queue in the server he shares with the bot, and meets alice.
    assert not (await dave.slash("caro queue", channel_id=double.channel_id)).ephemeral
    assert await double.store.changes.wait_until(lambda: bot.db_rows(PAIRED) != [], 10.0)
    assert bot.db_rows(PAIRED) == [(int(alice.id), int(dave.id))]


async def test_a_game_paired_but_not_posted_when_the_bot_is_killed_is_posted_after_restart(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    first = await alice.slash("caro queue")
    # Discord holds the board's Create Message unanswered: paired and stored, not posted.
    held = double.fail_next("POST", r"^/channels/\d+/messages$", status=500, mode="hold")
    second = await bob.slash("caro queue", channel_id=double.add_channel("games"))
    await until(lambda: held.held == 1, 15.0)
    assert running_bot.db_rows("SELECT COUNT(*), MAX(message_id) FROM games") == [(1, None)]
    await running_bot.stop(signal.SIGKILL)
    held.release()

    await running_bot.start()
    board = await posted_board(double, double.channel_id, first.message.id)
    assert f"<@{alice.id}>" in text_of(board) and f"<@{bob.id}>" in text_of(board)
    link = f"/{board.channel_id}/{board.id}"
    await first.message.wait_for(lambda m: link in str(text_of(m)))
    await second.message.wait_for(lambda m: link in str(text_of(m)))
    # One game, one board, both entries paired to it.
    assert running_bot.db_rows("SELECT COUNT(*), MAX(message_id) FROM games") == [
        (1, int(board.id))]
    assert [m for m in double.messages() if any(
        b.get("label") == "Type a move" for b in m.buttons)] == [board]
    assert running_bot.db_rows("SELECT status, game_id FROM queue_entries ORDER BY id") == [
        ("paired", 1), ("paired", 1)]


async def test_the_count_of_those_waiting_follows_joins_and_leaves(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    await alice.slash("caro block", member=bob)  # so that the two wait side by side
    first = await alice.slash("caro queue")
    second = await bob.slash("caro queue", channel_id=double.add_channel("games"))
    assert "Waiting for this game now: 2." in str(text_of(second.message))
    await first.message.wait_for(lambda m: "Waiting for this game now: 2." in str(text_of(m)))
    assert [b["label"] for b in first.message.buttons] == ["Leave"]
    # Another game's queue counts apart.
    await carol.slash("caro queue", size="9x9")
    await bob.click(second.message, "Leave")
    await first.message.wait_for(lambda m: "Waiting for this game now: 1." in str(text_of(m)))
    assert [b["label"] for b in first.message.buttons] == ["Leave"]
    # Edited when the count changed, not every round: two more rounds change nothing.
    assert first.message.edits == 2
    await asyncio.sleep(4.5)
    assert first.message.edits == 2
    assert text_of(second.message) == f"<@{bob.id}> left the queue."


async def test_a_server_that_removed_the_bot_while_it_was_down_loses_its_entries_at_start(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    other = double.add_guild("another server")
    dave, alice = double.add_member("dave", guild_id=other), double.add_member("alice")
    # Each for their own server: not paired with each other.
    await dave.slash("caro queue", channel_id=double.guilds[other].channel_id, scope="server")
    await alice.slash("caro queue", scope="server")
    await bot.stop()
    double.remove_bot(other)  # no GUILD_DELETE reaches a bot that is down
    await bot.start()
    await until(lambda: bot.db_rows("SELECT status FROM queue_entries ORDER BY id") == [
        ("left",), ("waiting",)], 10.0)
    # Logged just after the entries are taken out.
    await until(lambda: (
        f"queue: the bot was removed from server {other}; entries taken out of the queue: 1"
        in bot.log_text()), 10.0)


async def test_members_of_two_servers_play_one_game_on_a_board_in_each_server(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    other = double.add_guild("another server")
    alice = double.add_member("alice")
    dave = double.add_member("dave", guild_id=other)
    theirs = double.guilds[other].channel_id
    first = await alice.slash("caro queue")
    second = await dave.slash("caro queue", channel_id=theirs)
    assert "Waiting for this game now: 2." in str(text_of(second.message))

    # Alice waited longer: the game's own board is in her channel, one more in dave's.
    board = await posted_board(double, double.channel_id, first.message.id)
    there = await posted_board(double, theirs, second.message.id)
    # Each server sees the other's member by name and rating: no mention, no link across.
    assert f"<@{alice.id}>" in text_of(board) and f"<@{dave.id}>" not in text_of(board)
    assert "**Dave** (1200)" in text_of(board)
    assert f"<@{dave.id}>" in text_of(there) and f"<@{alice.id}>" not in text_of(there)
    assert "**Alice** (1200)" in text_of(there)
    await first.message.wait_for(lambda m: f"/{board.channel_id}/{board.id}" in str(text_of(m)))
    await second.message.wait_for(lambda m: f"/{theirs}/{there.id}" in str(text_of(m)))
    assert str(text_of(second.message)).startswith(
        f"<@{dave.id}> was paired with **Alice** (1200): the game is here: ")
    assert f"/{board.channel_id}/" not in str(text_of(second.message))

    # Each plays on the board of their own server; each move shows on both.
    x_is_alice = f"<@{alice.id}> (X)" in str(text_of(board))
    x, o = (alice, dave) if x_is_alice else (dave, alice)
    boards = {alice.id: board, dave.id: there}
    moves = [(x, "H8"), (o, "A1"), (x, "H9"), (o, "A2"), (x, "H10"), (o, "A3"), (x, "H11"),
             (o, "A4"), (x, "H12")]
    # A rated game's moves stand, between two servers as in one.
    assert refusal(await x.slash("caro takeback", channel_id=boards[x.id].channel_id)
                   ).startswith("Moves cannot be taken back in a rated game.")
    for n, (member, cell) in enumerate(moves, start=1):
        answer = await typed(member, boards[member.id], cell)
        assert answer.callback_type in (4, 6, 7), answer
        for shown in (board, there):
            await shown.wait_for(lambda m, n=n: f"Moves played: {n}." in str(text_of(m)), timeout=10)
    await board.wait_for(lambda m: "wins!" in str(text_of(m)), timeout=10)
    await there.wait_for(lambda m: "wins!" in str(text_of(m)), timeout=10)
    # Each is rated in their own server and globally. A board shows the change of its own
    # member in its server, and the global one of the member of the other server, who has no
    # rating there.
    assert sorted(bot.db_rows("SELECT user_id, scope FROM rating_changes")) == sorted([
        (int(alice.id), 0), (int(alice.id), int(double.guild_id)),
        (int(dave.id), 0), (int(dave.id), int(other)),
    ])
    alices, daves = ("1216", "1184") if x_is_alice else ("1184", "1216")
    assert f"Rating <@{alice.id}>: 1200 -> {alices}." in str(text_of(board))
    assert f"Global rating **Dave** (1200): 1200 -> {daves}." in str(text_of(board))
    assert f"Rating <@{dave.id}>: 1200 -> {daves}." in str(text_of(there))
    assert f"Global rating **Alice** (1200): 1200 -> {alices}." in str(text_of(there))

    def unrated(shown: Any) -> str:
        return "\n".join(line for line in str(text_of(shown)).split("\n")
                         if "Rating" not in line and "Global rating" not in line)

    assert unrated(board) == unrated(there).replace(
        f"<@{dave.id}>", "**Dave** (1200)").replace("**Alice** (1200)", f"<@{alice.id}>")
    # No Rematch between two servers (a challenge would cross them); the review stays.
    for shown in (board, there):
        labels = [str(b.get("label")) for b in shown.buttons]
        assert "Rematch" not in labels and "Review" in labels, labels
    # Nothing in either server mentions the member of the other (turn pings included: the
    # member of the game's own server is called in its channel, the other never there).
    for channel, stranger in ((double.channel_id, dave), (theirs, alice)):
        # Deleted ones too (a turn's ping goes when the turn passes).
        for message in double.store.order:
            if message.channel_id == str(channel):
                assert f"<@{stranger.id}>" not in str(text_of(message)), text_of(message)
    # Each was called to move in their own channel, replying to their own board.
    for channel, member, own in ((double.channel_id, alice, board), (theirs, dave, there)):
        pings = [m for m in double.store.order if m.channel_id == str(channel)
                 and text_of(m) == f"<@{member.id}>, your move."]
        assert pings, pings
        # The game's end removes the last call after the board's last edit (between servers,
        # through the outbox), so it may still be going.
        for ping in pings:
            await ping.wait_for(lambda m: m.deleted, timeout=10)
        assert all(str((m.payload.get("message_reference") or {}).get("message_id")) == own.id
                   for m in pings), [m.payload.get("message_reference") for m in pings]
    assert bot.double.violations == []



def english_left(text: str) -> list[str]:
    """The pieces of English texts of the catalogue (those Vietnamese translates differently)
    found in `text`: each text's words between its placeholders, when they are a phrase (two
    words or more) that its Vietnamese does not keep."""
    from bot.i18n.texts import EN, VI

    found = []
    for key, english in EN.items():
        vietnamese = VI.get(key, "")
        for piece in re.split(r"\{[^}]*\}", english):
            piece = piece.strip(" .,:;!?*()`-_\n")
            if " " in piece and re.search(r"[a-z]{3}", piece) and piece not in vietnamese \
                    and piece in text:
                found.append(piece)
    return found


async def test_members_of_two_servers_play_a_rated_game_from_the_queue_in_vietnamese(
    start_bot: Any,
) -> None:
    """The scenario above with two members who both chose Vietnamese: an by his Discord client
    (he types the command's Vietnamese name, as his client shows it), binh with `/caro settings
    language` in an English client. Every text either sees is in Vietnamese."""
    from testkit.discord_double.playground import parse_slash

    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    other = double.add_guild("máy chủ khác")
    an = double.add_member("an", locale="vi")
    binh = double.add_member("binh", guild_id=other)
    theirs = double.guilds[other].channel_id
    chose = await binh.slash("caro settings", channel_id=theirs, language="vi")
    assert chose.ephemeral and not english_left(str(chose.content)), chose.content
    path, options = parse_slash(double, "/caro hàng-chờ")
    assert path == "caro queue" and options == {}
    first = await an.slash(path)
    second = await binh.slash("caro queue", channel_id=theirs)
    assert str(text_of(first.message)).startswith(
        f"<@{an.id}> đang tìm đối thủ: **15x15, 5 quân liên tiếp, luật tự do**, tính điểm.")
    assert str(text_of(second.message)).startswith(f"<@{binh.id}> đang tìm đối thủ:")

    board = await posted_board(double, double.channel_id, first.message.id,
                               type_label="Nhập nước đi")
    there = await posted_board(double, theirs, second.message.id, type_label="Nhập nước đi")
    assert "**Binh** (1200)" in text_of(board) and "**An** (1200)" in text_of(there)
    await first.message.wait_for(lambda m: f"/{board.channel_id}/{board.id}" in str(text_of(m)))
    await second.message.wait_for(lambda m: f"/{theirs}/{there.id}" in str(text_of(m)))
    assert str(text_of(first.message)).startswith(
        f"<@{an.id}> đã được ghép với **Binh** (1200): ván đấu ở đây: ")
    assert str(text_of(second.message)).startswith(
        f"<@{binh.id}> đã được ghép với **An** (1200): ván đấu ở đây: ")

    x, o = (an, binh) if f"<@{an.id}> (X)" in str(text_of(board)) else (binh, an)
    boards = {an.id: board, binh.id: there}
    replies = []
    for n, (member, cell) in enumerate(
        [(x, "H8"), (o, "A1"), (x, "H9"), (o, "A2"), (x, "H10"), (o, "A3"), (x, "H11"),
         (o, "A4"), (x, "H12")], start=1,
    ):
        form = await member.click(boards[member.id], "Nhập nước đi")
        assert form.modal is not None, form
        replies.append(str(form.modal))
        answer = await member.submit_modal(boards[member.id], form.modal["custom_id"],
                                           {"cell": cell})
        assert answer.callback_type in (4, 6, 7), answer
        for shown in (board, there):
            await shown.wait_for(lambda m, n=n: f"Số nước đã đi: {n}." in str(text_of(m)),
                                 timeout=10)
    # The win and both rating changes, on both boards, in Vietnamese.
    winner = {an.id: "**Binh** (1200)", binh.id: "**An** (1200)"}
    for own, shown in ((an, board), (binh, there)):
        name = f"<@{x.id}>" if x is own else winner[own.id]
        await shown.wait_for(lambda m, name=name: f"**{name} thắng!**" in str(text_of(m)),
                             timeout=10)
        assert "Điểm của" in str(text_of(shown)) and "1200 -> 1216" in str(text_of(shown))
        assert "1200 -> 1184" in str(text_of(shown))
    # Every text either member saw, in either channel: queue messages, both boards, the pings
    # (deleted once their turn passed), the private answers; then the forms they opened.
    seen = [m for m in double.store.order if m.channel_id in (double.channel_id, theirs)]
    pings = [m for m in seen if text_of(m) in (f"<@{an.id}>, đến lượt bạn.",
                                               f"<@{binh.id}>, đến lượt bạn.")]
    assert {m.channel_id for m in pings} == {double.channel_id, theirs}, pings
    for message in seen:
        shown_text = "\n".join([str(text_of(message)), str(message.embeds),
                                *(str(b.get("label") or "") for b in message.buttons)])
        assert english_left(shown_text) == [], shown_text
        assert not any(str(b.get("label")) in ("Type a move", "Resign", "Review")
                       for b in message.buttons), message.buttons
    assert [english_left(reply) for reply in replies] == [[]] * len(replies)
    assert double.violations == []


async def test_a_member_resigns_on_the_board_of_their_own_server_in_their_language(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    game = await paired_across(bot, dave_locale="vi")
    board, there, dave, theirs = game.board, game.there, game.dave, game.theirs
    # Each board speaks the language its member queued in.
    assert "Moves played: 0." in text_of(board) and "Số nước đã đi: 0." in text_of(there)
    asked = await dave.click(there, "Chịu thua")
    yes = next(b["custom_id"] for b in asked.message.buttons if b["label"] == "Chịu thua")
    done = await dave.click_custom_id(asked.message, yes)
    # The link is to his own board, never into the other server.
    assert done.callback_type == 7
    assert asked.message.content.startswith("Bạn đã chịu thua: https://")
    assert asked.message.content.endswith(f"/{theirs}/{there.id}"), asked.message.content
    await board.wait_for(lambda m: "resigned.**" in str(text_of(m)), timeout=10)
    await there.wait_for(lambda m: "đã chịu thua.**" in str(text_of(m)), timeout=10)
    assert bot.db_rows("SELECT status, end_reason FROM games") == [("finished", "resign")]


async def test_a_member_resigns_with_the_command_in_their_own_servers_channel(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    game = await paired_across(bot)
    dave, board, there, theirs = game.dave, game.board, game.there, game.theirs
    done = await dave.slash("caro resign", channel_id=theirs)
    assert done.ephemeral and str(done.content).startswith("You resigned: https://")
    assert str(done.content).endswith(f"/{theirs}/{there.id}"), done.content
    for shown in (board, there):
        await shown.wait_for(lambda m: "resigned.**" in str(text_of(m)), timeout=10)


async def test_a_game_between_two_servers_goes_on_on_both_boards_after_a_restart(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    game = await paired_across(bot)
    alice, dave, board, there, theirs = game.alice, game.dave, game.board, game.there, game.theirs
    x, o = (alice, dave) if f"<@{alice.id}> (X)" in str(text_of(board)) else (dave, alice)
    boards = {alice.id: board, dave.id: there}
    await typed(x, boards[x.id], "H8")
    await there.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=10)
    await bot.restart()
    # The boards are the same messages, and each move still shows on both.
    for n, (member, cell) in enumerate([(o, "A1"), (x, "H9")], start=2):
        answer = await typed(member, boards[member.id], cell)
        assert answer.callback_type in (4, 6, 7), answer
        for shown in (board, there):
            await shown.wait_for(lambda m, n=n: f"Moves played: {n}." in str(text_of(m)),
                                 timeout=10)
    assert [m for m in bot.double.store.channel_history(theirs) if "Type a move" in str(
        [b.get("label") for b in m.buttons])] == [there]


async def test_a_board_its_member_panned_keeps_its_window_when_the_other_member_moves(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    game = await paired_across(bot)
    side = Sides(game)
    alice, dave, board, there = game.alice, game.dave, game.board, game.there

    def window(message: Any) -> list[str]:
        return [str(b["custom_id"]).rsplit(":", 1)[1] for b in cells(message)]

    first = window(there)
    assert (await dave.click(there, "down")).callback_type == 7
    panned = window(there)
    assert panned != first
    assert bot.db_rows("SELECT user_id, panned FROM queue_entries ORDER BY user_id") == sorted(
        [(int(alice.id), 0), (int(dave.id), 1)])
    # Moves inside dave's window, each drawn on both boards: his stays where he panned it, and
    # alice's, never panned, keeps the window that follows the moves.
    for n, (member, mine, cell) in enumerate(
            [(side.x, side.x_board, panned[0]), (side.o, side.o_board, panned[-1])], start=1):
        await typed(member, mine, cell)
        for shown in (board, there):
            await shown.wait_for(lambda m, n=n: f"Moves played: {n}." in str(text_of(m)),
                                 timeout=10)
        assert window(there) == panned
        assert cell in window(board)
    # Every redraw of the other board was sent once, none tried twice.
    def redraws() -> list[tuple[Any, ...]]:
        return bot.db_rows("SELECT sent_at IS NOT NULL, attempts FROM outbox WHERE kind = ?",
                           ("game_board",))

    await until(lambda: redraws() == [(1, 0), (1, 0)], timeout=10)
    assert bot.double.violations == []


async def test_an_edit_of_the_other_board_discord_refuses_goes_to_its_servers_sender(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    side = Sides(await paired_across(bot))
    other = side.o_board
    # The clicking process's edit of the other board is refused once: it hands the board's row
    # back, and the outbox's sender draws it, as for any row of its server.
    refused = bot.double.fail_next(
        "PATCH", rf"^/channels/{other.channel_id}/messages/{other.id}$", status=403)
    await typed(side.x, side.x_board, "H8")
    await other.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=10)
    assert refused.times == 0
    await until(lambda: bot.db_rows(
        "SELECT sent_at IS NOT NULL, attempts FROM outbox WHERE kind = ?", ("game_board",)
    ) == [(1, 0)], timeout=10)


async def test_the_second_board_held_when_the_bot_is_killed_is_posted_once_after_restart(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    other = double.add_guild("another server")
    alice, dave = double.add_member("alice"), double.add_member("dave", guild_id=other)
    theirs = double.guilds[other].channel_id
    first = await alice.slash("caro queue")
    # Discord holds the second board's Create Message unanswered (it may still make it).
    held = double.fail_next("POST", rf"^/channels/{theirs}/messages$", status=500, mode="hold")
    second = await dave.slash("caro queue", channel_id=theirs)
    board = await posted_board(double, double.channel_id, first.message.id)
    await until(lambda: held.held == 1, 15.0)
    assert bot.db_rows("SELECT message_id FROM game_boards") == [(None,)]
    await bot.stop(signal.SIGKILL)
    held.release()

    await bot.start()
    there = await posted_board(double, theirs, second.message.id)
    await second.message.wait_for(lambda m: f"/{theirs}/{there.id}" in str(text_of(m)))
    # One board in each server: the nonce made the second post hand back the first.
    for channel, shown in ((double.channel_id, board), (theirs, there)):
        assert [m for m in double.store.channel_history(channel) if any(
            b.get("label") == "Type a move" for b in m.buttons)] == [shown]
    assert bot.db_rows("SELECT message_id FROM game_boards") == [(int(there.id),)]


async def test_a_call_to_move_still_on_its_way_when_the_game_ends_is_removed_once_it_lands(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    game = await paired_across(bot)
    double, alice, dave = bot.double, game.alice, game.dave
    call = f"<@{dave.id}>, your move."
    # Dave lines up four, alice plays apart; then alice's last move makes it dave's turn.
    daves, alices = ["H8", "H9", "H10", "H11"], ["A1", "A2", "A3", "A4", "A6"]
    his = [(dave, game.there, cell) for cell in daves]
    hers = [(alice, game.board, cell) for cell in alices]
    if f"<@{alice.id}> (X)" in str(text_of(game.board)):
        moves = [move for pair in zip(hers, his, strict=False) for move in pair] + [hers[4]]
    else:
        moves = [move for pair in zip(his, hers, strict=False) for move in pair]
    for n, (member, board, cell) in enumerate(moves[:-1], start=1):
        await typed(member, board, cell)
        for shown in (game.board, game.there):
            await shown.wait_for(lambda m, n=n: f"Moves played: {n}." in str(text_of(m)),
                                 timeout=10)
    # Discord sits on the call to dave in his server (an outbox row there), and he plays his
    # winning move from his board meanwhile.
    held = double.fail_next("POST", rf"^/channels/{game.theirs}/messages$", status=500,
                            mode="hold", content=re.escape(call))
    await typed(alice, game.board, moves[-1][2])
    await until(lambda: held.held == 1, 15.0)
    await typed(dave, game.there, "H12")
    await game.there.wait_for(lambda m: "wins!" in str(text_of(m)), timeout=10)

    def calls() -> list[Any]:
        return [m for m in double.store.order
                if m.channel_id == game.theirs and text_of(m) == call]

    # discord.py sends it again after the 500, and it lands after the game's end: it goes.
    before = len(calls())
    held.release()
    await until(lambda: len(calls()) == before + 1, 15.0)
    await calls()[-1].wait_for(lambda m: m.deleted, timeout=10)
    assert all(m.deleted for m in calls())
    assert double.violations == []


async def test_the_member_of_the_other_server_is_warned_of_their_clock_in_their_channel(
    start_bot: Any,
) -> None:
    from testkit.members import MANAGE_GUILD

    bot = await start_bot(DISCORD_GUILD_ID="", CARO_MIN_TIMEOUT_SECONDS="1")
    double = bot.double
    other = double.add_guild("another server")
    theirs = double.guilds[other].channel_id
    # Both servers on a 6 s clock (the same game: the queue compares the turn clock too).
    for guild, channel in ((None, double.channel_id), (other, theirs)):
        admin = double.add_member("admin", **({} if guild is None else {"guild_id": guild}))
        admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
        assert (await admin.slash("caro settings", timeout=0.1, channel_id=channel)).ephemeral
    alice, dave = double.add_member("alice"), double.add_member("dave", guild_id=other)
    first = await alice.slash("caro queue")
    second = await dave.slash("caro queue", channel_id=theirs)
    board = await posted_board(double, double.channel_id, first.message.id)
    there = await posted_board(double, theirs, second.message.id)
    x, o = (alice, dave) if f"<@{alice.id}> (X)" in str(text_of(board)) else (dave, alice)
    boards = {alice.id: board, dave.id: there}
    channels = {alice.id: double.channel_id, dave.id: theirs}
    # Dave (of the other server) plays O here: his warning is for the other server.
    assert o is dave
    await typed(x, boards[x.id], "H8")

    def warnings() -> list[Any]:
        return [m for m in double.store.order
                if str(text_of(m)).startswith(f"<@{o.id}>, your clock runs out")]

    # O is warned once, in their own channel, replying to their own board.
    await double.store.changes.wait_until(lambda: bool(warnings()), 10)
    (warning,) = warnings()
    assert warning.channel_id == str(channels[o.id])
    assert str(warning.payload["message_reference"]["message_id"]) == boards[o.id].id
    # The clock wrote the one row for his own channel: none for the game's, none handed on.
    assert bot.db_rows("SELECT guild_id, channel_id FROM outbox WHERE kind = 'clock_warning'"
                       ) == [(int(other), int(theirs))]
    # O's clock runs out: both boards say so, and the warning goes.
    for shown in (board, there):
        await shown.wait_for(lambda m: "ran out of time" in str(text_of(m)), timeout=15)
    await warning.wait_for(lambda m: m.deleted, timeout=10)
    assert len(warnings()) == 1
