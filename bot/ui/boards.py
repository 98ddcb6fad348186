"""Putting games on their messages: posting a board nobody asked for with a command (a
tournament's), redrawing a board as its game changes (one drawing of a game at a time, never an
older position over a newer one), and reposting it at the bottom of its channel. What a board
looks like is bot.ui.board_look's; a new board posted for a command, a member's move answered and
the AI's turns drawn are bot.ui.turns'.

Every feature cog draws through here, so a board looks the same whichever feature changed it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from typing import Any, Protocol, TypeVar

import aiohttp
import discord

from bot.game.games import GameService
from bot.game.model import GameState, jump_link
from bot.game.outbox_model import NewPost, game_nonce
from bot.game.queue_model import GameBoard
from bot.i18n.texts import text_in
from bot.ui import drawing as drawings
from bot.ui.board_look import BoardLook, LookHost, message_parts
from bot.ui.display_names import remember
from bot.ui.notices import Notices
from bot.ui.payloads import text_payload
from bot.ui.posts import MessageEdit
from bot.ui.render import uses_layout
from bot.ui.window import Window

log = logging.getLogger("caro.bot")

# Interaction tokens last 15 minutes; past this, edits go through the channel message endpoint.
INTERACTION_EDIT_WINDOW = 14 * 60
# The HTTP status Discord answers an edit with when the message is a Components V2 layout and
# the edit is not: the V2 flag can never be taken off a message.
BAD_REQUEST = 400

T = TypeVar("T")


class Host(LookHost, Protocol):
    """What Boards (and bot.ui.turns) need from the bot."""

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]: ...

    def is_closed(self) -> bool: ...

    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: Any = None
    ) -> discord.PartialMessageable: ...


class Boards:
    """The games' board messages: posted, redrawn and reposted, one drawing of a game at a time."""

    def __init__(self, host: Host) -> None:
        self._host = host
        # The drawing: what a board looks like, its pan window, the messages that are layouts.
        self.look = BoardLook(host)
        self._draw_locks: dict[int, asyncio.Lock] = {}
        self._drawn_ply: dict[int, int] = {}  # the newest stage drawn per running game
        # The games drawn before the catch-up after a crash ran (None since): it leaves them be.
        self._drawn_here: set[int] | None = set()
        # Games reposted by this process: a command's interaction no longer answers their board,
        # so their redraws go through the channel, to the stored message.
        self._reposted: set[int] = set()
        # The calls to the member to move: a ping when a move makes it their turn, a warning
        # when their clock runs low; each drawing of a game removes one whose turn passed.
        self.notices = Notices(host, self.look.place)

    @property
    def games(self) -> GameService:
        return self._host.services.games

    async def show(
        self,
        state: GameState,
        interaction: discord.Interaction[Any] | None,
        *,
        window: Window | None = None,
    ) -> None:
        """Draw the game on its message, one drawing of a game at a time, never an older position
        over a newer one: an edit held back by Discord's 429/5xx retries would otherwise land
        after later moves and show the player a stale board."""
        async with self.draw_lock(state.id):
            if state.stage < self._drawn_ply.get(state.id, -1):
                return
            if state.active:
                # The game may have ended (resigned, stopped, timed out) since this state was
                # read, at the same move count: drawing it would bring back a running board.
                # And at the same move count the stored row may know more (the message, when
                # the AI's first move was searched while the board was being posted).
                fresh = await self.games.state(state.id)
                if fresh is not None and (
                    not fresh.active or fresh.stage == state.stage
                ):
                    state = fresh
            drawn = await self.draw(state, interaction, window=window)
            self.drawn(state)
        if state.active:
            # A game that is over had its other boards' redraws written with its end.
            await self.mirror(state, drawn)
        self.forget_if_over(state)
        self._host.spawn(self.notices.settle(state))

    def draw_lock(self, game_id: int) -> asyncio.Lock:
        """The game's drawing lock: one drawing of a game at a time."""
        return self._draw_locks.setdefault(game_id, asyncio.Lock())

    def drawn(self, state: GameState) -> None:
        """Note `state` as the newest position drawn of its game (under its lock, or posted)."""
        self._drawn_ply[state.id] = state.stage
        if self._drawn_here is not None:
            self._drawn_here.add(state.id)

    async def catch_up(self, states: list[GameState]) -> None:
        """Redraw, once after the start, the games whose boards a crash may have left behind
        (meta.games_to_redraw), but not those this process drew meanwhile: members played on
        them since, and their boards are up to date."""
        try:
            for state in states:
                if state.id not in (self._drawn_here or ()):
                    await self.show_quietly(state)
        finally:
            self._drawn_here = None

    def forget_if_over(self, state: GameState) -> None:
        if not state.active:
            self._draw_locks.pop(state.id, None)
            self._drawn_ply.pop(state.id, None)
            self.look.forget(state.id)
            self._host.services.mirrors.forget(state.id)

    async def show_quietly(self, state: GameState) -> None:
        """Redraw a game through the channel; a failed edit is logged, the game is stored."""
        try:
            await self.show(state, None)
        except (discord.HTTPException, aiohttp.ClientError) as exc:
            # Discord failing, or the bot stopping meanwhile.
            log.warning("game %d: could not edit its message (%r)", state.id, exc)

    def redraw_if_drawing(self, state: GameState) -> None:
        """After an answer drew a finished game through its interaction: if an older drawing
        (the AI's last move) is still on its way to Discord, draw the end again behind it, so
        the message does not end up showing a running game."""
        lock = self._draw_locks.get(state.id)
        if lock is not None and lock.locked():
            self._host.spawn(self.show(state, None))
        self._host.spawn(self.notices.settle(state))

    async def draw(
        self,
        state: GameState,
        interaction: discord.Interaction[Any] | None,
        *,
        window: Window | None = None,
    ) -> int | None:
        """Draw the game through the interaction while its token lasts (its response is the
        game's board: the controls check they are on it), else through the channel message
        endpoint (after a restart, or a late answer). `show` takes the game's drawing lock around
        this; a caller already holding it calls this directly. The server of the board drawn
        (None: none was)."""
        changes = () if state.active else await self.games.rating_changes(state.id)
        tournament = await self.look.tournament(state)
        players = await self.look.players(state, tournament, await self.look.names(state, 0))
        theme = await self.look.theme(state)
        window = self.look.window(state, window, interaction.message if interaction else None,
                                  guild_id=interaction.guild_id if interaction else None,
                                  followed=await self.look.cross(state) is not None)
        if (
            interaction is not None
            and _age(interaction) < INTERACTION_EDIT_WINDOW
            and await self._answers_board(interaction, state)
        ):
            layout = self.look.as_layout(interaction.message)
            try:
                await interaction.edit_original_response(
                    **message_parts(
                        state,
                        external=self.look.external,
                        edit=True,
                        window=window,
                        changes=changes,
                        layout=layout,
                        players=players,
                        theme=theme,
                        tournament=tournament,
                        names=await self.look.names(state, interaction.guild_id),
                        locale=await self.look.locale(state, interaction.guild_id),
                    )
                )
                return interaction.guild_id
            except discord.HTTPException as exc:
                log.warning("game %d: editing via the interaction failed (%s)", state.id, exc)
        if state.row.message_id is None:
            log.warning("game %d has no message to edit", state.id)
            return None
        names = await self.look.names(state, None)
        message = self._host.get_partial_messageable(
            state.row.channel_id, guild_id=state.row.guild_id
        ).get_partial_message(state.row.message_id)
        layout = state.row.message_id in self.look.layout_messages
        try:
            await message.edit(
                **message_parts(
                    state,
                    external=self.look.external,
                    edit=True,
                    window=window,
                    changes=changes,
                    layout=layout,
                    players=players,
                    theme=theme,
                    tournament=tournament,
                    names=names,
                )
            )
        except discord.HTTPException as exc:
            if exc.status != BAD_REQUEST or layout:
                raise
            # A small board once drawn as a V2 layout (by an older version) that nobody clicked
            # since this process started: draw it as a layout rather than never again.
            self.look.layout_messages.add(state.row.message_id)
            await message.edit(
                **message_parts(
                    state,
                    external=self.look.external,
                    edit=True,
                    window=window,
                    changes=changes,
                    layout=True,
                    players=players,
                    theme=theme,
                    tournament=tournament,
                    names=names,
                )
            )
        return state.row.guild_id

    async def _answers_board(
        self, interaction: discord.Interaction[Any], state: GameState
    ) -> bool:
        """Whether `interaction`'s response is the game's board: not once the board was
        reposted elsewhere (/caro board), which leaves the old message a pointer to the new. A
        game between two servers has a board in each: either is."""
        message = interaction.message
        if message is not None:
            return state.row.message_id in (
                None, message.id
            ) or await self._host.services.mirrors.is_board(
                state, interaction.guild_id, message.id
            )
        return state.id not in self._reposted

    async def link_in(self, state: GameState, guild_id: int | None) -> str:
        """A link to the game's board in `guild_id` (the game's own server if None, or if it has
        no board there); "" while that board is not posted. Never a link into another server."""
        row = state.row
        if (
            guild_id is not None
            and guild_id != row.guild_id
            and await self.look.cross(state) is not None
        ):
            for board in await self._host.services.queue.boards(state.id):
                if board.guild_id == guild_id:
                    if board.message_id is None:
                        return ""
                    return jump_link(board.guild_id, board.channel_id, board.message_id)
        if row.message_id is None:
            return ""
        return jump_link(row.guild_id, row.channel_id, row.message_id)

    async def mirror(self, state: GameState, drawn: int | None) -> None:
        """After a drawing of a game between two servers on its board in `drawn`: its other
        boards redrawn through the outbox (by the process holding each, from the game stored)."""
        posts = await self.mirror_posts(state, drawn)
        if posts:
            await self._host.services.outbox.add(posts)

    async def redraw_in(self, state: GameState, guild_id: int) -> None:
        """Redraw the game's board in `guild_id`, another server's board of a game between two,
        through the outbox (by the process holding that server, from the game as stored)."""
        posts = [post for post in await self.mirror_posts(state, None) if post.guild_id == guild_id]
        if posts:
            await self._host.services.outbox.add(posts)

    async def mirror_posts(self, state: GameState, drawn: int | None) -> list[NewPost]:
        """The outbox rows of `mirror`, unwritten (see Mirrors.posts)."""
        return await self._host.services.mirrors.posts(state, drawn)

    async def board_edit(
        self, game_id: int, guild_id: int, *, tidy: bool = False
    ) -> MessageEdit | None:
        """The game's board in `guild_id` drawn as the game is stored now (an outbox row of
        mirror's, the game and its boards read at once); None if it has no posted board there,
        or with `tidy` (the end drawn there by another process: bot.game.mirrors.TIDY)."""
        state, boards = await asyncio.gather(self.games.state(game_id), (
            _nothing() if tidy else self._host.services.queue.boards(game_id)))
        if state is None:
            return None
        # This process holds that server: a call to move it posted there goes if its turn
        # passed or the game ended (a resignation or the clock, drawn in the other server).
        self._host.spawn(self.notices.settle(state))
        message_id = board_message(state, boards, guild_id)
        edit = None
        if message_id is not None and not tidy:
            if self._drawn_ply.get(game_id, -1) > state.stage:
                self._drawn_ply[game_id] = state.stage  # taken back: draw on from here
            edit = MessageEdit(message_id, await self.look.drawing(
                state, edit=True, guild_id=guild_id))
        self.forget_if_over(state)
        return edit

    async def post_board(self, state: GameState, board: GameBoard) -> None:
        """Post a game's board in another server (a queued game between two), mentioning the
        member of that server only, and store it as posted; discord.HTTPException if Discord
        refused (the caller tries again later). Its nonce makes a retry after a lost answer
        hand back the message already made."""
        channel = self._host.get_partial_messageable(board.channel_id, guild_id=board.guild_id)
        parts = await self.look.drawing(state, guild_id=board.guild_id)
        if "content" in parts:
            parts["content"] = f"<@{board.user_id}>\n{parts['content']}"
        message = await channel.send(
            **parts,
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(board.user_id)]),
            nonce=board.nonce,
        )
        await self._host.services.queue.board_posted(board, message.id)

    async def repost(self, interaction: discord.Interaction[Any], state: GameState) -> GameState:
        """Post the running game's board again as the answer to `interaction` (at the bottom of
        the channel) and make it the game's board; the old message becomes a line linking to the
        new one, with no buttons. Under the game's drawing lock, so no redraw of the old message
        lands after it was replaced; the game as now stored."""
        async with self.draw_lock(state.id):
            fresh = await self.games.state(state.id)
            state = fresh if fresh is not None else state
            old = state.row.message_id
            # As every other drawing of it: the starter's theme, players of another server by
            # name.
            parts = await self.look.drawing(state)
            remember(interaction.guild_id, interaction.user)
            response = await interaction.response.send_message(**parts)
            message_id = response.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
            await self.games.attach_message(state.id, message_id)
            self._reposted.add(state.id)
            self.drawn(state)
            if old is not None and old != message_id:
                await self._point_to(state, old, message_id)
        moved = await self.games.state(state.id)
        return moved if moved is not None else state

    async def repost_board(
        self, interaction: discord.Interaction[Any], state: GameState, guild_id: int
    ) -> None:
        """Post the running game's board in `guild_id`, another server than the game's (a
        queued game between two), again as the answer to `interaction` and store it as that
        server's board; the old message becomes a line linking to the new one. The game's own
        board, in the other server, is not touched."""
        async with self.draw_lock(state.id):
            fresh = await self.games.state(state.id)
            state = fresh if fresh is not None else state
            board = next((b for b in await self._host.services.queue.boards(state.id)
                          if b.guild_id == guild_id), None)
            if board is None:
                return
            parts = await self.look.drawing(state, guild_id=guild_id)
            remember(interaction.guild_id, interaction.user)
            response = await interaction.response.send_message(**parts)
            message_id = response.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
            await self._host.services.queue.board_posted(board, message_id)
            self._host.services.mirrors.board_moved(state.id)
            if board.message_id is not None and board.message_id != message_id:
                locale = await self.look.locale(state, guild_id) or state.row.locale
                await self._point_to(state, board.message_id, message_id,
                                     where=(board.guild_id, board.channel_id, locale))

    async def _point_to(
        self, state: GameState, old: int, new: int,
        where: tuple[int, int, str] | None = None,
    ) -> None:
        """Turn the old board message `old` into a line linking to the new board `new`, in the
        game's channel or `where` (server, channel and language of its board in another)."""
        row = state.row
        guild_id, channel_id, locale = where or (row.guild_id, row.channel_id, row.locale)
        line = text_in(locale, "board.moved", link=jump_link(guild_id, channel_id, new))
        message = self._host.get_partial_messageable(
            channel_id, guild_id=guild_id
        ).get_partial_message(old)
        parts: dict[str, Any]
        if uses_layout(state) or old in self.look.layout_messages:
            # Discord never takes the V2 flag off a message: the line is its one component.
            parts = {"view": drawings.layout([text_payload(line)]), "attachments": []}
        else:
            parts = {"content": line, "view": None, "embeds": [], "attachments": []}
        try:
            await message.edit(**parts)
        except discord.HTTPException as exc:
            # The new board is stored: clicks on the old one are answered with its link anyway.
            log.warning("game %d: could not turn its old board into a link (%s)", state.id, exc)

    async def taken_back(self, state: GameState) -> None:
        """Redraw a game after moves were taken back (`state`, fewer moves than drawn before):
        the one drawing allowed to go back to an earlier move count."""
        async with self.draw_lock(state.id):
            self.drawn(state)
        await self.show_quietly(state)

    async def post_in_channel(self, state: GameState) -> GameState:
        """Post a game nobody asked for with a command (a tournament's) as a new message in its
        channel, mentioning its members so they know it began, and make it the game's board.
        The game as now stored; discord.HTTPException if Discord refused (the game stays
        unposted, and the caller tries again). The message carries a nonce named for the game:
        tried again after an answer that was lost, Discord hands back the board it made."""
        row = state.row
        channel = self._host.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        tournament = await self.look.tournament(state)
        names = await self.look.names(state, None)
        parts = message_parts(
            state,
            external=self.look.external,
            # Posted after a move made on the game's board in another server: the window that
            # board followed (BoardLook.drawing).
            window=self.look.window(state, None, None,
                                    followed=await self.look.cross(state) is not None),
            players=await self.look.players(state, tournament, await self.look.names(state, 0)),
            theme=await self.look.theme(state),
            tournament=tournament,
            names=names,
        )
        # A player of another server (a queued game between two) is named, never mentioned.
        here = [member for member in row.members if member not in names]
        members = " ".join(f"<@{member}>" for member in here)
        if members and "content" in parts:
            parts["content"] = f"{members}\n{parts['content']}"
        message = await channel.send(
            **parts,
            allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(member) for member in here]
            ),
            nonce=game_nonce(state.id),
        )
        await self.games.attach_message(state.id, message.id)
        self.drawn(state)
        # Kept: its members click here next, and their first move then reads nothing.
        posted = await self.games.state(state.id, keep=True)
        return posted if posted is not None else state


async def _nothing() -> list[GameBoard]:
    """No boards: what a tidy row's board_edit reads, as it draws none."""
    return []


def board_message(state: GameState, boards: Sequence[GameBoard], guild_id: int) -> int | None:
    """The message of the game's board in `guild_id`: its own, or one of its `boards` in other
    servers (QueueService.boards); None while none is posted there."""
    if guild_id == state.row.guild_id:
        return state.row.message_id
    return next((b.message_id for b in boards if b.guild_id == guild_id), None)


def _age(interaction: discord.Interaction[Any]) -> float:
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()


__all__ = ["BAD_REQUEST", "INTERACTION_EDIT_WINDOW", "Boards", "Host", "board_message"]
