"""Rating seasons as data: which season a finished game counts in, how a season is named, and
the soft reset a member's rating gets at their first game of a new season. Pure functions.

A season is not a job that runs at the month boundary: it is computed from the server's season
length and the game's finish time (UTC) when the game is counted, so a restart or a second
process misses nothing. Past seasons are the standings rows they left behind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum

from bot.game.errors import UserError


class SeasonLength(StrEnum):
    """How long a server's rating seasons last; OFF keeps the all-time ratings only."""

    MONTHLY = "monthly"
    QUARTERLY = "quarterly"
    OFF = "off"


# As /caro settings offers them.
SEASON_LENGTHS: tuple[str, ...] = tuple(length.value for length in SeasonLength)
# A server that never chose one.
DEFAULT_SEASON_LENGTH = SeasonLength.MONTHLY
# What a member types as the season of /caro leaderboard to see the all-time standings.
ALL_TIME = "all"
# How much of last season's distance from the start rating a member keeps at their first game of
# a new season. Half keeps a strong player ahead for the first games while leaving the top open:
# at K=32 a few wins close a gap of half, where a full reset would make the first week's
# leaderboard luck and no reset would make a season the all-time table again.
SOFT_RESET_KEEP = 0.5

_MONTHLY = re.compile(r"(\d{4})-(\d{2})")
_QUARTERLY = re.compile(r"(\d{4})-Q([1-4])")


@dataclass(frozen=True, slots=True, order=True)
class Season:
    """One season: its first day (UTC) orders seasons, its name ("2026-10", "2026-Q4") is what
    members type and what the standings rows are keyed by. A name belongs to one length only, so
    seasons of a server that changed its length never share a name."""

    starts: date
    name: str


def parse_season_length(value: str) -> SeasonLength:
    """A season length a member chose; UserError naming the choices for anything else."""
    try:
        return SeasonLength(value.strip().lower())
    except ValueError:
        raise UserError("season.bad_length", choices=", ".join(SEASON_LENGTHS)) from None


def stored_length(value: object) -> SeasonLength:
    """A stored season length; a server that never chose one (None), or one this version does
    not know (a newer version saved it), has the default rather than failing its every game."""
    try:
        return DEFAULT_SEASON_LENGTH if value is None else SeasonLength(str(value))
    except ValueError:
        return DEFAULT_SEASON_LENGTH


def season_of(length: SeasonLength, finished_at: datetime) -> Season | None:
    """The season a game finished at `finished_at` counts in; None when seasons are off. A naive
    time is taken as UTC."""
    if length is SeasonLength.OFF:
        return None
    at = (
        finished_at.replace(tzinfo=UTC)
        if finished_at.tzinfo is None
        else finished_at.astimezone(UTC)
    )
    if length is SeasonLength.MONTHLY:
        return Season(date(at.year, at.month, 1), f"{at.year:04d}-{at.month:02d}")
    quarter = (at.month - 1) // 3 + 1
    return Season(date(at.year, 3 * quarter - 2, 1), f"{at.year:04d}-Q{quarter}")


def parse_season(name: str) -> Season | None:
    """The season a member named ("2026-10", "2026-q3"), or None if it names none."""
    cleaned = name.strip().upper()
    if (monthly := _MONTHLY.fullmatch(cleaned)) is not None:
        year, month = int(monthly[1]), int(monthly[2])
        if year < 1 or not 1 <= month <= 12:
            return None
        return Season(date(year, month, 1), f"{year:04d}-{month:02d}")
    if (quarterly := _QUARTERLY.fullmatch(cleaned)) is not None:
        year, quarter = int(quarterly[1]), int(quarterly[2])
        if year < 1:
            return None
        return Season(date(year, 3 * quarter - 2, 1), f"{year:04d}-Q{quarter}")
    return None


def soft_reset(start: float, last: float | None) -> float:
    """A member's rating at their first game of a season: `last` (their rating at the end of the
    last season they played) pulled toward `start` by SOFT_RESET_KEEP; `start` if they played
    none."""
    if last is None:
        return start
    return start + (last - start) * SOFT_RESET_KEEP


def chosen_season(
    typed: str | None, length: SeasonLength, now: datetime, known: list[Season]
) -> Season | None:
    """The season a leaderboard shows, None for the all-time one. Nothing typed: the current
    season, or all time on a server with seasons off. Otherwise ALL_TIME, the current season or
    one of the server's `known` seasons by name; UserError for any other name."""
    current = season_of(length, now)
    if typed is None or not typed.strip():
        return current
    if typed.strip().lower() == ALL_TIME:
        return None
    season = parse_season(typed)
    if season is None:
        raise UserError("season.unknown", name=typed.strip()[:20])
    if season != current and season not in known:
        raise UserError("season.none", name=season.name)
    return season


__all__ = [
    "ALL_TIME",
    "DEFAULT_SEASON_LENGTH",
    "SEASON_LENGTHS",
    "SOFT_RESET_KEEP",
    "Season",
    "SeasonLength",
    "chosen_season",
    "parse_season",
    "parse_season_length",
    "season_of",
    "soft_reset",
    "stored_length",
]
