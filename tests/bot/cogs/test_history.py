"""`/caro history` (bot/cogs/history.py), through the Discord double and the real bot process:
its pages, and no page past the last."""

from __future__ import annotations

from testkit.boards import refusal
from testkit.bot_process import BotHandle, text_of
from testkit.members import accepted_game


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
        assert (await bob.click(board, "Resign")).callback_type == 7
    page = (await alice.slash("caro history")).message
    assert (await alice.click(page, "Next")).callback_type == 7
    assert "(page 2)" in text_of(page) and page.button("Next")["disabled"]
    shown = (text_of(page), page.edits)
    # The disabled Next is on the message, so it passes the "which message" check: a modified
    # client sends it, page after page. The history has no third page to show.
    forged = await alice.click_custom_id(page, page.button("Next")["custom_id"])
    assert refusal(forged) == "That page of the history does not exist."
    assert (text_of(page), page.edits) == shown
