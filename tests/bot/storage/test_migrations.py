"""Upgrading a database written by the previous schema (migrations 001-004: player / opponent /
ai_level='pvp') to games with two seats: no live game, result, rating or challenge is lost, and
the live games play on."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from bot.game.errors import UserError
from bot.game.model import (
    ActiveGameExists,
    ChallengeStatus,
    EndReason,
    GuildSettings,
    Mode,
    MoveRef,
    Status,
)
from bot.game.options import parse_options
from bot.game.services import build_services
from bot.storage import SqliteStorage, migration_files
from engine import Mark
from engine.game.types import Level
from testkit.thinkers import Thinker
from testkit.worlds import ALICE, BOB, CAROL, DAVE, GUILD, NOW, Clock, old_world


@pytest.fixture
async def upgraded(tmp_path: Path):
    path = tmp_path / "caro.db"
    ids = old_world(path)
    with sqlite3.connect(path) as db:
        before = {
            table: sorted(db.execute(f"SELECT * FROM {table}").fetchall())
            for table in ("moves", "standings", "rating_changes", "challenges", "guild_settings",
                          "meta")
        }
        old_results = sorted(db.execute(
            "SELECT game_id, guild_id, user_id, ai_level, result FROM results").fetchall())
    storage = await SqliteStorage.open(path)
    clock = Clock()
    service = build_services(storage, Thinker(), clock=clock)
    yield service, clock, ids, path, before, old_results
    await storage.close()


async def test_every_old_game_keeps_its_players_state_and_result(upgraded) -> None:
    svc, _, ids, path, _, _ = upgraded
    assert await svc.storage.schema_version() == len(migration_files())
    expect = {
        # name: (mode, x, o, started_by, status, winner, end_reason, rated)
        "ai_active": (Mode.AI, ALICE, Level.EASY, ALICE, Status.ACTIVE, None, None, True),
        "ai_active_ai_first": (Mode.AI, Level.HARD, ALICE, ALICE, Status.ACTIVE, None, None,
                               True),
        "ai_won": (Mode.AI, ALICE, Level.NORMAL, ALICE, Status.FINISHED, Mark.X, EndReason.LINE,
                   True),
        "ai_timed_out": (Mode.AI, Level.HARD, ALICE, ALICE, Status.FINISHED, Mark.X,
                         EndReason.TIMEOUT, True),
        "ai_abandoned": (Mode.AI, ALICE, Level.EASY, ALICE, Status.ABANDONED, None, None, True),
        "ai_drawn_long_ago": (Mode.AI, DAVE, Level.EASY, DAVE, Status.FINISHED, None,
                              EndReason.FULL, False),
        "pvp_active": (Mode.PVP, BOB, ALICE, ALICE, Status.ACTIVE, None, None, True),
        "pvp_resigned": (Mode.PVP, CAROL, DAVE, CAROL, Status.FINISHED, Mark.O,
                         EndReason.RESIGN, True),
        "watch_active": (Mode.WATCH, Level.EASY, Level.IMPOSSIBLE, CAROL, Status.ACTIVE, None,
                         None, False),
        "watch_stopped": (Mode.WATCH, Level.HARD, Level.NORMAL, CAROL, Status.ABANDONED, None,
                          None, False),
        "watch_finished": (Mode.WATCH, Level.HARD, Level.EASY, DAVE, Status.FINISHED, Mark.X,
                           EndReason.LINE, False),
    }
    for name, wanted in expect.items():
        state = await svc.games.state(ids[name])
        assert state is not None, name
        row = state.row
        got = (row.mode, row.x, row.o, row.started_by, row.status, row.winner, row.end_reason,
               row.rated)
        assert got == wanted, name
    ai_active = await svc.games.state(ids["ai_active"])
    assert ai_active is not None
    assert [m.cell for m in ai_active.row.moves] == ["B2", "A1"]
    assert ai_active.row.deadline == NOW + 600 and ai_active.row.message_id == 101
    # The member's own result reads as before.
    won = await svc.games.state(ids["ai_won"])
    timed_out = await svc.games.state(ids["ai_timed_out"])
    assert won is not None and won.result_of(won.player_mark) == "win"
    assert timed_out is not None and timed_out.result_of(timed_out.player_mark) == "loss"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


async def test_results_ratings_challenges_and_settings_are_kept(upgraded) -> None:
    svc, _, ids, path, before, old_results = upgraded
    with sqlite3.connect(path) as db:
        for table, rows in before.items():
            # Later migrations may add columns at the end (a server's language): the old ones
            # keep their values.
            width = len(rows[0]) if rows else 0
            now = [row[:width] for row in db.execute(f"SELECT * FROM {table}").fetchall()]
            assert sorted(now) == rows, table
        assert sorted(db.execute(
            "SELECT game_id, guild_id, user_id, ai_level, result FROM results").fetchall()
        ) == old_results
        columns = {r[1] for r in db.execute("PRAGMA table_info(results)")}
        assert "points" not in columns
    stats = await svc.standings.user_stats(GUILD, ALICE)
    assert (stats.overall.wins, stats.overall.losses) == (1, 1)
    standing = await svc.standings.standing(GUILD, DAVE, Mode.PVP)
    assert standing.rating == 1216.0
    assert len(await svc.games.rating_changes(ids["pvp_resigned"])) == 4
    assert await svc.settings.timeouts(GUILD) == GuildSettings(pvp_timeout=300.0, ai_timeout=900.0)
    assert await svc.meta.get_meta("commands_hash") == "abc"
    statuses = {name: (await svc.storage.challenges.challenge(ids[f"challenge_{name}"]))
                for name in ("pending", "accepted", "declined", "expired")}
    assert {n: c.status for n, c in statuses.items() if c is not None} == {
        "pending": ChallengeStatus.PENDING, "accepted": ChallengeStatus.ACCEPTED,
        "declined": ChallengeStatus.DECLINED, "expired": ChallengeStatus.EXPIRED,
    }


async def test_live_games_play_on_after_the_upgrade(upgraded) -> None:
    svc, clock, ids, _, _, _ = upgraded
    # Against the AI: Alice (X) moves, the AI answers; a rated finish still counts once.
    state = await svc.moves.play(MoveRef(ids["ai_active"], 2, "C3"), user_id=ALICE, message_id=101)
    assert state.ai_to_move
    answered = await svc.moves.ai_move(ids["ai_active"], member=ALICE)
    assert answered is not None and answered.board.ply == 4
    # The AI that moves first answers on the upgraded game too.
    first = await svc.moves.ai_move(ids["ai_active_ai_first"], member=ALICE)
    assert first is not None and first.mover_id == ALICE
    # Between members: Bob (X, the old opponent) is still seated and Alice (O) is to move.
    pvp = await svc.games.state(ids["pvp_active"])
    assert pvp is not None and pvp.mover_id == ALICE and pvp.mark_of(BOB) is Mark.X
    with pytest.raises(UserError, match="turn"):
        await svc.moves.play(MoveRef(ids["pvp_active"], 1, "A1"), user_id=BOB, message_id=106)
    pvp = await svc.moves.play(MoveRef(ids["pvp_active"], 1, "A1"), user_id=ALICE, message_id=106)
    assert pvp.mover_id == BOB
    # Bob keeps his seat: he cannot start a second game in that channel.
    with pytest.raises(ActiveGameExists):
        await svc.games.start(guild_id=GUILD, channel_id=5, player_id=BOB,
                          options=parse_options("easy", "3x3"), rng=random.Random(1))
    # The watch plays on.
    watched = await svc.moves.ai_move(ids["watch_active"], member=CAROL)
    assert watched is not None and watched.board.ply == 1
    # The pending challenge can still be accepted, into a game with seats.
    _, accepted = await svc.challenges.answer_challenge(ids["challenge_pending"], DAVE, accept=True,
                                               rng=random.Random(1))
    assert accepted is not None and accepted.row.x == CAROL and accepted.row.o == DAVE
    # A resignation on an upgraded game rates both members once.
    over = await svc.games.resign(ids["pvp_active"], BOB)
    assert over.row.winner is Mark.O and len(await svc.games.rating_changes(over.id)) == 4
