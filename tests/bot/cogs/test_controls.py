"""The controls under a game (bot/cogs/controls.py), through the Discord double and the real bot
process: Resign, Hint and Rematch as buttons on every board size (also after a restart) and as
their slash twins, and the cooldowns on hints and rematches."""

from __future__ import annotations

import re
from typing import Any

import pytest

from testkit.boards import (
    COMPONENTS_V2,
    cells,
    controls,
    refusal,
    resign,
    short_refusal,
    top_level_types,
)
from testkit.bot_process import BotHandle, text_of
from testkit.faults import free_cells, players_turn
from testkit.sqlite_rows import player_mark, player_result

# The scenarios that draw boards, challenges and layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")


@both_drawings
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
    resigned = await resign(alice, message)
    assert resigned.callback_type == 7
    await message.wait_for(lambda m: "**The AI wins: you resigned.**" in text_of(m))

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


async def test_resign_asks_first_privately_and_the_yes_acts_only_on_its_game_as_it_was(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    message = (await alice.slash("caro start", difficulty="normal", size="4x4")).message
    # A stray click asks, privately, and changes nothing yet.
    asked = await alice.click(message, "Resign")
    assert asked.ephemeral and asked.content == "Resign this game? You lose it."
    assert [b["label"] for b in asked.message.buttons] == ["Yes, resign", "Keep playing"]
    kept = await alice.click(asked.message, "Keep playing")
    assert kept.callback_type == 7 and asked.message.content == "You play on."
    assert asked.message.buttons == []
    assert running_bot.db_rows("SELECT status FROM games") == [("active",)]
    # A question the game has moved on from resigns nothing: the board has changed.
    stale = await alice.click(message, "Resign")
    yes = next(b["custom_id"] for b in stale.message.buttons if b["label"] == "Yes, resign")
    assert (await alice.click(message, "A1")).callback_type == 7
    await message.wait_for(lambda m: "Your turn (X)." in text_of(m), timeout=20)
    assert "out of date" in refusal(await alice.click_custom_id(stale.message, yes))
    assert running_bot.db_rows("SELECT status FROM games") == [("active",)]
    # Only from its own question, and only its own game.
    asked = await alice.click(message, "Resign")
    yes = next(b["custom_id"] for b in asked.message.buttons if b["label"] == "Yes, resign")
    assert "another board" in refusal(await alice.click_custom_id(message, yes))
    other = (await bob.slash("caro start", difficulty="easy")).message
    game = running_bot.db_rows("SELECT MAX(id) FROM games")[0][0]
    forged = refusal(await alice.click_custom_id(asked.message, f"caro:rc:{game}:0"))
    assert "another board" in forged
    assert "not your game" in refusal(await bob.click(message, "Resign"))
    late = await alice.click(message, "Resign")
    # Yes: the game is lost, the question says so with a link, the board shows it.
    done = await alice.click(asked.message, yes)
    assert done.callback_type == 7 and asked.message.content.startswith("You resigned: https://")
    await message.wait_for(lambda m: "**The AI wins: you resigned.**" in text_of(m))
    # A second question asked meanwhile resigns nothing more; an answered one has no buttons.
    assert "This game is over" in refusal(await alice.click_custom_id(late.message, yes))
    assert "another board" in refusal(await alice.click_custom_id(asked.message, yes))
    assert running_bot.db_rows("SELECT status, end_reason FROM games ORDER BY id") == [
        ("finished", "resign"), ("active", None)
    ]
    assert "Your turn" in text_of(other)


@both_drawings
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


@both_drawings
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

    resigned = await resign(alice, message)
    assert resigned.callback_type == 7
    await message.wait_for(lambda m: "**The AI wins: you resigned.**" in text_of(m))
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


@both_drawings
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
    assert (await resign(alice, message)).callback_type == 7
    await message.wait_for(lambda m: "**The AI wins: you resigned.**" in text_of(m))
    assert controls(message) == ["Rematch", "Review"] and cells(message) == []
    assert [a["filename"] for a in message.attachments] == ["board.png"]


async def test_hints_faster_than_people_ask_get_a_short_answer(running_bot: BotHandle) -> None:
    alice = running_bot.double.add_member("alice")
    message = (await alice.slash("caro start", size="9x9", difficulty="normal")).message
    answers = []
    for _ in range(4):
        message = await message.wait_for(players_turn, timeout=30)
        answers.append(await alice.click(message, "Hint"))
        if len(answers) < 4:
            # The hint is counted on the board once given; then she plays.
            count = len(answers)
            message = await message.wait_for(
                lambda m, n=count: f"Hints used: {n}." in text_of(m), timeout=30
            )
            await alice.click(message, free_cells(message)[0])
    assert [a.callback_type for a in answers[:3]] == [5, 5, 5]  # deferred, then the hint
    assert "Slow down a little: try again in" in short_refusal(answers[3])
    assert running_bot.db_rows("SELECT hints FROM games") == [(3,)]


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
    assert (await resign(bob, board)).callback_type == 7
    await board.wait_for(lambda m: "resigned" in text_of(m))
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
