"""What a process keeps about the installation, and the work it picks up for its shards at
start (AI moves owed, boards to redraw)."""

from __future__ import annotations

from bot.game.model import GameState, load_state
from bot.game.ports import REDRAW_FINISHED_WITHIN, MetaStore


class Meta:
    def __init__(self, store: MetaStore) -> None:
        self._store = store

    async def get_meta(self, key: str) -> str | None:
        """A stored fact about this installation (e.g. the synced command tree's hash)."""
        return await self._store.get_meta(key)

    async def set_meta(self, key: str, value: str) -> None:
        await self._store.set_meta(key, value)

    async def games_awaiting_ai(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[GameState]:
        rows = await self._store.games_awaiting_ai(shard_id=shard_id, shard_count=shard_count)
        # The store's pick is wide in openings, where the side to act is not the side to move.
        return [state for state in map(load_state, rows) if state.ai_to_move]

    async def games_to_redraw(
        self, finished_within: float = REDRAW_FINISHED_WITHIN, *, shard_id: int = 0,
        shard_count: int = 1,
    ) -> list[GameState]:
        """Games of the shard whose message may be behind the database after a crash (see
        storage)."""
        rows = await self._store.games_to_redraw(
            finished_within, shard_id=shard_id, shard_count=shard_count
        )
        return [load_state(row) for row in rows]


__all__ = ["Meta"]
