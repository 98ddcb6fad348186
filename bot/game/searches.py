"""The AI's searches: one under way per game, started for a member's move so that a quick answer
is stored with it, or taken over by the AI's turn. No Discord code here."""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Any, Protocol, TypeVar

from bot.game.cache import GameCache
from bot.game.model import AiLevel, GameState
from engine import Board
from engine.game.openings import Action, OpeningState

T = TypeVar("T")


class Thinker(Protocol):
    """What the service needs of the AI (bot.ai.turn.AiTurns in the bot)."""

    async def think(
        self, board: Board, level: AiLevel, member: Hashable, seed: str
    ) -> tuple[tuple[int, int], str]:
        """The AI's cell on `board` and its reason id (engine.ai.explain), searched in the turn
        of `member` (the one the search is for), reproducible from `seed`."""
        ...

    def quick_wait(self, level: AiLevel | None) -> float:
        """Seconds a member's move may wait for the answer of the AI at `level` (0: none)."""
        ...

    async def open(
        self, opening: OpeningState, level: AiLevel, member: Hashable, seed: str
    ) -> Action:
        """The AI's action in the step of `opening` it is to take (where it places, what it
        offers, which colour it takes), from its evaluation at `level`, in `member`'s turn."""
        ...



class Searches:
    """The AI's search per game, kept in the cache until its move is stored."""

    def __init__(self, ai: Thinker, cache: GameCache) -> None:
        self._ai = ai
        self._cache = cache

    def quick_wait(self, level: AiLevel | None) -> float:
        """Seconds a member's move (or a new board) may wait for the answer of the AI at `level`
        to show both at once; 0 for a slow level or a member's turn (None)."""
        return 0.0 if level is None else self._ai.quick_wait(level)

    async def answer(
        self, state: GameState, board: Board, member: Hashable
    ) -> tuple[tuple[int, int], str] | None:
        """The AI's answer on `board` (a member's move just pushed) if the AI is to move and
        finds it within its quick wait; None otherwise (its search, if any, goes on: see
        search)."""
        if board.is_over():
            return None
        level = state.level_of(board.turn)
        wait = self.quick_wait(level)
        if level is None or wait <= 0:
            return None
        search = self.search(state.id, board, level, member)
        if not await answered_within(search, wait) or failed(search):
            return None  # the AI's turn waits for it, or searches again
        return search.result()

    def search(
        self, game_id: int, board: Board, level: AiLevel, member: Hashable
    ) -> asyncio.Future[tuple[tuple[int, int], str]]:
        """The AI's search from `board` in game `game_id`, in `member`'s turn: the one already
        under way from that position, or a new one."""
        pending = self._cache.searches.get(game_id)
        if pending is not None and pending[0] == board.moves:
            return pending[1]
        search = asyncio.ensure_future(
            self._ai.think(board.copy(), level, member, ai_seed(game_id, board.ply))
        )
        # Its failure is reported by whoever awaits it; left over, it is not worth a log line.
        search.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._cache.searches[game_id] = (board.moves, search)
        return search


def ai_seed(game_id: int, ply: int) -> str:
    """Seed of the AI's random choices for one move: the same game position, the same move."""
    return f"caro-game-{game_id}-ply-{ply}"


def failed(task: asyncio.Future[Any]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


async def answered_within(pending: asyncio.Future[T], seconds: float) -> bool:
    """Whether `pending` (an AI's answer on its way) is done within `seconds`. It is never
    cancelled here: an answer that comes later is the AI's turn's to store."""
    if seconds <= 0:
        return pending.done()
    done, _ = await asyncio.wait({pending}, timeout=seconds)
    return bool(done)


__all__ = ["Searches", "Thinker", "ai_seed", "answered_within", "failed"]
