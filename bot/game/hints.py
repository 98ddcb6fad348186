"""Hints: the engine's suggestion for a member's move against the easy levels, counted in the
game's record. No Discord code here."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.game.cache import GameCache
from bot.game.errors import UserError
from bot.game.games import GameService
from bot.game.model import GameState, Mode
from bot.game.ports import GameStore
from bot.game.searches import Thinker, failed
from engine.game.notation import cell_name
from engine.game.types import Level

# Levels that may give hints: against the strong levels a hint would play the game for you.
HINT_LEVELS: tuple[Level, ...] = (Level.EASY, Level.NORMAL)
# The engine level that suggests hints.
HINT_ENGINE = Level.HARD


def no_hint(state: GameState) -> str | None:
    """Why the member in `state` may not ask for a hint (a text id), or None if they may: only
    against the easy levels, and never in a tournament's game, where the engine's move would beat
    the other entrants for them."""
    if state.row.tournament_id is not None:
        return "hint.tournament"
    if state.mode is not Mode.AI or state.ai_level not in HINT_LEVELS:
        return "hint.not_here"
    return None


def offers_hints(state: GameState) -> bool:
    return no_hint(state) is None


@dataclass(frozen=True, slots=True)
class Hint:
    cell: str
    reason: str


class Hints:
    def __init__(
        self, games: GameService, store: GameStore, ai: Thinker, cache: GameCache
    ) -> None:
        self._games = games
        self._store = store
        self._ai = ai
        self._cache = cache
        # game id -> (ply, the search for that ply's hint): one search and one count per ply,
        # however often (or however many at once) a member asks.
        self._hints: dict[int, tuple[int, asyncio.Task[Hint]]] = {}
        cache.when_forgotten(lambda game_id: self._hints.pop(game_id, None))

    async def hint(self, game_id: int, ply: int, user_id: int) -> Hint:
        """The engine's suggestion for the member's move, counted in the game record."""
        state, _ = await self._games.running_game_of(game_id, user_id)
        refused = no_hint(state)
        if refused is not None:
            raise UserError(refused)
        if state.board.ply != ply:
            raise UserError("click.stale")
        if state.mover_id != user_id:
            raise UserError("click.not_your_turn")
        if state.opening is not None:
            # The AI's hints are moves; an opening's steps are the players' own judgement.
            raise UserError("hint.opening")
        known = self._hints.get(game_id)
        if known is None or known[0] != ply or failed(known[1]):
            task = asyncio.ensure_future(self._new_hint(state, ply, user_id))
            self._hints[game_id] = known = (ply, task)
        return await asyncio.shield(known[1])

    async def _new_hint(self, state: GameState, ply: int, member: int) -> Hint:
        cell, reason = await self._ai.think(
            state.board.copy(), HINT_ENGINE, member, f"caro-hint-{state.id}-ply-{ply}"
        )
        self._cache.drop(state.id)
        if not await self._store.add_hint(state.id, ply):
            raise UserError("click.stale")
        return Hint(cell=cell_name(cell), reason=reason)


__all__ = ["HINT_ENGINE", "HINT_LEVELS", "Hint", "Hints", "no_hint", "offers_hints"]
