"""caro's game engine: m,n,k boards, rules, notation, AI search and solver. Pure, synchronous Python."""

from importlib.metadata import PackageNotFoundError, version

from .game.board import Board, LegalMoves
from .game.renju import ForbiddenMoveError
from .game.types import (
    LEVELS,
    Cell,
    IllegalMoveError,
    InvalidMoveError,
    Level,
    Mark,
    MoveError,
    Outcome,
    Rule,
)
from .support import cores

try:
    __version__ = version("caro")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

# Before anything imports numba: it reads its CPU target and cache folder once, at import.
cores.configure_numba()


__all__ = [
    "LEVELS",
    "Board",
    "Cell",
    "ForbiddenMoveError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Level",
    "LegalMoves",
    "Mark",
    "MoveError",
    "Outcome",
    "Rule",
]
