"""The game service: options, moves, AI turns, limits and per-game locks. No Discord code here.

Rules come from engine/ (Board decides legality and results); this module validates what members
send, keeps the database and the board in step, and serialises changes to one game with an
asyncio.Lock per game so two clicks on the same turn apply one move. The UI reaches the database
only through this service.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from bot.ai import external
from bot.game import ratings
from bot.game.cooldowns import Cooldowns
from bot.game.errors import UserError
from bot.game.model import (
    ActiveGameExists,
    AiLevel,
    ChallengeFirst,
    ChallengePending,
    ChallengeRow,
    ChallengeStatus,
    EndReason,
    Finish,
    GameRow,
    GameState,
    GuildSettings,
    Mode,
    MoveRef,
    MoveRow,
    NewChallenge,
    NewGame,
    RatedRow,
    RatingChange,
    Standing,
    UserStats,
    finish_of,
    is_member,
    jump_link,
    load_state,
    parse_ai_level,
)
from bot.game.options import (
    ADAPTIVE,
    GameOptions,
)
from bot.game.ports import REDRAW_FINISHED_WITHIN, Answer, Finished, MoveOutcome, Storage
from engine import Board, IllegalMoveError, InvalidMoveError, Mark, Rule
from engine.external import supports
from engine.notation import cell_name
from engine.types import Level

# Levels that may give hints: against the strong levels a hint would play the game for you.
HINT_LEVELS: tuple[Level, ...] = (Level.EASY, Level.NORMAL)
# The engine level that suggests hints.
HINT_ENGINE = Level.HARD
# Defaults of the per-server turn clock (seconds): a member waiting for another gets the move
# back sooner; against the AI nobody waits, so a game may rest longer.
DEFAULT_TIMEOUTS = GuildSettings(pvp_timeout=10 * 60.0, ai_timeout=30 * 60.0)
CHALLENGE_SECONDS = 5 * 60.0
# Running games whose latest state a process keeps (see GameService._recent): enough for every
# game clicked in the last minutes of a busy process, a few MB.
RECENT_GAMES = 2048
# Finished games whose rating changes a process keeps from the write that finished them: their
# final board is drawn right after (and perhaps once more on a redraw).
FINISHED_GAMES = 256

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


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on what one member (or one server) may keep running, so one member cannot take the
    AI's capacity or flood another member with challenges. A member has at most one game per
    channel and a channel at most one watch anyway; these bound the rest."""

    ai_games_per_member: int = 3  # running games against the AI, per member in one server
    ai_games_per_server: int = 40  # running games against the AI in one server
    watches_per_server: int = 4  # running AI-vs-AI games in one server
    challenges_per_challenger: int = 3  # pending challenges one member has sent
    challenges_per_challenged: int = 5  # pending challenges waiting for one member's answer


DEFAULT_LIMITS = Limits()


def _ai_level(name: str, options: GameOptions) -> AiLevel:
    """The AI of a chosen level for a game with `options`; UserError for the external engine
    once it is no longer set up (a rematch, or a command sent before the operator removed it),
    or on a board a piskvork brain does not play (it would never make a move of its own)."""
    level = parse_ai_level(name)
    if isinstance(level, Level):
        return level
    engine = external.engine()
    if engine is None:
        raise UserError("error.external_gone")
    if not supports(Board(options.rows, options.cols, options.k, options.rule)):
        raise UserError("error.external_board", name=engine.name)
    return level


def ai_seed(game_id: int, ply: int) -> str:
    """Seed of the AI's random choices for one move: the same game position, the same move."""
    return f"caro-game-{game_id}-ply-{ply}"


@dataclass(frozen=True, slots=True)
class Hint:
    cell: str
    reason: str


Clock = Callable[[], float]


class GameService:
    def __init__(
        self,
        storage: Storage,
        ai: Thinker,
        *,
        clock: Clock = time.time,
        default_timeouts: GuildSettings = DEFAULT_TIMEOUTS,
        challenge_seconds: float = CHALLENGE_SECONDS,
        limits: Limits = DEFAULT_LIMITS,
        cooldowns: Cooldowns | None = None,
    ) -> None:
        self.storage = storage
        self._ai = ai
        self._clock = clock
        self.default_timeouts = default_timeouts
        self.challenge_seconds = challenge_seconds
        self.limits = limits
        # Taken in the actions below (start, start_watch, challenge) rather than by the commands,
        # so that a button or a Rematch reaching an action meets the same rate as its command.
        self.cooldowns = cooldowns if cooldowns is not None else Cooldowns(clock)
        self._locks: dict[int, asyncio.Lock] = {}
        # Checking a limit and creating the game must not interleave with another start in the
        # same server, or two starts could both pass the check.
        self._guild_locks: dict[int, asyncio.Lock] = {}
        self._thinking: set[int] = set()
        # game id -> (ply, the AI's search from that position) started for a member's move
        # (see play) and not yet stored: the AI's turn takes it over instead of searching again.
        self._searches: dict[int, tuple[int, asyncio.Future[tuple[tuple[int, int], str]]]] = {}
        # game id -> (ply, the search for that ply's hint): one search and one count per ply,
        # however often (or however many at once) a member asks.
        self._hints: dict[int, tuple[int, asyncio.Task[Hint]]] = {}
        # Wakes the deadline watcher when a new clock starts.
        self.deadlines_changed = asyncio.Event()
        # When the deadline watcher looks at the clocks next by itself (see ClocksCog); None
        # while it is looking, or before it first ran: then every new clock wakes it. A clock
        # running out later than this needs no wake-up: at 50 moves a second, waking it for
        # each would cost three queries a move.
        self.watched_until: float | None = None
        # The running games as this process last stored a move in them (most recent last): a
        # click on one needs no read. A stale entry is harmless, as the move's write checks the
        # ply, status and clock in the database (see play); every other change of a game here
        # refreshes or drops its entry.
        self._recent: OrderedDict[int, GameState] = OrderedDict()
        # game id -> its rating changes, as the write that finished the game here returned them
        # (they never change after): drawing the final board reads nothing.
        self._changes: OrderedDict[int, tuple[RatingChange, ...]] = OrderedDict()

    def now(self) -> float:
        """The time on the clock deadlines are written in."""
        return self._clock()

    def _lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    def _guild_lock(self, guild_id: int) -> asyncio.Lock:
        return self._guild_locks.setdefault(guild_id, asyncio.Lock())

    # ----------------------------------------------------------------- installation facts
    async def get_meta(self, key: str) -> str | None:
        """A stored fact about this installation (e.g. the synced command tree's hash)."""
        return await self.storage.meta.get_meta(key)

    async def set_meta(self, key: str, value: str) -> None:
        await self.storage.meta.set_meta(key, value)

    # ----------------------------------------------------------------- clocks and settings
    async def timeouts(self, guild_id: int) -> GuildSettings:
        return await self.storage.settings.guild_settings(guild_id, self.default_timeouts)

    async def save_timeouts(self, guild_id: int, settings: GuildSettings) -> None:
        await self.storage.settings.save_guild_settings(guild_id, settings)

    async def next_deadline(self, *, shard_id: int = 0, shard_count: int = 1) -> float | None:
        """The earliest running clock of any game or pending challenge of the shard."""
        return await self.storage.clocks.next_deadline(shard_id=shard_id, shard_count=shard_count)

    async def _deadline(self, state: GameState, board: Board) -> float | None:
        """When the side to move on `board` loses on time; None if no member is to move."""
        if board.is_over():
            return None
        return await self._clock_for(
            state.row.guild_id, state.mode, member_to_move=state.user_of(board.turn) is not None
        )

    async def _clock_for(self, guild_id: int, mode: Mode, *, member_to_move: bool) -> float | None:
        if mode is Mode.WATCH or not member_to_move:
            return None
        limits = await self.timeouts(guild_id)
        seconds = limits.pvp_timeout if mode is Mode.PVP else limits.ai_timeout
        deadline = self._clock() + seconds
        if self.watched_until is None or deadline < self.watched_until:
            self.deadlines_changed.set()
        return deadline

    async def _with_clock(self, new: NewGame) -> NewGame:
        """`new` with the clock of its first move, written with the game itself."""
        deadline = await self._clock_for(new.guild_id, new.mode, member_to_move=is_member(new.x))
        return replace(new, deadline=deadline)

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
        """A new game against the AI; ActiveGameExists if the member has one in this channel,
        UserError if a limit on running AI games is reached."""
        level: AiLevel
        if options.level == ADAPTIVE:
            standing = await self.storage.standings.standing(guild_id, player_id, Mode.AI)
            level = ratings.nearest_level(standing.rating)
        else:
            level = _ai_level(options.level, options)
        self.cooldowns.start.hit(guild_id, player_id)
        player_first = options.first == "me" or (options.first == "random" and rng.random() < 0.5)
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            mode=Mode.AI,
            x=player_id if player_first else level,
            o=level if player_first else player_id,
            started_by=player_id,
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            rated=ratings.rated(Mode.AI, options.rows, options.cols, options.k),
            locale=locale,
        )
        async with self._guild_lock(guild_id):
            # The member's own running game in this channel is reported as ActiveGameExists
            # (with its link) before any limit.
            running = await self.storage.games.active_game(guild_id, channel_id, player_id)
            if running is not None:
                raise ActiveGameExists(running)
            counts = await self.storage.games.live_counts(guild_id, player_id)
            if counts.member_ai_games >= self.limits.ai_games_per_member:
                raise UserError("limit.member_ai_games", count=self.limits.ai_games_per_member)
            if counts.guild_ai_games >= self.limits.ai_games_per_server:
                raise UserError("limit.server_ai_games", count=self.limits.ai_games_per_server)
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
        """A new AI-vs-AI game that `starter_id` watches; ActiveGameExists if the channel has one
        running, UserError if the server's limit on watches is reached."""
        x, o = _ai_level(x_level, options), _ai_level(o_level, options)
        self.cooldowns.watch.hit(guild_id, starter_id)
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            mode=Mode.WATCH,
            x=x,
            o=o,
            started_by=starter_id,
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            rated=False,
            locale=locale,
        )
        async with self._guild_lock(guild_id):
            running = await self.storage.games.active_watch(guild_id, channel_id)
            if running is not None:
                raise ActiveGameExists(running)
            counts = await self.storage.games.live_counts(guild_id, starter_id)
            if counts.guild_watches >= self.limits.watches_per_server:
                raise UserError("limit.server_watches", count=self.limits.watches_per_server)
            return await self._create(new)

    async def _create(self, new: NewGame) -> GameState:
        state = load_state(await self.storage.games.create_game(await self._with_clock(new)))
        self._remember(state)
        return state

    async def active_game(self, guild_id: int, channel_id: int, player_id: int) -> GameRow | None:
        return await self.storage.games.active_game(guild_id, channel_id, player_id)

    async def last_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None:
        """The member's most recent game in a channel in which they played, running or not."""
        return await self.storage.games.last_game(guild_id, channel_id, user_id)

    async def attach_message(self, game_id: int, message_id: int) -> None:
        try:
            await self.storage.games.set_message(game_id, message_id)
        except BaseException:
            self._recent.pop(game_id, None)
            raise
        known = self._recent.get(game_id)
        if known is not None:
            self._recent[game_id] = _on_message(known, message_id)

    async def abandon(self, game_id: int) -> None:
        self._recent.pop(game_id, None)
        await self.storage.games.abandon_game(game_id)

    async def state(self, game_id: int) -> GameState | None:
        row = await self.storage.games.game(game_id)
        if row is None:
            return None
        state = load_state(row)
        if game_id in self._recent:
            self._remember(state)
        return state

    def _remember(self, state: GameState) -> None:
        """Keep `state` as the newest known of its game while it runs."""
        if not state.active:
            self._recent.pop(state.id, None)
            return
        known = self._recent.get(state.id)
        if state.row.message_id is None and known is not None and known.row.message_id is not None:
            # Built from a state read before the board was posted (the AI's first move, searched
            # while the board was on its way): the message is the one attach_message stored.
            state = _on_message(state, known.row.message_id)
        self._recent[state.id] = state
        self._recent.move_to_end(state.id)
        if len(self._recent) > RECENT_GAMES:
            self._recent.popitem(last=False)

    async def games_to_redraw(
        self, finished_within: float = REDRAW_FINISHED_WITHIN, *, shard_id: int = 0,
        shard_count: int = 1,
    ) -> list[GameState]:
        """Games of the shard whose message may be behind the database after a crash (see
        storage)."""
        rows = await self.storage.meta.games_to_redraw(
            finished_within, shard_id=shard_id, shard_count=shard_count
        )
        return [load_state(row) for row in rows]

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
        """A new pending challenge; UserError if it cannot be made: over a cooldown or a limit, a
        player busy in this channel, or a challenge between the two already waiting in this server
        (whichever of them sent it, in whichever channel: the one waiting is named instead, and
        nobody is pinged twice)."""
        if opponent_id == challenger_id:
            raise UserError("challenge.self")
        if opponent_is_bot:
            raise UserError("challenge.bot")
        self.cooldowns.challenge.hit(guild_id, challenger_id)
        for user in (challenger_id, opponent_id):
            running = await self.storage.games.active_game(guild_id, channel_id, user)
            if running is not None:
                key = "error.already_playing_nolink" if user == challenger_id else "challenge.busy"
                raise UserError(key, user=f"<@{user}>")
        async with self._guild_lock(guild_id):
            sent, received = await self.storage.challenges.pending_challenges(
                challenger_id=challenger_id, opponent_id=opponent_id
            )
            if sent >= self.limits.challenges_per_challenger:
                raise UserError(
                    "limit.challenges_sent", count=self.limits.challenges_per_challenger
                )
            if received >= self.limits.challenges_per_challenged:
                raise UserError("limit.challenges_received", user=f"<@{opponent_id}>")
            try:
                created = await self._create_challenge(
                    guild_id, channel_id, challenger_id, opponent_id, options, locale
                )
            except ChallengePending as exc:
                waiting = exc.challenge
                link = (
                    f"<#{waiting.channel_id}>"
                    if waiting.message_id is None
                    else jump_link(waiting.guild_id, waiting.channel_id, waiting.message_id)
                )
                raise UserError("challenge.pending", user=f"<@{opponent_id}>", link=link) from None
            self.deadlines_changed.set()
            return created

    async def _create_challenge(
        self,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        options: GameOptions,
        locale: str,
    ) -> ChallengeRow:
        now = self._clock()
        return await self.storage.challenges.create_challenge(
            NewChallenge(
                guild_id=guild_id,
                channel_id=channel_id,
                challenger_id=challenger_id,
                opponent_id=opponent_id,
                rows=options.rows,
                cols=options.cols,
                k=options.k,
                rule=options.rule.value,
                first=ChallengeFirst(options.first),
                locale=locale,
                deadline=now + self.challenge_seconds,
            ),
            now=now,
        )

    async def attach_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await self.storage.challenges.set_challenge_message(challenge_id, message_id)

    async def answer_challenge(
        self, challenge_id: int, user_id: int, *, accept: bool, rng: random.Random
    ) -> tuple[ChallengeRow, GameState | None]:
        """Accept (a new game) or decline a pending challenge; only the challenged may answer."""
        found = await self.storage.challenges.challenge(challenge_id)
        if found is None:
            raise UserError("click.no_game")
        withdrawing = user_id == found.challenger_id and not accept
        if user_id != found.opponent_id and not withdrawing:
            raise UserError("challenge.not_for_you", user=f"<@{found.opponent_id}>")
        if found.status is not ChallengeStatus.PENDING or found.deadline <= self._clock():
            raise UserError("challenge.closed")
        if not accept:
            if not await self.storage.challenges.close_challenge(challenge_id, ChallengeStatus.DECLINED):
                raise UserError("challenge.closed")
            return await self._challenge_row(challenge_id), None
        challenger_first = found.first is ChallengeFirst.ME or (
            found.first is ChallengeFirst.RANDOM and rng.random() < 0.5
        )
        x, o = (
            (found.challenger_id, found.opponent_id)
            if challenger_first
            else (found.opponent_id, found.challenger_id)
        )
        new = NewGame(
            guild_id=found.guild_id,
            channel_id=found.channel_id,
            mode=Mode.PVP,
            x=x,
            o=o,
            started_by=found.challenger_id,
            rows=found.rows,
            cols=found.cols,
            k=found.k,
            rule=found.rule,
            rated=ratings.rated(Mode.PVP, found.rows, found.cols, found.k),
            locale=found.locale,
            # The challenge message becomes the board: the game is never seen without a message
            # (an unposted game would be abandoned by a /caro start racing this accept).
            message_id=found.message_id,
        )
        try:
            row = await self.storage.challenges.accept_challenge(challenge_id, await self._with_clock(new))
        except ActiveGameExists:
            raise UserError("challenge.someone_busy") from None
        if row is None:
            raise UserError("challenge.closed")
        return await self._challenge_row(challenge_id), load_state(row)

    async def find_challenge(self, challenge_id: int) -> ChallengeRow | None:
        return await self.storage.challenges.challenge(challenge_id)

    async def _challenge_row(self, challenge_id: int) -> ChallengeRow:
        found = await self.storage.challenges.challenge(challenge_id)
        assert found is not None
        return found

    async def expire_challenges(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[ChallengeRow]:
        """Close the shard's challenges nobody answered in time; the ones this call closed."""
        closed: list[ChallengeRow] = []
        due = await self.storage.challenges.due_challenges(
            self._clock(), shard_id=shard_id, shard_count=shard_count
        )
        for found in due:
            if await self.storage.challenges.close_challenge(found.id, ChallengeStatus.EXPIRED):
                closed.append(await self._challenge_row(found.id))
        return closed

    # ----------------------------------------------------------------- moves
    async def play(
        self,
        ref: MoveRef,
        *,
        user_id: int,
        message_id: int | None,
    ) -> GameState:
        """A member's move (a click or a typed cell); UserError (nothing changed) if it cannot be
        applied now.

        The AI to move next searches its answer first (in `user_id`'s turn of the pool), and if
        it comes within its quick wait (Thinker.quick_wait) both moves are stored in one write:
        one trip to the database per click instead of two. Otherwise the member's move is stored
        alone and its search goes on for the AI's turn (ai_move). The member's move is timed at
        the click either way."""
        async with self._lock(ref.game_id):
            known = self._recent.get(ref.game_id)
            after: GameState | MoveOutcome | None = None
            if known is not None and known.board.ply == ref.ply:
                # The click was drawn on the position this process stored last: no read.
                after = await self._play(known, ref, user_id=user_id, message_id=message_id)
                if after is MoveOutcome.STALE:
                    # That position is out of date (another process changed the game: a restart
                    # moved its shard here, or a clock ran out): judge the move again on the
                    # game as stored.
                    self._recent.pop(ref.game_id, None)
                    known = None
            if known is None or known.board.ply != ref.ply:
                after = await self._play(
                    await self.state(ref.game_id), ref, user_id=user_id, message_id=message_id
                )
            if after is MoveOutcome.LATE:
                # The clock ran out before this move, whether or not the deadline watcher has run
                # since: nothing is written, and the watcher is woken to end the game on time and
                # redraw its board (finishing it here would leave the board unredrawn).
                self.deadlines_changed.set()
                raise UserError("click.too_late")
            if not isinstance(after, GameState):
                raise UserError("click.stale")
            return after

    async def _play(
        self, state: GameState | None, ref: MoveRef, *, user_id: int, message_id: int | None
    ) -> GameState | MoveOutcome:
        state, mark = self._running(state, user_id)
        if message_id is not None and state.row.message_id not in (None, message_id):
            raise UserError("click.stale")
        # A copy: a drawing may still hold this board, and a refused move must not stay on it.
        board = state.board.copy()
        if ref.ply != board.ply:
            raise UserError("click.stale")
        if board.turn is not mark:
            if state.mode is Mode.PVP:
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
        now = self._clock()
        answer = await self._answer(state, board, user_id)
        after = await self._store_move(
            state, board, by_ai=False, reason=None, now=now, answer=answer
        )
        if answer is not None or not isinstance(after, GameState):
            self._searches.pop(state.id, None)
        return after

    def quick_wait(self, level: AiLevel | None) -> float:
        """Seconds a member's move (or a new board) may wait for the answer of the AI at `level`
        to show both at once; 0 for a slow level or a member's turn (None)."""
        return 0.0 if level is None else self._ai.quick_wait(level)

    async def _answer(
        self, state: GameState, board: Board, member: Hashable
    ) -> tuple[tuple[int, int], str] | None:
        """The AI's answer on `board` (a member's move just pushed) if the AI is to move and
        finds it within its quick wait; None otherwise (its search, if any, goes on: see
        _search)."""
        if board.is_over():
            return None
        level = state.level_of(board.turn)
        wait = self.quick_wait(level)
        if level is None or wait <= 0:
            return None
        search = self._search(state.id, board, level, member)
        if not await answered_within(search, wait) or failed(search):
            return None  # the AI's turn waits for it, or searches again
        return search.result()

    def _search(
        self, game_id: int, board: Board, level: AiLevel, member: Hashable
    ) -> asyncio.Future[tuple[tuple[int, int], str]]:
        """The AI's search from `board` in game `game_id`, in `member`'s turn: the one already
        under way from that position, or a new one."""
        pending = self._searches.get(game_id)
        if pending is not None and pending[0] == board.ply:
            return pending[1]
        search = asyncio.ensure_future(
            self._ai.think(board.copy(), level, member, ai_seed(game_id, board.ply))
        )
        # Its failure is reported by whoever awaits it; left over, it is not worth a log line.
        search.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._searches[game_id] = (board.ply, search)
        return search

    async def ai_move(
        self, game_id: int, known: GameState | None = None, *, member: Hashable
    ) -> GameState | None:
        """Let the AI answer if it is its turn, its search in `member`'s turn of the pool; None
        if there was nothing to do (or it lost a race).

        `known`: the game as this process just wrote it (the member's move), which saves reading
        it again. The search runs without the game's lock (it may take seconds); the answer is
        stored only if the game has not moved on meanwhile: the write itself checks that the game
        still runs at the move count searched (see Storage.add_move), so no read-back is needed
        to guard it, whichever process changed the game.
        """
        if game_id in self._thinking:
            return None
        self._thinking.add(game_id)
        try:
            state = known if known is not None and known.id == game_id else await self.state(game_id)
            if state is None or not state.ai_to_move:
                return None
            level = state.level_of(state.board.turn)
            assert level is not None
            pending = self._searches.get(game_id)
            if pending is not None and (pending[0] != state.board.ply or failed(pending[1])):
                # Of another position, or failed (its pool may since have been replaced): this
                # turn searches afresh.
                self._searches.pop(game_id, None)
            try:
                cell, reason = await self._search(game_id, state.board, level, member)
            finally:
                self._searches.pop(game_id, None)
            async with self._lock(game_id):
                # A drawing may still hold the known state's board: the move goes on a copy.
                board = state.board.copy()
                board.push(cell)
                after = await self._store_move(
                    state, board, by_ai=True, reason=reason, now=self._clock()
                )
                return after if isinstance(after, GameState) else None
        finally:
            self._thinking.discard(game_id)

    async def _store_move(
        self, state: GameState, board: Board, *, by_ai: bool, reason: str | None, now: float,
        answer: tuple[tuple[int, int], str] | None = None,
    ) -> GameState | MoveOutcome:
        """Store the move just pushed on `board` (the board of `state`, one move ahead of its
        row) and, with `answer`, the AI's reply to it (pushed here); the game after them, or
        why nothing was stored (STALE or LATE).

        A move that does not end the game changes nothing but the ply, the clock and the list of
        moves, so the new state is built here instead of read back: on a busy bot each trip to
        the database waits behind every other game's.
        """
        ply = board.ply - 1
        cell = board.moves[-1]
        moves = [MoveRow(ply=ply, cell=cell_name(cell), by_ai=by_ai, reason=reason)]
        reply = None
        if answer is not None:
            board.push(answer[0])
            reply = Answer(cell=cell_name(answer[0]), reason=answer[1])
            moves.append(MoveRow(ply=ply + 1, cell=reply.cell, by_ai=True, reason=reply.reason))
        finish = finish_of(board)
        deadline = await self._deadline(state, board)
        outcome = await self.storage.games.add_move(
            state.id,
            ply,
            cell_name(cell),
            by_ai=by_ai,
            now=now,
            reason=reason,
            finish=finish,
            deadline=deadline,
            rate=ratings.game_updates,
            answer=reply,
        )
        if isinstance(outcome, Finished):
            # The result, end reason and ratings are the database's to say: the write returned
            # them.
            return self._finished(outcome, board)
        if outcome is not MoveOutcome.STORED:
            return outcome
        row = replace(state.row, ply=board.ply, deadline=deadline, moves=(*state.row.moves, *moves))
        after = GameState(row=row, board=board)
        self._remember(after)
        return after

    async def _running_game_of(self, game_id: int, user_id: int) -> tuple[GameState, Mark]:
        """The running game `game_id` and the mark `user_id` plays in it; UserError if it is
        gone, not theirs or over."""
        return self._running(await self.state(game_id), user_id)

    @staticmethod
    def _running(state: GameState | None, user_id: int) -> tuple[GameState, Mark]:
        if state is None:
            raise UserError("click.no_game")
        mark = state.mark_of(user_id)
        if mark is None:
            raise UserError("click.not_your_game")
        if not state.active:
            raise UserError("click.finished")
        return state, mark

    async def games_awaiting_ai(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[GameState]:
        rows = await self.storage.meta.games_awaiting_ai(shard_id=shard_id, shard_count=shard_count)
        return [load_state(row) for row in rows]

    async def hint(self, game_id: int, ply: int, user_id: int) -> Hint:
        """The engine's suggestion for the member's move, counted in the game record."""
        state, _ = await self._running_game_of(game_id, user_id)
        if state.mode is not Mode.AI or state.ai_level not in HINT_LEVELS:
            raise UserError("hint.not_here")
        if state.board.ply != ply:
            raise UserError("click.stale")
        if state.mover_id != user_id:
            raise UserError("click.not_your_turn")
        known = self._hints.get(game_id)
        if known is None or known[0] != ply or failed(known[1]):
            task = asyncio.ensure_future(self._new_hint(state, ply, user_id))
            self._hints[game_id] = known = (ply, task)
        return await asyncio.shield(known[1])

    async def _new_hint(self, state: GameState, ply: int, member: int) -> Hint:
        cell, reason = await self._ai.think(
            state.board.copy(), HINT_ENGINE, member, f"caro-hint-{state.id}-ply-{ply}"
        )
        self._recent.pop(state.id, None)
        if not await self.storage.games.add_hint(state.id, ply):
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
            finish = Finish(winner=mark.other, reason=EndReason.RESIGN)
            now = self._clock()
            finished = await self.storage.games.finish_game(
                game_id, finish, rate=ratings.game_updates, ply=ply, not_due_at=now
            )
            if finished is None:
                if state.row.deadline is not None and state.row.deadline <= now:
                    # The member to move already lost on time: that result stands, and the
                    # deadline watcher is woken to write and draw it.
                    self.deadlines_changed.set()
                    raise UserError("click.finished")
                raise UserError("click.stale")
            return self._finished(finished)

    async def stop_watch(self, game_id: int, user_id: int, *, may_manage: bool) -> GameState:
        """End a running AI-vs-AI game as abandoned (nobody is rated). Only its starter, or a
        member who may manage the channel's messages, may stop it."""
        async with self._lock(game_id):
            state = await self.state(game_id)
            if state is None:
                raise UserError("click.no_game")
            if state.mode is not Mode.WATCH:
                raise UserError("watch.not_watch")
            if user_id != state.starter_id and not may_manage:
                raise UserError("watch.stop_denied", user=f"<@{state.starter_id}>")
            if not state.active:
                raise UserError("click.finished")
            if not await self.storage.games.abandon_game(game_id):
                raise UserError("click.finished")
            return await self._reload(game_id)

    async def expire_games(self, *, shard_id: int = 0, shard_count: int = 1) -> list[GameState]:
        """Finish the shard's games whose member to move ran out of time: they lose. Each game
        is finished once, even if the bot restarts (or another process asks) in between; the
        games this call finished."""
        now = self._clock()
        finished: list[GameState] = []
        for row in await self.storage.clocks.due_games(now, shard_id=shard_id, shard_count=shard_count):
            async with self._lock(row.id):
                state = await self._finish_on_time(row.id, now)
            if state is not None:
                finished.append(state)
        return finished

    async def _finish_on_time(self, game_id: int, now: float) -> GameState | None:
        """Finish `game_id` as lost on time by the member to move if their clock ran out by
        `now` (game lock held); the game after it, None if it was not due."""
        state = await self.state(game_id)
        if state is None or not state.active or state.board.is_over():
            return None
        finish = Finish(winner=state.board.turn.other, reason=EndReason.TIMEOUT)
        finished = await self.storage.games.finish_game(
            game_id, finish, rate=ratings.game_updates, ply=state.board.ply, due_by=now
        )
        return None if finished is None else self._finished(finished)

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
        if state.mode is Mode.PVP:
            first = "them" if mark is Mark.X else "me"
        else:
            first = "ai" if mark is Mark.X else "me"
        level = state.ai_level
        options = GameOptions(
            level=(level or Level.NORMAL).value,
            rows=state.row.rows,
            cols=state.row.cols,
            k=state.row.k,
            rule=Rule.parse(state.row.rule),
            first=first,
        )
        return state, options

    # ----------------------------------------------------------------- standings
    # The mode may come as its name from a command option ("pvp", "ai"); Mode() refuses others.
    async def standing(self, scope: int, user_id: int, mode: Mode | str) -> Standing:
        return await self.storage.standings.standing(scope, user_id, Mode(mode))

    async def rated_leaderboard(
        self, scope: int, mode: Mode | str, *, min_games: int, limit: int = 10
    ) -> list[RatedRow]:
        return await self.storage.standings.rated_leaderboard(
            scope, Mode(mode), min_games=min_games, limit=limit
        )

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        known = self._changes.get(game_id)
        if known is not None:
            return list(known)
        return await self.storage.standings.rating_changes(game_id)

    async def user_stats(self, guild_id: int, user_id: int) -> UserStats:
        return await self.storage.standings.user_stats(guild_id, user_id)

    def _finished(self, finished: Finished, board: Board | None = None) -> GameState:
        """The game as the write that finished it returned it (`board`: its final board, if at
        hand), its rating changes kept for drawing it; drops what was kept for it running."""
        game_id = finished.game.id
        self._changes[game_id] = finished.changes
        if len(self._changes) > FINISHED_GAMES:
            self._changes.popitem(last=False)
        self._forget(game_id)
        if board is None:
            return load_state(finished.game)
        return GameState(row=finished.game, board=board)

    def _forget(self, game_id: int) -> None:
        """Drop what this process keeps for a running game (it is over)."""
        self._recent.pop(game_id, None)
        self._locks.pop(game_id, None)
        self._hints.pop(game_id, None)
        self._searches.pop(game_id, None)

    async def _reload(self, game_id: int) -> GameState:
        state = await self.state(game_id)
        assert state is not None  # games are never deleted
        if not state.active:
            self._forget(game_id)
        return state


def _on_message(state: GameState, message_id: int) -> GameState:
    """`state` as drawn on message `message_id`."""
    return GameState(row=replace(state.row, message_id=message_id), board=state.board)


def failed(task: asyncio.Future[Any]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


async def answered_within(pending: asyncio.Future[T], seconds: float) -> bool:
    """Whether `pending` (an AI's answer on its way) is done within `seconds`. It is never
    cancelled here: an answer that comes later is the AI's turn's to store."""
    if seconds <= 0:
        return pending.done()
    done, _ = await asyncio.wait({pending}, timeout=seconds)
    return bool(done)


__all__ = [
    "CHALLENGE_SECONDS",
    "DEFAULT_LIMITS",
    "DEFAULT_TIMEOUTS",
    "GameService",
    "HINT_ENGINE",
    "HINT_LEVELS",
    "Hint",
    "Limits",
    "Thinker",
    "ai_seed",
    "answered_within",
    "failed",
]
