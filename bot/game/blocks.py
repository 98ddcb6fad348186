"""Blocks between members (`/caro block`): a member who blocked another is never challenged by
them nor paired with them, in any server. No Discord code here."""

from __future__ import annotations

from bot.game.clocks import Clock
from bot.game.errors import UserError
from bot.game.ports import BlockOutcome, BlockStore

# Enough for anyone's list of people to avoid; a cap so one member cannot grow the table
# without end.
MAX_BLOCKS = 200


class Blocks:
    def __init__(self, store: BlockStore, *, clock: Clock, limit: int = MAX_BLOCKS) -> None:
        self._store = store
        self._clock = clock
        self.limit = limit

    async def block(self, user_id: int, other_id: int, *, other_is_bot: bool) -> None:
        """Block `other_id`; UserError if it cannot be done (themselves, a bot, done already,
        or the list is full)."""
        if other_id == user_id:
            raise UserError("block.self")
        if other_is_bot:
            raise UserError("block.bot")
        outcome = await self._store.block(user_id, other_id, now=self._clock(), limit=self.limit)
        if outcome is BlockOutcome.ALREADY:
            raise UserError("block.already", user=f"<@{other_id}>")
        if outcome is BlockOutcome.FULL:
            raise UserError("block.full", limit=self.limit)

    async def unblock(self, user_id: int, other_id: int) -> None:
        """Lift a block; UserError if there was none."""
        if not await self._store.unblock(user_id, other_id):
            raise UserError("block.none", user=f"<@{other_id}>")

    async def blocked(self, user_id: int) -> list[int]:
        return await self._store.blocked(user_id)

    async def check_challenge(self, challenger_id: int, opponent_id: int) -> None:
        """UserError if a block stands between the two, either way round. The challenger who
        blocked is told how to lift it; the one blocked is told no more than that they cannot."""
        if not await self._store.blocked_between(challenger_id, opponent_id):
            return
        if opponent_id in await self._store.blocked(challenger_id):
            raise UserError("challenge.you_blocked", user=f"<@{opponent_id}>")
        raise UserError("challenge.blocked", user=f"<@{opponent_id}>")


__all__ = ["MAX_BLOCKS", "Blocks"]
