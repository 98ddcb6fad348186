"""Small value types shared by the whole engine: marks, rules, AI levels, outcomes and move
errors. Light on purpose: the bot and the command line import it without loading the search."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum, StrEnum
from typing import TypeVar

Cell = tuple[int, int]

# Error messages quote at most this much of what was typed: hostile input runs to thousands of
# characters, and the message is shown back in Discord and written to logs.
QUOTE_LIMIT = 20


def quoted(value: object) -> str:
    """repr() of user input, cut to QUOTE_LIMIT characters with "…" after the quote if longer."""
    if isinstance(value, str):
        if len(value) <= QUOTE_LIMIT:
            return repr(value)
        return repr(value[:QUOTE_LIMIT]) + "…"
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + "…"


E = TypeVar("E", bound=Enum)


def parse_named(cls: type[E], text: str, what: str) -> E:
    """The member of the enum `cls` whose value is `text`, case-insensitive and stripped;
    ValueError naming `what` and listing the choices otherwise."""
    try:
        # A non-string (None from a missing option) deserves the same helpful message.
        return cls(text.strip().lower() if isinstance(text, str) else text)
    except ValueError:
        choices = ", ".join(str(member.value) for member in cls)
        raise ValueError(f"unknown {what} {quoted(text)}: choose one of {choices}") from None


class Mark(IntEnum):
    """A stone. The integer values are what the board stores internally (0 is an empty cell)."""

    X = 1
    O = 2  # noqa: E741 - the name of the mark is the letter

    @property
    def other(self) -> Mark:
        return Mark.O if self is Mark.X else Mark.X

    def __str__(self) -> str:
        return self.name


class Rule(Enum):
    """Which lines of k count as a win."""

    FREESTYLE = "freestyle"  # k or more in a row
    EXACT = "exact"  # exactly k; an overline does not win
    CARO = "caro"  # exactly k, and not blocked by the opponent at both ends
    # Five in a row (k must be 5): X (black) wins with exactly five and may not play a
    # double-three, a double-four or an overline (engine.game.renju); O (white) wins with five or more.
    RENJU = "renju"

    def for_mark(self, mark: int) -> Rule:
        """The rule a line of `mark`'s is judged by: renju judges black's as exact and white's
        as freestyle; every other rule is the same for both sides."""
        if self is Rule.RENJU:
            return Rule.EXACT if mark == 1 else Rule.FREESTYLE
        return self

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Rule from its name, case-insensitive; ValueError listing the choices otherwise."""
        return parse_named(cls, text, "rule")

    def __str__(self) -> str:
        return self.value


class Level(StrEnum):
    """The AI ladder, weakest first: the one definition of the level names (a StrEnum, so each
    member is also its name as a string, as stored in databases and shown in commands)."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
    IMPOSSIBLE = "impossible"

    @classmethod
    def parse(cls, text: str) -> Level:
        """Level from its name, case-insensitive; ValueError listing the choices otherwise."""
        return parse_named(cls, text, "AI level")


LEVELS: tuple[Level, ...] = tuple(Level)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended. `winner` is None for a draw; `line` is empty then."""

    winner: Mark | None
    line: tuple[Cell, ...] = ()

    @property
    def is_draw(self) -> bool:
        return self.winner is None


class MoveError(ValueError):
    """Base class of every error about a move."""


class InvalidMoveError(MoveError):
    """The text does not name a cell of this board (e.g. "Z99", "", "8H")."""


class IllegalMoveError(MoveError):
    """The cell exists but cannot be played now (occupied, or the game is over)."""
