"""The AI levels' ladder: their strength measured in games against each other (and against an
outside engine), and one rating per player on one Elo scale fitted from those games.

MEASURED is the table `python -m bench.ladder` prints: who played whom, how many games, with what
result, and in what conditions. `fit` turns it into ratings; bot.game.ratings pins one level at a
member's starting rating and derives the AI levels' anchors from the fit, so a new measurement
moves the anchors, the adaptive level and /caro help together (docs/engine/levels.md#the-ladder).

The method, a Bradley-Terry (Elo) maximum-likelihood fit: each player's rating makes the expected
score of every pairing 1 / (1 + 10^((b - a) / 400)), draws count half a win, and the ratings are
those that make the measured results most likely, with every pairing given one extra drawn game
(PRIOR_DRAWS: a weak prior towards equal strength), so a clean sweep still has a finite rating.
The 95% interval of each rating is 1.96 standard errors from the fit's curvature (its Fisher
information) at the fitted ratings, relative to the pinned player, whose rating is exact by
definition.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.game.types import Level

Z95 = 1.959963984540054  # two-sided 95% normal quantile
# Elo points per natural-log unit of odds: a difference d predicts odds of 10^(d/400).
ELO_PER_LOGIT = 400.0 / math.log(10.0)
# Drawn games added to every pairing before the fit: a weak prior towards equal strength that
# keeps a 100% or 0% score finite (n games scored s count as s + 1/2 out of n + 1).
PRIOR_DRAWS = 1
# Anchors are rounded to this: the fit's intervals are wider than any finer step.
ROUND_TO = 50.0


@dataclass(frozen=True, slots=True)
class Pairing:
    """The games between two players: `first`'s wins, draws and losses against `second`."""

    first: str
    second: str
    wins: int
    draws: int
    losses: int
    conditions: str = ""  # the board, the time a move, the date and the machine's load

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """`first`'s points: a win 1, a draw 1/2."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """`first`'s share of the points, 0..1."""
        return self.points / self.games

    def elo(self) -> tuple[float, float]:
        """`first`'s Elo difference over `second` from these games alone, and its 95% half-width
        (the two-player case of `fit`)."""
        fitted = fit([self], pin=self.second, at=0.0)[self.first]
        return fitted.rating, fitted.error


@dataclass(frozen=True, slots=True)
class Rating:
    name: str
    rating: float
    error: float  # 95% half-width, relative to the pinned player
    games: int  # measured games (the prior's draws not counted)


# The board the ladder is measured on (the one people play most), as /caro help names it.
LADDER_SIZE = "15x15"

# 15x15 freestyle, each level at its own default time a move (DEFAULT_TIME_LIMITS: what players meet),
# random openings of 2 stones each played with both colours, one game at a time; impossible@0.002
# and impossible@0.01 are impossible at 0.002 s and 0.01 s a move, bridges: impossible beats
# hard in (nearly) every game, a score that bounds their gap from below only, and the bridges
# lose games to their neighbours, which ties the two together. Rapfi (the Gomocup champion's engine, GPL-3.0,
# never part of caro) at full strength with its classical evaluation, 1 s a move for both, from
# docs/benchmarks.md ("Impossible against Rapfi").
# Re-measure with `python -m bench.ladder` and paste the table it prints here.
MEASURED: tuple[Pairing, ...] = (
    Pairing(Level.NORMAL, Level.EASY, 194, 0, 6,
            "15x15 k5 freestyle, default times, openings 2, 2026-12-01, load 0.1-0.3"),
    Pairing(Level.HARD, Level.NORMAL, 161, 0, 39,
            "15x15 k5 freestyle, default times, openings 2, 2026-12-01, load 0.3-0.4"),
    Pairing(Level.HARD, Level.EASY, 100, 0, 0,
            "15x15 k5 freestyle, default times, openings 2, 2026-12-01, load 0.4-0.4"),
    Pairing(Level.IMPOSSIBLE, Level.HARD, 97, 0, 3,
            "15x15 k5 freestyle, default times, openings 2, 2026-12-01, load 0.4-1.0"),
    Pairing("impossible@0.002", Level.HARD, 82, 1, 17,
            "15x15 k5 freestyle, default times, openings 2, 2026-12-01, load 1.0-1.0"),
    Pairing("impossible@0.01", Level.HARD, 99, 0, 1,
            "15x15 k5 freestyle, default times, openings 2, 2026-12-01, load 1.0-1.0"),
    Pairing("impossible@0.01", "impossible@0.002", 70, 3, 27,
            "15x15 k5 freestyle, default times, openings 2, 2026-12-01, load 1.0-1.0"),
    Pairing(Level.IMPOSSIBLE, "impossible@0.01", 54, 0, 46,
            "15x15 k5 freestyle, default times, openings 2, 2026-12-01, load 1.0-1.0"),
    Pairing("rapfi", Level.IMPOSSIBLE, 76, 0, 24,
            "15x15 freestyle, 1 s a move, balanced openings of 3, 2026-12-01, load 2"),
)


def players(pairings: Iterable[Pairing]) -> list[str]:
    """Every player named in `pairings`, in order of first appearance."""
    names: dict[str, None] = {}
    for pairing in pairings:
        names.setdefault(pairing.first, None)
        names.setdefault(pairing.second, None)
    return list(names)


def fit(pairings: Sequence[Pairing], *, pin: str, at: float,
        prior_draws: int = PRIOR_DRAWS) -> dict[str, Rating]:
    """Every player's rating from `pairings` by the module's method, with `pin` held at `at`.

    Raises ValueError when a player is not connected to `pin` by games (its rating would mean
    nothing on this scale) or a pairing has no games or a player against itself."""
    names = players(pairings)
    if pin not in names:
        raise ValueError(f"the pinned player {pin!r} plays in none of the pairings")
    for pairing in pairings:
        if pairing.first == pairing.second:
            raise ValueError(f"{pairing.first!r} cannot be paired with itself")
        if min(pairing.wins, pairing.draws, pairing.losses) < 0 or pairing.games == 0:
            raise ValueError(f"{pairing.first} v {pairing.second}: no games to rate")
    _check_connected(pairings, names, pin)
    free = [name for name in names if name != pin]
    index = {name: i for i, name in enumerate(free)}
    # Ratings in logits (natural-log odds) relative to the pin while fitting.
    theta = [0.0] * len(free)

    def value(name: str) -> float:
        return 0.0 if name == pin else theta[index[name]]

    def curvature() -> tuple[list[float], list[list[float]]]:
        """The log-likelihood's gradient and its negative Hessian over the free ratings."""
        gradient = [0.0] * len(free)
        info = [[0.0] * len(free) for _ in free]
        for pairing in pairings:
            n = pairing.games + prior_draws
            s = pairing.points + 0.5 * prior_draws
            p = 1.0 / (1.0 + math.exp(value(pairing.second) - value(pairing.first)))
            residual, weight = s - n * p, n * p * (1.0 - p)
            for name, sign in ((pairing.first, 1.0), (pairing.second, -1.0)):
                if name != pin:
                    gradient[index[name]] += sign * residual
            for a, sa in ((pairing.first, 1.0), (pairing.second, -1.0)):
                for b, sb in ((pairing.first, 1.0), (pairing.second, -1.0)):
                    if a != pin and b != pin:
                        info[index[a]][index[b]] += sa * sb * weight
        return gradient, info

    # Newton's method; the likelihood is strictly concave (every player connected to the pin,
    # every pairing holding a draw), so it converges; a step is capped so a first guess far off
    # cannot overshoot.
    for _ in range(200):
        gradient, info = curvature()
        step = _solve(info, gradient)
        theta = [t + max(-2.0, min(2.0, d)) for t, d in zip(theta, step, strict=True)]
        if max((abs(d) for d in step), default=0.0) < 1e-12:
            break
    _, info = curvature()
    covariance = _inverse(info)
    games = {name: 0 for name in names}
    for pairing in pairings:
        games[pairing.first] += pairing.games
        games[pairing.second] += pairing.games
    result = {pin: Rating(pin, at, 0.0, games[pin])}
    for name, i in index.items():
        result[name] = Rating(
            name,
            at + ELO_PER_LOGIT * theta[i],
            Z95 * ELO_PER_LOGIT * math.sqrt(covariance[i][i]),
            games[name],
        )
    return {name: result[name] for name in names}


def is_level(name: str) -> bool:
    """Whether `name` is one of caro's levels, at its own time a move or another (LEVEL@SECONDS,
    a bridge between levels)."""
    return name.partition("@")[0] in {level.value for level in Level}


def games_between_levels(pairings: Iterable[Pairing]) -> int:
    """The games in `pairings` that caro's levels played among themselves."""
    return sum(p.games for p in pairings if is_level(p.first) and is_level(p.second))


def head_to_head(pairings: Iterable[Pairing], first: str, second: str) -> Pairing | None:
    """Every game between `first` and `second` in `pairings`, from `first`'s side; None if they
    never met."""
    wins = draws = losses = 0
    met = False
    for pairing in pairings:
        if (pairing.first, pairing.second) == (first, second):
            wins, draws, losses = wins + pairing.wins, draws + pairing.draws, losses + pairing.losses
        elif (pairing.first, pairing.second) == (second, first):
            wins, draws, losses = wins + pairing.losses, draws + pairing.draws, losses + pairing.wins
        else:
            continue
        met = True
    return Pairing(first, second, wins, draws, losses) if met else None


def rounded(rating: float, step: float = ROUND_TO) -> float:
    """`rating` to the nearest multiple of `step` (a half step rounds up)."""
    return step * math.floor(rating / step + 0.5)


def anchors(ratings: Mapping[str, Rating], levels: Iterable[str] = tuple(Level)) -> dict[str, float]:
    """The fixed rating of each AI level: its fitted rating, rounded to ROUND_TO."""
    return {level: rounded(ratings[level].rating) for level in levels}


def _check_connected(pairings: Iterable[Pairing], names: list[str], pin: str) -> None:
    links: dict[str, set[str]] = {name: set() for name in names}
    for pairing in pairings:
        links[pairing.first].add(pairing.second)
        links[pairing.second].add(pairing.first)
    seen, todo = {pin}, [pin]
    while todo:
        for other in links[todo.pop()] - seen:
            seen.add(other)
            todo.append(other)
    if missing := [name for name in names if name not in seen]:
        raise ValueError(f"{', '.join(missing)} played no games connecting them to {pin!r}")


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """x with matrix @ x = vector (Gaussian elimination with partial pivoting; tiny systems)."""
    n = len(vector)
    rows = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-300:
            raise ValueError("the ladder's games do not determine every rating")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[columns[c][r] for c in range(n)] for r in range(n)]
