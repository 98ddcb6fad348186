"""Takebacks in a casual queued game between two servers (bot/cogs/takeback.py, through the
outbox), through the Discord double and the real bot process: the member who just moved asks in
their own channel, the other is asked in theirs with Accept and Decline, and the answer comes back
to the asker's channel; an accepted takeback goes back on both boards. A declined request, one
answered by a move instead, and nobody mentioned across the two servers."""

from __future__ import annotations

from typing import Any

from testkit.boards import refusal
from testkit.bot_process import text_of
from tests.bot.cogs.test_openings import typed
from tests.bot.cogs.test_queue import Across, Sides, paired_across


async def new_message(double: Any, channel: str, wanted: str, timeout: float = 15.0) -> Any:
    """The bot's message in `channel` whose text holds `wanted`, once it is there."""

    def found() -> list[Any]:
        return [m for m in double.store.channel_history(channel)
                if wanted in str(text_of(m)) and not m.deleted]

    assert await double.store.changes.wait_until(lambda: bool(found()), timeout), (
        f"no message in {channel} says {wanted!r}")
    return found()[0]


async def moves_shown(side: Sides, count: int) -> None:
    """Both boards show `count` moves played."""
    for board in (side.x_board, side.o_board):
        await board.wait_for(
            lambda m: f"Moves played: {count}." in str(text_of(m)), timeout=15)


async def play(member: Any, board: Any, cell: str, side: Sides, count: int) -> None:
    answer = await typed(member, board, cell)
    assert answer.callback_type in (4, 6, 7), answer
    await moves_shown(side, count)


def no_mentions_across(double: Any, game: Across) -> None:
    """Nothing in either server mentions the member of the other."""
    for channel, stranger in ((double.channel_id, game.dave), (game.theirs, game.alice)):
        for message in double.store.order:
            if message.channel_id == str(channel):
                assert f"<@{stranger.id}>" not in str(text_of(message)), text_of(message)


async def casual_after_first_move(start_bot: Any) -> tuple[Any, Across, Sides]:
    """A casual game between two servers, X's first move (H8) on both boards."""
    bot = await start_bot(DISCORD_GUILD_ID="")
    game = await paired_across(bot, rated=False)
    side = Sides(game)
    await play(side.x, side.x_board, "H8", side, 1)
    return bot, game, side


async def test_a_casual_takeback_between_two_servers_asked_on_either_board_is_accepted_on_both(
    start_bot: Any,
) -> None:
    bot, game, side = await casual_after_first_move(start_bot)
    double = bot.double
    x, o = side.x, side.o

    # X asks in their own channel: told privately that O was asked, by name.
    asked = await x.slash("caro takeback", channel_id=side.x_channel)
    assert refusal(asked) == (
        f"{side.names[o.id]} was asked, in their own server, to let you take back your last"
        " move (H8). Their answer will be posted in this channel.")
    # O is asked in theirs, mentioned there, the asker named only.
    request = await new_message(double, side.o_channel, "asks to take back")
    assert text_of(request) == (
        f"<@{o.id}>, {side.names[x.id]} asks to take back their last move (H8). Do you accept?")
    assert "only your own last move" in refusal(
        await o.slash("caro takeback", channel_id=side.o_channel))
    assert "already asked" in refusal(await x.slash("caro takeback", channel_id=side.x_channel))

    yes = await o.click(request, "Accept")
    assert yes.callback_type == 7
    assert str(text_of(request)).startswith(
        f"<@{o.id}> accepted the takeback: https://discord.com/channels/")
    # The link is to O's own board, in their server.
    assert f"/{side.o_channel}/{side.o_board.id}" in str(text_of(request))
    assert request.buttons == []
    await moves_shown(side, 0)
    answer = await new_message(double, side.x_channel, "accepted your takeback")
    assert text_of(answer) == (
        f"<@{x.id}>, {side.names[o.id]} accepted your takeback: your last move is taken back,"
        " and it is your turn again.")
    assert bot.db_rows("SELECT ply, takebacks FROM games") == [(0, 1)]

    # The board plays on from there. X asks again, then O on their side, X accepting there:
    # two takebacks in a row, each board back a move further than it was ever drawn since.
    await play(x, side.x_board, "H8", side, 1)
    await play(o, side.o_board, "A1", side, 2)
    await play(x, side.x_board, "H9", side, 3)
    await x.slash("caro takeback", channel_id=side.x_channel)
    request = await new_message(double, side.o_channel, "(H9). Do you accept?")
    assert (await o.click(request, "Accept")).callback_type == 7
    await moves_shown(side, 2)
    asked = await o.slash("caro takeback", channel_id=side.o_channel)
    assert refusal(asked) == (
        f"{side.names[x.id]} was asked, in their own server, to let you take back your last"
        " move (A1). Their answer will be posted in this channel.")
    request = await new_message(double, side.x_channel, f"{side.names[o.id]} asks to take back")
    assert (await x.click(request, "Accept")).callback_type == 7
    await moves_shown(side, 1)
    await new_message(double, side.o_channel,
                      f"<@{o.id}>, {side.names[x.id]} accepted your takeback")
    assert bot.db_rows("SELECT ply, takebacks FROM games") == [(1, 3)]
    assert "all 3 of its takebacks" in refusal(
        await o.slash("caro takeback", channel_id=side.o_channel))
    # Both boards draw on from there: the end too, though each was drawn further on before.
    assert (await x.slash("caro resign", channel_id=side.x_channel)).ephemeral
    for board in (side.x_board, side.o_board):
        await board.wait_for(lambda m: "resigned.**" in str(text_of(m))
                             and "Moves played: 1." in str(text_of(m)), timeout=15)
    no_mentions_across(double, game)
    assert double.violations == []


async def test_a_takeback_between_two_servers_declined_or_answered_by_a_move_changes_nothing(
    start_bot: Any,
) -> None:
    bot, game, side = await casual_after_first_move(start_bot)
    double = bot.double
    x, o = side.x, side.o
    await x.slash("caro takeback", channel_id=side.x_channel)
    request = await new_message(double, side.o_channel, "asks to take back")
    # Only the asked member answers: not another member of their server.
    guild = game.other if o is game.dave else double.guild_id
    carol = double.add_member("carol", guild_id=guild)
    assert "not your game" in refusal(
        await carol.click(request, "Decline"))
    no = await o.click(request, "Decline")
    assert no.callback_type == 7 and text_of(request) == f"<@{o.id}> declined the takeback."
    answer = await new_message(double, side.x_channel, "declined your takeback")
    assert text_of(answer) == (
        f"<@{x.id}>, {side.names[o.id]} declined your takeback: the game goes on as it was.")
    assert "already asked" in refusal(await x.slash("caro takeback", channel_id=side.x_channel))

    # A request answered by a move instead: its Accept no longer takes anything back.
    await play(o, side.o_board, "A1", side, 2)
    await play(x, side.x_board, "H9", side, 3)
    await x.slash("caro takeback", channel_id=side.x_channel)
    late = await new_message(double, side.o_channel, "(H9). Do you accept?")
    await play(o, side.o_board, "A2", side, 4)
    custom_id = next(str(b["custom_id"]) for b in late.buttons
                     if str(b["custom_id"]).startswith("caro:ta:"))
    assert "no longer open" in refusal(await o.click_custom_id(late, custom_id))
    assert bot.db_rows("SELECT ply, takebacks FROM games") == [(4, 0)]
    no_mentions_across(double, game)
    assert double.violations == []
