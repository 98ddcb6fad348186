"""Playing a game (bot/cogs/play.py), through the Discord double and the real bot process:
`/caro start` and its options (refused when hostile, sizes offered by autocomplete), the cell
buttons (strangers, forgeries and replayed clicks change nothing), the AI's answer in the same
edit or after, big boards with the window, its pan arrows and the typed move, small boards drawn
as layouts, and members who start faster than people play."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from testkit.boards import (
    COMPONENTS_V2,
    board_of,
    cells,
    first_empty,
    is_over,
    play_out,
    ply_of,
    refusal,
    short_refusal,
)
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.faults import free_cells, game_id_of, players_turn
from testkit.members import accepted_game

# The scenarios that draw boards, challenges and layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")

FORGED = "not one of this bot's game buttons"


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


@both_drawings
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


@both_drawings
async def test_a_big_boards_window_stays_where_it_was_until_a_move_leaves_it(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    message = await accepted_game(alice, bob, size="15x15")
    mover, other = (alice, bob) if f"<@{alice.id}> to move" in text_of(message) else (bob, alice)

    def window() -> list[str]:
        return [str(b["custom_id"]).rsplit(":", 1)[1] for b in cells(message)]

    first = window()
    assert (await mover.click(message, "down")).callback_type == 7
    panned = window()
    assert panned != first and message.button(panned[0])["label"] == panned[0]
    # A move inside the window leaves it where the member panned it.
    await mover.click(message, panned[-1])
    assert window() == panned
    # A move far away brings the window just far enough to show it.
    form = await other.click(message, "Type a move")
    await other.submit_modal(message, form.modal["custom_id"], {"cell": "A1"})
    assert "A1" in window() and message.button("A1")["label"] == "O"


@both_drawings
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


async def test_forged_pan_windows_are_refused_in_a_short_reply(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    board = (await alice.slash("caro start", size="15x15", difficulty="easy")).message
    game, ply = game_id_of(board), ply_of(board)
    shown = board.snapshot()
    for window in ("w5.5.5x5", "w12.10", "w11.11", "w5.5.4x4", "w25.25", "w0.0.1x1"):
        result = await alice.click_custom_id(board, f"caro:p:{game}:{ply}:{window}:down")
        assert FORGED in short_refusal(result), window
    assert board.snapshot() == shown
    # The windows the bot draws still pan.
    result = await alice.click_custom_id(board, f"caro:p:{game}:{ply}:w5.5:down")
    assert result.callback_type == 7


@both_drawings
async def test_a_small_board_drawn_as_a_layout_once_is_drawn_as_one_again(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    message = (await alice.slash("caro start", difficulty="easy")).message
    as_layout(message)
    while True:
        message = await message.wait_for(lambda m: players_turn(m) or is_over(m), timeout=30)
        if is_over(message):
            break
        result = await alice.click(message, free_cells(message)[0])
        assert result.callback_type == 7, result
    assert message.flags & COMPONENTS_V2
    assert any(word in text_of(message) for word in ("You win", "AI wins", "Draw"))
    # Redrawn through the channel (a slash command, not a click on it): the same.
    other = (await alice.slash("caro start", difficulty="easy", size="4x4")).message
    as_layout(other)
    await alice.click(other, free_cells(other)[0])
    await other.wait_for(players_turn, timeout=30)
    resigned = await alice.slash("caro resign")
    assert resigned.ephemeral
    other = await other.wait_for(lambda m: "resigned" in text_of(m), timeout=10)
    assert other.flags & COMPONENTS_V2
    assert double.violations == []


def as_layout(message: Any) -> None:
    """Turn a plain message into a V2 layout, as an older version could leave a small board:
    Discord never turns it back into a plain message."""
    payload = message.payload
    payload["components"] = [{"type": 10, "id": 100, "content": payload["content"]}] + list(
        payload["components"]
    )
    payload["content"] = ""
    payload["flags"] = int(payload.get("flags") or 0) | COMPONENTS_V2


async def test_starting_faster_than_people_play_gets_a_short_answer(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, minh = double.add_member("alice"), double.add_member("minh", locale="vi")
    for i in range(5):
        channel = double.add_channel(f"s{i}")
        started = await alice.slash("caro start", channel_id=channel)
        assert started.callback_type == 4 and not started.ephemeral
        # Resigned at once: the service's cap on running AI games (3) is not what is tested here.
        await alice.slash("caro resign", channel_id=channel)
    refused = await alice.slash("caro start", channel_id=double.add_channel("s5"))
    assert "Slow down a little: try again in" in short_refusal(refused)
    assert running_bot.db_rows("SELECT COUNT(*) FROM games") == [(5,)]
    # A bad option is refused for what it is, not counted against the member.
    bad = await alice.slash("caro start", channel_id=double.add_channel("s6"), size="99x99")
    assert "not a valid size" in short_refusal(bad)
    # Other members are not slowed down by her; the answer is in the member's language.
    for i in range(5):
        channel = double.add_channel(f"m{i}")
        await minh.slash("caro start", channel_id=channel)
        await minh.slash("caro resign", channel_id=channel)
    assert "Chậm lại" in short_refusal(await minh.slash("caro start",
                                                   channel_id=double.add_channel("m5")))


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
