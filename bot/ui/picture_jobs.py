"""The drawing jobs the CPU pool runs for the UI: a replay's animation, a review's pictures,
the pictures that explain a rule, a tournament's standings and a member's rating chart.

Plain top-level functions of plain arguments, so a worker process can unpickle them: a long
game on a big board takes over a second to draw, which must not happen on the bot's event loop.
"""

from __future__ import annotations

from bot.game.model import Mode, RatingLine
from bot.ui.pictures import DEFAULT_THEME, render_replay, render_turning_point
from bot.ui.rating_chart import rating_chart
from bot.ui.rule_pictures import RuleTopic
from bot.ui.rule_pictures import rule_picture as draw_rule
from bot.ui.standings_picture import StandingLine, standings_picture
from engine import Board


def replay_gif(board_text: str, players: tuple[str, str], theme: str = DEFAULT_THEME) -> bytes:
    """The animated replay of the game on `board_text`, in `theme`."""
    return render_replay(Board.from_text(board_text), players=players, theme=theme)


def turning_point_pictures(
    board_text: str,
    points: list[tuple[int, tuple[int, int] | None]],
    players: tuple[str, str],
    theme: str = DEFAULT_THEME,
) -> list[bytes]:
    """The picture of each (ply, better move) of a review, in order, in `theme`."""
    game = Board.from_text(board_text)
    return [
        render_turning_point(game, ply, better, players=players, theme=theme)
        for ply, better in points
    ]


def rule_picture(topic: str, locale: str, theme: str = DEFAULT_THEME) -> bytes:
    """The picture /caro help shows for the rule `topic`, captioned in `locale`."""
    return draw_rule(RuleTopic(topic), locale, theme)


# A standings row as plain values, in StandingLine's field order (dataclasses.astuple of one):
# rank, name, points, Buchholz, Sonneborn-Berger, games, withdrawn.
StandingRow = tuple[int, str, str, str, str, int, bool]


def standings_job(
    title: str,
    subtitle: str,
    headers: tuple[str, str, str, str, str, str],
    rows: list[StandingRow],
    theme: str = DEFAULT_THEME,
) -> bytes:
    """The standings picture of a tournament (bot.ui.standings_picture) from plain rows."""
    return standings_picture(title, subtitle, headers, [StandingLine(*row) for row in rows], theme)


# A rating line as plain values, in RatingLine's field order: mode, season (None: all time),
# the ratings oldest first.
ChartLine = tuple[str, str | None, tuple[float, ...]]


def chart_rows(lines: list[RatingLine]) -> list[ChartLine]:
    """Rating lines as the plain values rating_chart_job takes."""
    return [(line.mode.value, line.season, line.ratings) for line in lines]


def rating_chart_job(lines: list[ChartLine], locale: str, theme: str = DEFAULT_THEME) -> bytes:
    """A member's rating chart (bot.ui.rating_chart) from plain lines, labelled in `locale`."""
    return rating_chart(
        [RatingLine(Mode(mode), season, tuple(ratings)) for mode, season, ratings in lines],
        locale,
        theme,
    )


__all__ = [
    "ChartLine",
    "StandingRow",
    "chart_rows",
    "rating_chart_job",
    "replay_gif",
    "rule_picture",
    "standings_job",
    "turning_point_pictures",
]
