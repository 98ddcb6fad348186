"""Finished games as records: a member's history, replays, and the engine's review of a game,
made in the AI pool and cached. Apart from the game service: nothing here changes a game."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot.cpu import jobs
from bot.game.errors import UserError
from bot.game.model import GameState, RatingChange, Result, Seat, load_state
from bot.game.ports import GameStore, ReviewStore, StandingStore
from bot.game.searches import failed
from engine import Mark, Rule
from engine.analysis.review import DEFAULT_BUDGET_S, DEFAULT_NODE_LIMIT, FIRST_PASS_SHARE, Review
from engine.analysis.review import begin_review as engine_begin_review

RunInPool = Callable[..., Awaitable[Any]]
"""(worker function of bot.cpu.jobs, *its arguments) -> its result, run in the CPU pool."""
ReviewProgress = Callable[[int, int], Awaitable[None]]
"""(moves analysed, moves in the game): called after each slice of a review."""

# Games per page of /caro history, and the last page one may ask for (ids carry the page).
HISTORY_PAGE = 5
MAX_HISTORY_PAGE = 999
# Seconds of review work per trip to the AI pool: the progress shown moves at this pace, and
# other members' AI moves wait at most this long behind a review on a busy pool.
REVIEW_SLICE_S = 1.0


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One finished game from one member's side."""

    state: GameState
    mark: Mark
    result: Result
    change: RatingChange | None  # their rating change in this server, if the game was rated

    @property
    def opponent(self) -> Seat:
        """The member or AI level they played against."""
        return self.state.row.seat(self.mark.other)


@dataclass(frozen=True, slots=True)
class HistoryPage:
    user_id: int
    page: int  # from 0
    entries: tuple[HistoryEntry, ...]
    has_next: bool


@dataclass(frozen=True, slots=True)
class GameReview:
    state: GameState
    review: Review
    cached: bool  # answered from the cache, no search run


class RecordService:
    """Finished games for /caro replay, review and history."""

    def __init__(self, store: ReviewStore, games: GameStore, standings: StandingStore) -> None:
        self._store = store
        self._games = games
        self._standings = standings
        # game id -> the review under way, and whom to tell its progress: one review per game
        # however many members ask for it at once.
        self._reviews: dict[int, asyncio.Task[Review]] = {}
        self._review_watchers: dict[int, list[ReviewProgress]] = {}

    async def finished_game(self, game_id: int, guild_id: int) -> GameState:
        """Game `game_id` of this server, over (finished, or a watch stopped); UserError if there
        is no such game here or it still runs. A game of another server is shown only where its
        member of this server played it from their board here; any other is refused as if it
        did not exist."""
        row = await self._games.game(game_id)
        state = None if row is None else load_state(row)
        if state is None or not await self._shown_in(state, guild_id):
            raise UserError("replay.no_game", game=game_id)
        if state.active:
            raise UserError("replay.running", game=game_id)
        return state

    async def _shown_in(self, state: GameState, guild_id: int) -> bool:
        # Its board in this server was public in the channel it was played in: anyone there may
        # see the game again, as anyone in the game's own server may.
        if state.row.guild_id == guild_id:
            return True
        return await self._store.board_in(state.id, guild_id)

    async def last_finished_game(self, guild_id: int, user_id: int) -> GameState:
        """The last game `user_id` finished in this server (one they played from their board
        here included); UserError if none."""
        rows = await self._store.finished_games(guild_id, user_id, limit=1)
        if not rows:
            raise UserError("replay.none", user=f"<@{user_id}>")
        return load_state(rows[0])

    async def history(self, guild_id: int, user_id: int, page: int) -> HistoryPage:
        """Page `page` (from 0) of the games `user_id` finished in this server, newest first;
        UserError for a page past the last one (only a forged or replayed Next asks for it: the
        last page's Next is disabled, and a history never shrinks)."""
        if not 0 <= page <= MAX_HISTORY_PAGE:
            raise UserError("history.bad_page")
        rows = await self._store.finished_games(
            guild_id, user_id, limit=HISTORY_PAGE + 1, offset=page * HISTORY_PAGE
        )
        if page > 0 and not rows:
            # The first page may be empty (it says so); a later one exists only with games.
            raise UserError("history.bad_page")
        entries: list[HistoryEntry] = []
        for row in rows[:HISTORY_PAGE]:
            state = load_state(row)
            mark = state.mark_of(user_id)
            result = state.result_of(mark) if mark is not None else None
            if mark is None or result is None:
                continue
            change = next(
                (
                    c
                    for c in await self._standings.rating_changes(row.id)
                    if c.scope == guild_id and c.user_id == user_id
                ),
                None,
            )
            entries.append(HistoryEntry(state, mark, result, change))
        return HistoryPage(user_id, page, tuple(entries), len(rows) > HISTORY_PAGE)

    async def review(
        self,
        game_id: int,
        guild_id: int,
        run: RunInPool,
        progress: ReviewProgress | None = None,
        *,
        node_limit: int = DEFAULT_NODE_LIMIT,
        budget_s: float = DEFAULT_BUDGET_S,
    ) -> GameReview:
        """The AI review of a game of this server that is over: from the cache, or made in the
        AI pool (`run`) a slice at a time, `progress` told after each slice, then cached. A
        review asked for while one of the same game is under way waits for that one."""
        state = await self.finished_game(game_id, guild_id)
        cached = await self._cached_review(game_id, node_limit)
        if cached is not None:
            return GameReview(state, cached, cached=True)
        watchers = self._review_watchers.setdefault(game_id, [])
        if progress is not None:
            watchers.append(progress)
        try:
            task = self._reviews.get(game_id)
            if task is None or failed(task):
                task = asyncio.ensure_future(self._new_review(state, run, node_limit, budget_s))
                self._reviews[game_id] = task
                task.add_done_callback(lambda done: self._forget_review(game_id, done))
            review = await asyncio.shield(task)
        finally:
            if progress is not None and progress in watchers:
                watchers.remove(progress)
            if not watchers:
                self._review_watchers.pop(game_id, None)
        return GameReview(state, review, cached=False)

    def _forget_review(self, game_id: int, task: asyncio.Task[Review]) -> None:
        if self._reviews.get(game_id) is task:
            del self._reviews[game_id]

    async def _cached_review(self, game_id: int, node_limit: int) -> Review | None:
        data = await self._store.review(game_id, node_limit)
        if data is None:
            return None
        try:
            return Review.from_dict(json.loads(data))
        except ValueError:
            return None  # damaged, or from an older engine: made again (and replaced)

    async def _new_review(
        self, state: GameState, run: RunInPool, node_limit: int, budget_s: float
    ) -> Review:
        row = state.row
        work = engine_begin_review(
            [move.cell for move in row.moves],
            row.rows,
            row.cols,
            row.k,
            Rule.parse(row.rule),
            node_limit=node_limit,
        )
        start = time.monotonic()
        first_pass = budget_s * FIRST_PASS_SHARE
        while not work.analysed and time.monotonic() - start < first_pass:
            slice_s = min(REVIEW_SLICE_S, max(0.05, first_pass - (time.monotonic() - start)))
            work = await run(jobs.review_slice, work, slice_s)
            for watcher in list(self._review_watchers.get(state.id, ())):
                await watcher(work.done, work.total)
        left = max(0.5, budget_s - (time.monotonic() - start))
        data = await run(jobs.review_conclude, work, left)
        review = Review.from_dict(data)
        if review.complete:
            # A review cut short by the budget (a busy pool) is shown but not kept: the next
            # request may get through the whole game.
            await self._store.save_review(state.id, node_limit, json.dumps(data))
        return review


__all__ = [
    "HISTORY_PAGE",
    "MAX_HISTORY_PAGE",
    "GameReview",
    "HistoryEntry",
    "HistoryPage",
    "RecordService",
    "ReviewProgress",
    "RunInPool",
]
