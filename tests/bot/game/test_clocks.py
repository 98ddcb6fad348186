"""The clocks (bot/game/clocks.py) on a real database with a fake clock: time-outs lose exactly once,
a move in time restarts the clock, a late move loses on time even before the deadline watcher
runs (the database refuses it whatever the caller checked), and the watcher is woken only when it
would look too late."""

from __future__ import annotations

import random

import pytest

from bot.game.clocks import warning_lead
from bot.game.errors import UserError
from bot.game.model import GuildSettings, MoveRef
from bot.game.outbox_model import PostKind
from engine import Mark
from testkit.services import ALICE, BOB, GUILD, challenge, move, pvp_game, start
from testkit.storage_backends import Backend


async def test_time_out_loses_exactly_once(sqlite_world) -> None:
    svc, clock = sqlite_world
    state = await pvp_game(svc)
    state = await move(svc, state.id, ALICE, "B2")
    assert state.row.deadline == clock.now + 60.0
    clock.now += 59
    assert await svc.timeouts.expire_games() == []
    clock.now += 2
    finished = await svc.timeouts.expire_games()
    ended = [(s.id, s.row.winner, s.row.end_reason) for s in finished]
    assert ended == [(state.id, Mark.X, "timeout")]
    assert await svc.timeouts.expire_games() == []
    assert len(await svc.games.rating_changes(state.id)) == 4
    with pytest.raises(UserError, match="This game is over"):
        await move(svc, state.id, BOB, "A1")


async def test_a_move_in_time_restarts_the_clock(sqlite_world) -> None:
    svc, clock = sqlite_world
    await svc.settings.save_timeouts(GUILD, GuildSettings(pvp_timeout=10, ai_timeout=20))
    state = await pvp_game(svc)
    clock.now += 9
    state = await move(svc, state.id, ALICE, "B2")
    clock.now += 9
    assert await svc.timeouts.expire_games() == []
    assert state.row.deadline == clock.now + 1


async def test_a_new_clock_wakes_the_deadline_watcher_only_if_it_would_look_too_late(
    world,
) -> None:
    svc, clock = world
    found = await challenge(svc, ALICE, BOB)
    _, state = await svc.challenges.answer_challenge(found.id, BOB, accept=True, rng=random.Random(1))
    assert state is not None and state.mover_id == ALICE
    # The watcher looks again by itself before Alice's next clock (60 s) could run out.
    svc.clocks.watched_until = clock.now + 30
    svc.clocks.deadlines_changed.clear()
    moved = await svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None)
    assert moved.row.deadline == clock.now + 60
    assert not svc.clocks.deadlines_changed.is_set()
    # It would look only after Bob's clock ran out: woken.
    svc.clocks.watched_until = clock.now + 90
    moved = await svc.moves.play(MoveRef(state.id, 1, "B1"), user_id=BOB, message_id=None)
    assert svc.clocks.deadlines_changed.is_set()
    # While it reads the clocks (None), every new clock wakes it for another pass.
    svc.clocks.watched_until = None
    svc.clocks.deadlines_changed.clear()
    await svc.moves.play(MoveRef(state.id, 2, "A2"), user_id=ALICE, message_id=None)
    assert svc.clocks.deadlines_changed.is_set()


async def test_a_move_after_the_deadline_loses_on_time_even_before_the_watcher_runs(
    world, backend: Backend
) -> None:
    svc, clock = world
    found = await challenge(svc, ALICE, BOB)
    _, state = await svc.challenges.answer_challenge(found.id, BOB, accept=True, rng=random.Random(1))
    assert state is not None and state.mover_id == ALICE
    clock.now += 62.5  # Alice's minute ran out 2.5 s ago; expire_games has not run
    svc.clocks.deadlines_changed.clear()
    with pytest.raises(UserError, match="Too late"):
        await svc.moves.play(MoveRef(state.id, 0, "B2"), user_id=ALICE, message_id=None)
    unchanged = await svc.games.state(state.id)
    assert unchanged is not None and unchanged.row.moves == ()  # the late move was not written
    # The deadline watcher is woken; it ends the game on time, once.
    assert svc.clocks.deadlines_changed.is_set()
    [over] = await svc.timeouts.expire_games()
    assert over.id == state.id and not over.active
    assert (over.row.winner, over.row.end_reason) == (Mark.O, "timeout")
    assert len(await svc.games.rating_changes(state.id)) == 4
    assert await svc.timeouts.expire_games() == []
    with pytest.raises(UserError, match="This game is over"):
        await svc.moves.play(MoveRef(state.id, 0, "B2"), user_id=ALICE, message_id=None)
    assert (await backend.row_counts())["rating_changes"] == 4


async def test_a_move_just_in_time_counts(world) -> None:
    svc, clock = world
    state = await start(svc, ALICE)
    clock.now += 119.9
    after = await svc.moves.play(MoveRef(state.id, 0, "B2"), user_id=ALICE, message_id=None)
    assert after.board.ply == 1 and after.active


async def test_the_database_refuses_a_late_move_whatever_the_caller_checked(world) -> None:
    svc, clock = world
    state = await start(svc, ALICE)
    deadline = state.row.deadline
    assert deadline is not None
    outcome = await svc.storage.games.add_move(state.id, 0, "B2", by_ai=False, now=deadline)
    assert outcome == "late"
    assert await svc.storage.games.add_move(state.id, 0, "B2", by_ai=False,
                                        now=deadline - 0.001) == "stored"


async def test_a_resignation_cannot_undo_a_loss_on_time(world) -> None:
    """Alice's clock ran out; Bob resigning afterwards (before the watcher ran) must not hand
    her the win."""
    svc, clock = world
    found = await challenge(svc, ALICE, BOB)
    _, state = await svc.challenges.answer_challenge(found.id, BOB, accept=True, rng=random.Random(1))
    assert state is not None and state.mover_id == ALICE
    clock.now += 61
    with pytest.raises(UserError, match="This game is over"):
        await svc.games.resign(state.id, BOB)
    [over] = await svc.timeouts.expire_games()
    assert (over.row.winner, over.row.end_reason) == (Mark.O, "timeout")
    assert over.mark_of(BOB) is Mark.O


def test_the_low_time_warning_comes_at_a_fifth_of_the_turn_between_15_s_and_2_minutes() -> None:
    assert warning_lead(10 * 60) == 120.0  # a fifth, 2 minutes
    assert warning_lead(5 * 60) == 60.0
    assert warning_lead(30 * 60) == 120.0  # capped at 2 minutes
    assert warning_lead(60) == 15.0  # at least 15 s
    assert warning_lead(3) == 1.5  # never before half the turn has gone


async def test_a_member_is_warned_once_per_turn_when_their_clock_runs_low(world) -> None:
    svc, clock = world
    state = await pvp_game(svc)  # 60 s a move: warned with 15 s left
    state = await move(svc, state.id, ALICE, "B2")
    clock.now += 44
    due, upcoming = await svc.timeouts.due_warnings()
    assert due == [] and upcoming == pytest.approx(clock.now + 1)
    clock.now += 1
    due, upcoming = await svc.timeouts.due_warnings()
    assert [(s.id, s.mover_id) for s in due] == [(state.id, BOB)]
    assert upcoming is None
    # The warning is written to the outbox with its claim, for the clock it warns of.
    (post,) = await svc.storage.outbox.due_posts(now=clock.now)
    assert (post.kind, post.payload) == (
        PostKind.CLOCK_WARNING, {"game": state.id, "deadline": due[0].row.deadline})
    # Asked again (another pass, a restarted bot, another process): not warned twice.
    assert (await svc.timeouts.due_warnings())[0] == []
    assert len(await svc.storage.outbox.due_posts(now=clock.now)) == 1
    # Bob's move starts Alice's clock: her turn gets its own warning.
    state = await move(svc, state.id, BOB, "A1")
    _, upcoming = await svc.timeouts.due_warnings()
    assert upcoming == pytest.approx(clock.now + 45)
    clock.now += 50
    due, _ = await svc.timeouts.due_warnings()
    assert [(s.id, s.mover_id) for s in due] == [(state.id, ALICE)]


async def test_a_clock_that_ran_out_is_not_warned_but_lost(world) -> None:
    svc, clock = world
    state = await pvp_game(svc)
    state = await move(svc, state.id, ALICE, "B2")
    clock.now += 61  # the bot was down through the warning and the deadline
    assert (await svc.timeouts.due_warnings())[0] == []
    assert [s.id for s in await svc.timeouts.expire_games()] == [state.id]


async def test_a_warning_missed_while_the_bot_was_down_still_comes_if_time_is_left(
    world,
) -> None:
    svc, clock = world
    state = await pvp_game(svc)
    state = await move(svc, state.id, ALICE, "B2")
    clock.now += 55  # past the warning, 5 s before the end
    due, _ = await svc.timeouts.due_warnings()
    assert [s.id for s in due] == [state.id]


async def test_a_new_clock_wakes_the_watcher_when_its_warning_falls_before_its_next_look(
    world,
) -> None:
    svc, clock = world
    found = await challenge(svc, ALICE, BOB)
    _, state = await svc.challenges.answer_challenge(found.id, BOB, accept=True, rng=random.Random(1))
    assert state is not None
    # The watcher looks again in 50 s: Bob's 60 s clock ends later, but warns him at 45 s.
    svc.clocks.watched_until = clock.now + 50
    svc.clocks.deadlines_changed.clear()
    await svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None)
    assert svc.clocks.deadlines_changed.is_set()


async def test_the_clock_warns_the_member_of_the_other_server_in_their_channel_with_one_row(
    world,
) -> None:
    from bot.game.queue_model import QueueKey

    svc, clock = world
    key = QueueKey(rows=15, cols=15, k=5, rule="freestyle", rated=True, turn_seconds=60.0)
    for user, guild in ((ALICE, 1), (BOB, 2)):
        entry = await svc.queue.join(guild_id=guild, channel_id=guild * 10, user_id=user,
                                     key=key, locale="en-US")
        await svc.queue.posted(entry.id, 5000 + entry.id)
        clock.now += 1
    (pairing,) = await svc.queue.pair()
    (board,) = await svc.queue.boards(pairing.game_id)
    assert (board.guild_id, board.channel_id, board.user_id) == (2, 20, BOB)
    state = await svc.games.state(pairing.game_id)
    assert state is not None
    if state.mover_id == ALICE:
        state = await move(svc, state.id, ALICE, "H8")
        # Her move redraws the boards through rows held by this process, sent here as its
        # drawing would send them.
        held = svc.mirrors.take_held(state)
        assert held
        for post in held:
            assert post.kind is PostKind.GAME_BOARD
            assert await svc.outbox.sent_itself(post, None)
    assert state.mover_id == BOB and state.row.deadline is not None
    clock.now = state.row.deadline - 10
    (due,), _ = await svc.timeouts.due_warnings()
    # The one row is for Bob's own channel: the process holding his server sends it, and a
    # retried send has no row to hand on.
    posts = await svc.storage.outbox.due_posts(now=clock.now, shard_id=0, shard_count=1)
    assert [(p.guild_id, p.channel_id, p.kind, p.payload) for p in posts] == [
        (2, 20, PostKind.CLOCK_WARNING, {"game": state.id, "deadline": state.row.deadline})]
    assert due.id == state.id
