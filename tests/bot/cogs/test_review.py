"""`/caro review` (bot/cogs/review.py), through the Discord double and the real bot process: the AI
review of a finished game finds a planted blunder (a missed block, a missed forced win), and a
second review is answered from the cache."""

from __future__ import annotations

import re

import pytest

from bot.ui.pictures import render_board
from engine import Board, Rule
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.members import accepted_game
from testkit.replays import PNG, files

# Every scenario here draws reviews: each runs with CARO_FAST_DRAWING on and off.
pytestmark = pytest.mark.usefixtures("fast_drawing")

# X builds H8-K8 against O's G8; O must take L8 at move 8 and plays A1 instead; X wins on L8.
MISSED_BLOCK = ["H8", "G8", "I8", "H9", "J8", "J9", "K8", "A1", "L8"]
# Both sides build an open three; O lets X in at move 6 (J9), X misses the win by an open four
# (G8 or K8) with A1 at move 7, and O wins from move 8 (K9, then G9).
MISSED_WIN = ["H8", "H9", "I8", "I9", "J8", "J9", "A1", "K9", "L9", "G9"]


async def test_review_finds_the_missed_block_then_answers_from_the_cache(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    double = bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    message = await accepted_game(alice, bob, first="me", size="15x15", rule="freestyle")
    for ply, cell in enumerate(MISSED_BLOCK):
        member = alice if ply % 2 == 0 else bob
        form = await member.click(message, "Type a move")
        typed = await member.submit_modal(message, form.modal["custom_id"], {"cell": cell})
        assert typed.callback_type == 7, typed
    assert f"**<@{alice.id}> wins!**" in text_of(message)
    # Issue 14: the big board's picture has a legend naming whose stones are X and O.
    board = Board(15, 15, 5, Rule.FREESTYLE)
    for cell in MISSED_BLOCK:
        board.push_name(cell)
    outcome = board.outcome()
    assert outcome is not None
    legend = render_board(board, highlight=outcome.line, players=("Alice", "Bob"))
    assert files(message)["board.png"] == legend
    assert legend != render_board(board, highlight=outcome.line)
    # The names came from the players' own interactions, not from asking Discord.
    assert [r.path for r in double.requests if "/members/" in r.path] == []

    asked = await bob.slash("caro review")
    assert asked.callback_type == 5 and not asked.ephemeral  # "thinking", then the progress
    review = await asked.message.wait_for(lambda m: "Turning points" in m.content, timeout=60)
    assert review.edits >= 2  # the progress was shown before the answer
    assert re.search(r"Bob \(O\), 4 moves: accuracy \d+%; .* blunders [1-9]\.", review.content)
    assert re.search(r"Alice \(X\), 5 moves: accuracy \d+%; .* blunders 0\.", review.content)
    assert "Turning points: 1." in review.content
    [point] = review.embeds
    assert point["title"] == "Move 8, Bob (O): the losing move"
    fields = {f["name"]: f["value"] for f in point["fields"]}
    assert fields["Played"] == "A1" and fields["Better"] == "L8"
    assert fields["The line"].startswith("8. L8 9. ")
    assert point["image"]["url"].endswith("turn-8.png")
    assert files(review)["turn-8.png"].startswith(PNG)
    assert bot.db_rows("SELECT game_id, node_limit FROM reviews") == [(1, 5000)]

    # The board's Review button, clicked by anyone: the same review, from the cache.
    again = await double.add_member("carol").click(message, "Review")
    assert again.callback_type == 5
    cached = await again.message.wait_for(lambda m: "Turning points" in m.content, timeout=10)
    assert cached.embeds == review.embeds
    log = bot.log_text()
    assert log.count("game 1: reviewed 9 moves") == 1
    assert log.count("game 1: review answered from the cache") == 1


async def test_review_names_the_winning_move_of_a_missed_forced_win(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    message = await accepted_game(alice, bob, first="me", size="15x15", rule="freestyle")
    for ply, cell in enumerate(MISSED_WIN):
        member = alice if ply % 2 == 0 else bob
        form = await member.click(message, "Type a move")
        typed = await member.submit_modal(message, form.modal["custom_id"], {"cell": cell})
        assert typed.callback_type == 7, typed
    assert f"**<@{bob.id}> wins!**" in text_of(message)

    asked = await alice.click(message, "Review")
    review = await asked.message.wait_for(lambda m: "Turning points" in m.content, timeout=60)
    points = {e["title"]: {f["name"]: f["value"] for f in e.get("fields", [])}
              for e in review.embeds}
    missed = points["Move 7, Alice (X): missed a forced win"]
    assert missed["Played"] == "A1" and missed["Better"] in ("G8", "K8")
    assert missed["The line"].startswith(f"7. {missed['Better']} 8. ")
    began = points["Move 8, Bob (O): the forced win begins"]
    assert began == {"Played": "K9", "The forced win": "8. K9 9. L9 10. G9"}
    assert "Move 6, Bob (O): the losing move" in points
