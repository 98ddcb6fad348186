"""The puzzle service (bot.game.puzzles) on both backends: the shipped set and every puzzle stored
for a server re-prove from scratch; a member solves move by move against the engine's best
defence, any winning move accepted; a wrong move fails with its refutation; each puzzle is rated
once per member; the daily puzzle is the same for everyone; finished games are mined."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from bot.game import ratings
from bot.game.errors import UserError
from bot.game.model import EndReason, Finish, Mode, NewGame
from bot.game.puzzle_model import AttemptKind, AttemptOutcome, NewPuzzle
from bot.game.puzzles import SHARED_KEY, PuzzleService, shared_set, shared_version
from bot.game.services import Services
from engine import Board, Mark
from engine.analysis.puzzles import (
    Limits,
    MoveCheck,
    Refutation,
    Verdict,
    prove,
    prove_board,
    puzzle_of,
)
from testkit.services import ALICE, BOB, CHANNEL, GUILD

# X to move wins by fours: K8 (L8 forced), then K9 makes an open four. A15 loses to O's three.
MISSED = "15x15 k5 freestyle H8 G8 I8 C3 J8 D3 K10 E3 K11 N14"
# The game it comes from: X missed the win at move 11 and played A15.
HAND_GAME = ["H8", "G8", "I8", "C3", "J8", "D3", "K10", "E3", "K11", "N14", "A15", "K8"]


async def run_here(fn: Callable[..., Any], *args: Any) -> Any:
    """The CPU pool's job, run in this process."""
    return fn(*args)


async def only_missed(svc: Services) -> None:
    """The shared set is the one known puzzle (marked as the shipped set's version, which is
    then not loaded)."""
    board = Board.from_text(MISSED)
    proof = prove_board(board)
    assert proof is not None
    puzzle = puzzle_of(board, proof, source="hand", origin="missed_win")
    await svc.storage.puzzles.add_puzzles(None, [NewPuzzle.of(puzzle)], now=0.0)
    await svc.storage.meta.set_meta(SHARED_KEY, shared_version())


async def open_new(svc: Services, user: int = ALICE, kind: AttemptKind = AttemptKind.NEW):
    return await svc.puzzles.start(kind, guild_id=GUILD, channel_id=CHANNEL, user_id=user,
                                   locale="en")


@pytest.mark.slow
async def test_every_shipped_and_stored_puzzle_re_proves_from_scratch(world) -> None:
    svc, _ = world
    shipped = shared_set()
    assert len(shipped) >= 20
    specs = {p.board().spec for p in shipped}
    assert {"15x15 k5 freestyle", "15x15 k5 caro", "15x15 k5 renju", "9x9 k5 freestyle"} <= specs
    assert await svc.puzzles.ensure_shared() == len(shipped)
    # A server's own finished game is mined too.
    game = await svc.storage.games.create_game(NewGame(
        guild_id=GUILD, channel_id=CHANNEL, mode=Mode.PVP, x=ALICE, o=BOB, started_by=ALICE,
        rows=15, cols=15, k=5, rule="freestyle", rated=True,
    ))
    for ply, cell in enumerate(HAND_GAME):
        await svc.storage.games.add_move(game.id, ply, cell, by_ai=False, now=0.0)
    await svc.storage.games.finish_game(
        game.id, Finish(Mark.O, EndReason.RESIGN), rate=ratings.game_updates
    )
    [finished] = await svc.puzzles.games_to_mine(0)
    assert await svc.puzzles.mine_game(finished, run_here) == 1
    stored = await svc.storage.puzzles.server_puzzles(GUILD)
    assert len(stored) == len(shipped) + 1
    assert {p.puzzle.key for p in stored if p.guild_id is None} == {p.key for p in shipped}
    # None is shown that the engine cannot prove: each one, from its position alone.
    for row in stored:
        proof = prove(row.puzzle, Limits())
        assert proof is not None, row.puzzle.position
        assert proof.kind is row.puzzle.kind


async def test_a_member_solves_move_by_move_against_the_best_defence(world) -> None:
    svc, _ = world
    await only_missed(svc)
    session = await open_new(svc)
    assert session.puzzle.puzzle.position == MISSED and session.ply == 0
    await svc.puzzles.attach_message(session.attempt.id, 5000)
    # Not the stored line's order: any move that still wins is accepted at each step.
    played = 0
    while True:
        board = session.board()
        proof = prove_board(board)
        assert proof is not None
        done = await svc.puzzles.move(session.attempt.id, ALICE, session.ply,
                                      board.move_name(proof.line[0]), run_here)
        played += 1
        if done.check.verdict is Verdict.SOLVED:
            break
        assert done.check.verdict is Verdict.WINNING and done.session.ply == session.ply + 2
        session = done.session
    assert done.finished is not None and done.session.attempt.outcome is AttemptOutcome.SOLVED
    assert done.finished.attempt.rated and played >= 3
    standing = await svc.puzzles.standing(GUILD, ALICE)
    assert standing.solved == 1 and standing.streak == 1
    assert standing.skill.mu > 25.0


async def test_a_wrong_move_fails_with_its_refutation_and_a_retry_is_not_rated(world) -> None:
    svc, _ = world
    await only_missed(svc)
    with pytest.raises(UserError, match="no failed puzzle"):
        await open_new(svc, kind=AttemptKind.RETRY)
    session = await open_new(svc)
    done = await svc.puzzles.move(session.attempt.id, ALICE, 0, "a15", run_here)
    check = done.check
    assert check.verdict is Verdict.WRONG and check.reason is Refutation.DEFENDER_WINS
    assert check.reply is not None and check.line[0] == check.reply
    assert done.session.attempt.outcome is AttemptOutcome.FAILED
    assert done.finished is not None and done.finished.attempt.rated
    assert done.finished.after.skill.mu < done.finished.before.skill.mu
    # Played again: the same puzzle, and solving it now is not rated.
    retry = await open_new(svc, kind=AttemptKind.RETRY)
    assert retry.puzzle.id == session.puzzle.id
    with pytest.raises(UserError, match="no puzzle left"):
        await open_new(svc)  # the only puzzle was rated for Alice: none is new to her
    retry = await open_new(svc, kind=AttemptKind.RETRY)
    board = retry.board()
    while retry.attempt.open:
        proof = prove_board(board)
        assert proof is not None
        done = await svc.puzzles.move(retry.attempt.id, ALICE, retry.ply,
                                      board.move_name(proof.line[0]), run_here)
        retry, board = done.session, done.session.board()
    assert done.finished is not None and not done.finished.attempt.rated
    standing = await svc.puzzles.standing(GUILD, ALICE)
    assert (standing.solved, standing.failed, standing.streak) == (0, 1, 0)


async def test_only_its_member_plays_an_attempt_at_its_move_and_unknown_plays_nothing(
    world,
) -> None:
    svc, _ = world
    await only_missed(svc)
    session = await open_new(svc)
    with pytest.raises(UserError, match="Only the member who opened"):
        await svc.puzzles.move(session.attempt.id, BOB, 0, "K8", run_here)
    with pytest.raises(UserError):
        await svc.puzzles.move(session.attempt.id, ALICE, 2, "K8", run_here)
    with pytest.raises(UserError, match="not an empty cell"):
        await svc.puzzles.move(session.attempt.id, ALICE, 0, "H8", run_here)

    async def cannot_tell(fn: Callable[..., Any], board_text: str, cell: str) -> MoveCheck:
        return MoveCheck(Verdict.UNKNOWN, Board.from_text(board_text).parse_move(cell))

    done = await svc.puzzles.move(session.attempt.id, ALICE, 0, "K8", cannot_tell)
    assert done.check.verdict is Verdict.UNKNOWN
    again = await svc.puzzles.session(session.attempt.id)
    assert again is not None and again.attempt.open and again.attempt.moves == ()
    # Giving up is a failure, rated.
    gone, result = await svc.puzzles.give_up(session.attempt.id, ALICE, 0)
    assert gone.attempt.outcome is AttemptOutcome.FAILED and result.attempt.rated
    with pytest.raises(UserError, match="over"):
        await svc.puzzles.give_up(session.attempt.id, ALICE, 0)


async def test_the_daily_puzzle_is_the_same_for_everyone_that_utc_day(world) -> None:
    svc, clock = world
    clock.now = time.mktime((2026, 11, 27, 12, 0, 0, 0, 0, 0))
    await svc.puzzles.ensure_shared()
    alice = await open_new(svc, ALICE, AttemptKind.DAILY)
    bob = await open_new(svc, BOB, AttemptKind.DAILY)
    assert alice.puzzle.id == bob.puzzle.id
    days = set()
    for _ in range(5):
        clock.now += 86400.0
        days.add((await open_new(svc, ALICE, AttemptKind.DAILY)).puzzle.id)
    assert len(days) > 1


async def test_puzzles_a_newer_bot_ships_reach_a_database_that_has_the_older_set(world) -> None:
    svc, _ = world
    shipped = shared_set()
    # An older bot stored all but the last three, under its own version of the set.
    older = [NewPuzzle.of(p) for p in shipped[:-3]]
    await svc.storage.puzzles.add_puzzles(None, older, now=0.0)
    await svc.storage.meta.set_meta(SHARED_KEY, "an-older-set")
    assert await svc.puzzles.ensure_shared() == 3
    assert await svc.storage.puzzles.count_puzzles(None) == len(shipped)
    # The next process finds this version stored and adds nothing.
    again = PuzzleService(svc.storage.puzzles, svc.storage.meta)
    assert await again.ensure_shared() == 0


async def test_mining_goes_on_after_a_restart_from_where_it_stopped(world) -> None:
    svc, _ = world
    games = []
    for _ in range(3):
        game = await svc.storage.games.create_game(NewGame(
            guild_id=GUILD, channel_id=CHANNEL, mode=Mode.PVP, x=ALICE, o=BOB, started_by=ALICE,
            rows=15, cols=15, k=5, rule="freestyle", rated=True,
        ))
        await svc.storage.games.finish_game(
            game.id, Finish(Mark.O, EndReason.RESIGN), rate=ratings.game_updates
        )
        games.append(game.id)
    # A first start leaves the past alone: mining begins after the newest finished game.
    assert await svc.puzzles.mining_start([0, 1], 2) == games[-1]
    # Shard 0 was mined through the first game, shard 1 through the second, when the bot
    # stopped: the restarted process goes on from the earlier of the two.
    await svc.puzzles.mined_through(games[0], [0], 2)
    await svc.puzzles.mined_through(games[1], [1], 2)
    restarted = PuzzleService(svc.storage.puzzles, svc.storage.meta)
    assert await restarted.mining_start([0, 1], 2) == games[0]
    assert [g.id for g in await restarted.games_to_mine(games[0])] == games[1:]
    # Another process's shards are its own.
    assert await restarted.mining_start([1], 2) == games[1]
