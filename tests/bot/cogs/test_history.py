"""`/caro history` (bot/cogs/history.py), through the Discord double and the real bot process:
its pages with ratings and their replay and review buttons, no page past the last, and a queued
game between two servers in each member's history in their own server."""

from __future__ import annotations

from typing import Any

import pytest

from testkit.boards import refusal, resign
from testkit.bot_process import BotHandle, text_of
from testkit.members import accepted_game
from testkit.replays import posted
from tests.bot.cogs.test_queue import paired_across


async def test_history_pages_past_the_last_are_refused_even_from_its_own_disabled_next(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    for n in range(3):  # six games, two pages of history: three against the AI...
        channel = double.add_channel(f"h{n}")
        assert not (await alice.slash("caro start", channel_id=channel)).ephemeral
        await alice.slash("caro resign", channel_id=channel)
    for n in range(3):  # ...and three against Bob
        board = await accepted_game(alice, bob, channel_id=double.add_channel(f"b{n}"))
        assert (await resign(bob, board)).callback_type == 7
    page = (await alice.slash("caro history")).message
    assert (await alice.click(page, "Next")).callback_type == 7
    assert "(page 2)" in text_of(page) and page.button("Next")["disabled"]
    shown = (text_of(page), page.edits)
    # The disabled Next is on the message, so it passes the "which message" check: a modified
    # client sends it, page after page. The history has no third page to show.
    forged = await alice.click_custom_id(page, page.button("Next")["custom_id"])
    assert refusal(forged) == "That page of the history does not exist."
    assert (text_of(page), page.edits) == shown


@pytest.mark.usefixtures("fast_drawing")  # draws history pages and a replay
async def test_history_pages_with_ratings_and_replay_and_review_buttons(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    for n in range(6):  # six rated games, each resigned by Bob at once (challenges take turns:
        # one member may send only so many a minute)
        board = await (accepted_game(alice, bob) if n % 2 == 0 else accepted_game(bob, alice))
        assert (await resign(bob, board)).callback_type == 7

    history = await alice.slash("caro history", member=bob)
    assert history.callback_type == 4 and not history.ephemeral
    page = history.message
    text = text_of(page)
    assert text.startswith(f"Last games of <@{bob.id}> (page 1):")
    assert [f"#{n} **lost** vs <@{alice.id}> as " in text for n in (6, 5, 4, 3, 2)] == [True] * 5
    assert "#1 " not in text
    labels = [b["label"] for b in page.buttons]
    assert labels == [*(f"Replay #{n}" for n in (6, 5, 4, 3, 2)),
                      *(f"Review #{n}" for n in (6, 5, 4, 3, 2)), "Prev", "Next"]
    assert page.button("Prev")["disabled"] and not page.button("Next").get("disabled")

    assert (await bob.click(page, "Next")).callback_type == 7
    assert "(page 2)" in text_of(page) and "#1 **lost**" in text_of(page)
    assert "rating -16 → 1184" in text_of(page)
    assert page.button("Next")["disabled"] and not page.button("Prev").get("disabled")
    forged = await bob.click_custom_id(page, f"caro:hp:{bob.id}:7")
    assert "belongs to another board" in refusal(forged)
    assert (await bob.click(page, "Prev")).callback_type == 7
    assert "(page 1)" in text_of(page)

    replay = await posted(await bob.click(page, "Replay #6"))
    assert text_of(replay).startswith("**Game #6: 3x3")
    assert "the other side resigned" in text_of(replay)
    # A game resigned before any move: its review has nothing to find, and says so.
    asked = await alice.click(page, "Review #6")
    assert asked.callback_type == 5 and not asked.ephemeral
    reviewed = await asked.message.wait_for(lambda m: "No turning points" in m.content, timeout=30)
    assert reviewed.embeds == []


async def test_a_game_between_two_servers_is_in_each_members_history_in_their_own_server(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    double = bot.double
    game = await paired_across(bot)
    alice, dave, theirs = game.alice, game.dave, game.theirs
    assert (await dave.slash("caro resign", channel_id=theirs)).ephemeral
    await game.there.wait_for(lambda m: "resigned.**" in str(text_of(m)), timeout=10)

    # Dave's history in his server has the game, Alice by name and rating, never mentioned,
    # and his rating change in his server.
    page = (await dave.slash("caro history", channel_id=theirs)).message
    text = text_of(page)
    assert "#1 **lost** vs **Alice** (1200) as " in text, text
    assert f"<@{alice.id}>" not in text and "rating -16 → 1184" in text
    assert [b["label"] for b in page.buttons] == ["Replay #1", "Review #1", "Prev", "Next"]
    # Alice's in hers names Dave the same way.
    mine = text_of((await alice.slash("caro history")).message)
    assert "#1 **won** vs **Dave** (1200) as " in mine and f"<@{dave.id}>" not in mine
    assert "rating +16 → 1216" in mine

    # Dave replays it from his server, by its number and as his last game, and from the page,
    # and has it reviewed there.
    for asked in (
        await dave.slash("caro replay", game=1, channel_id=theirs),
        await dave.slash("caro replay", channel_id=theirs),
        await dave.click(page, "Replay #1"),
    ):
        replay = text_of(await posted(asked))
        assert replay.startswith("**Game #1: 15x15"), replay
        assert "**Alice** (1200, " in replay and f"<@{alice.id}>" not in replay

    asked = await dave.slash("caro review", game=1, channel_id=theirs)
    assert asked.callback_type == 5 and not asked.ephemeral
    reviewed = await asked.message.wait_for(lambda m: "No turning points" in m.content, timeout=30)
    assert "**Alice** (1200, " in reviewed.content and f"<@{alice.id}>" not in reviewed.content

    # A member of a third server is told there is no such game, as of a game that never was.
    third = double.add_guild("a third server")
    carol = double.add_member("carol", guild_id=third)
    where = double.guilds[third].channel_id
    unknown = refusal(await carol.slash("caro replay", game=99, channel_id=where))
    assert unknown == "There is no game #99 in this server."
    for command in ("caro replay", "caro review"):
        refused = refusal(await carol.slash(command, game=1, channel_id=where))
        assert refused == unknown.replace("#99", "#1")
    assert double.violations == []
