"""Takebacks (bot/cogs/takeback.py) through the Discord double and the real bot process: against
the AI in a casual game at once; between members with Accept and Decline on a request only the
other member may answer (also after a restart); refused in a rated game; in both languages."""

from __future__ import annotations

from typing import Any

from testkit.boards import ply_of, refusal
from testkit.bot_process import BotHandle, text_of
from testkit.faults import free_cells

CASUAL = "3x4k4"  # too small a board to be rated


def button_id(message: Any, prefix: str) -> str:
    return next(
        str(b["custom_id"]) for b in message.buttons if str(b["custom_id"]).startswith(prefix)
    )


async def test_against_the_ai_the_last_move_and_the_reply_are_taken_back(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, minh = double.add_member("alice"), double.add_member("minh", locale="vi")
    assert "no running game" in refusal(await alice.slash("caro takeback"))
    board = (await alice.slash("caro start", difficulty="easy", size=CASUAL)).message
    assert "no move to take back" in refusal(await alice.slash("caro takeback"))
    await alice.click(board, free_cells(board)[0])
    await board.wait_for(lambda m: ply_of(m) == 2 and "Your turn" in text_of(m), timeout=20)

    done = await alice.slash("caro takeback")
    assert done.ephemeral and "You took back your last move" in str(done.content)
    await board.wait_for(lambda m: ply_of(m) == 0 and "Your turn" in text_of(m))
    assert len(free_cells(board)) == 12
    assert running_bot.db_rows("SELECT ply, takebacks FROM games") == [(0, 1)]
    assert running_bot.db_rows("SELECT COUNT(*) FROM moves") == [(0,)]
    # The board plays on from there.
    assert (await alice.click(board, free_cells(board)[0])).callback_type == 7

    # A rated game: refused privately, in the member's language.
    rated = (
        await minh.slash(
            "caro start", difficulty="easy", size="3x3", channel_id=double.add_channel("vi")
        )
    ).message
    await minh.click(rated, free_cells(rated)[0])
    await rated.wait_for(lambda m: ply_of(m) == 2, timeout=20)
    answer = refusal(await minh.slash("caro takeback", channel_id=rated.channel_id))
    # It names the option that starts a game allowing them, as minh's Discord client shows it.
    assert answer == (
        "Không thể đi lại trong ván có tính điểm. Ván bắt đầu với `tính-điểm:False`"
        " (`/caro bắt-đầu`, `/caro thách-đấu` hoặc `/caro hàng-chờ`) thì được đi lại."
    )


async def test_between_members_the_other_accepts_or_declines(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    challenge = await alice.slash("caro challenge", opponent=bob, size=CASUAL, first="me")
    accepted = await bob.click(challenge.message, "Accept")
    board = challenge.message
    assert accepted.callback_type == 7
    await alice.click(board, free_cells(board)[0])
    assert "only your own last move" in refusal(await bob.slash("caro takeback"))

    asked = await alice.slash("caro takeback")
    assert asked.callback_type == 4 and not asked.ephemeral
    request = asked.message
    assert f"<@{bob.id}>, <@{alice.id}> asks to take back their last move" in request.content
    assert "Only the other player" in refusal(await alice.click(request, "Accept"))
    assert "not your game" in refusal(await carol.click(request, "Accept"))
    assert "already asked" in refusal(await alice.slash("caro takeback"))

    # The request is stored: a restart keeps it answerable.
    await running_bot.restart()
    yes = await bob.click(request, "Accept")
    assert yes.callback_type == 7
    assert request.content.startswith(f"<@{bob.id}> accepted the takeback: https://discord.com/")
    assert request.buttons == []
    await board.wait_for(lambda m: ply_of(m) == 0)
    assert running_bot.db_rows("SELECT ply, takebacks FROM games") == [(0, 1)]

    # Declined: the game stays as it is and the move cannot be asked back again.
    await alice.click(board, free_cells(board)[0])
    second = (await alice.slash("caro takeback")).message
    no = await bob.click(second, "Decline")
    assert no.callback_type == 7 and second.content == f"<@{bob.id}> declined the takeback."
    assert "already asked" in refusal(await alice.slash("caro takeback"))
    # A request answered by a move instead expires with the turn.
    await bob.click(board, free_cells(board)[0])
    await alice.click(board, free_cells(board)[0])
    third = (await alice.slash("caro takeback")).message
    await bob.click(board, free_cells(board)[0])
    late = refusal(await bob.click_custom_id(third, button_id(third, "caro:ta:")))
    assert "no longer open" in late
    assert running_bot.db_rows("SELECT ply, takebacks FROM games") == [(4, 1)]
    assert double.violations == []


async def test_a_casual_game_on_a_rated_board_allows_takebacks_and_changes_no_rating(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    # Against the AI: rated:False on a board that would be rated.
    board = (await alice.slash("caro start", difficulty="easy", size="9x9", rated=False)).message
    assert "_Casual: this game does not count for ratings; takebacks are allowed" in text_of(board)
    await alice.click(board, "E5")
    await board.wait_for(lambda m: ply_of(m) == 2 and "Your turn" in text_of(m), timeout=20)
    done = await alice.slash("caro takeback")
    assert done.ephemeral and "You took back your last move" in str(done.content)
    await board.wait_for(lambda m: ply_of(m) == 0)
    assert (await alice.slash("caro resign")).ephemeral
    assert running_bot.db_rows("SELECT rated FROM games") == [(0,)]
    assert running_bot.db_rows("SELECT COUNT(*) FROM rating_changes") == [(0,)]
    # Between members: the challenge says so, and its rematch is casual too.
    challenge = await alice.slash("caro challenge", opponent=bob, size="15x15", rated=False)
    assert "A casual game: no rating change, takebacks allowed." in str(challenge.message.content)
    await bob.click(challenge.message, "Accept")
    assert "_Casual:" in text_of(challenge.message)
    await alice.slash("caro resign")
    await challenge.message.wait_for(lambda m: any(b["label"] == "Rematch" for b in m.buttons))
    rematch = await bob.click(challenge.message, "Rematch")
    assert "A casual game" in str(rematch.message.content if rematch.message else "")
    assert running_bot.db_rows("SELECT rated FROM challenges ORDER BY id") == [(0,), (0,)]
