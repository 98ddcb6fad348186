"""Turn clocks (bot/cogs/clocks.py), through the Discord double and the real bot process: a turn
that runs out while the bot is down is forfeited when it starts, once, and a move after the
deadline is refused right after a restart. The time limits are set with /caro settings."""

from __future__ import annotations

import asyncio

import pytest

from testkit.boards import refusal
from testkit.bot_process import StartBot, text_of
from testkit.members import MANAGE_GUILD, accepted_game

# The scenarios that draw boards, challenges and layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")


@both_drawings
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


def _warnings(double, member_id: str) -> list:
    """The low-time warnings that notified `member_id` (deleted ones included)."""
    return [
        m
        for m in double.store.order
        if member_id in m.pinged and "your clock runs out" in m.content
    ]


async def test_a_member_whose_clock_runs_low_is_warned_once_unless_they_turned_it_off(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_MIN_TIMEOUT_SECONDS="1")
    double = bot.double
    admin, alice, bob = (double.add_member(n) for n in ("admin", "alice", "bob"))
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert (await admin.slash("caro settings", timeout=0.1)).ephemeral  # 6 s: warned at 3 s left
    assert (await alice.slash("caro settings", clock_warnings=False)).ephemeral
    message = await accepted_game(alice, bob, first="me")
    await alice.click(message, "B2")
    await double.store.changes.wait_until(lambda: bool(_warnings(double, bob.id)), 10)
    (warning,) = _warnings(double, bob.id)
    assert warning.pinged == [bob.id] and not warning.pinged_everyone
    assert warning.content.startswith(f"<@{bob.id}>, your clock runs out <t:")
    assert str(warning.payload["message_reference"]["message_id"]) == message.id
    # Bob's move ends his turn: the warning goes with it.
    await bob.click(message, "A1")
    await warning.wait_for(lambda m: m.deleted)
    # Alice turned warnings off: her clock runs out without one.
    await message.wait_for(lambda m: "ran out of time" in text_of(m), timeout=15)
    assert _warnings(double, alice.id) == []
    assert len(_warnings(double, bob.id)) == 1


async def test_a_warning_whose_answer_was_lost_reaches_the_member_once_as_a_reply(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_MIN_TIMEOUT_SECONDS="1")
    double = bot.double
    admin, alice, bob = (double.add_member(n) for n in ("admin", "alice", "bob"))
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert (await admin.slash("caro settings", timeout=0.1)).ephemeral  # 6 s: warned at 3 s left
    # Discord makes the warning and the connection drops before its answer: the outbox sends it
    # again with its nonce, and Discord hands back the one it made.
    double.fail_next("POST", r"^/channels/\d+/messages$", status=500, mode="drop",
                     content="your clock runs out")
    message = await accepted_game(alice, bob, first="me")
    await alice.click(message, "B2")
    await double.store.changes.wait_until(lambda: bool(_warnings(double, bob.id)), 10)

    def sends() -> list:
        return [r for r in double.requests if r.method == "POST" and r.json
                and "your clock runs out" in str(r.json.get("content"))]

    assert await double.store.changes.wait_until(lambda: len(sends()) == 2, 10)
    first, again = sends()
    assert first.json["nonce"] == again.json["nonce"]
    (warning,) = _warnings(double, bob.id)
    assert str(warning.payload["message_reference"]["message_id"]) == message.id
    # Still the turn's one notice: Bob's move takes it away.
    await bob.click(message, "A1")
    await warning.wait_for(lambda m: m.deleted)
