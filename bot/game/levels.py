"""The operator's external engine as an AI level: whether it is offered, its name, its anchor
rating, and what stands in for it when the operator has removed it.

The wiring (bot.runtime) builds one ExternalLevel from the settings (CARO_ENGINE_*, read once at
start) and hands it to whatever asks: the option parsing, the rating policy, the game service,
the AI turns and the texts. A stored game keeps the seat's id ("external") whatever the settings
later say: with the engine gone, "impossible" plays the rest of the game, the board says so, and
the game is rated against impossible's anchor (the level that played it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.cpu.jobs import EXTERNAL_FALLBACK
from bot.game.model import AiLevel, External
from engine.game.types import Level, Rule

FALLBACK = Level(EXTERNAL_FALLBACK)
"""The level that plays the external engine's seat when the engine cannot, or is gone."""


@dataclass(frozen=True)
class ExternalEngineSettings:
    """CARO_ENGINE_*: an operator's piskvork-protocol brain, offered as an extra AI level."""

    command: tuple[str, ...]  # CARO_ENGINE_CMD, split like a shell would (no shell is run)
    name: str = "external engine"  # CARO_ENGINE_NAME: what players see
    rating: float = 2200.0  # CARO_ENGINE_RATING: its fixed anchor on the rating scale
    time_limit: float = 1.0  # CARO_ENGINE_TIME_LIMIT: seconds per move
    # The rules it plays, asked of it once at start (bot.runtime.preflight.check_engine).
    rules: frozenset[Rule] = frozenset(Rule)


@dataclass(frozen=True)
class ExternalLevel:
    """The external level as this process offers it: `engine` is the operator's engine, None
    when CARO_ENGINE_CMD is not set (then only games stored before still name the level)."""

    engine: ExternalEngineSettings | None = None

    @property
    def fallback(self) -> Level:
        """The level that plays in the engine's place."""
        return FALLBACK

    def offered(self) -> tuple[str, ...]:
        """The ids of the levels to add to caro's own: ("external",) when an engine is set up."""
        return (External.ENGINE.value,) if self.engine is not None else ()

    def plays(self, rule: Rule) -> bool:
        """Whether the engine is set up and plays games under `rule`."""
        return self.engine is not None and rule in self.engine.rules

    def anchor(self, level: AiLevel, anchors: Mapping[str, float]) -> float:
        """The fixed rating of `level` from caro's `anchors`, or the external engine's own."""
        if isinstance(level, Level):
            return anchors[level]
        return self.engine.rating if self.engine is not None else anchors[FALLBACK]

    def label(self, tr: Callable[..., str], level: AiLevel, *, playing: bool = True) -> str:
        """What players see for `level`: its translated name, or the external engine's
        configured name. With the engine gone, a board (`playing`) names the level that plays
        in its place; a record of past games just says "external engine"."""
        if isinstance(level, Level):
            return tr(f"level.{level.value}")
        if self.engine is not None:
            return self.engine.name
        if playing:
            return tr("level.external_gone", level=tr(f"level.{FALLBACK.value}"))
        return tr("level.external")


# A move the fallback made in the engine's seat is stored with its reason id behind this mark,
# so the board can say who played it: two players never share a seat unannounced.
STAND_IN = "stand_in:"


def stand_in(reason: str) -> str:
    """The stored reason of a move the fallback made in the engine's place."""
    return STAND_IN + reason


def played_by_stand_in(reason: str | None) -> bool:
    return reason is not None and reason.startswith(STAND_IN)


NO_ENGINE = ExternalLevel()
"""The external level of a process without CARO_ENGINE_CMD: never offered."""


__all__ = [
    "FALLBACK",
    "NO_ENGINE",
    "STAND_IN",
    "ExternalEngineSettings",
    "ExternalLevel",
    "played_by_stand_in",
    "stand_in",
]
