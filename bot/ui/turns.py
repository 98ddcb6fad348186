"""A member's turns on a board: a new board posted as the answer to a command (with the AI's first
move when it comes quickly), a member's move answered on the interaction of their click, and the
AI's turns stored and drawn. The drawing goes through bot.ui.boards, under its drawing locks.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

import aiohttp
import discord

from bot.game.model import ActiveGameExists, GameState, jump_link
from bot.game.ports import UNAVAILABLE_RETRY_SECONDS, StorageUnavailable
from bot.game.searches import answered_within
from bot.ui.board_look import message_parts
from bot.ui.boards import Boards, Host
from bot.ui.display_names import remember
from bot.ui.other_boards import OtherBoards
from bot.ui.replies import say

log = logging.getLogger("caro.bot")

# After Discord refused to draw the AI's move (a 5xx that outlasted discord.py's retries, a
# token refused and the channel edit failing too): one more try a little later, so the player is
# not left looking at "the AI is thinking" until the next restart.
REDRAW_RETRY_SECONDS = 5.0
# An AI move taking longer than this (seconds, search and queue) is logged at INFO.
SLOW_AI_MOVE = 2.0


class Turns:
    """The turns played on boards, drawn through `boards`."""

    def __init__(self, host: Host, boards: Boards) -> None:
        self._host = host
        self._boards = boards
        self._others = OtherBoards(host, boards)

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
        if it answers within its quick wait (Moves.quick_wait) the board is posted with
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
                    await self._boards.games.abandon(running.id)
                    continue
                link = jump_link(running.guild_id, running.channel_id, running.message_id)
                await say(interaction, busy, link=link)
                return None
        if state is None:
            await say(interaction, busy_unposted, link="")
            return None
        reply: asyncio.Task[GameState | None] | None = None
        try:
            wait = self._host.services.moves.quick_wait(state.level_of(state.acting_mark))
            if member is not None and state.ai_to_move and wait > 0:
                reply = self._host.spawn(self.ai_move(state.id, member, known=state))
                if await answered_within(reply, wait):
                    # The game after the AI's move, or as it was if the AI did not move.
                    state, reply = reply.result() or state, None
            remember(interaction.guild_id, interaction.user)
            parts = message_parts(
                state,
                external=self._boards.look.external,
                players=await self._boards.look.players(state),
                theme=await self._boards.look.theme(state),
            )
            response = await interaction.response.send_message(**parts)
            message_id = response.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
            await self._boards.games.attach_message(state.id, message_id)
            if reply is None:
                self._boards.drawn(state)
        except BaseException:
            # A move the AI may still store is refused: the game is no longer running.
            await self._boards.games.abandon(state.id)
            raise
        if reply is not None:
            self._host.spawn(self._show_reply(reply, interaction))
        elif member is not None and state.ai_to_move:
            self._host.spawn(self.ai_turn(state.id, interaction, member))
        return state

    async def answer_move(
        self, interaction: discord.Interaction[Any], state: GameState, owner: Hashable
    ) -> None:
        """Answer a member's move, just stored (`state`), on the interaction of their click.

        A quick AI's answer usually came with the move (Moves.play): one edit shows both,
        so the player sees them a moment earlier than two edits would show them, and the bot
        sends and draws one board per click instead of two. Otherwise the move is shown at once
        and the AI's answer when it comes."""
        # After the board shows the move, the call to the member now to move follows it (and
        # the one that called the mover goes).
        if state.ai_to_move:
            reply = self._host.spawn(self.ai_move(state.id, owner, known=state))
            await self._acknowledge(interaction, state, then=reply)
            self._host.spawn(self._boards.notices.turn(state, actor=interaction.user.id))
            self._host.spawn(self._show_reply(reply, interaction))
            return
        # A game between two servers: this process draws its other boards too, beside this one,
        # from the rows written held with the move (Moves.play); a board it cannot draw goes
        # to the process holding that server (bot.ui.other_boards).
        held = self._host.services.mirrors.take_held(state)
        # Under the game's drawing lock, as the newest position drawn: a drawing of an older
        # one still on its way lands first or not at all, and a resignation answered meanwhile
        # sees this one on its way and draws the end again behind it (redraw_if_drawing).
        others = None
        async with self._boards.draw_lock(state.id):
            if held:
                others = self._host.spawn(self._others.draw(state, held))
                # One turn of the loop lets it send its read of where those boards are before
                # this board's drawing holds the loop: the two edits then leave close together.
                await asyncio.sleep(0)
            await self._acknowledge(interaction, state, then=None, locked=True)
            self._boards.drawn(state)
        if others is None or others.done():
            self._boards.forget_if_over(state)
        else:
            # The game's end drawn on its other boards still reads what is kept of it here.
            others.add_done_callback(lambda _: self._boards.forget_if_over(state))
        self._host.spawn(self._boards.notices.turn(state, actor=interaction.user.id))

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
                **await self._boards.look.drawing(
                    state, edit=True, message=interaction.message, guild_id=interaction.guild_id
                )
            )
        except discord.HTTPException as exc:
            # Too late (10062) or Discord kept failing: the move is stored, so the board must
            # still show it: through the channel.
            log.warning("game %d: acknowledging a move failed (%s)", state.id, exc)
            if then is not None:
                return
            if not locked:
                await self._boards.show_quietly(state)
                return
            try:
                await self._boards.draw(state, None)
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
        process just stored it (see Moves.ai_move)."""
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
                state = await self._host.services.moves.ai_move(game_id, known, member=owner)
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
            await self._boards.show(state, interaction)
        except (discord.HTTPException, aiohttp.ClientError) as exc:
            # Discord kept failing (after discord.py's own retries) or the bot is stopping: the
            # move is stored; one retry shortly, and the next start redraws boards whose last
            # move was the AI's.
            log.warning("game %d: could not draw the AI's move (%r)", state.id, exc)
            if not self._host.is_closed():
                self._host.spawn(self._redraw_later(state.id))

    async def _redraw_later(self, game_id: int) -> None:
        await asyncio.sleep(REDRAW_RETRY_SECONDS)
        state = await self._boards.games.state(game_id)
        if state is None or self._host.is_closed():
            return
        try:
            await self._boards.show(state, None)
        except (discord.HTTPException, aiohttp.ClientError) as exc:
            log.warning("game %d: could not redraw the AI's move either (%r)", game_id, exc)


__all__ = ["REDRAW_RETRY_SECONDS", "SLOW_AI_MOVE", "Turns"]
