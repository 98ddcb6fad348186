"""A game's moves: members' clicks and choices, the AI's turns, and the opening's steps. No
Discord code here.

Rules come from engine/ (Board decides legality and results); this module validates what members
send, stores each move with the clock of the next (bot.game.clocks), and serialises changes to one
game with the game's lock (bot.game.cache) so two clicks on the same turn apply one move. Starting
and ending games is bot.game.games'.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace

from bot.game.cache import GameCache
from bot.game.clocks import Clocks
from bot.game.errors import UserError
from bot.game.games import running
from bot.game.mirrors import Mirrors
from bot.game.model import (
    AiLevel,
    GameState,
    Mode,
    MoveRef,
    MoveRow,
    finish_of,
    jump_link,
)
from bot.game.openings import (
    OPENING_REASON,
    applied,
    choice_step,
    click_action,
    decided_row,
)
from bot.game.outbox_model import NewPost
from bot.game.ports import Answer, Finished, GameStore, MoveOutcome, RatePolicy
from bot.game.searches import Searches, Thinker, ai_seed, failed
from bot.i18n.texts import TextId
from engine import Board, IllegalMoveError, InvalidMoveError
from engine.game.notation import cell_name
from engine.game.openings import Action, Choice, StepKind
from engine.game.renju import ForbiddenMoveError


class Moves:
    """The moves of running games: a member's click or choice, checked by the engine and stored
    with the AI's answer when it comes quickly; the AI's turn otherwise. Changes to one game are
    serialised by its lock in the cache."""

    def __init__(
        self,
        store: GameStore,
        ai: Thinker,
        clocks: Clocks,
        cache: GameCache,
        *,
        rate: RatePolicy,
        mirrors: Mirrors | None = None,
    ) -> None:
        self._store = store
        # The other servers' boards of a game between two: redrawn through rows written with
        # each move.
        self._mirrors = mirrors
        self._ai = ai
        self._clocks = clocks
        self._cache = cache
        # The rating policy of a game a move finishes (the external engine's anchor bound in).
        self._rate = rate
        self._searches = Searches(ai, cache)
        self._thinking: set[int] = set()

    async def _state(self, game_id: int) -> GameState | None:
        return await self._cache.read(self._store, game_id)

    async def play(
        self,
        ref: MoveRef,
        *,
        user_id: int,
        message_id: int | None,
        guild_id: int | None = None,
    ) -> GameState:
        """A member's move (a click or a typed cell) on the game's board in server `guild_id`;
        UserError (nothing changed) if it cannot be applied now. In a game between two servers
        the boards in the others are redrawn through outbox rows written with the move.

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
                after = await self._play(
                    known, ref, user_id=user_id, message_id=message_id, guild_id=guild_id
                )
                if after is MoveOutcome.STALE:
                    # That position is out of date (another process changed the game: a restart
                    # moved its shard here, a takeback rewound it, or a clock ran out): judge the
                    # move again on the game as stored.
                    self._cache.drop(ref.game_id)
                    known = None
            if known is None or known.board.ply != ref.ply:
                after = await self._play(
                    await self._state(ref.game_id), ref,
                    user_id=user_id, message_id=message_id, guild_id=guild_id,
                )
            return self._stored(after)

    async def _play(
        self,
        state: GameState | None,
        ref: MoveRef,
        *,
        user_id: int,
        message_id: int | None,
        guild_id: int | None,
    ) -> GameState | MoveOutcome:
        state, mark = running(state, user_id)
        if (
            message_id is not None
            and state.row.message_id not in (None, message_id)
            and not (self._mirrors is not None
                     and await self._mirrors.is_board(state, guild_id, message_id))
        ):
            # A drawing of this game on another message, and not its board in another server (a
            # queued game between two) either: its board was reposted (/caro board).
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
        # A member's move draws the other boards of a game between two servers from this
        # process (Turns.answer_move): their rows are written held by it.
        posts = (
            [] if self._mirrors is None
            else await self._mirrors.posts(
                state, guild_id, held=answer is None, ends=finish_of(board) is not None)
        )
        after = await self._store_move(
            state, board, by_ai=False, reason=None, now=now, answer=answer, posts=posts
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
            state = known if known is not None and known.id == game_id else await self._state(game_id)
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
            state, _ = running(await self._state(game_id), user_id)
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
        posts: list[NewPost] | None = None,
    ) -> GameState | MoveOutcome:
        """Store the move just pushed on `board` (the board of `state`, one move ahead of its
        row) and, with `answer`, the AI's reply to it (pushed here), and `posts` with them; the
        game after them, or why nothing was stored (STALE or LATE).

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
            posts=posts or (),
        )
        stored = isinstance(outcome, Finished) or outcome is MoveOutcome.STORED
        if stored and posts and self._mirrors is not None:
            self._mirrors.written(posts)
        if isinstance(outcome, Finished):
            # The result, end reason and ratings are the database's to say: the write returned
            # them.
            after = self._cache.finished(outcome, board)
        elif outcome is not MoveOutcome.STORED:
            return outcome
        else:
            row = replace(
                state.row, ply=board.ply, deadline=deadline, moves=(*state.row.moves, *moves))
            after = GameState(row=row, board=board)
            self._cache.remember(after)
        if posts and self._mirrors is not None:
            self._mirrors.keep_held(after, posts)
        return after

    def quick_wait(self, level: AiLevel | None) -> float:
        """Seconds a member's move (or a new board) may wait for the answer of the AI at `level`
        to show both at once; 0 for a slow level or a member's turn (None)."""
        return self._searches.quick_wait(level)


__all__ = ["Moves"]
