"""The games service (bot.game.games) on a real database, with the real AI called in-process: moves
and the AI's answers, and a game's life (two members' turns moving both ratings, resigning, the
adaptive level, an AI-vs-AI game playing itself to the end)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.cpu import jobs
from bot.game import ratings
from bot.game.errors import UserError
from bot.game.model import ActiveGameExists, Mode, MoveRef, Record
from bot.game.options import GameOptions, parse_options
from bot.game.ports import GLOBAL_SCOPE
from bot.game.searches import ai_seed
from bot.game.services import Services, build_services
from bot.storage import SqliteStorage as Storage
from engine import Board, Mark, Rule
from engine.solve.solver import perfect_move
from testkit.services import CAROL, move, pvp_game
from testkit.sqlite_rows import row_counts
from testkit.thinkers import Thinker

GUILD, CHANNEL, ALICE, BOB = 10, 20, 30, 40


@pytest.fixture
async def service(tmp_path: Path):
    storage = await Storage.open(tmp_path / "caro.db")
    thinker = Thinker()
    yield build_services(storage, thinker), thinker
    await storage.close()


def options(level: str = "normal", size: str = "3x3", first: str = "me") -> GameOptions:
    return parse_options(level, size, "freestyle", first)


async def start(service: Services, player: int = ALICE, **kw: str):
    state = await service.games.start(
        guild_id=GUILD, channel_id=CHANNEL, player_id=player, options=options(**kw),
        rng=random.Random(1),
    )
    await service.games.attach_message(state.id, 5000 + state.id)
    return state


def test_options_defaults_and_choices() -> None:
    assert parse_options() == GameOptions("normal", 3, 3, 3, Rule.FREESTYLE, "me")
    assert parse_options("Impossible", "5x5", "caro", "ai") == GameOptions(
        "impossible", 5, 5, 4, Rule.CARO, "ai"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"difficulty": "godlike"}, "**godlike** is not a valid difficulty. Choose one of: easy,"),
        ({"size": "99x99"}, "**99x99** is not a valid size. Choose one of: 3x3, 4x4, 5x5, 9x9,"),
        ({"rule": "pente"}, "**pente** is not a valid rule. Choose one of: freestyle, exact, caro, renju."),
        ({"first": "nobody"}, "**nobody** is not a valid first player. Choose one of: me, ai,"),
        ({"difficulty": ""}, "**(empty)** is not a valid difficulty"),
    ],
)
def test_hostile_options_get_clear_errors(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(UserError) as refused:
        parse_options(**kwargs)
    assert str(refused.value).startswith(message)
    assert isinstance(refused.value, ValueError)


async def test_player_moves_then_ai_answers(service) -> None:
    svc, thinker = service
    state = await start(svc, level="impossible")
    assert state.player_mark.name == "X" and not state.ai_to_move
    after = await svc.moves.play(MoveRef(state.id, 0, "B2"), user_id=ALICE, message_id=None)
    assert after.board.text() == "3x3 k3 freestyle B2" and after.ai_to_move
    answered = await svc.moves.ai_move(state.id, member=ALICE)
    assert answered is not None and answered.board.ply == 2 and not answered.ai_to_move
    assert thinker.calls == [("3x3 k3 freestyle B2", "impossible", ai_seed(state.id, 1))]
    cell, reason = answered.last_ai_move or ("", "")
    assert answered.board.parse_move(cell) in [(0, 0), (0, 2), (2, 0), (2, 2)]  # only corners hold
    assert reason in {"center", "near_center", "develop", "defend", "block", "threat", "fork", "win"}
    assert await svc.moves.ai_move(state.id, member=ALICE) is None  # nothing owed any more


async def test_ai_moves_are_reproducible_per_game_and_ply(service) -> None:
    svc, _ = service
    board = Board(5, 5, 4)
    board.push((0, 0))
    seed = ai_seed(7, 1)
    first = jobs.think(board.text(), "easy", seed, None)
    assert all(jobs.think(board.text(), "easy", seed, None) == first for _ in range(3))


@pytest.mark.parametrize(
    ("ref", "user", "message"),
    [
        (MoveRef(999, 0, "A1"), ALICE, "does not exist"),
        (MoveRef(1, 0, "A1"), BOB, "not your game"),
        (MoveRef(1, 1, "A1"), ALICE, "out of date"),
        (MoveRef(1, 0, "D1"), ALICE, "no cell D1"),
        (MoveRef(1, 0, "A9"), ALICE, "no cell A9"),
    ],
)
async def test_refused_clicks_change_nothing(
    service, tmp_path: Path, ref: MoveRef, user: int, message: str
) -> None:
    svc, _ = service
    state = await start(svc)
    assert state.id == 1
    before = row_counts(tmp_path / "caro.db")
    with pytest.raises(UserError, match=message):
        await svc.moves.play(ref, user_id=user, message_id=None)
    assert row_counts(tmp_path / "caro.db") == before


async def test_a_click_on_another_drawing_of_the_game_links_to_its_board(service) -> None:
    svc, _ = service
    state = await start(svc)
    # Another message showing the game is an earlier board of it (/caro board moved it).
    with pytest.raises(UserError, match="This board moved, here: https://discord.com/"):
        await svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=123)


async def test_clicks_while_the_ai_thinks_and_taken_cells(service) -> None:
    svc, _ = service
    state = await start(svc, first="ai")
    assert state.player_mark.name == "O" and state.ai_to_move
    with pytest.raises(UserError, match="Wait for the AI"):
        await svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None)
    answered = await svc.moves.ai_move(state.id, member=ALICE)
    assert answered is not None
    taken = answered.last_ai_move[0] if answered.last_ai_move else ""
    with pytest.raises(UserError, match=f"{taken} is already taken"):
        await svc.moves.play(MoveRef(state.id, 1, taken), user_id=ALICE, message_id=None)


async def test_two_clicks_on_the_same_turn_apply_one_move(service) -> None:
    svc, _ = service
    state = await start(svc)
    results = await asyncio.gather(
        svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None),
        svc.moves.play(MoveRef(state.id, 0, "C3"), user_id=ALICE, message_id=None),
        return_exceptions=True,
    )
    applied = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, UserError)]
    assert len(applied) == 1 and len(refused) == 1
    assert "out of date" in str(refused[0])
    row = await svc.storage.games.game(state.id)
    assert row is not None and row.ply == 1


async def test_late_ai_answer_is_dropped_if_the_game_moved_on(service, tmp_path: Path) -> None:
    svc, thinker = service
    state = await start(svc, first="ai")
    thinker.gate = asyncio.Event()
    pending = asyncio.create_task(svc.moves.ai_move(state.id, member=ALICE))
    await asyncio.sleep(0.05)
    assert await svc.moves.ai_move(state.id, member=ALICE) is None  # already thinking about this game
    await svc.storage.games.abandon_game(state.id)
    thinker.gate.set()
    assert await pending is None
    assert row_counts(tmp_path / "caro.db")["moves"] == 0


async def test_second_game_in_channel_is_refused(service) -> None:
    svc, _ = service
    state = await start(svc)
    with pytest.raises(ActiveGameExists) as refused:
        await start(svc)
    assert refused.value.game.id == state.id


async def _play_to_end(svc: Services, game_id: int, pick) -> None:
    while True:
        state = await svc.games.state(game_id)
        assert state is not None
        if not state.active:
            return
        if state.ai_to_move:
            await svc.moves.ai_move(game_id, member=ALICE)
            continue
        cell = pick(state.board)
        name = state.board.move_name(cell)
        await svc.moves.play(MoveRef(game_id, state.board.ply, name), user_id=ALICE, message_id=None)


async def test_perfect_play_draws_and_bad_play_loses_against_impossible(service) -> None:
    svc, _ = service
    draw = await start(svc, level="impossible")
    await _play_to_end(svc, draw.id, perfect_move)
    lose = await start(svc, player=BOB, level="impossible")

    def worst(board: Board):
        return next(iter(board.legal_moves))  # the first empty cell, row by row

    # Bob's moves are made with user id ALICE in _play_to_end, so play his game by hand.
    while True:
        state = await svc.games.state(lose.id)
        assert state is not None
        if not state.active:
            break
        if state.ai_to_move:
            await svc.moves.ai_move(lose.id, member=BOB)
        else:
            name = state.board.move_name(worst(state.board))
            await svc.moves.play(MoveRef(lose.id, state.board.ply, name), user_id=BOB, message_id=None)
    alice = await svc.storage.standings.user_stats(GUILD, ALICE)
    bob = await svc.storage.standings.user_stats(GUILD, BOB)
    assert alice.overall == Record(draws=1)
    assert bob.overall == Record(losses=1)
    final = await svc.games.state(lose.id)
    assert final is not None and final.row.winner is Mark.O and final.board.outcome() is not None


async def test_states_built_after_a_move_match_the_database(service) -> None:
    """play and ai_move build the new state in memory instead of reading it back: it must be
    exactly what a fresh read of the database gives, move after move, up to the end (where the
    result comes from the database)."""
    svc, _ = service
    state = await start(svc, level="easy", size="4x4")
    svc.storage.settings._settings.clear()  # the clock's settings come from the cache or the database
    rng = random.Random(7)
    seen = 0
    while state.active:
        if state.ai_to_move:
            after = await svc.moves.ai_move(state.id, member=ALICE)
        else:
            cell = rng.choice([state.board.move_name(m) for m in state.board.legal_moves])
            after = await svc.moves.play(
                MoveRef(state.id, state.board.ply, cell), user_id=ALICE, message_id=5000 + state.id
            )
        assert after is not None
        fresh = await svc.games.state(state.id)
        assert fresh is not None
        assert after.row == fresh.row
        assert after.board.text() == fresh.board.text()
        state = after
        seen += 1
    assert seen == state.board.ply and state.result_of(state.player_mark) in {"win", "draw", "loss"}


def ends(board: Board, cell: tuple[int, int]) -> bool:
    after = board.copy()
    after.push(cell)
    return after.is_over()


class ReadCounter:
    def __init__(self) -> None:
        self.count = 0


def count_reads(svc: Services) -> ReadCounter:
    """Counts the reads of a game or of its rating changes `games` makes from now on."""
    reads = ReadCounter()
    real_game, real_changes = svc.storage.games.game, svc.storage.standings.rating_changes

    async def counted(game_id: int):
        reads.count += 1
        return await real_game(game_id)

    async def counted_changes(game_id: int):
        reads.count += 1
        return await real_changes(game_id)

    svc.storage.games.game = counted  # type: ignore[method-assign]
    svc.storage.standings.rating_changes = counted_changes  # type: ignore[method-assign]
    return reads


async def test_an_ai_move_searched_while_the_board_was_posted_keeps_its_message(service) -> None:
    svc, _ = service
    created = await svc.games.start(
        guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE, options=options(first="ai"),
        rng=random.Random(1),
    )
    assert created.row.message_id is None and created.ai_to_move
    # The board is posted (its message stored) while the AI searches from the new game.
    await svc.games.attach_message(created.id, 7000)
    answered = await svc.moves.ai_move(created.id, created, member=ALICE)
    assert answered is not None and answered.board.ply == 1
    reads = count_reads(svc)
    cell = answered.board.move_name(next(iter(answered.board.legal_moves)))
    after = await svc.moves.play(MoveRef(created.id, 1, cell), user_id=ALICE, message_id=7000)
    # The kept state knows the message: the click from it is judged without a read.
    assert after.row.message_id == 7000 and reads.count == 0
    # ... and a click from any other message is still refused as not the game's board.
    with pytest.raises(UserError) as refused:
        await svc.moves.play(MoveRef(created.id, 2, cell), user_id=ALICE, message_id=7001)
    assert refused.value.key == "click.moved"


async def test_clicks_on_the_position_this_process_stored_read_nothing(service) -> None:
    svc, _ = service
    state = await start(svc, level="easy", size="4x4")
    reads = count_reads(svc)
    after = await svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None)
    assert reads.count == 0  # the game as this process created it
    while True:
        answered = await svc.moves.ai_move(state.id, after, member=ALICE)
        assert answered is not None
        if not answered.active:
            break
        cell = next(
            answered.board.move_name(m) for m in answered.board.legal_moves
            if not ends(answered.board, m)
        )
        after = await svc.moves.play(
            MoveRef(state.id, answered.board.ply, cell), user_id=ALICE, message_id=None
        )
        assert reads.count == 0, after.board.ply
    # The write that finished the game returned its result and rating changes: the final
    # board is drawn without reading either.
    changes = await svc.games.rating_changes(state.id)
    assert reads.count == 0
    assert answered.row == await svc.storage.games.game(state.id)
    assert changes == await svc.storage.standings.rating_changes(state.id) and len(changes) == 2


async def test_a_move_on_a_game_another_process_changed_is_judged_on_the_stored_game(
    service, tmp_path: Path
) -> None:
    svc, thinker = service
    other_storage = await Storage.open(tmp_path / "caro.db")
    try:
        other = build_services(other_storage, thinker)  # a second bot process on the same database
        state = await start(svc, level="easy", size="4x4")
        after = await svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None)
        # The other process answers for the AI: this one's last word on the game is a move old.
        answered = await other.moves.ai_move(state.id, member=ALICE)
        assert answered is not None and answered.board.ply == 2
        with pytest.raises(UserError) as refused:
            await svc.moves.play(MoveRef(state.id, 1, "B1"), user_id=ALICE, message_id=None)
        assert refused.value.key == "click.not_your_turn"  # as stored: it is the AI's no more
        free = next(answered.board.move_name(m) for m in answered.board.legal_moves)
        after = await svc.moves.play(MoveRef(state.id, 2, free), user_id=ALICE, message_id=None)
        assert after.board.ply == 3
        answered = await svc.moves.ai_move(state.id, after, member=ALICE)
        assert answered is not None and answered.board.ply == 4
        # The other process ends the game at the very position this one stored last.
        await other.games.resign(state.id, ALICE)
        before = row_counts(tmp_path / "caro.db")
        free = next(answered.board.move_name(m) for m in answered.board.legal_moves)
        with pytest.raises(UserError) as refused:
            await svc.moves.play(MoveRef(state.id, 4, free), user_id=ALICE, message_id=None)
        assert refused.value.key == "click.finished"
        assert row_counts(tmp_path / "caro.db") == before
    finally:
        await other_storage.close()


async def test_helpers_refuse_the_same_way_for_every_action(service) -> None:
    svc, _ = service
    state = await start(svc, level="easy")
    for action in (
        svc.games.resign(state.id, BOB),
        svc.hints.hint(state.id, 0, BOB),
        svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=BOB, message_id=None),
    ):
        with pytest.raises(UserError) as refused:
            await action
        assert refused.value.key == "click.not_your_game"
    await svc.games.resign(state.id, ALICE)
    for action in (
        svc.games.resign(state.id, ALICE),
        svc.hints.hint(state.id, 0, ALICE),
        svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None),
    ):
        with pytest.raises(UserError) as refused:
            await action
        assert refused.value.key == "click.finished"


async def test_service_meta_round_trips_through_storage(service) -> None:
    svc, _ = service
    assert await svc.meta.get_meta("commands_hash") is None
    await svc.meta.set_meta("commands_hash", "0f1e")
    assert await svc.meta.get_meta("commands_hash") == "0f1e"


def count_writes(svc: Services) -> list[tuple[int, str | None]]:
    """(ply, cell of the AI's answer stored with it) per add_move `games` makes from now on."""
    writes: list[tuple[int, str | None]] = []
    real = svc.storage.games.add_move

    async def counted(game_id: int, ply: int, cell: str, **kw):
        answer = kw.get("answer")
        writes.append((ply, None if answer is None else answer.cell))
        return await real(game_id, ply, cell, **kw)

    svc.storage.games.add_move = counted  # type: ignore[method-assign]
    return writes


async def test_a_quick_answer_is_stored_with_the_move_in_one_write(service) -> None:
    svc, thinker = service
    state = await start(svc, level="easy", size="5x5")
    writes = count_writes(svc)
    thinker.wait = 5.0
    after = await svc.moves.play(MoveRef(state.id, 0, "C3"), user_id=ALICE, message_id=None)
    assert after.board.ply == 2 and not after.ai_to_move
    assert after.row.moves[-1].by_ai and after.last_ai_move is not None
    assert writes == [(0, after.row.moves[-1].cell)]
    # The answer is the one the AI's own turn would have stored: same search, same seed.
    assert thinker.calls[-1][2] == ai_seed(state.id, 1)
    stored = await svc.storage.games.game(state.id)
    assert stored == after.row


async def test_an_answer_slower_than_the_wait_is_stored_by_the_ais_turn_unsearched_again(
    service,
) -> None:
    svc, thinker = service
    state = await start(svc, level="easy", size="5x5")
    writes = count_writes(svc)
    thinker.gate = asyncio.Event()  # the search does not answer in time
    thinker.wait = 0.01
    after = await svc.moves.play(MoveRef(state.id, 0, "C3"), user_id=ALICE, message_id=None)
    assert after.board.ply == 1 and after.ai_to_move
    assert writes == [(0, None)]  # the member's move, alone
    searches = len(thinker.calls)
    turn = asyncio.ensure_future(svc.moves.ai_move(state.id, after, member=ALICE))
    await asyncio.sleep(0.01)
    thinker.gate.set()
    answered = await turn
    assert answered is not None and answered.board.ply == 2
    assert len(thinker.calls) == searches  # the AI's turn took over the search under way
    assert writes == [(0, None), (1, None)]


async def test_a_move_that_ends_the_game_asks_no_answer(service) -> None:
    svc, thinker = service
    after = await start(svc, level="easy", size="4x4")
    thinker.wait = 5.0
    ended_by_member = False
    while after.active:
        board = after.board
        # The member's winning move if there is one, else the first free cell.
        move = next((m for m in board.legal_moves if ends(board, m)), None)
        ended_by_member = move is not None
        move = move if move is not None else next(iter(board.legal_moves))
        searches = len(thinker.calls)
        after = await svc.moves.play(MoveRef(after.id, board.ply, board.move_name(move)),
                                 user_id=ALICE, message_id=None)
        assert len(thinker.calls) == searches + (0 if ended_by_member else 1)
    assert after.row == await svc.storage.games.game(after.id)
    assert after.row.moves[-1].by_ai is not ended_by_member


async def test_two_people_take_turns_and_both_ratings_move(sqlite_world, tmp_path: Path) -> None:
    svc, clock = sqlite_world
    state = await pvp_game(svc, first="them")
    assert state.mode == "pvp" and state.user_of(Mark.X) == BOB and state.user_of(Mark.O) == ALICE
    assert state.row.deadline == clock.now + 60.0
    with pytest.raises(UserError, match=f"It is <@{BOB}>'s turn"):
        await move(svc, state.id, ALICE, "A1")
    with pytest.raises(UserError, match="not your game"):
        await move(svc, state.id, CAROL, "A1")
    for user, cell in [(BOB, "A1"), (ALICE, "B1"), (BOB, "A2"), (ALICE, "B2"), (BOB, "A3")]:
        state = await move(svc, state.id, user, cell)
    assert not state.active and state.row.winner is Mark.X and state.result_of(Mark.O) == "loss"
    assert state.row.end_reason == "line" and state.row.deadline is None
    bob_after = ratings.updated(1200, 1200, "win")
    changes = {(c.user_id, c.scope): round(c.after, 3) for c in
               await svc.games.rating_changes(state.id)}
    assert changes == {
        (BOB, GUILD): round(bob_after, 3), (ALICE, GUILD): round(2400 - bob_after, 3),
        (BOB, GLOBAL_SCOPE): round(bob_after, 3), (ALICE, GLOBAL_SCOPE): round(2400 - bob_after, 3),
    }
    standing = await svc.standings.standing(GUILD, BOB, Mode.PVP)
    assert round(standing.rating) == 1216 and standing.record is not None
    assert standing.record.wins == 1
    # Games between people leave the vs-AI results alone.
    assert row_counts(tmp_path / "caro.db")["results"] == 0


async def test_resign_gives_the_win_to_the_other_side(sqlite_world) -> None:
    svc, _ = sqlite_world
    state = await svc.games.start(guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE,
                              options=parse_options("easy"), rng=random.Random(1))
    with pytest.raises(UserError, match="not your game"):
        await svc.games.resign(state.id, BOB)
    over = await svc.games.resign(state.id, ALICE)
    assert (over.result_of(Mark.X), over.row.winner, over.row.end_reason) == ("loss", Mark.O, "resign")
    with pytest.raises(UserError, match="This game is over"):
        await svc.games.resign(state.id, ALICE)
    standing = await svc.standings.standing(GUILD, ALICE, Mode.AI)
    assert standing.rating == pytest.approx(ratings.updated(1200, ratings.AI_ANCHORS["easy"], "loss"))
    # The rematch swaps colours: Alice played X, so the AI moves first.
    old, options = await svc.games.rematch_options(state.id, ALICE)
    assert old.id == state.id and options.first == "ai" and options.level == "easy"


async def test_adaptive_picks_the_level_nearest_the_rating(sqlite_world) -> None:
    svc, _ = sqlite_world
    # The anchors are measured (bot.game.ladder): the test follows them.
    anchors = ratings.AI_ANCHORS
    levels = sorted(anchors, key=anchors.__getitem__)
    assert ratings.nearest_level(anchors[levels[0]] - 500) == levels[0]
    assert ratings.nearest_level(anchors[levels[-1]] + 500) == levels[-1]
    for lower, upper in zip(levels, levels[1:], strict=False):
        middle = (anchors[lower] + anchors[upper]) / 2
        assert ratings.nearest_level(anchors[lower]) == lower
        assert ratings.nearest_level(middle - 1) == lower
        assert ratings.nearest_level(middle) == lower  # a tie goes to the weaker level
        assert ratings.nearest_level(middle + 1) == upper
    state = await svc.games.start(guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE,
                              options=parse_options("adaptive"), rng=random.Random(1))
    assert state.ai_level == "normal"  # a newcomer is rated 1200


async def test_ai_vs_ai_game_plays_itself_to_the_end(sqlite_world) -> None:
    svc, _ = sqlite_world
    state = await svc.games.start_watch(guild_id=GUILD, channel_id=CHANNEL, starter_id=ALICE,
                                     x_level="easy", o_level="impossible",
                                     options=parse_options(None, "3x3"))
    await svc.games.attach_message(state.id, 777)
    assert state.row.deadline is None and state.ai_to_move
    # Watching does not stop the starter from playing in the same channel.
    await svc.games.start(guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE,
                      options=parse_options(), rng=random.Random(1))
    while state.active:
        moved = await svc.moves.ai_move(state.id, member=ALICE)
        assert moved is not None
        state = moved
    assert state.row.winner in (None, Mark.O)  # impossible never loses
    assert await svc.games.rating_changes(state.id) == []
