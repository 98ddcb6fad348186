"""Takebacks (bot.game.takebacks) on each storage backend, with a fake clock: against the AI at
once, between members when the other accepts, never in a rated game, at most MAX_TAKEBACKS a
game; the moves taken back are gone from the stored game, and the clock starts afresh. A process
holding the game from before another process's takeback judges a click again on the game as
stored, and an AI search it began before that takeback is not played on the new position."""

from __future__ import annotations

import asyncio

import pytest

from bot.game.errors import UserError
from bot.game.model import GuildSettings, MoveRef
from bot.game.services import Services, build_services
from bot.game.takebacks import MAX_TAKEBACKS, Request
from testkit.services import ALICE, BOB, CAROL, move, pvp_game, start
from testkit.storage_backends import Backend
from testkit.thinkers import Thinker
from testkit.worlds import Clock

# A board too small to be rated (min(rows, cols) < k): a casual game.
CASUAL = "3x4k4"


async def refused(call: object) -> str:
    with pytest.raises(UserError) as refusal:
        await call  # type: ignore[misc]
    return refusal.value.key


async def test_against_the_ai_the_members_move_and_the_reply_are_taken_back(world) -> None:
    svc, clock = world
    game = await start(svc, ALICE, size=CASUAL)
    await svc.games.attach_message(game.id, 7000)
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "takeback.nothing"
    await move(svc, game.id, ALICE, "A1")
    state = await svc.moves.ai_move(game.id, member=ALICE)
    assert state is not None and state.board.ply == 2
    clock.now += 30.0
    after = await svc.takebacks.take_back(game.id, ALICE)
    assert not isinstance(after, Request)
    assert after.board.ply == 0 and after.row.moves == ()
    assert after.row.takebacks == 1 and after.mover_id == ALICE
    # The member's clock starts afresh (120 s against the AI in these worlds).
    assert after.row.deadline == pytest.approx(clock.now + 120.0)
    stored = await svc.games.state(game.id)
    assert stored is not None and (stored.board.ply, stored.row.moves) == (0, ())
    assert await refused(svc.takebacks.take_back(game.id, BOB)) == "click.not_your_game"


async def test_no_takeback_while_the_ai_thinks_nor_in_a_rated_game(world) -> None:
    svc, _ = world
    casual = await start(svc, ALICE, size=CASUAL)
    await move(svc, casual.id, ALICE, "A1")
    assert await refused(svc.takebacks.take_back(casual.id, ALICE)) == "takeback.wait_for_ai"
    rated = await start(svc, BOB, size="3x3")
    assert rated.row.rated
    await move(svc, rated.id, BOB, "A1")
    await svc.moves.ai_move(rated.id, member=BOB)
    assert await refused(svc.takebacks.take_back(rated.id, BOB)) == "takeback.rated"
    row = await svc.games.state(rated.id)
    assert row is not None and row.board.ply == 2 and row.row.takebacks == 0


async def test_a_game_allows_at_most_a_few_takebacks(world) -> None:
    svc, _ = world
    game = await start(svc, ALICE, size=CASUAL)
    for _ in range(MAX_TAKEBACKS):
        await move(svc, game.id, ALICE, "A1")
        await svc.moves.ai_move(game.id, member=ALICE)
        await svc.takebacks.take_back(game.id, ALICE)
    await move(svc, game.id, ALICE, "A1")
    await svc.moves.ai_move(game.id, member=ALICE)
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "takeback.limit"
    state = await svc.games.state(game.id)
    assert state is not None and state.board.ply == 2 and state.row.takebacks == MAX_TAKEBACKS


async def test_between_members_the_mover_asks_and_only_the_other_may_accept(world) -> None:
    svc, clock = world
    game = await pvp_game(svc, size=CASUAL)  # Alice plays X
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "takeback.not_your_move"
    await move(svc, game.id, ALICE, "A1")
    assert await refused(svc.takebacks.take_back(game.id, BOB)) == "takeback.not_your_move"
    asked = await svc.takebacks.take_back(game.id, ALICE)
    assert isinstance(asked, Request)
    assert (asked.requester, asked.opponent, asked.state.board.ply) == (ALICE, BOB, 1)
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "takeback.already_asked"
    assert await refused(svc.takebacks.accept(game.id, 1, ALICE)) == "takeback.not_yours_to_answer"
    assert await refused(svc.takebacks.accept(game.id, 1, CAROL)) == "click.not_your_game"
    assert await refused(svc.takebacks.accept(game.id, 0, BOB)) == "takeback.expired"
    clock.now += 10.0
    after = await svc.takebacks.accept(game.id, 1, BOB)
    assert after.board.ply == 0 and after.mover_id == ALICE and after.row.takebacks == 1
    assert after.row.deadline == pytest.approx(clock.now + 60.0)
    # Answered: a second click on Accept (or Decline) finds nothing open.
    assert await refused(svc.takebacks.accept(game.id, 1, BOB)) == "takeback.expired"
    assert await refused(svc.takebacks.decline(game.id, 1, BOB)) == "takeback.expired"
    # The move played again may be asked back again.
    await move(svc, game.id, ALICE, "B2")
    assert isinstance(await svc.takebacks.take_back(game.id, ALICE), Request)


async def test_a_request_expires_with_the_turn_and_a_declined_one_is_not_asked_again(
    world,
) -> None:
    svc, _ = world
    game = await pvp_game(svc, size=CASUAL)
    await move(svc, game.id, ALICE, "A1")
    await svc.takebacks.take_back(game.id, ALICE)
    # Bob answers with a move instead: the request answers nothing any more.
    await move(svc, game.id, BOB, "B1")
    assert await refused(svc.takebacks.accept(game.id, 1, BOB)) == "takeback.expired"
    state = await svc.games.state(game.id)
    assert state is not None and state.board.ply == 2 and not state.row.takeback_pending
    await move(svc, game.id, ALICE, "A2")
    await svc.takebacks.take_back(game.id, ALICE)
    declined = await svc.takebacks.decline(game.id, 3, BOB)
    assert declined.board.ply == 3
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "takeback.already_asked"
    assert await refused(svc.takebacks.accept(game.id, 3, BOB)) == "takeback.expired"
    state = await svc.games.state(game.id)
    assert state is not None and state.board.ply == 3 and state.row.takebacks == 0


async def test_a_finished_game_takes_nothing_back(world) -> None:
    svc, _ = world
    game = await pvp_game(svc, size=CASUAL)
    await move(svc, game.id, ALICE, "A1")
    await svc.takebacks.take_back(game.id, ALICE)
    await svc.games.resign(game.id, BOB)
    assert await refused(svc.takebacks.accept(game.id, 1, BOB)) == "takeback.expired"
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "click.finished"


async def free_cell(svc: Services, game_id: int) -> str:
    state = await svc.games.state(game_id)
    assert state is not None
    taken = {m.cell for m in state.row.moves}
    return next(c for c in ("B2", "C2", "D1", "D3", "A3", "B1") if c not in taken)


async def test_a_hint_after_a_takeback_is_searched_for_the_new_position(world) -> None:
    svc, _ = world
    game = await start(svc, ALICE, size=CASUAL)
    await move(svc, game.id, ALICE, "A1")
    await svc.moves.ai_move(game.id, member=ALICE)
    await svc.hints.hint(game.id, 2, ALICE)
    await move(svc, game.id, ALICE, await free_cell(svc, game.id))
    await svc.moves.ai_move(game.id, member=ALICE)
    await svc.takebacks.take_back(game.id, ALICE)  # back to move 2
    await svc.takebacks.take_back(game.id, ALICE)  # back to the empty board
    # Another first move: move count 2 is another position, whose hint is searched afresh.
    await move(svc, game.id, ALICE, "A3")
    await svc.moves.ai_move(game.id, member=ALICE)
    await svc.hints.hint(game.id, 2, ALICE)
    state = await svc.games.state(game.id)
    assert state is not None and state.board.ply == 2 and state.row.hints == 2


async def test_a_click_on_a_copy_from_before_another_processes_takeback_is_judged_again(
    backend: Backend,
) -> None:
    # Two bot processes on one database, as when a shard is handed over.
    clock = Clock()
    one, two = [
        build_services(
            storage, Thinker(), clock=clock,
            default_timeouts=GuildSettings(pvp_timeout=60.0, ai_timeout=120.0),
        )
        for storage in (await backend.open(), await backend.open())
    ]
    game = (await pvp_game(one, size="5x6k6")).id  # casual; Alice plays X
    for user, cell in ((ALICE, "A1"), (BOB, "E5"), (ALICE, "B1")):
        await move(one, game, user, cell)
    # On the second process Alice takes B1 back, Bob accepts, and she plays D4.
    assert isinstance(await two.takebacks.take_back(game, ALICE), Request)
    await two.takebacks.accept(game, 3, BOB)
    await two.moves.play(MoveRef(game, 2, "D4"), user_id=ALICE, message_id=None)
    # The first process still holds move 3 with B1 on it. Bob's click on D4 (free there) is
    # judged on the game as stored, where D4 is taken.
    assert await refused(
        one.moves.play(MoveRef(game, 3, "D4"), user_id=BOB, message_id=None)
    ) == "click.taken"
    # His C5 is stored, and the board drawn from the answer is the stored one: D4, no B1.
    after = await one.moves.play(MoveRef(game, 3, "C5"), user_id=BOB, message_id=None)
    assert [m.cell for m in after.row.moves] == ["A1", "E5", "D4", "C5"]
    assert [after.board.move_name(m) for m in after.board.moves] == ["A1", "E5", "D4", "C5"]
    # Alice's D4 on the first process is refused: no cell is stored twice.
    assert await refused(
        one.moves.play(MoveRef(game, 4, "D4"), user_id=ALICE, message_id=None)
    ) == "click.taken"
    stored = await two.games.state(game)
    assert stored is not None and stored.row.takebacks == 1
    assert [m.cell for m in stored.row.moves] == ["A1", "E5", "D4", "C5"]


async def test_an_ai_search_begun_before_another_processes_takeback_is_not_played_after_it(
    backend: Backend,
) -> None:
    clock = Clock()
    held, free = Thinker(), Thinker()
    held.wait, held.gate = 0.01, asyncio.Event()  # the first process's search is slow
    one, two = [
        build_services(await backend.open(), thinker, clock=clock)
        for thinker in (held, free)
    ]
    game = (await start(one, ALICE, size=CASUAL)).id  # Alice plays X
    # The first process stores A1 alone; its AI's search from there is still under way.
    await one.moves.play(MoveRef(game, 0, "A1"), user_id=ALICE, message_id=None)
    # The second process answers, Alice takes both moves back there and plays B1 instead.
    assert await two.moves.ai_move(game, member=ALICE) is not None
    await two.takebacks.take_back(game, ALICE)
    await two.moves.play(MoveRef(game, 0, "B1"), user_id=ALICE, message_id=None)
    now = await two.games.state(game)
    assert now is not None and now.ai_to_move
    # Back on the first process, the AI's turn searches the position as stored: the search
    # from A1 answers another position.
    held.gate.set()
    answered = await one.moves.ai_move(game, member=ALICE)
    assert held.calls[-1][0] == now.board.text()
    assert answered is not None and [m.cell for m in answered.row.moves][:1] == ["B1"]
    assert answered.board.ply == 2
