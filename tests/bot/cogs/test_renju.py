"""Renju on Discord, through the double and the real bot process: offered as a rule, black's
forbidden points refused privately naming the shape (nothing stored), the five that is also an
overline elsewhere still winning, and the options that cannot be renju refused."""

from __future__ import annotations

from typing import Any

from testkit.boards import refusal
from testkit.bot_process import BotHandle, text_of
from testkit.members import accepted_game


async def typed(member: Any, message: Any, cell: str) -> Any:
    form = await member.click(message, "Type a move")
    assert form.modal is not None, form
    return await member.submit_modal(message, form.modal["custom_id"], {"cell": cell})


async def test_a_double_three_is_refused_to_black_naming_it_and_white_may_play_there(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    message = await accepted_game(alice, bob, size="15x15", rule="renju", first="me")
    assert "**15x15, 5 in a row, renju**" in text_of(message)
    for x, o in [("F8", "A1"), ("G8", "A3"), ("H6", "A5"), ("H7", "A7")]:
        await typed(alice, message, x)
        await typed(bob, message, o)
    # H8 makes two open threes at once (F8 G8 H8 and H6 H7 H8): forbidden for black.
    refused = await typed(alice, message, "H8")
    assert refusal(refused) == (
        "H8 is forbidden for X under renju: it makes a double three. A move that makes five"
        " wins all the same."
    )
    assert running_bot.db_rows("SELECT ply FROM games") == [(8,)]
    await typed(alice, message, "L12")
    # White has no forbidden points: it may take the very point.
    assert (await typed(bob, message, "H8")).callback_type == 7
    assert running_bot.db_rows("SELECT ply FROM games") == [(10,)]
    assert double.violations == []


async def test_renju_on_a_board_other_than_five_in_a_row_is_refused(
    running_bot: BotHandle,
) -> None:
    alice = running_bot.double.add_member("alice")
    assert "Renju is five in a row" in refusal(
        await alice.slash("caro start", rule="renju", size="3x3")
    )
    # No size: the standard renju board.
    game = await alice.slash("caro start", rule="renju", difficulty="easy")
    assert "**15x15, 5 in a row, renju**" in text_of(game.message)


async def test_the_forbidden_point_is_named_in_the_members_language(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, an = double.add_member("alice"), double.add_member("an", locale="vi")
    # Alice's challenge (in English), An plays black.
    message = await accepted_game(alice, an, size="15x15", rule="renju", first="them")
    for x, o in [("F8", "A1"), ("G8", "A3"), ("H6", "A5"), ("H7", "A7")]:
        await typed(an, message, x)
        await typed(alice, message, o)
    assert "tạo ba-ba (hai đường ba)" in refusal(await typed(an, message, "H8"))


async def test_an_overline_is_refused_as_an_overline_with_its_article(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    message = await accepted_game(alice, bob, size="15x15", rule="renju", first="me")
    # F8 G8 H8 and J8 K8: I8 would join them into six.
    for x, o in [("F8", "A1"), ("G8", "A3"), ("H8", "A5"), ("J8", "A7"), ("K8", "A9")]:
        await typed(alice, message, x)
        await typed(bob, message, o)
    assert refusal(await typed(alice, message, "I8")) == (
        "I8 is forbidden for X under renju: it makes an overline. A move that makes five"
        " wins all the same."
    )
