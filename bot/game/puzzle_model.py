"""Puzzles as the bot keeps them: the stored puzzle, a member's attempt (the session while it is
open), the member's puzzle standing, and the rating policy as pure functions.

The rating is Weng-Lin's (openskill's Plackett-Luce model): each member and each puzzle has a
mean (mu) and an uncertainty (sigma), and a solve is a win of the member over the puzzle. Plain
Elo has one number and a fixed step; here a new member's first few puzzles move their rating a
lot and a settled one's little, a puzzle's rating starts from its proof's difficulty with a
modest uncertainty and learns from every member, and the leaderboard ranks by the conservative
rating mu - 3 sigma, so a member with two lucky solves does not top it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from openskill.models import PlackettLuce

from engine import Board, Mark
from engine.analysis.puzzles import ProofKind, Puzzle

START_MU = 25.0
START_SIGMA = START_MU / 3.0
# A puzzle's prior: its difficulty (attacking moves + defences the proof answers) placed on the
# members' scale around the difficulty of a typical mined puzzle, with less doubt than a member's.
TYPICAL_DIFFICULTY = 12
MU_PER_DIFFICULTY = 1.5
PUZZLE_SIGMA = 5.0
# Rated attempts a member needs to appear on the puzzle leaderboard.
LEADERBOARD_MIN_ATTEMPTS = 3
# The conservative rating: mu less this many sigmas.
CONSERVATIVE_SIGMAS = 3.0

_MODEL = PlackettLuce(mu=START_MU, sigma=START_SIGMA)


class AttemptKind(StrEnum):
    NEW = "new"  # /caro puzzle play: a new one at the member's level
    DAILY = "daily"  # the server's puzzle of the day
    RETRY = "retry"  # one the member failed before


class AttemptOutcome(StrEnum):
    OPEN = "open"
    SOLVED = "solved"
    FAILED = "failed"
    ABANDONED = "abandoned"  # another puzzle was opened before this one ended: not rated


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        return self.mu - CONSERVATIVE_SIGMAS * self.sigma


def puzzle_prior(difficulty: int) -> Skill:
    """A new puzzle's rating, from its proof's difficulty."""
    return Skill(START_MU + MU_PER_DIFFICULTY * (difficulty - TYPICAL_DIFFICULTY), PUZZLE_SIGMA)


def rate_attempt(member: Skill, puzzle: Skill, solved: bool) -> tuple[Skill, Skill]:
    """(member after, puzzle after) for one rated attempt: a solve is the member's win."""
    me = _MODEL.rating(mu=member.mu, sigma=member.sigma)
    it = _MODEL.rating(mu=puzzle.mu, sigma=puzzle.sigma)
    ranks = [1.0, 2.0] if solved else [2.0, 1.0]
    [[me_after], [it_after]] = _MODEL.rate([[me], [it]], ranks=ranks)
    return Skill(me_after.mu, me_after.sigma), Skill(it_after.mu, it_after.sigma)


@dataclass(frozen=True, slots=True)
class NewPuzzle:
    """A proven puzzle to store, with its starting rating."""

    puzzle: Puzzle
    skill: Skill

    @classmethod
    def of(cls, puzzle: Puzzle) -> NewPuzzle:
        return cls(puzzle, puzzle_prior(puzzle.difficulty))


@dataclass(frozen=True, slots=True)
class PuzzleRow:
    id: int
    guild_id: int | None  # None: the shared set
    puzzle: Puzzle
    skill: Skill

    def board(self) -> Board:
        return self.puzzle.board()

    @property
    def attacker(self) -> Mark:
        return self.puzzle.to_move

    @property
    def kind(self) -> ProofKind:
        return self.puzzle.kind


@dataclass(frozen=True, slots=True)
class NewAttempt:
    guild_id: int
    channel_id: int
    user_id: int
    puzzle_id: int
    kind: AttemptKind
    locale: str
    started_at: float


@dataclass(frozen=True, slots=True)
class AttemptRow:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    user_id: int
    puzzle_id: int
    kind: AttemptKind
    locale: str
    outcome: AttemptOutcome
    moves: tuple[str, ...]  # played since the puzzle's position, both sides, cell names
    rated: bool
    started_at: float
    finished_at: float | None

    @property
    def open(self) -> bool:
        return self.outcome is AttemptOutcome.OPEN


@dataclass(frozen=True, slots=True)
class PuzzleStanding:
    """A member's puzzle rating in one server: rated attempts and streaks."""

    user_id: int
    skill: Skill
    solved: int = 0
    failed: int = 0
    streak: int = 0
    best_streak: int = 0

    @property
    def attempts(self) -> int:
        return self.solved + self.failed


def new_standing(user_id: int) -> PuzzleStanding:
    return PuzzleStanding(user_id, Skill(START_MU, START_SIGMA))


@dataclass(frozen=True, slots=True)
class AttemptResult:
    """A finished attempt as its write left it; `before`/`after` are the member's standing
    around it (equal when it was not rated)."""

    attempt: AttemptRow
    before: PuzzleStanding
    after: PuzzleStanding


def after_attempt(standing: PuzzleStanding, puzzle: Skill, solved: bool) -> tuple[
    PuzzleStanding, Skill
]:
    """The member's standing and the puzzle's rating after one rated attempt."""
    skill, puzzle_after = rate_attempt(standing.skill, puzzle, solved)
    streak = standing.streak + 1 if solved else 0
    return (
        PuzzleStanding(
            standing.user_id,
            skill,
            solved=standing.solved + int(solved),
            failed=standing.failed + int(not solved),
            streak=streak,
            best_streak=max(standing.best_streak, streak),
        ),
        puzzle_after,
    )


__all__ = [
    "CONSERVATIVE_SIGMAS",
    "LEADERBOARD_MIN_ATTEMPTS",
    "AttemptKind",
    "AttemptOutcome",
    "AttemptResult",
    "AttemptRow",
    "NewAttempt",
    "NewPuzzle",
    "PuzzleRow",
    "PuzzleStanding",
    "Skill",
    "after_attempt",
    "new_standing",
    "puzzle_prior",
    "rate_attempt",
]
