"""The season maths (bot/game/seasons.py): which season a finish time (UTC) falls in, the names
members type, the soft reset at a member's first game of a season, and which leaderboard a
typed season chooses."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from bot.game.errors import UserError
from bot.game.ratings import START_RATING
from bot.game.seasons import (
    ALL_TIME,
    DEFAULT_SEASON_LENGTH,
    Season,
    SeasonLength,
    chosen_season,
    parse_season,
    parse_season_length,
    season_of,
    soft_reset,
    stored_length,
)

MONTHLY, QUARTERLY, OFF = SeasonLength.MONTHLY, SeasonLength.QUARTERLY, SeasonLength.OFF


def test_a_month_ends_at_midnight_utc_not_at_the_servers_local_midnight() -> None:
    last = datetime(2026, 10, 31, 23, 59, 59, 999999, tzinfo=UTC)
    assert season_of(MONTHLY, last) == Season(date(2026, 10, 1), "2026-10")
    assert season_of(MONTHLY, last + timedelta(microseconds=1)) == Season(
        date(2026, 11, 1), "2026-11"
    )
    # 01:00 on 1 November in UTC+7 (Hanoi) is still 31 October in UTC.
    hanoi = timezone(timedelta(hours=7))
    assert season_of(MONTHLY, datetime(2026, 11, 1, 1, 0, tzinfo=hanoi)).name == "2026-10"  # type: ignore[union-attr]
    # A naive time is UTC.
    assert season_of(MONTHLY, datetime(2026, 12, 31, 23, 0)).name == "2026-12"  # type: ignore[union-attr]
    assert season_of(MONTHLY, datetime(2027, 1, 1, 0, 0, tzinfo=UTC)).name == "2027-01"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("when", "name", "starts"),
    [
        (datetime(2026, 1, 1, tzinfo=UTC), "2026-Q1", date(2026, 1, 1)),
        (datetime(2026, 3, 31, 23, 59, tzinfo=UTC), "2026-Q1", date(2026, 1, 1)),
        (datetime(2026, 4, 1, tzinfo=UTC), "2026-Q2", date(2026, 4, 1)),
        (datetime(2026, 9, 30, 12, tzinfo=UTC), "2026-Q3", date(2026, 7, 1)),
        (datetime(2026, 12, 31, 23, 59, tzinfo=UTC), "2026-Q4", date(2026, 10, 1)),
    ],
)
def test_quarters_start_in_january_april_july_and_october(
    when: datetime, name: str, starts: date
) -> None:
    assert season_of(QUARTERLY, when) == Season(starts, name)


def test_with_seasons_off_a_game_counts_in_no_season() -> None:
    assert season_of(OFF, datetime(2026, 5, 5, tzinfo=UTC)) is None


def test_season_names_read_back_as_the_season_and_anything_else_is_none() -> None:
    assert parse_season("2026-10") == Season(date(2026, 10, 1), "2026-10")
    assert parse_season(" 2026-q3 ") == Season(date(2026, 7, 1), "2026-Q3")
    for bad in ("2026-13", "2026-00", "2026-Q5", "2026-Q0", "26-10", "October", "", "2026-1"):
        assert parse_season(bad) is None, bad
    # Every season a finish time falls in is found again by its name.
    for month in range(1, 13):
        for length in (MONTHLY, QUARTERLY):
            season = season_of(length, datetime(2026, month, 15, tzinfo=UTC))
            assert season is not None and parse_season(season.name) == season


def test_the_soft_reset_keeps_half_of_last_seasons_distance_from_the_start() -> None:
    assert soft_reset(START_RATING, None) == START_RATING
    assert soft_reset(1200.0, 1600.0) == 1400.0
    assert soft_reset(1200.0, 1000.0) == 1100.0
    assert soft_reset(1200.0, 1200.0) == 1200.0


def test_a_season_length_is_one_of_the_choices_and_a_stored_one_never_fails() -> None:
    assert parse_season_length(" Quarterly") is QUARTERLY
    with pytest.raises(UserError) as refused:
        parse_season_length("weekly")
    assert "monthly, quarterly, off" in str(refused.value)
    assert stored_length(None) is DEFAULT_SEASON_LENGTH is MONTHLY
    assert stored_length("off") is OFF
    assert stored_length("fortnightly") is DEFAULT_SEASON_LENGTH


def test_the_leaderboard_shows_the_current_season_by_default_and_all_time_when_seasons_are_off() -> None:
    now = datetime(2026, 11, 27, 19, 0, tzinfo=UTC)
    october = Season(date(2026, 10, 1), "2026-10")
    known = [october]
    assert chosen_season(None, MONTHLY, now, known) == Season(date(2026, 11, 1), "2026-11")
    assert chosen_season("  ", MONTHLY, now, known) == Season(date(2026, 11, 1), "2026-11")
    assert chosen_season(None, OFF, now, known) is None
    assert chosen_season(ALL_TIME, MONTHLY, now, known) is None
    assert chosen_season("2026-10", MONTHLY, now, known) == october
    # A past season stays viewable after the server set seasons off or changed their length.
    assert chosen_season("2026-10", OFF, now, known) == october
    assert chosen_season("2026-10", QUARTERLY, now, known) == october
    with pytest.raises(UserError) as refused:
        chosen_season("2026-09", MONTHLY, now, known)
    assert "2026-09" in str(refused.value)
    with pytest.raises(UserError) as refused:
        chosen_season("last month", MONTHLY, now, known)
    assert "2026-10" in str(refused.value) and "last month" in str(refused.value)
