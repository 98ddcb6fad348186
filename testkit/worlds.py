"""An old database with something of everything in it: `old_world` writes a database of the
previous schema (migrations 001-004) with games of every mode in every state, their results and
ratings, challenges in every state and a server's settings; the members and the server it names,
and a clock the services can be given, set to the time its deadlines are counted from."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from testkit.sqlite_rows import old_database

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
