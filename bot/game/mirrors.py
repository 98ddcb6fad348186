"""The boards of a queued game between two servers, and the outbox rows that redraw them.

Each member sees such a game in their own server's channel. A change made on one board is
drawn on the others through an outbox row written with the change, so a crash between the two
cannot leave a board behind the game: by the process holding each one's server, or, for a
member's move, by the process of the click, which writes the rows held (bot.ui.other_boards).
No Discord code here.
"""

from __future__ import annotations

from dataclasses import replace

from bot.game.model import GameState, Mode
from bot.game.outbox import OutboxService
from bot.game.outbox_model import NewPost, PostKind
from bot.game.ports import QueueStore

# (guild, channel) of each board of a game: its own first, then those in other servers.
Places = tuple[tuple[int, int], ...]
# The payload key of a game's row that asks the process holding its server only to tidy up
# after the game's end, whose board another process drew. A process that does not know the key
# redraws the board instead, which shows the same.
TIDY = "tidy"


class Mirrors:
    """Where a game's boards are, read once per game and process: they are set when the game is
    paired and never move, and a move of a game between members asks for them on every click."""

    def __init__(self, queue: QueueStore, outbox: OutboxService) -> None:
        self._queue = queue
        self._outbox = outbox
        self._places: dict[int, Places] = {}
        # Per game, the message last read as its board in each other server. A member's click
        # on it comes to the process holding that server, which also reposts it (board_moved);
        # a message not found here is read again.
        self._messages: dict[int, dict[int, int]] = {}
        # Per game, the rows held by this process written with its last move, with that move's
        # stage, until the move's drawing takes them.
        self._held: dict[int, tuple[int, tuple[NewPost, ...]]] = {}

    async def places(self, state: GameState) -> Places:
        """Every board of a game between two servers; () for any other game."""
        if state.mode is not Mode.PVP:
            return ()
        found = self._places.get(state.id)
        if found is None:
            await self.learn(state)
            found = self._places[state.id]
        return found

    async def learn(self, state: GameState) -> None:
        """Read where the game's boards are, for its first click here (places, is_board): a
        process that posts a board of the game learns them then, not on that click."""
        if state.mode is not Mode.PVP:
            return
        boards = await self._queue.game_boards(state.id)
        row = state.row
        own = (row.guild_id, row.channel_id)
        self._places[state.id] = (
            (own, *((b.guild_id, b.channel_id) for b in boards)) if boards else ())
        self._messages[state.id] = {
            b.guild_id: b.message_id for b in boards if b.message_id is not None}

    async def is_board(self, state: GameState, guild_id: int | None, message_id: int) -> bool:
        """Whether `message_id` is the game's board in `guild_id`, another server than the
        game's own: a click there is as good as one on the game's own board."""
        if guild_id is None or guild_id == state.row.guild_id or state.mode is not Mode.PVP:
            return False
        if self._messages.get(state.id, {}).get(guild_id) == message_id:
            return True
        await self.learn(state)
        return self._messages[state.id].get(guild_id) == message_id

    def board_moved(self, game_id: int) -> None:
        """A board of the game in another server was posted again (/caro board there): the
        message it was is no longer its board."""
        self._messages.pop(game_id, None)

    async def posts(
        self, state: GameState, drawn: int | None, *, held: bool = False, ends: bool = False
    ) -> list[NewPost]:
        """The outbox rows that redraw the game's boards in servers other than `drawn` (all of
        them if None), each from the game as stored when it is sent; none for a game of one
        server. `held`: written held by this process, which draws them itself right after the
        change (see keep_held). `ends`: the change ends the game; with `held`, the process
        holding each other server is still told, by a row that draws nothing (TIDY), so it
        removes what it posted or keeps for the game there."""
        posts = [
            self._outbox.post(guild, channel, PostKind.GAME_BOARD, game=state.id, guild=guild)
            for guild, channel in await self.places(state)
            if guild != drawn
        ]
        if not held:
            return posts
        # The same rows, asking only to tidy up; no hurry for those: they go without a
        # notification (OutboxService.quiet).
        tidy = [self._outbox.quiet(replace(post, payload={**post.payload, TIDY: 1}))
                for post in posts] if ends else []
        return [*(self._outbox.held(post) for post in posts), *tidy]

    def written(self, posts: list[NewPost]) -> None:
        """Rows of `posts` were written with a change: the sender is told."""
        if posts:
            self._outbox.written()

    def keep_held(self, state: GameState, posts: list[NewPost]) -> None:
        """Rows of `posts` were written with the change that made `state`: those held by this
        process wait here for the drawing of `state` (take_held)."""
        held = tuple(post for post in posts if post.sent_by_writer)
        if held:
            self._held[state.id] = (state.stage, held)

    def take_held(self, state: GameState) -> tuple[NewPost, ...]:
        """The held rows written with the change that made `state`, once: the caller draws
        them or hands them back."""
        found = self._held.get(state.id)
        if found is None or found[0] != state.stage:
            return ()
        del self._held[state.id]
        return found[1]

    def forget(self, game_id: int) -> None:
        """Forget the boards of a game that is over."""
        self._places.pop(game_id, None)
        self._messages.pop(game_id, None)
        self._held.pop(game_id, None)


__all__ = ["TIDY", "Mirrors", "Places"]
