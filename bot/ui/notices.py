"""The one short message per running game that calls its member to move: "your move" in a game
between members, "your clock is running out" in any timed game.

A mention notifies only in a new message (Discord never notifies for a mention an edit adds), so
the call is a short reply to the board rather than a change to it. It mentions the member to
move and nobody else: its allowed mentions name exactly that user, never @everyone, a role or
the other player. The game's next notice replaces it and the end of the game deletes it, so a
channel holds at most one per running game. A member who turned pings or warnings off in
/caro settings gets none. A warning is decided with its clock's claim and sent by the outbox
(bot.cogs.outbox), so a restart in between still sends it; a ping is sent here, after the
move."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

import discord

from bot.game.model import GameState, Mode
from bot.game.outbox_model import PostKind
from bot.game.ports import StorageUnavailable
from bot.game.services import Services
from bot.i18n.texts import text_in
from bot.ui.languages import member_language
from bot.ui.posts import NewMessage

log = logging.getLogger("caro.bot")


def courtesy_failed(exc: Exception, message: str, game_id: int) -> None:
    """A notice that could not be posted or removed: a warning, unless the database being away
    was the cause (said once in the log already, when it was lost)."""
    level = logging.DEBUG if isinstance(exc, StorageUnavailable) else logging.WARNING
    log.log(level, message, game_id, exc)


class Host(Protocol):
    @property
    def services(self) -> Services: ...

    def get_partial_messageable(
        self, id: int, *, guild_id: int | None = None, type: object = None
    ) -> discord.PartialMessageable: ...


def only(user_id: int) -> discord.AllowedMentions:
    """Mentions that notify `user_id` alone, whatever else the text holds."""
    return discord.AllowedMentions(
        everyone=False, roles=False, replied_user=False, users=[discord.Object(id=user_id)]
    )


@dataclass(frozen=True, slots=True)
class Place:
    """Where a player of a game between two servers sees it: their server, channel, board
    (None: not posted yet) and language."""

    guild_id: int
    channel_id: int
    message_id: int | None
    locale: str


# The place of `member` in game `state` if it is a queued game between two servers (None for
# any other game): they are called there, never in the other server. Such a call is an outbox
# row, sent (and later removed) by the process holding that server, which also gets that
# member's next click.
Places = Callable[[GameState, int], Awaitable[Place | None]]


async def _at_home(_: GameState, __: int) -> Place | None:
    return None


class Notices:
    def __init__(self, host: Host, place: Places = _at_home) -> None:
        self._host = host
        self._place = place
        # The notice on each running game's channel: (the move count it was posted at, its
        # message id, the server and channel it is in). The next turn's notice or the game's
        # end removes it.
        self._posted: dict[int, tuple[int, int, int, int]] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    def posted(self, game_id: int) -> int | None:
        """The id of the game's notice in its channel, if one is there."""
        found = self._posted.get(game_id)
        return None if found is None else found[1]

    async def turn(self, state: GameState, *, actor: int | None) -> None:
        """After a move (or the start of a game) drawn as `state`: the notice of a turn that
        passed goes, and the member now to move in a game between members is pinged, unless they
        are `actor` (who just acted and is looking at the board) or turned pings off. Against
        the AI nobody is pinged: the member just clicked."""
        try:
            await self._turn(state, actor)
        except Exception as exc:
            # A call is a courtesy: the move stands and the board shows whose turn it is.
            courtesy_failed(exc, "game %d: could not call the member to move (%r)", state.id)

    async def _turn(self, state: GameState, actor: int | None) -> None:
        if state.mode is not Mode.PVP and state.id not in self._posted:
            return  # nobody to ping, nothing to remove: no lock to keep either
        async with self._lock(state.id):
            if self._current(state):
                return
            await self._remove(state)
            if not state.active or state.mode is not Mode.PVP or state.board.is_over():
                return
            member = state.user_of(state.acting_mark)
            if member is None or member == actor:
                return
            if not (await self._host.services.preferences.member(member)).turn_pings:
                return
            place = await self._place(state, member)
            if place is None:
                await self._post(state, member, "notice.turn")
                return
        outbox = self._host.services.outbox
        await outbox.add([outbox.post(
            place.guild_id, place.channel_id, PostKind.TURN_PING, game=state.id,
            stage=state.stage, member=member,
        )])

    async def turn_call(self, state: GameState, member: int, stage: int) -> NewMessage | None:
        """The ping to `member` of a game between two servers that it is their turn at `stage`
        (an outbox row of `turn`'s, sent by the process holding their server, which removes it
        when the turn passes); None once the turn passed."""
        if (
            not state.active
            or state.stage != stage
            or state.board.is_over()
            or state.user_of(state.acting_mark) != member
        ):
            return None
        place = await self._place(state, member)
        if place is None:
            return None
        async with self._lock(state.id):
            await self._remove(state)
        content, reference = await self._call(state, member, "notice.turn", place)

        async def sent(message_id: int) -> None:
            await self._sent(state.id, (stage, message_id, place.guild_id, place.channel_id))

        alone = NewMessage(content, allowed_mentions=only(member), sent=sent)
        if reference is None:
            return alone
        return NewMessage(
            content, allowed_mentions=only(member), reference=reference, fallback=alone,
            sent=sent,
        )

    async def opponent_gone(self, state: GameState, member: int) -> NewMessage | None:
        """The line to `member` of a game between two servers that their opponent can no longer
        play from their server and forfeited: in `member`'s own channel, replying to their
        board (an outbox row, sent by the process holding their server); None for any other
        game."""
        place = await self._place(state, member)
        if place is None:
            return None
        content, reference = await self._call(state, member, "queue.opponent_gone", place)
        alone = NewMessage(content, allowed_mentions=only(member))
        if reference is None:
            return alone
        return NewMessage(content, allowed_mentions=only(member), reference=reference,
                          fallback=alone)

    async def low_time(
        self, state: GameState, deadline: float, guild_id: int | None = None
    ) -> NewMessage | None:
        """The warning to the member to move in `state` that the clock running out at `deadline`
        runs low (the outbox sends it, once per turn: its row was written with the clock's
        claim), unless the turn passed or they turned warnings off. The turn's ping, if any,
        makes way for it. `guild_id`: the server of the row (the game's own if None).

        The clock writes the row for the channel of the member's own board (bot.game.clocks):
        in a game between two servers, the warning of the member of the other server is sent
        (and later removed) by the process holding their server."""
        member = state.user_of(state.acting_mark)
        if member is None or not state.active or state.row.deadline != deadline:
            return None  # the turn passed, or the game ended: nothing to warn of
        place = await self._place(state, member)
        if place is not None and place.guild_id == state.row.guild_id:
            place = None  # the game's own channel: drawn as any game's
        if place is not None and guild_id != place.guild_id:
            return None  # never in a server the member does not play in
        if not (await self._host.services.preferences.member(member)).clock_warnings:
            return None
        async with self._lock(state.id):
            await self._remove(state)
        # Discord shows the time left counting down, in the reader's own language.
        content, reference = await self._call(
            state, member, "notice.low_time", place, when=f"<t:{int(deadline)}:R>"
        )
        where = state.row if place is None else place

        async def sent(message_id: int) -> None:
            await self._sent(
                state.id, (state.stage, message_id, where.guild_id, where.channel_id))

        alone = NewMessage(content, allowed_mentions=only(member), sent=sent)
        if reference is None:
            return alone
        return NewMessage(
            content, allowed_mentions=only(member), reference=reference, fallback=alone,
            sent=sent,
        )

    async def settle(self, state: GameState) -> None:
        """After any drawing of `state`: the notice goes if its turn passed or the game ended."""
        if state.id not in self._posted or self._current(state):
            return
        try:
            async with self._lock(state.id):
                if not self._current(state):
                    await self._remove(state)
        except Exception as exc:
            courtesy_failed(exc, "game %d: could not remove its notice (%r)", state.id)

    async def _sent(self, game_id: int, posted: tuple[int, int, int, int]) -> None:
        """Keep a call the outbox just sent as the game's notice, or remove it at once if its
        turn passed while it was on its way: the drawing of that turn found no notice to remove
        then, and none would come later."""
        try:
            async with self._lock(game_id):
                self._posted[game_id] = posted
                fresh = await self._host.services.games.state(game_id)
                if fresh is None:
                    await self._remove_posted(game_id, ended=True)
                elif not self._current(fresh):
                    await self._remove(fresh)
        except Exception as exc:
            # The call was sent: the row is done whatever happens to its tidying.
            courtesy_failed(exc, "game %d: could not check its notice (%r)", game_id)

    def _current(self, state: GameState) -> bool:
        posted = self._posted.get(state.id)
        return (
            posted is not None
            and state.active
            and not state.board.is_over()
            and posted[0] == state.stage
        )

    def _lock(self, game_id: int) -> asyncio.Lock:
        return self._locks.setdefault(game_id, asyncio.Lock())

    def _channel(self, state: GameState, place: Place | None = None) -> discord.PartialMessageable:
        if place is not None:
            return self._host.get_partial_messageable(place.channel_id, guild_id=place.guild_id)
        return self._host.get_partial_messageable(state.row.channel_id, guild_id=state.row.guild_id)

    async def _call(
        self, state: GameState, member: int, key: str, place: Place | None = None,
        **values: object,
    ) -> tuple[str, discord.MessageReference | None]:
        """The text calling `member`, and the board to reply to (theirs, at `place`, in a game
        between two servers)."""
        services = self._host.services
        # The member's language; the board's stands in for their Discord client's.
        guild_id, board, client = (
            (state.row.guild_id, state.row.message_id, state.row.locale) if place is None
            else (place.guild_id, place.message_id, place.locale)
        )
        locale = await member_language(services, guild_id, member, client=client)
        content = text_in(locale, key, member=f"<@{member}>", **values)
        reference = None
        if board is not None:
            # A reply: one click leads to the board, and a board deleted meanwhile does not
            # stop the call.
            reference = self._channel(state, place).get_partial_message(
                board
            ).to_reference(fail_if_not_exists=False)
        return content, reference

    async def _post(
        self, state: GameState, member: int, key: str, place: Place | None = None,
        **values: object,
    ) -> None:
        content, reference = await self._call(state, member, key, place, **values)
        channel = self._channel(state, place)
        try:
            try:
                message = await channel.send(
                    content,
                    allowed_mentions=only(member),
                    reference=reference,  # type: ignore[arg-type]
                )
            except discord.Forbidden:
                if reference is None:
                    raise
                # A reply needs Read Message History; the call alone needs only Send Messages.
                message = await channel.send(content, allowed_mentions=only(member))
        except discord.HTTPException as exc:
            log.warning("game %d: could not call the member to move (%s)", state.id, exc)
            return
        where = state.row if place is None else place
        self._posted[state.id] = (state.stage, message.id, where.guild_id, where.channel_id)

    async def _remove(self, state: GameState) -> None:
        await self._remove_posted(state.id, ended=not state.active)

    async def _remove_posted(self, game_id: int, *, ended: bool) -> None:
        posted = self._posted.pop(game_id, None)
        if ended:
            self._locks.pop(game_id, None)
        if posted is None:
            return
        try:
            _, message_id, guild_id, channel_id = posted
            await self._host.get_partial_messageable(
                channel_id, guild_id=guild_id
            ).get_partial_message(message_id).delete()
        except discord.HTTPException as exc:
            # Deleted by a moderator already, or no access: nothing is left to tidy.
            log.info("game %d: could not delete its notice (%s)", game_id, exc)


__all__ = ["Notices", "Place", "only"]
