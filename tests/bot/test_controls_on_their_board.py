"""Controls are honoured only on their own board (or challenge) message, every decoded custom_id
is one the bot could have made, a small board once drawn as a Components V2 layout stays
drawable, commands are registered only when they changed, and members get a short answer when
they go faster than people play. All through the Discord double and the real bot process."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.faults import (
    free_cells,
    game_id_of,
    is_over,
    launch,
    players_turn,
    ply_of,
    shutdown,
)

# The scenarios that draw layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")

COMPONENTS_V2 = 1 << 15
WRONG_BOARD = "belongs to another board"
FORGED = "not one of this bot's game buttons"


def refusal(result: Any) -> str:
    assert result.callback_type == 4 and result.ephemeral, result
    assert 0 < len(str(result.content)) <= 200
    return str(result.content)


def control(message: Any, prefix: str) -> str:
    return next(
        str(b["custom_id"]) for b in message.buttons
        if str(b.get("custom_id", "")).startswith(prefix)
    )


def tables(bot: BotHandle) -> tuple[Any, ...]:
    return tuple(
        tuple(bot.db_rows(f"SELECT * FROM {table} ORDER BY 1"))
        for table in ("games", "moves", "results", "challenges", "rating_changes")
    )


@both_drawings
async def test_every_control_sent_on_another_board_is_refused_and_changes_nothing(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob, carol, dave = (double.add_member(n) for n in ("alice", "bob", "carol", "dave"))
    # Alice: a big board (pan arrows, type-a-move, resign, hint) and a finished game (rematch)
    # and a watched game (stop); Bob: a big board of his own; Carol: a challenge to Dave.
    mine = (await alice.slash("caro start", channel_id=double.add_channel("a"), size="15x15",
                              difficulty="easy")).message
    theirs = (await bob.slash("caro start", channel_id=double.add_channel("b"), size="15x15",
                              difficulty="easy")).message
    done = (await alice.slash("caro start", channel_id=double.add_channel("c"), size="1x1",
                              difficulty="easy")).message
    await alice.click(done, "A1")
    assert is_over(done)
    watched = (await alice.slash("caro watch", channel_id=double.add_channel("w"))).message
    challenge = await carol.slash("caro challenge", channel_id=double.add_channel("d"),
                                  opponent=dave)
    form = await alice.click(mine, control(mine, "caro:t:"))
    assert form.callback_type == 9 and form.modal is not None

    forged_on_bobs_board = {
        alice: [control(mine, p) for p in ("caro:p:", "caro:t:", "caro:r:", "caro:h:")]
        + [control(done, "caro:rm:"), control(watched, "caro:s:")],
        dave: [control(challenge.message, "caro:ca:"), control(challenge.message, "caro:cd:")],
    }
    shown_before = theirs.snapshot()
    before = tables(running_bot)
    for member, custom_ids in forged_on_bobs_board.items():
        for custom_id in custom_ids:
            result = await member.click_custom_id(theirs, custom_id)
            assert WRONG_BOARD in refusal(result), custom_id
    submitted = await alice.submit_modal(theirs, form.modal["custom_id"], {"cell": "A1"})
    assert WRONG_BOARD in refusal(submitted)
    assert theirs.snapshot() == shown_before
    # The watched game moves on by itself; everything else is as it was.
    watch_game = game_id_of(watched)
    assert [r for r in tables(running_bot)[0] if r[0] != watch_game] == [
        r for r in before[0] if r[0] != watch_game
    ]
    assert tables(running_bot)[2:] == before[2:]
    assert running_bot.db_rows("SELECT status, message_id FROM challenges") == [
        ("pending", int(challenge.message.id))
    ]

    # Bob's board still plays, and the challenge is accepted where it was made.
    assert (await bob.click(theirs, free_cells(theirs)[0])).callback_type == 7
    accepted = await dave.click(challenge.message, "Accept")
    assert accepted.callback_type == 7
    assert running_bot.db_rows(
        "SELECT channel_id, message_id FROM games WHERE mode = 'pvp'"
    ) == [(int(challenge.message.channel_id), int(challenge.message.id))]


async def test_forged_pan_windows_are_refused_in_a_short_reply(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    board = (await alice.slash("caro start", size="15x15", difficulty="easy")).message
    game, ply = game_id_of(board), ply_of(board)
    shown = board.snapshot()
    for window in ("w5.5.5x5", "w12.10", "w11.11", "w5.5.4x4", "w25.25", "w0.0.1x1"):
        result = await alice.click_custom_id(board, f"caro:p:{game}:{ply}:{window}:down")
        assert FORGED in refusal(result), window
    assert board.snapshot() == shown
    # The windows the bot draws still pan.
    result = await alice.click_custom_id(board, f"caro:p:{game}:{ply}:w5.5:down")
    assert result.callback_type == 7
    # The fixture's shutdown fails the test if the bot logged a traceback.


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
    assert "Slow down a little: try again in" in refusal(refused)
    assert running_bot.db_rows("SELECT COUNT(*) FROM games") == [(5,)]
    # A bad option is refused for what it is, not counted against the member.
    bad = await alice.slash("caro start", channel_id=double.add_channel("s6"), size="99x99")
    assert "not a valid size" in refusal(bad)
    # Other members are not slowed down by her; the answer is in the member's language.
    for i in range(5):
        channel = double.add_channel(f"m{i}")
        await minh.slash("caro start", channel_id=channel)
        await minh.slash("caro resign", channel_id=channel)
    assert "Chậm lại" in refusal(await minh.slash("caro start",
                                                   channel_id=double.add_channel("m5")))


def command_puts(bot: BotHandle) -> int:
    return sum(
        1 for r in bot.double.requests if r.method == "PUT" and r.path.endswith("/commands")
    )


async def test_commands_are_registered_again_only_when_they_changed(start_bot: StartBot) -> None:
    bot = await start_bot()
    assert command_puts(bot) == 1
    await bot.restart()
    assert command_puts(bot) == 1
    assert "commands unchanged since the last sync" in bot.log_text()
    # A schema this version did not register (an older version's) is registered again.
    await bot.stop()
    with sqlite3.connect(bot.db_path) as db:
        db.execute("UPDATE meta SET value = 'older' WHERE key = 'commands_hash'")
    await bot.start()
    assert command_puts(bot) == 2
    alice = bot.double.add_member("alice")
    assert (await alice.slash("caro help")).ephemeral


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
    assert "Slow down a little: try again in" in refusal(answers[3])
    assert running_bot.db_rows("SELECT hints FROM games") == [(3,)]
