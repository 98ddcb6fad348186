"""Opening rules in the game service, on each storage backend with a fake clock: whose step it
is (mapped to the seats), the engine's refusals, a colour choice that swaps the seats, the clock
of each step, the AI taking its own steps, takebacks kept out of the opening, and the ratings of
the final colours."""

from __future__ import annotations

import random

import pytest

from bot.game.errors import UserError
from bot.game.model import EndReason, GameState, Mode, MoveRef
from bot.game.options import CHALLENGE_FIRSTS, parse_options
from bot.game.ports import MoveOutcome
from bot.game.services import Services
from bot.i18n.texts import text_in
from engine import Mark
from engine.game.openings import Choice, Opening, Side, StepKind
from testkit.services import ALICE, BOB, CHANNEL, GUILD

SIZE = "15x15"


async def refused(call: object) -> str:
    with pytest.raises(UserError) as refusal:
        await call  # type: ignore[misc]
    return refusal.value.key


async def opening_game(svc: Services, opening: str, rule: str | None = None) -> GameState:
    """Alice challenges Bob to a game with `opening`, Alice first; Bob accepts."""
    challenge = await svc.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB,
        opponent_is_bot=False, locale="en-US",
        options=parse_options(None, SIZE, rule, "me", firsts=CHALLENGE_FIRSTS, opening=opening),
    )
    _, state = await svc.challenges.answer_challenge(
        challenge.id, BOB, accept=True, rng=random.Random(1)
    )
    assert state is not None
    await svc.games.attach_message(state.id, 900 + state.id)
    return state


async def click(svc: Services, game_id: int, user: int, cell: str) -> GameState:
    state = await svc.games.state(game_id)
    assert state is not None
    return await svc.moves.play(
        MoveRef(game_id, state.board.ply, cell), user_id=user, message_id=None
    )


async def choose(svc: Services, game_id: int, user: int, choice: Choice) -> GameState:
    state = await svc.games.state(game_id)
    assert state is not None
    return await svc.moves.choose(
        game_id, state.stage, choice, user_id=user, message_id=None
    )


async def test_swap2_between_members_goes_step_by_step_to_a_rated_end(world) -> None:
    svc, clock = world
    game = await opening_game(svc, "swap2")
    assert game.row.opening is Opening.SWAP2 and game.mover_id == ALICE
    # Alice, the first player, places X, O and X; Bob may not place them for her.
    assert await refused(click(svc, game.id, BOB, "H8")) == "click.wait_for"
    for cell in ("H8", "H9", "I8"):
        state = await click(svc, game.id, ALICE, cell)
    assert state.opening is not None and state.opening.step is not None
    assert state.opening.step.kind is StepKind.CHOOSE and state.mover_id == BOB
    # The choice is made with its buttons, by Bob; a cell means nothing now.
    assert await refused(click(svc, game.id, BOB, "A1")) == "opening.choose_first"
    assert await refused(choose(svc, game.id, ALICE, Choice.TAKE_X)) == "click.wait_for"
    clock.now += 10.0
    state = await choose(svc, game.id, BOB, Choice.PLACE_TWO)
    # Bob's step of placing O and X, with his clock (60 s between members here).
    assert state.mover_id == BOB and state.row.deadline == pytest.approx(clock.now + 60.0)
    assert (state.row.x, state.row.o) == (ALICE, BOB)
    await click(svc, game.id, BOB, "G7")
    state = await click(svc, game.id, BOB, "A15")
    assert state.mover_id == ALICE
    # Alice takes O: X goes to Bob, and the seats swap in the same write.
    state = await choose(svc, game.id, ALICE, Choice.TAKE_O)
    assert state.opening is None and state.row.decisions == ("place_two", "take_o")
    assert (state.row.x, state.row.o) == (BOB, ALICE)
    assert state.board.turn is Mark.O and state.mover_id == ALICE
    stored = await svc.games.state(game.id)
    assert stored is not None and (stored.row.x, stored.row.o) == (BOB, ALICE)
    # Play on as usual; Bob (now X) makes five on row 8: H8 and I8 are his, then J8 K8 G8.
    for user, cell in ((ALICE, "A1"), (BOB, "J8"), (ALICE, "A2"), (BOB, "K8"), (ALICE, "A3")):
        state = await click(svc, game.id, user, cell)
    state = await click(svc, game.id, BOB, "G8")
    assert not state.active and state.row.winner is Mark.X
    changes = await svc.games.rating_changes(game.id)
    gained = {change.user_id: change.after - change.before for change in changes}
    # The final colours are rated: Bob, who ended up with X and won, gains.
    assert gained[BOB] > 0 > gained[ALICE]


async def test_a_timeout_in_the_opening_loses_for_the_player_of_the_step(world) -> None:
    svc, clock = world
    game = await opening_game(svc, "swap")
    for cell in ("H8", "H9", "I8"):
        await click(svc, game.id, ALICE, cell)
    clock.now += 61.0
    finished = await svc.timeouts.expire_games()
    assert [state.id for state in finished] == [game.id]
    state = finished[0]
    # Bob had to choose a colour and did not: Alice (still X) wins on time.
    assert state.row.end_reason is EndReason.TIMEOUT and state.row.winner is Mark.X
    assert state.row.x == ALICE


async def test_rif_refuses_stones_outside_its_zones_naming_the_square_in_the_members_words(world) -> None:
    svc, _ = world
    with pytest.raises(UserError) as off:
        parse_options(None, SIZE, "freestyle", "me", firsts=CHALLENGE_FIRSTS, opening="rif")
    assert off.value.key == "opening.rif_only"
    game = await opening_game(svc, "rif", rule="renju")
    assert await refused(click(svc, game.id, ALICE, "A1")) == "opening.error.centre"
    await click(svc, game.id, ALICE, "H8")
    with pytest.raises(UserError) as far:
        await click(svc, game.id, ALICE, "H12")
    assert far.value.key == "opening.error.square"
    assert far.value.values == {"stone": 2, "side": 3, "centre": "H8"}
    assert text_in("vi", far.value.key, **far.value.values) == (
        "Quân thứ 2 phải nằm trong ô vuông 3x3 quanh H8."
    )
    assert await refused(click(svc, game.id, ALICE, "H8")) == "click.taken"


async def test_against_the_ai_it_takes_every_step_of_its_own(world) -> None:
    svc, _ = world
    game = await svc.games.start(
        guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE, rng=random.Random(1),
        options=parse_options("easy", SIZE, None, "me", opening="swap2"),
    )
    assert game.mode is Mode.AI and game.row.x == ALICE and game.mover_id == ALICE
    for cell in ("H8", "H9", "I8"):
        state = await click(svc, game.id, ALICE, cell)
    assert state.ai_to_move
    after = await svc.moves.ai_move(game.id, member=ALICE)
    assert after is not None and not after.ai_to_move and after.mover_id == ALICE
    assert after.row.decisions, "the AI decided"
    if after.opening is None:
        # It took a colour, and play goes on with the member to move.
        assert after.board.turn is after.player_mark
    else:
        # It placed two more: Alice chooses.
        step = after.opening.step
        assert step is not None and step.kind is StepKind.CHOOSE and step.side is Side.FIRST
        assert after.board.ply == 5


async def test_the_ai_as_first_player_places_the_opening_and_no_takeback_reaches_it(
    world,
) -> None:
    svc, _ = world
    game = await svc.games.start(
        guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE, rng=random.Random(1),
        options=parse_options("easy", SIZE, None, "ai", opening="swap", rated=False),
    )
    assert game.ai_to_move
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "takeback.opening"
    state = await svc.moves.ai_move(game.id, member=ALICE)
    assert state is not None and state.board.ply == 3 and state.mover_id == ALICE
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "takeback.opening"
    state = await choose(svc, game.id, ALICE, Choice.TAKE_O)
    # Alice took O, which is to move: her move, then the AI's, may be taken back; not the
    # opening's stones.
    assert state.player_mark is Mark.O and state.mover_id == ALICE
    await click(svc, game.id, ALICE, "A1")
    await svc.moves.ai_move(game.id, member=ALICE)
    undone = await svc.takebacks.take_back(game.id, ALICE)
    assert isinstance(undone, GameState) and undone.board.ply == 3
    assert await refused(svc.takebacks.take_back(game.id, ALICE)) == "takeback.nothing"


async def test_the_ais_step_of_an_opening_is_picked_up_again_after_a_restart(world) -> None:
    svc, clock = world
    game = await svc.games.start(
        guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE, rng=random.Random(1),
        options=parse_options("easy", SIZE, None, "ai", opening="swap"),
    )
    await svc.games.attach_message(game.id, 7000)
    # The AI (first player) placed its X and the bot stopped before it placed the O: the side
    # to move is O, Alice's seat, yet the step is the AI's.
    stored = await svc.storage.games.add_move(
        game.id, 0, "H8", by_ai=True, now=clock.now, reason="opening"
    )
    assert stored is MoveOutcome.STORED
    owed = await svc.meta.games_awaiting_ai()
    assert [state.id for state in owed] == [game.id]
    state = await svc.moves.ai_move(game.id, member=ALICE)
    assert state is not None and state.board.ply == 3 and state.mover_id == ALICE
    # Alice's choice is hers: nothing is owed any more.
    assert await svc.meta.games_awaiting_ai() == []
