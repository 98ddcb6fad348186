"""Through the Discord double and the real bot process: stats come
with the server's leaderboard, every board size offers Resign / Hint / Rematch (5x5 and picture
boards as Components V2 layouts, which keep working after a restart), and one AI-vs-AI game per
channel with a Stop button for its starter or a member who may manage messages."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from bot.game.ratings import AI_ANCHORS, updated
from testkit.boards import cells, refusal
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.sqlite_rows import player_mark

COMPONENTS_V2 = 1 << 15
MANAGE_MESSAGES = 1 << 13


def controls(message: Any) -> list[str]:
    return [b["label"] for b in message.buttons if b not in cells(message)]


def top_level_types(message: Any) -> list[int]:
    return [c["type"] for c in message.components]


async def test_stats_show_the_record_and_the_server_leaderboard(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    for _ in range(3):  # three rated games against the AI: enough to be listed
        start = await alice.slash("caro start", difficulty="easy")
        assert (await alice.click(start.message, "Resign")).callback_type == 7
    own = await alice.slash("caro stats")
    assert own.callback_type == 4 and len(own.embeds) == 2
    record, board = own.embeds
    assert record["title"] == "Stats of Alice"
    fields = {f["name"]: f["value"] for f in record["fields"]}
    rating = 1200.0
    for _ in range(3):
        rating = updated(rating, AI_ANCHORS["easy"], "loss")
    shown = round(rating)  # 1114
    assert fields[f"against the AI: rating {shown}"] == "0 W / 0 D / 3 L, 3 played, win rate 0%"
    assert fields["vs AI easy"] == "0 W / 0 D / 3 L, 3 played, win rate 0%"
    assert board["title"] == "Top 10 of this server"
    lines = {f["name"]: f["value"] for f in board["fields"]}
    assert lines["against the AI"] == f"**1.** <@{alice.id}>: {shown} (0 W / 0 D / 3 L)"
    assert lines["against people"].startswith("Nobody has 3 rated games here yet.")
    assert "Listed after 3 rated games" in board["footer"]["text"]
    # Someone else's stats: their (empty) record, and the same server leaderboard.
    other = await bob.slash("caro stats", user=alice)
    assert [e["title"] for e in other.embeds] == ["Stats of Alice", "Top 10 of this server"]
    newcomer = await alice.slash("caro stats", user=bob)
    assert newcomer.embeds[0]["description"] == "No finished games in this server yet."
    assert newcomer.embeds[1]["fields"] == board["fields"]
    alone = await alice.slash("caro leaderboard", mode="ai")
    assert alone.embeds[0]["description"] == lines["against the AI"]


async def test_five_by_five_offers_resign_hint_and_rematch_and_survives_a_restart(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    start = await alice.slash("caro start", size="5x5", difficulty="easy")
    message = start.message
    # Components V2: the text on top, five rows of cells, a row of controls; no content.
    assert message.flags & COMPONENTS_V2 and message.content == ""
    assert top_level_types(message) == [10, 1, 1, 1, 1, 1, 1]
    assert "**5x5, 4 in a row, freestyle**" in text_of(start) and "Your turn (X)." in text_of(start)
    assert len(cells(message)) == 25 and controls(message) == ["Resign", "Hint"]

    hint = await alice.click(message, "Hint")
    (answer,) = await hint.followups(1)
    assert answer.content.startswith("Hint: play **")
    await message.wait_for(lambda m: "Hints used: 1." in text_of(m))

    # A click on the V2 board after a restart still reaches its game.
    await running_bot.restart()
    assert (await alice.click(message, "C3")).callback_type == 7
    await message.wait_for(lambda m: "Your turn (X)." in text_of(m) and "Moves played: 2." in
                           text_of(m), timeout=20)
    assert message.button("C3")["label"] == "X"

    resigned = await alice.click(message, "Resign")
    assert resigned.callback_type == 7
    assert "**The AI wins: you resigned.**" in text_of(message)
    assert controls(message) == ["Rematch", "Review"] and all(b["disabled"] for b in cells(message))
    rematch = await alice.click(message, "Rematch")
    assert rematch.callback_type == 4 and rematch.message.flags & COMPONENTS_V2
    assert f"<@{alice.id}> (O) vs AI (X, easy)" in text_of(rematch)
    await rematch.message.wait_for(lambda m: "Your turn (O)." in text_of(m), timeout=20)
    assert controls(rematch.message) == ["Resign", "Hint"]
    rows = running_bot.db_rows(
        f"SELECT rows, {player_mark()}, status, end_reason FROM games"
    )
    assert rows == [(5, "X", "finished", "resign"), (5, "O", "active", None)]


async def test_a_big_board_against_the_ai_has_resign_and_hint_next_to_the_window(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    start = await alice.slash("caro start", size="15x15", difficulty="normal")
    message = start.message
    # Text, picture (the attached PNG), 4 rows of the window, pan + type, resign + hint.
    assert top_level_types(message) == [10, 12, 1, 1, 1, 1, 1, 1]
    gallery = message.components[1]["items"][0]["media"]["url"]
    assert gallery.endswith("board.png") and [a["filename"] for a in message.attachments] == [
        "board.png"
    ]
    assert len(cells(message)) == 20
    assert controls(message) == ["\u2b05", "\u2b06", "\u2b07", "\u27a1", "Type a move",
                                 "Resign", "Hint"]
    assert (await alice.click(message, "H8")).callback_type == 7
    await message.wait_for(lambda m: "Your turn (X)." in text_of(m), timeout=20)
    assert re.search(r"AI played \*\*[A-O][0-9]{1,2}\*\*: ", text_of(message))

    await running_bot.restart()
    # The pan arrows, the form and the hint of the V2 message resolve after the restart too.
    assert (await alice.click(message, "up")).callback_type == 7
    form = await alice.click(message, "Type a move")
    assert form.callback_type == 9
    hint = await alice.click(message, "Hint")
    (answer,) = await hint.followups(1)
    assert answer.ephemeral and answer.content.startswith("Hint: play **")
    await message.wait_for(lambda m: "Hints used: 1." in text_of(m))
    assert (await alice.click(message, "Resign")).callback_type == 7
    assert "**The AI wins: you resigned.**" in text_of(message)
    assert controls(message) == ["Rematch", "Review"] and cells(message) == []
    assert [a["filename"] for a in message.attachments] == ["board.png"]


async def test_one_watched_game_per_channel_and_who_may_stop_it(start_bot: StartBot) -> None:
    # Slow pacing: the games must still be running while the test clicks.
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="4")
    double = bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    carol.permissions = str(int(carol.permissions) | MANAGE_MESSAGES)

    first = await alice.slash("caro watch", x_level="easy", o_level="easy", size="5x5")
    assert first.callback_type == 4 and not first.ephemeral
    watched = first.message
    assert top_level_types(watched) == [10, 1, 1, 1, 1, 1, 1]
    assert controls(watched) == ["Stop"]
    second = await bob.slash("caro watch")
    link = f"https://discord.com/channels/{double.guild_id}/{double.channel_id}/{watched.id}"
    assert f"Two AIs are already playing in this channel: {link}." in refusal(second)
    elsewhere = double.add_channel("other")
    in_other = await bob.slash("caro watch", channel_id=elsewhere)
    assert in_other.callback_type == 4 and not in_other.ephemeral  # one per channel, not per server

    denied = refusal(await bob.click(watched, "Stop"))
    assert f"Only <@{alice.id}>, who started this game, or a member with the Manage" in denied
    stopped = await carol.click(watched, "Stop")  # Manage Messages may stop anyone's
    assert stopped.callback_type == 7
    assert text_of(watched).endswith("**Stopped before the end.**")
    assert watched.buttons == cells(watched) and all(b["disabled"] for b in cells(watched))
    stored = bot.db_rows("SELECT status, ply FROM games WHERE message_id = ?", (int(watched.id),))
    assert stored[0][0] == "abandoned"
    ply = stored[0][1]

    third = await bob.slash("caro watch", x_level="easy", o_level="normal")
    assert third.callback_type == 4 and not third.ephemeral
    assert f"Only <@{bob.id}>, who started" in refusal(await alice.click(third.message, "Stop"))
    assert (await bob.click(third.message, "Stop")).callback_type == 7
    assert text_of(third.message).endswith("**Stopped before the end.**")
    # Nothing moves on a stopped game, even after the pacing delay has passed, and the board
    # still says it stopped; no game was rated.
    await asyncio.sleep(4.5)
    assert bot.db_rows("SELECT ply FROM games WHERE message_id = ?", (int(watched.id),)) == [
        (ply,)
    ]
    assert text_of(watched).endswith("**Stopped before the end.**")
    assert text_of(third.message).endswith("**Stopped before the end.**")
    assert bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(0,)]
    assert bot.db_rows("SELECT COUNT(*) FROM results") == [(0,)]
