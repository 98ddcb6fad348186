"""The hints service (bot/game/hints.py) on a real database: hints only against easy and normal,
searched and counted once per ply."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.game.errors import UserError
from bot.game.model import MoveRef
from bot.game.options import parse_options
from engine import Board
from testkit.services import ALICE, CHANNEL, GUILD, start
from testkit.thinkers import Thinker


async def test_hints_only_against_easy_and_normal_and_are_counted(sqlite_world) -> None:
    svc, _ = sqlite_world
    state = await svc.games.start(guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE,
                              options=parse_options("normal", "4x4"), rng=random.Random(1))
    hint = await svc.hints.hint(state.id, 0, ALICE)
    assert Board(4, 4, 4).parse_move(hint.cell) is not None
    assert hint.reason in {"center", "near_center", "develop", "defend", "block", "threat", "fork", "win"}
    with pytest.raises(UserError, match="out of date"):
        await svc.hints.hint(state.id, 3, ALICE)
    again = await svc.games.state(state.id)
    assert again is not None and again.row.hints == 1
    hard = await svc.games.start(guild_id=GUILD, channel_id=CHANNEL + 1, player_id=ALICE,
                             options=parse_options("hard"), rng=random.Random(1))
    with pytest.raises(UserError, match="easy or normal"):
        await svc.hints.hint(hard.id, 0, ALICE)


async def test_a_hint_is_searched_and_counted_once_per_ply(world) -> None:
    svc, _ = world
    state = await start(svc, ALICE, size="4x4", level="normal")
    thinker = svc.moves._ai
    assert isinstance(thinker, Thinker)
    thinker.gate = asyncio.Event()
    asked = [asyncio.ensure_future(svc.hints.hint(state.id, 0, ALICE)) for _ in range(5)]
    await asyncio.sleep(0.05)
    thinker.gate.set()
    hints = await asyncio.gather(*asked)
    assert len({(h.cell, h.reason) for h in hints}) == 1
    assert await svc.hints.hint(state.id, 0, ALICE) == hints[0]  # asked again later: no new search
    hint_searches = [c for c in thinker.calls if c[1] == "hard"]
    assert len(hint_searches) == 1
    again = await svc.games.state(state.id)
    assert again is not None and again.row.hints == 1
    # The next ply gets its own hint, counted once more.
    moved = await svc.moves.play(MoveRef(state.id, 0, hints[0].cell), user_id=ALICE, message_id=None)
    answered = await svc.moves.ai_move(moved.id, member=ALICE)
    assert answered is not None
    await svc.hints.hint(state.id, 2, ALICE)
    later = await svc.games.state(state.id)
    assert later is not None and later.row.hints == 2
