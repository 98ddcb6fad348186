"""What one process keeps of the games it plays, so a click needs no read: their latest states,
the rating changes of the games it finished, a lock per game, and the AI searches under way.
Everything a running game leaves here, or with those told (see when_forgotten), is dropped when
it ends."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace

from bot.game.model import GameState, RatingChange, load_state
from bot.game.ports import Finished, GameStore
from engine import Board, Cell

# Running games whose latest state a process keeps: enough for every game clicked in the last
# minutes of a busy process, a few MB.
RECENT_GAMES = 2048
# Finished games whose rating changes a process keeps from the write that finished them: their
# final board is drawn right after (and perhaps once more on a redraw).
FINISHED_GAMES = 256

Search = asyncio.Future[tuple[tuple[int, int], str]]


class GameCache:
    def __init__(self) -> None:
        # Changes to one game are serialised, so two clicks on the same turn apply one move.
        self._locks: dict[int, asyncio.Lock] = {}
        # The running games as this process last stored a move in them (most recent last): a
        # click on one needs no read. A stale entry is harmless, as the move's write checks the
        # position (move count and takebacks), status and clock in the database; every other
        # change of a game refreshes or drops its entry.
        self._recent: OrderedDict[int, GameState] = OrderedDict()
        # game id -> its rating changes, as the write that finished the game here returned them
        # (they never change after): drawing the final board reads nothing.
        self._changes: OrderedDict[int, tuple[RatingChange, ...]] = OrderedDict()
        # game id -> (the moves of a position, the AI's search from it) started for a member's
        # move and not yet stored: the AI's turn takes it over instead of searching again. Keyed
        # by the moves, not their count: another process may have taken moves back and played
        # others since.
        self.searches: dict[int, tuple[tuple[Cell, ...], Search]] = {}
        self._forgetting: list[Callable[[int], object]] = []

    def lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    def recent(self, game_id: int) -> GameState | None:
        return self._recent.get(game_id)

    def drop(self, game_id: int) -> None:
        """Forget the latest state of `game_id` (it changed in a way not kept here)."""
        self._recent.pop(game_id, None)

    async def read(self, store: GameStore, game_id: int, *, keep: bool = False) -> GameState | None:
        """The game as stored; kept as the newest if this process keeps it, or with `keep`
        once the game's own board is posted (kept before, it would go on naming no message for
        that board here: the message is attached by the process that posts it)."""
        row = await store.game(game_id)
        if row is None:
            return None
        state = load_state(row)
        if (keep and state.row.message_id is not None) or game_id in self._recent:
            self.remember(state)
        return state

    def remember(self, state: GameState) -> None:
        """Keep `state` as the newest known of its game while it runs."""
        if not state.active:
            self._recent.pop(state.id, None)
            return
        known = self._recent.get(state.id)
        if state.row.message_id is None and known is not None and known.row.message_id is not None:
            # Built from a state read before the board was posted (the AI's first move, searched
            # while the board was on its way): the message is the one attach_message stored.
            state = on_message(state, known.row.message_id)
        self._recent[state.id] = state
        self._recent.move_to_end(state.id)
        if len(self._recent) > RECENT_GAMES:
            self._recent.popitem(last=False)

    def attached(self, game_id: int, message_id: int) -> None:
        """The board of `game_id` is now drawn on `message_id`."""
        known = self._recent.get(game_id)
        if known is not None:
            self._recent[game_id] = on_message(known, message_id)

    def changes(self, game_id: int) -> tuple[RatingChange, ...] | None:
        return self._changes.get(game_id)

    def finished(self, finished: Finished, board: Board | None = None) -> GameState:
        """The game as the write that finished it returned it (`board`: its final board, if at
        hand), its rating changes kept for drawing it; drops what was kept for it running."""
        game_id = finished.game.id
        self._changes[game_id] = finished.changes
        if len(self._changes) > FINISHED_GAMES:
            self._changes.popitem(last=False)
        self.forget(game_id)
        if board is None:
            return load_state(finished.game)
        return GameState(row=finished.game, board=board)

    def forget(self, game_id: int) -> None:
        """Drop what this process keeps for a running game (it is over)."""
        self._recent.pop(game_id, None)
        self._locks.pop(game_id, None)
        self.searches.pop(game_id, None)
        for forget in self._forgetting:
            forget(game_id)

    def rewound(self, game_id: int) -> None:
        """Moves of `game_id` were taken back: a move count no longer names one position, so
        what was kept per move count (the AI's search, and with those told, a hint) is dropped."""
        self.searches.pop(game_id, None)
        for forget in self._forgetting:
            forget(game_id)

    def when_forgotten(self, forget: Callable[[int], object]) -> None:
        """Call `forget(game_id)` when a game ends or is rewound, to drop what another service
        keeps for it."""
        self._forgetting.append(forget)


def on_message(state: GameState, message_id: int) -> GameState:
    """`state` as drawn on message `message_id`."""
    return GameState(row=replace(state.row, message_id=message_id), board=state.board)


__all__ = ["FINISHED_GAMES", "RECENT_GAMES", "GameCache", "on_message"]
