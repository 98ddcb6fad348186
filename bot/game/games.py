"""The games: starting them, moves, AI turns and ending them. No Discord code here.

Rules come from engine/ (Board decides legality and results); this module validates what members
send, keeps the database and the board in step, and serialises changes to one game with the
game's lock (bot.game.cache) so two clicks on the same turn apply one move.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Hashable
from dataclasses import dataclass, replace

from bot.game import ratings
from bot.game.cache import GameCache
from bot.game.clocks import Clocks
from bot.game.cooldowns import Cooldowns
from bot.game.errors import UserError
from bot.game.levels import ExternalLevel
from bot.game.model import (
    ActiveGameExists,
    AiLevel,
    EndReason,
    Finish,
    GameRow,
    GameState,
    Mode,
    MoveRef,
    MoveRow,
    NewGame,
    RatingChange,
    Seat,
    finish_of,
    jump_link,
    load_state,
    parse_ai_level,
)
from bot.game.openings import (
    OPENING_REASON,
    applied,
    choice_step,
    click_action,
    decided_row,
)
from bot.game.options import (
    ADAPTIVE,
    GameOptions,
)
from bot.game.ports import Answer, Finished, GameStore, MoveOutcome, RatePolicy, StandingStore
from bot.game.searches import Searches, Thinker, ai_seed, failed
from bot.i18n.texts import TextId
from engine import Board, IllegalMoveError, InvalidMoveError, Mark, Rule
from engine.game.notation import cell_name
from engine.game.openings import Action, Choice, Opening, StepKind
from engine.game.renju import ForbiddenMoveError
from engine.game.types import Level
from engine.players.external import supports


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


def _ai_level(name: str, options: GameOptions, external: ExternalLevel) -> AiLevel:
    """The AI of a chosen level for a game with `options`; UserError for the external engine
    once it is no longer set up (a rematch, or a command sent before the operator removed it),
    or on a board or under a rule it does not play (it would never make a move of its own)."""
    level = parse_ai_level(name)
    if isinstance(level, Level):
        return level
    engine = external.engine
    if engine is None:
        raise UserError("error.external_gone")
    if not supports(Board(options.rows, options.cols, options.k, options.rule)):
        raise UserError("error.external_board", name=engine.name)
    if not external.plays(options.rule):
        raise UserError(
            "error.external_rule",
            name=engine.name,
            rule=TextId(f"rulename.{options.rule.value}"),
            rules=", ".join(rule.value for rule in Rule if rule in engine.rules),
        )
    return level


class GameService:
    """The games' state machine: starting them (within the cooldowns and the limits), moves,
    AI turns, ending them. Changes to one game are serialised by its lock in the cache."""

    def __init__(
        self,
        store: GameStore,
        ai: Thinker,
        clocks: Clocks,
        cache: GameCache,
        standings: StandingStore,
        *,
        limits: Limits = DEFAULT_LIMITS,
        cooldowns: Cooldowns,
        external: ExternalLevel,
        rate: RatePolicy,
    ) -> None:
        self._store = store
        # The operator's external engine: which games may seat it.
        self.external = external
        # The rating policy of a finished game (the external engine's anchor bound in).
        self._rate = rate
        self._ai = ai
        self._clocks = clocks
        self._cache = cache
        self._standings = standings
        self._searches = Searches(ai, cache)
        self.limits = limits
        # Taken in the actions below (start, start_watch; the challenges take theirs) rather
        # than by the commands, so that a button or a Rematch reaching an action meets the same
        # rate as its command.
        self.cooldowns = cooldowns
        # Checking a limit and creating the game must not interleave with another start in the
        # same server, or two starts could both pass the check.
        self._guild_locks: dict[int, asyncio.Lock] = {}
        self._thinking: set[int] = set()

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
            standing = await self._standings.standing(guild_id, player_id, Mode.AI)
            level = ratings.nearest_level(standing.rating)
        else:
            level = _ai_level(options.level, options, self.external)
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
            rated=options.rated and ratings.rated(Mode.AI, options.rows, options.cols, options.k),
            locale=locale,
            # The member is the opening's first player when they play X first.
            opening=options.opening,
        )
        async with self._guild_locks.setdefault(guild_id, asyncio.Lock()):
            # The member's own running game in this channel is reported as ActiveGameExists
            # (with its link) before any limit.
            running = await self._store.active_game(guild_id, channel_id, player_id)
            if running is not None:
                raise ActiveGameExists(running)
            counts = await self._store.live_counts(guild_id, player_id)
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
        x = _ai_level(x_level, options, self.external)
        o = _ai_level(o_level, options, self.external)
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
        async with self._guild_locks.setdefault(guild_id, asyncio.Lock()):
            running = await self._store.active_watch(guild_id, channel_id)
            if running is not None:
                raise ActiveGameExists(running)
            counts = await self._store.live_counts(guild_id, starter_id)
            if counts.guild_watches >= self.limits.watches_per_server:
                raise UserError("limit.server_watches", count=self.limits.watches_per_server)
            return await self._create(new)

    async def start_tournament_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        x: Seat,
        o: Seat,
        organiser: int,
        options: GameOptions,
        turn_seconds: float,
        tournament_id: int,
        locale: str,
    ) -> GameState:
        """A tournament's game between two entries (members or AI levels); ActiveGameExists if a
        member has another running game in the channel. No cooldown or limit applies: the
        tournament started it, not a member. Two AIs play a free opening (an AI-vs-AI game has
        no one to take an opening's steps through the board)."""
        members = sum(1 for seat in (x, o) if isinstance(seat, int))
        mode = (Mode.WATCH, Mode.AI, Mode.PVP)[members]
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            mode=mode,
            x=x,
            o=o,
            started_by=next((s for s in (x, o) if isinstance(s, int)), organiser),
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            rated=(
                options.rated
                and mode is not Mode.WATCH
                and ratings.rated(mode, options.rows, options.cols, options.k)
            ),
            locale=locale,
            opening=options.opening if mode is not Mode.WATCH else Opening.FREE,
            tournament_id=tournament_id,
            turn_seconds=turn_seconds,
        )
        return await self._create(new)

    async def forfeit(self, game_id: int, loser: Mark) -> GameState | None:
        """End a running game as lost by `loser` (a player removed from a tournament); None if
        it was not running."""
        async with self._cache.lock(game_id):
            state = await self.state(game_id)
            if state is None or not state.active:
                return None
            finish = Finish(winner=loser.other, reason=EndReason.RESIGN)
            finished = await self._store.finish_game(
                game_id, finish, rate=self._rate, ply=state.board.ply,
                decisions=state.row.decisions,
            )
            return None if finished is None else self._cache.finished(finished)

    async def _create(self, new: NewGame) -> GameState:
        state = load_state(await self._store.create_game(await self._clocks.with_clock(new)))
        self._cache.remember(state)
        return state

    async def active_game(self, guild_id: int, channel_id: int, player_id: int) -> GameRow | None:
        return await self._store.active_game(guild_id, channel_id, player_id)

    async def last_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None:
        """The member's most recent game in a channel in which they played, running or not."""
        return await self._store.last_game(guild_id, channel_id, user_id)

    async def attach_message(self, game_id: int, message_id: int) -> None:
        try:
            await self._store.set_message(game_id, message_id)
        except BaseException:
            self._cache.drop(game_id)
            raise
        self._cache.attached(game_id, message_id)

    async def abandon(self, game_id: int) -> None:
        self._cache.drop(game_id)
        await self._store.abandon_game(game_id)

    async def state(self, game_id: int) -> GameState | None:
        return await self._cache.read(self._store, game_id)

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
        async with self._cache.lock(ref.game_id):
            known = self._cache.recent(ref.game_id)
            after: GameState | MoveOutcome | None = None
            if known is not None and known.board.ply == ref.ply:
                # The click was drawn on the position this process stored last: no read.
                after = await self._play(known, ref, user_id=user_id, message_id=message_id)
                if after is MoveOutcome.STALE:
                    # That position is out of date (another process changed the game: a restart
                    # moved its shard here, a takeback rewound it, or a clock ran out): judge the
                    # move again on the game as stored.
                    self._cache.drop(ref.game_id)
                    known = None
            if known is None or known.board.ply != ref.ply:
                after = await self._play(
                    await self.state(ref.game_id), ref, user_id=user_id, message_id=message_id
                )
            return self._stored(after)

    async def _play(
        self, state: GameState | None, ref: MoveRef, *, user_id: int, message_id: int | None
    ) -> GameState | MoveOutcome:
        state, mark = _running(state, user_id)
        if message_id is not None and state.row.message_id not in (None, message_id):
            # A drawing of this game on another message: its board was reposted (/caro board).
            row = state.row
            link = jump_link(row.guild_id, row.channel_id, state.row.message_id)
            raise UserError("click.moved", link=link)
        # A copy: a drawing may still hold this board, and a refused move must not stay on it.
        board = state.board.copy()
        if ref.ply != board.ply:
            raise UserError("click.stale")
        if state.opening is not None:
            self._check_actor(state, user_id)
            action = click_action(state.opening, board, ref.cell)
            return await self._opening_act(state, action, by_ai=False)
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
        except ForbiddenMoveError as exc:
            shape = exc.forbidden.shape.value
            raise UserError("click.forbidden", cell=ref.cell, shape=TextId(f"shape.{shape}")) from None
        except IllegalMoveError:
            raise UserError("click.taken", cell=ref.cell) from None
        now = self._clocks.now()
        answer = await self._searches.answer(state, board, user_id)
        after = await self._store_move(
            state, board, by_ai=False, reason=None, now=now, answer=answer
        )
        if answer is not None or not isinstance(after, GameState):
            self._cache.searches.pop(state.id, None)
        return after

    async def ai_move(
        self, game_id: int, known: GameState | None = None, *, member: Hashable
    ) -> GameState | None:
        """Let the AI answer if it is its turn, its search in `member`'s turn of the pool; None
        if there was nothing to do (or it lost a race).

        `known`: the game as this process just wrote it (the member's move), which saves reading
        it again. The search runs without the game's lock (it may take seconds); the answer is
        stored only if the game has not moved on meanwhile: the write itself checks that the game
        still runs at the position searched (its move count and takebacks, see
        GameStore.add_move), so no read-back is needed to guard it, whichever process changed the
        game.
        """
        if game_id in self._thinking:
            return None
        self._thinking.add(game_id)
        try:
            state = known if known is not None and known.id == game_id else await self.state(game_id)
            if state is None or not state.ai_to_move:
                return None
            while state.opening is not None:
                # The AI's steps of the opening, one after another while they are its own.
                acted = await self._ai_opening_step(state, member)
                if acted is None or not acted.ai_to_move:
                    return acted
                state = acted
            level = state.level_of(state.board.turn)
            assert level is not None
            pending = self._cache.searches.get(game_id)
            if pending is not None and (pending[0] != state.board.moves or failed(pending[1])):
                # Of another position, or failed (its pool may since have been replaced): this
                # turn searches afresh.
                self._cache.searches.pop(game_id, None)
            try:
                cell, reason = await self._searches.search(game_id, state.board, level, member)
            finally:
                self._cache.searches.pop(game_id, None)
            async with self._cache.lock(game_id):
                # A drawing may still hold the known state's board: the move goes on a copy.
                board = state.board.copy()
                board.push(cell)
                after = await self._store_move(
                    state, board, by_ai=True, reason=reason, now=self._clocks.now()
                )
                return after if isinstance(after, GameState) else None
        finally:
            self._thinking.discard(game_id)

    # ----------------------------------------------------------------- openings
    @staticmethod
    def _check_actor(state: GameState, user_id: int) -> None:
        """UserError unless the opening's step (or the move) is `user_id`'s."""
        if state.mover_id == user_id:
            return
        if state.mode is Mode.PVP and state.mover_id is not None:
            raise UserError("click.wait_for", user=f"<@{state.mover_id}>")
        raise UserError("click.not_your_turn")

    async def choose(
        self, game_id: int, stage: int, choice: Choice, *, user_id: int, message_id: int | None
    ) -> GameState:
        """A member's colour choice in the opening of `game_id`, clicked on its drawing at
        `stage` (GameState.stage); UserError (nothing changed) if it cannot be taken now."""
        async with self._cache.lock(game_id):
            state, _ = _running(await self.state(game_id), user_id)
            if message_id is not None and state.row.message_id not in (None, message_id):
                row = state.row
                assert row.message_id is not None
                link = jump_link(row.guild_id, row.channel_id, row.message_id)
                raise UserError("click.moved", link=link)
            if state.stage != stage or choice not in choice_step(state):
                raise UserError("click.stale")
            self._check_actor(state, user_id)
            return self._stored(await self._opening_act(state, Action.choose(choice), by_ai=False))

    def _stored(self, after: GameState | MoveOutcome | None) -> GameState:
        """The game after a member's stored step; UserError if it was not stored."""
        if after is MoveOutcome.LATE:
            # The clock ran out before this step, whether or not the deadline watcher has run
            # since: nothing is written, and the watcher is woken to end the game on time and
            # redraw its board (finishing it here would leave the board unredrawn).
            self._clocks.deadlines_changed.set()
            raise UserError("click.too_late")
        if not isinstance(after, GameState):
            raise UserError("click.stale")
        return after

    async def _ai_opening_step(self, state: GameState, member: Hashable) -> GameState | None:
        """The AI's action in the step of the opening that is its own (decided in the pool, by
        its evaluation), stored; None if the game moved on meanwhile."""
        opening = state.opening
        level = state.level_of(state.acting_mark)
        assert opening is not None and level is not None
        action = await self._ai.open(opening, level, member, ai_seed(state.id, state.stage))
        async with self._cache.lock(state.id):
            after = await self._opening_act(state, action, by_ai=True)
        return after if isinstance(after, GameState) else None

    async def _opening_act(
        self, state: GameState, action: Action, *, by_ai: bool
    ) -> GameState | MoveOutcome:
        """Store `action`, checked by the engine, as the opening's next step: a stone is a
        move like any other; a choice or an offer is a decision, written with the seats swapped
        when it gives X to the other player, and the clock of whoever acts next."""
        opening = state.opening
        assert opening is not None
        after = applied(opening, action)
        now = self._clocks.now()
        if action.kind in (StepKind.PLACE, StepKind.SELECT):
            board = state.board.copy()
            board.push(after.board.moves[-1])
            reason = OPENING_REASON if by_ai else None
            return await self._store_move(state, board, by_ai=by_ai, reason=reason, now=now)
        row, swap = decided_row(state.row, opening, after)
        decided = GameState(row=row, board=state.board)
        deadline = await self._clocks.deadline(decided, state.board)
        outcome = await self._store.add_decision(
            state.id,
            state.board.ply,
            state.row.decisions,
            after.decisions,
            swap=swap,
            now=now,
            deadline=deadline,
        )
        if outcome is not MoveOutcome.STORED:
            if outcome is MoveOutcome.STALE:
                self._cache.drop(state.id)
            return outcome
        decided = GameState(row=replace(row, deadline=deadline), board=state.board)
        self._cache.remember(decided)
        return decided

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
        deadline = await self._clocks.deadline(state, board)
        outcome = await self._store.add_move(
            state.id,
            ply,
            cell_name(cell),
            by_ai=by_ai,
            now=now,
            reason=reason,
            finish=finish,
            deadline=deadline,
            rate=self._rate,
            answer=reply,
            takebacks=state.row.takebacks,
        )
        if isinstance(outcome, Finished):
            # The result, end reason and ratings are the database's to say: the write returned
            # them.
            return self._cache.finished(outcome, board)
        if outcome is not MoveOutcome.STORED:
            return outcome
        row = replace(state.row, ply=board.ply, deadline=deadline, moves=(*state.row.moves, *moves))
        after = GameState(row=row, board=board)
        self._cache.remember(after)
        return after

    def quick_wait(self, level: AiLevel | None) -> float:
        """Seconds a member's move (or a new board) may wait for the answer of the AI at `level`
        to show both at once; 0 for a slow level or a member's turn (None)."""
        return self._searches.quick_wait(level)

    async def running_game_of(self, game_id: int, user_id: int) -> tuple[GameState, Mark]:
        """The running game `game_id` and the mark `user_id` plays in it; UserError if it is
        gone, not theirs or over."""
        return _running(await self.state(game_id), user_id)

    # ----------------------------------------------------------------- ending games
    async def resign(
        self, game_id: int, user_id: int, *, expected_ply: int | None = None
    ) -> GameState:
        """`user_id` gives the game up; the other side wins."""
        async with self._cache.lock(game_id):
            state, mark = await self.running_game_of(game_id, user_id)
            ply = state.board.ply if expected_ply is None else expected_ply
            finish = Finish(winner=mark.other, reason=EndReason.RESIGN)
            now = self._clocks.now()
            finished = await self._store.finish_game(
                game_id, finish, rate=self._rate, ply=ply, not_due_at=now,
                decisions=state.row.decisions,
            )
            if finished is None:
                if state.row.deadline is not None and state.row.deadline <= now:
                    # The member to move already lost on time: that result stands, and the
                    # deadline watcher is woken to write and draw it.
                    self._clocks.deadlines_changed.set()
                    raise UserError("click.finished")
                raise UserError("click.stale")
            return self._cache.finished(finished)

    async def stop_watch(self, game_id: int, user_id: int, *, may_manage: bool) -> GameState:
        """End a running AI-vs-AI game as abandoned (nobody is rated). Only its starter, or a
        member who may manage the channel's messages, may stop it."""
        async with self._cache.lock(game_id):
            state = await self.state(game_id)
            if state is None:
                raise UserError("click.no_game")
            if state.mode is not Mode.WATCH:
                raise UserError("watch.not_watch")
            if state.row.tournament_id is not None:
                raise UserError("tournament.no_stop")
            if user_id != state.starter_id and not may_manage:
                raise UserError("watch.stop_denied", user=f"<@{state.starter_id}>")
            if not state.active:
                raise UserError("click.finished")
            if not await self._store.abandon_game(game_id):
                raise UserError("click.finished")
            return await self._reload(game_id)

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
            # A casual game's rematch is casual too.
            rated=state.row.rated
            or not ratings.rated(state.mode, state.row.rows, state.row.cols, state.row.k),
            opening=state.row.opening,
        )
        return state, options

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        known = self._cache.changes(game_id)
        if known is not None:
            return list(known)
        return await self._standings.rating_changes(game_id)

    async def _reload(self, game_id: int) -> GameState:
        state = await self.state(game_id)
        assert state is not None  # games are never deleted
        if not state.active:
            self._cache.forget(game_id)
        return state


def _running(state: GameState | None, user_id: int) -> tuple[GameState, Mark]:
    if state is None:
        raise UserError("click.no_game")
    mark = state.mark_of(user_id)
    if mark is None:
        raise UserError("click.not_your_game")
    if not state.active:
        raise UserError("click.finished")
    return state, mark


__all__ = [
    "DEFAULT_LIMITS",
    "GameService",
    "Limits",
    "Thinker",
]
