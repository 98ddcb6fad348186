"""Controls are honoured only on their own board (or challenge) message: every kind of control
(pan, type a move, resign, hint, rematch, stop, accept, decline) sent on another member's board is
refused and changes nothing, through the Discord double and the real bot process. The scenario
spans the cogs (play, controls, watch, challenge): the check is the one router's, for them all."""

from __future__ import annotations

from typing import Any

import pytest

from testkit.boards import short_refusal
from testkit.bot_process import BotHandle
from testkit.faults import free_cells, game_id_of, is_over

# The scenarios that draw boards, challenges and layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")

WRONG_BOARD = "belongs to another board"


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
            assert WRONG_BOARD in short_refusal(result), custom_id
    submitted = await alice.submit_modal(theirs, form.modal["custom_id"], {"cell": "A1"})
    assert WRONG_BOARD in short_refusal(submitted)
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


    # The fixture's shutdown fails the test if the bot logged a traceback.
