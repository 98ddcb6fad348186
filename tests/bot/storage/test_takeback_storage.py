"""Takebacks in storage, on both backends: the moves from the asked move count on are removed,
the clock and the count change in the same transaction, a request is open at one move count
only, two processes taking back the same position undo it once, and a move judged on the
position from before a takeback is never stored."""

from __future__ import annotations

import asyncio

from bot.game import ratings
from bot.game.model import Finish, Mode, NewGame, Status
from bot.game.outbox_model import NewPost, PostKind
from bot.game.ports import Answer, MoveOutcome
from bot.storage import SqliteStorage
from engine import Mark
from testkit.storage_backends import Backend

GUILD, CHANNEL, ALICE, BOB = 111, 222, 333, 444
RATE = ratings.game_updates


def casual_game() -> NewGame:
    return NewGame(
        guild_id=GUILD,
        channel_id=CHANNEL,
        mode=Mode.PVP,
        x=ALICE,
        o=BOB,
        started_by=ALICE,
        rows=3,
        cols=4,
        k=4,
        rule="freestyle",
        rated=False,
    )


async def played(storage: SqliteStorage, *cells: str) -> int:
    game = await storage.games.create_game(casual_game())
    for ply, cell in enumerate(cells):
        stored = await storage.games.add_move(game.id, ply, cell, by_ai=False, now=0.0)
        assert stored is MoveOutcome.STORED
    return game.id


async def test_a_takeback_removes_the_moves_and_sets_the_clock_in_one_write(
    storage: SqliteStorage, backend: Backend
) -> None:
    game = await played(storage, "A1", "B1", "A2")
    row = await storage.takebacks.take_back(
        game, 3, 1, now=0.0, deadline=500.0, limit=3, requested=False
    )
    assert row is not None
    assert (row.ply, [m.cell for m in row.moves], row.deadline, row.takebacks) == (
        1,
        ["A1"],
        500.0,
        1,
    )
    assert (await backend.row_counts())["moves"] == 1
    # Not at the stored move count, past the limit, or after the clock ran out: nothing.
    assert (
        await storage.takebacks.take_back(game, 3, 1, now=0.0, deadline=None, limit=3, requested=False)
        is None
    )
    assert (
        await storage.takebacks.take_back(game, 1, 0, now=0.0, deadline=None, limit=1, requested=False)
        is None
    )
    assert (
        await storage.takebacks.take_back(
            game, 1, 0, now=500.0, deadline=None, limit=3, requested=False
        )
        is None
    )
    stored = await storage.games.game(game)
    assert stored is not None and (stored.ply, stored.takebacks, len(stored.moves)) == (1, 1, 1)
    # The game plays on from there: the move count is free again, at the position after one
    # takeback.
    assert await storage.games.add_move(
        game, 1, "C3", by_ai=False, now=0.0, takebacks=1
    ) is MoveOutcome.STORED


async def test_a_request_is_open_at_one_move_count_and_declined_once(
    storage: SqliteStorage,
) -> None:
    game = await played(storage, "A1")
    assert not await storage.takebacks.take_back(
        game, 1, 0, now=0.0, deadline=None, limit=3, requested=True
    )
    assert await storage.takebacks.ask_takeback(game, 1, now=0.0)
    assert not await storage.takebacks.ask_takeback(game, 1, now=0.0)  # asked already
    assert not await storage.takebacks.ask_takeback(game, 0, now=0.0)  # not the move count
    row = await storage.games.game(game)
    assert row is not None and row.takeback_pending
    assert await storage.takebacks.decline_takeback(game, 1)
    assert not await storage.takebacks.decline_takeback(game, 1)
    row = await storage.games.game(game)
    assert row is not None and not row.takeback_pending and row.takeback_asked == 1
    assert not await storage.takebacks.ask_takeback(game, 1, now=0.0)  # declined: not again
    assert (
        await storage.takebacks.take_back(game, 1, 0, now=0.0, deadline=None, limit=3, requested=True)
        is None
    )
    # A move since leaves the old request answering nothing.
    assert await storage.games.add_move(game, 1, "B1", by_ai=False, now=0.0) is MoveOutcome.STORED
    assert await storage.takebacks.ask_takeback(game, 2, now=0.0)
    assert await storage.games.add_move(game, 2, "A2", by_ai=False, now=0.0) is MoveOutcome.STORED
    row = await storage.games.game(game)
    assert row is not None and not row.takeback_pending


async def test_each_takeback_write_stores_its_outbox_rows_only_when_it_changes_the_game(
    storage: SqliteStorage,
) -> None:
    # A game between two servers tells its members through the outbox, with the change.
    game = await played(storage, "A1")

    def told(kind: PostKind) -> list[NewPost]:
        # A channel each: a channel's rows are due one at a time, in order.
        channel = CHANNEL + len(kind.value)
        return [NewPost(GUILD, channel, kind, {"game": game, "member": BOB}, 10.0)]

    async def kinds() -> list[PostKind]:
        return [row.kind for row in await storage.outbox.due_posts(now=100.0)]

    assert await storage.takebacks.ask_takeback(
        game, 1, now=0.0, posts=told(PostKind.TAKEBACK_REQUEST))
    assert not await storage.takebacks.ask_takeback(
        game, 1, now=0.0, posts=told(PostKind.TAKEBACK_REQUEST))  # asked already
    assert await kinds() == [PostKind.TAKEBACK_REQUEST]
    assert await storage.takebacks.decline_takeback(
        game, 1, posts=told(PostKind.TAKEBACK_ANSWER))
    assert not await storage.takebacks.decline_takeback(
        game, 1, posts=told(PostKind.TAKEBACK_ANSWER))  # answered already
    assert await kinds() == [PostKind.TAKEBACK_REQUEST, PostKind.TAKEBACK_ANSWER]
    assert await storage.games.add_move(game, 1, "B1", by_ai=False, now=0.0) is MoveOutcome.STORED
    assert await storage.takebacks.ask_takeback(game, 2, now=0.0)
    for _ in range(2):  # the second finds the position gone
        await storage.takebacks.take_back(game, 2, 1, now=0.0, deadline=None, limit=3,
                                          requested=True, posts=told(PostKind.GAME_BOARD))
    assert await kinds() == [PostKind.TAKEBACK_REQUEST, PostKind.TAKEBACK_ANSWER,
                             PostKind.GAME_BOARD]


async def test_two_processes_taking_back_the_same_position_undo_it_once(
    backend: Backend,
) -> None:
    first = await backend.open()
    second = await backend.open()  # a second connection, as if another process raced us
    game = await played(first, "A1", "B1", "A2", "B2")
    assert await first.takebacks.ask_takeback(game, 4, now=0.0)
    attempts = [
        store.takebacks.take_back(game, 4, 3, now=0.0, deadline=None, limit=9, requested=True)
        for store in (first, second)
        for _ in range(4)
    ]
    outcomes = await asyncio.gather(*attempts)
    assert sum(o is not None for o in outcomes) == 1
    row = await second.games.game(game)
    assert row is not None and (row.ply, row.takebacks, len(row.moves)) == (3, 1, 3)
    # Taken back: the move count is a fresh position, whose move may be asked back again.
    assert row.takeback_asked is None and not row.takeback_pending


async def test_a_move_judged_on_the_position_from_before_a_takeback_is_refused(
    backend: Backend,
) -> None:
    first = await backend.open()
    second = await backend.open()  # a second process, whose copy of the game is older
    game = await played(first, "A1", "C3", "B1")
    # The first process takes B1 back and A2 is played instead: move count 3 again, another
    # position.
    assert await first.takebacks.take_back(
        game, 3, 2, now=0.0, deadline=None, limit=3, requested=False
    ) is not None
    assert await first.games.add_move(
        game, 2, "A2", by_ai=False, now=0.0, deadline=50.0, takebacks=1
    ) is MoveOutcome.STORED
    before = await backend.row_counts()
    # The second process still holds the game at move 3 before any takeback (B1 on it): its
    # moves, ending the game or not, with an answer or not, write nothing; even after the clock
    # of the stored position ran out, such a move is stale (judged again), not late.
    for now, answer in ((0.0, None), (0.0, Answer("D1", "block")), (99.0, None)):
        stale = await second.games.add_move(game, 3, "D2", by_ai=False, now=now, answer=answer)
        assert stale is MoveOutcome.STALE, (now, answer)
    finishing = await second.games.add_move(
        game, 3, "D2", by_ai=False, now=0.0, finish=Finish(winner=Mark.O), rate=RATE
    )
    assert finishing is MoveOutcome.STALE
    assert await backend.row_counts() == before
    row = await second.games.game(game)
    assert row is not None and [m.cell for m in row.moves] == ["A1", "C3", "A2"]
    assert (row.ply, row.takebacks, row.status) == (3, 1, Status.ACTIVE)
    # Judged on the game as stored, the move is stored (before the clock runs out).
    assert await second.games.add_move(
        game, 3, "D2", by_ai=False, now=99.0, takebacks=1
    ) is MoveOutcome.LATE
    assert await second.games.add_move(
        game, 3, "D2", by_ai=False, now=0.0, takebacks=1
    ) is MoveOutcome.STORED
