"""What a game's board looks like on its message: the text, the buttons and, on a big board, the
picture with its legend, in the theme of the member who started the game; the pan window a big
board shows; and whether a message already is a Components V2 layout. Drawn the same whichever
feature changed the game: bot.ui.boards puts the drawing on the game's message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from bot.game.levels import ExternalLevel
from bot.game.model import DEFAULT_STYLE, GameState
from bot.game.queue_model import GameBoard, QueueEntry
from bot.game.services import Services
from bot.game.tournament_model import TournamentGame
from bot.ui.buttons import Pan
from bot.ui.display_names import display_names
from bot.ui.notices import Place
from bot.ui.pictures import Players
from bot.ui.record_views import players_of, translator
from bot.ui.render import (
    board_file,
    game_content,
    game_view,
    has_window,
    uses_image,
)
from bot.ui.tournaments import entrant_label
from bot.ui.window import Window, WindowError, follow, followed_window, initial_window
from engine import Mark


class LookHost(Protocol):
    """What BoardLook needs from the bot."""

    @property
    def services(self) -> Services: ...

    @property
    def external(self) -> ExternalLevel: ...

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
    names: Mapping[int, str] | None = None,
    locale: str | None = None,
) -> dict[str, Any]:
    """Keyword arguments that draw a game on a message (send or edit): text, buttons and, on a
    big board, the picture (with `players`, its legend), all in `theme`'s colours. `layout`
    draws even a small board as a Components V2 layout (for a message that already is one).
    `external` names the external engine's seat; `tournament`, a tournament's game's place in
    it. `names`: the members called by a name rather than mentioned (bot.ui.render.game_content).
    `locale`: the language of the text and buttons, if not the game's.
    """
    view = game_view(
        state,
        locale,
        window=window,
        changes=changes,
        layout=layout,
        external=external,
        theme=theme,
        tournament=tournament,
        names=names,
    )
    parts: dict[str, Any] = {"view": view}
    if isinstance(view, discord.ui.LayoutView):
        # The text is a component of the layout; V2 messages carry no content or embeds, and
        # an edit says so explicitly (a challenge's text turns into a board).
        if edit:
            parts.update(content=None, embeds=[])
    else:
        parts["content"] = game_content(
            state, locale, changes=changes, external=external, theme=theme,
            tournament=tournament, names=names,
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


def followed_for(state: GameState) -> Window | None:
    """The window that followed every move of a big board drawn as a picture; None for a board
    drawn whole."""
    if not (uses_image(state) and has_window(state)):
        return None
    board = state.board
    return followed_window(board).clamp(board.rows, board.cols)


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


@dataclass(frozen=True, slots=True)
class CrossServer:
    """A queued game between members of two servers: its two entries (the one that waited
    longer first: the game's own server) and its boards in the other server. The boards'
    messages may have been posted since this was read: only their servers and channels are
    to be trusted."""

    entries: list[QueueEntry]
    boards: list[GameBoard]

    def locale(self, guild_id: int) -> str | None:
        """The language of the board in `guild_id`: that of its member's place in the queue."""
        return next((e.locale for e in self.entries if e.guild_id == guild_id), None)

    def names(self, guild_id: int) -> dict[int, str]:
        """How a board in `guild_id` calls the players of other servers: their display name and
        rating, never a mention."""
        return {
            entry.user_id: f"**{entry.display_name or entry.user_id}** ({entry.rating:.0f})"
            for entry in self.entries
            if entry.guild_id != guild_id
        }


class BoardLook:
    """The drawing of a game's board, and what it remembers of the boards drawn: the pan window
    of each running big board, and the messages seen to be layouts."""

    def __init__(self, host: LookHost) -> None:
        self._host = host
        # The pan window last drawn per running big board (game, server): a move inside it
        # leaves it in place. A game between two servers has a board in each.
        self._windows: dict[tuple[int, int], Window] = {}
        # Boards that need no layout but whose message already is one (an older version drew a
        # small board as a V2 layout), as seen on clicks: a redraw through the channel, which
        # does not see the message, draws them as a layout too.
        self.layout_messages: set[int] = set()
        # game id -> what it has of two servers (None: a game of one server), read once.
        self._cross: dict[int, CrossServer | None] = {}
        # Running big boards (game, server) whose member moved the window on this process.
        self._panned: set[tuple[int, int]] = set()

    def as_layout(self, message: discord.Message | None) -> bool:
        """Whether `message` (the one being edited) is a layout, remembered when it is."""
        if message is None or not is_layout(message):
            return False
        self.layout_messages.add(message.id)
        return True

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
        guild_id: int | None = None,
        elsewhere: bool = False,
    ) -> dict[str, Any]:
        """message_parts, with the rating changes of a finished game; on `message` (the one
        being edited) as a layout if it already is one; for the board in `guild_id` (the game's
        own server if None), which calls the players of other servers by name. `elsewhere`: a
        board of a game between two servers that another process holds, never panned, drawn
        with the window that followed every move (and none of this process's remembered)."""
        changes = () if state.active else await self._host.services.games.rating_changes(state.id)
        tournament = await self.tournament(state)
        names = await self.names(state, guild_id)
        return message_parts(
            state,
            external=self.external,
            edit=edit,
            # A board of a game between two servers that this process has not drawn yet (the
            # second board posted after the first move, or after a restart) shows the window
            # that followed every move, as the other board does unless its member panned.
            window=(
                followed_for(state) if elsewhere
                else self.window(state, window, message, guild_id=guild_id,
                                 followed=await self.cross(state) is not None)
            ),
            changes=changes,
            layout=self.as_layout(message),
            # The picture's legend: every player of a game between two servers by the name
            # they queued with (this process may see neither member).
            players=await self.players(state, tournament, await self.names(state, 0)),
            theme=await self.theme(state),
            tournament=tournament,
            names=names,
            locale=await self.locale(state, guild_id),
        )

    async def locale(self, state: GameState, guild_id: int | None) -> str | None:
        """The language of the game's board in `guild_id`: the game's own (None) but on the
        board of a game between two servers in the other server, which speaks the language its
        member queued in."""
        cross = await self.cross(state)
        if cross is None or guild_id is None or guild_id == state.row.guild_id:
            return None
        return cross.locale(guild_id)

    async def cross(self, state: GameState) -> CrossServer | None:
        """The game's two servers, if it is a queued game between two; None for any other."""
        if state.id in self._cross:
            return self._cross[state.id]
        queue = self._host.services.queue
        boards = await queue.boards(state.id)
        found = None if not boards else CrossServer(await queue.entries_of(state.id), boards)
        self._cross[state.id] = found
        return found

    async def panned(self, state: GameState, guild_id: int | None) -> None:
        """The member panned the game's board in `guild_id`: in a game between two servers, a
        move clicked on the other board no longer draws this one (only this process knows the
        window); this process does."""
        if guild_id is not None and await self.cross(state) is not None:
            await self._host.services.queue.panned(state.id, guild_id)

    async def place(self, state: GameState, member: int) -> Place | None:
        """Where `member` sees a game between two servers: their server's board of it (its
        channel, message and the language they queued in); None for any other game."""
        cross = await self.cross(state)
        if cross is None:
            return None
        entry = next((e for e in cross.entries if e.user_id == member), None)
        if entry is None:
            return None
        row = state.row
        if entry.guild_id == row.guild_id:
            return Place(row.guild_id, row.channel_id, row.message_id, row.locale)
        for board in await self._host.services.queue.boards(state.id):
            if board.guild_id == entry.guild_id:
                return Place(board.guild_id, board.channel_id, board.message_id, entry.locale)
        return None

    async def names(self, state: GameState, guild_id: int | None) -> dict[int, str]:
        """The players a board of the game in `guild_id` calls by name (those of other
        servers); none for a game of one server."""
        cross = await self.cross(state)
        if cross is None:
            return {}
        return cross.names(state.row.guild_id if guild_id is None else guild_id)

    async def record_names(self, state: GameState, guild_id: int) -> dict[int, str]:
        """The players a record of the game (a replay, a review, a history line) shown in
        `guild_id` calls by name: those of other servers; none for a game of one server. Read
        each time, not remembered: records are of games over, of which the boards keep nothing."""
        cross = self._cross.get(state.id)
        if cross is None:
            cross = CrossServer(await self._host.services.queue.entries_of(state.id), [])
        return cross.names(guild_id)

    def window(
        self, state: GameState, window: Window | None, message: discord.Message | None,
        *, guild_id: int | None = None, followed: bool = False,
    ) -> Window | None:
        """The window to draw a big board with: `window` when the member panned; else, with
        `followed` (a game between two servers) and no pan on this process's board of it, the
        window that followed every move from the first (see followed_window): either process
        may draw a move on either board, so neither remembers the window; else the one shown
        before (remembered, or read off the message), moved only as far as the last move needs;
        else the first window, around the last move, or with `followed` the followed one. Of
        the game's board in `guild_id` (the game's own server if None)."""
        board = state.board
        if not (uses_image(state) and has_window(state)):
            return window
        key = (state.id, state.row.guild_id if guild_id is None else guild_id)
        if window is not None:
            self._panned.add(key)
        elif followed and key not in self._panned:
            window = followed_window(board)
        if window is None:
            shown = self._windows.get(key) or shown_window(message)
            if shown is not None and shown.fits(board.rows, board.cols):
                last = board.last_move
                window = shown if last is None else follow(shown, last, board)
        if window is None:
            window = followed_window(board) if followed else initial_window(board)
        window = window.clamp(board.rows, board.cols)
        self._windows[key] = window
        return window

    async def players(
        self, state: GameState, tournament: TournamentGame | None = None,
        known: Mapping[int, str] | None = None,
    ) -> Players | None:
        """The legend of a board drawn as a picture: who plays X and who plays O (display names,
        AI levels in the game's language; in a tournament's game, as its standings name them);
        None for a board of buttons, which has no picture."""
        if not uses_image(state):
            return None
        names = await display_names(self._host, state.row.guild_id, state.row.members)
        # Players of another server, by the name they queued with (no markdown in a picture).
        names.update({user: label.replace("**", "") for user, label in (known or {}).items()})
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

    def forget(self, game_id: int) -> None:
        """Forget the window of a game that is over."""
        self._windows = {k: w for k, w in self._windows.items() if k[0] != game_id}
        self._cross.pop(game_id, None)
        self._panned = {k for k in self._panned if k[0] != game_id}


__all__ = [
    "BoardLook",
    "CrossServer",
    "followed_for",
    "LookHost",
    "is_layout",
    "message_parts",
    "shown_window",
    "window_for",
]
