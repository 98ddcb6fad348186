"""Tournaments in storage, on both backends: entries only while open and under the player limit,
a start that seeds the entries once, a round paired once however many processes try, a pairing
that takes one game and one result, standings announced once per round, the live tournaments of
each shard, and tournament games that neither count toward the members' limits nor take the
channel's one watch."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from bot.game.model import ActiveGameExists, Mode, NewGame
from bot.game.pairings import Format, Outcome
from bot.game.ports import Storage
from bot.game.tournament_model import NewPairing, NewTournament, TournamentStatus
from bot.storage import migration_files
from engine.game.openings import Opening
from engine.game.types import Level
from testkit.storage_backends import Backend

GUILD, CHANNEL, ALICE, BOB, CAROL, DAVE = 111, 222, 333, 444, 555, 666
A, B, C, D = (str(member) for member in (ALICE, BOB, CAROL, DAVE))


def swiss(guild: int = GUILD, max_players: int = 4, **changes: object) -> NewTournament:
    new = NewTournament(
        guild_id=guild, channel_id=CHANNEL, created_by=ALICE, format=Format.SWISS, rounds=3,
        minutes=None, max_players=max_players, rows=15, cols=15, k=5, rule="freestyle",
        opening=Opening.SWAP2, turn_seconds=45.5, rated=True, starts_at=1000.0, locale="vi",
    )
    return dataclasses.replace(new, **changes)  # type: ignore[arg-type]


def guild_on_shard(shard: int, n: int = 0, shard_count: int = 2) -> int:
    """A guild id that Discord puts on `shard` of `shard_count` ((id >> 22) % count)."""
    return ((n * shard_count + shard) << 22) | 12345


def tournament_game(tournament_id: int | None, x: int | Level, o: int | Level,
                    turn_seconds: float | None = 30.0) -> NewGame:
    members = [s for s in (x, o) if isinstance(s, int)]
    mode = Mode.WATCH if not members else Mode.PVP if len(members) == 2 else Mode.AI
    return NewGame(
        guild_id=GUILD, channel_id=CHANNEL, mode=mode, x=x, o=o,
        started_by=members[0] if members else ALICE, rows=15, cols=15, k=5, rule="freestyle",
        rated=False, tournament_id=tournament_id, turn_seconds=turn_seconds,
    )


async def running(storage: Storage, entrants: tuple[str, ...] = (A, B, C, D)) -> int:
    """A running Swiss tournament of `entrants`, seeded in that order, no round paired yet."""
    t = await storage.tournaments.create_tournament(swiss(max_players=len(entrants)))
    for entrant in entrants:
        assert await storage.tournaments.add_entry(t.id, entrant, max_players=t.max_players)
    assert await storage.tournaments.start_tournament(
        t.id, list(entrants), rounds=3, now=1000.0, ends_at=None
    )
    return t.id


ROUND_1 = [NewPairing(1, A, B), NewPairing(2, C, D)]


# ------------------------------------------------------------------ the tournament
async def test_a_tournament_is_stored_with_every_field_and_listed_newest_first(
    storage: Storage,
) -> None:
    new = swiss()
    t = await storage.tournaments.create_tournament(new)
    assert (t.guild_id, t.channel_id, t.created_by, t.format, t.rounds, t.minutes) == (
        GUILD, CHANNEL, ALICE, Format.SWISS, 3, None)
    assert (t.max_players, t.rows, t.cols, t.k, t.rule, t.opening) == (
        4, 15, 15, 5, "freestyle", Opening.SWAP2)
    assert (t.turn_seconds, t.rated, t.starts_at, t.locale) == (45.5, True, 1000.0, "vi")
    assert (t.status, t.round, t.announced, t.message_id) == (TournamentStatus.OPEN, 0, 0, None)
    assert (t.started_at, t.ends_at, t.finished_at) == (None, None, None)
    await storage.tournaments.set_tournament_message(t.id, 999)
    read = await storage.tournaments.tournament(t.id)
    assert read == dataclasses.replace(t, message_id=999)
    assert await storage.tournaments.tournament(t.id + 100) is None

    arena = await storage.tournaments.create_tournament(
        swiss(format=Format.ARENA, rounds=None, minutes=30, rated=False))
    assert (arena.format, arena.rounds, arena.minutes, arena.rated) == (
        Format.ARENA, None, 30, False)
    await storage.tournaments.create_tournament(swiss(guild=GUILD + 1))
    assert await storage.tournaments.set_status(
        t.id, TournamentStatus.OPEN, TournamentStatus.CANCELLED, now=2000.0)
    listed = await storage.tournaments.guild_tournaments(GUILD, live_only=False)
    assert [x.id for x in listed] == [arena.id, t.id]
    live = await storage.tournaments.guild_tournaments(GUILD, live_only=True)
    assert [x.id for x in live] == [arena.id]


async def test_a_status_changes_only_from_the_one_read_and_over_sets_finished_at(
    storage: Storage,
) -> None:
    tid = await running(storage)
    tours = storage.tournaments
    assert not await tours.set_status(tid, TournamentStatus.OPEN, TournamentStatus.PAUSED,
                                      now=1.0)
    assert await tours.set_status(tid, TournamentStatus.RUNNING, TournamentStatus.PAUSED,
                                  now=1.0)
    paused = await tours.tournament(tid)
    assert paused is not None and paused.status is TournamentStatus.PAUSED
    assert paused.finished_at is None
    assert await tours.set_status(tid, TournamentStatus.PAUSED, TournamentStatus.RUNNING,
                                  now=2.0)
    assert await tours.set_status(tid, TournamentStatus.RUNNING, TournamentStatus.FINISHED,
                                  now=3.0)
    assert not await tours.set_status(tid, TournamentStatus.RUNNING, TournamentStatus.FINISHED,
                                      now=4.0)
    over = await tours.tournament(tid)
    assert over is not None and over.status is TournamentStatus.FINISHED
    assert over.finished_at == 3.0
    assert await tours.live_tournaments() == []


async def test_live_tournaments_are_asked_for_per_shard(storage: Storage) -> None:
    tours = storage.tournaments
    on_0 = await tours.create_tournament(swiss(guild=guild_on_shard(0)))
    on_1 = await tours.create_tournament(swiss(guild=guild_on_shard(1)))
    also_1 = await tours.create_tournament(swiss(guild=guild_on_shard(1, n=3)))
    over = await tours.create_tournament(swiss(guild=guild_on_shard(1, n=4)))
    assert await tours.set_status(over.id, TournamentStatus.OPEN, TournamentStatus.CANCELLED,
                                  now=5.0)
    assert await tours.set_status(also_1.id, TournamentStatus.OPEN, TournamentStatus.PAUSED,
                                  now=5.0)
    assert [t.id for t in await tours.live_tournaments(shard_id=0, shard_count=2)] == [on_0.id]
    assert [t.id for t in await tours.live_tournaments(shard_id=1, shard_count=2)] == [
        on_1.id, also_1.id]
    assert [t.id for t in await tours.live_tournaments()] == [on_0.id, on_1.id, also_1.id]
    with pytest.raises(ValueError):
        await tours.live_tournaments(shard_id=2, shard_count=2)


# ------------------------------------------------------------------ entries
async def test_entries_are_refused_twice_once_full_and_after_the_start(storage: Storage) -> None:
    tours = storage.tournaments
    t = await tours.create_tournament(swiss(max_players=3))
    assert await tours.add_entry(t.id, A, max_players=3)
    assert not await tours.add_entry(t.id, A, max_players=3)  # entered already
    assert await tours.add_entry(t.id, "hard", max_players=3)
    assert await tours.add_entry(t.id, B, max_players=3)
    assert not await tours.add_entry(t.id, C, max_players=3)  # full
    assert await tours.remove_entry(t.id, B)
    assert not await tours.remove_entry(t.id, B)
    assert await tours.add_entry(t.id, C, max_players=3)  # B's place freed
    assert [(e.entrant, e.seed, e.withdrawn) for e in await tours.entries(t.id)] == [
        (A, 0, False), ("hard", 1, False), (C, 2, False)]
    assert not await tours.add_entry(t.id + 100, A, max_players=3)

    assert await tours.start_tournament(t.id, [C, A, "hard"], rounds=2, now=1.0, ends_at=None)
    assert not await tours.add_entry(t.id, D, max_players=8)
    assert not await tours.remove_entry(t.id, A)
    assert await tours.withdraw(t.id, A)
    assert not await tours.withdraw(t.id, A)  # withdrawn already
    assert not await tours.withdraw(t.id, D)  # never entered
    assert await tours.set_status(t.id, TournamentStatus.RUNNING, TournamentStatus.FINISHED,
                                  now=2.0)
    assert not await tours.withdraw(t.id, C)  # over
    assert [(e.entrant, e.withdrawn) for e in await tours.entries(t.id)] == [
        (C, False), (A, True), ("hard", False)]


async def test_a_late_entry_is_taken_while_running_or_paused_under_the_limit_and_never_after(
    storage: Storage,
) -> None:
    tours = storage.tournaments
    t = await tours.create_tournament(swiss(format=Format.ARENA, rounds=None, minutes=30,
                                            max_players=3))
    assert await tours.add_entry(t.id, A, max_players=3, late=True)  # open: as any entry
    assert await tours.add_entry(t.id, B, max_players=3)
    assert await tours.start_tournament(t.id, [A, B], rounds=None, now=1.0, ends_at=1801.0)
    assert await tours.set_status(t.id, TournamentStatus.RUNNING, TournamentStatus.PAUSED,
                                  now=2.0)
    assert await tours.add_entry(t.id, C, max_players=3, late=True)
    assert not await tours.add_entry(t.id, D, max_players=3, late=True)  # full
    assert await tours.withdraw(t.id, B)
    assert not await tours.add_entry(t.id, B, max_players=3, late=True)  # withdrawn, still there
    assert await tours.add_entry(t.id, D, max_players=3, late=True)  # B's place freed
    assert [(e.entrant, e.seed, e.withdrawn) for e in await tours.entries(t.id)] == [
        (A, 0, False), (B, 1, True), (C, 2, False), (D, 3, False)]
    assert await tours.set_status(t.id, TournamentStatus.PAUSED, TournamentStatus.FINISHED,
                                  now=3.0)
    assert not await tours.add_entry(t.id, "hard", max_players=8, late=True)  # over


async def test_the_last_place_is_taken_once_when_processes_race(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()  # two processes' views
    t = await first.tournaments.create_tournament(swiss(max_players=3))
    entrants = [str(1000 + n) for n in range(8)]
    entered = await asyncio.gather(*(
        (first if n % 2 else second).tournaments.add_entry(t.id, entrant, max_players=3)
        for n, entrant in enumerate(entrants)
    ))
    assert sum(entered) == 3
    entries = await first.tournaments.entries(t.id)
    assert sorted(e.entrant for e in entries) == sorted(
        e for e, ok in zip(entrants, entered, strict=True) if ok)
    assert sorted(e.seed for e in entries) == [0, 1, 2]


async def test_the_start_seeds_the_entries_in_order_and_withdrawn_ones_after(
    storage: Storage,
) -> None:
    tours = storage.tournaments
    t = await tours.create_tournament(swiss(max_players=8, rounds=None))
    for entrant in (A, B, "easy", C, D):
        assert await tours.add_entry(t.id, entrant, max_players=8)
    assert await tours.withdraw(t.id, B)  # before the start
    # Seeds that are not the entries in play (one joined or left since they were read): nothing.
    assert not await tours.start_tournament(t.id, [D, C, A], rounds=3, now=5.0, ends_at=None)
    assert not await tours.start_tournament(t.id, [D, C, "easy", A, B], rounds=3, now=5.0,
                                            ends_at=None)
    still = await tours.tournament(t.id)
    assert still is not None and still.status is TournamentStatus.OPEN and still.rounds is None
    assert [e.entrant for e in await tours.entries(t.id)] == [A, B, "easy", C, D]

    assert await tours.start_tournament(t.id, [D, C, "easy", A], rounds=3, now=5.0,
                                        ends_at=65.0)
    assert not await tours.start_tournament(t.id, [A, C, "easy", D], rounds=4, now=6.0,
                                            ends_at=None)
    started = await tours.tournament(t.id)
    assert started is not None and started.status is TournamentStatus.RUNNING
    assert (started.rounds, started.started_at, started.ends_at) == (3, 5.0, 65.0)
    assert [(e.entrant, e.seed, e.withdrawn) for e in await tours.entries(t.id)] == [
        (D, 0, False), (C, 1, False), ("easy", 2, False), (A, 3, False), (B, 4, True)]


# ------------------------------------------------------------------ rounds
async def test_a_round_is_paired_once_when_two_calls_race(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()  # two processes' views
    tid = await running(first)
    for store in (first, second):  # two coroutines of one process, then two processes
        at = (await first.tournaments.tournament(tid)).round  # type: ignore[union-attr]
        paired = await asyncio.gather(
            first.tournaments.add_round(tid, at + 1, ROUND_1),
            store.tournaments.add_round(tid, at + 1, [NewPairing(1, A, C), NewPairing(2, B, D)]),
        )
        assert sorted(paired) == [False, True]
        pairings = [p for p in await second.tournaments.pairings(tid) if p.round == at + 1]
        expected = ROUND_1 if paired[0] else [NewPairing(1, A, C), NewPairing(2, B, D)]
        assert [(p.board, p.x, p.o) for p in pairings] == [(p.board, p.x, p.o) for p in expected]
    after = await second.tournaments.tournament(tid)
    assert after is not None and after.round == 2
    assert len(await second.tournaments.pairings(tid)) == 4


async def test_a_round_is_paired_only_next_and_while_running_and_all_or_nothing(
    backend: Backend, storage: Storage,
) -> None:
    tours = storage.tournaments
    t = await tours.create_tournament(swiss())
    assert not await tours.add_round(t.id, 1, ROUND_1)  # still open
    tid = await running(storage)
    assert not await tours.add_round(tid, 2, ROUND_1)  # round 1 first
    # Two pairings on one board: the insert fails and the round does not move either.
    with pytest.raises(backend.integrity_error):
        await tours.add_round(tid, 1, [NewPairing(1, A, B), NewPairing(1, C, D)])
    at = await tours.tournament(tid)
    assert at is not None and at.round == 0 and await tours.pairings(tid) == []
    assert await tours.set_status(tid, TournamentStatus.RUNNING, TournamentStatus.PAUSED,
                                  now=1.0)
    assert not await tours.add_round(tid, 1, ROUND_1)  # paused
    assert await tours.set_status(tid, TournamentStatus.PAUSED, TournamentStatus.RUNNING,
                                  now=2.0)
    assert await tours.add_round(tid, 1, [*ROUND_1, NewPairing(3, "easy", None)])
    assert not await tours.add_round(tid, 1, ROUND_1)
    pairings = await tours.pairings(tid)
    assert [(p.round, p.board, p.x, p.o, p.game_id, p.outcome) for p in pairings] == [
        (1, 1, A, B, None, None), (1, 2, C, D, None, None), (1, 3, "easy", None, None, None)]
    assert pairings[2].is_bye and pairings[2].done and not pairings[0].done


async def test_a_game_binds_to_one_pairing_and_release_frees_it(storage: Storage) -> None:
    tours = storage.tournaments
    tid = await running(storage)
    assert await tours.add_round(tid, 1, [*ROUND_1, NewPairing(3, "easy", None)])
    first, second, bye = await tours.pairings(tid)
    game = await storage.games.create_game(tournament_game(tid, ALICE, BOB))
    other = await storage.games.create_game(tournament_game(tid, CAROL, DAVE))
    assert await tours.claim_game(first.id, game.id)
    assert not await tours.claim_game(first.id, other.id)  # the pairing has its game
    assert not await tours.claim_game(second.id, game.id)  # the game has its pairing
    assert not await tours.claim_game(bye.id, other.id)  # a bye is played by nobody
    assert not await tours.release_game(first.id, other.id)  # not its game
    assert await tours.release_game(first.id, game.id)
    assert not await tours.release_game(first.id, game.id)
    assert await tours.claim_game(first.id, other.id)
    assert await tours.claim_game(second.id, game.id)
    read = {p.id: p.game_id for p in await tours.pairings(tid)}
    assert read == {first.id: other.id, second.id: game.id, bye.id: None}


async def test_the_running_games_no_pairing_holds_are_listed(storage: Storage) -> None:
    tours = storage.tournaments
    tid = await running(storage)
    assert await tours.add_round(tid, 1, ROUND_1)
    first, _ = await tours.pairings(tid)
    bound = await storage.games.create_game(tournament_game(tid, ALICE, BOB))
    stray = await storage.games.create_game(tournament_game(tid, Level.HARD, Level.EASY))
    ended = await storage.games.create_game(tournament_game(tid, CAROL, DAVE))
    await storage.games.create_game(tournament_game(None, Level.HARD, Level.EASY))  # no tournament
    assert await tours.claim_game(first.id, bound.id)
    assert await storage.games.abandon_game(ended.id)
    assert await tours.unbound_games(tid) == [stray.id]
    assert await tours.unbound_games(tid + 100) == []


async def test_a_result_is_written_once_with_the_colours_played(storage: Storage) -> None:
    tours = storage.tournaments
    tid = await running(storage)
    assert await tours.add_round(tid, 1, [*ROUND_1, NewPairing(3, "easy", None)])
    first, second, bye = await tours.pairings(tid)
    game = await storage.games.create_game(tournament_game(tid, ALICE, BOB))
    assert await tours.claim_game(first.id, game.id)
    # Two writers at once, in either order (a pool's connections race): one result is kept.
    # The first: the opening swapped the seats, B played X and won.
    written = await asyncio.gather(
        tours.record_result(first.id, B, A, Outcome.X_WINS),
        tours.record_result(first.id, A, B, Outcome.DRAW),
    )
    assert sorted(written) == [False, True]
    kept = (B, A, Outcome.X_WINS) if written[0] else (A, B, Outcome.DRAW)
    assert not await tours.record_result(bye.id, "easy", A, Outcome.X_WINS)
    assert await tours.record_result(second.id, C, D, Outcome.DRAW)
    assert not await tours.release_game(first.id, game.id)  # a game with a result stays
    done, draw, _ = await tours.pairings(tid)
    assert (done.x, done.o, done.outcome, done.game_id, done.done) == (*kept, game.id, True)
    assert draw.outcome is Outcome.DRAW


async def test_each_rounds_standings_are_claimed_once(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    tid = await running(first)
    claims = await asyncio.gather(
        first.tournaments.claim_announcement(tid, 1),
        second.tournaments.claim_announcement(tid, 1),
        first.tournaments.claim_announcement(tid, 1),
    )
    assert sorted(claims) == [False, False, True]
    assert await second.tournaments.claim_announcement(tid, 2)
    assert not await first.tournaments.claim_announcement(tid, 1)  # an older round
    assert not await first.tournaments.claim_announcement(tid, 2)
    read = await first.tournaments.tournament(tid)
    assert read is not None and read.announced == 2


# ------------------------------------------------------------------ tournament games
async def test_games_keep_their_tournament_and_turn_time_through_a_read(
    storage: Storage,
) -> None:
    tid = await running(storage)
    game = await storage.games.create_game(tournament_game(tid, ALICE, Level.HARD, 12.5))
    assert (game.tournament_id, game.turn_seconds) == (tid, 12.5)
    read = await storage.games.game(game.id)
    assert read == game
    plain = await storage.games.create_game(tournament_game(None, BOB, Level.EASY, None))
    read_plain = await storage.games.game(plain.id)
    assert read_plain is not None
    assert (read_plain.tournament_id, read_plain.turn_seconds) == (None, None)
    assert await storage.games.active_game(GUILD, CHANNEL, ALICE) == game


async def test_tournament_games_are_not_counted_and_share_the_channel_with_a_watch(
    storage: Storage,
) -> None:
    tid = await running(storage, (A, B, "hard", "normal", "easy", "hard#2"))
    # AI entries play each other side by side in the tournament's channel.
    boards = [await storage.games.create_game(tournament_game(tid, x, o)) for x, o in (
        (Level.HARD, Level.NORMAL), (Level.EASY, Level.HARD))]
    theirs = await storage.games.create_game(tournament_game(tid, ALICE, Level.NORMAL))
    counts = await storage.games.live_counts(GUILD, ALICE)
    assert (counts.member_ai_games, counts.guild_ai_games, counts.guild_watches) == (0, 0, 0)
    assert await storage.games.active_watch(GUILD, CHANNEL) is None
    # A member's own watch in the channel still runs, once.
    watch = await storage.games.create_game(tournament_game(None, Level.EASY, Level.EASY))
    assert await storage.games.active_watch(GUILD, CHANNEL) == watch
    with pytest.raises(ActiveGameExists) as refused:
        await storage.games.create_game(tournament_game(None, Level.HARD, Level.EASY))
    assert refused.value.game == watch
    counts = await storage.games.live_counts(GUILD, ALICE)
    assert (counts.member_ai_games, counts.guild_ai_games, counts.guild_watches) == (0, 0, 1)
    # A member in a tournament game holds their seat: one running game per channel still.
    with pytest.raises(ActiveGameExists) as seated:
        await storage.games.create_game(tournament_game(None, ALICE, Level.EASY))
    assert seated.value.game == theirs
    assert all(b.tournament_id == tid for b in boards)


async def test_a_database_of_the_schema_before_upgrades_with_its_watch_kept(
    backend: Backend, tmp_path: Path
) -> None:
    shipped = migration_files(backend.migrations)
    older = tmp_path / "older"
    older.mkdir()
    for _, path in shipped[:-1]:
        (older / path.name).write_text(path.read_text())
    await backend.open(older)
    # A watch running when the bot stops, written as the previous version did.
    await backend.execute(
        "INSERT INTO games (id, guild_id, channel_id, mode, x_level, o_level, started_by, rows,"
        " cols, k, rule, rated) VALUES (7, ?, ?, 'watch', 'easy', 'hard', ?, 15, 15, 5,"
        " 'freestyle', ?)",
        GUILD, CHANNEL, ALICE, False,
    )
    store = await backend.open()
    assert await store.schema_version() == len(shipped)
    read = await store.games.game(7)
    assert read is not None and (read.tournament_id, read.turn_seconds) == (None, None)
    with pytest.raises(ActiveGameExists):
        await store.games.create_game(tournament_game(None, Level.HARD, Level.EASY, None))
    tid = await running(store)
    assert await store.games.create_game(tournament_game(tid, Level.HARD, Level.EASY))
