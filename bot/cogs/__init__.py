"""The features of the bot, one cog each: its slash commands (under `/caro`), its buttons and
their handlers. To add a feature, write a cog module here and list its class in FEATURES; its
commands join the `/caro` group, and its `@answers(Spec)` methods answer its buttons through the
one router (bot.items.Router)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from discord.ext import commands

from .challenge import ChallengeCog
from .clocks import ClocksCog
from .controls import ControlsCog
from .help import HelpCog
from .history import HistoryCog
from .play import PlayCog
from .replay import ReplayCog
from .review import ReviewCog
from .settings import SettingsCog
from .stats import StatsCog
from .watch import WatchCog

if TYPE_CHECKING:
    from .host import Host

# In the order their commands are listed under /caro.
FEATURES: tuple[Callable[[Host], commands.Cog], ...] = (
    PlayCog,
    ChallengeCog,
    WatchCog,
    ControlsCog,
    SettingsCog,
    StatsCog,
    ReplayCog,
    ReviewCog,
    HistoryCog,
    HelpCog,
    ClocksCog,
)

__all__ = [
    "FEATURES",
    "ChallengeCog",
    "ClocksCog",
    "ControlsCog",
    "HelpCog",
    "HistoryCog",
    "PlayCog",
    "ReplayCog",
    "ReviewCog",
    "SettingsCog",
    "StatsCog",
    "WatchCog",
]
