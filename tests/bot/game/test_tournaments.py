"""Running tournaments (bot/game/tournaments.py, tournament_runner.py, tournament_reads.py) on
both storage backends with a fake clock: the 16-player Swiss worked by hand, entries, the
organiser's controls (never deciding their own game), the caps on tournaments not over,
withdrawals, round-robin byes, the arena, and steps taken twice at once."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from fractions import Fraction

import pytest

from bot.game.errors import UserError
from bot.game.model import Mode, Status
from bot.game.pairings import Outcome
from bot.game.services import Services
from bot.game.tournament_model import TournamentStatus, member_entrant
from bot.game.tournament_reads import TournamentReads
from bot.game.tournament_runner import Progress, TournamentRunner, game_options
from bot.game.tournaments import (
    MAX_LIVE_PER_CREATOR,
    MAX_LIVE_PER_SERVER,
    Organiser,
    TournamentOptions,
    TournamentService,
)
from engine import Mark
from engine.game.types import Level
from testkit.services import ALICE, BOB, CAROL, CHANNEL, DAVE, ERIN, GUILD

ORGANISER = Organiser(ALICE)

# The 16-player Swiss of 4 rounds worked by hand (docs/playing/tournaments.md has the rules):
# players P1..P16 in seed order, every game won by the player with X. Pairings are (X, O).
HAND_WORKED_ROUNDS = [
    [(1, 9), (10, 2), (3, 11), (12, 4), (5, 13), (14, 6), (7, 15), (16, 8)],
    [(10, 1), (12, 3), (14, 5), (16, 7), (2, 9), (4, 11), (6, 13), (8, 15)],
    [(3, 10), (1, 12), (2, 14), (4, 16), (9, 5), (15, 6), (11, 7), (13, 8)],
    [(14, 1), (12, 2), (16, 3), (10, 4), (5, 11), (6, 9), (7, 8), (13, 15)],
]
# Final standings: (player, points, Buchholz, Sonneborn-Berger), rank 1 first.
HAND_WORKED_STANDINGS = [
    (10, 3, 8, 6), (12, 3, 8, 6), (14, 3, 8, 6), (16, 3, 7, 5),
    (1, 2, 10, 4), (2, 2, 10, 4), (3, 2, 10, 4), (4, 2, 10, 4),
    (5, 2, 7, 3), (6, 2, 7, 3), (7, 2, 6, 2), (13, 2, 6, 2),
    (9, 1, 8, 2), (11, 1, 8, 2), (8, 1, 8, 1), (15, 1, 7, 2),
]
# Entered in this order, the AI entries seed by their anchor ratings (impossible, hard, normal),
# each level in the order of entry: P1..P6 impossible, P7..P11 hard, P12..P16 normal.
ENTRY_ORDER = ["normal", "hard", "impossible"] * 5 + ["impossible"]
SEEDED = (
    ["impossible"] + [f"impossible#{n}" for n in range(2, 7)]
    + ["hard"] + [f"hard#{n}" for n in range(2, 6)]
    + ["normal"] + [f"normal#{n}" for n in range(2, 6)]
)


async def create(
    svc: Services, format: str = "swiss", creator: Organiser = ORGANISER, **options: object
) -> int:
    row = await svc.tournaments.create(
        guild_id=GUILD,
        channel_id=CHANNEL,
        creator=creator,
        options=TournamentOptions(format=format, **options),  # type: ignore[arg-type]
        min_turn_seconds=10.0,
        locale="en-US",
    )
    return row.id


async def finish_all(svc: Services, progress: Progress, winner: Mark = Mark.X) -> int:
    """End every game the step started, won by `winner`; how many."""
    for state in progress.games:
        await svc.games.attach_message(state.id, 5000 + state.id)
        assert await svc.games.forfeit(state.id, winner.other) is not None
    return len(progress.games)


async def test_sixteen_players_are_paired_over_four_swiss_rounds_as_worked_by_hand(world) -> None:
    svc, clock = world
    tid = await create(svc, size="4x4k3", rounds=4)
    for level in ENTRY_ORDER:
        await svc.tournaments.add_ai(tid, level, ORGANISER)
    clock.now += 11 * 60
    rounds_announced = []
    final = False
    for _ in range(12):
        progress = await svc.tournament_runner.advance(tid)
        assert progress is not None
        if progress.round_done is not None:
            rounds_announced.append(progress.round_done)
        final = final or progress.final
        if progress.tournament.status is TournamentStatus.FINISHED:
            break
        await finish_all(svc, progress)
    row = await svc.tournament_reads.get(tid)
    assert row is not None and row.status is TournamentStatus.FINISHED and final
    assert rounds_announced == [1, 2, 3]
    pairings = await svc.tournament_reads.pairings(tid)
    played = [
        [(p.x, p.o) for p in pairings if p.round == number] for number in range(1, 5)
    ]
    expected = [
        [(SEEDED[x - 1], SEEDED[o - 1]) for x, o in round_] for round_ in HAND_WORKED_ROUNDS
    ]
    assert played == expected
    assert all(p.outcome is Outcome.X_WINS and p.game_id is not None for p in pairings)
    standings = await svc.tournament_reads.standings(row)
    assert [
        (s.player, s.points, s.buchholz, s.sonneborn_berger) for s in standings
    ] == [(SEEDED[p - 1], Fraction(a), Fraction(b), Fraction(c)) for p, a, b, c in HAND_WORKED_STANDINGS]
    # AI-vs-AI games are never rated.
    states = [await svc.games.state(p.game_id) for p in pairings if p.game_id is not None]
    assert all(s is not None and s.mode is Mode.WATCH and not s.row.rated for s in states)


async def test_a_step_taken_twice_at_once_pairs_the_round_once(world) -> None:
    svc, clock = world
    tid = await create(svc, size="4x4k3", rounds=3)
    for level in ["hard"] * 8:
        await svc.tournaments.add_ai(tid, level, ORGANISER)
    clock.now += 11 * 60
    # A second service over the same database stands for another process holding the shard.
    other = TournamentRunner(
        svc.storage.tournaments, TournamentReads(svc.storage.tournaments), svc.games,
        svc.storage.standings, outbox=svc.outbox, clock=clock,
    )
    first, second = await asyncio.gather(svc.tournament_runner.advance(tid), other.advance(tid))
    assert first is not None and second is not None
    assert first.started != second.started  # one of them started it
    pairings = await svc.tournament_reads.pairings(tid)
    assert len(pairings) == 4 and {p.round for p in pairings} == {1}
    games = [p.game_id for p in pairings]
    assert None not in games and len(set(games)) == 4
    # Every pairing's game was handed out to be posted, and nothing that no pairing holds. A
    # step that reads a pairing after the other bound its game hands that game out too, as one
    # not posted yet: which step does so depends on how the two interleave.
    assert {state.id for state in first.games + second.games} == set(games)


async def test_entries_are_checked_and_close_at_the_start(world) -> None:
    svc, clock = world
    tid = await create(svc, format="round_robin", max_players=3)
    await svc.tournaments.join(tid, BOB)
    with pytest.raises(UserError) as twice:
        await svc.tournaments.join(tid, BOB)
    assert twice.value.key == "tournament.already_in"
    await svc.tournaments.join(tid, CAROL)
    await svc.tournaments.add_ai(tid, "easy", ORGANISER)
    with pytest.raises(UserError) as full:
        await svc.tournaments.join(tid, DAVE)
    assert full.value.key == "tournament.full"
    await svc.tournaments.leave(tid, CAROL)
    await svc.tournaments.join(tid, DAVE)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    assert progress.started
    with pytest.raises(UserError) as closed:
        await svc.tournaments.join(tid, ERIN)
    assert closed.value.key == "tournament.not_open"
    entries = await svc.tournament_reads.entries(tid)
    assert {e.entrant for e in entries} == {str(BOB), str(DAVE), "easy"}


@pytest.mark.parametrize(
    ("option", "value"),
    [("rounds", 0), ("rounds", 16), ("max_players", 1), ("max_players", 65), ("starts_in", -1),
     ("turn_seconds", 5), ("minutes", 2)],
)
async def test_a_bad_option_is_refused_naming_its_range(world, option: str, value: int) -> None:
    svc, _ = world
    format = "arena" if option == "minutes" else "swiss"
    with pytest.raises(UserError) as refused:
        await create(svc, format=format, **{option: value})
    assert refused.value.key == "tournament.bad_number"


async def test_an_unknown_format_is_refused_with_the_choices(world) -> None:
    svc, _ = world
    with pytest.raises(UserError) as refused:
        await create(svc, format="knockout")
    assert refused.value.key == "error.bad_choice"
    assert "swiss" in str(refused.value.values["choices"])


async def test_a_start_with_fewer_than_two_players_cancels(world) -> None:
    svc, clock = world
    tid = await create(svc, starts_in=5)
    await svc.tournaments.join(tid, BOB)
    early = await svc.tournament_runner.advance(tid)
    assert early is not None and early.tournament.status is TournamentStatus.OPEN
    clock.now += 5 * 60
    progress = await svc.tournament_runner.advance(tid)
    assert progress is not None and progress.too_few
    assert progress.tournament.status is TournamentStatus.CANCELLED
    assert await svc.tournament_runner.advance(tid) is None


async def test_only_organisers_may_control_a_tournament(world) -> None:
    svc, _ = world
    tid = await create(svc)
    with pytest.raises(UserError) as denied:
        await svc.tournaments.add_ai(tid, "easy", Organiser(BOB))
    assert denied.value.key == "tournament.not_organiser"
    await svc.tournaments.add_ai(tid, "easy", Organiser(BOB, manage_server=True))
    settings = await svc.settings.timeouts(GUILD)
    await svc.settings.save_timeouts(GUILD, replace(settings, tournament_role=777))
    await svc.tournaments.add_ai(tid, "hard", Organiser(CAROL, roles=frozenset({777})))
    with pytest.raises(UserError):
        await svc.tournaments.cancel(tid, Organiser(CAROL, roles=frozenset({778})))
    await svc.tournaments.cancel(tid, Organiser(CAROL, roles=frozenset({777})))
    row = await svc.tournament_reads.get(tid)
    assert row is not None and row.status is TournamentStatus.CANCELLED


async def test_a_withdrawn_player_loses_the_game_under_way_and_is_paired_no_more(world) -> None:
    svc, clock = world
    tid = await create(svc, rounds=3)
    for member in (BOB, CAROL, DAVE, ERIN):
        await svc.tournaments.join(tid, member)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    assert len(progress.games) == 2
    bobs = next(s for s in progress.games if BOB in s.row.members)
    await svc.tournaments.leave(tid, BOB)
    lost = await svc.games.state(bobs.id)
    assert lost is not None and lost.row.status is Status.FINISHED
    assert lost.row.winner is (Mark.O if lost.row.x == BOB else Mark.X)
    others = [s for s in progress.games if s.id != bobs.id]
    await finish_all(svc, Progress(progress.tournament, games=others))
    second = await svc.tournament_runner.advance(tid)
    assert second is not None and second.round_done == 1
    round_two = [p for p in await svc.tournament_reads.pairings(tid) if p.round == 2]
    assert all(str(BOB) not in (p.x, p.o) for p in round_two)
    # Three players left: one of them sits the round out with a bye.
    assert sum(1 for p in round_two if p.o is None) == 1


async def test_an_organiser_removing_their_own_opponent_leaves_that_game_to_be_played_out(
    world,
) -> None:
    svc, _ = world
    tid = await create(svc, rounds=3)  # rated
    for member in (ALICE, BOB, CAROL, DAVE):
        await svc.tournaments.join(tid, member)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    mine = next(s for s in progress.games if ALICE in s.row.members)
    assert mine.row.rated
    (opponent,) = (m for m in mine.row.members if m != ALICE)
    (others,) = (s for s in progress.games if s.id != mine.id)
    before = await svc.standings.standing(GUILD, ALICE, Mode.PVP)
    removal = await svc.tournaments.remove(tid, member_entrant(opponent), ORGANISER)
    # Withdrawn, but the game against the organiser goes on: nobody's rating moved.
    assert removal.ended == [] and [s.id for s in removal.played_out] == [mine.id]
    still = await svc.games.state(mine.id)
    assert still is not None and still.active
    assert await svc.games.rating_changes(mine.id) == []
    assert await svc.standings.standing(GUILD, ALICE, Mode.PVP) == before
    # Played out, it counts as played: here the removed player wins it.
    await svc.games.resign(mine.id, ALICE)
    assert {c.user_id for c in await svc.games.rating_changes(mine.id)} == {ALICE, opponent}
    # Removing a player of a game the organiser does not play still ends it as lost.
    other = await svc.tournaments.remove(tid, member_entrant(others.row.members[0]), ORGANISER)
    assert [s.id for s in other.ended] == [others.id] and other.played_out == []
    after = await svc.tournament_runner.advance(tid)
    assert after is not None and after.round_done == 1
    round_one = {p.game_id: p for p in await svc.tournament_reads.pairings(tid) if p.round == 1}
    won_by = round_one[mine.id]
    winner = won_by.x if won_by.outcome is Outcome.X_WINS else won_by.o
    assert winner == member_entrant(opponent)
    # Withdrawn all the same: paired no more.
    round_two = [p for p in await svc.tournament_reads.pairings(tid) if p.round == 2]
    assert all(member_entrant(opponent) not in (p.x, p.o) for p in round_two)


async def test_a_member_keeps_at_most_two_tournaments_not_over_unless_trusted_by_the_server(
    world,
) -> None:
    svc, _ = world
    bob = Organiser(BOB)
    first = await create(svc, creator=bob)
    await create(svc, creator=bob)
    with pytest.raises(UserError) as capped:
        await create(svc, creator=bob)
    assert capped.value.key == "tournament.too_many_mine"
    assert capped.value.values == {"count": MAX_LIVE_PER_CREATOR}
    # Another member is not held back by Bob's.
    await create(svc, creator=Organiser(CAROL))
    # Once one of his is over he may create another.
    await svc.tournaments.cancel(first, bob)
    await create(svc, creator=bob)
    # Members the server trusts to organise (Manage Server, the tournament role) are held only
    # by the server's cap.
    settings = await svc.settings.timeouts(GUILD)
    await svc.settings.save_timeouts(GUILD, replace(settings, tournament_role=777))
    await create(svc, creator=Organiser(BOB, roles=frozenset({777})))
    await create(svc, creator=Organiser(DAVE, manage_server=True))
    assert len(await svc.tournament_reads.in_server(GUILD, live_only=True)) == MAX_LIVE_PER_SERVER
    with pytest.raises(UserError) as full:
        await create(svc, creator=Organiser(ERIN, manage_server=True))
    assert full.value.key == "tournament.too_many"


async def test_a_round_robin_of_five_meets_everyone_once_with_a_bye_each(world) -> None:
    svc, _ = world
    tid = await create(svc, format="round_robin")
    for member in (BOB, CAROL, DAVE, ERIN):
        await svc.tournaments.join(tid, member)
    await svc.tournaments.add_ai(tid, "easy", ORGANISER)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    while progress.tournament.status is not TournamentStatus.FINISHED:
        await finish_all(svc, progress, Mark.O)
        step = await svc.tournament_runner.advance(tid)
        assert step is not None
        progress = step
    row = progress.tournament
    assert row.rounds == 5
    pairings = await svc.tournament_reads.pairings(tid)
    met = [frozenset((p.x, p.o)) for p in pairings if p.o is not None]
    assert len(met) == len(set(met)) == 10
    byes = [p.x for p in pairings if p.o is None]
    assert sorted(byes) == sorted(e.entrant for e in await svc.tournament_reads.entries(tid))
    # Member against member is rated; member against the AI too; both as the server rates them.
    rated = [await svc.games.state(p.game_id) for p in pairings if p.game_id is not None]
    assert all(s is not None and s.row.rated for s in rated)


async def test_pause_holds_the_next_round_until_resumed(world) -> None:
    svc, _ = world
    tid = await create(svc, rounds=2)
    for member in (BOB, CAROL, DAVE, ERIN):
        await svc.tournaments.join(tid, member)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    await svc.tournaments.pause(tid, ORGANISER)
    await finish_all(svc, progress)
    held = await svc.tournament_runner.advance(tid)
    assert held is not None and held.round_done == 1 and not held.games
    assert {p.round for p in await svc.tournament_reads.pairings(tid)} == {1}
    with pytest.raises(UserError) as twice:
        await svc.tournaments.pause(tid, ORGANISER)
    assert twice.value.key == "tournament.not_running"
    await svc.tournaments.resume(tid, ORGANISER)
    going = await svc.tournament_runner.advance(tid)
    assert going is not None and len(going.games) == 2


async def test_cancelling_ends_the_running_games_without_a_result(world) -> None:
    svc, _ = world
    tid = await create(svc)
    for member in (BOB, CAROL):
        await svc.tournaments.join(tid, member)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    (state,) = progress.games
    await svc.tournaments.cancel(tid, ORGANISER)
    ended = await svc.games.state(state.id)
    assert ended is not None and ended.row.status is Status.ABANDONED
    with pytest.raises(UserError) as again:
        await svc.tournaments.cancel(tid, ORGANISER)
    assert again.value.key == "tournament.over"


async def test_an_arena_pairs_whoever_is_free_until_its_end(world) -> None:
    svc, clock = world
    tid = await create(svc, format="arena", minutes=10)
    for member in (BOB, CAROL, DAVE):
        await svc.tournaments.join(tid, member)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    assert len(progress.games) == 1  # two of three play; one waits
    await finish_all(svc, progress)
    again = await svc.tournament_runner.advance(tid)
    assert again is not None and len(again.games) == 1
    waiting_played = {str(m) for m in again.games[0].row.members}
    first_players = {str(m) for m in progress.games[0].row.members}
    assert waiting_played != first_players  # the one who waited plays
    await svc.games.attach_message(again.games[0].id, 6000)
    clock.now += 11 * 60
    ended = await svc.tournament_runner.advance(tid)
    assert ended is not None and not ended.games and not ended.final  # a game is still on
    await finish_all(svc, again)
    final = await svc.tournament_runner.advance(tid)
    assert final is not None and final.final
    assert final.tournament.status is TournamentStatus.FINISHED


async def test_members_join_an_arena_under_way_until_its_time_is_up(world) -> None:
    svc, clock = world
    tid = await create(svc, format="arena", minutes=10)
    for member in (BOB, CAROL):
        await svc.tournaments.join(tid, member)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    assert len(progress.games) == 1
    await svc.games.attach_message(progress.games[0].id, 5000)
    await svc.tournaments.join(tid, DAVE)
    await svc.tournaments.join(tid, ERIN)
    late = await svc.tournament_runner.advance(tid)
    assert late is not None and len(late.games) == 1
    assert set(late.games[0].row.members) == {DAVE, ERIN}  # paired at the next step, as free
    await svc.tournaments.leave(tid, BOB)
    with pytest.raises(UserError) as again:
        await svc.tournaments.join(tid, BOB)
    assert again.value.key == "tournament.no_return"
    with pytest.raises(UserError) as twice:
        await svc.tournaments.join(tid, DAVE)
    assert twice.value.key == "tournament.already_in"
    clock.now += 10 * 60
    with pytest.raises(UserError) as closed:
        await svc.tournaments.join(tid, ALICE)
    assert closed.value.key == "tournament.not_open"
    entries = await svc.tournament_reads.entries(tid)
    assert [e.entrant for e in entries if not e.withdrawn] == [str(CAROL), str(DAVE), str(ERIN)]


async def test_a_game_whose_board_was_never_posted_is_handed_out_again(world) -> None:
    svc, _ = world
    tid = await create(svc)
    for member in (BOB, CAROL):
        await svc.tournaments.join(tid, member)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    (state,) = progress.games
    again = await svc.tournament_runner.advance(tid)
    assert again is not None and [s.id for s in again.games] == [state.id]
    await svc.games.attach_message(state.id, 4242)
    posted = await svc.tournament_runner.advance(tid)
    assert posted is not None and posted.games == []


async def test_a_tournament_game_is_timed_by_its_own_clock_and_refuses_takebacks(world) -> None:
    svc, clock = world
    tid = await create(svc, turn_seconds=30, rated=False)
    for member in (BOB, CAROL):
        await svc.tournaments.join(tid, member)
    (state,) = (await svc.tournaments.start_now(tid, ORGANISER)).games
    assert state.row.deadline == pytest.approx(clock.now + 30)
    assert state.row.tournament_id == tid and not state.row.rated
    from bot.game.takebacks import refusal

    assert refusal(state.row) == "takeback.tournament"


async def test_a_game_the_bot_made_but_never_bound_gives_way_to_the_pairings_own(world) -> None:
    svc, clock = world
    tid = await create(svc)
    for member in (BOB, CAROL):
        await svc.tournaments.join(tid, member)
    await svc.tournaments.add_ai(tid, "hard", ORGANISER)
    await svc.tournaments.add_ai(tid, "normal", ORGANISER)
    row = await svc.tournament_reads.get(tid)
    assert row is not None
    # The bot stopped after creating games for the pairings and before binding them: one of
    # two members, one of two AI entries (which no member's game would ever be in the way of).
    orphans = [
        await svc.games.start_tournament_game(
            guild_id=GUILD, channel_id=CHANNEL, x=x, o=o, organiser=ALICE,
            options=game_options(row), turn_seconds=120.0, tournament_id=tid, locale="en-US",
        )
        for x, o in ((BOB, CAROL), (Level.HARD, Level.NORMAL))
    ]
    # A new process's first step clears them away before it starts the pairings' own games.
    reads = TournamentReads(svc.storage.tournaments)
    runner = TournamentRunner(
        svc.storage.tournaments, reads, svc.games, svc.storage.standings,
        outbox=svc.outbox, clock=clock,
    )
    fresh = TournamentService(
        svc.storage.tournaments, reads, runner, svc.games, svc.settings,
        outbox=svc.outbox, clock=clock,
    )
    progress = await fresh.start_now(tid, ORGANISER)
    for orphan in orphans:
        gone = await svc.games.state(orphan.id)
        assert gone is not None and gone.row.status is Status.ABANDONED
    assert len(progress.games) == 2
    bound = {p.game_id for p in await svc.tournament_reads.pairings(tid)}
    assert bound == {s.id for s in progress.games}
    assert not bound & {o.id for o in orphans}


async def test_a_tournament_game_knows_its_tournament_round_and_entries(world) -> None:
    svc, _ = world
    tid = await create(svc)
    for _ in range(2):
        await svc.tournaments.add_ai(tid, "hard", ORGANISER)
    (state,) = (await svc.tournaments.start_now(tid, ORGANISER)).games
    placed = await svc.tournament_reads.game_of(state)
    assert placed is not None and placed.tournament.id == tid and placed.round == 1
    (pairing,) = await svc.tournament_reads.pairings(tid)
    # Two entries of one level sit at seats alike: the pairing says which is which.
    assert (placed.entrant(state, Mark.X), placed.entrant(state, Mark.O)) == (pairing.x, pairing.o)
    assert {pairing.x, pairing.o} == {"hard", "hard#2"}
    other = replace(state, row=replace(state.row, tournament_id=None))
    assert await svc.tournament_reads.game_of(other) is None


async def test_a_tournament_game_whose_opening_swapped_colours_names_its_entries_swapped(
    world,
) -> None:
    svc, _ = world
    tid = await create(svc)
    for member in (BOB, CAROL):
        await svc.tournaments.join(tid, member)
    (state,) = (await svc.tournaments.start_now(tid, ORGANISER)).games
    placed = await svc.tournament_reads.game_of(state)
    assert placed is not None
    x, o = placed.entrant(state, Mark.X), placed.entrant(state, Mark.O)
    assert {x, o} == {member_entrant(BOB), member_entrant(CAROL)}
    swapped = replace(state, row=replace(state.row, x=state.row.o, o=state.row.x))
    assert (placed.entrant(swapped, Mark.X), placed.entrant(swapped, Mark.O)) == (o, x)


async def test_a_finished_tournament_game_has_no_rematch(world) -> None:
    svc, _ = world
    tid = await create(svc)
    for member in (BOB, CAROL):
        await svc.tournaments.join(tid, member)
    (state,) = (await svc.tournaments.start_now(tid, ORGANISER)).games
    loser = state.row.x
    assert isinstance(loser, int)
    await svc.games.resign(state.id, loser)
    with pytest.raises(UserError, match="no rematch of a tournament game"):
        await svc.games.rematch_options(state.id, loser)
