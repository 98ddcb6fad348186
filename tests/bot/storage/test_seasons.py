"""Rating seasons in storage, on both backends: a finished rated game moves the member's rating
in its server's season in the transaction that moves the all-time one, once however many
writers race it; a first game of a season starts from the soft reset of the last one; past
seasons stay as they ended when the server changes its season length."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime
from typing import Any

from bot.game import ratings
from bot.game.model import EndReason, Finish, GuildSettings, Mode, NewGame, RatedRow, Record
from bot.game.ports import GLOBAL_SCOPE
from bot.game.ratings import AI_ANCHORS, START_RATING, updated
from bot.game.seasons import Season, SeasonLength, season_of, soft_reset
from engine import Mark
from engine.game.types import Level
from testkit.storage_backends import Backend

GUILD, OTHER_GUILD, CHANNEL, ALICE, BOB = 111, 999, 222, 333, 444
RATE = ratings.game_updates
SETTINGS = GuildSettings(pvp_timeout=600.0, ai_timeout=600.0)


def ai_game(player: int = ALICE, *, guild: int = GUILD, channel: int = CHANNEL) -> NewGame:
    return NewGame(guild_id=guild, channel_id=channel, mode=Mode.AI, x=player, o=Level.HARD,
                   started_by=player, rows=3, cols=3, k=3, rule="freestyle", rated=True)


def pvp_game(x: int, o: int, *, channel: int = CHANNEL) -> NewGame:
    return NewGame(guild_id=GUILD, channel_id=channel, mode=Mode.PVP, x=x, o=o, started_by=x,
                   rows=3, cols=3, k=3, rule="freestyle", rated=True)


async def win(store: Any, new: NewGame, winner: Mark | None = Mark.X) -> None:
    game = await store.games.create_game(new)
    assert await store.games.finish_game(game.id, Finish(winner=winner, reason=EndReason.RESIGN),
                                         rate=RATE)


async def this_season(store: Any, length: SeasonLength = SeasonLength.MONTHLY) -> Season:
    """The season games finished now count in (the only one with rows, in these tests)."""
    seasons = await store.standings.seasons(GUILD)
    now = season_of(length, datetime.now(UTC))
    assert now is not None and seasons and seasons[0].name == now.name
    return seasons[0]


async def past_season(backend: Backend, name: str, starts: date, user: int, rating: float,
                      wins: int, mode: Mode = Mode.AI) -> None:
    """Standings a member left in an earlier season, as the game that finished then wrote them."""
    day: object = starts if backend.name == "postgres" else starts.isoformat()
    await backend.execute(
        "INSERT INTO season_standings (guild_id, season, starts, user_id, mode, rating, wins)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        GUILD, name, day, user, mode.value, rating, wins,
    )


async def test_a_rated_game_moves_the_season_rating_with_the_all_time_one(
    backend: Backend,
) -> None:
    store = await backend.open()
    await win(store, ai_game())
    season = await this_season(store)
    after = updated(START_RATING, AI_ANCHORS["hard"], "win")
    board = await store.standings.season_leaderboard(GUILD, season.name, Mode.AI, min_games=0)
    assert board == [RatedRow(1, ALICE, after, Record(wins=1))]
    assert (await store.standings.standing(GUILD, ALICE, Mode.AI)).rating == after
    # Seasons belong to a server: another server's has nothing, nor does the global scope.
    assert await store.standings.seasons(OTHER_GUILD) == []
    assert await store.standings.seasons(GLOBAL_SCOPE) == []
    # The game's rating changes are the all-time ones, as before seasons.
    assert {c.scope for c in await store.standings.rating_changes(1)} == {GUILD, GLOBAL_SCOPE}
    assert await store.standings.season_leaderboard(GUILD, season.name, Mode.AI,
                                                    min_games=2) == []


async def test_a_first_game_of_a_season_starts_from_the_soft_reset_of_the_last_one(
    backend: Backend,
) -> None:
    store = await backend.open()
    # Alice ended September at 1600 and played no October game; Bob never played a season.
    await past_season(backend, "2026-08", date(2026, 8, 1), ALICE, 1000.0, 5)
    await past_season(backend, "2026-09", date(2026, 9, 1), ALICE, 1600.0, 7)
    await win(store, ai_game())
    await win(store, ai_game(BOB, channel=CHANNEL + 1))
    season = await this_season(store)
    board = await store.standings.season_leaderboard(GUILD, season.name, Mode.AI, min_games=0)
    start = soft_reset(START_RATING, 1600.0)
    assert start == 1400.0
    assert [(r.user_id, r.rating, r.record) for r in board] == [
        (ALICE, updated(start, AI_ANCHORS["hard"], "win"), Record(wins=1)),
        (BOB, updated(START_RATING, AI_ANCHORS["hard"], "win"), Record(wins=1)),
    ]
    # The second game of the season goes on from the first; the all-time rating never saw
    # the reset.
    await win(store, ai_game(), winner=Mark.O)
    board = await store.standings.season_leaderboard(GUILD, season.name, Mode.AI, min_games=0)
    first = updated(start, AI_ANCHORS["hard"], "win")
    assert (board[0].user_id, board[0].record) == (ALICE, Record(wins=1, losses=1))
    assert board[0].rating == updated(first, AI_ANCHORS["hard"], "loss")
    all_time = updated(updated(START_RATING, AI_ANCHORS["hard"], "win"), AI_ANCHORS["hard"], "loss")
    assert (await store.standings.standing(GUILD, ALICE, Mode.AI)).rating == all_time
    # The past seasons' final standings are untouched, newest first.
    assert [s.name for s in await store.standings.seasons(GUILD)] == [
        season.name, "2026-09", "2026-08",
    ]
    september = await store.standings.season_leaderboard(GUILD, "2026-09", Mode.AI, min_games=0)
    assert september == [RatedRow(1, ALICE, 1600.0, Record(wins=7))]


async def test_changing_the_season_length_starts_the_new_scheme_and_keeps_past_seasons(
    backend: Backend,
) -> None:
    store = await backend.open()
    await win(store, ai_game())
    month = await this_season(store)
    await store.settings.save_guild_settings(
        GUILD, GuildSettings(600.0, 600.0, season_length=SeasonLength.QUARTERLY)
    )
    assert (await store.settings.guild_settings(GUILD, SETTINGS)).season_length == "quarterly"
    await win(store, ai_game())
    quarter = season_of(SeasonLength.QUARTERLY, datetime.now(UTC))
    assert quarter is not None
    names = {s.name for s in await store.standings.seasons(GUILD)}
    assert names == {month.name, quarter.name}
    # The month keeps its one game; the quarter started from the month's rating, soft reset.
    in_month = await store.standings.season_leaderboard(GUILD, month.name, Mode.AI, min_games=0)
    assert [r.record for r in in_month] == [Record(wins=1)]
    in_quarter = await store.standings.season_leaderboard(GUILD, quarter.name, Mode.AI,
                                                          min_games=0)
    assert in_quarter[0].rating == updated(soft_reset(START_RATING, in_month[0].rating),
                                           AI_ANCHORS["hard"], "win")
    # Seasons off: no season moves, the all-time rating does.
    await store.settings.save_guild_settings(
        GUILD, GuildSettings(600.0, 600.0, season_length=SeasonLength.OFF)
    )
    before = await backend.fetch("SELECT season, wins FROM season_standings ORDER BY season")
    await win(store, ai_game())
    assert await backend.fetch("SELECT season, wins FROM season_standings ORDER BY season") == before
    assert (await store.standings.standing(GUILD, ALICE, Mode.AI)).record == Record(wins=3)


async def test_racing_finishes_of_one_game_count_it_once_in_the_season(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()  # two processes' views
    game = await first.games.create_game(pvp_game(ALICE, BOB))
    finish = Finish(winner=Mark.X, reason=EndReason.RESIGN)
    attempts = [store.games.finish_game(game.id, finish, rate=RATE)
                for store in (first, second) for _ in range(5)]
    outcomes = await asyncio.gather(*attempts)
    assert sum(o is not None for o in outcomes) == 1
    season = await this_season(second)
    board = await second.standings.season_leaderboard(GUILD, season.name, Mode.PVP, min_games=0)
    assert [(r.user_id, r.record) for r in board] == [
        (ALICE, Record(wins=1)), (BOB, Record(losses=1)),
    ]
    # Finishing it again later changes nothing either.
    assert await first.games.finish_game(game.id, finish, rate=RATE) is None
    assert await second.standings.season_leaderboard(GUILD, season.name, Mode.PVP,
                                                     min_games=0) == board


async def test_games_of_one_member_finishing_at_once_in_two_processes_all_land_in_the_season(
    backend: Backend,
) -> None:
    first, second = await backend.open(), await backend.open()
    await past_season(backend, "2026-09", date(2026, 9, 1), ALICE, 1600.0, 7)
    for n in range(4):
        a = await first.games.create_game(ai_game(channel=2 * n))
        b = await second.games.create_game(ai_game(channel=2 * n + 1))
        done = await asyncio.gather(
            first.games.finish_game(a.id, Finish(winner=Mark.X, reason=EndReason.RESIGN),
                                    rate=RATE),
            second.games.finish_game(b.id, Finish(winner=Mark.X, reason=EndReason.RESIGN),
                                     rate=RATE),
        )
        assert None not in done
    season = await this_season(first)
    board = await second.standings.season_leaderboard(GUILD, season.name, Mode.AI, min_games=0)
    # Eight wins in a row from the soft reset: no update lost, the reset applied once.
    rating = soft_reset(START_RATING, 1600.0)
    for _ in range(8):
        rating = updated(rating, AI_ANCHORS["hard"], "win")
    assert len(board) == 1 and board[0].record == Record(wins=8)
    assert abs(board[0].rating - rating) < 1e-9
