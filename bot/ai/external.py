"""The operator's external engine as an AI level: whether it is offered, its name, its anchor
rating, and what stands in for it when the operator has removed it.

The settings are the process's (CARO_ENGINE_*, read once at start); the bot sets them here when
it is created, so that the pure parts (option parsing, the rating policy, the texts) can ask
without each being handed the settings. A stored game keeps the seat's id ("external") whatever
the settings later say: with the engine gone, "impossible" plays the rest of the game, the board
says so, and the game is rated against impossible's anchor (the level that played it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from bot.cpu.jobs import EXTERNAL_FALLBACK
from bot.game.model import AiLevel, External
from bot.runtime.config import ExternalEngineSettings
from engine.types import Level

FALLBACK = Level(EXTERNAL_FALLBACK)

_engine: ExternalEngineSettings | None = None


def configure(engine: ExternalEngineSettings | None) -> None:
    """Offer `engine` as the external level from now on (None: no external level)."""
    global _engine
    _engine = engine


def engine() -> ExternalEngineSettings | None:
    """The configured external engine, None when CARO_ENGINE_CMD is not set."""
    return _engine


def offered() -> tuple[str, ...]:
    """The ids of the levels to add to caro's own: ("external",) when an engine is set up."""
    return (External.ENGINE.value,) if _engine is not None else ()


def anchor(level: AiLevel, anchors: Mapping[str, float]) -> float:
    """The fixed rating of `level` from caro's `anchors`, or the external engine's own."""
    if isinstance(level, Level):
        return anchors[level]
    return _engine.rating if _engine is not None else anchors[FALLBACK]


def label(tr: Callable[..., str], level: AiLevel, *, playing: bool = True) -> str:
    """What players see for `level`: its translated name, or the external engine's configured
    name. With the engine gone, a board (`playing`) names the level that plays in its place; a
    record of past games just says "external engine"."""
    if isinstance(level, Level):
        return tr(f"level.{level.value}")
    if _engine is not None:
        return _engine.name
    if playing:
        return tr("level.external_gone", level=tr(f"level.{FALLBACK.value}"))
    return tr("level.external")
