"""Several writers on one database — what two bot processes (two storage instances, each with its
own connections) do at the same moment: migrating an empty database, finishing games of one
member, writing the same move, settling the same run-out clocks. On PostgreSQL, and where it
means something on SQLite too."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.game import ratings
from bot.game.model import ChallengeFirst, EndReason, Finish, Mode, NewChallenge, NewGame
from bot.game.ports import GLOBAL_SCOPE, Finished, MoveOutcome, StorageError
from bot.game.ratings import START_RATING
from bot.storage import PostgresStorage
from bot.storage.postgres import MIGRATIONS_DIR
from bot.storage.postgres.connection import CLAIM_SECONDS
from bot.storage.sqlite import migration_files
from engine import Mark
from engine.game.types import Level
from testkit.storage_backends import Backend

RATE = ratings.game_updates
ALICE, BOB, CAROL = 1001, 1002, 1003
CHANNEL = 5


def guild_on_shard(shard: int, n: int = 0, shard_count: int = 2) -> int:
    """A guild id that Discord puts on `shard` of `shard_count` ((id >> 22) % count)."""
    return ((n * shard_count + shard) << 22) | 12345


def ai_game(guild: int, player: int = ALICE, deadline: float | None = None,
            channel: int = CHANNEL) -> NewGame:
    return NewGame(guild_id=guild, channel_id=channel, mode=Mode.AI, x=player, o=Level.HARD,
                   started_by=player, rows=3, cols=3, k=3, rule="freestyle", rated=True,
                   deadline=deadline)


def pvp_game(guild: int, x: int, o: int, channel: int = CHANNEL) -> NewGame:
    return NewGame(guild_id=guild, channel_id=channel, mode=Mode.PVP, x=x, o=o, started_by=x,
                   rows=3, cols=3, k=3, rule="freestyle", rated=True)


# ------------------------------------------------------------------ migrations
async def test_processes_starting_together_on_an_empty_database_migrate_it_once(
    postgres_dsn: str,
) -> None:
    stores = await asyncio.gather(*(PostgresStorage.open(postgres_dsn) for _ in range(4)))
    try:
        shipped = len(migration_files(MIGRATIONS_DIR))
        for store in stores:
            assert await store.schema_version() == shipped
        con = await asyncpg.connect(postgres_dsn)
        try:
            versions = [r[0] for r in await con.fetch(
                "SELECT version FROM schema_migrations ORDER BY version")]
        finally:
            await con.close()
        assert versions == list(range(1, shipped + 1))
        # Every process works on the one schema.
        game = await stores[0].games.create_game(ai_game(guild_on_shard(0)))
        assert (await stores[3].games.game(game.id)) == game
    finally:
        for store in stores:
            await store.close()


async def test_a_postgres_database_from_a_newer_version_is_refused_untouched(
    postgres_dsn: str,
) -> None:
    store = await PostgresStorage.open(postgres_dsn)
    await store.close()
    con = await asyncpg.connect(postgres_dsn)
    try:
        known = await con.fetchval("SELECT COUNT(*) FROM schema_migrations")
        await con.execute("INSERT INTO schema_migrations (version, name) VALUES (99, 'future')")
        with pytest.raises(StorageError, match="schema version 99, newer") as refused:
            await PostgresStorage.open(postgres_dsn)
        assert "\n" not in str(refused.value)
        # Nothing was written: this version's migrations and the future one, no more.
        assert await con.fetchval("SELECT COUNT(*) FROM schema_migrations") == known + 1
    finally:
        await con.close()


async def test_an_unreachable_server_is_refused_in_one_line_without_the_password(
    tmp_path: object,
) -> None:
    dsn = f"postgresql://caro:s3cret@/caro?host={tmp_path}/nowhere"
    with pytest.raises(StorageError) as refused:
        await PostgresStorage.open(dsn)
    message = str(refused.value)
    assert "cannot connect" in message and "\n" not in message
    assert "s3cret" not in message and "caro:***@" in message


# ------------------------------------------------------------------ ratings under row locks
async def test_two_games_of_one_member_finishing_at_once_both_land_in_the_global_rating(
    backend: Backend,
) -> None:
    first, second = await backend.open(), await backend.open()  # two processes' views
    for _ in range(5):
        a = await first.games.create_game(ai_game(guild_on_shard(0)))
        b = await second.games.create_game(ai_game(guild_on_shard(1)))
        done = await asyncio.gather(
            first.games.finish_game(a.id, Finish(winner=Mark.X), rate=RATE),
            second.games.finish_game(b.id, Finish(winner=Mark.X), rate=RATE),
        )
        assert None not in done
    standing = await first.standings.standing(GLOBAL_SCOPE, ALICE, Mode.AI)
    assert standing.record is not None and standing.record.wins == 10
    # The global changes chain: each game started from the rating the one before it left.
    changes = [c for g in range(1, 11) for c in await first.standings.rating_changes(g)
               if c.scope == GLOBAL_SCOPE]
    assert len(changes) == 10
    after_of = {c.before: c.after for c in changes}
    rating, steps = START_RATING, 0
    while rating in after_of:
        rating, steps = after_of[rating], steps + 1
    assert steps == 10 and rating == pytest.approx(standing.rating)


async def test_crossing_games_between_members_all_count_without_deadlock(
    backend: Backend,
) -> None:
    # Alice-Bob, Bob-Carol, Carol-Alice in three servers, twice over, finishing at the same
    # moment through two processes: every member's global rating row is wanted by two games.
    first, second = await backend.open(), await backend.open()
    pairs = [(ALICE, BOB), (BOB, CAROL), (CAROL, ALICE)]
    games = []
    for n, (x, o) in enumerate(pairs * 2):
        store = first if n % 2 else second
        games.append((store, await store.games.create_game(pvp_game(guild_on_shard(0, n), x, o))))
    done = await asyncio.gather(*(
        store.games.finish_game(game.id, Finish(winner=Mark.X), rate=RATE) for store, game in games
    ))
    assert None not in done
    for member in (ALICE, BOB, CAROL):
        standing = await first.standings.standing(GLOBAL_SCOPE, member, Mode.PVP)
        assert standing.record is not None and standing.record.games == 4
    counts = await backend.row_counts()
    assert counts["rating_changes"] == 6 * 2 * 2  # two members, server and global, per game


# ------------------------------------------------------------------ one writer per game
async def test_two_writers_of_the_same_move_exactly_one_wins(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    for n in range(5):
        game = await first.games.create_game(ai_game(guild_on_shard(0, n)))
        outcomes = await asyncio.gather(
            first.games.add_move(game.id, 0, "A1", by_ai=False, now=0.0),
            second.games.add_move(game.id, 0, "B2", by_ai=False, now=0.0),
        )
        assert sorted(outcomes) == sorted([MoveOutcome.STORED, MoveOutcome.STALE])
        row = await second.games.game(game.id)
        assert row is not None and row.ply == 1 and len(row.moves) == 1
        assert row.moves[0].cell == ("A1" if outcomes[0] is MoveOutcome.STORED else "B2")


async def test_two_writers_of_the_same_finishing_move_count_the_result_once(
    backend: Backend,
) -> None:
    first, second = await backend.open(), await backend.open()
    for n in range(5):
        game = await first.games.create_game(ai_game(guild_on_shard(0, n)))
        win, draw = Finish(winner=Mark.X), Finish(winner=None, reason=EndReason.FULL)
        outcomes = await asyncio.gather(
            first.games.add_move(game.id, 0, "A1", by_ai=False, now=0.0, finish=win, rate=RATE),
            second.games.add_move(game.id, 0, "B2", by_ai=False, now=0.0, finish=draw, rate=RATE),
        )
        stored = [o for o in outcomes if isinstance(o, Finished)]
        assert len(stored) == 1 and MoveOutcome.STALE in outcomes
        row = await second.games.game(game.id)
        assert row is not None and row.ply == 1 and len(row.moves) == 1
        assert stored[0].game == row
        won = isinstance(outcomes[0], Finished)
        assert row.moves[0].cell == ("A1" if won else "B2")
        assert row.winner == (Mark.X if won else None)
    counts = await backend.row_counts()
    assert counts["results"] == 5
    assert counts["rating_changes"] == 5 * 2  # Alice, in the server and globally, per game
    assert counts["live_seats"] == 0


# ------------------------------------------------------------------ background work per shard
async def test_background_work_is_asked_for_per_shard(backend: Backend) -> None:
    store = await backend.open()
    on_0 = await store.games.create_game(ai_game(guild_on_shard(0), deadline=50.0))
    on_1 = await store.games.create_game(ai_game(guild_on_shard(1), deadline=60.0))
    for game in (on_0, on_1):
        await store.games.set_message(game.id, 900 + game.id)
        await store.games.add_move(game.id, 0, "A1", by_ai=False, now=0.0, deadline=None)
        await store.clocks.set_deadline(game.id, 1, 50.0 if game is on_0 else 60.0)
    assert await store.clocks.next_deadline(shard_id=1, shard_count=2) == 60.0
    assert [g.id for g in await store.clocks.due_games(100.0, shard_id=0, shard_count=2)] == [on_0.id]
    assert [g.id for g in await store.clocks.due_games(100.0, shard_id=1, shard_count=2)] == [on_1.id]
    assert [g.id for g in await store.meta.games_awaiting_ai(shard_id=1, shard_count=2)] == [on_1.id]
    challenge = await store.challenges.create_challenge(NewChallenge(
        guild_id=guild_on_shard(1), channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB,
        rows=3, cols=3, k=3, rule="freestyle", first=ChallengeFirst.ME, locale="en-US",
        deadline=70.0), now=0.0)
    assert await store.challenges.due_challenges(100.0, shard_id=0, shard_count=2) == []
    assert [c.id for c in await store.challenges.due_challenges(100.0, shard_id=1, shard_count=2)] == [
        challenge.id]
    with pytest.raises(ValueError, match="shard 2 of 2"):
        await store.clocks.due_games(100.0, shard_id=2, shard_count=2)
    # The defaults (shard 0 of 1) see everything, as before shards existed.
    assert {g.id for g in await store.meta.games_awaiting_ai()} == {on_0.id, on_1.id}


async def test_two_processes_settling_clocks_at_once_each_take_different_games(
    postgres_dsn: str,
) -> None:
    first = await PostgresStorage.open(postgres_dsn)
    second = await PostgresStorage.open(postgres_dsn)
    try:
        ids = set()
        for n in range(20):
            game = await first.games.create_game(ai_game(guild_on_shard(0, n), deadline=10.0 + n))
            ids.add(game.id)
        got_a, got_b = await asyncio.gather(first.clocks.due_games(100.0), second.clocks.due_games(100.0))
        a, b = {g.id for g in got_a}, {g.id for g in got_b}
        assert not a & b and a | b == ids
        # Claimed clocks are not handed out again while the claim holds…
        assert await first.clocks.due_games(100.0 + CLAIM_SECONDS - 1) == []
        # …the watcher sleeps until the claims lapse instead of spinning on them…
        assert await first.clocks.next_deadline() == pytest.approx(100.0 + CLAIM_SECONDS)
        # …and a process that died holding some leaves them to the others afterwards.
        settled = sorted(a)[:5]
        for game_id in settled:
            finish = Finish(winner=Mark.O, reason=EndReason.TIMEOUT)
            assert await first.games.finish_game(game_id, finish, rate=RATE, due_by=100.0)
        later = {g.id for g in await second.clocks.due_games(100.0 + CLAIM_SECONDS)}
        assert later == ids - set(settled)
    finally:
        await first.close()
        await second.close()


async def test_a_move_releases_the_claim_on_its_clock(postgres_dsn: str) -> None:
    store = await PostgresStorage.open(postgres_dsn)
    try:
        game = await store.games.create_game(ai_game(guild_on_shard(0), deadline=10.0))
        assert [g.id for g in await store.clocks.due_games(20.0)] == [game.id]
        assert await store.games.add_move(game.id, 0, "A1", by_ai=False, now=5.0,
                                    deadline=None) is MoveOutcome.STORED
        assert await store.clocks.set_deadline(game.id, 1, 25.0)
        assert await store.clocks.next_deadline() == 25.0
        assert [g.id for g in await store.clocks.due_games(30.0)] == [game.id]
    finally:
        await store.close()


async def test_expired_challenges_are_claimed_once(postgres_dsn: str) -> None:
    first = await PostgresStorage.open(postgres_dsn)
    second = await PostgresStorage.open(postgres_dsn)
    try:
        for n in range(6):
            await first.challenges.create_challenge(NewChallenge(
                guild_id=guild_on_shard(0, n), channel_id=CHANNEL, challenger_id=ALICE,
                opponent_id=BOB, rows=3, cols=3, k=3, rule="freestyle", first=ChallengeFirst.ME,
                locale="en-US", deadline=10.0 + n), now=0.0)
        got = await asyncio.gather(first.challenges.due_challenges(100.0), second.challenges.due_challenges(100.0))
        ids = [c.id for batch in got for c in batch]
        assert sorted(ids) == list(range(1, 7))
        assert await first.challenges.due_challenges(101.0) == []
    finally:
        await first.close()
        await second.close()
