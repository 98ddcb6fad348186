"""Board themes across the cogs, through the Discord double and the real bot process: the theme a
member picks with /caro settings colours the pictures and the buttons of the games they start from
the next drawing on, a public board keeps its starter's theme whoever clicks it, and a replay is
drawn in the theme of the member who asks for it."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from bot.i18n.texts import text_in
from bot.ui.pictures import THEMES
from engine.solve.solver import perfect_move
from testkit.boards import cells, play_out
from testkit.bot_process import BotHandle, text_of
from testkit.members import accepted_game
from testkit.replays import FIRST, files, posted

# The scenarios draw boards: each runs with CARO_FAST_DRAWING on and off.
pytestmark = pytest.mark.usefixtures("fast_drawing")

# Discord's button styles by number: primary (blurple), secondary, success (green), danger (red).
STYLE = {"primary": 1, "secondary": 2, "success": 3, "danger": 4}


def colours_of(data: bytes) -> set[tuple[int, int, int]]:
    """Every colour of a picture (of each frame of an animation)."""
    found: set[tuple[int, int, int]] = set()
    with Image.open(io.BytesIO(data)) as image:
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            rgb = image.convert("RGB")
            found |= {colour for _, colour in rgb.getcolors(maxcolors=1 << 20) or []}
    return found


def drawn_in(data: bytes, name: str) -> bool:
    """Whether a picture is in theme `name`: its board, grid and stones, and no other theme's
    board."""
    look = THEMES[name]
    colours = colours_of(data)
    others = {t.background for t in THEMES.values() if t.name != name}
    return {look.background, look.line, look.x_ink} <= colours and not others & colours


def picture(message: Any) -> bytes:
    return files(message)["board.png"]


def empty_cell(message: Any) -> str:
    """An empty cell of the window (labelled with its name)."""
    return next(b["label"] for b in cells(message) if b["label"] not in ("X", "O", "[X]", "[O]"))


def styles(message: Any) -> dict[str, set[int]]:
    """The styles of the window's cells, by label."""
    found: dict[str, set[int]] = {}
    for button in cells(message):
        found.setdefault(button["label"], set()).add(button["style"])
    return found


async def test_a_members_theme_colours_their_board_from_the_next_drawing(
    running_bot: BotHandle,
) -> None:
    alice = running_bot.double.add_member("alice")
    await alice.slash("caro settings", theme="paper")
    start = await alice.slash("caro start", size="15x15", difficulty="easy", first="me")
    message = start.message
    await alice.click(message, "H8")
    message = await message.wait_for(lambda m: "Moves played: 2." in text_of(m), timeout=30)
    assert drawn_in(picture(message), "paper")
    # Paper's X is red and its O blue, on the picture and on the buttons alike; the last move
    # (the AI's O, which the window shows) is green, as the picture shades it.
    shown = styles(message)
    assert shown.get("X", {STYLE["danger"]}) == {STYLE["danger"]}
    assert STYLE["success"] in shown["O"] and shown["O"] <= {STYLE["primary"], STYLE["success"]}
    assert text_in("en-US", "theme.key.paper") in text_of(message)

    # A new theme shows from the next drawing of the same game.
    await alice.slash("caro settings", theme="contrast")
    await alice.click(message, empty_cell(message))
    message = await message.wait_for(lambda m: "Moves played: 4." in text_of(m), timeout=30)
    assert drawn_in(picture(message), "contrast")
    shown = styles(message)
    # No green beside red: the AI's last move keeps O's colour and is bracketed.
    assert shown["[O]"] == {STYLE["danger"]}
    assert shown.get("X", {STYLE["primary"]}) == {STYLE["primary"]}
    assert not any(STYLE["success"] in found for found in shown.values())
    assert text_in("en-US", "theme.key.contrast") in text_of(message)
    assert text_in("en-US", "theme.key.paper") not in text_of(message)
    assert running_bot.double.violations == []


async def test_a_public_board_keeps_its_starters_theme_whoever_clicks(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    await alice.slash("caro settings", theme="night")
    await bob.slash("caro settings", theme="paper")
    message = await accepted_game(alice, bob, size="15x15", first="me")
    assert drawn_in(picture(message), "night")
    await alice.click(message, "H8")
    await bob.click(message, "I9")
    assert "Moves played: 2." in text_of(message)
    assert drawn_in(picture(message), "night")  # Bob's move, Alice's game: her theme
    assert text_in("en-US", "theme.key.night") in text_of(message)
    # A member who never chose one starts games in the default theme.
    carol = double.add_member("carol")
    started = (await carol.slash("caro start", size="15x15", difficulty="easy")).message
    assert drawn_in(picture(started), "wood")


async def test_a_replay_is_drawn_in_the_theme_of_the_member_who_asks(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    await alice.slash("caro settings", theme="paper")
    started = await alice.slash("caro start", difficulty="easy")
    await play_out(alice, started.message, perfect_move)
    await bob.slash("caro settings", theme="night")
    mine = await posted(await alice.slash("caro replay", game=1))
    theirs = await posted(await bob.slash("caro replay", game=1))
    assert drawn_in(files(mine)["replay.gif"], "paper")
    assert drawn_in(files(theirs)["replay.gif"], "night")
    # A step is a picture asked for by whoever clicks it.
    await alice.click(theirs, FIRST)
    assert drawn_in(files(theirs)["replay.png"], "paper")
    assert double.violations == []
