"""The services over one database, built together: each takes the stores and the other services
it uses as constructor arguments; this only puts them together for the wiring and the tests."""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

from bot.game import ratings
from bot.game.blocks import Blocks
from bot.game.cache import GameCache
from bot.game.challenges import CHALLENGE_SECONDS, ChallengeService
from bot.game.clocks import Clock, Clocks, Timeouts
from bot.game.cooldowns import Cooldowns
from bot.game.games import DEFAULT_LIMITS, GameService, Limits
from bot.game.hints import Hints
from bot.game.levels import NO_ENGINE, ExternalLevel
from bot.game.meta import Meta
from bot.game.mirrors import Mirrors
from bot.game.model import GuildSettings
from bot.game.moves import Moves
from bot.game.outbox import OutboxService
from bot.game.ports import StandingStore, Storage
from bot.game.preferences import MemberPreferences
from bot.game.puzzles import PuzzleService
from bot.game.queue import QueueService
from bot.game.records import RecordService
from bot.game.searches import Thinker
from bot.game.settings import DEFAULT_TIMEOUTS, ServerSettings
from bot.game.takebacks import Takebacks
from bot.game.tournament_reads import TournamentReads
from bot.game.tournament_runner import TournamentRunner
from bot.game.tournaments import TournamentService


@dataclass(frozen=True, slots=True)
class Services:
    """The services over one database. `storage` is for the wiring (to close it) and the tests;
    the cogs see the services only (bot.cogs.host)."""

    storage: Storage
    games: GameService
    moves: Moves
    challenges: ChallengeService
    clocks: Clocks
    timeouts: Timeouts
    hints: Hints
    takebacks: Takebacks
    settings: ServerSettings
    preferences: MemberPreferences
    records: RecordService
    meta: Meta
    puzzles: PuzzleService
    # Tournaments: what members and organisers do, the runner that steps them forward, and what
    # is shown of them.
    tournaments: TournamentService
    tournament_runner: TournamentRunner
    tournament_reads: TournamentReads
    outbox: OutboxService
    mirrors: Mirrors
    blocks: Blocks
    queue: QueueService
    # Ratings and results: a read model, read as stored.
    standings: StandingStore
    cooldowns: Cooldowns


def build_services(
    storage: Storage,
    ai: Thinker,
    *,
    clock: Clock = time.time,
    default_timeouts: GuildSettings = DEFAULT_TIMEOUTS,
    challenge_seconds: float = CHALLENGE_SECONDS,
    limits: Limits = DEFAULT_LIMITS,
    cooldowns: Cooldowns | None = None,
    external: ExternalLevel = NO_ENGINE,
) -> Services:
    # One set of cooldowns: a command, its button and a Rematch meet the same rate.
    cooldowns = cooldowns if cooldowns is not None else Cooldowns(clock)
    cache = GameCache()
    settings = ServerSettings(storage.settings, default_timeouts)
    clocks = Clocks(storage.clocks, settings, clock=clock)
    # A finished game is rated with the external engine's own anchor when it played.
    rate = functools.partial(ratings.game_updates, external=external)
    outbox = OutboxService(storage.outbox, clock=clock)
    mirrors = Mirrors(storage.queue, outbox)
    games = GameService(
        storage.games, clocks, cache, storage.standings,
        limits=limits, cooldowns=cooldowns, external=external, rate=rate, mirrors=mirrors,
    )
    blocks = Blocks(storage.blocks, clock=clock)
    tournament_reads = TournamentReads(storage.tournaments)
    tournament_runner = TournamentRunner(
        storage.tournaments, tournament_reads, games, storage.standings, outbox=outbox, clock=clock
    )
    return Services(
        storage=storage,
        games=games,
        moves=Moves(storage.games, ai, clocks, cache, rate=rate, mirrors=mirrors),
        challenges=ChallengeService(
            storage.challenges, storage.games, clocks, limits=limits, cooldowns=cooldowns,
            challenge_seconds=challenge_seconds, blocks=blocks,
        ),
        clocks=clocks,
        timeouts=Timeouts(
            storage.clocks, storage.games, cache, clocks, rate, storage.queue, mirrors=mirrors
        ),
        hints=Hints(games, storage.games, ai, cache),
        takebacks=Takebacks(
            storage.takebacks, storage.games, clocks, cache, queue=storage.queue, outbox=outbox,
        ),
        settings=settings,
        preferences=MemberPreferences(storage.settings),
        records=RecordService(storage.reviews, storage.games, storage.standings),
        meta=Meta(storage.meta),
        puzzles=PuzzleService(storage.puzzles, storage.meta, clock=clock),
        tournaments=TournamentService(
            storage.tournaments, tournament_reads, tournament_runner, games, settings,
            outbox=outbox, clock=clock,
        ),
        tournament_runner=tournament_runner,
        tournament_reads=tournament_reads,
        outbox=outbox,
        mirrors=mirrors,
        blocks=blocks,
        queue=QueueService(
            storage.queue, storage.games, storage.standings, settings, clock=clock,
            cooldowns=cooldowns,
        ),
        standings=storage.standings,
        cooldowns=cooldowns,
    )


__all__ = ["Services", "build_services"]
