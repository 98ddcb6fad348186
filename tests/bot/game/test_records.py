"""The records service (bot.game.records): replays, reviews and history, on a real SQLite file
upgraded from the previous schema: games finished before this version replay and review like new
ones, a review is made once and then read from the cache, and history pages carry rating
changes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.game.errors import UserError
from bot.game.levels import NO_ENGINE
from bot.game.model import EndReason, Finish, Mode, NewGame
from bot.game.ports import Storage
from bot.game.records import RecordService
from bot.storage import SqliteStorage
from bot.ui.record_views import export_files, move_list, replay_content, translator
from engine import Mark
from engine.game.records import read_record
from engine.game.types import Level
from testkit.worlds import ALICE, CAROL, DAVE, GUILD, old_world


class Pool:
    """Runs the AI worker functions in this process, counting the trips a pool would make."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def __call__(self, fn: Callable[..., Any], *args: Any) -> Any:
        self.calls.append(fn.__name__)
        await asyncio.sleep(0)  # let another request for the same review arrive meanwhile
        return fn(*args)


@pytest.fixture
async def upgraded(tmp_path: Path) -> Any:
    path = tmp_path / "caro.db"
    ids = old_world(path)
    storage = await SqliteStorage.open(path)
    yield RecordService(storage.reviews, storage.games, storage.standings), ids
    await storage.close()


async def test_a_game_finished_before_this_version_replays_and_exports(upgraded: Any) -> None:
    service, ids = upgraded
    state = await service.finished_game(ids["ai_won"], GUILD)
    text = replay_content(state, 5, translator("en-US"), NO_ENGINE)
    assert f"<@{ALICE}> (X) vs caro AI (normal, O)" in text
    assert f"**<@{ALICE}> (X) wins.**" in text
    assert "Moves: 1. A1 2. B1 3. A2 4. B2 5. **A3**" in text
    # A member's last finished game is the newest one they played in this server.
    last = await service.last_finished_game(GUILD, ALICE)
    assert last.id == ids["ai_timed_out"]
    record_file = export_files(state, ("Alice", "caro AI (normal)"))[1]
    record = read_record(record_file.fp.read().decode())
    assert [record.board().move_name(c) for c in record.moves] == ["A1", "B1", "A2", "B2", "A3"]
    # A game of another server, an unknown one, and a running one are refused.
    for game, guild, key in [
        (ids["ai_won"], GUILD + 1, "replay.no_game"),
        (9999, GUILD, "replay.no_game"),
        (ids["ai_active"], GUILD, "replay.running"),
    ]:
        with pytest.raises(UserError) as refused:
            await service.finished_game(game, guild)
        assert refused.value.key == key
    with pytest.raises(UserError, match="no finished game"):
        await service.last_finished_game(GUILD, 12345)


async def test_a_review_is_made_once_even_when_asked_twice_at_once_then_comes_from_the_cache(
    upgraded: Any,
) -> None:
    service, ids = upgraded
    pool = Pool()
    seen: list[tuple[int, int]] = []

    async def progress(done: int, total: int) -> None:
        seen.append((done, total))

    first, second = await asyncio.gather(
        service.review(ids["ai_won"], GUILD, pool, progress),
        service.review(ids["ai_won"], GUILD, pool),
    )
    assert not first.cached and first.review is second.review  # one review for both
    assert pool.calls.count("review_conclude") == 1 and "review_slice" in pool.calls
    assert seen[-1] == (5, 5)
    assert [m.verdict.value for m in first.review.move_reviews][0] in ("best", "good")
    trips = len(pool.calls)
    again = await service.review(ids["ai_won"], GUILD, pool)
    assert again.cached and len(pool.calls) == trips  # no new work in the pool
    assert again.review.to_dict()["move_reviews"] == first.review.to_dict()["move_reviews"]
    # Another node limit is another review.
    other = await service.review(ids["ai_won"], GUILD, pool, node_limit=200)
    assert not other.cached and len(pool.calls) > trips


async def test_history_lists_results_opponents_and_rating_changes(upgraded: Any) -> None:
    service, ids = upgraded
    page = await service.history(GUILD, CAROL, 0)
    [entry] = page.entries
    assert entry.state.id == ids["pvp_resigned"] and entry.mark is Mark.X
    assert entry.result.value == "loss" and entry.opponent == DAVE
    assert entry.change is not None and (entry.change.before, entry.change.after) == (1200, 1184)
    assert not page.has_next
    alice = await service.history(GUILD, ALICE, 0)
    assert [e.result.value for e in alice.entries] == ["loss", "win"]  # newest first
    with pytest.raises(UserError):
        await service.history(GUILD, ALICE, -1)


def test_the_move_list_of_a_long_game_shows_the_moves_around_the_current_one() -> None:
    moves = [f"A{n}" for n in range(1, 201)]
    shown = move_list(moves, 100)
    assert shown.startswith("… 61. A61 62. A62") and "100. **A100**" in shown
    assert shown.endswith("139. A139 140. A140 …") and len(shown) < 1000
    assert move_list(["H8", "G8", "I8"], 0) == "1. H8 2. G8 3. I8"


async def test_finished_games_and_the_review_cache_on_each_backend(storage: Storage) -> None:
    """The storage methods of replays, history and reviews, on any backend (the PostgreSQL one
    is to pass the same)."""
    from bot.game.ratings import game_updates

    games = []
    for channel in (1, 2, 3):
        row = await storage.games.create_game(
            NewGame(guild_id=GUILD, channel_id=channel, mode=Mode.AI, x=ALICE, o=Level.EASY,
                    started_by=ALICE, rows=3, cols=3, k=3, rule="freestyle", rated=False)
        )
        games.append(row.id)
    other_guild = await storage.games.create_game(
        NewGame(guild_id=GUILD + 1, channel_id=1, mode=Mode.AI, x=ALICE, o=Level.EASY,
                started_by=ALICE, rows=3, cols=3, k=3, rule="freestyle", rated=False)
    )
    for game in (games[0], games[2], other_guild.id):
        assert await storage.games.finish_game(game, Finish(winner=Mark.O, reason=EndReason.RESIGN),
                                         rate=game_updates)
    found = await storage.reviews.finished_games(GUILD, ALICE, limit=5)
    assert [g.id for g in found] == [games[2], games[0]]  # finished only, this server, newest first
    assert [g.id for g in await storage.reviews.finished_games(GUILD, ALICE, limit=1, offset=1)] == [
        games[0]
    ]
    assert await storage.reviews.finished_games(GUILD, DAVE, limit=5) == []

    assert await storage.reviews.review(games[0], 5000) is None
    await storage.reviews.save_review(games[0], 5000, '{"a": 1}')
    assert await storage.reviews.review(games[0], 5000) == '{"a": 1}'
    assert await storage.reviews.review(games[0], 100) is None  # made with another node limit
    await storage.reviews.save_review(games[0], 100, '{"b": 2}')  # one per game: replaced
    assert await storage.reviews.review(games[0], 100) == '{"b": 2}'
    assert await storage.reviews.review(games[0], 5000) is None



async def test_a_game_between_two_servers_is_shown_where_it_had_a_board_and_nowhere_else(
    storage: Storage,
) -> None:
    from bot.game.ratings import game_updates
    from tests.bot.storage.test_queue import paired_across

    here, there, third = 1 << 22, 2 << 22, 3 << 22
    one, _ = await paired_across(storage, here, there)
    service = RecordService(storage.reviews, storage.games, storage.standings)
    with pytest.raises(UserError) as running:
        await service.finished_game(one.game_id, there)
    assert running.value.key == "replay.running"
    assert await storage.games.finish_game(
        one.game_id, Finish(Mark.X, EndReason.RESIGN), rate=game_updates)
    for guild in (here, there):
        assert (await service.finished_game(one.game_id, guild)).id == one.game_id
    assert (await service.last_finished_game(there, 2)).id == one.game_id
    # Elsewhere, the same answer as a game that never was.
    for game_id in (one.game_id, 99):
        with pytest.raises(UserError) as refused:
            await service.finished_game(game_id, third)
        assert (refused.value.key, refused.value.values) == ("replay.no_game", {"game": game_id})
    # Its member of the other server sees it in their history there, with their change there.
    page = await service.history(there, 2, 0)
    (entry,) = page.entries
    assert entry.state.id == one.game_id and entry.opponent == 1
    assert entry.change is not None and entry.change.scope == there
