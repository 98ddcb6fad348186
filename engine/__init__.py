"""caro's game engine: m,n,k boards, rules, notation, AI search and solver. Pure, synchronous Python."""

from .board import Board, LegalMoves
from .types import Cell, IllegalMoveError, InvalidMoveError, Mark, MoveError, Outcome, Rule

__all__ = [
    "Board",
    "Cell",
    "IllegalMoveError",
    "InvalidMoveError",
    "LegalMoves",
    "Mark",
    "MoveError",
    "Outcome",
    "Rule",
]
