"""Queries of the queue for an opponent (/caro queue)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from bot.game.model import NewGame
from bot.game.queue_model import (
    AlreadyQueued,
    GameBoard,
    GameMaker,
    NewQueueEntry,
    PairPolicy,
    QueuedGameRunning,
    QueueEntry,
    QueueKey,
    QueuePairing,
    QueueStatus,
)
from bot.storage.queue_rows import (
    BOARD_COLUMNS,
    ENTRY_COLUMNS,
    ENTRY_INSERT_COLUMNS,
    board_of,
    entry_of,
    entry_values,
    key_values,
    member_pairs,
)
from bot.storage.sqlite.connection import SHARD, Connection, check_shard
from bot.storage.sqlite.games import GameQueries

# The blocks between members who both wait, and the pairs of members of whom one waits that
# were paired since a time (parameter: that time).
_BLOCKS_AMONG_WAITING = (
    "SELECT b.user_id AS a, b.blocked_id AS b FROM blocks b"
    " WHERE b.user_id IN (SELECT user_id FROM queue_entries WHERE status = 'waiting')"
    " AND b.blocked_id IN (SELECT user_id FROM queue_entries WHERE status = 'waiting')"
)
# A game the queue gave the member that still runs (parameter: the member).
_QUEUED_GAME_RUNNING = (
    "SELECT q.game_id FROM queue_entries q JOIN games g ON g.id = q.game_id"
    " WHERE q.user_id = ? AND q.status = 'paired' AND g.status = 'active' LIMIT 1"
)
_RECENT_PAIRS = (
    "SELECT user_id AS a, partner_id AS b FROM queue_entries"
    " WHERE status = 'paired' AND paired_at >= ?"
    " AND user_id IN (SELECT user_id FROM queue_entries WHERE status = 'waiting')"
)


class QueueQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def join_queue(self, new: NewQueueEntry) -> QueueEntry:
        async with self._con.lock:
            try:
                async with self._con.transaction():
                    waiting = await self._waiting(new.user_id)
                    if waiting is not None:
                        raise AlreadyQueued(waiting)
                    running = await self._con.first(_QUEUED_GAME_RUNNING, (new.user_id,))
                    if running is not None:
                        raise QueuedGameRunning(int(running[0]))
                    cur = await self._con.db.execute(
                        f"INSERT INTO queue_entries ({ENTRY_INSERT_COLUMNS})"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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

    async def leave_guild_queue(self, guild_id: int, *, now: float) -> list[QueueEntry]:
        async with self._con.lock, self._con.transaction():
            rows = await self._con.all(
                "SELECT id FROM queue_entries WHERE guild_id = ? AND status = 'waiting'"
                " ORDER BY joined_at, id",
                (guild_id,),
            )
            await self._con.db.execute(
                "UPDATE queue_entries SET status = 'left', left_at = ?"
                " WHERE guild_id = ? AND status = 'waiting'",
                (now, guild_id),
            )
            left = [await self._entry(int(row[0])) for row in rows]
        return [entry for entry in left if entry is not None]

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

    async def waiting_entries(self, *, shard_id: int = 0, shard_count: int = 1
                              ) -> list[QueueEntry]:
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE status = 'waiting'"
                f" AND message_id IS NOT NULL AND {SHARD} ORDER BY joined_at, id",
                (shard_count, shard_id),
            )
        return [entry_of(row) for row in rows]

    async def count_waiting(self, key: QueueKey) -> int:
        async with self._con.lock:
            return await self._con.scalar(
                "SELECT COUNT(*) FROM queue_entries WHERE status = 'waiting'"
                " AND rows = ? AND cols = ? AND k = ? AND rule = ? AND rated = ?"
                " AND turn_seconds = ?",
                key_values(key),
            )

    async def listen_pairings(self, wake: Callable[[], None]) -> None:
        """Nothing to listen to: this process pairs and posts the boards of its servers itself,
        and another process on the file is seen at its next round."""
        return

    async def pair_queue(
        self,
        *,
        now: float,
        recent_since: float,
        choose: PairPolicy,
        make_game: GameMaker,
        shard_id: int = 0,
        shard_count: int = 1,
    ) -> list[QueuePairing]:
        check_shard(shard_id, shard_count)
        # One write transaction (BEGIN IMMEDIATE): another process on the file waits until
        # these pairs and their games are written, and then reads them as paired.
        async with self._con.lock, self._con.transaction():
            # The shard's servers' entries, and every entry open to any server.
            rows = await self._con.all(
                f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE status = 'waiting'"
                f" AND message_id IS NOT NULL AND ({SHARD} OR local = 0) ORDER BY joined_at, id",
                (shard_count, shard_id),
            )
            entries = [entry_of(row) for row in rows]
            if len(entries) < 2:
                return []
            blocked = member_pairs(await self._con.all(_BLOCKS_AMONG_WAITING))
            recent = member_pairs(await self._con.all(_RECENT_PAIRS, (recent_since,)))
            stored: list[QueuePairing] = []
            for first, second in choose(entries, now=now, blocked=blocked, recent=recent):
                game_id = await self._insert_game(make_game(first, second))
                if game_id is None:
                    continue
                for entry, partner in ((first, second), (second, first)):
                    await self._con.db.execute(
                        "UPDATE queue_entries SET status = 'paired', partner_id = ?,"
                        " paired_at = ?, game_id = ? WHERE id = ? AND status = 'waiting'",
                        (partner.user_id, now, game_id, entry.id),
                    )
                if second.guild_id != first.guild_id:
                    # The second board, in the other member's server: posted by its shard.
                    await self._con.db.execute(
                        "INSERT INTO game_boards (game_id, guild_id, channel_id, user_id)"
                        " VALUES (?, ?, ?, ?)",
                        (game_id, second.guild_id, second.channel_id, second.user_id),
                    )
                one, other = await self._entry(first.id), await self._entry(second.id)
                assert one is not None and other is not None
                assert one.status is QueueStatus.PAIRED and other.status is QueueStatus.PAIRED
                stored.append(QueuePairing(one, other, game_id))
            return stored

    async def unposted_queue_games(self, *, shard_id: int = 0, shard_count: int = 1) -> list[int]:
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            rows = await self._con.all(
                "SELECT DISTINCT g.id FROM queue_entries q JOIN games g ON g.id = q.game_id"
                " WHERE g.status = 'active' AND g.message_id IS NULL"
                " AND (g.guild_id >> 22) % ? = ? ORDER BY g.id",
                (shard_count, shard_id),
            )
        return [int(row[0]) for row in rows]

    async def game_entries(self, game_id: int) -> list[QueueEntry]:
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE game_id = ?"
                " ORDER BY joined_at, id",
                (game_id,),
            )
        return [entry_of(row) for row in rows]

    async def game_boards(self, game_id: int) -> list[GameBoard]:
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {BOARD_COLUMNS} FROM game_boards WHERE game_id = ? ORDER BY guild_id",
                (game_id,),
            )
        return [board_of(row) for row in rows]

    async def mark_panned(self, game_id: int, guild_id: int) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "UPDATE queue_entries SET panned = 1 WHERE game_id = ? AND guild_id = ?"
                " AND panned = 0",
                (game_id, guild_id),
            )

    async def boards_panned(self, game_id: int) -> tuple[list[GameBoard], frozenset[int]]:
        async with self._con.lock:
            boards = await self._con.all(
                f"SELECT {BOARD_COLUMNS} FROM game_boards WHERE game_id = ? ORDER BY guild_id",
                (game_id,),
            )
            panned = await self._con.all(
                "SELECT guild_id FROM queue_entries WHERE game_id = ? AND panned = 1", (game_id,)
            )
        return [board_of(row) for row in boards], frozenset(int(row[0]) for row in panned)

    async def unposted_boards(self, *, shard_id: int = 0, shard_count: int = 1
                              ) -> list[GameBoard]:
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {', '.join('b.' + c for c in BOARD_COLUMNS.split(', '))}"
                " FROM game_boards b JOIN games g ON g.id = b.game_id"
                " WHERE b.message_id IS NULL AND g.status = 'active'"
                " AND (b.guild_id >> 22) % ? = ? ORDER BY b.game_id",
                (shard_count, shard_id),
            )
        return [board_of(row) for row in rows]

    async def board_game(self, guild_id: int, channel_id: int, user_id: int, *,
                         running: bool = True) -> int | None:
        async with self._con.lock:
            row = await self._con.first(
                "SELECT b.game_id FROM game_boards b JOIN games g ON g.id = b.game_id"
                " WHERE b.guild_id = ? AND b.channel_id = ? AND b.user_id = ?"
                " AND (g.status = 'active' OR NOT ?) ORDER BY b.game_id DESC LIMIT 1",
                (guild_id, channel_id, user_id, int(running)),
            )
        return None if row is None else int(row[0])

    async def joins_since(self, user_id: int, since: float) -> list[float]:
        async with self._con.lock:
            # Every status named, so the index on (status, joined_at) finds the window's entries.
            rows = await self._con.all(
                "SELECT joined_at FROM queue_entries WHERE status IN ('waiting', 'paired', 'left')"
                " AND joined_at > ? AND user_id = ?",
                (since, user_id),
            )
        return [float(row[0]) for row in rows]

    async def cross_seats(self, *, shard_id: int = 0, shard_count: int = 1
                          ) -> list[QueueEntry]:
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE status = 'paired'"
                " AND (guild_id >> 22) % ? = ? AND game_id IN (SELECT b.game_id FROM"
                " game_boards b JOIN games g ON g.id = b.game_id WHERE g.status = 'active')"
                " ORDER BY game_id, id",
                (shard_count, shard_id),
            )
        return [entry_of(row) for row in rows]

    async def attach_board(self, game_id: int, guild_id: int, message_id: int) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "UPDATE game_boards SET message_id = ? WHERE game_id = ? AND guild_id = ?",
                (message_id, game_id, guild_id),
            )

    async def keep_queue_local(self, guild_id: int) -> int:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE queue_entries SET local = 1 WHERE guild_id = ? AND status = 'waiting'"
                " AND local = 0",
                (guild_id,),
            )
        return cur.rowcount

    # ----------------------------------------------------------------- helpers (lock held)
    async def _insert_game(self, new: NewGame) -> int | None:
        """The game's id, or None if a seat of it is taken (nothing of it written): a savepoint
        keeps the pairing's other writes."""
        await self._con.db.execute("SAVEPOINT queue_game")
        try:
            game_id = await self._games.insert_game(new)
        except sqlite3.IntegrityError:
            await self._con.db.execute("ROLLBACK TO queue_game")
            await self._con.db.execute("RELEASE queue_game")
            return None
        await self._con.db.execute("RELEASE queue_game")
        return game_id

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
