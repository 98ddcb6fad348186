"""Fair play enforced by the game service on a real database: clocks checked at the move, unrated
degenerate games, limits on running games and pending challenges, accepting a challenge racing a
/caro start, and databases refused at open."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
from pathlib import Path

import pytest

from bot.game import ratings
from bot.game.errors import UserError
from bot.game.games import Limits
from bot.game.levels import NO_ENGINE
from bot.game.model import ActiveGameExists, GuildSettings, Mode, MoveRef
from bot.game.options import CHALLENGE_FIRSTS, parse_options
from bot.game.ports import StorageError
from bot.game.services import Services, build_services
from bot.i18n.texts import VI, t
from bot.storage import open_database
from engine import Mark
from testkit.storage_backends import Backend
from testkit.thinkers import Thinker

GUILD, CHANNEL = 10, 20
ALICE, BOB, CAROL, DAVE, ERIN = 30, 40, 50, 60, 70


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def world(backend: Backend):
    """The services on each storage backend in turn."""
    storage = await backend.open()
    clock = Clock()
    service = build_services(
        storage, Thinker(), clock=clock,
        default_timeouts=GuildSettings(pvp_timeout=60.0, ai_timeout=120.0),
        limits=Limits(ai_games_per_member=2, ai_games_per_server=3, watches_per_server=2,
                      challenges_per_challenger=2, challenges_per_challenged=3),
    )
    return service, clock  # the backend fixture closes the storage


async def challenge(svc: Services, challenger: int, opponent: int, channel: int = CHANNEL,
                    size: str = "3x3"):
    return await svc.challenges.challenge(
        guild_id=GUILD, channel_id=channel, challenger_id=challenger, opponent_id=opponent,
        opponent_is_bot=False, locale="en-US",
        options=parse_options(None, size, None, "me", firsts=CHALLENGE_FIRSTS),
    )


async def start(svc: Services, player: int, channel: int = CHANNEL, size: str = "3x3",
                level: str = "easy"):
    return await svc.games.start(guild_id=GUILD, channel_id=channel, player_id=player,
                             options=parse_options(level, size), rng=random.Random(1))


# ------------------------------------------------------------------ 12.4 clocks at the move
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
    moved = await svc.games.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None)
    assert moved.row.deadline == clock.now + 60
    assert not svc.clocks.deadlines_changed.is_set()
    # It would look only after Bob's clock ran out: woken.
    svc.clocks.watched_until = clock.now + 90
    moved = await svc.games.play(MoveRef(state.id, 1, "B1"), user_id=BOB, message_id=None)
    assert svc.clocks.deadlines_changed.is_set()
    # While it reads the clocks (None), every new clock wakes it for another pass.
    svc.clocks.watched_until = None
    svc.clocks.deadlines_changed.clear()
    await svc.games.play(MoveRef(state.id, 2, "A2"), user_id=ALICE, message_id=None)
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
        await svc.games.play(MoveRef(state.id, 0, "B2"), user_id=ALICE, message_id=None)
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
        await svc.games.play(MoveRef(state.id, 0, "B2"), user_id=ALICE, message_id=None)
    assert (await backend.row_counts())["rating_changes"] == 4


async def test_a_move_just_in_time_counts(world) -> None:
    svc, clock = world
    state = await start(svc, ALICE)
    clock.now += 119.9
    after = await svc.games.play(MoveRef(state.id, 0, "B2"), user_id=ALICE, message_id=None)
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


# ------------------------------------------------------------------ 12.5 unrated games
@pytest.mark.parametrize(
    ("mode", "rows", "cols", "k", "rated"),
    [
        (Mode.AI, 1, 1, 1, False),
        (Mode.AI, 2, 2, 2, False),
        (Mode.AI, 26, 26, 2, False),
        (Mode.AI, 3, 10, 5, False),  # no line of 5 fits across 3 rows: only one direction
        (Mode.AI, 3, 3, 3, True),
        (Mode.PVP, 15, 15, 5, True),
        (Mode.PVP, 4, 4, 5, False),
        (Mode.WATCH, 15, 15, 5, False),
    ],
)
def test_the_rated_rule(mode: Mode, rows: int, cols: int, k: int, rated: bool) -> None:
    assert ratings.rated(mode, rows, cols, k) is rated


async def test_one_click_wins_on_a_tiny_board_move_no_rating(world, backend: Backend) -> None:
    svc, _ = world
    for _ in range(5):
        state = await start(svc, ALICE, size="1x1k1", level="impossible")
        assert not state.row.rated
        over = await svc.games.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None)
        assert over.row.winner is Mark.X and not over.active
        assert await svc.games.rating_changes(over.id) == []
    standing = await svc.standings.standing(GUILD, ALICE, Mode.AI)
    assert standing.rating == ratings.START_RATING
    counts = await backend.row_counts()
    assert (counts["standings"], counts["rating_changes"], counts["results"]) == (0, 0, 0)


async def test_unrated_is_said_in_english_and_vietnamese(world) -> None:
    from bot.ui.render import game_content

    svc, _ = world
    tiny = await start(svc, ALICE, size="2x2k2")
    normal = await start(svc, BOB)
    assert "Unrated" in game_content(tiny, external=NO_ENGINE)
    assert "Unrated" not in game_content(normal, external=NO_ENGINE)
    assert "game.unrated" in VI and VI["game.unrated"] != t("game.unrated")
    assert "Không tính điểm" in game_content(tiny, "vi", external=NO_ENGINE)


# ------------------------------------------------------------------ 12.3 limits
async def test_live_ai_games_are_limited_per_member_and_per_server(world) -> None:
    svc, _ = world
    await start(svc, ALICE, channel=1)
    await start(svc, ALICE, channel=2)
    with pytest.raises(UserError, match="already have 2 games against the AI") as refused:
        await start(svc, ALICE, channel=3)
    assert refused.value.key == "limit.member_ai_games"
    await start(svc, BOB, channel=1)
    with pytest.raises(UserError) as full:
        await start(svc, CAROL, channel=1)
    assert full.value.key == "limit.server_ai_games"
    # Another server is not affected, and ending a game frees its place.
    other = await svc.games.start(guild_id=GUILD + 1, channel_id=1, player_id=CAROL,
                              options=parse_options("easy"), rng=random.Random(1))
    assert other.active
    first = await svc.games.active_game(GUILD, 1, ALICE)
    assert first is not None
    await svc.games.resign(first.id, ALICE)
    assert (await start(svc, CAROL, channel=1)).active


async def test_the_own_running_game_is_reported_before_any_limit(world) -> None:
    svc, _ = world
    await start(svc, ALICE, channel=1)
    await start(svc, ALICE, channel=2)
    with pytest.raises(ActiveGameExists):
        await start(svc, ALICE, channel=1)


async def test_watches_are_limited_per_channel_and_per_server(world) -> None:
    svc, clock = world

    async def watch(channel: int):
        return await svc.games.start_watch(guild_id=GUILD, channel_id=channel, starter_id=ALICE,
                                       x_level="easy", o_level="hard",
                                       options=parse_options(None, "3x3"))

    await watch(1)
    with pytest.raises(ActiveGameExists):
        await watch(1)
    await watch(2)
    clock.now += 60.0  # a minute later: the cooldown on watches is not what is tested here
    with pytest.raises(UserError) as refused:
        await watch(3)
    assert refused.value.key == "limit.server_watches"


async def test_pending_challenges_are_limited_per_challenger_and_per_challenged(world) -> None:
    svc, _ = world
    await challenge(svc, ALICE, BOB, channel=1)
    await challenge(svc, ALICE, CAROL, channel=2)
    with pytest.raises(UserError) as sent:
        await challenge(svc, ALICE, DAVE, channel=3)
    assert sent.value.key == "limit.challenges_sent"
    await challenge(svc, CAROL, BOB, channel=4)
    await challenge(svc, DAVE, BOB, channel=5)
    with pytest.raises(UserError, match=f"<@{BOB}> already has too many") as received:
        await challenge(svc, ERIN, BOB, channel=6)
    assert received.value.key == "limit.challenges_received"
    # Answered challenges no longer count.
    first = await challenge(svc, ERIN, DAVE, channel=7)
    await svc.challenges.answer_challenge(first.id, DAVE, accept=False, rng=random.Random(1))
    assert (await challenge(svc, ERIN, DAVE, channel=8)).status == "pending"


def test_every_limit_message_exists_in_english_and_vietnamese() -> None:
    from bot.i18n.texts import EN

    for key in ("limit.member_ai_games", "limit.server_ai_games", "limit.server_watches",
                "limit.challenges_sent", "limit.challenges_received", "click.too_late",
                "game.unrated"):
        assert key in EN and key in VI, key


# ------------------------------------------------------------------ 12.6 accept vs start
async def test_an_accepted_game_holds_its_board_message_from_the_start(world) -> None:
    """The accepted game is created with the challenge message as its board, in the same
    transaction that closes the challenge: a /caro start racing the accept never finds an
    unposted game (which it would abandon as a leftover)."""
    svc, clock = world
    for attempt in range(8):
        clock.now += 60.0  # a round a minute: the cooldowns are not what is tested here
        found = await challenge(svc, ALICE, BOB, channel=100 + attempt)
        await svc.challenges.attach_challenge_message(found.id, 5000 + attempt)
        accept = svc.challenges.answer_challenge(found.id, BOB, accept=True, rng=random.Random(1))
        race = svc.games.start(guild_id=GUILD, channel_id=100 + attempt, player_id=ALICE,
                           options=parse_options("easy"), rng=random.Random(1))
        accepted, started = await asyncio.gather(accept, race, return_exceptions=True)
        if isinstance(started, ActiveGameExists):
            # The start lost: what it found is the accepted game, with its message.
            assert started.game.mode is Mode.PVP and started.game.message_id == 5000 + attempt
            assert isinstance(accepted, tuple) and accepted[1] is not None
            assert accepted[1].active
        else:
            # The start won: the accept is refused, and the challenge stays open.
            assert isinstance(accepted, UserError) and accepted.key == "challenge.someone_busy"
            again = await svc.storage.challenges.challenge(found.id)
            assert again is not None and again.status == "pending"
            await svc.games.resign(started.id, ALICE)
            # Declined, so the open challenges of earlier rounds never reach Alice's limit (on
            # PostgreSQL the start wins this race often, the writes truly running at once).
            await svc.challenges.answer_challenge(found.id, BOB, accept=False, rng=random.Random(1))


async def test_an_accepted_challenge_and_its_game_are_written_together(world) -> None:
    svc, _ = world
    found = await challenge(svc, ALICE, BOB)
    await start(svc, BOB)  # Bob is busy in the channel: accepting fails as a whole
    with pytest.raises(UserError) as busy:
        await svc.challenges.answer_challenge(found.id, BOB, accept=True, rng=random.Random(1))
    assert busy.value.key == "challenge.someone_busy"
    again = await svc.storage.challenges.challenge(found.id)
    assert again is not None and again.status == "pending" and again.game_id is None


# ------------------------------------------------------------------ 12.7 databases refused
async def test_databases_that_cannot_be_used_are_refused_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("hello, this is not a database\n" * 20)
    cases = {
        tmp_path / "missing" / "caro.db": "does not exist",
        folder: "is a folder",
        not_sqlite: "not an SQLite database",
    }
    for path, reason in cases.items():
        with pytest.raises(StorageError) as refused:
            await open_database(str(path))
        message = str(refused.value)
        assert reason in message and str(path) in message and "\n" not in message
    with pytest.raises(StorageError, match="expected sqlite:///path or postgresql://"):
        await open_database("mysql://db.example/caro")
    assert not_sqlite.read_text().startswith("hello")  # nothing written to it


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere; needs an ordinary user")
async def test_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StorageError, match="not writable"):
            await open_database(str(folder / "caro.db"))
    finally:
        folder.chmod(0o700)


async def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "caro.db"
    store = await open_database(f"sqlite:///{path}")
    await store.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
        db.execute("CREATE TABLE from_the_future (id INTEGER)")
    with pytest.raises(StorageError, match="schema version 99, newer than") as refused:
        await open_database(path)
    assert "\n" not in str(refused.value)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (99,)


# ------------------------------------------------------------------ 12.3 one hint per ply
async def test_a_hint_is_searched_and_counted_once_per_ply(world) -> None:
    svc, _ = world
    state = await start(svc, ALICE, size="4x4", level="normal")
    thinker = svc.games._ai
    assert isinstance(thinker, Thinker)
    thinker.gate = asyncio.Event()
    asked = [asyncio.ensure_future(svc.hints.hint(state.id, 0, ALICE)) for _ in range(5)]
    await asyncio.sleep(0.05)
    thinker.gate.set()
    hints = await asyncio.gather(*asked)
    assert len({(h.cell, h.reason) for h in hints}) == 1
    assert await svc.hints.hint(state.id, 0, ALICE) == hints[0]  # asked again later: no new search
    hint_searches = [c for c in thinker.calls if c[1] == "hard"]
    assert len(hint_searches) == 1
    again = await svc.games.state(state.id)
    assert again is not None and again.row.hints == 1
    # The next ply gets its own hint, counted once more.
    moved = await svc.games.play(MoveRef(state.id, 0, hints[0].cell), user_id=ALICE, message_id=None)
    answered = await svc.games.ai_move(moved.id, member=ALICE)
    assert answered is not None
    await svc.hints.hint(state.id, 2, ALICE)
    later = await svc.games.state(state.id)
    assert later is not None and later.row.hints == 2


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
