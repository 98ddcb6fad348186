"""The queue service (bot/game/queue.py), on both backends: a member joins at their global
rating against people, once; leaves once; and pairing waits until the gap is accepted."""

from __future__ import annotations

import pytest

from bot.game.errors import UserError
from bot.game.queue_model import QueueKey, QueueStatus
from testkit.storage_backends import Backend

KEY = QueueKey(rows=15, cols=15, k=5, rule="freestyle", rated=True, turn_seconds=600.0)
A, B = 101, 102


async def join(svc, user: int, guild: int):
    entry = await svc.queue.join(guild_id=guild, channel_id=guild * 10, user_id=user, key=KEY,
                                 locale="en-US")
    await svc.queue.posted(entry.id, 5000 + entry.id)
    return entry


async def test_a_member_joins_at_their_global_rating_once_and_leaves_once(
    world, backend: Backend
) -> None:
    svc, clock = world
    await backend.execute(
        "INSERT INTO standings (scope, user_id, mode, rating, wins, draws, losses)"
        " VALUES (0, ?, 'pvp', 1500.0, 3, 0, 0)", A,
    )
    entry = await join(svc, A, 1)
    assert (entry.rating, entry.joined_at) == (1500.0, clock.now)
    assert (await join(svc, B, 2)).rating == 1200.0  # never rated: the starting rating
    assert await svc.queue.waiting(KEY) == 2
    with pytest.raises(UserError) as refused:
        await join(svc, A, 3)
    assert refused.value.key == "queue.already"
    assert (await svc.queue.leave(A)).status is QueueStatus.LEFT
    with pytest.raises(UserError) as refused:
        await svc.queue.leave(A)
    assert refused.value.key == "queue.not_waiting"


async def test_two_members_300_apart_are_paired_once_both_waited_40_seconds(
    world, backend: Backend
) -> None:
    svc, clock = world
    await backend.execute(
        "INSERT INTO standings (scope, user_id, mode, rating, wins, draws, losses)"
        " VALUES (0, ?, 'pvp', 1500.0, 3, 0, 0)", B,
    )
    await join(svc, A, 1)
    await join(svc, B, 1)
    clock.now += 39
    assert await svc.queue.pair() == []
    clock.now += 1
    (pairing,) = await svc.queue.pair()
    one, other = pairing.first, pairing.second
    assert (one.user_id, other.user_id, one.paired_at) == (A, B, clock.now)
    assert await svc.queue.pair() == []
    (state,) = await svc.queue.unposted()
    assert state.id == pairing.game_id and state.active and set(state.row.members) == {A, B}
    assert state.row.deadline == clock.now + KEY.turn_seconds
    assert [e.user_id for e in await svc.queue.entries_of(state.id)] == [A, B]
    # Another channel, another server: still one queued game at a time.
    with pytest.raises(UserError) as refused:
        await join(svc, A, 2)
    assert refused.value.key == "queue.playing"


async def test_the_queue_asks_for_the_servers_turn_clock(world) -> None:
    svc, _ = world
    key = await svc.queue.key(1, 15, 15, 5, "freestyle", rated=False)
    assert key == QueueKey(15, 15, 5, "freestyle", rated=False, turn_seconds=60.0)


async def test_a_member_playing_in_the_channel_cannot_queue_there(world) -> None:
    from bot.game.model import Mode, NewGame

    svc, _ = world
    await svc.storage.games.create_game(NewGame(
        guild_id=1, channel_id=10, mode=Mode.PVP, x=A, o=B, started_by=A, rows=15, cols=15,
        k=5, rule="freestyle", rated=True, message_id=5,
    ))
    with pytest.raises(UserError) as refused:
        await join(svc, A, 1)
    assert refused.value.key == "error.already_playing_nolink"


async def test_joining_and_leaving_in_a_loop_meets_a_cooldown(world) -> None:
    svc, clock = world
    for _ in range(5):
        await join(svc, A, 1)
        await svc.queue.leave(A)
    with pytest.raises(UserError) as refused:
        await join(svc, A, 1)
    assert refused.value.key == "error.cooldown"
    assert await svc.queue.waiting(KEY) == 0
    clock.now += 60
    assert (await join(svc, A, 1)).status is QueueStatus.WAITING


async def test_members_of_two_servers_are_paired_unless_one_asks_for_their_own_server(
    world,
) -> None:
    svc, clock = world
    first = await svc.queue.join(guild_id=1, channel_id=10, user_id=A, key=KEY, locale="en-US",
                                 local=True)
    await svc.queue.posted(first.id, 5001)
    await join(svc, B, 2)
    assert first.local and await svc.queue.pair() == []
    await svc.queue.leave(A)
    clock.now += 1
    await join(svc, A, 1)
    (pairing,) = await svc.queue.pair()
    assert (pairing.first.user_id, pairing.second.user_id) == (B, A)
    (board,) = await svc.queue.boards(pairing.game_id)
    assert (board.guild_id, board.channel_id, board.user_id) == (1, 10, A)
    assert await svc.queue.unposted_boards() == [board]
    await svc.queue.board_posted(board, 6000)
    assert await svc.queue.unposted_boards() == []


async def test_a_server_with_cross_server_pairing_off_keeps_its_members_home(world) -> None:
    from dataclasses import replace

    svc, _ = world
    waiting = await join(svc, A, 1)
    assert not waiting.local
    settings = await svc.settings.timeouts(1)
    await svc.settings.save_timeouts(1, replace(settings, cross_server=False))
    assert await svc.queue.keep_local(1) == 1  # what /caro settings does when it is turned off
    await join(svc, B, 2)
    assert await svc.queue.pair() == []
    await svc.queue.leave(A)
    # Joined after the switch: this server only, whatever the member asked.
    entry = await svc.queue.join(guild_id=1, channel_id=10, user_id=A, key=KEY, locale="en-US")
    assert entry.local
    assert (await svc.queue.entry(waiting.id)).local  # type: ignore[union-attr]


async def test_joins_from_two_servers_in_turn_meet_one_cooldown(world) -> None:
    svc, clock = world
    for n in range(5):
        await join(svc, A, 1 + n % 2)
        await svc.queue.leave(A)
        clock.now += 1
    # The sixth join in a minute, from either server, is refused until the first is a minute old.
    for guild in (1, 2):
        with pytest.raises(UserError) as refused:
            await join(svc, A, guild)
        assert refused.value.key == "error.cooldown"
        assert refused.value.values == {"seconds": "55"}
    clock.now += 55
    assert (await join(svc, A, 2)).status is QueueStatus.WAITING


async def test_a_move_between_two_servers_writes_the_other_boards_redraw_with_it(world) -> None:
    from bot.game.model import GameState, MoveRef
    from bot.game.outbox import HELD_SECONDS
    from bot.game.outbox_model import PostKind

    svc, clock = world
    home = {A: 1, B: 2}
    for member, guild in home.items():
        await join(svc, member, guild)
    (pairing,) = await svc.queue.pair()
    state = await svc.games.state(pairing.game_id)
    mover = state.user_of(state.board.turn)
    other = home[B if mover == A else A]
    svc.outbox.changed.clear()
    after = await svc.moves.play(MoveRef(state.id, 0, "H8"), user_id=mover, message_id=None,
                                 guild_id=home[mover])
    # Written by the move's own transaction (a crash right after it cannot lose the redraw),
    # held by this process, which draws that board itself: no sender takes it meanwhile.
    assert isinstance(after, GameState)
    (held,) = svc.mirrors.take_held(after)
    assert (held.kind, held.guild_id, held.payload) == (
        PostKind.GAME_BOARD, other, {"game": state.id, "guild": other})
    assert svc.mirrors.take_held(after) == ()
    assert await svc.outbox.due(shard_id=0, shard_count=1) == []
    # A click replayed on the old position is refused and writes nothing.
    with pytest.raises(UserError):
        await svc.moves.play(MoveRef(state.id, 0, "H9"), user_id=mover, message_id=None,
                             guild_id=home[mover])
    # Not drawn by this process (it stopped): once the hold runs out, the sender takes it.
    clock.now += HELD_SECONDS + 1
    rows = await svc.outbox.due(shard_id=0, shard_count=1)
    assert [(row.kind, row.guild_id, row.payload, row.nonce) for row in rows] == [
        (PostKind.GAME_BOARD, other, {"game": state.id, "guild": other}, held.nonce)]


async def test_a_resignation_or_a_time_out_between_two_servers_writes_the_redraw_with_it(
    world,
) -> None:
    from bot.game.outbox_model import PostKind

    svc, clock = world
    for rounds in range(2):
        for member, guild in ((A, 1), (B, 2)):
            await join(svc, member, guild)
        (pairing,) = await svc.queue.pair()
        state = await svc.games.state(pairing.game_id)
        own, other = state.row.guild_id, 3 - state.row.guild_id
        if rounds == 0:
            finished = await svc.games.resign(state.id, state.user_of(state.board.turn))
        else:
            clock.now = state.row.deadline + 1
            (finished,) = await svc.timeouts.expire_games()
        assert not finished.active
        # The game's own board is the caller's to draw; the other server's is redrawn through
        # a row written by the same transaction as the end.
        rows = await svc.outbox.due(shard_id=0, shard_count=1)
        assert [(row.kind, row.guild_id, row.payload) for row in rows] == [
            (PostKind.GAME_BOARD, other, {"game": state.id, "guild": other})]
        assert own != other
        for row in rows:
            await svc.storage.outbox.post_sent(row.id, now=clock.now, message_id=None)
        clock.now += 3600  # the same pair again, an hour on


async def test_the_process_that_posted_a_board_plays_the_first_click_on_it_reading_nothing(
    world, backend: Backend
) -> None:
    from bot.game.games import Limits
    from bot.game.model import GameState, GuildSettings, MoveRef
    from bot.game.services import build_services
    from testkit.thinkers import Thinker

    svc, clock = world
    # A's second entry and B's: the lot of that pair gives X to B, whose board is in the other
    # server, so the game's first move is a click there.
    await join(svc, A, 1)
    await svc.queue.leave(A)
    for member, guild in ((A, 1), (B, 2)):
        await join(svc, member, guild)
    (pairing,) = await svc.queue.pair()
    game = await svc.games.state(pairing.game_id)
    assert game is not None and game.row.guild_id == 1 and game.user_of(game.board.turn) == B
    # The process holding the other server (another set of services on the same database)
    # posts its board there, and reads the game back as kept (QueueCog.post_board).
    there = build_services(
        await backend.open(), Thinker(), clock=clock,
        default_timeouts=GuildSettings(pvp_timeout=60.0, ai_timeout=120.0),
        limits=Limits(ai_games_per_member=2, ai_games_per_server=3, watches_per_server=2,
                      challenges_per_challenger=2, challenges_per_challenged=3),
    )
    (board,) = await there.queue.boards(game.id)
    await there.queue.board_posted(board, 777)
    # Not while the game's own board is unposted: kept then, the game would go on naming no
    # message for that board in this process.
    assert await there.games.state(game.id, keep=True) is not None
    assert there.moves._cache.recent(game.id) is None
    await svc.games.attach_message(game.id, 555)
    assert await there.games.state(game.id, keep=True) is not None
    assert there.moves._cache.recent(game.id).row.message_id == 555

    async def unread(*_: object) -> None:
        raise AssertionError("read on the first click")

    there.moves._store.game = unread  # type: ignore[method-assign]
    there.mirrors._queue.game_boards = unread  # type: ignore[method-assign]
    after = await there.moves.play(MoveRef(game.id, 0, "H8"), user_id=B, message_id=777,
                                   guild_id=2)
    assert isinstance(after, GameState) and after.board.ply == 1
    assert [post.guild_id for post in there.mirrors.take_held(after)] == [1]
