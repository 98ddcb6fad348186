"""The outbox in storage, on both backends: a post is written with the change that calls for it
or not at all, handed to one sender at a time (two processes never both hold a row), in the
order of its channel, tried again later, given up for good, read per shard, and pruned once done
with."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.game.outbox_model import NONCE_LENGTH, Heard, NewPost, PostKind, PostRow
from bot.game.ports import MoveOutcome, Storage
from bot.game.tournament_model import NewPairing, TournamentStatus
from testkit.storage_backends import Backend, listening
from tests.bot.storage.test_storage import new_game
from tests.bot.storage.test_tournaments import GUILD, A, B, C, D, guild_on_shard, running

CHANNEL = 222


def final(tournament_id: int, at: float = 100.0, guild: int = GUILD, channel: int = CHANNEL
          ) -> NewPost:
    return NewPost(guild, channel, PostKind.TOURNAMENT_FINAL, {"tournament": tournament_id}, at)


def redraw(tournament_id: int) -> NewPost:
    return NewPost(GUILD, CHANNEL, PostKind.TOURNAMENT_ANNOUNCEMENT, {"tournament": tournament_id},
                   100.0)


async def every_post(storage: Storage) -> list[PostRow]:
    """Every row, sent or not, in the order written."""
    found = [await storage.outbox.post(post_id) for post_id in range(1, 30)]
    return [row for row in found if row is not None]


async def test_a_post_is_written_with_the_claim_that_calls_for_it_and_only_then(
    storage: Storage,
) -> None:
    tid = await running(storage)
    assert await storage.tournaments.claim_announcement(tid, 1, [final(tid)])
    # A claim that loses writes nothing: the post belongs to the winner's transaction.
    assert not await storage.tournaments.claim_announcement(tid, 1, [final(tid)])
    (row,) = await storage.outbox.due_posts(now=100.0)
    assert (row.kind, row.payload, row.guild_id, row.channel_id) == (
        PostKind.TOURNAMENT_FINAL, {"tournament": tid}, GUILD, CHANNEL)
    assert row.nonce.startswith("caro") and len(row.nonce) <= NONCE_LENGTH
    assert (row.created_at, row.attempts, row.last_error) == (100.0, 0, None)


async def test_a_round_paired_with_its_standings_writes_them_once(storage: Storage) -> None:
    tid = await running(storage)
    tours = storage.tournaments
    standings = NewPost(GUILD, CHANNEL, PostKind.TOURNAMENT_ROUND, {"tournament": tid,
                                                                    "round": 1}, 100.0)
    assert await tours.add_round(tid, 1, [NewPairing(1, A, B), NewPairing(2, C, D)])
    # Round 1's standings were posted already (the tournament was paused): pairing round 2
    # claims them no more.
    assert await tours.claim_announcement(tid, 1, [standings])
    assert await tours.add_round(tid, 2, [NewPairing(1, A, C)], announce=standings)
    assert len(await every_post(storage)) == 1
    assert await tours.add_round(
        tid, 3, [NewPairing(1, A, D)], posts=[final(tid)], announce=standings
    )
    kinds = [r.kind for r in await every_post(storage)]
    assert kinds == [PostKind.TOURNAMENT_ROUND, PostKind.TOURNAMENT_FINAL, PostKind.TOURNAMENT_ROUND]
    # A status that does not change writes none of its posts.
    assert not await tours.set_status(
        tid, TournamentStatus.PAUSED, TournamentStatus.RUNNING, now=1.0, posts=[final(tid)]
    )
    assert len(await every_post(storage)) == 3


async def test_two_processes_never_both_hold_a_row(backend: Backend) -> None:
    first, second = await backend.open(), await backend.open()
    await first.outbox.add_posts([final(1)])
    (row,) = await second.outbox.due_posts(now=100.0)
    claims = await asyncio.gather(
        first.outbox.claim_post(row.id, now=100.0, until=160.0),
        second.outbox.claim_post(row.id, now=100.0, until=160.0),
    )
    assert sorted(claims) == [False, True]
    # Held: no sender is handed it until the claim runs out.
    assert await first.outbox.due_posts(now=150.0) == []
    assert await first.outbox.next_post_due() == 160.0
    assert [r.id for r in await first.outbox.due_posts(now=161.0)] == [row.id]
    # The process that takes the shard over releases the claim of one that stopped.
    assert await first.outbox.release_posts() == 1
    assert [r.id for r in await second.outbox.due_posts(now=101.0)] == [row.id]
    assert await second.outbox.claim_post(row.id, now=101.0, until=161.0)
    assert await second.outbox.post_sent(row.id, now=102.0, message_id=77)
    assert not await first.outbox.post_sent(row.id, now=103.0, message_id=78)
    assert not await first.outbox.claim_post(row.id, now=200.0, until=260.0)
    assert await first.outbox.due_posts(now=1e9) == []
    assert await first.outbox.next_post_due() is None


async def test_a_failed_try_waits_and_a_refusal_for_good_is_never_tried_again(
    storage: Storage,
) -> None:
    await storage.outbox.add_posts([final(1), final(2, channel=CHANNEL + 1)])
    one, two = await storage.outbox.due_posts(now=100.0)
    assert await storage.outbox.claim_post(one.id, now=100.0, until=160.0)
    await storage.outbox.post_retry(one.id, error="503 Service Unavailable", retry_at=104.0)
    await storage.outbox.post_failed(two.id, now=100.0, error="403 Missing Access")
    assert await storage.outbox.due_posts(now=103.0) == []
    (again,) = await storage.outbox.due_posts(now=104.0)
    assert (again.id, again.attempts, again.last_error) == (one.id, 1, "503 Service Unavailable")
    gone = await storage.outbox.post(two.id)
    assert gone is not None and gone.last_error == "403 Missing Access"
    assert not await storage.outbox.claim_post(two.id, now=1e9, until=2e9)


async def test_each_shard_is_handed_its_own_rows(storage: Storage) -> None:
    await storage.outbox.add_posts([
        final(1, guild=guild_on_shard(0)), final(2, guild=guild_on_shard(1), channel=CHANNEL + 1)
    ])
    for shard in (0, 1):
        rows = await storage.outbox.due_posts(now=100.0, shard_id=shard, shard_count=2)
        assert [r.payload["tournament"] for r in rows] == [shard + 1]
        assert await storage.outbox.next_post_due(shard_id=shard, shard_count=2) == 100.0


async def test_rows_done_with_are_pruned_and_waiting_ones_kept(storage: Storage) -> None:
    await storage.outbox.add_posts(
        [final(n, channel=CHANNEL + n) for n in (1, 2, 3)]
    )
    sent, failed, waiting = await storage.outbox.due_posts(now=100.0)
    assert await storage.outbox.post_sent(sent.id, now=100.0, message_id=None)
    await storage.outbox.post_failed(failed.id, now=200.0, error="404 Unknown Channel")
    assert await storage.outbox.prune_posts(sent_before=50.0, failed_before=150.0) == 0
    assert await storage.outbox.prune_posts(sent_before=101.0, failed_before=150.0) == 1
    assert await storage.outbox.prune_posts(sent_before=1e9, failed_before=201.0) == 1
    assert [r.id for r in await storage.outbox.due_posts(now=100.0)] == [waiting.id]


async def test_a_channels_posts_go_out_in_the_order_written_and_an_edit_waits_for_none(
    storage: Storage,
) -> None:
    await storage.outbox.add_posts([final(1), final(2), redraw(1), final(3, channel=CHANNEL + 1)])
    first, second, edit, elsewhere = await every_post(storage)
    # The second post of the channel waits for the first; the edit and the other channel do not.
    due = await storage.outbox.due_posts(now=100.0)
    assert [r.id for r in due] == [first.id, edit.id, elsewhere.id]
    assert await storage.outbox.claim_post(first.id, now=100.0, until=160.0)
    await storage.outbox.post_retry(first.id, error="500", retry_at=101.0)
    # Still waiting for the first's retry: nothing of the channel is due before it.
    assert first.id not in [r.id for r in await storage.outbox.due_posts(now=100.5)]
    assert second.id not in [r.id for r in await storage.outbox.due_posts(now=100.5)]
    assert await storage.outbox.next_post_due() == 100.0  # the edit, still waiting
    assert await storage.outbox.post_sent(first.id, now=101.0, message_id=1)
    assert second.id in [r.id for r in await storage.outbox.due_posts(now=101.0)]
    # A post given up holds up no other.
    await storage.outbox.post_failed(second.id, now=101.0, error="403")
    await storage.outbox.add_posts([final(4)])
    assert [r.payload["tournament"] for r in await storage.outbox.due_posts(now=101.0)] == [1, 3, 4]


async def test_rows_written_by_one_process_wake_the_senders_of_the_others(
    backend: Backend,
) -> None:
    writer, other = await backend.open(), await backend.open()
    async with listening(backend, other.outbox.listen_posts) as woken:
        if woken is None:
            return  # SQLite: no signal between processes on a file, the sender looks
        await asyncio.sleep(0.2)
        assert not woken.is_set()
        board = NewPost(GUILD, CHANNEL, PostKind.GAME_BOARD, {"game": 1, "guild": GUILD}, 100.0)
        await writer.outbox.add_posts([board])
        await asyncio.wait_for(woken.wait(), 5.0)


async def test_an_edit_written_is_heard_whole_and_a_new_message_only_wakes(
    backend: Backend,
) -> None:
    writer, other = await backend.open(), await backend.open()
    heard: list[tuple[Any, ...]] = []
    async with listening(backend, other.outbox.listen_posts, heard) as woken:
        if woken is None:
            return  # SQLite: no signal between processes on a file, the sender looks
        board = NewPost(GUILD, CHANNEL, PostKind.GAME_BOARD, {"game": 1, "guild": GUILD}, 100.0)
        await writer.outbox.add_posts([board, redraw(3)])
        await asyncio.wait_for(woken.wait(), 5.0)
        [(signal,)] = heard
        # The rows as the sender's pass would read them: it need not read them.
        assert signal == Heard(tuple(await other.outbox.due_posts(now=100.0)), others=False)
        assert [row.kind for row in signal.rows] == [PostKind.GAME_BOARD,
                                                     PostKind.TOURNAMENT_ANNOUNCEMENT]
        woken.clear()
        heard.clear()
        # A new message waits for its channel's earlier ones: the signal only wakes the pass.
        await writer.outbox.add_posts([final(4), board])
        await asyncio.wait_for(woken.wait(), 5.0)
        [(signal,)] = heard
        assert signal.others
        assert [row.kind for row in signal.rows] == [PostKind.GAME_BOARD]


def held_board(nonce: str, until: float = 115.0) -> NewPost:
    return NewPost(GUILD, CHANNEL, PostKind.GAME_BOARD, {"game": 1, "guild": GUILD}, 100.0,
                   nonce=nonce, claimed_until=until)


async def test_a_row_held_by_its_writer_is_taken_by_no_other_sender_until_its_hold_runs_out(
    storage: Storage,
) -> None:
    await storage.outbox.add_posts([held_board("caroheld1"), held_board("caroheld2")])
    assert await storage.outbox.due_posts(now=100.0) == []
    # The writer sent the first itself; the second it never did (it stopped): once its hold ran
    # out, the sender of its server takes it.
    assert await storage.outbox.post_sent_by_nonce("caroheld1", now=101.0, message_id=7)
    assert not await storage.outbox.post_sent_by_nonce("caroheld1", now=102.0, message_id=7)
    (late,) = await storage.outbox.due_posts(now=116.0)
    assert late.nonce == "caroheld2" and late.attempts == 0
    assert [row.nonce for row in await every_post(storage) if row.nonce != late.nonce] == [
        "caroheld1"]


async def test_a_move_writes_the_rows_its_writer_holds_with_it_and_a_refused_move_writes_none(
    storage: Storage,
) -> None:
    game = await storage.games.create_game(new_game())
    held = [held_board("caroheld4"), held_board("caroheld5")]
    assert await storage.games.add_move(game.id, 0, "A1", by_ai=False, now=0.0,
                                        posts=held) is MoveOutcome.STORED
    # Played at a move count gone by: neither the move nor its rows.
    assert await storage.games.add_move(game.id, 0, "B2", by_ai=False, now=0.0,
                                        posts=[held_board("caroheld6")]) is MoveOutcome.STALE
    stored = await storage.games.game(game.id)
    assert stored is not None and [m.cell for m in stored.moves] == ["A1"]
    rows = await every_post(storage)
    assert [(row.nonce, row.payload) for row in rows] == [
        ("caroheld4", held[0].payload), ("caroheld5", held[1].payload)]
    # Held: no sender takes them before their hold runs out.
    assert await storage.outbox.due_posts(now=100.0) == []
    assert len(await storage.outbox.due_posts(now=116.0)) == 2


async def test_a_finishing_move_writes_its_held_and_quiet_rows_unheard_and_a_refused_one_none(
    backend: Backend,
) -> None:
    from bot.game import ratings
    from bot.game.model import EndReason, Finish
    from bot.game.ports import Finished
    from engine import Mark

    writer, other = await backend.open(), await backend.open()
    game = await writer.games.create_game(new_game())
    win = Finish(winner=Mark.X, reason=EndReason.LINE)
    # A row held by its writer, and one whose hold has run out already: nobody need hurry.
    quiet = held_board("caroquiet1", until=100.0)
    heard: list[tuple[Any, ...]] = []
    async with listening(backend, other.outbox.listen_posts, heard) as woken:
        assert await writer.games.add_move(
            game.id, 1, "A1", by_ai=False, now=0.0, finish=win, rate=ratings.game_updates,
            posts=[held_board("caroheld7")]) is MoveOutcome.STALE
        finished = await writer.games.add_move(
            game.id, 0, "A1", by_ai=False, now=0.0, finish=win, rate=ratings.game_updates,
            posts=[held_board("caroheld8"), quiet])
        assert isinstance(finished, Finished) and finished.game.ply == 1
        assert [m.cell for m in finished.game.moves] == ["A1"]
        if woken is not None:
            await asyncio.sleep(0.3)
            assert heard == []
    assert [row.nonce for row in await every_post(writer)] == ["caroheld8", "caroquiet1"]
    # The quiet one is any sender's at once; the held one once its hold runs out.
    assert [row.nonce for row in await other.outbox.due_posts(now=101.0)] == ["caroquiet1"]


async def test_a_row_its_writer_hands_back_is_due_at_once_and_heard_whole(
    backend: Backend,
) -> None:
    writer, other = await backend.open(), await backend.open()
    heard: list[tuple[Any, ...]] = []
    async with listening(backend, other.outbox.listen_posts, heard) as woken:
        await writer.outbox.add_posts([held_board("caroheld3")])
        if woken is not None:
            # Written held: nobody is told of it.
            await asyncio.sleep(0.3)
            assert heard == []
        assert await other.outbox.due_posts(now=100.0) == []
        assert await writer.outbox.hand_back_post("caroheld3")
        (row,) = await other.outbox.due_posts(now=100.0)
        assert row.nonce == "caroheld3"
        if woken is not None:
            await asyncio.wait_for(woken.wait(), 5.0)
            [(signal,)] = heard
            assert signal == Heard((row,), others=False)
        # Sent meanwhile by the one that took it: there is nothing to hand back.
        assert await other.outbox.post_sent(row.id, now=101.0, message_id=8)
        assert not await writer.outbox.hand_back_post("caroheld3")
