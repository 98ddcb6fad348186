"""Game life in the game service, on a real database with a fake clock: challenges, turns of two
people, resignations, time-outs (exactly once), hints, rematches and Elo ratings."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.game import ratings
from bot.game.errors import UserError
from bot.game.model import GuildSettings, Mode, MoveRef
from bot.game.options import CHALLENGE_FIRSTS, parse_options, parse_timeout
from bot.game.ports import GLOBAL_SCOPE
from bot.game.services import Services, build_services
from bot.storage import SqliteStorage as Storage
from engine import Board, Mark
from testkit.sqlite_rows import row_counts
from testkit.thinkers import Thinker

GUILD, CHANNEL, ALICE, BOB, CAROL = 10, 20, 30, 40, 50


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def world(tmp_path: Path):
    storage = await Storage.open(tmp_path / "caro.db")
    clock = Clock()
    service = build_services(
        storage,
        Thinker(),
        clock=clock,
        default_timeouts=GuildSettings(pvp_timeout=60.0, ai_timeout=120.0),
        challenge_seconds=30.0,
    )
    yield service, clock
    await storage.close()


async def pvp_game(svc: Services, first: str = "me", size: str = "3x3"):
    challenge = await svc.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB,
        opponent_is_bot=False,
        options=parse_options(None, size, None, first, firsts=CHALLENGE_FIRSTS), locale="en-US",
    )
    _, state = await svc.challenges.answer_challenge(challenge.id, BOB, accept=True, rng=random.Random(1))
    assert state is not None
    await svc.games.attach_message(state.id, 900 + state.id)
    return state


async def move(svc: Services, game_id: int, user: int, cell: str):
    state = await svc.games.state(game_id)
    assert state is not None
    return await svc.games.play(MoveRef(game_id, state.board.ply, cell), user_id=user, message_id=None)


async def test_challenge_is_answered_only_by_the_challenged(world) -> None:
    svc, clock = world
    with pytest.raises(UserError, match="cannot challenge yourself"):
        await svc.challenges.challenge(guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE,
                              opponent_id=ALICE, opponent_is_bot=False,
                              options=parse_options(), locale="en-US")
    with pytest.raises(UserError, match="Bots cannot play"):
        await svc.challenges.challenge(guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE,
                              opponent_id=BOB, opponent_is_bot=True,
                              options=parse_options(), locale="en-US")
    challenge = await svc.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB,
        opponent_is_bot=False, options=parse_options(), locale="en-US",
    )
    assert challenge.deadline == clock.now + 30.0
    with pytest.raises(UserError, match="only they can answer"):
        await svc.challenges.answer_challenge(challenge.id, CAROL, accept=True, rng=random.Random(1))
    declined, game = await svc.challenges.answer_challenge(
        challenge.id, BOB, accept=False, rng=random.Random(1)
    )
    assert declined.status == "declined" and game is None
    with pytest.raises(UserError, match="no longer open"):
        await svc.challenges.answer_challenge(challenge.id, BOB, accept=True, rng=random.Random(1))


async def test_unanswered_challenge_expires_once(world) -> None:
    svc, clock = world
    challenge = await svc.challenges.challenge(
        guild_id=GUILD, channel_id=CHANNEL, challenger_id=ALICE, opponent_id=BOB,
        opponent_is_bot=False, options=parse_options(), locale="en-US",
    )
    assert await svc.challenges.expire_challenges() == []
    clock.now += 31
    expired = await svc.challenges.expire_challenges()
    assert [(c.id, c.status) for c in expired] == [(challenge.id, "expired")]
    assert await svc.challenges.expire_challenges() == []
    with pytest.raises(UserError, match="no longer open"):
        await svc.challenges.answer_challenge(challenge.id, BOB, accept=True, rng=random.Random(1))


async def test_two_people_take_turns_and_both_ratings_move(world, tmp_path: Path) -> None:
    svc, clock = world
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


async def test_time_out_loses_exactly_once(world) -> None:
    svc, clock = world
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


async def test_a_move_in_time_restarts_the_clock(world) -> None:
    svc, clock = world
    await svc.settings.save_timeouts(GUILD, GuildSettings(pvp_timeout=10, ai_timeout=20))
    state = await pvp_game(svc)
    clock.now += 9
    state = await move(svc, state.id, ALICE, "B2")
    clock.now += 9
    assert await svc.timeouts.expire_games() == []
    assert state.row.deadline == clock.now + 1


async def test_resign_gives_the_win_to_the_other_side(world) -> None:
    svc, _ = world
    state = await svc.games.start(guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE,
                              options=parse_options("easy"), rng=random.Random(1))
    with pytest.raises(UserError, match="not your game"):
        await svc.games.resign(state.id, BOB)
    over = await svc.games.resign(state.id, ALICE)
    assert (over.result_of(Mark.X), over.row.winner, over.row.end_reason) == ("loss", Mark.O, "resign")
    with pytest.raises(UserError, match="This game is over"):
        await svc.games.resign(state.id, ALICE)
    standing = await svc.standings.standing(GUILD, ALICE, Mode.AI)
    assert standing.rating == pytest.approx(ratings.updated(1200, 800, "loss"))
    # The rematch swaps colours: Alice played X, so the AI moves first.
    old, options = await svc.games.rematch_options(state.id, ALICE)
    assert old.id == state.id and options.first == "ai" and options.level == "easy"


async def test_hints_only_against_easy_and_normal_and_are_counted(world) -> None:
    svc, _ = world
    state = await svc.games.start(guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE,
                              options=parse_options("normal", "4x4"), rng=random.Random(1))
    hint = await svc.hints.hint(state.id, 0, ALICE)
    assert Board(4, 4, 4).parse_move(hint.cell) is not None
    assert hint.reason in {"center", "develop", "defend", "block", "threat", "fork", "win"}
    with pytest.raises(UserError, match="out of date"):
        await svc.hints.hint(state.id, 3, ALICE)
    again = await svc.games.state(state.id)
    assert again is not None and again.row.hints == 1
    hard = await svc.games.start(guild_id=GUILD, channel_id=CHANNEL + 1, player_id=ALICE,
                             options=parse_options("hard"), rng=random.Random(1))
    with pytest.raises(UserError, match="easy or normal"):
        await svc.hints.hint(hard.id, 0, ALICE)


async def test_adaptive_picks_the_level_nearest_the_rating(world) -> None:
    svc, _ = world
    assert [ratings.nearest_level(r) for r in (600, 1000, 1390, 1450, 2500)] == [
        "easy", "easy", "normal", "hard", "impossible",
    ]
    state = await svc.games.start(guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE,
                              options=parse_options("adaptive"), rng=random.Random(1))
    assert state.ai_level == "normal"  # a newcomer is rated 1200


async def test_ai_vs_ai_game_plays_itself_to_the_end(world) -> None:
    svc, _ = world
    state = await svc.games.start_watch(guild_id=GUILD, channel_id=CHANNEL, starter_id=ALICE,
                                     x_level="easy", o_level="impossible",
                                     options=parse_options(None, "3x3"))
    await svc.games.attach_message(state.id, 777)
    assert state.row.deadline is None and state.ai_to_move
    # Watching does not stop the starter from playing in the same channel.
    await svc.games.start(guild_id=GUILD, channel_id=CHANNEL, player_id=ALICE,
                      options=parse_options(), rng=random.Random(1))
    while state.active:
        moved = await svc.games.ai_move(state.id, member=ALICE)
        assert moved is not None
        state = moved
    assert state.row.winner in (None, Mark.O)  # impossible never loses
    assert await svc.games.rating_changes(state.id) == []


def test_timeouts_are_given_in_minutes_within_limits() -> None:
    assert parse_timeout(10, minimum_seconds=60) == 600
    assert parse_timeout(0.05, minimum_seconds=1) == 3
    with pytest.raises(UserError, match="between 1 and 10080 minutes"):
        parse_timeout(0.5, minimum_seconds=60)
    with pytest.raises(UserError, match="between"):
        parse_timeout(20000, minimum_seconds=60)


def test_sizes_are_presets_or_typed_up_to_26x26() -> None:
    from bot.game.options import parse_size

    assert parse_size(None) == (3, 3, 3)
    assert parse_size("15x15") == (15, 15, 5)
    assert parse_size(" 12 X 12 ") == (12, 12, 5)
    assert parse_size("26x20k6") == (26, 20, 6)
    assert parse_size("4x3") == (4, 3, 4)  # k is at most the longer side
    assert parse_options(None, "15x15").rule.value == "caro"  # the caro preset
    assert parse_options(None, "15x15", "freestyle").rule.value == "freestyle"
    for bad in ("27x27", "0x5", "10x10k11", "10x10k0", "x", "big"):
        with pytest.raises(UserError, match="up to 26x26"):
            parse_size(bad)
