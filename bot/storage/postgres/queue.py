"""Queries of the queue for an opponent (/caro queue), on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import asyncpg  # type: ignore[import-untyped]

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
from bot.storage.postgres.connection import Connection, check_shard, shard_filter
from bot.storage.postgres.games import GameQueries
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

# The board columns of game_boards joined as "b".
_BOARDS_B = ", ".join("b." + column for column in BOARD_COLUMNS.split(", "))
# The transaction lock every pairing takes (the first key of the two-key advisory locks; the
# challenges and blocks use other classes): one process pairs at a time, so two never hand out
# the same entry, and each pairs the whole queue rather than a share of it.
QUEUE_LOCK = 0x71756575
# The NOTIFY channel of pairings between two servers: the process holding the second server
# posts its board at once, not at its next round of pairing.
PAIRED = "caro_queue"

_BLOCKS_AMONG_WAITING = (
    "SELECT b.user_id AS a, b.blocked_id AS b FROM blocks b"
    " WHERE b.user_id = ANY($1::bigint[]) AND b.blocked_id = ANY($1::bigint[])"
)
_RECENT_PAIRS = (
    "SELECT user_id AS a, partner_id AS b FROM queue_entries"
    " WHERE status = 'paired' AND paired_at >= $1 AND user_id = ANY($2::bigint[])"
)


class QueueQueries:
    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def join_queue(self, new: NewQueueEntry) -> QueueEntry:
        placeholders = ", ".join(f"${i}" for i in range(1, 15))
        try:
            async with self._con.transaction() as (con, _):
                running = await con.fetchval(
                    "SELECT q.game_id FROM queue_entries q JOIN games g ON g.id = q.game_id"
                    " WHERE q.user_id = $1 AND q.status = 'paired' AND g.status = 'active'"
                    " LIMIT 1",
                    new.user_id,
                )
                if running is not None:
                    raise QueuedGameRunning(int(running))
                row = await con.fetchrow(
                    f"INSERT INTO queue_entries ({ENTRY_INSERT_COLUMNS}) VALUES ({placeholders})"
                    f" RETURNING {ENTRY_COLUMNS}",
                    *entry_values(new),
                )
        except asyncpg.UniqueViolationError:
            # The member has an entry waiting (the unique index says so, whoever wrote it).
            waiting = await self.waiting_entry(new.user_id)
            if waiting is None:
                raise
            raise AlreadyQueued(waiting) from None
        return entry_of(row)

    async def leave_queue(self, user_id: int, *, now: float) -> QueueEntry | None:
        # A pairing holds the waiting rows locked (FOR UPDATE): this waits for it, then finds
        # the entry paired and leaves nothing.
        row = await self._con.pool.fetchrow(
            "UPDATE queue_entries SET status = 'left', left_at = $2"
            f" WHERE user_id = $1 AND status = 'waiting' RETURNING {ENTRY_COLUMNS}",
            user_id, now,
        )
        return None if row is None else entry_of(row)

    async def leave_guild_queue(self, guild_id: int, *, now: float) -> list[QueueEntry]:
        # Like leave_queue: waits for a pairing that holds these rows, then leaves only the
        # entries it did not pair.
        rows = await self._con.pool.fetch(
            "UPDATE queue_entries SET status = 'left', left_at = $2"
            f" WHERE guild_id = $1 AND status = 'waiting' RETURNING {ENTRY_COLUMNS}",
            guild_id, now,
        )
        return sorted((entry_of(row) for row in rows), key=lambda e: (e.joined_at, e.id))

    async def queue_entry(self, entry_id: int) -> QueueEntry | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE id = $1", entry_id
        )
        return None if row is None else entry_of(row)

    async def waiting_entry(self, user_id: int) -> QueueEntry | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE user_id = $1 AND status = 'waiting'",
            user_id,
        )
        return None if row is None else entry_of(row)

    async def set_queue_message(self, entry_id: int, message_id: int) -> None:
        await self._con.pool.execute(
            "UPDATE queue_entries SET message_id = $2 WHERE id = $1", entry_id, message_id
        )

    async def waiting_entries(self, *, shard_id: int = 0, shard_count: int = 1
                              ) -> list[QueueEntry]:
        check_shard(shard_id, shard_count)
        shard = shard_filter("$1", "$2")
        rows = await self._con.pool.fetch(
            f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE status = 'waiting'"
            f" AND message_id IS NOT NULL AND {shard} ORDER BY joined_at, id",
            shard_count, shard_id,
        )
        return [entry_of(row) for row in rows]

    async def count_waiting(self, key: QueueKey) -> int:
        found = await self._con.pool.fetchval(
            "SELECT COUNT(*) FROM queue_entries WHERE status = 'waiting'"
            " AND rows = $1 AND cols = $2 AND k = $3 AND rule = $4 AND rated = $5"
            " AND turn_seconds = $6",
            *key_values(key),
        )
        return int(found)

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
        shard = shard_filter("$1", "$2")
        async with self._con.transaction() as (con, _):
            await con.execute("SELECT pg_advisory_xact_lock($1, 0)", QUEUE_LOCK)
            # The shard's servers' entries, and every entry open to any server. Locked until
            # commit: a leave waits for these pairs, then finds its entry paired.
            rows = await con.fetch(
                f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE status = 'waiting'"
                f" AND message_id IS NOT NULL AND ({shard} OR NOT local)"
                " ORDER BY joined_at, id FOR UPDATE",
                shard_count, shard_id,
            )
            entries = [entry_of(row) for row in rows]
            if len(entries) < 2:
                return []
            members = sorted({entry.user_id for entry in entries})
            blocked = member_pairs(await con.fetch(_BLOCKS_AMONG_WAITING, members))
            recent = member_pairs(await con.fetch(_RECENT_PAIRS, recent_since, members))
            stored: list[QueuePairing] = []
            across = False
            for first, second in choose(entries, now=now, blocked=blocked, recent=recent):
                game_id = await self._insert_game(con, make_game(first, second))
                if game_id is None:
                    continue
                found = {}
                for entry, partner in ((first, second), (second, first)):
                    row = await con.fetchrow(
                        "UPDATE queue_entries SET status = 'paired', partner_id = $2,"
                        " paired_at = $3, game_id = $4 WHERE id = $1 AND status = 'waiting'"
                        f" RETURNING {ENTRY_COLUMNS}",
                        entry.id, partner.user_id, now, game_id,
                    )
                    assert row is not None  # locked above: nobody changed it since
                    found[entry.id] = entry_of(row)
                if second.guild_id != first.guild_id:
                    # The second board, in the other member's server: posted by its shard.
                    await con.execute(
                        "INSERT INTO game_boards (game_id, guild_id, channel_id, user_id)"
                        " VALUES ($1, $2, $3, $4)",
                        game_id, second.guild_id, second.channel_id, second.user_id,
                    )
                    across = True
                one, other = found[first.id], found[second.id]
                assert one.status is QueueStatus.PAIRED and other.status is QueueStatus.PAIRED
                stored.append(QueuePairing(one, other, game_id))
            if across:
                await con.execute(f"NOTIFY {PAIRED}")
            return stored

    async def listen_pairings(self, wake: Callable[[], None]) -> None:
        await self._con.listening(PAIRED, lambda _payload: wake())

    async def unposted_queue_games(self, *, shard_id: int = 0, shard_count: int = 1) -> list[int]:
        check_shard(shard_id, shard_count)
        shard = shard_filter("$1", "$2", "g.guild_id")
        rows = await self._con.pool.fetch(
            "SELECT DISTINCT g.id FROM queue_entries q JOIN games g ON g.id = q.game_id"
            f" WHERE g.status = 'active' AND g.message_id IS NULL AND {shard} ORDER BY g.id",
            shard_count, shard_id,
        )
        return [int(row[0]) for row in rows]

    async def game_entries(self, game_id: int) -> list[QueueEntry]:
        rows = await self._con.pool.fetch(
            f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE game_id = $1 ORDER BY joined_at, id",
            game_id,
        )
        return [entry_of(row) for row in rows]

    async def game_boards(self, game_id: int) -> list[GameBoard]:
        rows = await self._con.pool.fetch(
            f"SELECT {BOARD_COLUMNS} FROM game_boards WHERE game_id = $1 ORDER BY guild_id",
            game_id,
        )
        return [board_of(row) for row in rows]

    async def mark_panned(self, game_id: int, guild_id: int) -> None:
        await self._con.pool.execute(
            "UPDATE queue_entries SET panned = TRUE WHERE game_id = $1 AND guild_id = $2"
            " AND NOT panned",
            game_id, guild_id,
        )

    async def boards_panned(self, game_id: int) -> tuple[list[GameBoard], frozenset[int]]:
        # One row with no board where the game has none, so the pans always come back.
        rows = await self._con.pool.fetch(
            f"SELECT {_BOARDS_B}, ARRAY(SELECT"
            " guild_id FROM queue_entries WHERE game_id = $1 AND panned) AS panned"
            " FROM (SELECT 1) AS one LEFT JOIN game_boards b ON b.game_id = $1 ORDER BY b.guild_id",
            game_id,
        )
        boards = [board_of(row) for row in rows if row["game_id"] is not None]
        return boards, frozenset(int(guild) for guild in rows[0]["panned"])

    async def unposted_boards(self, *, shard_id: int = 0, shard_count: int = 1
                              ) -> list[GameBoard]:
        check_shard(shard_id, shard_count)
        shard = shard_filter("$1", "$2", "b.guild_id")
        rows = await self._con.pool.fetch(
            f"SELECT {_BOARDS_B}"
            " FROM game_boards b JOIN games g ON g.id = b.game_id"
            f" WHERE b.message_id IS NULL AND g.status = 'active' AND {shard} ORDER BY b.game_id",
            shard_count, shard_id,
        )
        return [board_of(row) for row in rows]

    async def board_game(self, guild_id: int, channel_id: int, user_id: int, *,
                         running: bool = True) -> int | None:
        found = await self._con.pool.fetchval(
            "SELECT b.game_id FROM game_boards b JOIN games g ON g.id = b.game_id"
            " WHERE b.guild_id = $1 AND b.channel_id = $2 AND b.user_id = $3"
            " AND (g.status = 'active' OR NOT $4) ORDER BY b.game_id DESC LIMIT 1",
            guild_id, channel_id, user_id, running,
        )
        return None if found is None else int(found)

    async def joins_since(self, user_id: int, since: float) -> list[float]:
        # Every status named, so the index on (status, joined_at) finds the window's entries.
        rows = await self._con.pool.fetch(
            "SELECT joined_at FROM queue_entries WHERE status IN ('waiting', 'paired', 'left')"
            " AND joined_at > $2 AND user_id = $1",
            user_id, since,
        )
        return [float(row[0]) for row in rows]

    async def cross_seats(self, *, shard_id: int = 0, shard_count: int = 1
                          ) -> list[QueueEntry]:
        check_shard(shard_id, shard_count)
        rows = await self._con.pool.fetch(
            f"SELECT {ENTRY_COLUMNS} FROM queue_entries WHERE status = 'paired'"
            " AND (guild_id >> 22) % $1 = $2 AND game_id IN (SELECT b.game_id FROM"
            " game_boards b JOIN games g ON g.id = b.game_id WHERE g.status = 'active')"
            " ORDER BY game_id, id",
            shard_count, shard_id,
        )
        return [entry_of(row) for row in rows]

    async def attach_board(self, game_id: int, guild_id: int, message_id: int) -> None:
        await self._con.pool.execute(
            "UPDATE game_boards SET message_id = $3 WHERE game_id = $1 AND guild_id = $2",
            game_id, guild_id, message_id,
        )

    async def keep_queue_local(self, guild_id: int) -> int:
        done = await self._con.pool.execute(
            "UPDATE queue_entries SET local = TRUE WHERE guild_id = $1 AND status = 'waiting'"
            " AND NOT local",
            guild_id,
        )
        return int(done.split()[-1])

    async def _insert_game(self, con: Any, new: NewGame) -> int | None:
        """The game's id, or None if a seat of it is taken (nothing of it written): a savepoint
        keeps the pairing's other writes, which a failed statement would otherwise undo."""
        try:
            async with con.transaction():
                game = await self._games.insert_game(con, new)
        except asyncpg.UniqueViolationError:
            return None
        return game.id
