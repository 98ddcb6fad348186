"""Games between two AIs (bot/cogs/watch.py), through the Discord double and the real bot
process: one played to its end, one per channel, and who may stop it."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from testkit.boards import cells, controls, refusal, top_level_types
from testkit.bot_process import StartBot, text_of
from testkit.members import MANAGE_MESSAGES

# The scenarios that draw boards, challenges and layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")


def decided(message: Any) -> bool:
    return any(word in text_of(message) for word in ("wins", "Draw", "thắng", "Hòa"))


@both_drawings
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


@both_drawings
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
