"""The queue for an opponent (`/caro queue`): joining with the member's rating, leaving, and
pairing the waiting entries (bot.game.queue_model's rules, applied by the store in one
transaction). No Discord code here."""

from __future__ import annotations

from bot.game.clocks import Clock
from bot.game.errors import UserError
from bot.game.model import Mode
from bot.game.ports import GLOBAL_SCOPE, QueueStore, StandingStore
from bot.game.queue_model import (
    RECENT_SECONDS,
    AlreadyQueued,
    NewQueueEntry,
    QueueEntry,
    QueueKey,
    choose_pairs,
)


class QueueService:
    def __init__(self, store: QueueStore, standings: StandingStore, *, clock: Clock) -> None:
        self._store = store
        self._standings = standings
        self._clock = clock

    async def join(
        self,
        *,
        guild_id: int,
        channel_id: int,
        user_id: int,
        key: QueueKey,
        local: bool,
        locale: str,
    ) -> QueueEntry:
        """A waiting entry for the member, at their global rating against people (the rating
        the queue compares, whatever server they play from); UserError if they wait already."""
        standing = await self._standings.standing(GLOBAL_SCOPE, user_id, Mode.PVP)
        try:
            return await self._store.join_queue(
                NewQueueEntry(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    user_id=user_id,
                    key=key,
                    rating=standing.rating,
                    local=local,
                    locale=locale,
                    joined_at=self._clock(),
                )
            )
        except AlreadyQueued:
            raise UserError("queue.already") from None

    async def leave(self, user_id: int) -> QueueEntry:
        """Take the member's waiting entry out; UserError if none waits (never joined, left
        already, or paired meanwhile)."""
        left = await self._store.leave_queue(user_id, now=self._clock())
        if left is None:
            raise UserError("queue.not_waiting")
        return left

    async def waiting(self, key: QueueKey) -> int:
        """How many wait for the game `key`, in every server."""
        return await self._store.count_waiting(key)

    async def pair(self) -> list[tuple[QueueEntry, QueueEntry]]:
        """Pair whoever can be paired now; the pairs made by this call (none made by another
        process are repeated)."""
        now = self._clock()
        return await self._store.pair_queue(
            now=now, recent_since=now - RECENT_SECONDS, choose=choose_pairs
        )


__all__ = ["QueueService"]
