"""A board whose last drawing was lost (bot/cogs/play.py): found by bench.soak, where a takeback
was stored just as PostgreSQL restarted and its answer never reached the board. The board kept
showing the move before, and every click on it was refused as out of date, for good. The refused
click now also draws the stored game on the board, and the member plays on from there. The same
holds for a game's board in another server (a game between two servers from the queue), whose
redraw Discord refused for good."""

from __future__ import annotations

import asyncio
from typing import Any

from testkit.boards import ply_of, refusal
from testkit.bot_process import BotHandle, text_of
from testkit.faults import free_cells
from tests.bot.cogs.test_openings import typed
from tests.bot.cogs.test_queue import Sides, paired_across

CASUAL = "3x4k4"  # too small a board to be rated: takebacks are allowed


async def test_a_click_on_a_board_behind_the_stored_game_redraws_it(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    board = (await alice.slash("caro start", difficulty="easy", size=CASUAL)).message
    await alice.click(board, free_cells(board)[0])
    await board.wait_for(lambda m: ply_of(m) == 2 and "Your turn" in text_of(m), timeout=20)

    # The takeback is stored, but the board's redraw is refused by Discord (lost).
    double.fail_next("PATCH", rf"/messages/{board.id}$", status=403, times=1)
    done = await alice.slash("caro takeback")
    assert "You took back your last move" in str(done.content)
    assert running_bot.db_rows("SELECT ply FROM games") == [(0,)]
    assert ply_of(board) == 2  # still the drawing before the takeback

    # A click on it is refused as out of date, and the board is drawn as stored.
    stale = await alice.click(board, free_cells(board)[0])
    assert "out of date" in refusal(stale)
    await board.wait_for(lambda m: ply_of(m) == 0 and "Your turn" in text_of(m), timeout=10)
    assert len(free_cells(board)) == 12
    # The member plays on from there.
    assert (await alice.click(board, free_cells(board)[0])).callback_type == 7
    assert "board showed move 2, 0 stored: redrawn" in running_bot.log_text()


async def test_a_click_on_the_other_servers_board_behind_the_stored_game_redraws_it(
    start_bot: Any,
) -> None:
    bot = await start_bot(DISCORD_GUILD_ID="")
    side = Sides(await paired_across(bot))
    double = bot.double

    # X's move is stored and drawn on X's board; Discord refuses the redraw of O's for good:
    # drawn by X's process, then by the outbox's sender it hands the board back to.
    double.fail_next("PATCH", rf"/messages/{side.o_board.id}$", status=403, times=2)
    await typed(side.x, side.x_board, "H8")
    await side.x_board.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=15)
    for _ in range(100):
        if "given up: Discord refused it" in bot.log_text():
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the outbox never gave up the refused redraw of O's board")
    assert "Moves played: 0." in str(text_of(side.o_board))

    # O's click on it is refused as out of date, and their board is drawn as stored.
    stale = await side.o.click(side.o_board, free_cells(side.o_board)[0])
    assert "out of date" in refusal(stale)
    await side.o_board.wait_for(lambda m: "Moves played: 1." in str(text_of(m)), timeout=15)
    assert "its board in another server showed move 0, 1 stored: redrawn" in bot.log_text()
    # O plays on from there, and X's board follows.
    assert (await side.o.click(side.o_board, free_cells(side.o_board)[0])).callback_type == 7
    await side.x_board.wait_for(lambda m: "Moves played: 2." in str(text_of(m)), timeout=15)
