"""`/caro history` (bot/cogs/history.py), through the Discord double and the real bot process:
its pages with ratings and their replay and review buttons, and no page past the last."""

from __future__ import annotations

import pytest

from testkit.boards import refusal, resign
from testkit.bot_process import BotHandle, text_of
from testkit.members import accepted_game
from testkit.replays import posted


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
