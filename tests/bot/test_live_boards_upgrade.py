"""Boards that are live when a new version is deployed keep working.

The custom_id formats below are written out as literals, copied from the version that drew the
boards people have in their channels (before the feature cogs): every button of a live board
carries one of them, and Discord keeps sending them after the upgrade. The test posts boards of
every kind, checks they carry exactly these ids, restarts the bot (same database, same channel
messages) and plays every one of them to its end by sending those literal ids.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import StartBot, text_of
from tests.fault_helpers import free_cells, game_id_of, is_over, players_turn, ply_of

# The formats of the previous version, verbatim (see the module docstring).
CELL = "caro:m:{game}:{ply}:{cell}"
RESIGN = "caro:r:{game}:{ply}"
HINT = "caro:h:{game}:{ply}"
REMATCH = "caro:rm:{game}:{ply}"
REVIEW = "caro:rv:{game}"
TYPE_A_MOVE = "caro:t:{game}:{ply}"
MOVE_FORM = "caro:tm:{game}:{ply}"
PAN = "caro:p:{game}:{ply}:{window}:{direction}"
STOP = "caro:s:{game}"
ACCEPT = "caro:ca:{challenge}"
DECLINE = "caro:cd:{challenge}"


def ids_of(message: Any) -> set[str]:
    return {str(b["custom_id"]) for b in message.buttons if "custom_id" in b}


def cell_name(custom_id: str) -> str:
    return custom_id.rsplit(":", 1)[1]


async def play_ai_game_with_literal_ids(member: Any, message: Any) -> Any:
    """Play the member's side (the first free cell) by sending literal cell ids until the end."""
    game = game_id_of(message)
    while True:
        message = await message.wait_for(lambda m: players_turn(m) or is_over(m), timeout=30)
        if is_over(message):
            return message
        cell = cell_name(free_cells(message)[0])
        sent = CELL.format(game=game, ply=ply_of(message), cell=cell)
        result = await member.click_custom_id(message, sent)
        assert result.callback_type == 7, result


async def test_boards_posted_by_the_previous_version_play_to_the_end_after_an_upgrade(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="600")
    double = bot.double
    alice, bob, carol, dave, erin = (
        double.add_member(n) for n in ("alice", "bob", "carol", "dave", "erin")
    )

    # A running game against the AI, with Resign and Hint.
    ai = (await alice.slash("caro start", difficulty="easy")).message
    ai_game = game_id_of(ai)
    assert {CELL.format(game=ai_game, ply=0, cell=c) for c in ("A1", "B2", "C3")} <= ids_of(ai)
    assert {RESIGN.format(game=ai_game, ply=0), HINT.format(game=ai_game, ply=0)} <= ids_of(ai)

    # A finished game, with its Rematch and Review buttons.
    done_channel = double.add_channel("finished")
    done = (await carol.slash("caro start", channel_id=done_channel, difficulty="easy")).message
    done = await play_ai_game_with_literal_ids(carol, done)
    done_game = game_id_of(done)
    rematch = REMATCH.format(game=done_game, ply=ply_of(done))
    assert ids_of(done) - {b["custom_id"] for b in done.buttons if "caro:m:" in b["custom_id"]} == {
        rematch,
        REVIEW.format(game=done_game),
    }

    # A pending challenge, and another one to decline.
    pvp_channel = double.add_channel("pvp")
    pending = await alice.slash("caro challenge", channel_id=pvp_channel, opponent=bob)
    challenge_id = int(bot.db_rows("SELECT MAX(id) FROM challenges")[0][0])
    assert ids_of(pending.message) == {
        ACCEPT.format(challenge=challenge_id),
        DECLINE.format(challenge=challenge_id),
    }
    other_channel = double.add_channel("declined")
    to_decline = await carol.slash("caro challenge", channel_id=other_channel, opponent=dave)
    declined_id = challenge_id + 1
    assert DECLINE.format(challenge=declined_id) in ids_of(to_decline.message)

    # A running 15x15 game between members: the window, its arrows and the typed-move form.
    big_channel = double.add_channel("big")
    # Erin, not dave: carol's challenge to dave is still pending, and a pair has one at a time.
    invite = await carol.slash("caro challenge", channel_id=big_channel, opponent=erin,
                               size="15x15", first="me")
    big_challenge = declined_id + 1
    await erin.click_custom_id(invite.message, ACCEPT.format(challenge=big_challenge))
    big = invite.message
    big_game = game_id_of(big)
    assert {
        PAN.format(game=big_game, ply=0, window="w5.5", direction=d)
        for d in ("up", "down", "left", "right")
    } <= ids_of(big)
    assert TYPE_A_MOVE.format(game=big_game, ply=0) in ids_of(big)

    # An AI-vs-AI game, slow enough to be still running after the restart.
    watch_channel = double.add_channel("watch")
    watched = (await bob.slash("caro watch", channel_id=watch_channel)).message
    watch_game = game_id_of(watched)
    assert STOP.format(game=watch_game) in ids_of(watched)
    await watched.wait_for(lambda m: "Moves played: 1." in text_of(m), timeout=30)

    # The upgrade: a new process on the same database; the messages stay as they were.
    await bot.restart()

    # The challenge is accepted after the upgrade and played to a win with literal cell ids.
    accepted = await bob.click_custom_id(pending.message, ACCEPT.format(challenge=challenge_id))
    assert accepted.callback_type == 7, accepted
    pvp = pending.message
    pvp_game = game_id_of(pvp)
    first = alice if f"<@{alice.id}> to move (X)" in text_of(pvp) else bob
    second = bob if first is alice else alice
    mover = {0: first, 1: second}
    for ply, cell in enumerate(["A1", "B1", "A2", "B2", "A3"]):
        result = await mover[ply % 2].click_custom_id(
            pvp, CELL.format(game=pvp_game, ply=ply, cell=cell)
        )
        assert result.callback_type == 7, result
    assert f"**<@{first.id}> wins!**" in text_of(pvp)

    declined = await dave.click_custom_id(to_decline.message, DECLINE.format(challenge=declined_id))
    assert declined.callback_type == 7, declined
    assert bot.db_rows("SELECT status FROM challenges WHERE id = ?", (declined_id,)) == [
        ("declined",)
    ]

    # The AI game: a hint, then played to its end with literal cell ids.
    hint = await alice.click_custom_id(ai, HINT.format(game=ai_game, ply=0))
    assert hint.callback_type == 5, hint  # deferred, answered in a follow-up
    # Answered before the member plays on (a hint for a position already left is refused).
    (answer,) = await hint.followups(1, timeout=30)
    assert answer.content.startswith("Hint: play **"), answer.content
    end = await play_ai_game_with_literal_ids(alice, ai)
    assert is_over(end)

    # The big board: pan, type a move through the form, then resign.
    panned = await carol.click_custom_id(
        big, PAN.format(game=big_game, ply=0, window="w5.5", direction="up")
    )
    assert panned.callback_type == 7, panned
    form = await carol.click_custom_id(big, TYPE_A_MOVE.format(game=big_game, ply=0))
    assert form.callback_type == 9 and form.modal is not None, form
    assert form.modal["custom_id"] == MOVE_FORM.format(game=big_game, ply=0)
    typed = await carol.submit_modal(big, MOVE_FORM.format(game=big_game, ply=0), {"cell": "H8"})
    assert typed.callback_type == 7, typed
    resigned = await erin.click_custom_id(big, RESIGN.format(game=big_game, ply=1))
    assert resigned.callback_type == 7, resigned
    assert f"<@{erin.id}> resigned." in text_of(big)

    # The watched game is stopped by its starter.
    stopped = await bob.click_custom_id(watched, STOP.format(game=watch_game))
    assert stopped.callback_type == 7, stopped

    # The finished game's Rematch starts a new game.
    again = await carol.click_custom_id(done, rematch)
    assert again.callback_type == 4 and not again.ephemeral, again

    rows = dict(bot.db_rows("SELECT id, status FROM games"))
    assert rows[ai_game] == rows[pvp_game] == rows[big_game] == "finished"
    assert rows[watch_game] == "abandoned"
    assert len(rows) == 6 and list(rows.values()).count("active") == 1  # the rematch
