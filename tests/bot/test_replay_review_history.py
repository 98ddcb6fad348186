"""Finished games as records, through the Discord double and the real bot process: replays with
their stepper, export and import of the files, the AI review (a planted blunder found, a second
review answered from the cache) and /caro history's pages."""

from __future__ import annotations

import re

import pytest

from bot.ui.pictures import render_board
from engine import Board, Mark, Rule
from engine.records import Ending, read_record
from engine.solver import perfect_move
from testkit.boards import play_out, refusal
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.members import accepted_game
from testkit.replays import BACK, FIRST, GIF, LAST, NEXT, PNG, files, moves_in_db, posted, stepper

# Every scenario here draws replays, reviews or history pages: each runs with CARO_FAST_DRAWING
# on and off.
pytestmark = pytest.mark.usefixtures("fast_drawing")

# X builds H8-K8 against O's G8; O must take L8 at move 8 and plays A1 instead; X wins on L8.
MISSED_BLOCK = ["H8", "G8", "I8", "H9", "J8", "J9", "K8", "A1", "L8"]
# Both sides build an open three; O lets X in at move 6 (J9), X misses the win by an open four
# (G8 or K8) with A1 at move 7, and O wins from move 8 (K9, then G9).
MISSED_WIN = ["H8", "H9", "I8", "I9", "J8", "J9", "A1", "K9", "L9", "G9"]


async def test_replay_of_an_ai_game_steps_to_every_position_and_back(
    running_bot: BotHandle,
) -> None:
    alice = running_bot.double.add_member("alice")
    started = await alice.slash("caro start", difficulty="easy")
    await play_out(alice, started.message, perfect_move)
    moves = moves_in_db(running_bot, 1)
    total = len(moves)

    message = await posted(await alice.slash("caro replay"))
    shown = files(message)
    assert list(shown) == ["replay.gif"] and shown["replay.gif"].startswith(GIF)
    text = text_of(message)
    assert text.startswith("**Game #1: 3x3, 3 in a row, freestyle**")
    assert f"<@{alice.id}> (X) vs caro AI (easy) (O)" in text
    assert f"Move {total} of {total}: **{moves[-1]}**" in text
    assert stepper(message) == {FIRST: True, BACK: True, NEXT: False, LAST: False}

    assert (await alice.click(message, FIRST)).callback_type == 7
    assert f"The empty board ({total} moves in all)." in text_of(message)
    assert list(files(message)) == ["replay.png"] and files(message)["replay.png"].startswith(PNG)
    assert stepper(message) == {FIRST: False, BACK: False, NEXT: True, LAST: True}
    pictures = set()
    for ply in range(1, total + 1):  # forward through every position...
        assert (await alice.click(message, NEXT)).callback_type == 7
        mark = "X" if ply % 2 else "O"
        assert f"Move {ply} of {total}: **{moves[ply - 1]}** ({mark})." in text_of(message)
        pictures.add(files(message)["replay.png"])
    assert len(pictures) == total  # each position its own picture
    assert stepper(message)[NEXT] is False
    for ply in range(total - 1, -1, -1):  # ...and back to the empty board
        assert (await alice.click(message, BACK)).callback_type == 7
        expected = "The empty board" if ply == 0 else f"Move {ply} of {total}:"
        assert expected in text_of(message)
    await alice.click(message, LAST)
    assert f"Move {total} of {total}" in text_of(message)

    # A stepper id the message does not carry (a position the game does not have, another
    # game) is refused, and so is a click on the disabled Next at the end (a modified client
    # can send it): nothing changes.
    before = (text_of(message), message.edits)
    for forged in (f"caro:rs:1:{total + 1}:b", "caro:rs:2:0:n"):
        assert "belongs to another board" in refusal(await alice.click_custom_id(message, forged))
    disabled_next = await alice.click_custom_id(message, f"caro:rs:1:{total}:n")
    assert f"That position is not in this game (it has {total} moves)." == refusal(disabled_next)
    assert (text_of(message), message.edits) == before
    other = await alice.slash("caro start", difficulty="easy")
    assert other.callback_type == 4
    assert "still being played" in refusal(await alice.slash("caro replay", game=2))
    assert "no game #99" in refusal(await alice.slash("caro replay", game=99))


async def test_replay_of_a_game_between_members_exports_files_that_import_move_for_move(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    message = await accepted_game(alice, bob, first="me")
    for member, cell in [(alice, "A1"), (bob, "B1"), (alice, "A2"), (bob, "B2"), (alice, "A3")]:
        assert (await member.click(message, cell)).callback_type == 7
    assert "has no finished game" in refusal(await carol.slash("caro replay"))

    # Carol replays Bob's last game and asks for the files with it.
    replay = await posted(await carol.slash("caro replay", member=bob, export=True))
    attached = files(replay)
    assert sorted(attached) == ["caro-game-1.caro", "caro-game-1.psq", "replay.gif"]
    assert f"<@{alice.id}> (X) vs <@{bob.id}> (O)" in text_of(replay)
    assert f"**<@{alice.id}> (X) wins.**" in text_of(replay)
    own = read_record(attached["caro-game-1.caro"].decode())
    psq = read_record(attached["caro-game-1.psq"].decode(), k=3)
    expected = moves_in_db(running_bot, 1)
    for record in (own, psq):
        assert [record.board().move_name(c) for c in record.moves] == expected
        assert (record.x_name, record.o_name) == ("Alice", "Bob")
    assert own.spec == "3x3 k3 freestyle" and own.winner is Mark.X and own.ending is Ending.LINE

    # Stepping changes the picture and keeps the files.
    assert (await bob.click(replay, FIRST)).callback_type == 7
    assert sorted(files(replay)) == ["caro-game-1.caro", "caro-game-1.psq", "replay.png"]
    assert files(replay)["caro-game-1.psq"] == attached["caro-game-1.psq"]

    # The Export button gives the same files privately, to whoever clicks.
    # After a restart nobody's name is known: asked once per member, then remembered.
    await running_bot.restart()
    fetched = len([r for r in double.requests if "/members/" in r.path])
    for _ in range(2):
        await posted(await carol.slash("caro replay", game=1))
    assert len([r for r in double.requests if "/members/" in r.path]) == fetched + 2

    exported = await carol.click(replay, "Export")
    assert exported.callback_type == 4 and exported.ephemeral
    assert sorted(files(exported.message)) == ["caro-game-1.caro", "caro-game-1.psq"]
    assert files(exported.message)["caro-game-1.caro"] == attached["caro-game-1.caro"]


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


async def test_history_pages_with_ratings_and_replay_and_review_buttons(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    for n in range(6):  # six rated games, each resigned by Bob at once (challenges take turns:
        # one member may send only so many a minute)
        board = await (accepted_game(alice, bob) if n % 2 == 0 else accepted_game(bob, alice))
        assert (await bob.click(board, "Resign")).callback_type == 7

    history = await alice.slash("caro history", member=bob)
    assert history.callback_type == 4 and not history.ephemeral
    page = history.message
    text = text_of(page)
    assert text.startswith(f"Last games of <@{bob.id}> (page 1):")
    assert [f"#{n} **lost** vs <@{alice.id}> as " in text for n in (6, 5, 4, 3, 2)] == [True] * 5
    assert "#1 " not in text
    labels = [b["label"] for b in page.buttons]
    assert labels == [*(f"Replay #{n}" for n in (6, 5, 4, 3, 2)),
                      *(f"Review #{n}" for n in (6, 5, 4, 3, 2)), "Prev", "Next"]
    assert page.button("Prev")["disabled"] and not page.button("Next").get("disabled")

    assert (await bob.click(page, "Next")).callback_type == 7
    assert "(page 2)" in text_of(page) and "#1 **lost**" in text_of(page)
    assert "rating -16 → 1184" in text_of(page)
    assert page.button("Next")["disabled"] and not page.button("Prev").get("disabled")
    forged = await bob.click_custom_id(page, f"caro:hp:{bob.id}:7")
    assert "belongs to another board" in refusal(forged)
    assert (await bob.click(page, "Prev")).callback_type == 7
    assert "(page 1)" in text_of(page)

    replay = await posted(await bob.click(page, "Replay #6"))
    assert text_of(replay).startswith("**Game #6: 3x3")
    assert "the other side resigned" in text_of(replay)
    # A game resigned before any move: its review has nothing to find, and says so.
    asked = await alice.click(page, "Review #6")
    assert asked.callback_type == 5 and not asked.ephemeral
    reviewed = await asked.message.wait_for(lambda m: "No turning points" in m.content, timeout=30)
    assert reviewed.embeds == []


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


async def test_replay_and_history_speak_vietnamese(running_bot: BotHandle) -> None:
    double = running_bot.double
    an, bob = double.add_member("an", locale="vi"), double.add_member("bob")
    challenge = await an.slash("caro challenge", opponent=bob, first="me")
    message = challenge.message
    assert (await bob.click(message, "caro:ca:1")).callback_type == 7
    for member, cell in [(an, "A1"), (bob, "B1"), (an, "A2"), (bob, "B2"), (an, "A3")]:
        assert (await member.click(message, cell)).callback_type == 7
    assert message.button("caro:rv:1")["label"] == "Phân tích"  # the board's Review button

    replay = await posted(await an.slash("caro replay"))
    text = text_of(replay)
    assert text.startswith("**Ván #1: 3x3, 3 quân liên tiếp")
    assert f"**<@{an.id}> (X) thắng.**" in text and "Nước 5/5: **A3** (X)." in text
    assert "Xuất tệp" in [b["label"] for b in replay.buttons]
    history = await an.slash("caro history")
    assert text_of(history.message).startswith(f"Các ván gần đây của <@{an.id}> (trang 1):")
    assert "#1 **thắng** với " in text_of(history.message)
    assert "Không có ván #5" in refusal(await an.slash("caro replay", game=5))
