"""The AI turn: one search of an AI level for a member, on the fair CPU pool, and how long a click
may wait for a quick answer.

AiTurns is built once by the wiring (bot.runtime.client), which hands it the values it needs from
the settings: the worker count, the time limits, the quick wait and the operator's external
level. The game service asks it through its own narrow port (bot.game.searches.Thinker); the level
stays an AiLevel until the worker boundary, where it becomes the plain string a worker takes.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable, Hashable
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from bot.cpu import jobs
from bot.cpu.pool import FairPool, process_pool
from bot.game.levels import (
    FALLBACK,
    NO_ENGINE,
    ExternalEngineSettings,
    ExternalLevel,
    stand_in,
)
from bot.game.model import AiLevel, External
from engine import Board
from engine.ai import DEFAULT_TIME_LIMITS
from engine.game.notation import cell_name
from engine.game.openings import Action, Choice, OpeningState, StepKind
from engine.game.types import Level

log = logging.getLogger("caro.bot")

T = TypeVar("T")

# AI levels whose search takes at most this long (seconds) are quick: a click against them waits
# up to the quick wait (CARO_QUICK_REPLY_SECONDS) for the answer and shows both moves in one
# edit, and their searches have a worker of their own, so they never queue behind other members'
# long ones.
QUICK_AI_LIMIT = 0.1
# The quick levels' own worker: their searches take milliseconds, and in the shared pool they
# waited behind other members' searches of up to a second, so a click against "easy" often missed
# the one-edit answer (CARO_QUICK_REPLY_SECONDS) and cost the bot a second edit. It loads no
# compiled core (the quick levels do not use it), so it holds a fraction of a shared worker's
# memory.
QUICK_WORKERS = 1
# What plays the external engine's seat when the engine cannot (see bot.game.levels).
EXTERNAL_FALLBACK = FALLBACK

Cell = tuple[int, int]


def is_quick(level: AiLevel, ai_time_limit: float | None) -> bool:
    """Whether `level` searches within QUICK_AI_LIMIT under the operator's CARO_AI_TIME_LIMIT
    (`ai_time_limit`, None for the levels' own limits). The external engine never is: it keeps
    its own time limit."""
    if not isinstance(level, Level):
        return False
    return (ai_time_limit or DEFAULT_TIME_LIMITS[level]) <= QUICK_AI_LIMIT


class AiTurns:
    """The AI turns of the bot, and the CPU pool they share with the other heavy work.

    `cpu_pool` runs every search of the shared levels and the external engine, review slices,
    replay animations and review pictures, each member's work in their turn; `quick_pool` (one
    worker, no compiled core) runs the quick levels' searches.
    """

    def __init__(
        self,
        cpu_pool: FairPool,
        quick_pool: FairPool,
        *,
        time_limit: float | None = None,
        quick_reply: float = 0.0,
        external: ExternalLevel = NO_ENGINE,
    ) -> None:
        self.cpu_pool = cpu_pool
        self.quick_pool = quick_pool
        self.time_limit = time_limit
        self.quick_reply = quick_reply
        self.engine = external.engine
        self._closed = False

    @classmethod
    def in_processes(
        cls,
        workers: int,
        *,
        time_limit: float | None,
        quick_reply: float,
        external: ExternalLevel,
    ) -> AiTurns:
        """The bot's AI turns: `workers` processes in the CPU pool (CARO_AI_WORKERS), the quick
        worker, the operator's time limit (CARO_AI_TIME_LIMIT), quick wait
        (CARO_QUICK_REPLY_SECONDS) and `external` level. The processes start with the first job."""
        parent = os.getpid()
        return cls(
            FairPool(lambda: process_pool(workers, jobs.init_worker, (parent, True)), workers),
            FairPool(
                lambda: process_pool(QUICK_WORKERS, jobs.init_worker, (parent, False)),
                QUICK_WORKERS,
            ),
            time_limit=time_limit,
            quick_reply=quick_reply,
            external=external,
        )

    # ----------------------------------------------------------------- the two questions
    async def think(
        self, board: Board, level: AiLevel, member: Hashable, seed: str
    ) -> tuple[Cell, str]:
        """The move of the AI at `level` on `board` and its reason id, searched in `member`'s
        turn of the fair pool, reproducible from `seed`."""
        if self._closed:
            raise RuntimeError("the AI pool is shut down")
        if level is External.ENGINE:
            if self.engine is not None:
                return await self._think_external(board, member, seed, self.engine)
            # A game stored before the operator removed CARO_ENGINE_CMD: it goes on, and its
            # board names the level playing in the engine's place.
            log.warning(
                "an external engine game goes on without CARO_ENGINE_CMD: %s plays instead",
                EXTERNAL_FALLBACK,
            )
            level = EXTERNAL_FALLBACK
        assert isinstance(level, Level)
        args = (board.text(), level.value, seed, self.time_limit)
        try:
            row, col, reason = await self.pool_for(level).run(member, jobs.think, *args)
        except BrokenProcessPool as exc:
            # A worker died under this move twice (killed for memory, say): the quick levels'
            # worker, which holds no compiled core, answers with the pure-Python search.
            log.warning("AI workers died on one move twice (%s): the pure-Python search answers", exc)
            row, col, reason = await self.quick_pool.run(member, jobs.think, *args)
        return (row, col), reason

    async def open(
        self, opening: OpeningState, level: AiLevel, member: Hashable, seed: str
    ) -> Action:
        """The action of the AI at `level` at the opening's step (engine.ai.openings), decided in
        `member`'s turn of the fair pool, reproducible from `seed`. The external engine knows no
        opening rules: its stand-in takes its steps."""
        if self._closed:
            raise RuntimeError("the AI pool is shut down")
        if not isinstance(level, Level):
            level = EXTERNAL_FALLBACK
        board = opening.board
        spec = (board.rows, board.cols, board.k, board.rule.value)
        moves = tuple(cell_name(cell) for cell in board.moves)
        kind, names, choice = await self.pool_for(level).run(
            member,
            jobs.decide_opening,
            opening.opening.value,
            spec,
            moves,
            opening.decisions,
            level.value,
            seed,
            self.time_limit,
        )
        cells = tuple(board.parse_move(name) for name in names)
        step = StepKind(kind)
        if step is StepKind.CHOOSE:
            return Action.choose(Choice(choice))
        if step is StepKind.OFFER:
            return Action.offer(cells)
        if step is StepKind.SELECT:
            return Action.select(cells[0])
        return Action.place(cells[0])

    def quick_wait(self, level: AiLevel | None) -> float:
        """How long a member's move (or a new board) may wait for the answer of the AI at
        `level`, to store and show both at once: only for levels that answer about as fast as
        Discord itself (the wait also covers a queue in the pool); a slower AI would leave the
        member without their own move meanwhile. None (a member's turn): no wait."""
        if level is None or not is_quick(level, self.time_limit):
            return 0.0
        return self.quick_reply

    # ----------------------------------------------------------------- the pools
    def pool_for(self, level: Level) -> FairPool:
        """The quick worker for a quick level, unless it is busy while the CPU pool has a worker
        idle (a server full of easy games must not queue on one worker)."""
        if not is_quick(level, self.time_limit):
            return self.cpu_pool
        if self.quick_pool.has_free_worker() or not self.cpu_pool.has_free_worker():
            return self.quick_pool
        return self.cpu_pool

    async def run_on_cpu(self, member: Hashable, fn: Callable[..., T], *args: Any) -> T:
        """Other heavy work (a review slice, a replay's animation, a review's pictures) in the
        CPU pool, in `member`'s turn."""
        if self._closed:
            raise RuntimeError("the AI pool is shut down")
        return await self.cpu_pool.run(member, fn, *args)

    async def warm_up(self) -> None:
        """Start the workers before a player's move needs one."""
        await asyncio.gather(
            self.cpu_pool.broadcast(jobs.warm_up),
            self.quick_pool.broadcast(jobs.warm_up_quick),
        )

    async def close(self) -> None:
        """Refuse new work and wait for the running searches (each bounded by its time limit)."""
        self._closed = True
        await asyncio.gather(self.cpu_pool.close(), self.quick_pool.close())

    async def _think_external(
        self, board: Board, member: Hashable, seed: str, engine: ExternalEngineSettings
    ) -> tuple[Cell, str]:
        row, col, reason, used = await self.cpu_pool.run(
            member,
            jobs.think_external,
            board.text(),
            seed,
            engine.command,
            engine.time_limit,
            self.time_limit,
        )
        if not used:
            # The worker logged why; said again here, where the operator reads the bot's log.
            log.warning(
                "%s did not move on %s: %s played instead",
                engine.name,
                board.spec,
                EXTERNAL_FALLBACK,
            )
            # Stored as the stand-in's, so the board says who played it.
            return (row, col), stand_in(reason)
        return (row, col), reason


__all__ = ["EXTERNAL_FALLBACK", "QUICK_AI_LIMIT", "AiTurns", "is_quick"]
