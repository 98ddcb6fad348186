"""Puzzle rows as both backends store them (the same columns on SQLite and PostgreSQL), read back
into the model, and the one place the columns are listed."""

from __future__ import annotations

from typing import Any

from bot.game.puzzle_model import (
    CONSERVATIVE_SIGMAS,
    AttemptKind,
    AttemptOutcome,
    AttemptRow,
    NewPuzzle,
    PuzzleRow,
    PuzzleStanding,
    Skill,
)
from engine import Mark
from engine.analysis.puzzles import ProofKind, Puzzle

PUZZLE_COLUMNS = (
    "id, guild_id, position, to_move, kind, line, moves, defences, difficulty, source, ply,"
    " origin, mu, sigma"
)
ATTEMPT_COLUMNS = (
    "id, guild_id, channel_id, message_id, user_id, puzzle_id, kind, locale, outcome, moves,"
    " rated, started_at, finished_at"
)
STANDING_COLUMNS = "user_id, mu, sigma, solved, failed, streak, best_streak"


def puzzle_values(guild_id: int | None, new: NewPuzzle, now: float) -> tuple[object, ...]:
    """The values of an insert into puzzles, in PUZZLE_INSERT's order."""
    p = new.puzzle
    return (
        guild_id, p.key, p.position, p.to_move.name, p.kind.value, " ".join(p.line), p.moves,
        p.defences, p.difficulty, p.source, p.ply, p.origin, new.skill.mu, new.skill.sigma, now,
    )


PUZZLE_INSERT_COLUMNS = (
    "guild_id, key, position, to_move, kind, line, moves, defences, difficulty, source, ply,"
    " origin, mu, sigma, created_at"
)


def puzzle_of(row: Any) -> PuzzleRow:
    puzzle = Puzzle(
        position=str(row["position"]),
        to_move=Mark[str(row["to_move"])],
        kind=ProofKind(str(row["kind"])),
        line=tuple(str(row["line"]).split()),
        moves=int(row["moves"]),
        defences=int(row["defences"]),
        difficulty=int(row["difficulty"]),
        source=str(row["source"]),
        ply=int(row["ply"]),
        origin=str(row["origin"]),
    )
    guild = row["guild_id"]
    return PuzzleRow(
        int(row["id"]),
        None if guild is None else int(guild),
        puzzle,
        Skill(float(row["mu"]), float(row["sigma"])),
    )


def attempt_of(row: Any) -> AttemptRow:
    message = row["message_id"]
    finished = row["finished_at"]
    return AttemptRow(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        message_id=None if message is None else int(message),
        user_id=int(row["user_id"]),
        puzzle_id=int(row["puzzle_id"]),
        kind=AttemptKind(str(row["kind"])),
        locale=str(row["locale"]),
        outcome=AttemptOutcome(str(row["outcome"])),
        moves=tuple(str(row["moves"]).split()),
        rated=bool(row["rated"]),
        started_at=float(row["started_at"]),
        finished_at=None if finished is None else float(finished),
    )


def standing_of(row: Any) -> PuzzleStanding:
    return PuzzleStanding(
        int(row["user_id"]),
        Skill(float(row["mu"]), float(row["sigma"])),
        solved=int(row["solved"]),
        failed=int(row["failed"]),
        streak=int(row["streak"]),
        best_streak=int(row["best_streak"]),
    )


def standing_values(guild_id: int, s: PuzzleStanding) -> tuple[object, ...]:
    """The values of an upsert into puzzle_ratings, in STANDING_UPSERT's order."""
    return (
        guild_id, s.user_id, s.skill.mu, s.skill.sigma, s.solved, s.failed, s.streak,
        s.best_streak,
    )


STANDING_UPSERT_COLUMNS = "guild_id, user_id, mu, sigma, solved, failed, streak, best_streak"
STANDING_UPDATE = (
    "mu = excluded.mu, sigma = excluded.sigma, solved = excluded.solved,"
    " failed = excluded.failed, streak = excluded.streak, best_streak = excluded.best_streak"
)
# The puzzles a member of a server may be shown: its own and the shared set.
VISIBLE = "(guild_id IS NULL OR guild_id = {guild})"
# The leaderboard's order: the conservative rating, best first.
RANKING = f"mu - {CONSERVATIVE_SIGMAS:g} * sigma DESC"
