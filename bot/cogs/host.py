"""What the feature cogs use of the bot, and nothing more: they are typed against this, not the
bot's class, so the wiring (bot/runtime/client.py) can import them without them importing it back."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

import discord
from discord.ext import commands

from bot.ai.turn import AiTurns
from bot.game.blocks import Blocks
from bot.game.challenges import ChallengeService
from bot.game.clocks import Clocks, Timeouts
from bot.game.games import GameService
from bot.game.hints import Hints
from bot.game.levels import ExternalLevel
from bot.game.mirrors import Mirrors
from bot.game.moves import Moves
from bot.game.outbox import OutboxService
from bot.game.ports import UNAVAILABLE_RETRY_SECONDS, StandingStore, StorageUnavailable
from bot.game.preferences import MemberPreferences
from bot.game.puzzles import PuzzleService
from bot.game.queue import QueueService
from bot.game.records import RecordService
from bot.game.settings import ServerSettings
from bot.game.takebacks import Takebacks
from bot.game.tournament_reads import TournamentReads
from bot.game.tournament_runner import TournamentRunner
from bot.game.tournaments import TournamentService
from bot.ui.boards import Boards
from bot.ui.turns import Turns

CogT = TypeVar("CogT", bound=commands.Cog)
T = TypeVar("T")


class Services(Protocol):
    """The services the cogs use (bot.game.services.Services has them): never the database."""

    @property
    def games(self) -> GameService: ...
    @property
    def moves(self) -> Moves: ...
    @property
    def challenges(self) -> ChallengeService: ...
    @property
    def clocks(self) -> Clocks: ...
    @property
    def timeouts(self) -> Timeouts: ...
    @property
    def hints(self) -> Hints: ...
    @property
    def takebacks(self) -> Takebacks: ...
    @property
    def settings(self) -> ServerSettings: ...
    @property
    def preferences(self) -> MemberPreferences: ...
    @property
    def standings(self) -> StandingStore: ...
    @property
    def records(self) -> RecordService: ...
    @property
    def puzzles(self) -> PuzzleService: ...
    @property
    def tournaments(self) -> TournamentService: ...
    @property
    def tournament_runner(self) -> TournamentRunner: ...
    @property
    def tournament_reads(self) -> TournamentReads: ...
    @property
    def outbox(self) -> OutboxService: ...
    @property
    def blocks(self) -> Blocks: ...
    @property
    def queue(self) -> QueueService: ...
    @property
    def mirrors(self) -> Mirrors: ...


class Host(Protocol):
    """The bot as the cogs see it (bot.runtime.client.CaroBot satisfies it)."""

    @property
    def external(self) -> ExternalLevel:
        """The operator's external engine as an AI level (offered or not)."""

    @property
    def watch_delay(self) -> float:
        """Seconds between the moves of an AI-vs-AI game."""

    @property
    def min_timeout(self) -> float:
        """The shortest turn time limit, in seconds, a server may set."""

    @property
    def services(self) -> Services:
        """The game's services."""

    @property
    def ai(self) -> AiTurns: ...

    @property
    def boards(self) -> Boards: ...

    @property
    def turns(self) -> Turns: ...

    @property
    def shard_count(self) -> int | None: ...

    def cog(self, cls: type[CogT]) -> CogT:
        """The loaded cog of class `cls`."""

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]: ...

    def is_closed(self) -> bool: ...

    async def wait_until_ready(self) -> None: ...

    def held_shards(self) -> list[int]: ...

    def working_for(self, shard_id: int) -> AbstractContextManager[None]: ...

    def get_guild(self, id: int, /) -> discord.Guild | None: ...

    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: Any = None
    ) -> discord.PartialMessageable: ...


log = logging.getLogger("caro.bot")


async def keep_listening(bot: Host, listen: Callable[[], Awaitable[None]], what: str) -> None:
    """Run `listen` (a signal from the database, sent by any process) from when the bot is ready
    until it returns (the database has no such signal) or the bot closes; again after the
    database was lost, or after a failure, which is logged as `what` failing."""
    await bot.wait_until_ready()
    while not bot.is_closed():
        try:
            await listen()
            return
        except StorageUnavailable:
            await asyncio.sleep(UNAVAILABLE_RETRY_SECONDS)
        except Exception:
            if bot.is_closed():
                return
            log.exception("%s failed", what)
            await asyncio.sleep(UNAVAILABLE_RETRY_SECONDS)


__all__ = ["Host", "Services", "keep_listening"]
