"""`/caro replay` (bot/cogs/replay.py), through the Discord double and the real bot process: replays
of finished games with their stepper, export and import of the record files, and a replay and
history pages in Vietnamese."""

from __future__ import annotations

import pytest

from engine import Mark
from engine.game.records import Ending, read_record
from engine.solve.solver import perfect_move
from testkit.boards import play_out, refusal
from testkit.bot_process import BotHandle, text_of
from testkit.members import accepted_game
from testkit.replays import BACK, FIRST, GIF, LAST, NEXT, PNG, files, moves_in_db, posted, stepper

# Every scenario here draws replays or history pages: each runs with CARO_FAST_DRAWING
# on and off.
pytestmark = pytest.mark.usefixtures("fast_drawing")


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
    # The AI named once, its mark inside its brackets.
    assert f"<@{alice.id}> (X) vs caro AI (easy, O)" in text
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


async def test_a_vietnamese_replay_names_the_ai_as_its_board_did(running_bot: BotHandle) -> None:
    an = running_bot.double.add_member("an", locale="vi")
    started = await an.slash("caro start", difficulty="easy")
    assert f"<@{an.id}> (X) đấu với máy (O, dễ)" in str(text_of(started))
    assert (await an.slash("caro resign")).ephemeral
    text = text_of(await posted(await an.slash("caro replay")))
    assert f"<@{an.id}> (X) đấu Máy dễ (O)" in text
    assert "AI" not in text
