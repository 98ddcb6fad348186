"""Opening rules on Discord (bot/cogs/openings.py and the cell clicks of bot/cogs/play.py),
through the double and the real bot process: swap2 between members to a rated end, swap2 and
RIF against the AI deciding its own steps, an opening resumed across a restart, the wrong member
and an old board refused privately, and an opening the board cannot have refused."""

from __future__ import annotations

from typing import Any

from testkit.boards import refusal
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.members import accepted_game
from testkit.replays import posted


async def typed(member: Any, message: Any, cell: str) -> Any:
    """`member` plays `cell` through the board's "type a move" form (a 15x15 board shows a
    window of its cells only)."""
    form = await member.click(message, "Type a move")
    assert form.modal is not None, form
    return await member.submit_modal(message, form.modal["custom_id"], {"cell": cell})


def labels(message: Any) -> list[str]:
    return [str(button.get("label")) for button in message.buttons]


def custom_id(message: Any, label: str) -> str:
    return str(message.button(label)["custom_id"])


async def test_swap2_between_members_step_by_step_to_a_rated_end(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    message = await accepted_game(alice, bob, size="15x15", first="me", opening="swap2")
    assert f"Opening (swap2): <@{alice.id}> places stone 1 of 3 — X." in text_of(message)
    assert "Take X" not in labels(message)
    await typed(alice, message, "H8")
    assert f"Opening (swap2): <@{alice.id}> places stone 2 of 3 — O." in text_of(message)
    assert f"It is <@{alice.id}>'s turn" in refusal(await bob.click(message, "Type a move"))
    await typed(alice, message, "H9")
    await typed(alice, message, "I8")
    assert (
        f"Opening (swap2): <@{bob.id}>: take X, take O or place two more." in text_of(message)
    )
    assert {"Take X", "Take O", "Place two more"} <= set(labels(message))
    take_x = custom_id(message, "Take X")
    # Only Bob decides here; a cell means nothing now.
    assert f"It is <@{bob.id}>'s turn" in refusal(await alice.click(message, "Take X"))
    assert "not your game" in refusal(await carol.click(message, "Take O"))
    # The cells are locked meanwhile; a cell's id sent all the same is refused.
    assert "use the buttons" in refusal(await bob.click_custom_id(message, "caro:m:1:3:A1"))
    assert (await bob.click(message, "Place two more")).callback_type == 7
    assert f"<@{bob.id}> places stone 4 of 5 — O." in text_of(message)
    # The choice drawn on the board before it was made: out of date.
    assert "out of date" in refusal(await bob.click_custom_id(message, take_x))
    await typed(bob, message, "G7")
    await typed(bob, message, "A15")
    assert f"Opening (swap2): <@{alice.id}>: take X or take O." in text_of(message)
    assert (await alice.click(message, "Take O")).callback_type == 7
    # Alice took O: Bob plays X from here, and the board says so.
    text = text_of(message)
    assert f"<@{bob.id}> (X) vs <@{alice.id}> (O)" in text
    assert f"Opening: swap2 (<@{bob.id}> placed two more; <@{alice.id}> took O)." in text
    assert f"<@{alice.id}> to move (O)." in text
    assert running_bot.db_rows("SELECT x_user_id, o_user_id, decisions FROM games") == [
        (int(bob.id), int(alice.id), "place_two take_o")
    ]
    # Bob (X: H8, I8) makes five on row 8.
    for member, cell in [(alice, "A1"), (bob, "J8"), (alice, "A2"), (bob, "K8"), (alice, "A3")]:
        assert (await typed(member, message, cell)).callback_type == 7
    await typed(bob, message, "G8")
    assert f"**<@{bob.id}> wins!**" in text_of(message)
    assert f"Rating <@{bob.id}>: 1200 -> 1216." in text_of(message)
    assert running_bot.db_rows("SELECT winner, end_reason FROM games") == [("X", "line")]
    # The opening's stones are ordinary moves: the replay shows them, and names the opening.
    replay = await posted(await alice.slash("caro replay"))
    assert (
        f"Opening: swap2 (<@{bob.id}> placed two more; <@{alice.id}> took O)." in text_of(replay)
    )
    assert double.violations == []


async def test_swap2_against_the_ai_which_takes_its_own_decision(running_bot: BotHandle) -> None:
    alice = running_bot.double.add_member("alice")
    game = await alice.slash(
        "caro start", size="15x15", difficulty="easy", opening="swap2", first="me"
    )
    message = game.message
    assert f"Opening (swap2): <@{alice.id}> places stone 1 of 3 — X." in text_of(message)
    for cell in ("H8", "H9", "I8"):
        assert (await typed(alice, message, cell)).callback_type == 7
    # The AI decides (its evaluation), then it is Alice's turn: a move, or her colour choice.
    await message.wait_for(
        lambda m: "thinking" not in text_of(m)
        and (f"<@{alice.id}>: take X or take O." in text_of(m) or "Your turn" in text_of(m)),
        timeout=30,
    )
    [(decisions,)] = running_bot.db_rows("SELECT decisions FROM games")
    assert decisions.split()[0] in ("take_x", "take_o", "place_two")
    assert "Opening: swap2 (" in text_of(message)
    assert running_bot.double.violations == []


async def test_rif_against_the_ai_offers_two_places_and_the_member_picks_one(
    running_bot: BotHandle,
) -> None:
    alice = running_bot.double.add_member("alice")
    refused = await alice.slash("caro start", size="15x15", rule="caro", opening="rif")
    assert "renju on 15x15" in refusal(refused)
    # RIF alone brings renju and its board; the AI goes first and places the opening.
    game = await alice.slash("caro start", difficulty="easy", opening="rif", first="ai")
    message = game.message
    await message.wait_for(lambda m: "take X or take O" in text_of(m), timeout=30)
    assert "15x15, 5 in a row, renju" in text_of(message)
    await alice.click(message, "Take O")
    await message.wait_for(lambda m: f"<@{alice.id}> places stone 4 of 4 — O." in text_of(m))
    await typed(alice, message, "A1")
    await message.wait_for(
        lambda m: f"<@{alice.id}> picks one of the offered places" in text_of(m), timeout=30
    )
    line = next(
        line for line in text_of(message).splitlines() if "picks one of the offered" in line
    )
    offered = line.rsplit(": ", 1)[1].rstrip(".").split(", ")
    assert len(offered) == 2
    assert refusal(await typed(alice, message, "O15")) == (
        f"Pick one of the offered places: {', '.join(offered)}."
    )
    assert (await typed(alice, message, offered[0])).callback_type == 7
    await message.wait_for(lambda m: "Your turn (O)." in text_of(m))
    assert running_bot.db_rows("SELECT ply FROM games") == [(5,)]
    assert running_bot.double.violations == []


async def test_an_opening_resumes_after_a_restart(start_bot: StartBot) -> None:
    bot = await start_bot()
    double = bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    message = await accepted_game(alice, bob, size="15x15", first="me", opening="swap")
    await typed(alice, message, "H8")
    await typed(alice, message, "H9")
    await bot.restart()
    await typed(alice, message, "J8")
    assert f"Opening (swap): <@{bob.id}>: take X or take O." in text_of(message)
    await bot.restart(kill=True)
    assert (await bob.click(message, "Take X")).callback_type == 7
    assert f"<@{alice.id}> (O)" in text_of(message)
    assert f"<@{alice.id}> to move (O)." in text_of(message)
    assert bot.db_rows("SELECT ply, decisions FROM games") == [(3, "take_x")]
    assert double.violations == []
