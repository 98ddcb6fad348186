"""Storage on both backends (a real SQLite file, a real PostgreSQL database): migrations, the
one-running-game rule, moves, exactly-once stats; and databases `open_database` refuses in one
line (unusable, in a read-only folder, from a newer version)."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from bot.game import ratings
from bot.game.errors import UserError
from bot.game.model import (
    ActiveGameExists,
    BoardStyle,
    ChallengeFirst,
    ChallengePending,
    ChallengeRow,
    ChallengeStatus,
    EndReason,
    Finish,
    GameRow,
    GuildSettings,
    MemberSettings,
    Mode,
    NewChallenge,
    NewGame,
    Record,
)
from bot.game.outbox_model import NewPost, PostKind
from bot.game.ports import Answer, Finished, LiveCounts, MoveOutcome, StorageError
from bot.storage import SqliteStorage, migration_files, open_database
from bot.storage.rows import member_settings_of
from engine import Mark
from engine.game.types import Level
from testkit.sqlite_rows import old_database
from testkit.storage_backends import Backend

Storage = SqliteStorage  # for annotations; the fixtures give either backend

GUILD, CHANNEL, ALICE, BOB, CAROL = 111, 222, 333, 444, 555
RATE = ratings.game_updates


def new_game(player: int = ALICE, channel: int = CHANNEL, level: str = "normal",
             mark: str = "X") -> NewGame:
    """A game of `player` against the AI at `level`, the member playing `mark`."""
    ai = Level(level)
    return NewGame(
        guild_id=GUILD,
        channel_id=channel,
        mode=Mode.AI,
        x=player if mark == "X" else ai,
        o=ai if mark == "X" else player,
        started_by=player,
        rows=3,
        cols=3,
        k=3,
        rule="freestyle",
        rated=True,
    )


async def add(storage: Storage, game_id: int, ply: int, cell: str, *, by_ai: bool = False,
              **kw: object) -> bool:
    """add_move at a time no clock has run out (unless the test says `now`)."""
    kw.setdefault("now", 0.0)
    outcome = await storage.games.add_move(game_id, ply, cell, by_ai=by_ai, **kw)  # type: ignore[arg-type]
    return outcome is MoveOutcome.STORED or isinstance(outcome, Finished)


def copy_migrations(tmp_path: Path, before: int | None = None,
                    source: Path | None = None) -> Path:
    """A folder of the shipped migrations (of `source`, SQLite's by default; only those numbered
    below `before` if given), for a test to add to or to stop at an older schema."""
    migrations = tmp_path / "migrations"
    migrations.mkdir()
    for number, path in migration_files(source) if source else migration_files():
        if before is None or number < before:
            (migrations / path.name).write_text(path.read_text())
    return migrations


async def table_names(backend: Backend) -> set[str]:
    if backend.name == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'table'"
    else:
        query = "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
    return {str(r[0]) for r in await backend.fetch(query)}


async def test_fresh_database_is_migrated(backend: Backend) -> None:
    store = await backend.open()
    assert await store.schema_version() == len(migration_files(backend.migrations))
    assert all(count == 0 for count in (await backend.row_counts()).values())
    assert {"games", "moves", "results", "standings", "meta"} <= await table_names(backend)


async def test_a_fresh_sqlite_database_is_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "caro.db"
    store = await Storage.open(path)
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_sqlite_writes_a_move_in_one_statement_that_is_no_part_of_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "caro.db"
    store = await Storage.open(path)
    game = await store.games.create_game(new_game())
    statements: list[str] = []
    await store.connection.db.set_trace_callback(statements.append)
    assert await add(store, game.id, 0, "B2", deadline=50.0)
    # A move that does not end the game: one statement (SQLite traces it again for each step
    # of its trigger), all of it or nothing, with no BEGIN or COMMIT around it; the
    # connection's view and trigger are made at its first move.
    sent = {s for s in statements if not s.startswith("CREATE TEMP")}
    assert len(sent) == 1 and sent.pop().startswith("INSERT INTO move_writes"), statements
    statements.clear()
    assert not await add(store, game.id, 1, "A1", now=60.0)  # its clock ran out at 50
    assert await store.games.add_move(game.id, 1, "A1", by_ai=True, now=60.0) is MoveOutcome.LATE
    assert not store.connection.db.in_transaction
    await store.connection.db.set_trace_callback(None)
    read = await store.games.game(game.id)
    assert read is not None and read.ply == 1 and read.deadline == 50.0
    await store.close()
    # The view and trigger were the connection's own: the file has neither, and the next
    # connection writes moves the same way.
    with sqlite3.connect(path) as db:
        kinds = {str(r[0]) for r in db.execute("SELECT type FROM sqlite_master")}
    assert kinds.isdisjoint({"view", "trigger"})
    store = await Storage.open(path)
    assert await add(store, game.id, 1, "A1", now=10.0)
    await store.close()


async def test_migrations_are_idempotent_and_keep_data(backend: Backend) -> None:
    store = await backend.open()
    game = await store.games.create_game(new_game())
    assert await store.connection.migrate(backend.migrations) == []  # nothing left to apply
    await store.close()
    backend.opened.remove(store)
    store = await backend.open()  # reopening applies nothing either
    assert await store.schema_version() == len(migration_files(backend.migrations))
    again = await store.games.game(game.id)
    assert again is not None and again.x == ALICE and again.started_by == ALICE


async def test_new_migration_is_applied_once_in_order(backend: Backend, tmp_path: Path) -> None:
    migrations = copy_migrations(tmp_path, source=backend.migrations)
    shipped = len(migration_files(backend.migrations))
    (migrations / f"{shipped + 1:03d}_notes.sql").write_text(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY);"
    )
    await backend.open()  # only the shipped migrations
    store = await backend.open(migrations)
    assert await store.schema_version() == shipped + 1
    assert await store.connection.migrate(migrations) == []
    assert "notes" in await table_names(backend)


async def test_failed_migration_rolls_back_entirely(backend: Backend, tmp_path: Path) -> None:
    migrations = copy_migrations(tmp_path, source=backend.migrations)
    shipped = len(migration_files(backend.migrations))
    broken = f"{shipped + 1:03d}_broken.sql"
    (migrations / broken).write_text(
        "CREATE TABLE half (id INTEGER);\nINSERT INTO nowhere VALUES (1);"
    )
    with pytest.raises(StorageError, match=broken):
        await backend.open(migrations)
    store = await backend.open()  # the shipped migrations still open it
    assert await store.schema_version() == shipped
    assert "half" not in await table_names(backend)


async def test_badly_numbered_migrations_are_refused(tmp_path: Path) -> None:
    (tmp_path / "001_a.sql").write_text("")
    (tmp_path / "003_c.sql").write_text("")
    with pytest.raises(StorageError, match="without gaps"):
        migration_files(tmp_path)


async def test_one_running_game_per_player_per_channel(storage: Storage) -> None:
    first = await storage.games.create_game(new_game())
    with pytest.raises(ActiveGameExists) as refused:
        await storage.games.create_game(new_game())
    assert refused.value.game.id == first.id
    other_channel = await storage.games.create_game(new_game(channel=CHANNEL + 1))
    other_player = await storage.games.create_game(new_game(player=BOB))
    assert len({first.id, other_channel.id, other_player.id}) == 3
    assert await storage.games.abandon_game(first.id)
    assert not await storage.games.abandon_game(first.id)
    replacement = await storage.games.create_game(new_game())
    assert replacement.id not in (first.id, other_channel.id, other_player.id)


async def test_a_game_created_within_its_checks(storage: Storage) -> None:
    seen: list[LiveCounts] = []

    def admit(counts: LiveCounts) -> None:
        seen.append(counts)
        if counts.guild_ai_games >= 2:
            raise UserError("limit.server_ai_games", count=2)

    first = await storage.games.create_game_within(new_game(), admit)
    assert first.started_by == ALICE and seen == [LiveCounts(0, 0, 0)]
    # The game in the way is reported before the counts are even read.
    with pytest.raises(ActiveGameExists) as in_the_way:
        await storage.games.create_game_within(new_game(), admit)
    assert in_the_way.value.game.id == first.id and len(seen) == 1
    # The counts are the starter's: Alice's game counts for her, not for Bob.
    await storage.games.create_game_within(new_game(player=BOB), admit)
    assert seen[-1] == LiveCounts(0, 1, 0)
    # A refusal creates nothing.
    with pytest.raises(UserError):
        await storage.games.create_game_within(new_game(player=CAROL), admit)
    assert seen[-1] == LiveCounts(0, 2, 0)
    assert await storage.games.active_game(GUILD, CHANNEL, CAROL) is None
    assert await storage.games.live_counts(GUILD, ALICE) == LiveCounts(1, 2, 0)


async def test_two_starts_at_once_cannot_both_take_the_last_place(storage: Storage) -> None:
    def admit(counts: LiveCounts) -> None:
        if counts.guild_ai_games >= 1:
            raise UserError("limit.server_ai_games", count=1)

    results = await asyncio.gather(
        *(storage.games.create_game_within(new_game(player=p), admit) for p in (ALICE, BOB, CAROL)),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["GameRow", "UserError", "UserError"]
    assert (await storage.games.live_counts(GUILD, ALICE)).guild_ai_games == 1


async def test_unique_index_holds_even_without_the_check(
    storage: Storage, backend: Backend
) -> None:
    game = await storage.games.create_game(new_game())
    with pytest.raises(backend.integrity_error):
        await backend.execute(
            "INSERT INTO live_seats (guild_id, channel_id, user_id, game_id) VALUES (?, ?, ?, ?)",
            GUILD, CHANNEL, ALICE, game.id,
        )


async def test_moves_are_numbered_and_stale_ones_refused(
    storage: Storage, backend: Backend
) -> None:
    game = await storage.games.create_game(new_game())
    assert await add(storage, game.id, 0, "B2")
    assert not await add(storage, game.id, 0, "A1")  # replayed ply
    assert not await add(storage, game.id, 2, "A1")  # skipped ply
    assert await add(storage, game.id, 1, "A1", by_ai=True, reason="block")
    row = await storage.games.game(game.id)
    assert row is not None
    assert row.ply == 2
    assert [(m.ply, m.cell, m.by_ai, m.reason) for m in row.moves] == [
        (0, "B2", False, None),
        (1, "A1", True, "block"),
    ]
    assert (await backend.row_counts())["moves"] == 2


async def test_games_awaiting_ai(storage: Storage) -> None:
    game = await storage.games.create_game(new_game())  # player is X: the AI moves on odd plies
    ai_first = await storage.games.create_game(
        new_game(player=BOB, level="hard", mark="O")
    )
    assert await storage.meta.games_awaiting_ai() == []  # no message posted yet
    await storage.games.set_message(game.id, 9001)
    await storage.games.set_message(ai_first.id, 9002)
    assert [g.id for g in await storage.meta.games_awaiting_ai()] == [ai_first.id]
    await add(storage, game.id, 0, "B2")
    assert [g.id for g in await storage.meta.games_awaiting_ai()] == [game.id, ai_first.id]


async def test_the_write_that_finishes_a_game_returns_it_as_read_back(storage: Storage) -> None:
    # Alice and Bob play each other twice (the second time their standing rows exist), and Alice
    # beats the AI: each finishing write returns the game and its rating changes exactly as
    # reading them back gives them.
    pvp = NewGame(guild_id=GUILD, channel_id=CHANNEL, mode=Mode.PVP, x=BOB, o=ALICE,
                  started_by=BOB, rows=3, cols=3, k=3, rule="freestyle", rated=True)
    for finish_by_move in (True, False):
        game = await storage.games.create_game(pvp)
        assert await add(storage, game.id, 0, "A1")
        if finish_by_move:
            finished = await storage.games.add_move(game.id, 1, "B2", by_ai=False, now=0.0,
                                              finish=Finish(winner=Mark.O), rate=RATE)
        else:
            finished = await storage.games.finish_game(
                game.id, Finish(winner=Mark.O, reason=EndReason.RESIGN), rate=RATE
            )
        assert isinstance(finished, Finished)
        assert finished.game == await storage.games.game(game.id)
        assert [c.user_id for c in finished.changes] == [ALICE, BOB, ALICE, BOB]
        assert list(finished.changes) == await storage.standings.rating_changes(game.id)
    ai = await storage.games.create_game(new_game())
    finished = await storage.games.add_move(ai.id, 0, "A1", by_ai=False, now=0.0,
                                      finish=Finish(winner=Mark.X), rate=RATE)
    assert isinstance(finished, Finished) and finished.game.winner is Mark.X
    assert list(finished.changes) == await storage.standings.rating_changes(ai.id)
    assert (await storage.standings.user_stats(GUILD, ALICE)).by_level == {"normal": Record(wins=1)}
    unrated = await storage.games.create_game(replace(new_game(channel=CHANNEL + 1), rated=False))
    finished = await storage.games.finish_game(unrated.id, Finish(winner=Mark.O), rate=RATE)
    assert finished is not None and finished.changes == ()


async def test_a_move_and_the_ais_answer_are_stored_together_or_not_at_all(
    storage: Storage, backend: Backend
) -> None:
    game = await storage.games.create_game(new_game())
    reply = Answer(cell="B2", reason="block")
    assert await storage.games.add_move(game.id, 0, "A1", by_ai=False, now=0.0, answer=reply,
                                  deadline=90.0) is MoveOutcome.STORED
    row = await storage.games.game(game.id)
    assert row is not None and (row.ply, row.deadline) == (2, 90.0)
    assert [(m.ply, m.cell, m.by_ai, m.reason) for m in row.moves] == [
        (0, "A1", False, None), (1, "B2", True, "block")
    ]
    # A stale or late pair writes neither move.
    before = await backend.row_counts()
    assert await storage.games.add_move(game.id, 0, "C3", by_ai=False, now=0.0,
                                  answer=reply) is MoveOutcome.STALE
    assert await storage.games.add_move(game.id, 2, "C3", by_ai=False, now=95.0,
                                  answer=Answer("C1", "win")) is MoveOutcome.LATE
    # The answer that ends the game finishes it with both moves, counted once.
    finished = await storage.games.add_move(game.id, 2, "C3", by_ai=False, now=50.0,
                                      answer=Answer("C2", "win"),
                                      finish=Finish(winner=Mark.O), rate=RATE)
    assert isinstance(finished, Finished)
    assert [m.cell for m in finished.game.moves] == ["A1", "B2", "C3", "C2"]
    assert finished.game == await storage.games.game(game.id)
    assert finished.game.ply == 4 and finished.game.winner is Mark.O
    after = await backend.row_counts()
    assert after["moves"] == before["moves"] + 2 and after["results"] == before["results"] + 1
    with pytest.raises(ValueError, match="answer"):
        await storage.games.add_move(game.id, 4, "A3", by_ai=True, now=0.0, answer=reply)


async def test_a_move_writes_the_other_boards_redraw_with_it_or_not_at_all(
    storage: Storage,
) -> None:
    # A game between two servers: the other server's board is redrawn through a row written in
    # the move's own transaction, so no crash can store the move and lose the redraw.
    game = await storage.games.create_game(NewGame(
        guild_id=GUILD, channel_id=CHANNEL, mode=Mode.PVP, x=BOB, o=ALICE, started_by=BOB,
        rows=3, cols=3, k=3, rule="freestyle", rated=True))

    def redraw() -> list[NewPost]:
        return [NewPost(GUILD + 1, CHANNEL + 1, PostKind.GAME_BOARD,
                        {"game": game.id, "guild": GUILD + 1}, 10.0)]

    async def redraws() -> int:
        return sum([await storage.outbox.post(i) is not None for i in range(1, 10)])

    assert await storage.games.add_move(
        game.id, 0, "A1", by_ai=False, now=0.0, posts=redraw()) is MoveOutcome.STORED
    (row,) = await storage.outbox.due_posts(now=100.0)
    assert (row.kind, row.guild_id, row.payload) == (
        PostKind.GAME_BOARD, GUILD + 1, {"game": game.id, "guild": GUILD + 1})
    # A replayed click and a move after the clock ran out write neither.
    assert await storage.games.add_move(
        game.id, 0, "B1", by_ai=False, now=0.0, posts=redraw()) is MoveOutcome.STALE
    assert await storage.games.add_move(
        game.id, 1, "B1", by_ai=False, now=0.0, deadline=5.0, posts=redraw()) is MoveOutcome.STORED
    assert await storage.games.add_move(
        game.id, 2, "A2", by_ai=False, now=6.0, posts=redraw()) is MoveOutcome.LATE
    assert await redraws() == 2
    # The move that ends the game writes its redraw with the result; one refused writes none.
    assert await add(storage, game.id, 2, "A2") and await add(storage, game.id, 3, "B2")
    assert await storage.games.add_move(
        game.id, 3, "A3", by_ai=False, now=0.0, finish=Finish(winner=Mark.X), rate=RATE,
        posts=redraw()) is MoveOutcome.STALE
    finished = await storage.games.add_move(
        game.id, 4, "A3", by_ai=False, now=0.0, finish=Finish(winner=Mark.X), rate=RATE,
        posts=redraw())
    assert isinstance(finished, Finished) and finished.game.ply == 5
    assert await redraws() == 3


async def test_finishing_move_counts_the_result_once(storage: Storage) -> None:
    game = await storage.games.create_game(new_game(level="hard"))
    finish = Finish(winner=Mark.X)
    assert await add(storage, game.id, 0, "A1", finish=finish, rate=RATE)
    assert not await storage.games.finish_game(game.id, finish, rate=RATE)
    assert not await add(storage, game.id, 1, "B1", by_ai=True)  # no moves after the end
    row = await storage.games.game(game.id)
    assert row is not None and (row.status, row.winner) == ("finished", Mark.X)
    stats = await storage.standings.user_stats(GUILD, ALICE)
    assert stats.overall == Record(wins=1)
    assert stats.by_level == {"hard": Record(wins=1)}


async def test_a_finishing_move_hands_the_rating_policy_the_whole_finished_game(
    storage: Storage,
) -> None:
    game = await storage.games.create_game(new_game(level="hard"))
    seen: list[GameRow] = []

    def spy(finished: GameRow, winner: Mark | None,
            current: Mapping[int, float]) -> list[ratings.RatingUpdate]:
        seen.append(finished)
        return RATE(finished, winner, current)

    assert await add(storage, game.id, 0, "A1")
    assert await add(storage, game.id, 1, "B2", by_ai=True, reason="centre")
    assert await add(storage, game.id, 2, "C3", finish=Finish(winner=Mark.X), rate=spy)
    assert len(seen) == 3  # once per scope: the server's, the global one, the server's season
    for finished in seen:
        assert (finished.status, finished.winner, finished.ply) == ("finished", Mark.X, 3)
        assert [(m.ply, m.cell, m.by_ai, m.reason) for m in finished.moves] == [
            (0, "A1", False, None), (1, "B2", True, "centre"), (2, "C3", False, None),
        ]
    assert seen[0] == await storage.games.game(game.id)


async def test_a_move_after_the_clock_ran_out_is_late_and_writes_nothing(
    storage: Storage, backend: Backend
) -> None:
    game = await storage.games.create_game(new_game(level="hard"))
    assert await add(storage, game.id, 0, "A1", deadline=50.0)
    assert await add(storage, game.id, 1, "B2", by_ai=True, deadline=100.0)
    before = await backend.row_counts()
    late = await storage.games.add_move(game.id, 2, "C3", by_ai=False, now=100.0)
    assert late is MoveOutcome.LATE
    late = await storage.games.add_move(game.id, 2, "C3", by_ai=False, now=100.0,
                                  finish=Finish(winner=Mark.X), rate=RATE)
    assert late is MoveOutcome.LATE
    # Not late but stale: the ply is not the game's.
    stale = await storage.games.add_move(game.id, 1, "C3", by_ai=False, now=100.0,
                                   finish=Finish(winner=Mark.X), rate=RATE)
    assert stale is MoveOutcome.STALE
    assert await backend.row_counts() == before
    row = await storage.games.game(game.id)
    assert row is not None and (row.status, row.ply, len(row.moves)) == ("active", 2, 2)
    # Just in time: the move lands.
    assert await add(storage, game.id, 2, "C3", now=99.9, finish=Finish(winner=Mark.X),
                     rate=RATE)


async def test_a_clocks_low_time_warning_is_claimed_once_by_any_number_of_processes(
    backend: Backend,
) -> None:
    first = await backend.open()
    second = await backend.open()  # a second connection, as if another process raced us
    game = await first.games.create_game(new_game(level="hard"))
    assert await add(first, game.id, 0, "A1", deadline=50.0)
    assert await add(first, game.id, 1, "B2", by_ai=True, deadline=100.0)
    assert [g.id for g in await second.clocks.unwarned_clocks(100.0)] == [game.id]
    assert await second.clocks.unwarned_clocks(99.0) == []
    assert await first.clocks.next_unwarned_clock(0.0) == 100.0
    # Each claim carries its warning: only the winner's is written, with the claim.
    warning = NewPost(GUILD, CHANNEL, PostKind.CLOCK_WARNING, {"game": game.id}, 90.0)
    claims = [first.clocks.claim_warning(game.id, 100.0, [warning]) for _ in range(4)]
    claims += [second.clocks.claim_warning(game.id, 100.0, [warning]) for _ in range(4)]
    assert sorted(await asyncio.gather(*claims)) == [False] * 7 + [True]
    assert [p.payload for p in await second.outbox.due_posts(now=90.0)] == [{"game": game.id}]
    assert await first.clocks.unwarned_clocks(100.0) == []
    assert await second.clocks.next_unwarned_clock(0.0) is None
    # A clock the game no longer runs on is not claimed; the next clock is, once.
    assert not await first.clocks.claim_warning(game.id, 150.0)
    assert await add(first, game.id, 2, "C3", deadline=200.0)
    assert await second.clocks.next_unwarned_clock(0.0) == 200.0
    assert await second.clocks.claim_warning(game.id, 200.0)
    assert not await first.clocks.claim_warning(game.id, 200.0)
    # Nor is the clock of a finished game.
    other = await first.games.create_game(new_game(channel=CHANNEL + 1))
    assert await add(first, other.id, 0, "A1", deadline=300.0)
    await first.games.finish_game(other.id, Finish(winner=None, reason=EndReason.RESIGN), rate=RATE)
    assert not await second.clocks.claim_warning(other.id, 300.0)


async def test_concurrent_finish_attempts_count_once(backend: Backend) -> None:
    first = await backend.open()
    second = await backend.open()  # a second connection, as if another process raced us
    game = await first.games.create_game(new_game())
    finish = Finish(winner=None, reason=EndReason.FULL)
    attempts = [first.games.finish_game(game.id, finish, rate=RATE) for _ in range(5)]
    attempts += [second.games.finish_game(game.id, finish, rate=RATE) for _ in range(5)]
    outcomes = await asyncio.gather(*attempts)
    assert sorted(o is not None for o in outcomes) == [False] * 9 + [True]
    counts = await backend.row_counts()
    assert counts["results"] == 1
    assert counts["rating_changes"] == 2  # Alice, in the server and globally
    assert (await second.standings.user_stats(GUILD, ALICE)).overall == Record(draws=1)


def challenge_of(challenger: int, opponent: int, *, guild: int = GUILD, channel: int = CHANNEL,
                 deadline: float = 100.0) -> NewChallenge:
    return NewChallenge(
        guild_id=guild, channel_id=channel, challenger_id=challenger, opponent_id=opponent,
        rows=3, cols=3, k=3, rule="freestyle", first=ChallengeFirst.ME, locale="en-US",
        deadline=deadline,
    )


async def test_a_second_pending_challenge_between_two_members_is_refused_either_way_round(
    storage: Storage,
) -> None:
    first = await storage.challenges.create_challenge(challenge_of(ALICE, BOB), now=10.0)
    for again in (challenge_of(ALICE, BOB), challenge_of(BOB, ALICE, channel=CHANNEL + 1)):
        with pytest.raises(ChallengePending) as refused:
            await storage.challenges.create_challenge(again, now=20.0)
        assert refused.value.challenge.id == first.id
    # Another server is another pair of seats; a third member is another pair.
    assert await storage.challenges.create_challenge(challenge_of(BOB, ALICE, guild=GUILD + 1), now=20.0)
    assert await storage.challenges.create_challenge(challenge_of(ALICE, CAROL), now=20.0)
    # Once the first one's time ran out (closed or not yet), or it was answered, the pair is free.
    again = await storage.challenges.create_challenge(challenge_of(BOB, ALICE, deadline=300.0), now=100.0)
    assert await storage.challenges.close_challenge(again.id, ChallengeStatus.DECLINED)
    assert await storage.challenges.create_challenge(challenge_of(ALICE, BOB, deadline=400.0), now=200.0)


async def test_challenges_between_two_members_sent_at_once_make_one(backend: Backend) -> None:
    first = await backend.open()
    second = await backend.open()  # a second connection, as if another process raced us
    sent = [store.challenges.create_challenge(challenge_of(a, b, channel=CHANNEL + n), now=10.0)
            for n, (store, a, b) in enumerate(
                [(first, ALICE, BOB), (second, BOB, ALICE)] * 5)]
    outcomes = await asyncio.gather(*sent, return_exceptions=True)
    made = [o for o in outcomes if isinstance(o, ChallengeRow)]
    assert len(made) == 1, outcomes
    assert all(isinstance(o, ChallengePending) and o.challenge.id == made[0].id
               for o in outcomes if o is not made[0])
    assert (await backend.row_counts())["challenges"] == 1


async def test_unknown_end_reason_is_refused_and_changes_nothing(
    storage: Storage, backend: Backend
) -> None:
    game = await storage.games.create_game(new_game())
    with pytest.raises(ValueError, match="triumph"):
        await storage.games.finish_game(
            game.id, Finish(winner=Mark.X, reason="triumph"), rate=RATE  # type: ignore[arg-type]
        )
    row = await storage.games.game(game.id)
    assert row is not None and row.status == "active"
    assert (await backend.row_counts())["results"] == 0


def watch_game(channel: int = CHANNEL, starter: int = ALICE) -> NewGame:
    return NewGame(
        guild_id=GUILD, channel_id=channel, mode=Mode.WATCH, x=Level.EASY, o=Level.HARD,
        started_by=starter, rows=3, cols=3, k=3, rule="freestyle", rated=False,
    )


async def test_one_watched_game_per_channel(storage: Storage) -> None:
    first = await storage.games.create_game(watch_game())
    with pytest.raises(ActiveGameExists) as refused:
        await storage.games.create_game(watch_game(starter=BOB))
    assert refused.value.game.id == first.id
    # Other channels, and the starter's own games, are not held by it.
    other = await storage.games.create_game(watch_game(channel=CHANNEL + 1))
    own = await storage.games.create_game(new_game())
    assert await storage.games.active_watch(GUILD, CHANNEL) == first
    assert other.id != first.id and own.mode == "ai"
    assert await storage.games.abandon_game(first.id)
    assert await storage.games.active_watch(GUILD, CHANNEL) is None
    again = await storage.games.create_game(watch_game(starter=BOB))
    assert (await storage.games.active_watch(GUILD, CHANNEL)) == again


async def test_the_one_watch_migration_keeps_the_newest_of_old_duplicates(tmp_path: Path) -> None:
    # A database from before migration 003, where two AI-vs-AI games run in one channel (the old
    # code did not refuse a second one).
    path = tmp_path / "caro.db"
    old_database(path, through=2)
    with sqlite3.connect(path) as db:
        insert = (
            "INSERT INTO games (guild_id, channel_id, player_id, player_mark, ai_level,"
            " player_level, rows, cols, k, rule, mode)"
            " VALUES (?, ?, ?, 'X', 'hard', 'easy', 3, 3, 3, 'freestyle', 'watch')"
        )
        first = db.execute(insert, (GUILD, CHANNEL, ALICE)).lastrowid
        kept_elsewhere = db.execute(insert, (GUILD, CHANNEL + 1, ALICE)).lastrowid
        second = db.execute(insert, (GUILD, CHANNEL, ALICE)).lastrowid
    ids = [first, second]
    store = await Storage.open(path)
    try:
        assert await store.schema_version() == len(migration_files())
        statuses = [(await store.games.game(i)) for i in (*ids, kept_elsewhere)]
        assert [g.status for g in statuses if g is not None] == ["abandoned", "active", "active"]
        with pytest.raises(ActiveGameExists):
            await store.games.create_game(watch_game())
    finally:
        await store.close()


async def test_a_game_is_read_with_its_moves_in_order(storage: Storage) -> None:
    game = await storage.games.create_game(new_game())
    assert (await storage.games.game(game.id)).moves == ()  # type: ignore[union-attr]
    cells = ["C3", "A1", "B2", "E5", "D4"]
    for ply, cell in enumerate(cells):
        by_ai = ply % 2 == 1
        reason = 'block "quoted", ünïcode' if by_ai else None
        assert await add(storage, game.id, ply, cell, by_ai=by_ai, reason=reason, deadline=9.5)
    read = await storage.games.game(game.id)
    assert read is not None and read.ply == 5 and read.deadline == 9.5
    assert [(m.ply, m.cell, m.by_ai, m.reason) for m in read.moves] == [
        (ply, cell, ply % 2 == 1, 'block "quoted", ünïcode' if ply % 2 else None)
        for ply, cell in enumerate(cells)
    ]
    assert await storage.games.game(game.id + 1000) is None


async def test_a_refused_move_leaves_no_transaction_open(
    storage: Storage, backend: Backend
) -> None:
    game = await storage.games.create_game(new_game())
    assert not await add(storage, game.id, 3, "A1")
    # A move row for this ply already exists (written behind the bot's back): the update
    # succeeds, the insert fails on UNIQUE(game_id, ply), and everything is rolled back.
    await backend.execute(
        "INSERT INTO moves (game_id, ply, cell, by_ai) VALUES (?, 0, 'B1', ?)",
        game.id, False if backend.name == "postgres" else 0,
    )
    with pytest.raises(backend.integrity_error):
        await add(storage, game.id, 0, "A1")
    if backend.name == "sqlite":
        assert not storage.connection.db.in_transaction
    read = await storage.games.game(game.id)
    assert read is not None and read.ply == 0 and [m.cell for m in read.moves] == ["B1"]
    # The connection that failed went back usable: the next writes of the game go through.
    await backend.execute("DELETE FROM moves WHERE game_id = ?", game.id)
    assert await add(storage, game.id, 0, "A1")


async def test_guild_settings_are_cached_and_saving_updates_them(storage: Storage) -> None:
    default = GuildSettings(pvp_timeout=600.0, ai_timeout=1800.0)
    assert await storage.settings.guild_settings(GUILD, default) == default
    mine = GuildSettings(pvp_timeout=120.0, ai_timeout=240.0)
    await storage.settings.save_guild_settings(GUILD, mine)
    assert await storage.settings.guild_settings(GUILD, default) == mine
    storage.settings._settings.clear()  # read back from the database, not the cache
    assert await storage.settings.guild_settings(GUILD, default) == mine
    assert await storage.settings.guild_settings(GUILD + 1, default) == default


async def test_meta_values_are_stored_replaced_and_survive_reopening(backend: Backend) -> None:
    store = await backend.open()
    assert await store.meta.get_meta("commands_hash") is None
    await store.meta.set_meta("commands_hash", "abc")
    await store.meta.set_meta("commands_hash", "def")
    assert await store.meta.get_meta("commands_hash") == "def"
    await store.close()
    backend.opened.remove(store)
    store = await backend.open()
    assert await store.meta.get_meta("commands_hash") == "def"
    assert await store.meta.get_meta("other") is None


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_each_repository_implements_every_method_of_its_port(backend: str) -> None:
    """What the services may call are the ports; a repository missing a method, or taking other
    parameters, fails here (and in mypy) before it fails a player."""
    import importlib
    import inspect

    from bot.game import ports

    repositories = {
        "games": ("games", "GameQueries", ports.GameStore),
        "takebacks": ("takebacks", "TakebackQueries", ports.TakebackStore),
        "clocks": ("clocks", "ClockQueries", ports.ClockStore),
        "challenges": ("challenges", "ChallengeQueries", ports.ChallengeStore),
        "standings": ("standings", "StandingQueries", ports.StandingStore),
        "settings": ("settings", "SettingQueries", ports.SettingStore),
        "reviews": ("reviews", "ReviewQueries", ports.ReviewStore),
        "meta": ("meta", "MetaQueries", ports.MetaStore),
        "puzzles": ("puzzles", "PuzzleQueries", ports.PuzzleStore),
        "tournaments": ("tournaments", "TournamentQueries", ports.TournamentStore),
        "outbox": ("outbox", "OutboxQueries", ports.OutboxStore),
        "blocks": ("blocks", "BlockQueries", ports.BlockStore),
        "queue": ("queue", "QueueQueries", ports.QueueStore),
    }
    assert set(repositories) == {
        name for name, member in vars(ports.Storage).items() if isinstance(member, property)
    }
    for module, class_name, port in repositories.values():
        repository = getattr(importlib.import_module(f"bot.storage.{backend}.{module}"), class_name)
        wanted = {
            name: member for name, member in vars(port).items()
            if inspect.iscoroutinefunction(member)
        }
        assert wanted, port
        for name, member in wanted.items():
            implemented = getattr(repository, name, None)
            assert implemented is not None and inspect.iscoroutinefunction(implemented), name
            assert list(inspect.signature(implemented).parameters) == list(
                inspect.signature(member).parameters
            ), name
        assert list(inspect.signature(implemented).parameters) == list(
            inspect.signature(member).parameters
        ), name


async def test_every_mode_is_stored_and_read_back_by_both_backends(storage: Storage) -> None:
    # A new Mode needs a migration per backend that lets the schema accept it.
    seats: dict[Mode, tuple[int | Level, int | Level]] = {
        Mode.AI: (ALICE, Level("easy")),
        Mode.PVP: (ALICE, BOB),
        Mode.WATCH: (Level("easy"), Level("hard")),
    }
    assert set(seats) == set(Mode)
    for channel, (mode, (x, o)) in enumerate(seats.items(), start=CHANNEL):
        new = replace(new_game(channel=channel), mode=mode, x=x, o=o)
        created = await storage.games.create_game(new)
        read = await storage.games.game(created.id)
        assert read is not None and (read.mode, read.x, read.o) == (mode, x, o)


async def test_databases_that_cannot_be_used_are_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("hello, this is not a database\n" * 20)
    cases = {
        tmp_path / "missing" / "caro.db": "does not exist",
        folder: "is a folder",
        not_sqlite: "not an SQLite database",
    }
    for path, reason in cases.items():
        with pytest.raises(StorageError) as refused:
            await open_database(str(path))
        message = str(refused.value)
        assert reason in message and str(path) in message and "\n" not in message
    with pytest.raises(StorageError, match="expected sqlite:///path or postgresql://"):
        await open_database("mysql://db.example/caro")
    assert not_sqlite.read_text().startswith("hello")  # nothing written to it


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere; needs an ordinary user")
async def test_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StorageError, match="not writable"):
            await open_database(str(folder / "caro.db"))
    finally:
        folder.chmod(0o700)


async def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "caro.db"
    store = await open_database(f"sqlite:///{path}")
    await store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
        db.execute("CREATE TABLE from_the_future (id INTEGER)")
    with pytest.raises(StorageError, match="schema version 99, newer than") as refused:
        await open_database(path)
    assert "\n" not in str(refused.value)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (99,)


async def test_member_settings_default_until_saved_and_saving_replaces_them(
    storage: Storage,
) -> None:
    assert await storage.settings.member_settings(ALICE) == MemberSettings()
    mine = MemberSettings(
        theme=BoardStyle.PAPER, turn_pings=False, clock_warnings=False, language="vi"
    )
    await storage.settings.save_member_settings(ALICE, mine)
    assert await storage.settings.member_settings(ALICE) == mine
    assert await storage.settings.member_settings(BOB) == MemberSettings()
    await storage.settings.save_member_settings(ALICE, MemberSettings(theme=BoardStyle.WOOD))
    assert await storage.settings.member_settings(ALICE) == MemberSettings(theme=BoardStyle.WOOD)


async def test_a_server_language_is_saved_with_its_clocks(storage: Storage) -> None:
    default = GuildSettings(pvp_timeout=600.0, ai_timeout=1800.0)
    mine = GuildSettings(pvp_timeout=60.0, ai_timeout=60.0, language="vi")
    await storage.settings.save_guild_settings(GUILD, mine)
    assert await storage.settings.guild_settings(GUILD, default) == mine


def test_a_stored_theme_this_version_does_not_know_reads_as_the_default() -> None:
    assert member_settings_of("neon", 1, 0, None) == MemberSettings(clock_warnings=False)
