"""The AI opponents: choose_move/analyse_move for the four levels, explain for move captions."""

from .explain import REASONS, explain
from .levels import DEFAULT_TIME_LIMITS, LEVELS, MoveInfo, analyse_move, choose_move

__all__ = [
    "DEFAULT_TIME_LIMITS",
    "LEVELS",
    "REASONS",
    "MoveInfo",
    "analyse_move",
    "choose_move",
    "explain",
]
