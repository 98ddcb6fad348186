"""The names the UI imports from before the game model, the options and the service had modules
of their own (bot/model.py, bot/options.py, bot/service.py)."""

from __future__ import annotations

from engine.types import LEVELS

from .errors import UserError
from .model import ActiveGameExists, GameState, MoveRef, load_state
from .options import (
    CHALLENGE_FIRSTS,
    DIFFICULTIES,
    FIRSTS,
    MAX_TIMEOUT,
    PRESET_RULES,
    RULES,
    SIZES,
    GameOptions,
    difficulties,
    parse_options,
    parse_size,
    parse_timeout,
)
from .service import (
    CHALLENGE_SECONDS,
    DEFAULT_LIMITS,
    DEFAULT_TIMEOUTS,
    HINT_LEVELS,
    GameService,
    Hint,
    Limits,
    ai_seed,
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
