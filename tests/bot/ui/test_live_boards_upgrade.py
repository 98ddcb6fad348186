"""Boards that are live when a new version is deployed keep working.

The custom_id formats below are written out as literals, copied from the version that drew the
boards people have in their channels (before the feature cogs, and the records' buttons before
the buttons' specs): every button of a live board, replay or history page carries one of them,
and Discord keeps sending them after the upgrade. The tests post messages of every kind, check
they carry exactly these ids, restart the bot (same database, same channel messages) and click
every one of them by sending those literal ids.
"""

from __future__ import annotations

from typing import Any

from testkit.boards import resign
from testkit.bot_process import StartBot, text_of
from testkit.faults import free_cells, game_id_of, is_over, players_turn, ply_of

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
REPLAY_STEP = "caro:rs:{game}:{ply}:{step}"
EXPORT = "caro:ex:{game}"
REPLAY = "caro:ro:{game}"
HISTORY_PAGE = "caro:hp:{user}:{page}"


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
    # Resign asks first now; the old board's button asks too.
    resigned = await resign(erin, big, RESIGN.format(game=big_game, ply=1))
    assert resigned.callback_type == 7, resigned
    await big.wait_for(lambda m: f"<@{erin.id}> resigned." in text_of(m))

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


async def posted(result: Any) -> Any:
    """The public message a deferred ("thinking...") answer turned into."""
    assert result.callback_type == 5 and not result.ephemeral, result
    [message] = await result.followups(1, timeout=30)
    return message


async def test_replays_reviews_and_history_pages_of_the_previous_version_work_after_an_upgrade(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    double = bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")

    # Five games (a member may start five in 30 s), each resigned at once, each in its own
    # channel: one running game per member and channel. A history page shows all five.
    games, plies = [], []
    for n in range(5):
        channel = double.add_channel(f"game-{n}")
        board = (await alice.slash("caro start", channel_id=channel, difficulty="easy")).message
        board = await board.wait_for(players_turn, timeout=30)  # the AI may move first
        plies.append(ply_of(board))
        resigned = await resign(
            alice, board, RESIGN.format(game=game_id_of(board), ply=ply_of(board))
        )
        assert resigned.callback_type == 7, resigned
        games.append(game_id_of(board))
    last, total = games[-1], plies[-1]

    # A replay of the last game, at its final position.
    replay = await posted(await alice.slash("caro replay", game=last))
    assert ids_of(replay) == {
        *(REPLAY_STEP.format(game=last, ply=total, step=s) for s in "fbnl"),
        EXPORT.format(game=last),
        REVIEW.format(game=last),
    }
    # Alice's history: Replay and Review per game, Prev and Next.
    history = (await bob.slash("caro history", member=alice)).message
    shown = games[::-1]
    assert ids_of(history) == {
        *(REPLAY.format(game=g) for g in shown),
        *(REVIEW.format(game=g) for g in shown),
        HISTORY_PAGE.format(user=alice.id, page=0),
        HISTORY_PAGE.format(user=alice.id, page=1),
    }

    await bot.restart()

    # The stepper still answers its literal id: back to the first position.
    stepped = await bob.click_custom_id(replay, REPLAY_STEP.format(game=last, ply=total, step="f"))
    assert stepped.callback_type == 7, stepped
    assert REPLAY_STEP.format(game=last, ply=0, step="n") in ids_of(replay)
    exported = await bob.click_custom_id(replay, EXPORT.format(game=last))
    assert exported.callback_type == 4 and exported.ephemeral, exported
    assert sorted(a["filename"] for a in exported.message.attachments) == [
        f"caro-game-{last}.caro", f"caro-game-{last}.psq"]
    reviewed = await bob.click_custom_id(replay, REVIEW.format(game=last))
    assert reviewed.callback_type == 5 and not reviewed.ephemeral, reviewed
    await reviewed.message.wait_for(lambda m: "turning points" in m.content.lower(), timeout=60)

    # The history's Prev (to its first page, this one) redraws it, and its Replay button posts
    # a replay.
    turned = await bob.click_custom_id(history, HISTORY_PAGE.format(user=alice.id, page=0))
    assert turned.callback_type == 7, turned
    assert "(page 1)" in text_of(history) and history.edits >= 1
    again = await posted(await bob.click_custom_id(history, REPLAY.format(game=games[0])))
    assert text_of(again).startswith(f"**Game #{games[0]}: 3x3")
