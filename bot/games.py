"""The cell buttons' custom_id format, and the names the UI imports from before the game model
and the service had modules of their own (bot/model.py, bot/service.py)."""

from __future__ import annotations

import re

from engine.notation import cell_name
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
    parse_options,
    parse_size,
    parse_timeout,
)

# caro:m:<game id>:<ply>:<cell>; the ply is the number of moves already played when the board
# was drawn, so a click from an older drawing of the board is recognised as stale.
CUSTOM_ID = re.compile(
    r"caro:m:(?P<game>[1-9][0-9]{0,17}):(?P<ply>0|[1-9][0-9]{0,2}):(?P<cell>[A-Z][1-9][0-9]?)"
)


def custom_id(game_id: int, ply: int, cell: tuple[int, int]) -> str:
    return f"caro:m:{game_id}:{ply}:{cell_name(cell)}"


def parse_custom_id(text: str) -> MoveRef:
    match = CUSTOM_ID.fullmatch(text)
    if match is None:
        raise UserError("click.forged")
    return MoveRef(int(match["game"]), int(match["ply"]), match["cell"])


__all__ = [
    "ActiveGameExists",
    "CHALLENGE_FIRSTS",
    "CHALLENGE_SECONDS",
    "CUSTOM_ID",
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
    "custom_id",
    "load_state",
    "parse_custom_id",
    "parse_options",
    "parse_size",
    "parse_timeout",
]
