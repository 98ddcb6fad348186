"""A member's language across the features, through the Discord double and the real bot process:
the command names, the game, the refusals and /caro help in Vietnamese for a Vietnamese-speaking
member, in English for the member next to them; the language a member chose, then the server's
default, then their Discord client's; commands named as each member's Discord shows them; pings
in the pinged member's language."""

from __future__ import annotations

import pytest

from testkit.boards import cells, refusal
from testkit.bot_process import BotHandle, text_of
from testkit.members import MANAGE_GUILD

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


async def test_a_members_own_language_then_the_servers_then_their_clients(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    admin = double.add_member("admin")
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    an = double.add_member("an", locale="vi")
    alice, bob = double.add_member("alice"), double.add_member("bob")
    game = await bob.slash("caro start", difficulty="easy")
    # No one chose: each reads their Discord client's language.
    assert refusal(await alice.click(game.message, "B2")) == (
        "This is not your game. Start your own with `/caro start`."
    )
    assert refusal(await an.click(game.message, "B2")) == (
        "Đây không phải ván của bạn. Hãy bắt đầu ván của bạn bằng `/caro bắt-đầu`."
    )
    # The server's default comes before the client's: Alice reads Vietnamese, and the command
    # is named as her (English) Discord shows it.
    assert (await admin.slash("caro settings", server_language="vi")).ephemeral
    assert refusal(await alice.click(game.message, "B2")) == (
        "Đây không phải ván của bạn. Hãy bắt đầu ván của bạn bằng `/caro start`."
    )
    # A member's own choice comes first: An chose English, and Discord shows him Vietnamese
    # command names.
    assert (await an.slash("caro settings", language="en")).ephemeral
    assert refusal(await an.click(game.message, "B2")) == (
        "This is not your game. Start your own with `/caro bắt-đầu`."
    )
    # A game's public text follows the server's default, whoever starts it.
    started = await alice.slash("caro start", difficulty="easy")
    assert "Đến lượt bạn (X)." in str(text_of(started))


async def test_a_member_is_pinged_in_their_own_language(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    assert (await alice.slash("caro settings", language="vi")).ephemeral
    challenge = await alice.slash("caro challenge", opponent=bob, first="me")
    board = challenge.message  # in Alice's language: she started it
    await bob.click(board, "Nhận lời")

    def calls() -> list:
        return [
            m
            for m in double.store.order
            if alice.id in m.pinged and m.payload.get("message_reference")
        ]

    await double.store.changes.wait_until(lambda: bool(calls()), 10)
    assert calls()[0].content == f"<@{alice.id}>, đến lượt bạn."
    await alice.click(board, "B2")
    await bob.click(board, "A1")
    await double.store.changes.wait_until(lambda: len(calls()) == 2, 10)
    assert calls()[1].content == f"<@{alice.id}>, đến lượt bạn."


async def test_a_challenge_is_written_in_the_challenged_members_chosen_language(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    an = double.add_member("an", locale="vi")
    alice, bob = double.add_member("alice"), double.add_member("bob")
    # Bob chose English: An's challenge to him is in English, though An's Discord is Vietnamese.
    assert (await bob.slash("caro settings", language="en")).ephemeral
    to_bob = await an.slash("caro challenge", opponent=bob)
    assert str(text_of(to_bob)).startswith(f"<@{bob.id}>, <@{an.id}> challenges you to")
    # Alice's to An, who chose Vietnamese, is in Vietnamese.
    assert (await an.slash("caro settings", language="vi")).ephemeral
    to_an = await alice.slash("caro challenge", opponent=an)
    assert str(text_of(to_an)).startswith(f"<@{an.id}> ơi, <@{alice.id}> thách bạn một ván")
    # The server's default comes first, as for every public post.
    admin = double.add_member("admin")
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert (await admin.slash("caro settings", server_language="en")).ephemeral
    to_an = await admin.slash("caro challenge", opponent=an)
    assert str(text_of(to_an)).startswith(f"<@{an.id}>, <@{admin.id}> challenges you to")
