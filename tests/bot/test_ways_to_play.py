"""Every way to play, through the Discord double and the real bot process: challenges between
members, AI-vs-AI games, a 15x15 caro game on the image board, resign and rematch, hints, turn
clocks that outlive a restart, ratings, and a Vietnamese-speaking member."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from testkit.boards import cells, refusal
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.members import accepted_game
from testkit.sqlite_rows import player_mark, player_result

MANAGE_GUILD = 1 << 5
COMPONENTS_V2 = 1 << 15


def decided(message: Any) -> bool:
    return any(word in text_of(message) for word in ("wins", "Draw", "thắng", "Hòa"))


async def test_full_game_between_two_members_with_ratings(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    challenge = await alice.slash("caro challenge", opponent=bob, first="me")
    text = str(text_of(challenge))
    assert text.startswith(f"<@{bob.id}>, <@{alice.id}> challenges you to **3x3, 3 in a row")
    assert f"<@{alice.id}> moves first (X)." in text and "expires <t:" in text
    # The double records what the bot allowed to ping: only the challenged member.
    assert [str(u) for u in challenge.data["allowed_mentions"]["users"]] == [bob.id]
    assert "only they can answer" in refusal(await carol.click(challenge.message, "Accept"))
    assert "cannot challenge yourself" in refusal(await alice.slash("caro challenge",
                                                                    opponent=alice))
    message = challenge.message
    await bob.click(message, "Accept")
    assert f"<@{alice.id}> (X) vs <@{bob.id}> (O)" in text_of(message)
    assert "Moves played: 0." in text_of(message)
    assert f"<@{alice.id}> to move (X)." in text_of(message)
    assert "Time runs out <t:" in text_of(message)
    assert [b["label"] for b in message.buttons if b not in cells(message)] == ["Resign"]

    assert f"It is <@{alice.id}>'s turn" in refusal(await bob.click(message, "B2"))
    assert "not your game" in refusal(await carol.click(message, "B2"))
    for member, cell in [(alice, "A1"), (bob, "B1"), (alice, "A2"), (bob, "B2"), (alice, "A3")]:
        result = await member.click(message, cell)
        assert result.callback_type == 7, result
    assert f"**<@{alice.id}> wins!**" in text_of(message)
    assert "Moves played: 5." in text_of(message)
    assert f"Rating <@{alice.id}>: 1200 -> 1216." in text_of(message)
    assert f"Rating <@{bob.id}>: 1200 -> 1184." in text_of(message)
    assert all(b["disabled"] for b in cells(message))

    stats = await bob.slash("caro stats")
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    assert fields == {"against people: rating 1184": "0 W / 0 D / 1 L, 1 played, win rate 0%"}
    rows = running_bot.db_rows("SELECT mode, status, winner, end_reason FROM games")
    assert rows == [("pvp", "finished", "X", "line")]
    assert running_bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(4,)]

    # Rematch: the colours swap, and it is a new challenge Bob must accept.
    again = await bob.click(message, "Rematch")
    assert again.callback_type == 4 and not again.ephemeral
    assert f"<@{alice.id}>, <@{bob.id}> challenges you" in str(text_of(again))
    assert f"<@{alice.id}> moves first (X)." not in str(text_of(again))
    await alice.click(again.message, "Accept")
    assert f"<@{bob.id}> (X) vs <@{alice.id}> (O)" in text_of(again.message)


async def test_declined_and_expired_challenges(start_bot: StartBot) -> None:
    bot = await start_bot(CARO_CHALLENGE_SECONDS="2")
    alice, bob = bot.double.add_member("alice"), bot.double.add_member("bob")
    first = await alice.slash("caro challenge", opponent=bob)
    declined = await bob.click(first.message, "Decline")
    assert declined.callback_type == 7
    assert text_of(first.message) == f"<@{alice.id}>'s challenge to <@{bob.id}> was declined."
    assert first.message.buttons == []

    second = await alice.slash("caro challenge", opponent=bob, size="4x4")
    expired = await second.message.wait_for(lambda m: "expired" in text_of(m), timeout=10)
    assert text_of(expired) == (
        f"<@{alice.id}>'s challenge to <@{bob.id}> expired without an answer."
    )
    assert expired.buttons == []
    statuses = bot.db_rows("SELECT status FROM challenges ORDER BY id")
    assert statuses == [("declined",), ("expired",)]
    assert bot.db_counts()["games"] == 0


async def test_ai_against_ai_to_the_end(start_bot: StartBot) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.2")
    alice = bot.double.add_member("alice")
    watch = await alice.slash("caro watch", x_level="easy", o_level="impossible")
    assert watch.callback_type == 4
    assert "AI easy (X) vs AI impossible (O)" in str(text_of(watch))
    end = await watch.message.wait_for(decided, timeout=40)
    assert "**AI impossible (O) wins.**" in text_of(end) or "**Draw.**" in text_of(end)
    assert re.search(r"AI (easy|impossible) played \*\*[A-C][1-3]\*\*: ", text_of(end))
    moves = bot.db_rows("SELECT COUNT(*), SUM(by_ai) FROM moves")[0]
    assert moves[0] == moves[1] >= 5  # every move by an AI, and one edit per move at least
    assert end.edits >= moves[0]
    assert all(b["disabled"] for b in cells(end))
    # Watching does not occupy the starter's slot in the channel.
    own = await alice.slash("caro start")
    assert own.callback_type == 4 and not own.ephemeral


async def test_caro_15x15_with_the_window_and_typed_moves(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    message = await accepted_game(alice, bob, size="15x15")
    assert "**15x15, 5 in a row, caro rule**" in text_of(message)
    assert [a["filename"] for a in message.attachments] == ["board.png"]
    assert message.attachments[0]["data"][:8] == b"\x89PNG\r\n\x1a\n"
    assert len(cells(message)) == 20  # a 4x5 window over the centre
    labels = [b["label"] for b in message.buttons if b not in cells(message)]
    assert labels == ["\u2b05", "\u2b06", "\u2b07", "\u27a1", "Type a move", "Resign"]
    assert message.flags & COMPONENTS_V2 and message.content == ""

    await alice.click(message, "H8")  # a window button
    # Bob types a move far from the window; the form is refused to the player not to move.
    assert f"It is <@{bob.id}>'s turn" in refusal(await alice.click(message, "Type a move"))
    form = await bob.click(message, "Type a move")
    assert form.callback_type == 9 and form.modal is not None
    bad = await bob.submit_modal(message, form.modal["custom_id"], {"cell": "Z99"})
    assert "There is no cell Z99" in refusal(bad)
    # Only spaces typed (a client may skip the form's length check): said so, not "cell ?".
    blank = await bob.submit_modal(message, form.modal["custom_id"], {"cell": "   "})
    assert "Type a cell, like H8" in refusal(blank)
    form = await bob.click(message, "Type a move")
    typed = await bob.submit_modal(message, form.modal["custom_id"], {"cell": " a1 "})
    assert typed.callback_type == 7
    assert "Moves played: 2." in text_of(message)
    # The window followed Bob's move to the corner; Alice pans back to the centre.
    assert message.button("A1")["label"] == "O"
    for direction in ("down", "down", "right", "right"):
        assert (await alice.click(message, direction)).callback_type == 7
    assert "Moves played: 2." in text_of(message)  # panning changes no move
    await alice.click(message, "I8")
    for alice_cell, bob_cell in [("J8", "A2"), ("K8", "A3"), ("L8", "A4")]:
        form = await bob.click(message, "Type a move")
        await bob.submit_modal(message, form.modal["custom_id"], {"cell": bob_cell})
        form = await alice.click(message, "Type a move")
        await alice.submit_modal(message, form.modal["custom_id"], {"cell": alice_cell})
    assert f"**<@{alice.id}> wins!**" in text_of(message)
    assert [a["filename"] for a in message.attachments] == ["board.png"]
    assert [b["label"] for b in message.buttons] == ["Rematch", "Review"]
    rows = running_bot.db_rows("SELECT rows, k, rule, winner, ply FROM games")
    assert rows == [(15, 5, "caro", "X", 9)]


async def test_resign_rematch_and_hint_against_the_ai(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    start = await alice.slash("caro start", difficulty="normal", size="4x4")
    message = start.message
    assert [b["label"] for b in message.buttons if b not in cells(message)] == ["Resign", "Hint"]
    hint = await alice.click(message, "Hint")
    assert hint.callback_type == 5 and hint.ephemeral
    (answer,) = await hint.followups(1)
    assert re.fullmatch(r"Hint: play \*\*[A-D][1-4]\*\* \(.+\)\. Hints used in this game: 1\.",
                        answer.content), answer.content
    await message.wait_for(lambda m: "Hints used: 1." in text_of(m))
    assert running_bot.db_rows("SELECT hints FROM games") == [(1,)]

    assert "not your game" in refusal(await bob.click(message, "Resign"))
    resigned = await alice.click(message, "Resign")
    assert resigned.callback_type == 7
    assert "**The AI wins: you resigned.**" in text_of(message)

    rematch = await alice.click(message, "Rematch")
    assert rematch.callback_type == 4 and not rematch.ephemeral
    assert f"<@{alice.id}> (O) vs AI (X, normal)" in str(text_of(rematch))
    await rematch.message.wait_for(lambda m: "Your turn (O)." in text_of(m), timeout=20)
    gave_up = await alice.slash("caro resign")
    assert gave_up.ephemeral and "You resigned" in str(gave_up.content)
    await rematch.message.wait_for(lambda m: "you resigned" in text_of(m))
    assert "You have no running game" in refusal(await alice.slash("caro resign"))
    rows = running_bot.db_rows(
        f"SELECT {player_mark()}, {player_result()}, end_reason FROM games ORDER BY id"
    )
    assert rows == [("X", "loss", "resign"), ("O", "loss", "resign")]


async def test_turn_timeout_forfeits_across_a_restart(start_bot: StartBot) -> None:
    bot = await start_bot(CARO_MIN_TIMEOUT_SECONDS="1")
    double = bot.double
    admin, alice, bob = (double.add_member(n) for n in ("admin", "alice", "bob"))
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert "Manage Server" in refusal(await bob.slash("caro settings", timeout=0.05))
    assert "between 0.0166667 and 10080" in refusal(
        await admin.slash("caro settings", timeout=0.001)
    )
    saved = await admin.slash("caro settings", timeout=0.05)
    assert saved.ephemeral and "**0.05** min per move against a person" in str(saved.content)
    shown = await bob.slash("caro settings")
    assert "**0.05** min per move against a person, **30** min" in str(shown.content)

    message = await accepted_game(alice, bob)
    await alice.click(message, "B2")
    assert f"<@{bob.id}> to move (O)." in text_of(message)
    await bot.stop()
    await asyncio.sleep(3.5)  # Bob's 3 seconds run out while the bot is down
    await bot.start()
    await message.wait_for(lambda m: "ran out of time" in text_of(m), timeout=10)
    assert f"**<@{alice.id}> wins: <@{bob.id}> ran out of time.**" in text_of(message)
    rows = bot.db_rows("SELECT status, winner, end_reason, deadline FROM games")
    assert rows == [("finished", "X", "timeout", None)]
    assert bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(4,)]
    await bot.restart()  # finished once: a second start changes nothing
    assert bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(4,)]


async def test_a_vietnamese_member_sees_vietnamese(running_bot: BotHandle) -> None:
    double = running_bot.double
    an = double.add_member("an", locale="vi")
    alice = double.add_member("alice")
    caro = next(c for c in double.commands[double.guild_id] if c["name"] == "caro")
    start = next(o for o in caro["options"] if o["name"] == "start")
    assert start["name_localizations"]["vi"] == "bắt-đầu"
    assert start["description_localizations"]["vi"] == "Bắt đầu một ván với máy trong kênh này"

    game = await an.slash("caro start", difficulty="easy")
    text = str(text_of(game))
    assert "**3x3, 3 quân liên tiếp, luật tự do**" in text
    assert f"<@{an.id}> (X) đấu với máy (O, dễ)" in text and "Đến lượt bạn (X)." in text
    labels = [b["label"] for b in game.message.buttons if b not in cells(game.message)]
    assert labels == ["Chịu thua", "Gợi ý"]
    # Each member reads refusals in their own language.
    assert "This is not your game" in refusal(await alice.click(game.message, "B2"))
    gone = await an.click_custom_id(game.message, "caro:m:999:0:A1")
    assert refusal(gone) == "Ván cờ này không tồn tại (nữa); không có gì thay đổi."
    bad = await an.slash("caro start", size="99x99")
    assert "không phải cỡ bàn hợp lệ" in refusal(bad)
    helped = await an.slash("caro help")
    assert helped.embeds[0]["title"] == "Cách chơi cờ caro"
    english = await alice.slash("caro help")
    assert english.embeds[0]["title"] == "How to play caro"


async def test_the_ai_answers_on_a_big_board(running_bot: BotHandle) -> None:
    alice = running_bot.double.add_member("alice")
    start = await alice.slash("caro start", size="9x9", difficulty="easy")
    message = start.message
    assert "**9x9, 5 in a row, freestyle**" in text_of(message)
    first_picture = message.attachments[0]["data"]
    assert (await alice.click(message, "E5")).callback_type == 7
    await message.wait_for(lambda m: "Your turn (X)." in text_of(m), timeout=20)
    assert re.search(r"AI played \*\*[A-I][1-9]\*\*: ", text_of(message))
    assert "Moves played: 2." in text_of(message)
    assert message.attachments[0]["data"] != first_picture
    ai_cell = running_bot.db_rows("SELECT cell FROM moves WHERE by_ai = 1")[0][0]
    assert message.button(ai_cell)["label"] == "O"  # the window shows the AI's answer


async def test_slash_hint_resign_and_rematch_on_a_five_by_five_board(
    running_bot: BotHandle,
) -> None:
    alice = running_bot.double.add_member("alice")
    assert "not played a game" in refusal(await alice.slash("caro rematch"))
    assert "no running game" in refusal(await alice.slash("caro hint"))
    start = await alice.slash("caro start", size="5x5", difficulty="easy")
    # The slash twins of the buttons still work; the buttons are there too (see the test below).
    assert len(cells(start.message)) == 25
    hint = await alice.slash("caro hint")
    (answer,) = await hint.followups(1)
    assert answer.ephemeral and answer.content.startswith("Hint: play **")
    assert "still running" in refusal(await alice.slash("caro rematch"))
    await alice.slash("caro resign")
    await start.message.wait_for(lambda m: "you resigned" in text_of(m))
    again = await alice.slash("caro rematch")
    assert again.callback_type == 4 and not again.ephemeral
    assert f"<@{alice.id}> (O) vs AI (X, easy)" in str(text_of(again))
    rows = running_bot.db_rows(
        f"SELECT rows, {player_mark()}, hints, status FROM games ORDER BY id"
    )
    assert rows[0] == (5, "X", 1, "finished") and rows[1][:2] == (5, "O")


async def test_any_size_up_to_26x26_is_offered_by_autocomplete(running_bot: BotHandle) -> None:
    alice = running_bot.double.add_member("alice")
    presets = await alice.autocomplete("caro start", "size", size="15")
    assert presets.data["choices"] == [
        {"name": "15x15, 5 in a row (caro)", "value": "15x15"},
    ]
    typed = await alice.autocomplete("caro challenge", "size", size="20x20k6")
    assert typed.data["choices"] == [{"name": "20x20, 6 in a row", "value": "20x20k6"}]
    # A size that is not allowed gets one entry saying what is (picking it gets the refusal).
    twelve = await alice.autocomplete("caro start", "size", size="12")
    assert twelve.data["choices"] == [{"name": "12x12, 5 in a row", "value": "12"}]
    nonsense = await alice.autocomplete("caro start", "size", size="40x40")
    assert nonsense.data["choices"] == [
        {"name": "Sizes: a preset, or rows x columns from 1x1 to 26x26 (like 12x12k5)",
         "value": "40x40"},
    ]
    game = await alice.slash("caro start", size="26x26", difficulty="easy")
    assert "**26x26, 5 in a row, freestyle**" in str(text_of(game))
    assert [a["filename"] for a in game.message.attachments] == ["board.png"]
    refused = await alice.slash("caro start", size="27x27")
    assert "up to 26x26" in refusal(refused)
