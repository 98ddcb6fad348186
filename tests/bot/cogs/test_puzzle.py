"""`/caro puzzle` (bot/cogs/puzzle.py) through the Discord double and the real bot process: a
member plays a puzzle move by move against the engine's defence, typed or clicked, any winning
move accepted; only they may play it; a wrong move shows its refutation; the attempt survives a
restart; the retry and the leaderboard; and all of it in Vietnamese too."""

from __future__ import annotations

import re
import sqlite3

import pytest

from bot.game.puzzle_model import NewPuzzle
from bot.game.puzzles import SHARED_KEY, shared_version
from bot.storage.puzzle_rows import PUZZLE_INSERT_COLUMNS, puzzle_values
from bot.ui.pictures import render_board
from engine import Board
from engine.analysis.puzzles import prove_board, puzzle_of
from engine.game.notation import parse_cell
from testkit.boards import refusal
from testkit.bot_process import BotHandle, text_of
from testkit.replays import files

# The scenarios that draw boards run with CARO_FAST_DRAWING on and off.
both_drawings = pytest.mark.usefixtures("fast_drawing")

# X to move wins by fours: K8 (L8 forced), then K9. A15 loses to O's open three C3 D3 E3.
MISSED = "15x15 k5 freestyle H8 G8 I8 C3 J8 D3 K10 E3 K11 N14"


def only_puzzle(bot: BotHandle) -> None:
    """The bot's shared set is this one puzzle (stored, with the shipped set's version, before
    its first use, so the shipped set is not loaded)."""
    board = Board.from_text(MISSED)
    proof = prove_board(board)
    assert proof is not None
    new = NewPuzzle.of(puzzle_of(board, proof, source="hand", origin="missed_win"))
    with sqlite3.connect(bot.db_path) as db:
        db.execute(
            f"INSERT INTO puzzles ({PUZZLE_INSERT_COLUMNS}) VALUES"
            " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            puzzle_values(None, new, 0.0),
        )
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?)", (SHARED_KEY, shared_version())
        )


async def typed(member, message, cell: str, button: str = "Type a move"):
    form = await member.click(message, button)
    assert form.callback_type == 9 and form.modal is not None
    return await member.submit_modal(message, form.modal["custom_id"], {"cell": cell})


def position(message, moves: list[str]) -> Board:
    board = Board.from_text(MISSED)
    for name in moves:
        board.push_name(name)
    return board


async def test_a_member_solves_a_puzzle_move_by_move_and_only_they_may_play_it(
    running_bot: BotHandle,
) -> None:
    only_puzzle(running_bot)
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    opened = await alice.slash("caro puzzle play")
    assert opened.callback_type == 4 and not opened.ephemeral
    message = opened.message
    shown = text_of(message)
    assert "X to play and win" in shown and "any move that still wins" in shown.lower()
    assert [a["filename"] for a in message.attachments] == ["puzzle.png"]
    assert "Give up" in [b["label"] for b in message.buttons]

    # Someone else's clicks are refused privately and change nothing.
    assert "Only the member who opened" in refusal(await bob.click(message, "Give up"))
    assert "Only the member who opened" in refusal(await bob.click(message, "Type a move"))
    # The window pans over the picture; a pan plays nothing.
    assert message.button("N14")["label"] == "O"
    assert (await alice.click(message, "\u2b05")).callback_type == 7
    assert message.button("I14")["label"] == "I14"
    assert running_bot.db_rows("SELECT moves FROM puzzle_attempts") == [("",)]

    moves: list[str] = []
    ((attempt,),) = running_bot.db_rows("SELECT id FROM puzzle_attempts")
    # The attempt is stored with its moves: a restart mid-puzzle plays on.
    restarted = False
    while True:
        board = position(message, moves)
        proof = prove_board(board)
        assert proof is not None
        move = board.move_name(proof.line[0])
        result = await typed(alice, message, move.lower())
        assert result.callback_type == 6  # acknowledged at once; the engine judges meanwhile
        await message.wait_for(
            lambda m, move=move: f"{move} still wins" in text_of(m) or "Solved" in text_of(m),
            timeout=60,
        )
        if "Solved" in text_of(message):
            break
        ((stored,),) = running_bot.db_rows(
            "SELECT moves FROM puzzle_attempts WHERE id = ?", (attempt,)
        )
        moves = stored.split()
        assert moves[-2] == move
        if not restarted:
            await running_bot.restart()
            restarted = True
    final = text_of(message)
    assert f"{move} wins. Solved!" in final and "Puzzle rating (Weng-Lin, starts at 25) 25.0 →" in final
    assert "Streak 1" in final
    assert message.buttons == [] or all(b.get("disabled") for b in message.buttons)
    assert running_bot.db_rows("SELECT outcome, rated FROM puzzle_attempts") == [("solved", 1)]
    assert "no failed puzzle" in refusal(await bob.slash("caro puzzle retry"))

    board = await alice.slash("caro puzzle leaderboard")
    assert board.callback_type == 4
    embed = board.message.embeds[0]
    assert embed["title"] == "Puzzle leaderboard"
    assert "1 solved, 0 failed" in str(embed["fields"])
    assert "no puzzle left" in refusal(await alice.slash("caro puzzle play"))


async def test_a_wrong_move_shows_its_refutation_and_the_puzzle_can_be_retried_in_vietnamese(
    running_bot: BotHandle,
) -> None:
    only_puzzle(running_bot)
    double = running_bot.double
    an = double.add_member("an", locale="vi")
    assert "không có câu đố giải sai" in refusal(await an.slash("caro puzzle retry")).lower()
    message = (await an.slash("caro puzzle play")).message
    assert "X đi và thắng" in text_of(message)
    result = await typed(an, message, "A15", "Nhập nước đi")
    assert result.callback_type == 6
    await message.wait_for(lambda m: "A15 sai" in text_of(m), timeout=60)
    shown = text_of(message)
    assert "O đáp" in shown and "và thắng" in shown
    # The picture has a key in the member's language and numbers the refutation in order.
    found = re.search(r"và thắng \(([A-O0-9 ]+)\)", shown)
    assert found is not None
    line = [parse_cell(name, 15, 15) for name in found[1].split()]
    board = position(message, ["A15"])
    for cell in line:
        board.push(cell)
    refutation = [parse_cell("A15", 15, 15), *line]
    drawn = render_board(
        board, highlight=set(refutation), players=("Bạn (đi và thắng)", "Máy (phòng thủ)"),
        numbered=refutation,
    )
    assert files(message)["puzzle.png"] == drawn
    assert running_bot.db_rows("SELECT outcome, rated FROM puzzle_attempts") == [("failed", 1)]
    # A taken cell is refused privately.
    again = (await an.slash("caro puzzle retry")).message
    assert "lần nữa" in text_of(again)
    bad = await typed(an, again, "H8", "Nhập nước đi")
    assert "không phải là một ô trống" in refusal(bad)
    given = await an.click(again, "Chịu thua")
    assert given.callback_type == 7
    assert "Bạn đã chịu thua" in text_of(again) and "Không tính điểm" in text_of(again)


@both_drawings
async def test_the_daily_puzzle_is_the_same_for_two_members(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    first = (await alice.slash("caro puzzle daily")).message
    second = (await bob.slash("caro puzzle daily")).message
    assert "Puzzle of the day" in text_of(first)
    ((a, b),) = [tuple(r[0] for r in running_bot.db_rows(
        "SELECT puzzle_id FROM puzzle_attempts ORDER BY id"))]
    assert a == b
    assert running_bot.db_rows("SELECT COUNT(*) FROM puzzles WHERE guild_id IS NULL")[0][0] >= 20
    assert text_of(first).split("\n")[1] == text_of(second).split("\n")[1]
