"""Reading a test's SQLite database directly, for checks the bot's storage has no method for."""

from __future__ import annotations

import sqlite3
from pathlib import Path

TABLES = ("games", "moves", "results", "live_seats", "challenges", "standings", "rating_changes")


def row_counts(path: Path) -> dict[str, int]:
    """Rows per table, for checks that a refused request changed nothing."""
    with sqlite3.connect(path) as db:
        # Table names come from the fixed tuple above, never from input.
        return {table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in TABLES}


def old_database(path: Path, through: int) -> None:
    """A database at schema `through`, built with the shipped migrations 1..through as the
    version of caro that stopped there applied them, for upgrade tests to fill with old rows."""
    from bot.storage import migration_files

    with sqlite3.connect(path, isolation_level=None) as db:
        for number, migration in migration_files():
            if number > through:
                break
            db.executescript(
                f"BEGIN;\n{migration.read_text()}\nPRAGMA user_version = {number:d};\nCOMMIT;"
            )


def player_mark(alias: str = "") -> str:
    """SQL for the mark the member plays in a game against the AI."""
    g = f"{alias}." if alias else ""
    return f"(CASE WHEN {g}x_user_id IS NOT NULL THEN 'X' ELSE 'O' END)"


def player_result(alias: str = "") -> str:
    """SQL for the member's result ('win', 'draw' or 'loss'; NULL until finished) in a game
    against the AI."""
    g = f"{alias}." if alias else ""
    return (
        f"(CASE WHEN {g}status <> 'finished' THEN NULL WHEN {g}winner IS NULL THEN 'draw'"
        f" WHEN ({g}winner = 'X') = ({g}x_user_id IS NOT NULL) THEN 'win' ELSE 'loss' END)"
    )
