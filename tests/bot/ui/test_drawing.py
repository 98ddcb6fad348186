"""CARO_FAST_DRAWING on and off send the same thing: a board, a challenge, a replay's stepper and
a history page drawn the fast way (payloads handed to discord.py as they are) and the plain way
(discord.ui items) make the same components JSON in what discord.py sends, both as a message and
as an interaction response. Plain drawings are real discord.ui items, and neither way is kept by
discord.py after sending."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import discord
import pytest

import bot.cogs  # noqa: F401  (the feature cogs register the buttons the drawing makes)
from bot.game.levels import NO_ENGINE
from bot.game.model import (
    ChallengeFirst,
    ChallengeRow,
    ChallengeStatus,
    GameState,
    Result,
    load_state,
)
from bot.game.records import HistoryEntry, HistoryPage
from bot.ui import drawing
from bot.ui.record_views import history_view, replay_view, translator
from bot.ui.render import challenge_view, game_view
from engine import Mark
from testkit.bot_process import StartBot
from testkit.replays import FIRST, posted
from testkit.states import big_game, game

WIN = [("A1", False, None), ("A2", True, "develop"), ("B1", False, None),
       ("B2", True, "center"), ("C1", False, None)]


def challenge(status: str = "pending") -> ChallengeRow:
    return ChallengeRow(
        id=4, guild_id=1, channel_id=2, message_id=5, challenger_id=42, opponent_id=43, rows=15,
        cols=15, k=5, rule="caro", first=ChallengeFirst.ME, locale="en-US",
        status=ChallengeStatus(status), deadline=2e9, game_id=None,
    )


def history() -> HistoryPage:
    won = game(WIN, status="finished", result="win")
    lost = load_state(replace(won.row, id=8))
    entries = (HistoryEntry(won, Mark.X, Result.WIN, None),
               HistoryEntry(lost, Mark.X, Result.WIN, None))
    return HistoryPage(user_id=42, page=1, entries=entries, has_next=True)


def drawn_board(state: GameState, layout: bool = False) -> discord.ui.View | discord.ui.LayoutView:
    return game_view(state, layout=layout, external=NO_ENGINE)


DRAWINGS: dict[str, Callable[[], discord.ui.View | discord.ui.LayoutView]] = {
    "3x3 board": lambda: drawn_board(game([("B2", False, None), ("A1", True, "develop")])),
    "won 3x3 board": lambda: drawn_board(game(WIN, status="finished", result="win")),
    "5x5 layout": lambda: drawn_board(game([("C3", False, None)], size=5, k=4)),
    "15x15 picture board": lambda: drawn_board(big_game(["H8", "A1"])),
    "finished 15x15": lambda: drawn_board(big_game(["H8", "A1"], status="finished")),
    "3x3 as a layout": lambda: drawn_board(game([]), layout=True),
    "challenge": lambda: challenge_view(challenge()),
    "answered challenge": lambda: challenge_view(challenge("declined")),
    "replay at the start": lambda: replay_view(
        game(WIN, status="finished", result="win"), 0, translator("en-US")),
    "replay midway": lambda: replay_view(
        game(WIN, status="finished", result="win"), 3, translator("vi")),
    "history page": lambda: history_view(history(), translator("en-US")),
}


@pytest.fixture
def restore_drawing() -> Iterator[None]:
    before = drawing.fast()
    try:
        yield
    finally:
        drawing.use_fast(before)


def sent(view: discord.ui.View | discord.ui.LayoutView) -> list[dict[str, Any]]:
    """What discord.py sends for this view: as a message (send, edit) and as the response to a
    click that edits the clicked message."""
    with discord.http.handle_message_parameters(content="x", view=view) as message:
        as_message = message.payload
    response = discord.webhook.async_.interaction_message_response_params(type=7, view=view)
    return [as_message, response.payload]


@pytest.mark.usefixtures("restore_drawing")
@pytest.mark.parametrize("name", list(DRAWINGS))
async def test_the_fast_and_the_plain_drawing_send_the_same_components(name: str) -> None:
    made: dict[bool, discord.ui.View | discord.ui.LayoutView] = {}
    for fast in (True, False):
        drawing.use_fast(fast)
        made[fast] = DRAWINGS[name]()
    fast_view, plain_view = made[True], made[False]
    assert sent(plain_view) == sent(fast_view)
    assert plain_view.to_components() == fast_view.to_components()
    assert type(plain_view) in (discord.ui.View, discord.ui.LayoutView)
    assert isinstance(plain_view, discord.ui.LayoutView) == isinstance(
        fast_view, discord.ui.LayoutView)
    # The plain drawing is made of discord.ui items, its buttons carrying the custom_ids.
    items = list(plain_view.walk_children())
    buttons = [i for i in items if isinstance(i, discord.ui.Button)]
    ids = [c["custom_id"] for c in _buttons(fast_view.to_components())]
    assert [b.custom_id for b in buttons] == ids
    assert all(isinstance(i, (discord.ui.Button, discord.ui.ActionRow, discord.ui.TextDisplay,
                              discord.ui.MediaGallery)) for i in items)
    # Made inside the event loop, as the bot makes them: stopped, so discord.py keeps neither.
    assert fast_view.is_finished() and plain_view.is_finished()


def _buttons(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for component in components:
        if component["type"] == 2:
            found.append(component)
        found += _buttons(component.get("components", []))
    return found


def test_the_wiring_chooses_the_way_once_from_the_setting(restore_drawing: None) -> None:
    """CaroBot picks the drawing from CARO_FAST_DRAWING and installs the lazy responses only
    when it is on."""
    from bot.runtime.client import CaroBot
    from bot.runtime.config import load_settings

    original = discord.interactions.InteractionCallbackResponse
    try:
        CaroBot(load_settings({"DISCORD_TOKEN": "t", "CARO_FAST_DRAWING": "0"}))
        assert not drawing.fast()
        assert discord.interactions.InteractionCallbackResponse is original
        CaroBot(load_settings({"DISCORD_TOKEN": "t"}))
        assert drawing.fast()
        assert discord.interactions.InteractionCallbackResponse is not original
    finally:
        discord.interactions.InteractionCallbackResponse = original  # type: ignore[misc]



async def test_the_bot_sends_the_same_components_with_the_setting_on_and_off(
    start_bot: StartBot,
) -> None:
    """The same scenario against a bot with CARO_FAST_DRAWING=1 and one with 0: the challenge,
    the board as it is played, the replay and its stepper, a history page and a 5x5 layout reach
    Discord as the same components JSON (members' ids, which the double makes afresh, and the
    clock's deadline aside)."""
    shown: dict[str, list[str]] = {}
    for setting in ("1", "0"):
        bot = await start_bot(CARO_FAST_DRAWING=setting)
        alice, bob = bot.double.add_member("alice"), bot.double.add_member("bob")
        seen: list[str] = []

        def keep(message: Any, *, seen: list[str] = seen, ids: Any = (alice.id, bob.id)) -> None:
            text = json.dumps(message.payload.get("components"), sort_keys=True)
            for number, member_id in enumerate(ids):
                text = text.replace(str(member_id), f"<member {number}>")
            # A layout's text carries the turn clock, a moment that differs from run to run.
            seen.append(re.sub(r"<t:[0-9]+:R>", "<t:deadline:R>", text))

        challenge = await alice.slash("caro challenge", opponent=bob, first="me")
        keep(challenge.message)
        assert (await bob.click(challenge.message, "Accept")).callback_type == 7
        board = challenge.message
        keep(board)
        for member, cell in [(alice, "A1"), (bob, "B1"), (alice, "A2"), (bob, "B2"),
                             (alice, "A3")]:
            assert (await member.click(board, cell)).callback_type == 7
            keep(board)
        replay = await posted(await alice.slash("caro replay"))
        keep(replay)
        assert (await bob.click(replay, FIRST)).callback_type == 7
        keep(replay)
        history = await alice.slash("caro history", member=bob)
        keep(history.message)
        big = await bob.slash("caro challenge", opponent=alice, first="me", size="5x5")
        assert (await alice.click(big.message, "Accept")).callback_type == 7
        keep(big.message)
        assert (await bob.click(big.message, "C3")).callback_type == 7
        keep(big.message)
        shown[setting] = seen
        await bot.stop()
    assert shown["0"] == shown["1"]
    assert len(shown["1"]) == 12 and all(json.loads(s) for s in shown["1"])
    assert json.loads(shown["1"][-1])[0]["type"] == 10  # the 5x5 board: a layout, text on top
