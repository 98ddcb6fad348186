"""The outbox's service (bot/game/outbox.py) and what the services write to it, on both storage
backends with a fake clock: each post a tournament's steps decide is written once, with the
step, in the order the channel should read them; a paused round's standings are not written
again when it resumes; a start with too few entries is cancelled with its post; failed tries
wait longer each time, up to a cap. (A clock's warning written with its claim:
tests/bot/game/test_clocks.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.game.outbox import LAST_RETRY_SECONDS, OutboxService, retry_delay
from bot.game.outbox_model import Heard, PostKind
from bot.game.services import Services
from bot.game.tournament_model import TournamentStatus
from bot.game.tournaments import Organiser, TournamentOptions
from engine import Mark
from testkit.services import ALICE, BOB, CAROL, CHANNEL, DAVE, ERIN, GUILD

ORGANISER = Organiser(ALICE)
T = PostKind


async def written(svc: Services) -> list[tuple[PostKind, object]]:
    """The outbox's rows as (kind, round), in the order they were written."""
    rows = [await svc.storage.outbox.post(post_id) for post_id in range(1, 30)]
    return [(r.kind, r.payload.get("round")) for r in rows if r is not None]


async def swiss(svc: Services, rounds: int) -> int:
    row = await svc.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, creator=ORGANISER,
        options=TournamentOptions(format="swiss", rounds=rounds, size="3x3"),
        min_turn_seconds=10.0, locale="en-US",
    )
    for member in (BOB, CAROL, DAVE, ERIN):
        await svc.tournaments.join(row.id, member)
    return row.id


async def finish_games(svc: Services, games: list) -> None:
    for state in games:
        await svc.games.attach_message(state.id, 5000 + state.id)
        assert await svc.games.forfeit(state.id, Mark.O) is not None


def test_failed_tries_wait_twice_as_long_each_time_up_to_five_minutes() -> None:
    assert [retry_delay(n) for n in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 8.0]
    assert retry_delay(30) == LAST_RETRY_SECONDS == 300.0


async def test_each_post_of_a_swiss_is_written_once_with_the_step_that_decides_it(world) -> None:
    svc, _ = world
    tid = await swiss(svc, rounds=2)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    assert svc.outbox.changed.is_set()
    assert await written(svc) == [(T.TOURNAMENT_STARTED, None), (T.TOURNAMENT_ANNOUNCEMENT, None)]
    await finish_games(svc, progress.games)
    second = await svc.tournament_runner.advance(tid)
    assert second is not None and second.round_done == 1
    # Round 1's standings come with round 2's pairing, in its transaction; a step repeated
    # writes nothing more.
    assert await svc.tournament_runner.advance(tid) is not None
    assert (await written(svc))[2:] == [
        (T.TOURNAMENT_ANNOUNCEMENT, None), (T.TOURNAMENT_ROUND, 1)
    ]
    await finish_games(svc, second.games)
    final = await svc.tournament_runner.advance(tid)
    assert final is not None and final.final
    assert await svc.tournament_runner.advance(tid) is None
    assert (await written(svc))[4:] == [(T.TOURNAMENT_FINAL, 2), (T.TOURNAMENT_ANNOUNCEMENT, None)]


async def test_a_paused_rounds_standings_are_written_once_and_not_again_on_resuming(world) -> None:
    svc, _ = world
    tid = await swiss(svc, rounds=3)
    progress = await svc.tournaments.start_now(tid, ORGANISER)
    await svc.tournaments.pause(tid, ORGANISER)
    await finish_games(svc, progress.games)
    held = await svc.tournament_runner.advance(tid)
    assert held is not None and held.round_done == 1
    assert await svc.tournament_runner.advance(tid) is not None
    await svc.tournaments.resume(tid, ORGANISER)
    resumed = await svc.tournament_runner.advance(tid)
    assert resumed is not None and resumed.games and resumed.round_done is None
    kinds = await written(svc)
    assert kinds.count((T.TOURNAMENT_ROUND, 1)) == 1
    # The pause and the resume each redraw the announcement.
    assert kinds.count((T.TOURNAMENT_ANNOUNCEMENT, None)) == 4


async def test_a_tournament_with_too_few_entries_is_cancelled_with_its_post(world) -> None:
    svc, clock = world
    row = await svc.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, creator=ORGANISER,
        options=TournamentOptions(format="swiss", size="3x3"), min_turn_seconds=10.0,
        locale="en-US",
    )
    await svc.tournaments.join(row.id, BOB)
    clock.now += 11 * 60
    progress = await svc.tournament_runner.advance(row.id)
    assert progress is not None and progress.too_few
    assert progress.tournament.status is TournamentStatus.CANCELLED
    assert await written(svc) == [(T.TOURNAMENT_TOO_FEW, None), (T.TOURNAMENT_ANNOUNCEMENT, None)]


class _Signalling:
    """A store whose listener hears every write (PostgreSQL's), until cancelled."""

    async def listen_posts(self, heard: Callable[[Heard], None]) -> None:
        heard(Heard())
        await asyncio.Event().wait()


async def test_a_change_wakes_the_sender_until_it_hears_every_write_itself() -> None:
    outbox = OutboxService(_Signalling())  # type: ignore[arg-type]
    outbox.written()
    assert outbox.changed.is_set()  # no listener yet (or SQLite, which has none): woken
    outbox.changed.clear()
    heard: list[Heard] = []
    listener = asyncio.create_task(outbox.listen(heard.append))
    try:
        while not heard:
            await asyncio.sleep(0)
        # The signal carries the rows to the process holding their server: a wake would only
        # read this process's rows again.
        outbox.written()
        assert not outbox.changed.is_set()
    finally:
        listener.cancel()
        await asyncio.gather(listener, return_exceptions=True)
    outbox.written()
    assert outbox.changed.is_set()
