"""The game service: options, moves, AI turns and per-game locks. No Discord code here.

Rules come from engine/ (Board decides legality and results); this module validates what users
send, keeps the database and the board in step, and serialises changes to one game with an
asyncio.Lock per game so two clicks on the same turn apply one move.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from engine import Board, IllegalMoveError, InvalidMoveError, Mark, Rule
from engine.ai import LEVELS
from engine.notation import SizeError, cell_name
from engine.notation import parse_size as engine_parse_size

from . import ratings
from .storage import (
    ActiveGameExists,
    ChallengeRow,
    Finish,
    GameRow,
    GuildSettings,
    MoveRow,
    NewGame,
    Storage,
)
from .texts import TextId, t

DIFFICULTIES: tuple[str, ...] = (*LEVELS, "adaptive")
# Levels that may give hints: against the strong levels a hint would play the game for you.
HINT_LEVELS: tuple[str, ...] = ("easy", "normal")
# The engine level that suggests hints.
HINT_ENGINE = "hard"
# Points per result (shown per difficulty in /caro stats), times the difficulty's weight.
LEVEL_WEIGHT: dict[str, int] = {"easy": 1, "normal": 2, "hard": 3, "impossible": 4}
RESULT_POINTS: dict[str, int] = {"win": 3, "draw": 1, "loss": 0}
SIZES: dict[str, tuple[int, int, int]] = {
    "3x3": (3, 3, 3),
    "4x4": (4, 4, 4),
    "5x5": (5, 5, 4),
    "9x9": (9, 9, 5),
    "15x15": (15, 15, 5),
    "19x19": (19, 19, 5),
}
# The Vietnamese game: 15x15, five in a row, caro rule, unless the player picks another rule.
PRESET_RULES: dict[str, Rule] = {"15x15": Rule.CARO}
RULES: tuple[str, ...] = tuple(r.value for r in Rule)
FIRSTS: tuple[str, ...] = ("me", "ai", "random")
CHALLENGE_FIRSTS: tuple[str, ...] = ("me", "them", "random")
# Defaults of the per-server turn clock (seconds): a person waiting for another gets the move
# back sooner; against the AI nobody waits, so a game may rest longer.
DEFAULT_TIMEOUTS = GuildSettings(pvp_timeout=10 * 60.0, ai_timeout=30 * 60.0)
MAX_TIMEOUT = 7 * 24 * 3600.0
CHALLENGE_SECONDS = 5 * 60.0

Think = Callable[[Board, str, str], Awaitable[tuple[tuple[int, int], str]]]
"""(board, level, seed) -> (AI's cell, reason id from engine.ai.explain)."""


class UserError(ValueError):
    """Something a user sent cannot be done; str() is the message to show them."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(t(key, **values))
        self.key = key
        self.values = values


@dataclass(frozen=True, slots=True)
class GameOptions:
    level: str
    rows: int
    cols: int
    k: int
    rule: Rule
    first: str  # "me", "ai" or "random"


def _choice(value: str | None, default: str, allowed: tuple[str, ...], option: str) -> str:
    if value is None:
        return default
    cleaned = value.strip().lower()
    if cleaned not in allowed:
        raise UserError(
            "error.bad_choice",
            value=value[:40].replace("*", "").replace("`", "") or "(empty)",
            option=TextId(f"option.{option}"),
            choices=", ".join(allowed),
        )
    return cleaned


def parse_options(
    difficulty: str | None = None,
    size: str | None = None,
    rule: str | None = None,
    first: str | None = None,
    *,
    firsts: tuple[str, ...] = FIRSTS,
) -> GameOptions:
    """Options of /caro start (and /caro challenge, with `firsts` = CHALLENGE_FIRSTS);
    UserError naming the valid choices for anything else."""
    level = _choice(difficulty, "normal", DIFFICULTIES, "difficulty")
    rows, cols, k = parse_size(size)
    size_key = f"{rows}x{cols}"
    default_rule = PRESET_RULES.get(size_key, Rule.FREESTYLE).value
    rule_name = _choice(rule, default_rule, RULES, "rule")
    who = _choice(first, "me", firsts, "first")
    return GameOptions(
        level=level, rows=rows, cols=cols, k=k, rule=Rule.parse(rule_name), first=who
    )


def parse_size(text: str | None) -> tuple[int, int, int]:
    """(rows, cols, k) of a preset ("15x15") or a typed size: "12x12" (k = 5, or the longer
    side if shorter) or "12x12k4", up to 26x26."""
    if text is None:
        return SIZES["3x3"]
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned in SIZES:
        return SIZES[cleaned]
    try:
        return engine_parse_size(cleaned).with_k()
    except SizeError:
        pass
    raise UserError(
        "error.bad_size",
        value=text[:40].replace("*", "").replace("`", "") or "(empty)",
        choices=", ".join(SIZES),
    )


def parse_timeout(minutes: float, *, minimum_seconds: float) -> float:
    """A turn time limit given in minutes, as seconds; UserError outside the allowed range."""
    seconds = minutes * 60.0
    if not minimum_seconds <= seconds <= MAX_TIMEOUT:
        raise UserError(
            "error.bad_timeout",
            low=_minutes_text(minimum_seconds),
            high=_minutes_text(MAX_TIMEOUT),
        )
    return seconds


def _minutes_text(seconds: float) -> str:
    return f"{seconds / 60:g}"


def points_for(result: str, level: str) -> int:
    return RESULT_POINTS[result] * LEVEL_WEIGHT.get(level, 0)


def ai_seed(game_id: int, ply: int) -> str:
    """Seed of the AI's random choices for one move: the same game position, the same move."""
    return f"caro-game-{game_id}-ply-{ply}"


@dataclass(frozen=True, slots=True)
class MoveRef:
    """A move a member asks for: which game, at which move count, which cell (by name)."""

    game_id: int
    ply: int
    cell: str


@dataclass(frozen=True, slots=True)
class GameState:
    """A stored game with its board rebuilt from the stored moves."""

    row: GameRow
    board: Board

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def mode(self) -> str:
        return self.row.mode

    @property
    def player_mark(self) -> Mark:
        return Mark[self.row.player_mark]

    @property
    def ai_mark(self) -> Mark:
        """The other side from player_mark (the AI's, or the opponent's in a game of two)."""
        return self.player_mark.other

    @property
    def active(self) -> bool:
        return self.row.status == "active"

    def user_of(self, mark: Mark) -> int | None:
        """The person playing `mark`, or None if an AI plays it."""
        if self.mode == "watch":
            return None
        if mark is self.player_mark:
            return self.row.player_id
        return self.row.opponent_id if self.mode == "pvp" else None

    def level_of(self, mark: Mark) -> str | None:
        """The AI level playing `mark`, or None if a person plays it."""
        if self.mode == "watch":
            return self.row.player_level if mark is self.player_mark else self.row.ai_level
        if self.mode == "ai" and mark is self.ai_mark:
            return self.row.ai_level
        return None

    def mark_of(self, user_id: int) -> Mark | None:
        """The mark `user_id` plays in this game, or None if they do not play in it."""
        for mark in (Mark.X, Mark.O):
            if self.user_of(mark) == user_id:
                return mark
        return None

    @property
    def mover_id(self) -> int | None:
        """The person whose turn it is; None if the game is over or an AI is to move."""
        if not self.active or self.board.is_over():
            return None
        return self.user_of(self.board.turn)

    @property
    def ai_to_move(self) -> bool:
        if not self.active or self.board.is_over():
            return False
        return self.level_of(self.board.turn) is not None

    @property
    def last_ai_move(self) -> tuple[str, str] | None:
        """(cell name, reason id) of the AI's latest move, if it has moved."""
        for move in reversed(self.row.moves):
            if move.by_ai:
                return move.cell, move.reason or "unknown"
        return None


def load_state(row: GameRow) -> GameState:
    board = Board(row.rows, row.cols, row.k, Rule.parse(row.rule))
    for move in row.moves:
        board.push_name(move.cell)
    return GameState(row=row, board=board)


def result_for(board: Board, player: Mark) -> Finish | None:
    outcome = board.outcome()
    if outcome is None:
        return None
    if outcome.winner is None:
        return Finish(result="draw", winner=None, points=0, reason="full")
    result = "win" if outcome.winner is player else "loss"
    return Finish(result=result, winner=outcome.winner.name, points=0)


def finish_with_winner(state: GameState, winner: Mark, reason: str) -> Finish:
    """The result when `winner` wins without a line (the other side resigned or ran out of time)."""
    result = "win" if winner is state.player_mark else "loss"
    points = points_for(result, state.row.ai_level) if state.mode == "ai" else 0
    return Finish(result=result, winner=winner.name, points=points, reason=reason)


@dataclass(frozen=True, slots=True)
class Hint:
    cell: str
    reason: str


Clock = Callable[[], float]


class GameService:
    def __init__(
        self,
        storage: Storage,
        think: Think,
        *,
        clock: Clock = time.time,
        default_timeouts: GuildSettings = DEFAULT_TIMEOUTS,
        challenge_seconds: float = CHALLENGE_SECONDS,
    ) -> None:
        self.storage = storage
        self._think = think
        self._clock = clock
        self.default_timeouts = default_timeouts
        self.challenge_seconds = challenge_seconds
        self._locks: dict[int, asyncio.Lock] = {}
        self._thinking: set[int] = set()
        # Wakes the deadline watcher when a new clock starts.
        self.deadlines_changed = asyncio.Event()

    def _lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    # ----------------------------------------------------------------- clocks
    async def timeouts(self, guild_id: int) -> GuildSettings:
        return await self.storage.guild_settings(guild_id, self.default_timeouts)

    async def _deadline(self, state: GameState, board: Board) -> float | None:
        """When the side to move on `board` loses on time; None if no person is to move."""
        if board.is_over() or state.mode == "watch":
            return None
        if state.user_of(board.turn) is None:
            return None
        limits = await self.timeouts(state.row.guild_id)
        seconds = limits.pvp_timeout if state.mode == "pvp" else limits.ai_timeout
        self.deadlines_changed.set()
        return self._clock() + seconds

    # ----------------------------------------------------------------- starting games
    async def start(
        self,
        *,
        guild_id: int,
        channel_id: int,
        player_id: int,
        options: GameOptions,
        rng: random.Random,
        locale: str = "en-US",
    ) -> GameState:
        """A new game against the AI; ActiveGameExists if the player has one in this channel."""
        level = options.level
        if level == "adaptive":
            standing = await self.storage.standing(guild_id, player_id, "ai")
            level = ratings.nearest_level(standing.rating)
        player_first = options.first == "me" or (options.first == "random" and rng.random() < 0.5)
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            player_id=player_id,
            player_mark="X" if player_first else "O",
            ai_level=level,
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            locale=locale,
        )
        return await self._create(new)

    async def start_watch(
        self,
        *,
        guild_id: int,
        channel_id: int,
        starter_id: int,
        x_level: str,
        o_level: str,
        options: GameOptions,
        locale: str = "en-US",
    ) -> GameState:
        """A new AI-vs-AI game; `starter_id` only watches (player_mark X is x_level's side)."""
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            player_id=starter_id,
            player_mark="X",
            ai_level=o_level,
            player_level=x_level,
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            mode="watch",
            locale=locale,
        )
        return await self._create(new)

    async def _create(self, new: NewGame) -> GameState:
        state = load_state(await self.storage.create_game(new))
        deadline = await self._deadline(state, state.board)
        if deadline is not None:
            await self.storage.set_deadline(state.id, 0, deadline)
            return await self._reload(state.id)
        return state

    async def active_game(self, guild_id: int, channel_id: int, player_id: int) -> GameRow | None:
        return await self.storage.active_game(guild_id, channel_id, player_id)

    async def attach_message(self, game_id: int, message_id: int) -> None:
        await self.storage.set_message(game_id, message_id)

    async def abandon(self, game_id: int) -> None:
        await self.storage.abandon_game(game_id)

    async def get_meta(self, key: str) -> str | None:
        return await self.storage.get_meta(key)

    async def set_meta(self, key: str, value: str) -> None:
        await self.storage.set_meta(key, value)

    async def state(self, game_id: int) -> GameState | None:
        row = await self.storage.game(game_id)
        return None if row is None else load_state(row)

    # ----------------------------------------------------------------- challenges
    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        opponent_is_bot: bool,
        options: GameOptions,
        locale: str,
    ) -> ChallengeRow:
        if opponent_id == challenger_id:
            raise UserError("challenge.self")
        if opponent_is_bot:
            raise UserError("challenge.bot")
        for user in (challenger_id, opponent_id):
            running = await self.storage.active_game(guild_id, channel_id, user)
            if running is not None:
                key = "error.already_playing_nolink" if user == challenger_id else "challenge.busy"
                raise UserError(key, user=f"<@{user}>")
        self.deadlines_changed.set()
        return await self.storage.create_challenge(
            guild_id=guild_id,
            channel_id=channel_id,
            challenger_id=challenger_id,
            opponent_id=opponent_id,
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            first=options.first,
            locale=locale,
            deadline=self._clock() + self.challenge_seconds,
        )

    async def answer_challenge(
        self, challenge_id: int, user_id: int, *, accept: bool, rng: random.Random
    ) -> tuple[ChallengeRow, GameState | None]:
        """Accept (a new game) or decline a pending challenge; only the challenged may answer."""
        found = await self.storage.challenge(challenge_id)
        if found is None:
            raise UserError("click.no_game")
        withdrawing = user_id == found.challenger_id and not accept
        if user_id != found.opponent_id and not withdrawing:
            raise UserError("challenge.not_for_you", user=f"<@{found.opponent_id}>")
        if found.status != "pending" or found.deadline <= self._clock():
            raise UserError("challenge.closed")
        if not accept:
            if not await self.storage.close_challenge(challenge_id, "declined"):
                raise UserError("challenge.closed")
            return await self._challenge_row(challenge_id), None
        challenger_first = found.first == "me" or (found.first == "random" and rng.random() < 0.5)
        new = NewGame(
            guild_id=found.guild_id,
            channel_id=found.channel_id,
            player_id=found.challenger_id,
            player_mark="X" if challenger_first else "O",
            ai_level="pvp",
            rows=found.rows,
            cols=found.cols,
            k=found.k,
            rule=found.rule,
            mode="pvp",
            opponent_id=found.opponent_id,
            locale=found.locale,
        )
        try:
            state = await self._create(new)
        except ActiveGameExists:
            raise UserError("challenge.someone_busy") from None
        if not await self.storage.close_challenge(challenge_id, "accepted", game_id=state.id):
            await self.storage.abandon_game(state.id)
            raise UserError("challenge.closed")
        return await self._challenge_row(challenge_id), state

    async def _challenge_row(self, challenge_id: int) -> ChallengeRow:
        found = await self.storage.challenge(challenge_id)
        assert found is not None
        return found

    async def expire_challenges(self) -> list[ChallengeRow]:
        """Close the challenges nobody answered in time; the ones this call closed."""
        closed: list[ChallengeRow] = []
        for found in await self.storage.due_challenges(self._clock()):
            if await self.storage.close_challenge(found.id, "expired"):
                closed.append(await self._challenge_row(found.id))
        return closed

    # ----------------------------------------------------------------- moves
    async def play(self, ref: MoveRef, *, user_id: int, message_id: int | None) -> GameState:
        """A person's move (a click or a typed cell); UserError (nothing changed) if it cannot be
        applied now."""
        async with self._lock(ref.game_id):
            state, mark = await self._running_game_of(ref.game_id, user_id)
            if message_id is not None and state.row.message_id not in (None, message_id):
                raise UserError("click.stale")
            board = state.board
            if ref.ply != board.ply:
                raise UserError("click.stale")
            if board.turn is not mark:
                if state.mode == "pvp":
                    raise UserError("click.wait_for", user=f"<@{state.user_of(board.turn)}>")
                raise UserError("click.not_your_turn")
            try:
                cell = board.parse_move(ref.cell)
            except InvalidMoveError:
                raise UserError("click.off_board", cell=ref.cell) from None
            try:
                board.push(cell)
            except IllegalMoveError:
                raise UserError("click.taken", cell=ref.cell) from None
            after = await self._store_move(state, board, by_ai=False, reason=None)
            if after is None:
                raise UserError("click.stale")
            return after

    async def ai_move(self, game_id: int) -> GameState | None:
        """Let the AI answer if it is its turn; None if there was nothing to do (or it lost a race).

        The search runs without the game's lock (it may take seconds); the answer is stored only
        if the game has not moved on meanwhile.
        """
        if game_id in self._thinking:
            return None
        self._thinking.add(game_id)
        try:
            state = await self.state(game_id)
            if state is None or not state.ai_to_move:
                return None
            ply = state.board.ply
            level = state.level_of(state.board.turn)
            assert level is not None
            cell, reason = await self._think(state.board.copy(), level, ai_seed(game_id, ply))
            async with self._lock(game_id):
                state = await self.state(game_id)
                if state is None or not state.ai_to_move or state.board.ply != ply:
                    return None
                state.board.push(cell)
                return await self._store_move(state, state.board, by_ai=True, reason=reason)
        finally:
            self._thinking.discard(game_id)

    async def _store_move(
        self, state: GameState, board: Board, *, by_ai: bool, reason: str | None
    ) -> GameState | None:
        """Store the move just pushed on `board` (the board of `state`, one move ahead of its
        row); the game after it, or None if the game moved on meanwhile (nothing stored).

        A move that does not end the game changes nothing but the ply, the clock and the list of
        moves, so the new state is built here instead of read back: on a busy bot each trip to
        the database waits behind every other game's.
        """
        ply = board.ply - 1
        cell = board.moves[-1]
        finish = self._finish(board, state)
        deadline = await self._deadline(state, board)
        stored = await self.storage.add_move(
            state.id,
            ply,
            cell_name(cell),
            by_ai=by_ai,
            reason=reason,
            finish=finish,
            deadline=deadline,
        )
        if not stored:
            return None
        if finish is not None:
            # The result, end reason and ratings are the database's to say.
            return await self._reload(state.id)
        move = MoveRow(ply=ply, cell=cell_name(cell), by_ai=by_ai, reason=reason)
        row = replace(state.row, ply=board.ply, deadline=deadline, moves=(*state.row.moves, move))
        return GameState(row=row, board=board)

    async def _running_game_of(self, game_id: int, user_id: int) -> tuple[GameState, Mark]:
        """The running game `game_id` and the mark `user_id` plays in it; UserError if it is
        gone, not theirs or over."""
        state = await self.state(game_id)
        if state is None:
            raise UserError("click.no_game")
        mark = state.mark_of(user_id)
        if mark is None:
            raise UserError("click.not_your_game")
        if not state.active:
            raise UserError("click.finished")
        return state, mark

    async def games_awaiting_ai(self) -> list[GameState]:
        return [load_state(row) for row in await self.storage.games_awaiting_ai()]

    async def hint(self, game_id: int, ply: int, user_id: int) -> Hint:
        """The engine's suggestion for the player's move, counted in the game record."""
        state, _ = await self._running_game_of(game_id, user_id)
        if state.mode != "ai" or state.row.ai_level not in HINT_LEVELS:
            raise UserError("hint.not_here")
        if state.board.ply != ply:
            raise UserError("click.stale")
        if state.mover_id != user_id:
            raise UserError("click.not_your_turn")
        cell, reason = await self._think(
            state.board.copy(), HINT_ENGINE, f"caro-hint-{game_id}-ply-{ply}"
        )
        if not await self.storage.add_hint(game_id, ply):
            raise UserError("click.stale")
        return Hint(cell=cell_name(cell), reason=reason)

    # ----------------------------------------------------------------- ending games
    async def resign(
        self, game_id: int, user_id: int, *, expected_ply: int | None = None
    ) -> GameState:
        """`user_id` gives the game up; the other side wins."""
        async with self._lock(game_id):
            state, mark = await self._running_game_of(game_id, user_id)
            ply = state.board.ply if expected_ply is None else expected_ply
            finish = finish_with_winner(state, mark.other, "resign")
            if not await self.storage.finish_game(game_id, finish, ply=ply):
                raise UserError("click.stale")
            return await self._reload(game_id)

    async def stop_watch(self, game_id: int, user_id: int, *, may_manage: bool) -> GameState:
        """End a running AI-vs-AI game as abandoned (nobody is rated). Only its starter, or a
        member who may manage the channel's messages, may stop it."""
        async with self._lock(game_id):
            state = await self.state(game_id)
            if state is None:
                raise UserError("click.no_game")
            if state.mode != "watch":
                raise UserError("watch.not_watch")
            if user_id != state.row.player_id and not may_manage:
                raise UserError("watch.stop_denied", user=f"<@{state.row.player_id}>")
            if not state.active:
                raise UserError("click.finished")
            if not await self.storage.abandon_game(game_id):
                raise UserError("click.finished")
            return await self._reload(game_id)

    async def expire_games(self) -> list[GameState]:
        """Finish the games whose side to move ran out of time: it loses. Each game is finished
        once, even if the bot restarts in between; the games this call finished."""
        now = self._clock()
        finished: list[GameState] = []
        for row in await self.storage.due_games(now):
            async with self._lock(row.id):
                state = await self.state(row.id)
                if state is None or not state.active or state.board.is_over():
                    continue
                finish = finish_with_winner(state, state.board.turn.other, "timeout")
                if await self.storage.finish_game(
                    row.id, finish, ply=state.board.ply, due_by=now
                ):
                    finished.append(await self._reload(row.id))
        return finished

    async def rematch_options(self, game_id: int, user_id: int) -> tuple[GameState, GameOptions]:
        """The finished game `user_id` played in, and the options of its rematch: same board,
        colours swapped."""
        state = await self.state(game_id)
        if state is None:
            raise UserError("click.no_game")
        mark = state.mark_of(user_id)
        if mark is None:
            raise UserError("click.not_your_game")
        if state.active:
            raise UserError("rematch.still_running")
        if state.mode == "pvp":
            first = "them" if mark is Mark.X else "me"
        else:
            first = "ai" if mark is Mark.X else "me"
        options = GameOptions(
            level=state.row.ai_level,
            rows=state.row.rows,
            cols=state.row.cols,
            k=state.row.k,
            rule=Rule.parse(state.row.rule),
            first=first,
        )
        return state, options

    @staticmethod
    def _finish(board: Board, state: GameState) -> Finish | None:
        finish = result_for(board, state.player_mark)
        if finish is None:
            return None
        points = points_for(finish.result, state.row.ai_level) if state.mode == "ai" else 0
        return Finish(
            result=finish.result, winner=finish.winner, points=points, reason=finish.reason
        )

    async def _reload(self, game_id: int) -> GameState:
        state = await self.state(game_id)
        assert state is not None  # games are never deleted
        if not state.active:
            self._locks.pop(game_id, None)
        return state


__all__ = [
    "ActiveGameExists",
    "CHALLENGE_FIRSTS",
    "DIFFICULTIES",
    "FIRSTS",
    "GameOptions",
    "GameService",
    "GameState",
    "Hint",
    "LEVELS",
    "MoveRef",
    "RULES",
    "SIZES",
    "UserError",
    "ai_seed",
    "load_state",
    "parse_options",
    "parse_size",
    "parse_timeout",
    "points_for",
]
