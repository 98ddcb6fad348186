"""Putting games on their messages: the drawing of a game, posting a new board, redrawing it as
it changes (never an older position over a newer one), and letting the AI answer on it.

Every feature cog draws through here, so a board looks the same whichever feature changed it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from typing import Any, Protocol, TypeVar

import aiohttp
import discord

from bot.game.games import GameService
from bot.game.levels import ExternalLevel
from bot.game.model import DEFAULT_STYLE, ActiveGameExists, GameState, jump_link
from bot.game.outbox_model import game_nonce
from bot.game.ports import UNAVAILABLE_RETRY_SECONDS, StorageUnavailable
from bot.game.searches import answered_within
from bot.game.services import Services
from bot.game.tournament_model import TournamentGame
from bot.i18n.texts import text_in
from bot.ui import drawing as drawings
from bot.ui.buttons import Pan
from bot.ui.display_names import display_names, remember
from bot.ui.notices import Notices
from bot.ui.payloads import text_payload
from bot.ui.pictures import Players
from bot.ui.record_views import players_of, translator
from bot.ui.render import (
    board_file,
    game_content,
    game_view,
    has_window,
    uses_image,
    uses_layout,
)
from bot.ui.replies import say
from bot.ui.tournaments import entrant_label
from bot.ui.window import Window, WindowError, follow, initial_window
from engine import Mark

log = logging.getLogger("caro.bot")

# Interaction tokens last 15 minutes; past this, edits go through the channel message endpoint.
INTERACTION_EDIT_WINDOW = 14 * 60
# After Discord refused to draw the AI's move (a 5xx that outlasted discord.py's retries, a
# token refused and the channel edit failing too): one more try a little later, so the player is
# not left looking at "the AI is thinking" until the next restart.
REDRAW_RETRY_SECONDS = 5.0
# An AI move taking longer than this (seconds, search and queue) is logged at INFO.
SLOW_AI_MOVE = 2.0
# The HTTP status Discord answers an edit with when the message is a Components V2 layout and
# the edit is not: the V2 flag can never be taken off a message.
BAD_REQUEST = 400

T = TypeVar("T")

class Host(Protocol):
    """What Boards needs from the bot."""

    @property
    def services(self) -> Services: ...

    @property
    def external(self) -> ExternalLevel: ...

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]: ...

    def is_closed(self) -> bool: ...

    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: Any = None
    ) -> discord.PartialMessageable: ...

    def get_guild(self, id: int, /) -> discord.Guild | None: ...


def message_parts(
    state: GameState,
    *,
    external: ExternalLevel,
    edit: bool = False,
    window: Window | None = None,
    changes: Any = (),
    layout: bool = False,
    players: Players | None = None,
    theme: str = DEFAULT_STYLE,
    tournament: TournamentGame | None = None,
) -> dict[str, Any]:
    """Keyword arguments that draw a game on a message (send or edit): text, buttons and, on a
    big board, the picture (with `players`, its legend), all in `theme`'s colours. `layout`
    draws even a small board as a Components V2 layout (for a message that already is one).
    `external` names the external engine's seat; `tournament`, a tournament's game's place in
    it."""
    view = game_view(
        state,
        window=window,
        changes=changes,
        layout=layout,
        external=external,
        theme=theme,
        tournament=tournament,
    )
    parts: dict[str, Any] = {"view": view}
    if isinstance(view, discord.ui.LayoutView):
        # The text is a component of the layout; V2 messages carry no content or embeds, and
        # an edit says so explicitly (a challenge's text turns into a board).
        if edit:
            parts.update(content=None, embeds=[])
    else:
        parts["content"] = game_content(
            state, changes=changes, external=external, theme=theme, tournament=tournament
        )
    if uses_image(state):
        picture = board_file(state, window_for(state, window), players, theme)
        if edit:
            parts["attachments"] = [picture]
        else:
            parts["file"] = picture
    return parts


def window_for(state: GameState, window: Window | None) -> Window | None:
    if not has_window(state):
        return None
    return (window or initial_window(state.board)).clamp(state.board.rows, state.board.cols)


def shown_window(message: discord.Message | None) -> Window | None:
    """The pan window a board's message shows, read from its arrows' ids (the bot's own)."""
    for row in message.components if message is not None else ():
        for item in getattr(row, "children", ()):
            click = Pan.parse(str(getattr(item, "custom_id", None)))
            if click is not None:
                try:
                    return Window.decode(click.window)
                except WindowError:
                    return None
    return None


def is_layout(message: discord.Message | None) -> bool:
    return message is not None and message.flags.components_v2


class Boards:
    def __init__(self, host: Host) -> None:
        self._host = host
        self._draw_locks: dict[int, asyncio.Lock] = {}
        self._drawn_ply: dict[int, int] = {}  # the newest stage drawn per running game
        # The pan window last drawn per running big board: a move inside it leaves it in place.
        self._windows: dict[int, Window] = {}
        # Boards that need no layout but whose message already is one (an older version drew a
        # small board as a V2 layout), as seen on clicks: a redraw through the channel, which
        # does not see the message, draws them as a layout too.
        self._layout_messages: set[int] = set()
        # Games reposted by this process: a command's interaction no longer answers their board,
        # so their redraws go through the channel, to the stored message.
        self._reposted: set[int] = set()
        # The calls to the member to move: a ping when a move makes it their turn, a warning
        # when their clock runs low; each drawing of a game removes one whose turn passed.
        self.notices = Notices(host)

    def _as_layout(self, message: discord.Message | None) -> bool:
        if message is None or not is_layout(message):
            return False
        self._layout_messages.add(message.id)
        return True

    @property
    def games(self) -> GameService:
        return self._host.services.games

    @property
    def external(self) -> ExternalLevel:
        return self._host.external

    async def drawing(
        self,
        state: GameState,
        *,
        edit: bool = False,
        window: Window | None = None,
        message: discord.Message | None = None,
    ) -> dict[str, Any]:
        """message_parts, with the rating changes of a finished game; on `message` (the one
        being edited) as a layout if it already is one."""
        changes = () if state.active else await self.games.rating_changes(state.id)
        tournament = await self.tournament(state)
        return message_parts(
            state,
            external=self.external,
            edit=edit,
            window=self._window(state, window, message),
            changes=changes,
            layout=self._as_layout(message),
            players=await self.players(state, tournament),
            theme=await self.theme(state),
            tournament=tournament,
        )

    def _window(
        self, state: GameState, window: Window | None, message: discord.Message | None
    ) -> Window | None:
        """The window to draw a big board with: `window` when the member panned; else the one
        shown before (remembered, or read off the message), moved only as far as the last move
        needs; else the first window, around the last move."""
        board = state.board
        if not (uses_image(state) and has_window(state)):
            return window
        if window is None:
            shown = self._windows.get(state.id) or shown_window(message)
            if shown is not None and shown.fits(board.rows, board.cols):
                last = board.last_move
                window = shown if last is None else follow(shown, last, board)
        window = (window or initial_window(board)).clamp(board.rows, board.cols)
        self._windows[state.id] = window
        return window

    async def players(
        self, state: GameState, tournament: TournamentGame | None = None
    ) -> Players | None:
        """The legend of a board drawn as a picture: who plays X and who plays O (display names,
        AI levels in the game's language; in a tournament's game, as its standings name them);
        None for a board of buttons, which has no picture."""
        if not uses_image(state):
            return None
        names = await display_names(self._host, state.row.guild_id, state.row.members)
        tr = translator(state.row.locale)
        if tournament is not None:
            x, o = (tournament.entrant(state, mark) for mark in (Mark.X, Mark.O))
            return entrant_label(x, tr, names), entrant_label(o, tr, names)
        return players_of(state, names, tr)

    async def tournament(self, state: GameState) -> TournamentGame | None:
        """A tournament's game's place in it, for its board; None for any other game."""
        if state.row.tournament_id is None:
            return None
        return await self._host.services.tournament_reads.game_of(state)

    async def theme(self, state: GameState) -> str:
        """The look of a game's board: the theme of the member who started it, so a public
        board looks the same whoever clicks it; a change of theme shows from the next drawing."""
        return await self._host.services.preferences.theme(state.row.started_by)

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
        async with self._draw_lock(state.id):
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
            await self._draw(state, interaction, window=window)
            self._drawn_ply[state.id] = state.stage
        self._forget_if_over(state)
        self._host.spawn(self.notices.settle(state))

    def _draw_lock(self, game_id: int) -> asyncio.Lock:
        return self._draw_locks.setdefault(game_id, asyncio.Lock())

    def _forget_if_over(self, state: GameState) -> None:
        if not state.active:
            self._draw_locks.pop(state.id, None)
            self._drawn_ply.pop(state.id, None)
            self._windows.pop(state.id, None)

    async def show_quietly(self, state: GameState) -> None:
        """Redraw a game through the channel; a failed edit is logged, the game is stored."""
        try:
            await self.show(state, None)
        except discord.HTTPException as exc:
            log.warning("game %d: could not edit its message (%s)", state.id, exc)

    def redraw_if_drawing(self, state: GameState) -> None:
        """After an answer drew a finished game through its interaction: if an older drawing
        (the AI's last move) is still on its way to Discord, draw the end again behind it, so
        the message does not end up showing a running game."""
        lock = self._draw_locks.get(state.id)
        if lock is not None and lock.locked():
            self._host.spawn(self.show(state, None))
        self._host.spawn(self.notices.settle(state))

    async def _draw(
        self,
        state: GameState,
        interaction: discord.Interaction[Any] | None,
        *,
        window: Window | None = None,
    ) -> None:
        """Through the interaction while its token lasts (its response is the game's board: the
        controls check they are on it), else through the channel message endpoint (after a
        restart, or a late answer)."""
        changes = () if state.active else await self.games.rating_changes(state.id)
        tournament = await self.tournament(state)
        players = await self.players(state, tournament)
        theme = await self.theme(state)
        window = self._window(state, window, interaction.message if interaction else None)
        if (
            interaction is not None
            and _age(interaction) < INTERACTION_EDIT_WINDOW
            and self._answers_board(interaction, state)
        ):
            layout = self._as_layout(interaction.message)
            try:
                await interaction.edit_original_response(
                    **message_parts(
                        state,
                        external=self.external,
                        edit=True,
                        window=window,
                        changes=changes,
                        layout=layout,
                        players=players,
                        theme=theme,
                        tournament=tournament,
                    )
                )
                return
            except discord.HTTPException as exc:
                log.warning("game %d: editing via the interaction failed (%s)", state.id, exc)
        if state.row.message_id is None:
            log.warning("game %d has no message to edit", state.id)
            return
        message = self._host.get_partial_messageable(
            state.row.channel_id, guild_id=state.row.guild_id
        ).get_partial_message(state.row.message_id)
        layout = state.row.message_id in self._layout_messages
        try:
            await message.edit(
                **message_parts(
                    state,
                    external=self.external,
                    edit=True,
                    window=window,
                    changes=changes,
                    layout=layout,
                    players=players,
                    theme=theme,
                    tournament=tournament,
                )
            )
        except discord.HTTPException as exc:
            if exc.status != BAD_REQUEST or layout:
                raise
            # A small board once drawn as a V2 layout (by an older version) that nobody clicked
            # since this process started: draw it as a layout rather than never again.
            self._layout_messages.add(state.row.message_id)
            await message.edit(
                **message_parts(
                    state,
                    external=self.external,
                    edit=True,
                    window=window,
                    changes=changes,
                    layout=True,
                    players=players,
                    theme=theme,
                    tournament=tournament,
                )
            )

    def _answers_board(self, interaction: discord.Interaction[Any], state: GameState) -> bool:
        """Whether `interaction`'s response is the game's board: not once the board was
        reposted elsewhere (/caro board), which leaves the old message a pointer to the new."""
        message = interaction.message
        if message is not None:
            return state.row.message_id in (None, message.id)
        return state.id not in self._reposted

    async def repost(self, interaction: discord.Interaction[Any], state: GameState) -> GameState:
        """Post the running game's board again as the answer to `interaction` (at the bottom of
        the channel) and make it the game's board; the old message becomes a line linking to the
        new one, with no buttons. Under the game's drawing lock, so no redraw of the old message
        lands after it was replaced; the game as now stored."""
        async with self._draw_lock(state.id):
            fresh = await self.games.state(state.id)
            state = fresh if fresh is not None else state
            old = state.row.message_id
            tournament = await self.tournament(state)
            parts = message_parts(
                state, external=self.external, window=self._window(state, None, None),
                players=await self.players(state, tournament), tournament=tournament,
            )
            remember(interaction.guild_id, interaction.user)
            response = await interaction.response.send_message(**parts)
            message_id = response.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
            await self.games.attach_message(state.id, message_id)
            self._reposted.add(state.id)
            self._drawn_ply[state.id] = state.stage
            if old is not None and old != message_id:
                await self._point_to(state, old, message_id)
        moved = await self.games.state(state.id)
        return moved if moved is not None else state

    async def _point_to(self, state: GameState, old: int, new: int) -> None:
        """Turn the old board message `old` into a line linking to the new board `new`."""
        row = state.row
        line = text_in(row.locale, "board.moved", link=jump_link(row.guild_id, row.channel_id, new))
        message = self._host.get_partial_messageable(
            row.channel_id, guild_id=row.guild_id
        ).get_partial_message(old)
        parts: dict[str, Any]
        if uses_layout(state) or old in self._layout_messages:
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
        async with self._draw_lock(state.id):
            self._drawn_ply[state.id] = state.stage
        await self.show_quietly(state)

    async def post_new_game(
        self,
        interaction: discord.Interaction[Any],
        create: Callable[[], Awaitable[GameState]],
        *,
        busy: str,
        busy_unposted: str,
        member: Hashable | None = None,
    ) -> GameState | None:
        """Create a game with `create` and post its board as the answer to `interaction`; None
        (the user told why with `busy`, given a link to the game in the way, or `busy_unposted`)
        if a running game holds the slot. A game that cannot be posted is abandoned.

        With `member` (the one its searches are for), an AI that moves first is asked to;
        if it answers within its quick wait (GameService.quick_wait) the board is posted with
        its move: one response instead of a post and an edit, as in answer_move."""
        state: GameState | None = None
        for _ in range(2):
            try:
                state = await create()
                break
            except ActiveGameExists as exc:
                running = exc.game
                if running.message_id is None:
                    # Its board was never posted (the bot stopped in between): nobody can play
                    # or watch it, so it must not hold the slot.
                    await self.games.abandon(running.id)
                    continue
                link = jump_link(running.guild_id, running.channel_id, running.message_id)
                await say(interaction, busy, link=link)
                return None
        if state is None:
            await say(interaction, busy_unposted, link="")
            return None
        reply: asyncio.Task[GameState | None] | None = None
        try:
            wait = self.games.quick_wait(state.level_of(state.acting_mark))
            if member is not None and state.ai_to_move and wait > 0:
                reply = self._host.spawn(self.ai_move(state.id, member, known=state))
                if await answered_within(reply, wait):
                    # The game after the AI's move, or as it was if the AI did not move.
                    state, reply = reply.result() or state, None
            remember(interaction.guild_id, interaction.user)
            parts = message_parts(
                state,
                external=self.external,
                players=await self.players(state),
                theme=await self.theme(state),
            )
            response = await interaction.response.send_message(**parts)
            message_id = response.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
            await self.games.attach_message(state.id, message_id)
        except BaseException:
            # A move the AI may still store is refused: the game is no longer running.
            await self.games.abandon(state.id)
            raise
        if reply is not None:
            self._host.spawn(self._show_reply(reply, interaction))
        elif member is not None and state.ai_to_move:
            self._host.spawn(self.ai_turn(state.id, interaction, member))
        return state

    async def post_in_channel(self, state: GameState) -> GameState:
        """Post a game nobody asked for with a command (a tournament's) as a new message in its
        channel, mentioning its members so they know it began, and make it the game's board.
        The game as now stored; discord.HTTPException if Discord refused (the game stays
        unposted, and the caller tries again). The message carries a nonce named for the game:
        tried again after an answer that was lost, Discord hands back the board it made."""
        row = state.row
        channel = self._host.get_partial_messageable(row.channel_id, guild_id=row.guild_id)
        tournament = await self.tournament(state)
        parts = message_parts(
            state,
            external=self.external,
            window=self._window(state, None, None),
            players=await self.players(state, tournament),
            theme=await self.theme(state),
            tournament=tournament,
        )
        members = " ".join(f"<@{member}>" for member in row.members)
        if members and "content" in parts:
            parts["content"] = f"{members}\n{parts['content']}"
        message = await channel.send(
            **parts,
            allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(member) for member in row.members]
            ),
            nonce=game_nonce(state.id),
        )
        await self.games.attach_message(state.id, message.id)
        self._drawn_ply[state.id] = state.stage
        posted = await self.games.state(state.id)
        return posted if posted is not None else state

    async def answer_move(
        self, interaction: discord.Interaction[Any], state: GameState, owner: Hashable
    ) -> None:
        """Answer a member's move, just stored (`state`), on the interaction of their click.

        A quick AI's answer usually came with the move (GameService.play): one edit shows both,
        so the player sees them a moment earlier than two edits would show them, and the bot
        sends and draws one board per click instead of two. Otherwise the move is shown at once
        and the AI's answer when it comes."""
        # After the board shows the move, the call to the member now to move follows it (and
        # the one that called the mover goes).
        if state.ai_to_move:
            reply = self._host.spawn(self.ai_move(state.id, owner, known=state))
            await self._acknowledge(interaction, state, then=reply)
            self._host.spawn(self.notices.turn(state, actor=interaction.user.id))
            self._host.spawn(self._show_reply(reply, interaction))
            return
        # Under the game's drawing lock, as the newest position drawn: a drawing of an older
        # one still on its way lands first or not at all, and a resignation answered meanwhile
        # sees this one on its way and draws the end again behind it (redraw_if_drawing).
        async with self._draw_lock(state.id):
            await self._acknowledge(interaction, state, then=None, locked=True)
            self._drawn_ply[state.id] = state.stage
        self._forget_if_over(state)
        self._host.spawn(self.notices.turn(state, actor=interaction.user.id))

    async def _acknowledge(
        self,
        interaction: discord.Interaction[Any],
        state: GameState,
        *,
        then: asyncio.Task[GameState | None] | None,
        locked: bool = False,
    ) -> None:
        """Draw `state` as the response to the click; `then`: the AI's answer still to come
        (it redraws the whole board, so a failed response needs no redraw of its own)."""
        try:
            await interaction.response.edit_message(
                **await self.drawing(state, edit=True, message=interaction.message)
            )
        except discord.HTTPException as exc:
            # Too late (10062) or Discord kept failing: the move is stored, so the board must
            # still show it: through the channel.
            log.warning("game %d: acknowledging a move failed (%s)", state.id, exc)
            if then is not None:
                return
            if not locked:
                await self.show_quietly(state)
                return
            try:
                await self._draw(state, None)
            except (discord.HTTPException, aiohttp.ClientError) as again:
                log.warning("game %d: could not edit its message (%r)", state.id, again)

    async def _show_reply(
        self, reply: asyncio.Task[GameState | None], interaction: discord.Interaction[Any]
    ) -> None:
        state = await reply
        if state is not None:
            await self._show_ai_move(state, interaction)

    async def ai_turn(
        self,
        game_id: int,
        interaction: discord.Interaction[Any] | None,
        owner: Hashable,
        known: GameState | None = None,
    ) -> GameState | None:
        """Let the AI answer in game `game_id` (its search counted as `owner`'s) and draw it;
        the game after the move, None if the AI did not move. `known`: the game as this
        process just stored it (see GameService.ai_move)."""
        state = await self.ai_move(game_id, owner, known)
        if state is not None:
            await self._show_ai_move(state, interaction)
        return state

    async def ai_move(
        self, game_id: int, owner: Hashable, known: GameState | None = None
    ) -> GameState | None:
        """The AI's move in game `game_id`, stored but not drawn: the game after it, None if the
        AI did not move (a failure is logged; the game stays on the AI's turn and
        CaroBot.resume_pending retries it at the next start)."""
        started = time.monotonic()
        while True:
            try:
                state = await self.games.ai_move(game_id, known, member=owner)
                break
            except asyncio.CancelledError:
                raise
            except StorageUnavailable:
                # The AI's move was not stored: asked again (from the stored game) until the
                # database is back, so the game goes on by itself.
                if self._host.is_closed():
                    log.info("game %d: the AI's move is left for the next start", game_id)
                    return None
                known = None
                await asyncio.sleep(UNAVAILABLE_RETRY_SECONDS)
            except Exception:
                if self._host.is_closed():
                    log.info("game %d: the AI's move is left for the next start", game_id)
                    return None
                log.exception("game %d: the AI could not move", game_id)
                return None
        if state is not None:
            # One line per move would be most of an operator's log on a busy bot: only a move
            # slower than any level's own limit (the pool was queueing) is worth their eye.
            seconds = time.monotonic() - started
            level = logging.INFO if seconds > SLOW_AI_MOVE else logging.DEBUG
            log.log(level, "game %d: AI moved in %.2fs", game_id, seconds)
        return state

    async def _show_ai_move(
        self, state: GameState, interaction: discord.Interaction[Any] | None
    ) -> None:
        try:
            await self.show(state, interaction)
        except (discord.HTTPException, aiohttp.ClientError) as exc:
            # Discord kept failing (after discord.py's own retries) or the bot is stopping: the
            # move is stored; one retry shortly, and the next start redraws boards whose last
            # move was the AI's.
            log.warning("game %d: could not draw the AI's move (%r)", state.id, exc)
            if not self._host.is_closed():
                self._host.spawn(self._redraw_later(state.id))

    async def _redraw_later(self, game_id: int) -> None:
        await asyncio.sleep(REDRAW_RETRY_SECONDS)
        state = await self.games.state(game_id)
        if state is None or self._host.is_closed():
            return
        try:
            await self.show(state, None)
        except (discord.HTTPException, aiohttp.ClientError) as exc:
            log.warning("game %d: could not redraw the AI's move either (%r)", game_id, exc)


def _age(interaction: discord.Interaction[Any]) -> float:
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()
