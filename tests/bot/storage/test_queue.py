"""The queue in storage, on both backends: one waiting entry per member (two joins at once make
one), leaving, pairing that reads the blocks and the last hour's pairs from the database, and
processes pairing at once on one database never pairing a member twice nor pairing one who
left."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime

import pytest

from bot.game.model import Status
from bot.game.ports import Storage
from bot.game.queue import queued_game
from bot.game.queue_model import (
    AlreadyQueued,
    NewQueueEntry,
    QueuedGameRunning,
    QueueEntry,
    QueueKey,
    QueueStatus,
    choose_pairs,
)
from testkit.storage_backends import Backend, listening

KEY = QueueKey(rows=15, cols=15, k=5, rule="freestyle", rated=True, turn_seconds=600.0)
HOUR = 3600.0


def new(user: int, rating: float = 1200.0, *, at: float = 100.0, guild: int = 1,
        key: QueueKey = KEY, local: bool = False, channel: int | None = None) -> NewQueueEntry:
    return NewQueueEntry(guild_id=guild, channel_id=channel or guild * 10, user_id=user, key=key,
                         rating=rating, local=local, locale="vi", joined_at=at)


async def join(storage: Storage, entry: NewQueueEntry) -> QueueEntry:
    """A joined entry with its message posted (only those are paired)."""
    joined = await storage.queue.join_queue(entry)
    await storage.queue.set_queue_message(joined.id, 9000 + joined.id)
    return joined


async def pair(storage: Storage, now: float = 100.0, *, shard: tuple[int, int] = (0, 1)):
    def make_game(first: QueueEntry, second: QueueEntry):
        return queued_game(first, second, now=now)

    return [
        (p.first, p.second)
        for p in await storage.queue.pair_queue(
            now=now, recent_since=now - HOUR, choose=choose_pairs, make_game=make_game,
            shard_id=shard[0], shard_count=shard[1],
        )
    ]


async def paired_across(storage: Storage, here: int, there: int
                        ) -> tuple[QueueEntry, QueueEntry]:
    """Member 1 of server `here` (waiting longer) and member 2 of `there`, paired: the game is
    `here`'s, its entries (1's first) carry its id."""
    await join(storage, new(1, guild=here, channel=11, at=90.0))
    await join(storage, new(2, guild=there, channel=21, at=95.0))
    ((one, other),) = await pair(storage)
    assert one.game_id is not None
    return one, other


async def test_an_entry_is_read_back_as_written_and_one_waits_per_member(
    storage: Storage,
) -> None:
    entry = await storage.queue.join_queue(new(1, 1234.5, guild=7, local=True))
    assert (entry.guild_id, entry.channel_id, entry.user_id, entry.key, entry.rating) == (
        7, 70, 1, KEY, 1234.5)
    assert (entry.local, entry.locale, entry.joined_at, entry.status) == (
        True, "vi", 100.0, QueueStatus.WAITING)
    assert entry.message_id is None and entry.partner_id is None
    await storage.queue.set_queue_message(entry.id, 555)
    assert (await storage.queue.queue_entry(entry.id)).message_id == 555
    with pytest.raises(AlreadyQueued) as refused:
        await join(storage, new(1, guild=8))
    assert refused.value.entry.id == entry.id
    assert await storage.queue.waiting_entry(1) == await storage.queue.queue_entry(entry.id)


async def test_two_joins_of_one_member_at_once_from_two_processes_make_one(
    backend: Backend,
) -> None:
    first, second = await backend.open(), await backend.open()
    outcomes = await asyncio.gather(
        first.queue.join_queue(new(1, guild=1)), second.queue.join_queue(new(1, guild=2)),
        return_exceptions=True,
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["AlreadyQueued", "QueueEntry"]
    assert await first.queue.count_waiting(KEY) == 1


async def test_a_pairing_of_two_servers_wakes_the_other_processes_and_one_within_a_server_not(
    backend: Backend,
) -> None:
    pairing, other = await backend.open(), await backend.open()
    async with listening(backend, other.queue.listen_pairings) as woken:
        if woken is None:
            return  # SQLite: no signal between processes on a file, the next round looks
        await join(pairing, new(3, guild=5, at=80.0))
        await join(pairing, new(4, guild=5, at=85.0))
        assert len(await pair(pairing)) == 1
        await asyncio.sleep(0.3)
        assert not woken.is_set()  # both boards are the game's one board, in its own server
        await paired_across(pairing, 1, 2)
        await asyncio.wait_for(woken.wait(), 5.0)


async def test_leaving_takes_the_entry_out_once_and_it_is_never_paired(storage: Storage) -> None:
    await join(storage, new(1))
    await join(storage, new(2))
    left = await storage.queue.leave_queue(1, now=105.0)
    assert left is not None and left.status is QueueStatus.LEFT
    assert await storage.queue.leave_queue(1, now=106.0) is None
    assert await pair(storage) == []
    # Left, the member may join again.
    assert (await join(storage, new(1, at=110.0))).status is QueueStatus.WAITING


async def test_a_server_left_takes_out_its_waiting_entries_only(storage: Storage) -> None:
    await join(storage, new(4, guild=7))
    await join(storage, new(5, guild=7))
    assert len(await pair(storage)) == 1  # 4 and 5: paired, their game stays
    await join(storage, new(1, guild=7, at=101.0))
    await join(storage, new(2, guild=7, at=100.0))
    await join(storage, new(3, guild=8))
    left = await storage.queue.leave_guild_queue(7, now=110.0)
    assert [(e.user_id, e.status) for e in left] == [(2, QueueStatus.LEFT), (1, QueueStatus.LEFT)]
    assert await storage.queue.leave_guild_queue(7, now=111.0) == []
    assert (await storage.queue.waiting_entry(3)).guild_id == 8
    assert [e.status for e in await storage.queue.game_entries(1)] == [QueueStatus.PAIRED] * 2


async def test_the_waiting_entries_of_a_shard_are_those_posted(storage: Storage) -> None:
    on_0, on_1 = 0 << 22, 1 << 22  # guild ids on shard 0 and 1 of 2
    unposted = await storage.queue.join_queue(new(1, guild=on_0))
    await join(storage, new(2, guild=on_0, at=102.0))
    await join(storage, new(3, guild=on_0, at=101.0))
    await join(storage, new(4, guild=on_1))
    assert [e.user_id for e in await storage.queue.waiting_entries(shard_id=0, shard_count=2)
            ] == [3, 2]
    assert [e.user_id for e in await storage.queue.waiting_entries()] == [4, 3, 2]
    await storage.queue.set_queue_message(unposted.id, 77)
    await storage.queue.leave_queue(2, now=103.0)
    assert [e.user_id for e in await storage.queue.waiting_entries(shard_id=0, shard_count=2)
            ] == [1, 3]


async def test_the_waiting_are_counted_per_game(storage: Storage) -> None:
    casual = QueueKey(15, 15, 5, "freestyle", rated=False, turn_seconds=600.0)
    for user in (1, 2):
        await join(storage, new(user, guild=user))
    await join(storage, new(3, key=casual))
    assert await storage.queue.count_waiting(KEY) == 2
    assert await storage.queue.count_waiting(casual) == 1


async def test_a_pairing_marks_both_entries_with_their_partner(storage: Storage) -> None:
    a = await join(storage, new(1, 1200.0, at=90.0, guild=1))
    b = await join(storage, new(2, 1250.0, at=95.0, guild=2))
    ((one, other),) = await pair(storage)
    assert (one.id, other.id) == (a.id, b.id)
    assert (one.status, one.partner_id, one.paired_at) == (QueueStatus.PAIRED, 2, 100.0)
    assert (other.status, other.partner_id, other.paired_at) == (QueueStatus.PAIRED, 1, 100.0)
    assert await storage.queue.waiting_entry(1) is None
    assert await storage.queue.leave_queue(2, now=101.0) is None
    assert await pair(storage) == []


async def test_pairing_reads_the_blocks_and_the_last_hours_pairs(storage: Storage) -> None:
    await storage.blocks.block(1, 2, now=1.0, limit=10)
    await join(storage, new(1))
    await join(storage, new(2))
    assert await pair(storage, now=10_000.0) == []
    await storage.blocks.unblock(1, 2)
    ((one, _),) = await pair(storage, now=10_000.0)
    assert one.game_id is not None and await storage.games.abandon_game(one.game_id)
    # Paired at 10,000: within the hour they meet again only when nobody else waits.
    await join(storage, new(1, at=10_010.0))
    await join(storage, new(2, at=10_010.0))
    await join(storage, new(3, 1210.0, at=10_020.0))
    ((one, other),) = await pair(storage, now=10_020.0)
    # 1 waited longest: 2 is as close, but they just met.
    assert (one.user_id, other.user_id) == (1, 3)
    assert one.game_id is not None and await storage.games.abandon_game(one.game_id)
    # An hour later 2 meets anyone again.
    await join(storage, new(4, at=13_700.0))
    ((x, y),) = await pair(storage, now=13_700.0 + 60)
    assert (x.user_id, y.user_id) == (2, 4)


async def test_processes_pairing_at_once_never_pair_a_member_twice(backend: Backend) -> None:
    stores = [await backend.open(), await backend.open()]
    rng = random.Random(39)
    users = list(range(1, 41))
    for user in users:
        await join(stores[user % 2],
            new(user, 1000.0 + rng.randrange(400), at=float(user), guild=user % 3 + 1)
        )
    # Members leave while both processes pair, over and over.
    leaving = rng.sample(users, 8)
    tasks = [pair(stores[i % 2], now=200.0 + i) for i in range(12)]
    tasks += [stores[u % 2].queue.leave_queue(u, now=150.0) for u in leaving]
    results = await asyncio.gather(*tasks)
    pairs = [p for found in results[:12] for p in found]
    left = {entry.user_id for entry in results[12:] if entry is not None}
    paired = [entry.user_id for p in pairs for entry in p]
    assert len(paired) == len(set(paired)), "a member was paired twice"
    assert not set(paired) & left, "a member who left was paired"
    assert set(paired) | left | {u for u in users if await stores[0].queue.waiting_entry(u)} == set(
        users)
    # Every pair as stored: both sides name each other.
    for one, other in pairs:
        assert (one.partner_id, other.partner_id) == (other.user_id, one.user_id)
    rows = await backend.fetch(
        "SELECT COUNT(*) FROM queue_entries WHERE status = 'paired'"
    )
    assert rows == [(len(paired),)]


async def test_a_pair_gets_its_game_in_the_channel_of_who_waited_longer(storage: Storage) -> None:
    a = await join(storage, new(1, at=90.0, guild=5, channel=51))
    await join(storage, new(2, at=95.0, guild=5, channel=52))
    ((one, other),) = await pair(storage)
    assert one.game_id == other.game_id is not None
    game = await storage.games.game(one.game_id)
    assert game is not None and game.message_id is None  # posted by the bot next
    assert (game.guild_id, game.channel_id, game.started_by) == (5, 51, 1)
    assert {game.x, game.o} == {1, 2} and game.status is Status.ACTIVE
    assert (game.rows, game.cols, game.k, game.rule, game.rated) == (15, 15, 5, "freestyle", True)
    assert (game.turn_seconds, game.deadline) == (600.0, 700.0)
    assert await storage.queue.unposted_queue_games() == [game.id]
    assert [e.id for e in await storage.queue.game_entries(game.id)] == [a.id, other.id]
    # One queued game at a time: no new entry while it runs.
    with pytest.raises(QueuedGameRunning) as refused:
        await storage.queue.join_queue(new(1, at=120.0))
    assert refused.value.game_id == game.id
    await storage.games.set_message(game.id, 777)
    assert await storage.queue.unposted_queue_games() == []
    assert await storage.games.abandon_game(game.id)
    assert (await join(storage, new(1, at=130.0))).status is QueueStatus.WAITING


async def test_a_pair_whose_seat_is_taken_keeps_waiting_and_the_rest_are_paired(
    storage: Storage,
) -> None:
    from bot.game.model import Mode, NewGame

    # 2 plays in 1's channel already: their game cannot be made there.
    await storage.games.create_game(NewGame(
        guild_id=1, channel_id=10, mode=Mode.PVP, x=2, o=9, started_by=2, rows=15, cols=15,
        k=5, rule="freestyle", rated=True, message_id=5,
    ))
    await join(storage, new(1, at=90.0))
    await join(storage, new(2, at=91.0, channel=11))
    await join(storage, new(3, 1500.0, at=92.0, channel=12))
    await join(storage, new(4, 1500.0, at=93.0, channel=13))
    assert [(a.user_id, b.user_id) for a, b in await pair(storage)] == [(3, 4)]
    assert (await storage.queue.waiting_entry(1)) is not None
    assert (await storage.queue.waiting_entry(2)) is not None


async def test_only_posted_entries_of_the_shards_servers_are_paired(storage: Storage) -> None:
    here, there = 1 << 22, 2 << 22  # servers on shards 1 and 0 of 2
    await join(storage, new(1, guild=here, local=True))
    await storage.queue.join_queue(new(2, guild=here, local=True))  # its message not posted yet
    await join(storage, new(3, guild=there, local=True))
    await join(storage, new(4, guild=there, local=True))
    assert [(a.user_id, b.user_id) for a, b in await pair(storage, shard=(0, 2))] == [(3, 4)]
    assert await pair(storage, shard=(1, 2)) == []
    entry = await storage.queue.waiting_entry(2)
    assert entry is not None
    await storage.queue.set_queue_message(entry.id, 4242)
    assert [(a.user_id, b.user_id) for a, b in await pair(storage, shard=(1, 2))] == [(1, 2)]


async def test_entries_open_to_any_server_are_paired_by_any_shard_with_a_second_board(
    storage: Storage,
) -> None:
    here, there = 1 << 22, 2 << 22  # servers on shards 1 and 0 of 2
    await join(storage, NewQueueEntry(
        guild_id=here, channel_id=11, user_id=1, key=KEY, rating=1200.0, local=False,
        locale="vi", joined_at=90.0, display_name="Mai",
    ))
    await join(storage, new(2, guild=there, channel=21, at=95.0))
    # Shard 0 pairs them, though 1's server is on shard 1: both are open to any server.
    ((one, other),) = await pair(storage, shard=(0, 2))
    assert (one.user_id, one.display_name, other.user_id, other.display_name) == (1, "Mai", 2, "")
    assert one.game_id is not None
    game = await storage.games.game(one.game_id)
    assert game is not None and (game.guild_id, game.channel_id) == (here, 11)
    # The second board, in 2's server, waits for its shard (0) to post it.
    (board,) = await storage.queue.game_boards(one.game_id)
    assert (board.guild_id, board.channel_id, board.user_id, board.message_id) == (
        there, 21, 2, None)
    assert board.nonce == f"caro-board-{one.game_id}"
    assert await storage.queue.unposted_boards(shard_id=1, shard_count=2) == []
    assert await storage.queue.unposted_boards(shard_id=0, shard_count=2) == [board]
    await storage.queue.attach_board(one.game_id, there, 888)
    assert await storage.queue.unposted_boards(shard_id=0, shard_count=2) == []
    assert [b.message_id for b in await storage.queue.game_boards(one.game_id)] == [888]
    # The member's running game, from their board's channel (not the game's own).
    assert await storage.queue.board_game(there, 21, 2) == one.game_id
    assert await storage.queue.board_game(there, 21, 1) is None
    assert await storage.queue.board_game(here, 11, 1) is None  # the game's own: live_seats
    assert await storage.games.abandon_game(one.game_id)
    assert await storage.queue.board_game(there, 21, 2) is None


async def test_a_board_panned_by_its_member_is_remembered_per_game_and_server(
    storage: Storage,
) -> None:
    one, other = await paired_across(storage, 1 << 22, 2 << 22)
    assert one.game_id is not None
    boards = await storage.queue.game_boards(one.game_id)
    assert [b.guild_id for b in boards] == [2 << 22]
    assert await storage.queue.boards_panned(one.game_id) == (boards, frozenset())
    await storage.queue.mark_panned(one.game_id, 2 << 22)
    await storage.queue.mark_panned(one.game_id, 2 << 22)  # twice: the same
    assert await storage.queue.boards_panned(one.game_id) == (boards, frozenset({2 << 22}))
    await storage.queue.mark_panned(one.game_id + 1, 1 << 22)  # no such game: nothing
    await storage.queue.mark_panned(one.game_id, 1 << 22)
    assert await storage.queue.boards_panned(one.game_id) == (
        boards, frozenset({1 << 22, 2 << 22}))
    assert await storage.queue.boards_panned(one.game_id + 1) == ([], frozenset())


async def test_a_game_within_one_server_has_no_second_board(storage: Storage) -> None:
    await join(storage, new(1, at=90.0, guild=5, channel=51))
    await join(storage, new(2, at=95.0, guild=5, channel=52))
    ((one, _),) = await pair(storage)
    assert one.game_id is not None
    assert await storage.queue.game_boards(one.game_id) == []
    assert await storage.queue.unposted_boards() == []
    # Nobody of a game within one server must stay in their server for it to go on.
    assert await storage.queue.cross_seats() == []


async def test_the_seats_of_games_between_two_servers_are_found_per_shard_while_they_run(
    storage: Storage,
) -> None:
    here, there = 1 << 22, 2 << 22  # servers on shards 1 and 0 of 2
    one, other = await paired_across(storage, here, there)
    seats = [(e.user_id, e.guild_id, e.game_id) for e in await storage.queue.cross_seats()]
    assert seats == [(1, here, one.game_id), (2, there, one.game_id)]
    assert [e.user_id for e in await storage.queue.cross_seats(shard_id=0, shard_count=2)] == [2]
    assert [e.user_id for e in await storage.queue.cross_seats(shard_id=1, shard_count=2)] == [1]
    # Over: nobody's seat is asked for any more, and the finished game is still found from
    # the channel of its second board when asked for games over or not.
    assert await storage.games.abandon_game(one.game_id)
    assert await storage.queue.cross_seats() == []
    assert await storage.queue.board_game(there, 21, 2) is None
    assert await storage.queue.board_game(there, 21, 2, running=False) == one.game_id


async def test_a_members_joins_are_counted_in_every_server_and_status(storage: Storage) -> None:
    await join(storage, new(1, guild=1, at=10.0))
    await storage.queue.leave_queue(1, now=11.0)
    await join(storage, new(1, guild=2, at=20.0))
    await join(storage, new(2, guild=2, at=30.0))
    ((mine, _),) = await pair(storage, now=40.0)
    assert mine.user_id == 1
    assert sorted(await storage.queue.joins_since(1, 0.0)) == [10.0, 20.0]
    assert await storage.queue.joins_since(1, 10.0) == [20.0]
    assert await storage.queue.joins_since(3, 0.0) == []


async def test_an_entry_of_this_server_only_meets_no_one_of_another(storage: Storage) -> None:
    here, there = 1 << 22, 2 << 22
    await join(storage, new(1, guild=here, local=True))
    await join(storage, new(2, guild=there))
    assert await pair(storage, shard=(0, 2)) == []
    assert await pair(storage, shard=(1, 2)) == []
    assert await pair(storage) == []


async def test_a_server_turning_cross_server_off_keeps_its_waiting_entries_home(
    storage: Storage,
) -> None:
    from bot.game.model import GuildSettings

    await join(storage, new(1, guild=3))
    await join(storage, new(2, guild=3))
    await join(storage, new(3, guild=4))
    await storage.queue.join_queue(new(4, guild=4))
    assert await storage.queue.keep_queue_local(3) == 2
    assert await storage.queue.keep_queue_local(3) == 0
    assert [(await storage.queue.waiting_entry(u)).local for u in (1, 2, 3, 4)] == [  # type: ignore[union-attr]
        True, True, False, False]
    default = GuildSettings(pvp_timeout=600.0, ai_timeout=1800.0)
    assert (await storage.settings.guild_settings(3, default)).cross_server is True
    await storage.settings.save_guild_settings(3, GuildSettings(600.0, 1800.0, cross_server=False))
    assert (await storage.settings.guild_settings(3, default)).cross_server is False


async def test_a_game_between_two_servers_rates_each_member_in_their_own_server_once(
    storage: Storage,
) -> None:
    from bot.game import ratings
    from bot.game.model import EndReason, Finish, Mode, NewGame
    from bot.game.ports import GLOBAL_SCOPE
    from bot.game.seasons import SeasonLength, season_of
    from engine import Mark

    here, there = 1 << 22, 2 << 22
    # Member 1 already has a rating in their server: 3 lost to them there.
    warmup = await storage.games.create_game(NewGame(
        guild_id=here, channel_id=11, mode=Mode.PVP, x=1, o=3, started_by=1, rows=15, cols=15,
        k=5, rule="freestyle", rated=True,
    ))
    assert await storage.games.finish_game(
        warmup.id, Finish(Mark.X, EndReason.RESIGN), rate=ratings.game_updates)
    in_here = (await storage.standings.standing(here, 1, Mode.PVP)).rating
    world = (await storage.standings.standing(GLOBAL_SCOPE, 1, Mode.PVP)).rating
    one, _ = await paired_across(storage, here, there)
    game = await storage.games.game(one.game_id)
    assert game is not None
    winner = Mark.X if game.x == 2 else Mark.O  # the member of the other server wins
    finish = Finish(winner, EndReason.RESIGN)
    finished = await storage.games.finish_game(game.id, finish, rate=ratings.game_updates)
    assert finished is not None
    # Each is rated in their own server against the other's rating in theirs, and globally.
    start = ratings.START_RATING
    assert {(c.user_id, c.scope, c.before, c.after) for c in finished.changes} == {
        (1, here, in_here, ratings.updated(in_here, start, "loss")),
        (2, there, start, ratings.updated(start, in_here, "win")),
        (1, GLOBAL_SCOPE, world, ratings.updated(world, start, "loss")),
        (2, GLOBAL_SCOPE, start, ratings.updated(start, world, "win")),
    }
    assert list(finished.changes) == await storage.standings.rating_changes(game.id)
    # The member of the other server is on their server's boards, not on the game's server's.
    boards = {
        guild: [r.user_id for r in await storage.standings.rated_leaderboard(
            guild, Mode.PVP, min_games=0)]
        for guild in (here, there)
    }
    assert boards == {here: [1, 3], there: [2]}
    season = season_of(SeasonLength.MONTHLY, datetime.now(UTC))
    assert season is not None
    seasons = {
        guild: [r.user_id for r in await storage.standings.season_leaderboard(
            guild, season.name, Mode.PVP, min_games=0)]
        for guild in (here, there)
    }
    assert seasons == {here: [1, 3], there: [2]}
    assert (await storage.standings.standing(here, 2, Mode.PVP)).record.games == 0
    # A second finish (a retry, another process) counts nothing more.
    assert await storage.games.finish_game(game.id, finish, rate=ratings.game_updates) is None
    assert await storage.standings.rating_changes(game.id) == list(finished.changes)
    assert (await storage.standings.standing(there, 2, Mode.PVP)).record.wins == 1


async def test_a_game_between_two_servers_moves_each_members_season_by_their_servers_length(
    storage: Storage,
) -> None:
    from bot.game import ratings
    from bot.game.model import EndReason, Finish, GuildSettings, Mode
    from bot.game.seasons import SeasonLength, season_of
    from engine import Mark

    here, there = 1 << 22, 2 << 22
    # Quarterly seasons here, none there.
    await storage.settings.save_guild_settings(
        here, GuildSettings(600.0, 600.0, season_length=SeasonLength.QUARTERLY))
    await storage.settings.save_guild_settings(
        there, GuildSettings(600.0, 600.0, season_length=SeasonLength.OFF))
    one, _ = await paired_across(storage, here, there)
    game = await storage.games.game(one.game_id)
    assert game is not None
    winner = Mark.X if game.x == 1 else Mark.O  # the member of the game's own server wins
    finished = await storage.games.finish_game(
        game.id, Finish(winner, EndReason.RESIGN), rate=ratings.game_updates)
    assert finished is not None
    quarter = season_of(SeasonLength.QUARTERLY, datetime.now(UTC))
    assert quarter is not None
    # Member 1's quarter moved against member 2's all-time rating in their server; member 2 has
    # no season, in their server or in member 1's.
    start = ratings.START_RATING
    here_seasons = await storage.standings.seasons(here)
    assert [s.name for s in here_seasons] == [quarter.name]
    board = await storage.standings.season_leaderboard(here, quarter.name, Mode.PVP, min_games=0)
    assert [(r.user_id, r.rating) for r in board] == [(1, ratings.updated(start, start, "win"))]
    assert await storage.standings.seasons(there) == []


async def test_a_game_between_two_servers_is_each_members_finished_game_in_their_own_server(
    storage: Storage,
) -> None:
    from bot.game import ratings
    from bot.game.model import EndReason, Finish, Mode, NewGame
    from engine import Mark

    here, there, third = 1 << 22, 2 << 22, 3 << 22
    one, _ = await paired_across(storage, here, there)
    crossed = one.game_id
    # Member 2 then plays a game of their own server, which comes after it, newest first.
    later = await storage.games.create_game(NewGame(
        guild_id=there, channel_id=22, mode=Mode.PVP, x=2, o=3, started_by=2, rows=15, cols=15,
        k=5, rule="freestyle", rated=False,
    ))
    # Running, neither is a finished game yet.
    assert await storage.reviews.finished_games(there, 2, limit=5) == []
    for game_id in (crossed, later.id):
        assert await storage.games.finish_game(
            game_id, Finish(Mark.X, EndReason.RESIGN), rate=ratings.game_updates)

    async def finished(guild: int, user: int, **page: int) -> list[int]:
        return [g.id for g in await storage.reviews.finished_games(guild, user, limit=5, **page)]

    assert await finished(there, 2) == [later.id, crossed]
    assert await finished(there, 2, offset=1) == [crossed]
    assert (await storage.reviews.finished_games(there, 2, limit=1))[0].id == later.id
    assert await finished(here, 1) == [crossed]
    # The game's own server lists it for both its players, as any game of that server; 2's
    # server only for 2, whose board was there.
    assert await finished(here, 2) == [crossed]
    assert await finished(there, 1) == []
    assert await finished(third, 2) == [] and await finished(there, 3) == [later.id]
    # The game had a board in 2's server; none in the third, nor one besides its own in its own.
    assert await storage.reviews.board_in(crossed, there)
    assert not await storage.reviews.board_in(crossed, third)
    assert not await storage.reviews.board_in(crossed, here)
    assert not await storage.reviews.board_in(later.id, there)
