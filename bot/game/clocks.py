"""The turn clocks: when the member to move loses on time, waking the deadline watcher when a
clock starts that runs out sooner than it planned to look, and settling the clocks that ran out.
No Discord code here."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace

from bot.game.cache import GameCache
from bot.game.mirrors import Mirrors
from bot.game.model import EndReason, Finish, GameState, Mode, NewGame, is_member
from bot.game.outbox_model import NewPost, PostKind
from bot.game.ports import ClockStore, GameStore, QueueStore, RatePolicy
from bot.game.settings import ServerSettings
from engine import Board

Clock = Callable[[], float]

# A member is warned that their clock runs low when a fifth of their turn is left, at least 15 s
# and at most 2 minutes before it runs out (and never before half the turn has gone): on a
# 10-minute turn at 2 minutes, on a 1-minute turn at 15 s.
WARNING_SHARE = 0.2
MIN_WARNING = 15.0
MAX_WARNING = 120.0


def warning_lead(turn: float) -> float:
    """Seconds before a clock of `turn` seconds runs out at which its member is warned."""
    return min(max(turn * WARNING_SHARE, MIN_WARNING), MAX_WARNING, turn / 2)


class Clocks:
    def __init__(
        self, store: ClockStore, settings: ServerSettings, *, clock: Clock = time.time
    ) -> None:
        self._store = store
        self._settings = settings
        self._clock = clock
        # Wakes the deadline watcher when a new clock starts.
        self.deadlines_changed = asyncio.Event()
        # When the deadline watcher looks at the clocks next by itself (see ClocksCog); None
        # while it is looking, or before it first ran: then every new clock wakes it. A clock
        # running out later than this needs no wake-up: at 50 moves a second, waking it for
        # each would cost three queries a move.
        self.watched_until: float | None = None

    def now(self) -> float:
        """The time on the clock deadlines are written in."""
        return self._clock()

    async def next_deadline(self, *, shard_id: int = 0, shard_count: int = 1) -> float | None:
        """The earliest running clock of any game or pending challenge of the shard."""
        return await self._store.next_deadline(shard_id=shard_id, shard_count=shard_count)

    async def deadline(self, state: GameState, board: Board) -> float | None:
        """When the player to act on `board` (a step of an opening, else the side to move) loses
        on time; None if no member is to act."""
        if board.is_over():
            return None
        # In an opening the player of the next step acts, whichever colour is to move.
        after = state if board is state.board else GameState(row=state.row, board=board)
        return await self.clock_for(
            state.row.guild_id,
            state.mode,
            member_to_move=after.user_of(after.acting_mark) is not None,
            fixed=state.row.turn_seconds,
        )

    async def turn_seconds(self, guild_id: int, mode: Mode, fixed: float | None = None) -> float:
        """How long a member's turn lasts in a game of `mode` in this server; `fixed`: the
        game's own turn time (a tournament's time control), which wins."""
        if fixed is not None:
            return fixed
        limits = await self._settings.timeouts(guild_id)
        return limits.pvp_timeout if mode is Mode.PVP else limits.ai_timeout

    async def clock_for(
        self, guild_id: int, mode: Mode, *, member_to_move: bool, fixed: float | None = None
    ) -> float | None:
        if mode is Mode.WATCH or not member_to_move:
            return None
        seconds = await self.turn_seconds(guild_id, mode, fixed)
        deadline = self._clock() + seconds
        # The watcher must also look when this clock's low-time warning falls due.
        if self.watched_until is None or deadline - warning_lead(seconds) < self.watched_until:
            self.deadlines_changed.set()
        return deadline

    async def with_clock(self, new: NewGame) -> NewGame:
        """`new` with the clock of its first move, written with the game itself."""
        deadline = await self.clock_for(
            new.guild_id, new.mode, member_to_move=is_member(new.x), fixed=new.turn_seconds
        )
        return replace(new, deadline=deadline)


class Timeouts:
    """Finishes the games whose member to move ran out of time."""

    def __init__(
        self,
        store: ClockStore,
        games: GameStore,
        cache: GameCache,
        clocks: Clocks,
        rate: RatePolicy,
        boards: QueueStore,
        mirrors: Mirrors | None = None,
    ) -> None:
        self._store = store
        self._boards = boards
        # The other servers' boards of a game between two, redrawn through rows written with
        # the loss on time (the clocks' watcher draws the game's own).
        self._mirrors = mirrors
        self._rate = rate
        self._games = games
        self._cache = cache
        self._clocks = clocks

    async def expire_games(self, *, shard_id: int = 0, shard_count: int = 1) -> list[GameState]:
        """Finish the shard's games whose member to move ran out of time: they lose. Each game
        is finished once, even if the bot restarts (or another process asks) in between; the
        games this call finished."""
        now = self._clocks.now()
        finished: list[GameState] = []
        for row in await self._store.due_games(now, shard_id=shard_id, shard_count=shard_count):
            async with self._cache.lock(row.id):
                state = await self._finish_on_time(row.id, now)
            if state is not None:
                finished.append(state)
        return finished

    async def due_warnings(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> tuple[list[GameState], float | None]:
        """The shard's running games whose member to move is to be warned now that their clock
        runs low (warning_lead), each claimed for this caller with its warning written to the
        outbox: a clock's warning is decided once, even across a restart or by several
        processes, and sent by the outbox's sender. And when the next warning falls due (None:
        no clock is waiting for one), for the watcher's sleep."""
        now = self._clocks.now()
        due: list[GameState] = []
        upcoming: float | None = None
        rows = await self._store.unwarned_clocks(
            now + MAX_WARNING, shard_id=shard_id, shard_count=shard_count
        )
        for row in rows:
            deadline = row.deadline
            if deadline is None or deadline <= now:
                continue  # run out: the game is lost on time, not warned
            warn_at = deadline - warning_lead(
                await self._clocks.turn_seconds(row.guild_id, row.mode, row.turn_seconds)
            )
            if warn_at > now:
                upcoming = warn_at if upcoming is None else min(upcoming, warn_at)
                continue
            state = await self._cache.read(self._games, row.id)
            if state is None or not state.active or state.row.deadline != deadline:
                continue  # moved on since: the claim below would find another clock
            # The warning is written with its claim: a stop before it is sent loses nothing
            # (bot.game.outbox_model), and the sender checks the turn is still this clock's. It
            # goes to the channel of the member's own board: in a game between two servers,
            # the other server's process sends it there, and no second row is ever needed.
            guild_id, channel_id = await self._warned_in(state)
            warning = NewPost(
                guild_id, channel_id, PostKind.CLOCK_WARNING,
                {"game": row.id, "deadline": deadline}, now,
            )
            if await self._store.claim_warning(row.id, deadline, [warning]):
                due.append(state)
        later = await self._store.next_unwarned_clock(
            now + MAX_WARNING, shard_id=shard_id, shard_count=shard_count
        )
        if later is not None:
            # Its warning is at most MAX_WARNING before it: look again by then.
            at = later - MAX_WARNING
            upcoming = at if upcoming is None else min(upcoming, at)
        return due, upcoming

    async def _warned_in(self, state: GameState) -> tuple[int, int]:
        """The server and channel of the board of the member to move: their board in another
        server (a game between two servers), else the game's own."""
        member = state.user_of(state.acting_mark)
        for board in await self._boards.game_boards(state.id):
            if board.user_id == member:
                return board.guild_id, board.channel_id
        return state.row.guild_id, state.row.channel_id

    async def _finish_on_time(self, game_id: int, now: float) -> GameState | None:
        """Finish `game_id` as lost on time by the member to move if their clock ran out by
        `now` (game lock held); the game after it, None if it was not due."""
        state = await self._cache.read(self._games, game_id)
        if state is None or not state.active or state.board.is_over():
            return None
        # The seat whose step or move it was loses, an opening's included.
        finish = Finish(winner=state.acting_mark.other, reason=EndReason.TIMEOUT)
        mirrors = self._mirrors
        posts = [] if mirrors is None else await mirrors.posts(state, state.row.guild_id)
        finished = await self._games.finish_game(
            game_id, finish, rate=self._rate, ply=state.board.ply, due_by=now,
            decisions=state.row.decisions, posts=posts,
        )
        if finished is None:
            return None
        if mirrors is not None:
            mirrors.written(posts)
        return self._cache.finished(finished)


__all__ = ["Clock", "Clocks", "Timeouts", "warning_lead"]
