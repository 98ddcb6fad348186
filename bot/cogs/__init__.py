"""The features of the bot, one cog each: its slash commands (under `/caro`), its buttons and
their handlers. To add a feature, write a cog module here and list its class in FEATURES; its
commands join the `/caro` group, and its `@answers(Spec)` methods answer its buttons through the
one router (bot.ui.buttons.Router)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from discord.ext import commands

from bot.cogs.blocks import BlocksCog
from bot.cogs.board import BoardCog
from bot.cogs.challenge import ChallengeCog
from bot.cogs.clocks import ClocksCog
from bot.cogs.controls import ControlsCog
from bot.cogs.help import HelpCog
from bot.cogs.history import HistoryCog
from bot.cogs.openings import OpeningsCog
from bot.cogs.outbox import OutboxCog
from bot.cogs.play import PlayCog
from bot.cogs.puzzle import PuzzleCog
from bot.cogs.queue import QueueCog
from bot.cogs.replay import ReplayCog
from bot.cogs.review import ReviewCog
from bot.cogs.settings import SettingsCog
from bot.cogs.stats import StatsCog
from bot.cogs.takeback import TakebackCog
from bot.cogs.tournament import TournamentCog
from bot.cogs.watch import WatchCog

if TYPE_CHECKING:
    from bot.cogs.host import Host

# In the order their commands are listed under /caro.
FEATURES: tuple[Callable[[Host], commands.Cog], ...] = (
    PlayCog,
    ChallengeCog,
    QueueCog,
    BlocksCog,
    WatchCog,
    ControlsCog,
    TakebackCog,
    OpeningsCog,
    BoardCog,
    SettingsCog,
    StatsCog,
    ReplayCog,
    ReviewCog,
    HistoryCog,
    PuzzleCog,
    TournamentCog,
    HelpCog,
    ClocksCog,
    OutboxCog,
)

__all__ = [
    "FEATURES",
    "BlocksCog",
    "BoardCog",
    "ChallengeCog",
    "ClocksCog",
    "ControlsCog",
    "HelpCog",
    "HistoryCog",
    "OpeningsCog",
    "OutboxCog",
    "PlayCog",
    "PuzzleCog",
    "QueueCog",
    "ReplayCog",
    "ReviewCog",
    "SettingsCog",
    "StatsCog",
    "TakebackCog",
    "TournamentCog",
    "WatchCog",
]
