"""`/caro board` (bot/cogs/board.py) through the Discord double and the real bot process: the
member's running game is posted again at the bottom of the channel, the old message becomes a
link to it with no buttons, and a click on the old board (even from a client that still shows
its buttons) is answered with that link and changes nothing."""

from __future__ import annotations

import pytest

from testkit.boards import cells, refusal
from testkit.bot_process import BotHandle, text_of
from testkit.faults import free_cells
from testkit.replays import files

# The scenarios that draw boards, challenges and layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")


def stored_message(bot: BotHandle) -> int:
    ((message_id,),) = bot.db_rows("SELECT message_id FROM games WHERE status = 'active'")
    return int(message_id)


@both_drawings
async def test_the_board_is_reposted_and_the_old_one_points_to_it(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    assert "no running game" in refusal(await alice.slash("caro board"))
    old = (await alice.slash("caro start", difficulty="easy", size="4x4")).message
    first = free_cells(old)[0]
    stale_click = next(str(b["custom_id"]) for b in cells(old) if b["label"] != first)
    await alice.click(old, first)
    await old.wait_for(lambda m: "Your turn" in text_of(m), timeout=20)

    moved = await alice.slash("caro board")
    assert moved.callback_type == 4 and not moved.ephemeral
    new = moved.message
    # The old message is changed once the new one is the game's board.
    await old.wait_for(lambda m: m.buttons == [])
    assert stored_message(running_bot) == int(new.id)
    assert len(cells(new)) == 16 and "Your turn" in text_of(new)
    link = f"https://discord.com/channels/{double.guild_id}/{double.channel_id}/{new.id}"
    assert text_of(old) == f"This board moved here: {link}"

    # A client that still shows the old buttons: answered with the link, nothing changes.
    before, shown = running_bot.db_counts(), new.snapshot()
    answer = refusal(await alice.click_custom_id(old, stale_click))
    assert answer == f"This board moved, here: {link} (nothing was changed)."
    resign = refusal(
        await alice.click_custom_id(
            old,
            next(
                str(b["custom_id"])
                for b in new.buttons
                if str(b["custom_id"]).startswith("caro:r:")
            ),
        )
    )
    assert link in resign
    assert running_bot.db_counts() == before and new.snapshot() == shown
    assert "no running game" in refusal(await bob.slash("caro board"))

    # The new board plays on, and can be reposted again.
    played = await alice.click(new, free_cells(new)[0])
    assert played.callback_type == 7
    again = (await alice.slash("caro board")).message
    await new.wait_for(lambda m: m.buttons == [])
    assert str(again.id) in text_of(new)
    assert "moved, here" in refusal(await alice.click_custom_id(old, stale_click))
    assert str(again.id) in refusal(await alice.click_custom_id(old, stale_click))


async def test_a_big_board_is_reposted_as_a_layout_in_the_members_language(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    minh = double.add_member("minh", locale="vi")
    assert "không có ván nào" in refusal(await minh.slash("caro board"))
    old = (await minh.slash("caro start", difficulty="easy", size="15x15")).message
    new = (await minh.slash("caro board")).message
    await old.wait_for(lambda m: m.buttons == [])
    assert stored_message(running_bot) == int(new.id)
    assert new.attachments and any(str(b["custom_id"]).startswith("caro:p:") for b in new.buttons)
    assert text_of(old).startswith("Bàn cờ này đã chuyển xuống đây: https://discord.com/")
    assert old.attachments == []
    game = str(new.buttons[-1]["custom_id"]).split(":")[2]
    stale = refusal(await minh.click_custom_id(old, f"caro:r:{game}:0"))
    assert stale.startswith("Bàn cờ này đã chuyển đi, ở đây:")
    assert running_bot.double.violations == []


async def test_a_reposted_board_keeps_the_starters_theme(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    await alice.slash("caro settings", theme="paper")
    old = (await alice.slash("caro start", difficulty="easy", size="15x15")).message
    (picture,) = files(old).values()
    new = (await alice.slash("caro board")).message
    await old.wait_for(lambda m: m.buttons == [])
    # The same position in the same theme: the same picture.
    assert list(files(new).values()) == [picture]
    assert running_bot.double.violations == []
