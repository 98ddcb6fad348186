"""Puzzles in storage, on both backends: a position once per scope, one open attempt per member
and server, moves that advance once, a puzzle rated once per member, a leaderboard by
conservative rating, and a daily puzzle every process agrees on."""

from __future__ import annotations

import asyncio

from bot.game.ports import Storage
from bot.game.puzzle_model import (
    AttemptKind,
    AttemptOutcome,
    NewAttempt,
    NewPuzzle,
    puzzle_prior,
)
from engine import Board
from engine.analysis.puzzles import Puzzle, prove_board, puzzle_of
from testkit.storage_backends import Backend

GUILD, OTHER, CHANNEL, ALICE, BOB = 111, 112, 222, 333, 444
# X to move wins by fours (K8, L8 forced, K9): the engine's own test position.
MISSED = "15x15 k5 freestyle H8 G8 I8 C3 J8 D3 K10 E3 K11 N14"
# X's open three H8 I8 J8: G8 or K8 makes an open four.
OPEN_THREE = "15x15 k5 freestyle H8 H9 I8 I9 J8 J9"


def proven(text: str, source: str = "test") -> Puzzle:
    board = Board.from_text(text)
    proof = prove_board(board)
    assert proof is not None
    return puzzle_of(board, proof, source=source, origin="missed_win")


def attempt(puzzle_id: int, user: int = ALICE, guild: int = GUILD, at: float = 1.0) -> NewAttempt:
    return NewAttempt(guild, CHANNEL, user, puzzle_id,
                      AttemptKind.NEW, "en", at)


async def test_a_position_is_stored_once_per_scope(storage: Storage) -> None:
    one, two = NewPuzzle.of(proven(MISSED)), NewPuzzle.of(proven(OPEN_THREE))
    assert await storage.puzzles.add_puzzles(None, [one, two], now=0.0) == 2
    assert await storage.puzzles.add_puzzles(None, [one], now=0.0) == 0
    assert await storage.puzzles.add_puzzles(GUILD, [one], now=0.0) == 1
    assert await storage.puzzles.count_puzzles(None) == 2
    assert await storage.puzzles.count_puzzles(GUILD) == 1
    seen = await storage.puzzles.server_puzzles(GUILD)
    assert len(seen) == 3 and len(await storage.puzzles.server_puzzles(OTHER)) == 2
    back = seen[0]
    assert back.puzzle == one.puzzle and back.guild_id is None
    assert back.skill == puzzle_prior(one.puzzle.difficulty)


async def test_a_member_has_one_open_attempt_and_its_moves_advance_once(storage: Storage) -> None:
    await storage.puzzles.add_puzzles(None, [NewPuzzle.of(proven(MISSED))], now=0.0)
    [row] = await storage.puzzles.server_puzzles(GUILD)
    first = await storage.puzzles.start_attempt(attempt(row.id))
    assert first.open and first.moves == ()
    await storage.puzzles.set_attempt_message(first.id, 999)
    assert await storage.puzzles.advance_attempt(first.id, (), ("K8", "L8"))
    # A second click on the same drawing finds the moves changed: nothing written.
    assert not await storage.puzzles.advance_attempt(first.id, (), ("K9", "L8"))
    again = await storage.puzzles.attempt(first.id)
    assert again is not None and again.moves == ("K8", "L8") and again.message_id == 999
    second = await storage.puzzles.start_attempt(attempt(row.id, at=2.0))
    old = await storage.puzzles.attempt(first.id)
    assert old is not None and old.outcome is AttemptOutcome.ABANDONED
    assert second.open


async def test_a_puzzle_is_rated_once_per_member_and_streaks_count_solves(
    storage: Storage,
) -> None:
    await storage.puzzles.add_puzzles(
        None, [NewPuzzle.of(proven(MISSED)), NewPuzzle.of(proven(OPEN_THREE))], now=0.0
    )
    one, two = await storage.puzzles.server_puzzles(GUILD)
    go = await storage.puzzles.start_attempt(attempt(one.id))
    done = await storage.puzzles.finish_attempt(
        go.id, (), ("K8", "L8", "K9"), AttemptOutcome.SOLVED, now=5.0
    )
    assert done is not None and done.attempt.rated
    assert done.after.skill.mu > done.before.skill.mu
    assert (done.after.solved, done.after.streak, done.after.best_streak) == (1, 1, 1)
    # Finishing it twice does nothing.
    assert await storage.puzzles.finish_attempt(
        go.id, (), ("K8",), AttemptOutcome.FAILED, now=6.0
    ) is None
    puzzle = await storage.puzzles.puzzle(one.id)
    assert puzzle is not None and puzzle.skill.mu < one.skill.mu  # it lost to Alice
    # The same puzzle again: played, not rated.
    again = await storage.puzzles.start_attempt(attempt(one.id, at=7.0))
    redo = await storage.puzzles.finish_attempt(
        again.id, (), ("A1",), AttemptOutcome.FAILED, now=8.0
    )
    assert redo is not None and not redo.attempt.rated and redo.after == redo.before
    # Another one failed: rated, the streak ends and the best stays.
    go = await storage.puzzles.start_attempt(attempt(two.id, at=9.0))
    lost = await storage.puzzles.finish_attempt(go.id, (), ("A1",), AttemptOutcome.FAILED,
                                                now=10.0)
    assert lost is not None and lost.attempt.rated
    standing = await storage.puzzles.puzzle_standing(GUILD, ALICE)
    assert (standing.solved, standing.failed, standing.streak, standing.best_streak) == (
        1, 1, 0, 1
    )
    assert standing.skill.mu < done.after.skill.mu


async def test_the_next_puzzle_is_unsolved_and_nearest_the_members_rating(
    storage: Storage,
) -> None:
    easy, hard = proven(OPEN_THREE), proven(MISSED)
    await storage.puzzles.add_puzzles(None, [NewPuzzle.of(easy), NewPuzzle.of(hard)], now=0.0)
    rows = {r.puzzle.position: r for r in await storage.puzzles.server_puzzles(GUILD)}
    low = min(rows.values(), key=lambda r: r.skill.mu)
    high = max(rows.values(), key=lambda r: r.skill.mu)
    assert low.id != high.id
    picked = await storage.puzzles.nearest_unsolved(GUILD, ALICE, high.skill.mu + 1)
    assert picked is not None and picked.id == high.id
    go = await storage.puzzles.start_attempt(attempt(high.id))
    await storage.puzzles.finish_attempt(go.id, (), ("A1",), AttemptOutcome.FAILED, now=2.0)
    picked = await storage.puzzles.nearest_unsolved(GUILD, ALICE, high.skill.mu + 1)
    assert picked is not None and picked.id == low.id
    # The failed one is the one to retry, until it is solved.
    retry = await storage.puzzles.failed_puzzle(GUILD, ALICE)
    assert retry is not None and retry.id == high.id
    assert await storage.puzzles.failed_puzzle(GUILD, BOB) is None
    go = await storage.puzzles.start_attempt(attempt(high.id, at=3.0))
    await storage.puzzles.finish_attempt(go.id, (), ("K8",), AttemptOutcome.SOLVED, now=4.0)
    assert await storage.puzzles.failed_puzzle(GUILD, ALICE) is None


async def test_the_leaderboard_ranks_by_conservative_rating_from_enough_attempts(
    storage: Storage,
) -> None:
    puzzles = [NewPuzzle.of(proven(t)) for t in (MISSED, OPEN_THREE)]
    await storage.puzzles.add_puzzles(None, puzzles, now=0.0)
    rows = await storage.puzzles.server_puzzles(GUILD)
    for user, outcome in ((ALICE, AttemptOutcome.SOLVED), (BOB, AttemptOutcome.FAILED)):
        for row in rows:
            go = await storage.puzzles.start_attempt(attempt(row.id, user=user))
            await storage.puzzles.finish_attempt(go.id, (), ("A1",), outcome, now=1.0)
    board = await storage.puzzles.puzzle_leaderboard(GUILD, min_attempts=2)
    assert [s.user_id for s in board] == [ALICE, BOB]
    assert board[0].skill.conservative > board[1].skill.conservative
    assert await storage.puzzles.puzzle_leaderboard(GUILD, min_attempts=3) == []
    assert await storage.puzzles.puzzle_leaderboard(OTHER, min_attempts=0) == []


async def test_two_processes_claim_the_same_daily_puzzle(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    assert await first.puzzles.claim_daily(GUILD, "2026-11-27", 0) is None  # none stored yet
    await first.puzzles.add_puzzles(
        None, [NewPuzzle.of(proven(MISSED)), NewPuzzle.of(proven(OPEN_THREE))], now=0.0
    )
    a, b = await asyncio.gather(
        first.puzzles.claim_daily(GUILD, "2026-11-27", 0),
        second.puzzles.claim_daily(GUILD, "2026-11-27", 1),
    )
    assert a is not None and b is not None and a.id == b.id
    later = await second.puzzles.claim_daily(GUILD, "2026-11-27", 7)
    assert later is not None and later.id == a.id
    other_day = await first.puzzles.claim_daily(GUILD, "2026-11-28", 1 if a.id == 1 else 0)
    assert other_day is not None and other_day.id != a.id
    assert len(await backend.fetch("SELECT * FROM daily_puzzles")) == 2
