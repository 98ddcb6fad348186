"""A member's language across the features, through the Discord double and the real bot process:
the command names, the game, the refusals and /caro help in Vietnamese for a Vietnamese-speaking
member, in English for the member next to them."""

from __future__ import annotations

import pytest

from testkit.boards import cells, refusal
from testkit.bot_process import BotHandle, text_of

# The scenarios that draw boards, challenges and layouts run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")


@both_drawings
async def test_a_vietnamese_member_sees_vietnamese(running_bot: BotHandle) -> None:
    double = running_bot.double
    an = double.add_member("an", locale="vi")
    alice = double.add_member("alice")
    caro = next(c for c in double.commands[double.guild_id] if c["name"] == "caro")
    start = next(o for o in caro["options"] if o["name"] == "start")
    assert start["name_localizations"]["vi"] == "bắt-đầu"
    assert start["description_localizations"]["vi"] == "Bắt đầu một ván với máy trong kênh này"

    game = await an.slash("caro start", difficulty="easy")
    text = str(text_of(game))
    assert "**3x3, 3 quân liên tiếp, luật tự do**" in text
    assert f"<@{an.id}> (X) đấu với máy (O, dễ)" in text and "Đến lượt bạn (X)." in text
    labels = [b["label"] for b in game.message.buttons if b not in cells(game.message)]
    assert labels == ["Chịu thua", "Gợi ý"]
    # Each member reads refusals in their own language.
    assert "This is not your game" in refusal(await alice.click(game.message, "B2"))
    gone = await an.click_custom_id(game.message, "caro:m:999:0:A1")
    assert refusal(gone) == "Ván cờ này không tồn tại (nữa); không có gì thay đổi."
    bad = await an.slash("caro start", size="99x99")
    assert "không phải cỡ bàn hợp lệ" in refusal(bad)
    helped = await an.slash("caro help")
    assert helped.embeds[0]["title"] == "Cách chơi cờ caro"
    english = await alice.slash("caro help")
    assert english.embeds[0]["title"] == "How to play caro"
