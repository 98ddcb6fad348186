"""/caro block and /caro unblock (bot/cogs/blocks.py), through the Discord double and the real
bot process: a block, its list, the challenge it refuses either way round, privately, and the
block lifted; in English and Vietnamese."""

from __future__ import annotations

from testkit.boards import refusal
from testkit.bot_process import BotHandle, text_of


async def test_a_blocked_member_cannot_challenge_until_the_block_is_lifted(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    assert refusal(await alice.slash("caro block")) == "You have blocked nobody."
    done = refusal(await alice.slash("caro block", member=bob))
    assert done.startswith(f"You blocked <@{bob.id}>: they cannot challenge you")
    assert "`/caro unblock`" in done
    assert refusal(await alice.slash("caro block", member=carol)).startswith("You blocked")
    assert refusal(await alice.slash("caro block")) == f"You blocked: <@{bob.id}>, <@{carol.id}>."
    assert refusal(await alice.slash("caro block", member=bob)) == (
        f"You have blocked <@{bob.id}> already."
    )
    assert refusal(await alice.slash("caro block", member=alice)) == "You cannot block yourself."

    # Refused privately both ways round: nothing is posted in the channel.
    posted = len(double.store.channel_history(double.channel_id))
    assert refusal(await bob.slash("caro challenge", opponent=alice)) == (
        f"<@{alice.id}> does not take challenges from you."
    )
    assert refusal(await alice.slash("caro challenge", opponent=bob)).startswith(
        f"You blocked <@{bob.id}>; unblock them with `/caro unblock`"
    )
    assert len(double.store.channel_history(double.channel_id)) == posted
    assert running_bot.db_rows("SELECT COUNT(*) FROM challenges") == [(0,)]

    assert refusal(await alice.slash("caro unblock", member=bob)) == f"You unblocked <@{bob.id}>."
    assert refusal(await alice.slash("caro unblock", member=bob)) == (
        f"You have not blocked <@{bob.id}>."
    )
    challenge = await bob.slash("caro challenge", opponent=alice)
    assert f"<@{alice.id}>, <@{bob.id}> challenges you" in str(text_of(challenge))
    assert refusal(await alice.slash("caro block")) == f"You blocked: <@{carol.id}>."


async def test_blocks_answer_in_vietnamese(running_bot: BotHandle) -> None:
    double = running_bot.double
    an, binh = double.add_member("an", locale="vi"), double.add_member("binh", locale="vi")
    assert refusal(await an.slash("caro block", member=binh)).startswith(
        f"Bạn đã chặn <@{binh.id}>: họ không thể thách đấu bạn"
    )
    assert refusal(await binh.slash("caro challenge", opponent=an)) == (
        f"<@{an.id}> không nhận lời thách đấu từ bạn."
    )
    assert refusal(await an.slash("caro block")) == f"Bạn đã chặn: <@{binh.id}>."
