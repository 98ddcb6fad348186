"""A board whose last drawing was lost (bot/cogs/play.py): found by bench.soak, where a takeback
was stored just as PostgreSQL restarted and its answer never reached the board. The board kept
showing the move before, and every click on it was refused as out of date, for good. The refused
click now also draws the stored game on the board, and the member plays on from there."""

from __future__ import annotations

from testkit.boards import ply_of, refusal
from testkit.bot_process import BotHandle, text_of
from testkit.faults import free_cells

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
