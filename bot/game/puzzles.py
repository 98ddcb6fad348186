"""Puzzles for members: a new one at the member's level, the server's daily puzzle, a retry of a
failed one; each played move by move against the engine's best defence, every move judged by
the engine at the time (engine.analysis.puzzles.check_move, in the CPU pool), and rated once per member
(bot.game.puzzle_model). Puzzles come from the shared set shipped with the bot
(shared_puzzles.jsonl, stored on first use) and from the server's own finished games, mined in
the background.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from bot.cpu import jobs
from bot.game.errors import UserError
from bot.game.model import GameRow
from bot.game.ports import MetaStore, PuzzleStore
from bot.game.puzzle_model import (
    LEADERBOARD_MIN_ATTEMPTS,
    AttemptKind,
    AttemptOutcome,
    AttemptResult,
    AttemptRow,
    NewAttempt,
    NewPuzzle,
    PuzzleRow,
    PuzzleStanding,
)
from engine import Board, Rule
from engine.analysis.puzzles import MoveCheck, Puzzle, Verdict, read_puzzles
from engine.game.notation import cell_name
from engine.game.types import MoveError

log = logging.getLogger("caro.bot")

RunInPool = Callable[..., Awaitable[Any]]
"""(worker function of bot.cpu.jobs, *its arguments) -> its result, run in the CPU pool."""
Clock = Callable[[], float]

SHARED_SET = "shared_puzzles.jsonl"
# The meta key of the shipped set's version a database stored.
SHARED_KEY = "shared_puzzles_version"
# Mining a finished game takes a worker for seconds: at most this many games an hour per process,
# and only when a worker is free, so members' moves never wait behind it.
MINED_GAMES_PER_HOUR = 30
# Games read per look for newly finished ones.
MINE_BATCH = 5
# Boards whose games are mined: k of at least 4 (smaller ones have no puzzle of 3 moves).
MIN_MINED_K = 4


def _shared_text() -> str:
    return resources.files("bot.game").joinpath(SHARED_SET).read_text(encoding="utf-8")


def shared_set() -> list[Puzzle]:
    """The puzzles shipped with the bot."""
    return read_puzzles(_shared_text())


def shared_version() -> str:
    """Which shipped set this is: a database that stored another gets the puzzles it lacks."""
    return hashlib.sha256(_shared_text().encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Session:
    """An attempt and its puzzle: the position now is the puzzle's with the attempt's moves."""

    attempt: AttemptRow
    puzzle: PuzzleRow

    def board(self) -> Board:
        board = self.puzzle.board()
        for name in self.attempt.moves:
            board.push_name(name)
        return board

    @property
    def ply(self) -> int:
        """Moves played in the attempt so far (a drawing's buttons carry it)."""
        return len(self.attempt.moves)


@dataclass(frozen=True, slots=True)
class MoveResult:
    """A member's move judged: the session after it, the engine's check, and for a finished
    attempt its result (the rating around it)."""

    session: Session
    check: MoveCheck
    finished: AttemptResult | None = None


def mined_key(shard_id: int, shard_count: int) -> str:
    """The meta key of the last game mined for one shard."""
    return f"puzzles_mined_through:{shard_id}/{shard_count}"


class PuzzleService:
    def __init__(self, store: PuzzleStore, meta: MetaStore, *, clock: Clock = time.time) -> None:
        self._store = store
        self._meta = meta
        self._clock = clock
        self._loaded = False
        self._loading = asyncio.Lock()
        self._mined_at: list[float] = []

    # ------------------------------------------------------------------ the shared set
    async def ensure_shared(self) -> int:
        """Store the shipped puzzles this database lacks (all of them at first, the new ones
        after an upgrade ships more); how many were new."""
        if self._loaded:
            return 0
        async with self._loading:
            if self._loaded:
                return 0
            added = 0
            version = shared_version()
            if await self._meta.get_meta(SHARED_KEY) != version:
                # Each position is stored once per scope: the ones already there are kept.
                puzzles = [NewPuzzle.of(p) for p in shared_set()]
                added = await self._store.add_puzzles(None, puzzles, now=self._clock())
                log.info("stored %d shared puzzles", added)
                await self._meta.set_meta(SHARED_KEY, version)
            self._loaded = True
            return added

    # ------------------------------------------------------------------ opening one
    async def start(
        self, kind: AttemptKind, *, guild_id: int, channel_id: int, user_id: int, locale: str
    ) -> Session:
        """Open an attempt of a new puzzle at the member's level (NEW), the server's daily
        puzzle (DAILY) or the puzzle they failed longest ago (RETRY); UserError if there is
        none."""
        await self.ensure_shared()
        puzzle: PuzzleRow | None
        if kind is AttemptKind.NEW:
            standing = await self._store.puzzle_standing(guild_id, user_id)
            puzzle = await self._store.nearest_unsolved(guild_id, user_id, standing.skill.mu)
            if puzzle is None:
                raise UserError("puzzle.none_left")
        elif kind is AttemptKind.DAILY:
            day = self.today()
            puzzle = await self._store.claim_daily(guild_id, day, _day_offset(guild_id, day))
            if puzzle is None:
                raise UserError("puzzle.none_left")
        else:
            puzzle = await self._store.failed_puzzle(guild_id, user_id)
            if puzzle is None:
                raise UserError("puzzle.none_failed")
        attempt = await self._store.start_attempt(
            NewAttempt(guild_id, channel_id, user_id, puzzle.id, kind, locale, self._clock())
        )
        return Session(attempt, puzzle)

    def today(self) -> str:
        """The UTC date the daily puzzle belongs to."""
        return datetime.fromtimestamp(self._clock(), UTC).date().isoformat()

    async def attach_message(self, attempt_id: int, message_id: int) -> None:
        await self._store.set_attempt_message(attempt_id, message_id)

    async def session(self, attempt_id: int) -> Session | None:
        attempt = await self._store.attempt(attempt_id)
        if attempt is None:
            return None
        puzzle = await self._store.puzzle(attempt.puzzle_id)
        return None if puzzle is None else Session(attempt, puzzle)

    async def own_session(self, attempt_id: int, user_id: int, ply: int) -> Session:
        """The open attempt `attempt_id` of the member, at `ply` moves; UserError otherwise."""
        session = await self.session(attempt_id)
        if session is None:
            raise UserError("click.no_game")
        if session.attempt.user_id != user_id:
            raise UserError("puzzle.not_yours")
        if not session.attempt.open:
            raise UserError("puzzle.over")
        if ply != session.ply:
            raise UserError("click.stale")
        return session

    # ------------------------------------------------------------------ playing
    async def move(
        self, attempt_id: int, user_id: int, ply: int, cell: str, run: RunInPool
    ) -> MoveResult:
        """The member's attacking move, judged by the engine in the pool (`run`): the engine's
        reply is played after a move that still wins, the attempt ends solved at the five and
        failed at a refuted move. A move the engine cannot judge within its limits (UNKNOWN)
        is not played and not counted."""
        session = await self.own_session(attempt_id, user_id, ply)
        board = session.board()
        name = empty_cell(board, cell)
        check: MoveCheck = await run(jobs.puzzle_check, board.text(), name)
        before = session.attempt.moves
        if check.verdict is Verdict.UNKNOWN:
            return MoveResult(session, check)
        if check.verdict is Verdict.WINNING:
            assert check.reply is not None
            after = (*before, name, cell_name(check.reply))
            if not await self._store.advance_attempt(attempt_id, before, after):
                raise UserError("click.stale")
            fresh = await self.session(attempt_id)
            assert fresh is not None
            return MoveResult(fresh, check)
        outcome = AttemptOutcome.SOLVED if check.verdict is Verdict.SOLVED else AttemptOutcome.FAILED
        finished = await self._store.finish_attempt(
            attempt_id, before, (*before, name), outcome, now=self._clock()
        )
        if finished is None:
            raise UserError("click.stale")
        return MoveResult(Session(finished.attempt, session.puzzle), check, finished)

    async def give_up(self, attempt_id: int, user_id: int, ply: int) -> tuple[Session, AttemptResult]:
        """End the attempt as failed (rated as a failure if it is the member's first)."""
        session = await self.own_session(attempt_id, user_id, ply)
        before = session.attempt.moves
        finished = await self._store.finish_attempt(
            attempt_id, before, before, AttemptOutcome.FAILED, now=self._clock()
        )
        if finished is None:
            raise UserError("click.stale")
        return Session(finished.attempt, session.puzzle), finished

    # ------------------------------------------------------------------ standings
    async def standing(self, guild_id: int, user_id: int) -> PuzzleStanding:
        return await self._store.puzzle_standing(guild_id, user_id)

    async def leaderboard(self, guild_id: int, limit: int = 10) -> list[PuzzleStanding]:
        return await self._store.puzzle_leaderboard(
            guild_id, min_attempts=LEADERBOARD_MIN_ATTEMPTS, limit=limit
        )

    # ------------------------------------------------------------------ mining
    async def mining_start(self, shards: list[int], shard_count: int) -> int:
        """The game after which mining goes on for these shards: where it stopped last time
        (the earliest of theirs), so games finished just before a restart are mined too; for a
        shard never mined, the newest finished game now (the past before it is left alone)."""
        newest = await self._store.newest_finished_game()
        through = [await self._meta.get_meta(mined_key(s, shard_count)) for s in shards]
        return min((int(t) if t is not None else newest for t in through), default=newest)

    async def mined_through(self, game_id: int, shards: list[int], shard_count: int) -> None:
        """Remember that these shards' games up to `game_id` were mined."""
        for shard in shards:
            await self._meta.set_meta(mined_key(shard, shard_count), str(game_id))

    def may_mine(self) -> bool:
        """Whether this hour's cap leaves room for one more game."""
        hour_ago = self._clock() - 3600.0
        self._mined_at = [t for t in self._mined_at if t > hour_ago]
        return len(self._mined_at) < MINED_GAMES_PER_HOUR

    async def games_to_mine(self, after: int) -> list[GameRow]:
        return await self._store.finished_games_after(after, limit=MINE_BATCH)

    async def mine_game(self, game: GameRow, run: RunInPool) -> int:
        """Mine one finished game in the pool (`run`) and store its puzzles under its server;
        how many were new. A board too small for puzzles is skipped."""
        if game.k < MIN_MINED_K or min(game.rows, game.cols) < game.k:
            return 0
        self._mined_at.append(self._clock())
        board = Board(game.rows, game.cols, game.k, Rule.parse(game.rule))
        for move in game.moves:
            board.push_name(move.cell)
        found: list[dict[str, Any]] = await run(
            jobs.puzzle_mine, board.text(), f"game {game.id}"
        )
        puzzles = [NewPuzzle.of(Puzzle.from_dict(data)) for data in found]
        if not puzzles:
            return 0
        return await self._store.add_puzzles(game.guild_id, puzzles, now=self._clock())


def empty_cell(board: Board, cell: str) -> str:
    """The name of `cell` if it is an empty cell of `board`; UserError otherwise."""
    try:
        parsed = board.parse_move(cell)
    except (MoveError, ValueError):
        parsed = None
    if parsed is None or board[parsed] is not None:
        raise UserError("puzzle.bad_cell", cell=cell[:8])
    return board.move_name(parsed)


def _day_offset(guild_id: int, day: str) -> int:
    """Which puzzle a server gets on a day: the same in every process, and unlike the day
    before's."""
    digest = hashlib.sha256(f"{guild_id}:{day}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


__all__ = [
    "MINED_GAMES_PER_HOUR",
    "MoveResult",
    "PuzzleService",
    "Session",
    "empty_cell",
    "shared_set",
]
