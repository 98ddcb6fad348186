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
from engine.types import Level
from testkit.sqlite_rows import old_database
from tests.service.test_games import Thinker

GUILD = 10
ALICE, BOB, CAROL, DAVE = 30, 40, 50, 60
NOW = 1_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> float:
        return self.now


def insert_game(db: sqlite3.Connection, **values: object) -> int:
    columns = {
        "guild_id": GUILD, "channel_id": 1, "message_id": None, "player_id": ALICE,
        "player_mark": "X", "ai_level": "easy", "rows": 3, "cols": 3, "k": 3,
        "rule": "freestyle", "status": "active", "result": None, "winner": None, "ply": 0,
        "mode": "ai", "opponent_id": None, "player_level": None, "deadline": None,
        "end_reason": None, "hints": 0, "locale": "en-US",
    }
    columns.update(values)
    names = ", ".join(columns)
    marks = ", ".join("?" for _ in columns)
    game_id = db.execute(f"INSERT INTO games ({names}) VALUES ({marks})",
                         tuple(columns.values())).lastrowid
    assert game_id is not None
    return game_id


def insert_moves(db: sqlite3.Connection, game_id: int, cells: list[tuple[str, bool]]) -> None:
    for ply, (cell, by_ai) in enumerate(cells):
        db.execute("INSERT INTO moves (game_id, ply, cell, by_ai, reason) VALUES (?, ?, ?, ?, ?)",
                   (game_id, ply, cell, int(by_ai), "block" if by_ai else None))


def insert_rating(db: sqlite3.Connection, game_id: int, user: int, mode: str, before: float,
                  after: float, result: str) -> None:
    for scope in (GUILD, 0):
        db.execute("INSERT INTO rating_changes VALUES (?, ?, ?, ?, ?, ?)",
                   (game_id, scope, user, mode, before, after))
        db.execute(
            "INSERT INTO standings (scope, user_id, mode, rating, wins, draws, losses)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, user_id, mode) DO UPDATE SET"
            " rating = excluded.rating, wins = wins + excluded.wins,"
            " draws = draws + excluded.draws, losses = losses + excluded.losses",
            (scope, user, mode, after, int(result == "win"), int(result == "draw"),
             int(result == "loss")),
        )


def old_world(path: Path) -> dict[str, int]:
    """A database of the previous schema with games of every mode in every state, their
    results and ratings, challenges in every state and a server's settings."""
    old_database(path, through=4)
    ids: dict[str, int] = {}
    with sqlite3.connect(path) as db:
        # Games against the AI.
        ids["ai_active"] = insert_game(db, channel_id=1, message_id=101, ply=2,
                                       deadline=NOW + 600)
        insert_moves(db, ids["ai_active"], [("B2", False), ("A1", True)])
        ids["ai_active_ai_first"] = insert_game(db, channel_id=2, message_id=102,
                                                player_mark="O", ai_level="hard")
        ids["ai_won"] = insert_game(db, channel_id=3, message_id=103, status="finished",
                                    result="win", winner="X", ply=5, end_reason="line",
                                    ai_level="normal")
        insert_moves(db, ids["ai_won"], [("A1", False), ("B1", True), ("A2", False),
                                         ("B2", True), ("A3", False)])
        db.execute("INSERT INTO results (game_id, guild_id, user_id, ai_level, result, points)"
                   " VALUES (?, ?, ?, 'normal', 'win', 6)", (ids["ai_won"], GUILD, ALICE))
        insert_rating(db, ids["ai_won"], ALICE, "ai", 1200.0, 1216.0, "win")
        ids["ai_timed_out"] = insert_game(db, channel_id=3, message_id=104, status="finished",
                                          result="loss", winner="X", player_mark="O",
                                          ai_level="hard", ply=1, end_reason="timeout")
        insert_moves(db, ids["ai_timed_out"], [("B2", True)])
        db.execute("INSERT INTO results (game_id, guild_id, user_id, ai_level, result, points)"
                   " VALUES (?, ?, ?, 'hard', 'loss', 0)", (ids["ai_timed_out"], GUILD, ALICE))
        insert_rating(db, ids["ai_timed_out"], ALICE, "ai", 1216.0, 1210.0, "loss")
        ids["ai_abandoned"] = insert_game(db, channel_id=4, status="abandoned")
        # An old finished game from before end reasons and ratings were stored (migration 001).
        ids["ai_drawn_long_ago"] = insert_game(db, channel_id=4, message_id=105,
                                               status="finished", result="draw", ply=9,
                                               player_id=DAVE)
        db.execute("INSERT INTO results (game_id, guild_id, user_id, ai_level, result, points)"
                   " VALUES (?, ?, ?, 'easy', 'draw', 1)", (ids["ai_drawn_long_ago"], GUILD, DAVE))
        # Games between members: the challenger (player_id) plays O in the live one.
        ids["pvp_active"] = insert_game(db, channel_id=5, message_id=106, mode="pvp",
                                        ai_level="pvp", player_id=ALICE, player_mark="O",
                                        opponent_id=BOB, ply=1, deadline=NOW + 300)
        insert_moves(db, ids["pvp_active"], [("B2", False)])
        ids["pvp_resigned"] = insert_game(db, channel_id=5, message_id=107, mode="pvp",
                                          ai_level="pvp", player_id=CAROL, opponent_id=DAVE,
                                          status="finished", result="loss", winner="O",
                                          end_reason="resign")
        insert_rating(db, ids["pvp_resigned"], CAROL, "pvp", 1200.0, 1184.0, "loss")
        insert_rating(db, ids["pvp_resigned"], DAVE, "pvp", 1200.0, 1216.0, "win")
        # Watches: the starter (player_id) does not play.
        ids["watch_active"] = insert_game(db, channel_id=6, message_id=108, mode="watch",
                                          player_id=CAROL, player_level="easy",
                                          ai_level="impossible")
        ids["watch_stopped"] = insert_game(db, channel_id=7, message_id=109, mode="watch",
                                           player_id=CAROL, player_level="hard",
                                           ai_level="normal", status="abandoned")
        ids["watch_finished"] = insert_game(db, channel_id=7, message_id=110, mode="watch",
                                            player_id=DAVE, player_level="hard",
                                            ai_level="easy", status="finished", result="win",
                                            winner="X", end_reason="line")
        # Challenges in every state.
        challenge = (
            "INSERT INTO challenges (guild_id, channel_id, message_id, challenger_id, opponent_id,"
            " rows, cols, k, rule, first, status, deadline, game_id)"
            " VALUES (?, ?, ?, ?, ?, 3, 3, 3, 'freestyle', ?, ?, ?, ?)"
        )
        for name, channel, status, game in [
            ("pending", 8, "pending", None), ("accepted", 5, "accepted", ids["pvp_active"]),
            ("declined", 8, "declined", None), ("expired", 8, "expired", None),
        ]:
            ids[f"challenge_{name}"] = db.execute(
                challenge, (GUILD, channel, 200 + channel, CAROL, DAVE, "me", status,
                            NOW + 120, game),
            ).lastrowid or 0
        db.execute("INSERT INTO guild_settings VALUES (?, 300.0, 900.0)", (GUILD,))
        db.execute("INSERT INTO meta VALUES ('commands_hash', 'abc')")
    return ids


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
            assert sorted(db.execute(f"SELECT * FROM {table}").fetchall()) == rows, table
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
    state = await svc.games.play(MoveRef(ids["ai_active"], 2, "C3"), user_id=ALICE, message_id=101)
    assert state.ai_to_move
    answered = await svc.games.ai_move(ids["ai_active"], member=ALICE)
    assert answered is not None and answered.board.ply == 4
    # The AI that moves first answers on the upgraded game too.
    first = await svc.games.ai_move(ids["ai_active_ai_first"], member=ALICE)
    assert first is not None and first.mover_id == ALICE
    # Between members: Bob (X, the old opponent) is still seated and Alice (O) is to move.
    pvp = await svc.games.state(ids["pvp_active"])
    assert pvp is not None and pvp.mover_id == ALICE and pvp.mark_of(BOB) is Mark.X
    with pytest.raises(UserError, match="turn"):
        await svc.games.play(MoveRef(ids["pvp_active"], 1, "A1"), user_id=BOB, message_id=106)
    pvp = await svc.games.play(MoveRef(ids["pvp_active"], 1, "A1"), user_id=ALICE, message_id=106)
    assert pvp.mover_id == BOB
    # Bob keeps his seat: he cannot start a second game in that channel.
    with pytest.raises(ActiveGameExists):
        await svc.games.start(guild_id=GUILD, channel_id=5, player_id=BOB,
                          options=parse_options("easy", "3x3"), rng=random.Random(1))
    # The watch plays on.
    watched = await svc.games.ai_move(ids["watch_active"], member=CAROL)
    assert watched is not None and watched.board.ply == 1
    # The pending challenge can still be accepted, into a game with seats.
    _, accepted = await svc.challenges.answer_challenge(ids["challenge_pending"], DAVE, accept=True,
                                               rng=random.Random(1))
    assert accepted is not None and accepted.row.x == CAROL and accepted.row.o == DAVE
    # A resignation on an upgraded game rates both members once.
    over = await svc.games.resign(ids["pvp_active"], BOB)
    assert over.row.winner is Mark.O and len(await svc.games.rating_changes(over.id)) == 4
