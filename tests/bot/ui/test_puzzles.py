"""The puzzle result line under a finished attempt."""

from __future__ import annotations

import functools

from bot.game.puzzle_model import (
    AttemptKind,
    AttemptOutcome,
    AttemptResult,
    AttemptRow,
    PuzzleStanding,
    Skill,
)
from bot.i18n.texts import text_in
from bot.ui.puzzles import _result_line


def _result(outcome: AttemptOutcome, streak_before: int, best: int) -> AttemptResult:
    attempt = AttemptRow(
        id=1, guild_id=1, channel_id=1, message_id=None, user_id=7, puzzle_id=3,
        kind=AttemptKind.NEW, locale="en-US", outcome=outcome, moves=(), rated=True,
        started_at=0.0, finished_at=1.0,
    )
    before = PuzzleStanding(7, Skill(25.0, 8.3), streak=streak_before, best_streak=best)
    solved = outcome is AttemptOutcome.SOLVED
    streak = streak_before + 1 if solved else 0
    after = PuzzleStanding(
        7, Skill(26.0 if solved else 24.0, 8.0), streak=streak, best_streak=max(best, streak)
    )
    return AttemptResult(attempt, before, after)


def test_a_miss_without_a_streak_says_nothing_about_streaks() -> None:
    for locale in ("en-US", "vi"):
        tr = functools.partial(text_in, locale)
        line = _result_line(_result(AttemptOutcome.FAILED, 0, 0), tr)
        assert line.endswith("25.0 → 24.0."), line
        assert "best" not in line and "cao nhất" not in line


def test_a_miss_ending_a_streak_says_so_with_the_best() -> None:
    tr = functools.partial(text_in, "en-US")
    line = _result_line(_result(AttemptOutcome.FAILED, 3, 5), tr)
    assert line.endswith("25.0 → 24.0. The streak ends (best 5).")
    solved = _result_line(_result(AttemptOutcome.SOLVED, 0, 0), tr)
    assert solved.endswith("25.0 → 26.0. Streak 1 (best 1).")
