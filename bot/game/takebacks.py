"""Takebacks: a member takes their last move back. No Discord code here.

Against the AI the member's last move and the AI's reply to it are undone at once, so it is the
member's turn again. Between members the member who just moved asks, and the move is undone only
if the other member accepts before answering it with a move; the request is stored with the game
(it outlives a restart) and names the move count it was asked at, so any further move, or the
game ending, leaves it answering nothing.

Only casual games allow takebacks (`refusal`): a rated game's moves stand, and so will a
tournament game's, by one more condition there. A game allows at most MAX_TAKEBACKS, so a member
cannot replay a game into a win move by move.

In a queued game between two servers each member sees the game in their own channel, where the
other cannot: the request is an outbox row for the asked member's channel, and the answer one
for the asker's, each written with the change it tells of (an accepted one also redraws every
board of the game), so the process holding each server sends them.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.game.cache import GameCache
from bot.game.clocks import Clocks
from bot.game.errors import UserError
from bot.game.model import GameRow, GameState, Mode, Status, load_state
from bot.game.openings import opening_stones
from bot.game.outbox import OutboxService
from bot.game.outbox_model import NewPost, PostKind
from bot.game.ports import GameStore, QueueStore, TakebackStore
from bot.i18n.texts import TextId
from engine import Board, Mark

# Takebacks per game, both members' together: enough for a slip or two, too few to turn a lost
# game around by trying every move.
MAX_TAKEBACKS = 3


def refusal(row: GameRow) -> str | None:
    """Why game `row` allows no takeback (a text id), None if it allows them."""
    if row.mode is Mode.WATCH:
        return "takeback.watch"
    if row.rated:
        return "takeback.rated"
    if row.tournament_id is not None:
        # A tournament's result must be the game as played, rated or not.
        return "takeback.tournament"
    return None


@dataclass(frozen=True, slots=True)
class Request:
    """A takeback asked between members, waiting for `opponent`'s answer at move count
    `state.board.ply`."""

    state: GameState
    requester: int
    opponent: int
    # Asked in the opponent's own server (a game between two servers): the outbox posts it.
    across: bool = False


# Where each member of a game between two servers sees it: their server and channel.
Seats = dict[int, tuple[int, int]]


class Takebacks:
    """Taking moves back, under each game's lock (bot.game.cache) like every other change."""

    def __init__(
        self,
        store: TakebackStore,
        games: GameStore,
        clocks: Clocks,
        cache: GameCache,
        *,
        limit: int = MAX_TAKEBACKS,
        queue: QueueStore | None = None,
        outbox: OutboxService | None = None,
    ) -> None:
        self._store = store
        self._games = games
        self._clocks = clocks
        self._cache = cache
        self.limit = limit
        # The boards of games between two servers, and the rows that tell their members.
        self._queue = queue
        self._outbox = outbox

    async def take_back(self, game_id: int, user_id: int) -> GameState | Request:
        """`user_id` takes their last move back: against the AI, done at once (the game after
        it); between members, asked (the request, for the other member to answer). UserError
        (nothing changed) if they may not now."""
        async with self._cache.lock(game_id):
            state, mark = await self._casual_game_of(game_id, user_id)
            # The opening's stones and decisions are the players' agreement: never undone.
            if state.opening is not None:
                raise UserError("takeback.opening")
            first = opening_stones(state)
            if state.mode is Mode.AI:
                if state.ai_to_move:
                    raise UserError("takeback.wait_for_ai")
                to_ply = _last_move_of(state, mark)
                if to_ply is None or to_ply < first:
                    raise UserError("takeback.nothing")
                return await self._undo(state, to_ply, requested=False)
            if state.board.ply <= first or state.board.turn is mark:
                raise UserError("takeback.not_your_move")
            if state.row.takeback_asked == state.board.ply:
                raise UserError("takeback.already_asked")
            opponent = state.user_of(mark.other)
            assert opponent is not None  # a game between members
            ply = state.board.ply
            seats = await self._seats(state)
            posts = [] if seats is None else [
                self._post(seats, opponent, PostKind.TAKEBACK_REQUEST, game=game_id, ply=ply,
                           member=opponent, asker=user_id)
            ]
            now = self._clocks.now()
            if not await self._store.ask_takeback(game_id, ply, now=now, posts=posts):
                raise await self._why_not(game_id, ply, now, "takeback.already_asked")
            self._wake(posts)
            return Request(state=state, requester=user_id, opponent=opponent, across=bool(posts))

    async def accept(self, game_id: int, ply: int, user_id: int) -> GameState:
        """The other member accepts the request asked at move count `ply`: the asker's move is
        undone; the game after it."""
        async with self._cache.lock(game_id):
            state = await self._answerable(game_id, ply, user_id)
            posts = await self._answer_posts(state, user_id, accepted=True)
            after = await self._undo(state, ply - 1, requested=True, posts=posts)
            self._wake(posts)
            return after

    async def decline(self, game_id: int, ply: int, user_id: int) -> GameState:
        """The other member declines the request asked at move count `ply`; the game as it is."""
        async with self._cache.lock(game_id):
            state = await self._answerable(game_id, ply, user_id)
            posts = await self._answer_posts(state, user_id, accepted=False)
            if not await self._store.decline_takeback(game_id, ply, posts=posts):
                raise UserError("takeback.expired")
            self._wake(posts)
            return state

    async def _seats(self, state: GameState) -> Seats | None:
        """Where each member sees a game between two servers (the game's own channel, or their
        board's in the other server); None for a game of one server."""
        if self._queue is None or self._outbox is None or state.mode is not Mode.PVP:
            return None
        boards = await self._queue.game_boards(state.id)
        if not boards:
            return None
        row = state.row
        seats: Seats = {member: (row.guild_id, row.channel_id) for member in row.members}
        for board in boards:
            seats[board.user_id] = (board.guild_id, board.channel_id)
        return seats

    def _post(self, seats: Seats, to: int, kind: PostKind,
              **payload: int | float | str | None) -> NewPost:
        """A row for the channel where member `to` sees the game."""
        assert self._outbox is not None  # seats are found only with an outbox
        guild_id, channel_id = seats[to]
        return self._outbox.post(guild_id, channel_id, kind, **payload)

    async def _answer_posts(self, state: GameState, user_id: int, *,
                            accepted: bool) -> list[NewPost]:
        """In a game between two servers: the answer of `user_id` for the asker, in the asker's
        channel, and once accepted the redraw of every board (each by the process holding its
        server). Nothing for a game of one server: the request's own message answers there."""
        seats = await self._seats(state)
        if seats is None:
            return []
        asker = state.user_of(state.board.turn.other)
        assert asker is not None  # a game between members
        posts = [self._post(seats, asker, PostKind.TAKEBACK_ANSWER, game=state.id,
                            ply=state.board.ply, member=asker, answerer=user_id,
                            accepted=int(accepted))]
        if accepted:
            posts += [
                self._post(seats, member, PostKind.GAME_BOARD, game=state.id, guild=guild)
                for member, (guild, _) in sorted(seats.items())
            ]
        return posts

    def _wake(self, posts: list[NewPost]) -> None:
        if posts and self._outbox is not None:
            self._outbox.wake()

    async def _casual_game_of(self, game_id: int, user_id: int) -> tuple[GameState, Mark]:
        state = await self._cache.read(self._games, game_id)
        if state is None:
            raise UserError("click.no_game")
        why = refusal(state.row)
        if why is not None:
            # A rated game's refusal names the option that starts a game allowing takebacks.
            raise UserError(why, option=TextId("optname.rated"))
        mark = state.mark_of(user_id)
        if mark is None:
            raise UserError("click.not_your_game")
        if not state.active:
            raise UserError("click.finished")
        if state.row.takebacks >= self.limit:
            raise UserError("takeback.limit", limit=self.limit)
        return state, mark

    async def _answerable(self, game_id: int, ply: int, user_id: int) -> GameState:
        """The game whose open request at `ply` `user_id` may answer; UserError otherwise."""
        state = await self._cache.read(self._games, game_id)
        if state is None:
            raise UserError("click.no_game")
        mark = state.mark_of(user_id)
        if mark is None:
            raise UserError("click.not_your_game")
        if not state.active or state.board.ply != ply or not state.row.takeback_pending:
            raise UserError("takeback.expired")
        if state.board.turn is not mark:
            # The asker: only the other member answers.
            raise UserError("takeback.not_yours_to_answer")
        return state

    async def _undo(self, state: GameState, to_ply: int, *, requested: bool,
                    posts: list[NewPost] | None = None) -> GameState:
        """Remove the moves of `state` from `to_ply` on; the clock of the member then to move
        starts afresh, as after any move."""
        ply = state.board.ply
        board = _board_at(state, to_ply)
        now = self._clocks.now()
        deadline = await self._clocks.deadline(state, board)
        row = await self._store.take_back(
            state.id,
            ply,
            to_ply,
            now=now,
            deadline=deadline,
            limit=self.limit,
            requested=requested,
            posts=posts or (),
        )
        if row is None:
            raise await self._why_not(state.id, ply, now, "takeback.expired")
        self._cache.rewound(state.id)
        after = load_state(row)
        self._cache.remember(after)
        return after

    async def _why_not(self, game_id: int, ply: int, now: float, otherwise: str) -> UserError:
        """Why a takeback write found nothing to change: the clock ran out (the deadline
        watcher is woken to end the game), or the game moved on."""
        self._cache.drop(game_id)
        row = await self._games.game(game_id)
        if row is None or row.status is not Status.ACTIVE:
            return UserError("click.finished")
        if row.deadline is not None and row.deadline <= now:
            self._clocks.deadlines_changed.set()
            return UserError("click.too_late")
        if row.takebacks >= self.limit:
            return UserError("takeback.limit", limit=self.limit)
        if row.ply != ply:
            return UserError("takeback.expired")
        return UserError(otherwise)


def _last_move_of(state: GameState, mark: Mark) -> int | None:
    """The move count before `mark`'s last move, None if they have not moved. The sides move in
    turn, so it is the move before this one, or the one before that when it is `mark`'s turn."""
    board = state.board
    last = board.ply - (2 if board.turn is mark else 1)
    return last if last >= 0 else None


def _board_at(state: GameState, ply: int) -> Board:
    """The game's board as it stood after `ply` moves."""
    board = state.board.copy()
    while board.ply > ply:
        board.pop()
    return board


__all__ = ["MAX_TAKEBACKS", "Request", "Seats", "Takebacks", "refusal"]
