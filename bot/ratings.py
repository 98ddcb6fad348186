"""Elo ratings: every finished game between two rated sides moves both ratings.

AI levels are players with fixed anchor ratings, so games against the AI count on the same
scale as games between people while the anchors themselves never move.
"""

from __future__ import annotations

K_FACTOR = 32.0
START_RATING = 1200.0
AI_ANCHORS: dict[str, float] = {
    "easy": 800.0,
    "normal": 1200.0,
    "hard": 1600.0,
    "impossible": 2000.0,
}
SCORES: dict[str, float] = {"win": 1.0, "draw": 0.5, "loss": 0.0}
# A player needs this many rated games in a mode to appear on its leaderboard: one lucky win
# must not put a newcomer on top.
LEADERBOARD_MIN_GAMES = 3


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def updated(rating: float, opponent: float, result: str, k: float = K_FACTOR) -> float:
    """The rating after one game with `result` ("win", "draw" or "loss") against `opponent`."""
    try:
        score = SCORES[result]
    except KeyError:
        raise ValueError(f"result must be one of {', '.join(SCORES)}, not {result!r}") from None
    return rating + k * (score - expected_score(rating, opponent))


def nearest_level(rating: float) -> str:
    """The AI level whose anchor is closest to `rating` (the weaker one on a tie)."""
    return min(AI_ANCHORS, key=lambda level: (abs(AI_ANCHORS[level] - rating), AI_ANCHORS[level]))
