"""A member's move drawn on the other boards of a game between two servers by the process of the
click, beside its own board, rather than by the process holding each other server: the other
board then waits for no notification, claim or read of the game there.

The move wrote each other board's outbox row held by this process (bot.game.mirrors), so a crash
before the drawing leaves the row to the process holding that server once the hold runs out. A
board this process cannot draw as its holder would is handed back to it at once: one whose
member panned (only the holder knows the window), one not posted yet, one Discord did not take.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

import aiohttp
import discord

from bot.game.model import GameState
from bot.game.outbox import HELD_SEND_SECONDS
from bot.game.outbox_model import NewPost
from bot.game.queue_model import GameBoard
from bot.ui.boards import Boards, Host, board_message
from bot.ui.posts import no_mentions

log = logging.getLogger("caro.bot")


class OtherBoards:
    def __init__(self, host: Host, boards: Boards) -> None:
        self._host = host
        self._boards = boards

    async def draw(self, state: GameState, held: Sequence[NewPost]) -> None:
        """Draw `state` on the boards of the rows `held` (written held with its move), each
        straight to Discord and marked sent, or hand them back."""
        if not held:
            return
        # Where the boards are and which were panned, asked first and in one read: the caller
        # lets this send the read before it draws its own board, and by the time that is on its
        # way the answer is here.
        boards, panned = await self._host.services.queue.boards_panned(state.id)
        await asyncio.gather(*(self._draw_one(state, post, boards, panned) for post in held))

    async def _draw_one(
        self, state: GameState, post: NewPost, boards: Sequence[GameBoard], panned: frozenset[int]
    ) -> None:
        outbox = self._host.services.outbox
        guild = post.guild_id
        message_id = board_message(state, boards, guild)
        if message_id is None or guild in panned:
            await outbox.hand_back(post)
            return
        parts = await self._boards.look.drawing(state, edit=True, guild_id=guild, elsewhere=True)
        message = self._host.get_partial_messageable(
            post.channel_id, guild_id=guild).get_partial_message(message_id)
        try:
            async with asyncio.timeout(HELD_SEND_SECONDS):
                await message.edit(**parts, allowed_mentions=no_mentions())
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError, OSError) as exc:
            # The holder tries again, with the outbox's waits, from the game as stored.
            log.info("game %d: its board in server %d left to that server's process (%r)",
                     state.id, guild, exc)
            await outbox.hand_back(post)
            return
        await outbox.sent_itself(post, message_id)
        # A later change drawn on that board by its holder before this edit landed would now be
        # hidden under it: the holder draws it again, from the game as stored.
        now = await self._boards.games.state(state.id)
        if now is not None and _changed(state, now):
            await self._boards.redraw_in(now, guild)


def _changed(drawn: GameState, now: GameState) -> bool:
    return (now.stage, now.row.takebacks, now.active) != (
        drawn.stage, drawn.row.takebacks, drawn.active)


__all__ = ["OtherBoards"]
