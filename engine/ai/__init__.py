"""The AI opponents: choose_move/analyse_move for the four levels, explain for move captions."""

from .explain import REASONS, explain
from .levels import DEFAULT_TIME_LIMITS, LEVELS, MoveInfo, analyse_move, choose_move


def warm_up() -> None:
    """Load the compiled search core (compiling it on a machine's first run) and run it once,
    so a player's first move does not pay for it: call it when an AI worker starts."""
    from .compiled import warm_up as core_warm_up

    core_warm_up()


__all__ = [
    "DEFAULT_TIME_LIMITS",
    "LEVELS",
    "REASONS",
    "MoveInfo",
    "analyse_move",
    "choose_move",
    "explain",
    "warm_up",
]
