"""The names the UI imports from before the game model and the service had modules of their own
(bot/model.py, bot/service.py)."""

from __future__ import annotations

from engine.types import LEVELS

from .model import ActiveGameExists, GameState, MoveRef, load_state
from .service import (
    CHALLENGE_FIRSTS,
    CHALLENGE_SECONDS,
    DEFAULT_LIMITS,
    DEFAULT_TIMEOUTS,
    DIFFICULTIES,
    FIRSTS,
    HINT_LEVELS,
    MAX_TIMEOUT,
    PRESET_RULES,
    RULES,
    SIZES,
    GameOptions,
    GameService,
    Hint,
    Limits,
    UserError,
    ai_seed,
    difficulties,
    parse_options,
    parse_size,
    parse_timeout,
)

__all__ = [
    "ActiveGameExists",
    "CHALLENGE_FIRSTS",
    "CHALLENGE_SECONDS",
    "DEFAULT_LIMITS",
    "DEFAULT_TIMEOUTS",
    "DIFFICULTIES",
    "FIRSTS",
    "GameOptions",
    "GameService",
    "GameState",
    "HINT_LEVELS",
    "Hint",
    "LEVELS",
    "Limits",
    "MAX_TIMEOUT",
    "MoveRef",
    "PRESET_RULES",
    "RULES",
    "SIZES",
    "UserError",
    "ai_seed",
    "difficulties",
    "load_state",
    "parse_options",
    "parse_size",
    "parse_timeout",
]
