"""Rating policy as pure functions: which games are rated, and how a result moves Elo ratings.

AI levels are players with fixed anchor ratings, so games against the AI count on the same
scale as games between members while the anchors themselves never move. The anchors are derived
from games measured between the levels (bot.game.ladder), with `normal` pinned at a new member's
starting rating. Storage only reads the current standings and writes what these functions
return, in the transaction that finishes the game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.game import ladder
from bot.game.levels import NO_ENGINE, ExternalLevel
from bot.game.model import GameRow, Mode, Result
from engine import Mark
from engine.game.types import Level

K_FACTOR = 32.0
START_RATING = 1200.0
# The ladder's fixed point: the level a new member is taken to be as strong as, so a member's
# Elo and the AI's anchors mean the same thing. The other levels follow from the games measured
# between the levels (bot.game.ladder: MEASURED and its fit), never from a number set by hand.
LADDER_PIN = Level.NORMAL
LADDER: dict[str, ladder.Rating] = ladder.fit(ladder.MEASURED, pin=LADDER_PIN, at=START_RATING)
# Each level's fitted rating rounded to 50. Keyed by Level, which is a str: the level's name (as
# typed in an option) finds it too.
AI_ANCHORS: dict[str, float] = ladder.anchors(LADDER)
SCORES: dict[Result, float] = {Result.WIN: 1.0, Result.DRAW: 0.5, Result.LOSS: 0.0}
# A member needs this many rated games in a mode to appear on its leaderboard: one lucky win
# must not put a newcomer on top.
LEADERBOARD_MIN_GAMES = 3
# The smallest k for which a game is rated: with k = 1 the first move wins, with k = 2 the first
# player wins on any board that holds a line of two.
MIN_RATED_K = 3


def rated(mode: Mode, rows: int, cols: int, k: int) -> bool:
    """Whether a game counts for ratings and stats.

    A game is rated iff a member plays in it (not a watch), k >= 3 and both sides of the board
    hold a line of k (min(rows, cols) >= k). Smaller games cannot be lost by the side that
    moves first or cannot be won at all, so they would hand out free rating points (25 one-click
    wins on a 1x1 board against "impossible" once topped the global AI leaderboard).
    """
    return mode is not Mode.WATCH and k >= MIN_RATED_K and min(rows, cols) >= k


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))


def updated(rating: float, opponent: float, result: Result | str, k: float = K_FACTOR) -> float:
    """The rating after one game with `result` ("win", "draw" or "loss") against `opponent`."""
    try:
        score = SCORES[Result(result)]
    except ValueError:
        choices = ", ".join(SCORES)
        raise ValueError(f"result must be one of {choices}, not {result!r}") from None
    return rating + k * (score - expected_score(rating, opponent))


def nearest_level(rating: float) -> Level:
    """The AI level whose anchor is closest to `rating` (the weaker one on a tie)."""
    return Level(
        min(AI_ANCHORS, key=lambda level: (abs(AI_ANCHORS[level] - rating), AI_ANCHORS[level]))
    )


@dataclass(frozen=True, slots=True)
class RatingUpdate:
    """One member's new rating and the result it counts, in one scope."""

    user_id: int
    result: Result
    before: float
    after: float


def result_for(winner: Mark | None, mark: Mark) -> Result:
    if winner is None:
        return Result.DRAW
    return Result.WIN if winner is mark else Result.LOSS


def game_updates(
    game: GameRow,
    winner: Mark | None,
    current: Mapping[int, float],
    external: ExternalLevel = NO_ENGINE,
) -> list[RatingUpdate]:
    """The rating updates of the members of a finished game, in one scope, from `current` (each
    member's rating before it; a member missing from it starts at START_RATING). Empty for an
    unrated game: nothing moves. `external` gives the external engine's seat its anchor."""
    if not game.rated:
        return []
    updates: list[RatingUpdate] = []
    for mark in (Mark.X, Mark.O):
        seat = game.seat(mark)
        if not isinstance(seat, int):
            continue
        other = game.seat(mark.other)
        before = current.get(seat, START_RATING)
        opponent = (
            current.get(other, START_RATING)
            if isinstance(other, int)
            else external.anchor(other, AI_ANCHORS)
        )
        result = result_for(winner, mark)
        updates.append(RatingUpdate(seat, result, before, updated(before, opponent, result)))
    return updates
