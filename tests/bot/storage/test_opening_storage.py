"""Openings in storage, on both backends: a game and a challenge keep their opening, a game its
decisions; a decision that gives X to the other player swaps the seats in the same write, only
at the move count and decisions it was taken on; a finish named from the seats before a swap
writes nothing; and of two processes deciding the same step, one wins."""

from __future__ import annotations

import asyncio

from bot.game import ratings
from bot.game.model import ChallengeFirst, EndReason, Finish, Mode, NewChallenge, NewGame, Status
from bot.game.ports import MoveOutcome
from bot.storage import SqliteStorage
from engine import Mark
from engine.game.openings import Opening
from engine.game.types import Level
from testkit.storage_backends import Backend

GUILD, CHANNEL, ALICE, BOB = 111, 222, 333, 444
RATE = ratings.game_updates


def swap2_game(x: int | Level = ALICE, o: int | Level = BOB) -> NewGame:
    return NewGame(
        guild_id=GUILD,
        channel_id=CHANNEL,
        mode=Mode.PVP if isinstance(o, int) and isinstance(x, int) else Mode.AI,
        x=x,
        o=o,
        started_by=ALICE,
        rows=15,
        cols=15,
        k=5,
        rule="freestyle",
        rated=True,
        opening=Opening.SWAP2,
    )


async def three_stones(storage: SqliteStorage, new: NewGame) -> int:
    game = await storage.games.create_game(new)
    for ply, cell in enumerate(("H8", "H9", "J8")):
        stored = await storage.games.add_move(game.id, ply, cell, by_ai=False, now=0.0)
        assert stored is MoveOutcome.STORED
    return game.id


async def test_a_game_and_a_challenge_keep_their_opening_and_old_rows_are_free(
    storage: SqliteStorage,
) -> None:
    game = await storage.games.create_game(swap2_game())
    assert (game.opening, game.decisions) == (Opening.SWAP2, ())
    free = await storage.games.create_game(
        NewGame(
            guild_id=GUILD, channel_id=CHANNEL + 1, mode=Mode.AI, x=ALICE, o=Level.EASY,
            started_by=ALICE, rows=3, cols=3, k=3, rule="freestyle", rated=False,
        )
    )
    assert (free.opening, free.decisions) == (Opening.FREE, ())
    challenge = await storage.challenges.create_challenge(
        NewChallenge(
            guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB, rows=15,
            cols=15, k=5, rule="renju", first=ChallengeFirst.ME, locale="en-US",
            deadline=100.0, opening=Opening.RIF,
        ),
        now=0.0,
    )
    assert challenge.opening is Opening.RIF
    again = await storage.challenges.challenge(challenge.id)
    assert again is not None and again.opening is Opening.RIF


async def test_a_decision_that_gives_x_away_swaps_the_seats_in_the_same_write(
    storage: SqliteStorage,
) -> None:
    game = await three_stones(storage, swap2_game())
    outcome = await storage.games.add_decision(
        game, 3, (), ("take_x",), swap=True, now=0.0, deadline=500.0
    )
    assert outcome is MoveOutcome.STORED
    row = await storage.games.game(game)
    assert row is not None
    assert (row.x, row.o, row.decisions, row.deadline, row.ply) == (
        BOB, ALICE, ("take_x",), 500.0, 3,
    )
    # Both members still hold their seat of the running game (one game per channel).
    assert await storage.games.active_game(GUILD, CHANNEL, ALICE) is not None
    assert await storage.games.active_game(GUILD, CHANNEL, BOB) is not None


async def test_a_decision_is_stored_only_on_the_position_and_decisions_it_was_taken_on(
    storage: SqliteStorage,
) -> None:
    game = await three_stones(storage, swap2_game(x=ALICE, o=Level.HARD))
    # Another move count, or decisions that changed meanwhile: nothing written.
    assert await storage.games.add_decision(
        game, 2, (), ("take_o",), swap=False, now=0.0, deadline=None
    ) is MoveOutcome.STALE
    assert await storage.games.add_decision(
        game, 3, ("take_x",), ("take_x", "take_o"), swap=False, now=0.0, deadline=None
    ) is MoveOutcome.STALE
    row = await storage.games.game(game)
    assert row is not None and (row.x, row.o, row.decisions) == (ALICE, Level.HARD, ())
    # A clock that ran out: LATE, nothing written either.
    await storage.clocks.set_deadline(game, 3, 10.0)
    assert await storage.games.add_decision(
        game, 3, (), ("place_two",), swap=False, now=20.0, deadline=None
    ) is MoveOutcome.LATE
    # An offer made one place at a time replaces its own token.
    assert await storage.games.add_decision(
        game, 3, (), ("place_two",), swap=False, now=0.0, deadline=None
    ) is MoveOutcome.STORED
    row = await storage.games.game(game)
    assert row is not None and row.decisions == ("place_two",) and row.deadline is None


async def test_two_processes_deciding_the_same_step_store_one_decision(
    backend: Backend,
) -> None:
    first = await backend.open()
    second = await backend.open()  # a second connection, as if another process raced us
    game = await three_stones(first, swap2_game())
    attempts = [
        store.games.add_decision(
            game, 3, (), (choice,), swap=choice == "take_x", now=0.0, deadline=None
        )
        for store in (first, second)
        for choice in ("take_x", "take_o", "take_x", "place_two")
    ]
    outcomes = await asyncio.gather(*attempts)
    assert sum(outcome is MoveOutcome.STORED for outcome in outcomes) == 1
    row = await second.games.game(game)
    assert row is not None and len(row.decisions) == 1
    # The seats swapped exactly when the decision that won gave X away.
    swapped = row.decisions == ("take_x",)
    assert (row.x, row.o) == ((BOB, ALICE) if swapped else (ALICE, BOB))


async def test_a_resignation_named_from_the_seats_before_a_swap_writes_nothing(
    storage: SqliteStorage,
) -> None:
    # Bob took X in another process; a resignation judged on the seats before it would make the
    # wrong member the winner, so it must find the decisions changed and write nothing.
    game = await three_stones(storage, swap2_game())
    await storage.games.add_decision(game, 3, (), ("take_x",), swap=True, now=0.0, deadline=500.0)
    resigned = Finish(winner=Mark.O, reason=EndReason.RESIGN)
    stale = await storage.games.finish_game(game, resigned, rate=RATE, ply=3, decisions=())
    assert stale is None
    row = await storage.games.game(game)
    assert row is not None and row.status is Status.ACTIVE
    current = await storage.games.finish_game(
        game, resigned, rate=RATE, ply=3, decisions=("take_x",)
    )
    assert current is not None and current.game.winner is Mark.O
