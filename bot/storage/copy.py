"""Moving up: copy a caro SQLite database into an empty PostgreSQL database.

    python -m bot.storage.copy --from sqlite:///caro.db --to postgresql://caro@db/caro

Every game (running ones included, with their clocks), move, result, rating, rating change (all
time and per season), challenge, server and member setting, block between members, queue entry, meta fact,
puzzle (with attempts and puzzle ratings), tournament (with entries and pairings) and outbox row
(the posts not yet sent among them) is copied, ids kept, in one transaction: the target gets all of it or nothing. The
target must be empty (a fresh database: its schema is created here); the SQLite file is first
brought to the current schema, as the bot would on start, and is not otherwise changed. Stop the
bot before copying, then start it with CARO_DATABASE_URL set to the target. Exit status 0 when
copied, 2 when refused (one line on stderr saying why).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]

from bot.game.ports import StorageError
from bot.storage import is_postgres_url, sqlite_path
from bot.storage.postgres import PostgresStorage, shown_dsn
from bot.storage.sqlite import SqliteStorage


def _as_is(value: object) -> object:
    return value


def _flag(value: object) -> object:
    return None if value is None else bool(value)


def _number(value: object) -> object:
    # SQLite's REAL columns may hand back an int (a whole number); PostgreSQL wants a float.
    return None if value is None else float(value)  # type: ignore[arg-type]


def _time(value: object) -> object:
    """SQLite's text timestamps ('2026-01-02T03:04:05.678Z', all UTC) as aware datetimes."""
    if value is None:
        return None
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _day(value: object) -> object:
    """SQLite's text days ('2026-10-01') as dates."""
    return date.fromisoformat(str(value))


Convert = Callable[[object], object]
# Table -> its columns and how each value crosses over, in an order that keeps foreign keys
# satisfied (games before what refers to them).
TABLES: dict[str, dict[str, Convert]] = {
    "tournaments": {
        "id": _as_is, "guild_id": _as_is, "channel_id": _as_is, "message_id": _as_is,
        "created_by": _as_is, "format": _as_is, "rounds": _as_is, "minutes": _as_is,
        "max_players": _as_is, "rows": _as_is, "cols": _as_is, "k": _as_is, "rule": _as_is,
        "opening": _as_is, "turn_seconds": _number, "rated": _flag, "starts_at": _number,
        "locale": _as_is, "status": _as_is, "round": _as_is, "announced": _as_is,
        "started_at": _number, "ends_at": _number, "finished_at": _number, "created_at": _time,
    },
    "tournament_entries": {"tournament_id": _as_is, "entrant": _as_is, "seed": _as_is,
                           "withdrawn": _flag, "joined_at": _time},
    "games": {
        "id": _as_is, "guild_id": _as_is, "channel_id": _as_is, "message_id": _as_is,
        "mode": _as_is, "x_user_id": _as_is, "x_level": _as_is, "o_user_id": _as_is,
        "o_level": _as_is, "started_by": _as_is, "rows": _as_is, "cols": _as_is, "k": _as_is,
        "rule": _as_is, "status": _as_is, "winner": _as_is, "end_reason": _as_is,
        "rated": _flag, "ply": _as_is, "deadline": _number, "hints": _as_is, "locale": _as_is,
        "takebacks": _as_is, "takeback_asked": _as_is, "takeback_open": _flag,
        "opening": _as_is, "decisions": _as_is, "tournament_id": _as_is,
        "turn_seconds": _number, "created_at": _time, "updated_at": _time, "finished_at": _time,
    },
    "tournament_pairings": {
        "id": _as_is, "tournament_id": _as_is, "round": _as_is, "board": _as_is, "x": _as_is,
        "o": _as_is, "game_id": _as_is, "outcome": _as_is,
    },
    "moves": {
        "game_id": _as_is, "ply": _as_is, "cell": _as_is, "by_ai": _flag, "reason": _as_is,
        "played_at": _time,
    },
    "live_seats": {"guild_id": _as_is, "channel_id": _as_is, "user_id": _as_is,
                   "game_id": _as_is},
    "results": {
        "game_id": _as_is, "guild_id": _as_is, "user_id": _as_is, "ai_level": _as_is,
        "result": _as_is, "finished_at": _time,
    },
    "challenges": {
        "id": _as_is, "guild_id": _as_is, "channel_id": _as_is, "message_id": _as_is,
        "challenger_id": _as_is, "opponent_id": _as_is, "rows": _as_is, "cols": _as_is,
        "k": _as_is, "rule": _as_is, "first": _as_is, "locale": _as_is, "status": _as_is,
        "deadline": _number, "game_id": _as_is, "created_at": _time, "rated": _flag,
        "opening": _as_is,
    },
    "standings": {
        "scope": _as_is, "user_id": _as_is, "mode": _as_is, "rating": _number,
        "wins": _as_is, "draws": _as_is, "losses": _as_is,
    },
    "rating_changes": {
        "game_id": _as_is, "scope": _as_is, "user_id": _as_is, "mode": _as_is,
        "before": _number, "after": _number,
    },
    "guild_settings": {"guild_id": _as_is, "pvp_timeout": _number, "ai_timeout": _number,
                       "language": _as_is, "season_length": _as_is, "tournament_role": _as_is,
                       "cross_server": _flag},
    "season_standings": {
        "guild_id": _as_is, "season": _as_is, "starts": _day, "user_id": _as_is, "mode": _as_is,
        "rating": _number, "wins": _as_is, "draws": _as_is, "losses": _as_is,
    },
    "season_rating_changes": {
        "id": _as_is, "game_id": _as_is, "guild_id": _as_is, "season": _as_is, "user_id": _as_is,
        "mode": _as_is, "before": _number, "after": _number,
    },
    "member_settings": {"user_id": _as_is, "theme": _as_is, "turn_pings": _flag,
                        "clock_warnings": _flag, "language": _as_is},
    "blocks": {"user_id": _as_is, "blocked_id": _as_is, "created_at": _number},
    "queue_entries": {
        "id": _as_is, "guild_id": _as_is, "channel_id": _as_is, "message_id": _as_is,
        "user_id": _as_is, "rows": _as_is, "cols": _as_is, "k": _as_is, "rule": _as_is,
        "rated": _flag, "turn_seconds": _number, "local": _flag, "rating": _number,
        "locale": _as_is, "joined_at": _number, "status": _as_is, "partner_id": _as_is,
        "paired_at": _number, "left_at": _number, "game_id": _as_is, "display_name": _as_is,
        "panned": _flag,
    },
    "game_boards": {"game_id": _as_is, "guild_id": _as_is, "channel_id": _as_is,
                    "user_id": _as_is, "message_id": _as_is},
    "meta": {"key": _as_is, "value": _as_is},
    "reviews": {"game_id": _as_is, "node_limit": _as_is, "data": _as_is, "created_at": _time},
    "clock_warnings": {"game_id": _as_is, "deadline": _number},
    "puzzles": {
        "id": _as_is, "guild_id": _as_is, "key": _as_is, "position": _as_is, "to_move": _as_is,
        "kind": _as_is, "line": _as_is, "moves": _as_is, "defences": _as_is,
        "difficulty": _as_is, "source": _as_is, "ply": _as_is, "origin": _as_is,
        "mu": _number, "sigma": _number, "created_at": _number,
    },
    "puzzle_attempts": {
        "id": _as_is, "guild_id": _as_is, "channel_id": _as_is, "message_id": _as_is,
        "user_id": _as_is, "puzzle_id": _as_is, "kind": _as_is, "locale": _as_is,
        "outcome": _as_is, "moves": _as_is, "rated": _flag, "started_at": _number,
        "finished_at": _number,
    },
    "puzzle_ratings": {
        "guild_id": _as_is, "user_id": _as_is, "mu": _number, "sigma": _number,
        "solved": _as_is, "failed": _as_is, "streak": _as_is, "best_streak": _as_is,
    },
    "daily_puzzles": {"guild_id": _as_is, "day": _as_is, "puzzle_id": _as_is},
    "outbox": {
        "id": _as_is, "guild_id": _as_is, "channel_id": _as_is, "kind": _as_is,
        "payload": _as_is, "nonce": _as_is, "created_at": _number, "due_at": _number,
        "claimed_until": _number, "attempts": _as_is, "last_error": _as_is,
        "message_id": _as_is, "sent_at": _number, "failed_at": _number,
    },
}
# Tables whose ids PostgreSQL hands out: after the copy they continue after the copied ones.
_IDENTITIES = ("tournaments", "games", "tournament_pairings", "challenges", "puzzles",
               "puzzle_attempts", "outbox", "season_rating_changes", "queue_entries")


def _read(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table, read in one transaction (one consistent picture)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    try:
        db.execute("BEGIN")
        rows: dict[str, list[tuple[object, ...]]] = {}
        for table, columns in TABLES.items():
            # Table and column names come from the fixed table above, never from input.
            names = ", ".join(columns)
            converters = list(columns.values())
            rows[table] = [
                tuple(convert(value) for convert, value in zip(converters, row, strict=True))
                for row in db.execute(f"SELECT {names} FROM {table}")
            ]
        db.execute("COMMIT")
        return rows
    finally:
        db.close()


async def copy_database(source: str | Path, target: str) -> dict[str, int]:
    """Copy the SQLite database `source` into the empty PostgreSQL database `target`; rows
    copied per table. StorageError (one line) if either cannot be used or the target is not
    empty (nothing is written to it then)."""
    if is_postgres_url(source):
        raise StorageError("copy: the source must be an SQLite database (sqlite:///path)")
    if not is_postgres_url(target):
        raise StorageError("copy: the target must be a PostgreSQL database (postgresql://…)")
    path = sqlite_path(source)
    if not path.is_file():
        raise StorageError(f"copy: the source {path} does not exist")
    # Opening brings an older file to the current schema, the one the columns above describe.
    await (await SqliteStorage.open(path)).close()
    rows = _read(path)
    store = await PostgresStorage.open(target)
    try:
        async with store.connection.transaction() as (con, _):
            # Nobody writes while we check and copy (a bot started early would only wait).
            await con.execute(f"LOCK TABLE {', '.join(TABLES)} IN EXCLUSIVE MODE")
            for table in TABLES:
                if await con.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
                    raise StorageError(
                        f"copy: the target {shown_dsn(target)} is not empty (table {table} has"
                        " rows); copy only into a new database"
                    )
            for table, columns in TABLES.items():
                if not rows[table]:
                    continue
                try:
                    await con.copy_records_to_table(table, records=rows[table],
                                                    columns=list(columns))
                except asyncpg.PostgresError as exc:
                    message = " ".join(str(exc).split())
                    raise StorageError(f"copy: PostgreSQL refused the {table}: {message}") from None
            for table in _IDENTITIES:
                await con.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                    f" COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
                )
    finally:
        await store.close()
    return {table: len(found) for table, found in rows.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.storage.copy",
        description="Copy a caro SQLite database into an empty PostgreSQL database.",
    )
    parser.add_argument("--from", dest="source", required=True, metavar="sqlite:///PATH",
                        help="the SQLite database (stop the bot first)")
    parser.add_argument("--to", dest="target", required=True, metavar="postgresql://…",
                        help="an empty PostgreSQL database")
    args = parser.parse_args(argv)
    try:
        counts = asyncio.run(copy_database(args.source, args.target))
    except StorageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    summary = ", ".join(f"{n} {table}" for table, n in counts.items())
    print(f"copied into {shown_dsn(args.target)}: {summary}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
