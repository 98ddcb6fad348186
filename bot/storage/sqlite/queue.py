"""Queries of the queue for an opponent (/caro queue)."""

from __future__ import annotations

import sqlite3

from bot.game.queue_model import (
    AlreadyQueued,
    NewQueueEntry,
    PairPolicy,
    QueueEntry,
    QueueKey,
    QueueStatus,
)
from bot.storage.queue_rows import (
    ENTRY_COLUMNS,
    ENTRY_INSERT_COLUMNS,
    entry_of,
    entry_values,
    key_values,
    member_pairs,
)
from bot.storage.sqlite.connection import Connection

# The blocks between members who both wait, and the pairs of members of whom one waits that
# were paired since a time (parameter: that time).
_BLOCKS_AMONG_WAITING = (
    "SELECT b.user_id AS a, b.blocked_id AS b FROM blocks b"
    " WHERE b.user_id IN (SELECT user_id FROM queue_entries WHERE status = 'waiting')"
    " AND b.blocked_id IN (SELECT user_id FROM queue_entries WHERE status = 'waiting')"
)
_RECENT_PAIRS = (
    "SELECT user_id AS a, partner_id AS b FROM queue_entries"
    " WHERE status = 'paired' AND paired_at >= ?"
    " AND user_id IN (SELECT user_id FROM queue_entries WHERE status = 'waiting')"
)


class QueueQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def join_queue(self, new: NewQueueEntry) -> QueueEntry:
        async with self._con.lock:
            try:
                async with self._con.transaction():
                    waiting = await self._waiting(new.user_id)
                    if waiting is not None:
                        raise AlreadyQueued(waiting)
                    cur = await self._con.db.execute(
                        f"INSERT INTO queue_entries ({ENTRY_INSERT_COLUMNS})"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        entry_values(new),
                    )
            except sqlite3.IntegrityError:
                # Another process on the file joined this member first: the unique index
                # refused the second entry.
                waiting = await self._waiting(new.user_id)
                if waiting is None:
                    raise
                raise AlreadyQueued(waiting) from None
            entry_id = cur.lastrowid
            assert entry_id is not None
            found = await self._entry(entry_id)
        assert found is not None
        return found

    async def leave_queue(self, user_id: int, *, now: float) -> QueueEntry | None:
        async with self._con.lock, self._con.transaction():
            waiting = await self._waiting(user_id)
            if waiting is None:
                return None
            await self._con.db.execute(
                "UPDATE queue_entries SET status = 'left', left_at = ?"
                " WHERE id = ? AND status = 'waiting'",
                (now, waiting.id),
            )
            return await self._entry(waiting.id)

    async def queue_entry(self, entry_id: int) -> QueueEntry | None:
        async with self._con.lock:
            return await self._entry(entry_id)

    async def waiting_entry(self, user_id: int) -> QueueEntry | None:
        async with self._con.lock:
            return await self._waiting(user_id)

    async def set_queue_message(self, entry_id: int, message_id: int) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "UPDATE queue_entries SET message_id = ? WHERE id = ?", (message_id, entry_id)
            )

    async def count_waiting(self, key: QueueKey) -> int:
        async with self._con.lock:
            return await self._con.scalar(
                "SELECT COUNT(*) FROM queue_entries WHERE status = 'waiting'"
                " AND rows = ? AND cols = ? AND k = ? AND rule = ? AND rated = ?"
                " AND turn_seconds = ?",
                key_values(key),
            )

    async def pair_queue(
        self, *, now: float, recent_since: float, choose: PairPolicy
    ) -> list[tuple[QueueEntry, QueueEntry]]:
        # One write transaction (BEGIN IMMEDIATE): another process on the file waits until
        # these pairs are written, and then reads them as paired.
        async with self._con.lock, self._con.transaction():
            rows = await self._con.all(
                f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE status = 'waiting'"
                " ORDER BY joined_at, id"
            )
            entries = [entry_of(row) for row in rows]
            if len(entries) < 2:
                return []
            blocked = member_pairs(await self._con.all(_BLOCKS_AMONG_WAITING))
            recent = member_pairs(await self._con.all(_RECENT_PAIRS, (recent_since,)))
            pairs = choose(entries, now=now, blocked=blocked, recent=recent)
            stored: list[tuple[QueueEntry, QueueEntry]] = []
            for first, second in pairs:
                for entry, partner in ((first, second), (second, first)):
                    await self._con.db.execute(
                        "UPDATE queue_entries SET status = 'paired', partner_id = ?,"
                        " paired_at = ? WHERE id = ? AND status = 'waiting'",
                        (partner.user_id, now, entry.id),
                    )
                one, other = await self._entry(first.id), await self._entry(second.id)
                assert one is not None and other is not None
                assert one.status is QueueStatus.PAIRED and other.status is QueueStatus.PAIRED
                stored.append((one, other))
            return stored

    # ----------------------------------------------------------------- helpers (lock held)
    async def _entry(self, entry_id: int) -> QueueEntry | None:
        row = await self._con.first(
            f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE id = ?", (entry_id,)
        )
        return None if row is None else entry_of(row)

    async def _waiting(self, user_id: int) -> QueueEntry | None:
        row = await self._con.first(
            f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE user_id = ? AND status = 'waiting'",
            (user_id,),
        )
        return None if row is None else entry_of(row)
