"""A member's rating history in storage, on both backends, as /caro stats draws it: the rating
before their last games and after each, oldest first, all time and in a season; the season's
changes written in the transaction that moves the season rating, in the order they happened
even when games finish at once in two processes."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

from bot.game import ratings
from bot.game.model import EndReason, Finish, Mode, NewGame
from bot.game.ports import GLOBAL_SCOPE
from bot.game.ratings import AI_ANCHORS, START_RATING, updated
from bot.game.seasons import soft_reset
from engine import Mark
from engine.game.types import Level
from testkit.storage_backends import Backend

GUILD, OTHER_GUILD, CHANNEL, ALICE, BOB = 111, 999, 222, 333, 444
RATE = ratings.game_updates
HARD = AI_ANCHORS["hard"]


def ai_game(player: int = ALICE, *, guild: int = GUILD, channel: int = CHANNEL) -> NewGame:
    return NewGame(guild_id=guild, channel_id=channel, mode=Mode.AI, x=player, o=Level.HARD,
                   started_by=player, rows=3, cols=3, k=3, rule="freestyle", rated=True)


async def finish(store: Any, game_id: int, winner: Mark | None) -> None:
    reason = EndReason.RESIGN if winner is not None else EndReason.FULL
    assert await store.games.finish_game(game_id, Finish(winner=winner, reason=reason), rate=RATE)


async def play(store: Any, new: NewGame, winner: Mark | None) -> None:
    await finish(store, (await store.games.create_game(new)).id, winner)


async def season_name(backend: Backend) -> str:
    [(name,)] = await backend.fetch("SELECT DISTINCT season FROM season_standings")
    return str(name)


async def test_the_history_is_the_rating_before_the_last_games_and_after_each_oldest_first(
    backend: Backend,
) -> None:
    store = await backend.open()
    history = store.standings.rating_history
    assert await history(GUILD, ALICE, Mode.AI, limit=50) == []
    for winner in (Mark.X, Mark.O, None):  # a win, a loss and a draw against hard
        await play(store, ai_game(), winner)
    win = updated(START_RATING, HARD, "win")
    loss = updated(win, HARD, "loss")
    draw = updated(loss, HARD, "draw")
    assert await history(GUILD, ALICE, Mode.AI, limit=50) == [START_RATING, win, loss, draw]
    assert await history(GUILD, ALICE, Mode.AI, limit=2) == [win, loss, draw]
    # Every server's scope has the same games; another member, mode or server has none.
    assert await history(GLOBAL_SCOPE, ALICE, Mode.AI, limit=50) == [
        START_RATING, win, loss, draw,
    ]
    assert await history(GUILD, ALICE, Mode.PVP, limit=50) == []
    assert await history(GUILD, BOB, Mode.AI, limit=50) == []
    assert await history(OTHER_GUILD, ALICE, Mode.AI, limit=50) == []
    # In a member's first season, the season line is the all-time one.
    season = await season_name(backend)
    assert await history(GUILD, ALICE, Mode.AI, limit=50, season=season) == [
        START_RATING, win, loss, draw,
    ]
    assert await history(GUILD, ALICE, Mode.AI, limit=1, season=season) == [loss, draw]
    assert await history(GUILD, ALICE, Mode.AI, limit=50, season="2020-01") == []


async def test_the_all_time_history_follows_the_order_the_games_finished_in(
    backend: Backend,
) -> None:
    store = await backend.open()
    first = await store.games.create_game(ai_game())
    second = await store.games.create_game(ai_game(channel=CHANNEL + 1))
    await finish(store, second.id, Mark.X)
    await finish(store, first.id, Mark.O)
    won = updated(START_RATING, HARD, "win")
    assert await store.standings.rating_history(GUILD, ALICE, Mode.AI, limit=50) == [
        START_RATING, won, updated(won, HARD, "loss"),
    ]


async def test_a_season_line_starts_from_the_soft_reset_the_season_rating_got(
    backend: Backend,
) -> None:
    store = await backend.open()
    day: object = date(2026, 9, 1) if backend.name == "postgres" else "2026-09-01"
    await backend.execute(
        "INSERT INTO season_standings (guild_id, season, starts, user_id, mode, rating, wins)"
        " VALUES (?, '2026-09', ?, ?, 'ai', 1600.0, 7)",
        GUILD, day, ALICE,
    )
    await play(store, ai_game(), Mark.X)
    await play(store, ai_game(guild=OTHER_GUILD), Mark.X)  # another server's season
    start = soft_reset(START_RATING, 1600.0)
    season = (await store.standings.seasons(GUILD))[0].name
    assert await store.standings.rating_history(GUILD, ALICE, Mode.AI, limit=50, season=season) == [
        start, updated(start, HARD, "win"),
    ]
    # The all-time line never saw the reset; the past season, written before, has no line.
    assert (await store.standings.rating_history(GUILD, ALICE, Mode.AI, limit=50))[0] == (
        START_RATING
    )
    assert await store.standings.rating_history(GUILD, ALICE, Mode.AI, limit=50,
                                                season="2026-09") == []


async def test_a_season_history_of_games_finishing_at_once_in_two_processes_is_one_chain(
    backend: Backend,
) -> None:
    first, second = await backend.open(), await backend.open()  # two processes' views
    for n in range(4):
        a = await first.games.create_game(ai_game(channel=2 * n))
        b = await second.games.create_game(ai_game(channel=2 * n + 1))
        await asyncio.gather(finish(first, a.id, Mark.X), finish(second, b.id, Mark.O))
    season = await season_name(backend)
    line = await first.standings.rating_history(GUILD, ALICE, Mode.AI, limit=50, season=season)
    # Each game went on from the rating the one before it left: no change lost or reordered.
    changes = await backend.fetch(
        "SELECT before, after FROM season_rating_changes WHERE user_id = ? ORDER BY id", ALICE
    )
    assert len(changes) == 8 and line[0] == START_RATING
    assert all(a[1] == b[0] for a, b in zip(changes, changes[1:], strict=False))
    assert line == [changes[0][0], *(after for _, after in changes)]
    assert line[-1] == (await first.standings.season_leaderboard(
        GUILD, season, Mode.AI, min_games=0))[0].rating
