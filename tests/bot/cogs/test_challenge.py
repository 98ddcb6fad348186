"""Games between members (bot/cogs/challenge.py), through the Discord double and the real bot
process: a challenge accepted and played to a rated end, declined, expired, capped, refused
while one between the same two members waits, and accepted while the challenger starts a game."""

from __future__ import annotations

import asyncio

import pytest

from testkit.boards import cells, refusal, resign
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.members import accepted_game

# The scenarios that draw boards, challenges and layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")


@both_drawings
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


@both_drawings
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


async def test_accepting_while_the_challenger_starts_a_game_never_loses_it(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    accepts_won = 0
    for attempt in range(8):
        # A new pair each time: the challenge cooldown and the cap on pending challenges are
        # not what is tested here.
        alice, bob = double.add_member(f"alice{attempt}"), double.add_member(f"bob{attempt}")
        channel = double.add_channel(f"race-{attempt}")
        challenge = await alice.slash("caro challenge", opponent=bob, channel_id=channel)
        assert challenge.callback_type == 4 and not challenge.ephemeral
        accepted, started = await asyncio.gather(
            bob.click(challenge.message, "Accept"),
            alice.slash("caro start", channel_id=channel, difficulty="easy"),
        )
        if accepted.callback_type == 7:
            # The accept won: the start is refused with a link to the game, which stays live.
            assert started.ephemeral, started
            assert "already" in str(started.content)
            accepts_won += 1
        else:
            # The start won: the accept is refused privately and the challenge stays open.
            assert accepted.ephemeral, accepted
            assert "started another game" in str(accepted.content), accepted.content
    # Which side wins is the machine's timing; whichever did, its game is there and live.
    rows = running_bot.db_rows("SELECT mode, status FROM games ORDER BY id")
    assert sorted(mode for mode, _ in rows) == ["ai"] * (8 - accepts_won) + ["pvp"] * accepts_won
    assert all(status == "active" for _, status in rows), rows


async def test_pending_challenges_to_one_member_are_capped(running_bot: BotHandle) -> None:
    double = running_bot.double
    target = double.add_member("target")
    posted = 0
    replies: list[str] = []
    for n in range(8):
        challenger = double.add_member(f"challenger{n}")
        result = await challenger.slash("caro challenge", opponent=target,
                                        channel_id=double.add_channel(f"c{n}"))
        if result.ephemeral:
            replies.append(str(result.content))
        else:
            posted += 1
    assert posted == 5  # Limits.challenges_per_challenged
    assert len(replies) == 3 and all("too many challenges" in r for r in replies)


async def test_a_second_challenge_between_two_members_names_the_waiting_one_and_pings_nobody(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    posted = await alice.slash("caro challenge", opponent=bob)
    waiting = posted.message
    link = f"https://discord.com/channels/{double.guild_id}/{waiting.channel_id}/{waiting.id}"
    # Again, from the other side, or in another channel: it is still the same two members.
    for sender, other, channel in [
        (alice, bob, None),
        (bob, alice, double.add_channel("other")),
        (alice, bob, double.add_channel("third")),
    ]:
        where = {} if channel is None else {"channel_id": channel}
        refused = await sender.slash("caro challenge", opponent=other, **where)
        assert refusal(refused) == (
            f"You and <@{other.id}> already have a challenge waiting for an answer: {link}"
        ), refused
    assert running_bot.db_rows("SELECT COUNT(*) FROM challenges") == [(1,)]
    # Someone else may still challenge either of them; once answered, the two may again.
    assert not (await carol.slash("caro challenge", opponent=bob)).ephemeral
    assert (await bob.click(waiting, "Decline")).callback_type == 7
    assert not (await bob.slash("caro challenge", opponent=alice)).ephemeral
    assert running_bot.db_rows("SELECT COUNT(*) FROM challenges") == [(3,)]


def _notices(double, member_id: str) -> list:
    """The calls to move that notified `member_id` (deleted ones included): the replies to a
    board that pinged them (the challenge, which pinged the challenged member, is none)."""
    return [m for m in double.store.order if member_id in m.pinged and m.payload.get("message_reference")]


@both_drawings
async def test_the_member_to_move_is_pinged_each_turn_and_only_them(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = (double.add_member(n) for n in ("alice", "bob"))
    challenge = await alice.slash("caro challenge", opponent=bob, first="me")
    board = challenge.message
    await bob.click(board, "Accept")
    # Alice moves first: the board (the challenge message, edited) notifies nobody, so a short
    # reply to it calls her, and only her.
    await double.store.changes.wait_until(lambda: bool(_notices(double, alice.id)), 10)
    (first,) = _notices(double, alice.id)
    assert first.content == f"<@{alice.id}>, your move."
    assert str(first.payload["message_reference"]["message_id"]) == board.id
    assert not first.pinged_everyone and first.pinged == [alice.id]
    await alice.click(board, "B2")
    await double.store.changes.wait_until(lambda: bool(_notices(double, bob.id)), 10)
    (second,) = _notices(double, bob.id)
    assert second.pinged == [bob.id] and second.content == f"<@{bob.id}>, your move."
    # The turn passed: Alice's call is gone, so the channel holds one per game.
    await first.wait_for(lambda m: m.deleted)
    await bob.click(board, "A1")
    await double.store.changes.wait_until(lambda: len(_notices(double, alice.id)) == 2, 10)
    await second.wait_for(lambda m: m.deleted)
    # The challenge called Bob when it was posted; its edits into the board rang nobody.
    assert board.pinged == [bob.id]
    # The end of the game takes the last call away.
    await resign(alice, board)
    last = _notices(double, alice.id)[-1]
    await last.wait_for(lambda m: m.deleted)
    calls = _notices(double, alice.id) + _notices(double, bob.id)
    assert len(calls) == 3 and all(m.deleted for m in calls)


async def test_a_member_who_turned_pings_off_is_not_pinged(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = (double.add_member(n) for n in ("alice", "bob"))
    assert (await bob.slash("caro settings", pings=False)).ephemeral
    board = await accepted_game(alice, bob, first="me")
    await double.store.changes.wait_until(lambda: bool(_notices(double, alice.id)), 10)
    await alice.click(board, "B2")
    await board.wait_for(lambda m: f"<@{bob.id}> to move (O)." in text_of(m))
    await asyncio.sleep(1.0)  # time enough for a ping to arrive, were one sent
    assert _notices(double, bob.id) == []
    # Alice's call went with her turn all the same.
    await _notices(double, alice.id)[0].wait_for(lambda m: m.deleted)


async def test_nobody_is_pinged_in_a_game_against_the_ai(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    game = await alice.slash("caro start", difficulty="easy", first="ai")
    await game.message.wait_for(lambda m: "Your turn" in text_of(m))
    free = next(b for b in cells(game.message) if not b.get("disabled"))
    await alice.click(game.message, free["custom_id"])
    await asyncio.sleep(1.0)
    assert [m for m in double.store.order if m.pinged] == []
