"""What members see of a tournament: the summary line of its announcement."""

from __future__ import annotations

from bot.game.pairings import Format
from bot.game.tournament_model import TournamentRow, TournamentStatus
from bot.ui.tournaments import summary_line, translator
from engine.game.openings import Opening


def _row() -> TournamentRow:
    return TournamentRow(
        id=2, guild_id=1, channel_id=1, message_id=None, created_by=7, format=Format.SWISS,
        rounds=1, minutes=None, max_players=8, rows=4, cols=4, k=3, rule="freestyle",
        opening=Opening.FREE, turn_seconds=120.0, rated=False, starts_at=0.0, locale="en-US",
        status=TournamentStatus.OPEN, round=0, announced=0, started_at=None, ends_at=None,
        finished_at=None,
    )


def test_the_summary_writes_the_size_as_boards_do() -> None:
    english = summary_line(_row(), translator("en-US"))
    assert "4x4, 3 in a row" in english and "×" not in english
    vietnamese = summary_line(_row(), translator("vi"))
    assert "4x4, 3 quân liên tiếp" in vietnamese and "×" not in vietnamese
    assert "Thụy Sĩ, số vòng: 1" in vietnamese
