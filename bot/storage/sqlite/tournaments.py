"""Queries of tournaments, their entries and their pairings, on SQLite. Each step is one guarded
statement, or a transaction whose first statement is the guard: the one writer holds the lock,
so what the guard saw holds until the commit."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from bot.game.outbox_model import NewPost
from bot.game.pairings import Outcome
from bot.game.tournament_model import (
    Entrant,
    EntryRow,
    NewPairing,
    NewTournament,
    PairingRow,
    TournamentRow,
    TournamentStatus,
)
from bot.storage.sqlite.connection import SHARD, Connection, check_shard
from bot.storage.sqlite.outbox import insert_posts
from bot.storage.tournament_rows import (
    ENTRY_COLUMNS,
    LIVE,
    PAIRING_COLUMNS,
    TOURNAMENT_COLUMNS,
    TOURNAMENT_INSERT_COLUMNS,
    UNBOUND_GAMES,
    entry_of,
    pairing_of,
    seed_order,
    tournament_of,
    tournament_values,
)


class TournamentQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def create_tournament(self, new: NewTournament) -> TournamentRow:
        async with self._con.lock:
            cur = await self._con.db.execute(
                f"INSERT INTO tournaments ({TOURNAMENT_INSERT_COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                tournament_values(new),
            )
            tournament_id = cur.lastrowid
            assert tournament_id is not None
            found = await self._read(tournament_id)
        assert found is not None
        return found

    async def tournament(self, tournament_id: int) -> TournamentRow | None:
        async with self._con.lock:
            return await self._read(tournament_id)

    async def set_tournament_message(self, tournament_id: int, message_id: int) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "UPDATE tournaments SET message_id = ? WHERE id = ?", (message_id, tournament_id)
            )

    async def guild_tournaments(self, guild_id: int, *, live_only: bool) -> list[TournamentRow]:
        live = f" AND status IN {LIVE}" if live_only else ""
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE guild_id = ?{live}"
                " ORDER BY id DESC",
                (guild_id,),
            )
        return [tournament_of(r) for r in rows]

    async def live_tournaments(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[TournamentRow]:
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status IN {LIVE}"
                f" AND {SHARD} ORDER BY id",
                (shard_count, shard_id),
            )
        return [tournament_of(r) for r in rows]

    async def entries(self, tournament_id: int) -> list[EntryRow]:
        async with self._con.lock:
            return await self._entries(tournament_id)

    async def add_entry(
        self, tournament_id: int, entrant: Entrant, *, max_players: int, late: bool = False
    ) -> bool:
        statuses = LIVE if late else "('open')"
        # One statement: the count and the insert see the same entries.
        async with self._con.lock:
            cur = await self._con.db.execute(
                "INSERT INTO tournament_entries (tournament_id, entrant, seed)"
                " SELECT t.id, ?, (SELECT COALESCE(MAX(seed) + 1, 0) FROM tournament_entries"
                "  WHERE tournament_id = t.id)"
                f" FROM tournaments t WHERE t.id = ? AND t.status IN {statuses}"
                " AND (SELECT COUNT(*) FROM tournament_entries"
                "  WHERE tournament_id = t.id AND NOT withdrawn) < ?"
                " ON CONFLICT (tournament_id, entrant) DO NOTHING",
                (entrant, tournament_id, max_players),
            )
            return cur.rowcount == 1

    async def remove_entry(self, tournament_id: int, entrant: Entrant) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "DELETE FROM tournament_entries WHERE tournament_id = ? AND entrant = ?"
                " AND EXISTS (SELECT 1 FROM tournaments WHERE id = ? AND status = 'open')",
                (tournament_id, entrant, tournament_id),
            )
            return cur.rowcount == 1

    async def withdraw(self, tournament_id: int, entrant: Entrant) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE tournament_entries SET withdrawn = 1"
                " WHERE tournament_id = ? AND entrant = ? AND NOT withdrawn"
                f" AND EXISTS (SELECT 1 FROM tournaments WHERE id = ? AND status IN {LIVE})",
                (tournament_id, entrant, tournament_id),
            )
            return cur.rowcount == 1

    async def start_tournament(
        self,
        tournament_id: int,
        seeds: list[Entrant],
        *,
        rounds: int | None,
        now: float,
        ends_at: float | None,
        posts: Sequence[NewPost] = (),
    ) -> bool:
        async with self._con.lock, self._con.transaction() as ok:
            cur = await self._con.db.execute(
                "UPDATE tournaments SET status = 'running', rounds = ?, started_at = ?,"
                " ends_at = ? WHERE id = ? AND status = 'open'",
                (rounds, now, ends_at, tournament_id),
            )
            order = seed_order(seeds, await self._entries(tournament_id))
            if cur.rowcount != 1 or order is None:
                ok.rollback()
                return False
            # Seeds are unique in no key, so they are rewritten in one pass.
            await self._con.db.executemany(
                "UPDATE tournament_entries SET seed = ? WHERE tournament_id = ? AND entrant = ?",
                [(seed, tournament_id, entrant) for entrant, seed in order],
            )
            await insert_posts(self._con, posts)
            return True

    async def set_status(
        self,
        tournament_id: int,
        before: TournamentStatus,
        after: TournamentStatus,
        *,
        now: float,
        posts: Sequence[NewPost] = (),
    ) -> bool:
        async with self._con.lock, self._con.transaction() as ok:
            cur = await self._con.db.execute(
                "UPDATE tournaments SET status = ?,"
                " finished_at = CASE WHEN ? THEN ? ELSE finished_at END"
                " WHERE id = ? AND status = ?",
                (after.value, int(after.over), now, tournament_id, before.value),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return False
            await insert_posts(self._con, posts)
            return True

    async def add_round(
        self,
        tournament_id: int,
        round: int,
        pairings: list[NewPairing],
        *,
        posts: Sequence[NewPost] = (),
        announce: NewPost | None = None,
    ) -> bool:
        async with self._con.lock, self._con.transaction() as ok:
            cur = await self._con.db.execute(
                "UPDATE tournaments SET round = ? WHERE id = ? AND round = ?"
                " AND status = 'running'",
                (round, tournament_id, round - 1),
            )
            if cur.rowcount != 1:
                ok.rollback()
                return False
            await self._con.db.executemany(
                "INSERT INTO tournament_pairings (tournament_id, round, board, x, o)"
                " VALUES (?, ?, ?, ?, ?)",
                [(tournament_id, round, p.board, p.x, p.o) for p in pairings],
            )
            await insert_posts(self._con, posts)
            if announce is not None and await self._claim(tournament_id, round - 1):
                await insert_posts(self._con, [announce])
            return True

    async def pairings(self, tournament_id: int) -> list[PairingRow]:
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {PAIRING_COLUMNS} FROM tournament_pairings WHERE tournament_id = ?"
                " ORDER BY round, board",
                (tournament_id,),
            )
        return [pairing_of(r) for r in rows]

    async def claim_game(self, pairing_id: int, game_id: int) -> bool:
        async with self._con.lock:
            try:
                cur = await self._con.db.execute(
                    "UPDATE tournament_pairings SET game_id = ? WHERE id = ? AND game_id IS NULL"
                    " AND o IS NOT NULL AND outcome IS NULL",
                    (game_id, pairing_id),
                )
            except sqlite3.IntegrityError:
                # The game is another pairing's already (its unique index).
                return False
            return cur.rowcount == 1

    async def unbound_games(self, tournament_id: int) -> list[int]:
        async with self._con.lock:
            cur = await self._con.db.execute(UNBOUND_GAMES.format("?"), (tournament_id,))
            return [int(r[0]) for r in await cur.fetchall()]

    async def release_game(self, pairing_id: int, game_id: int) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE tournament_pairings SET game_id = NULL WHERE id = ? AND game_id = ?"
                " AND outcome IS NULL",
                (pairing_id, game_id),
            )
            return cur.rowcount == 1

    async def record_result(
        self, pairing_id: int, x: Entrant, o: Entrant, outcome: Outcome
    ) -> bool:
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE tournament_pairings SET x = ?, o = ?, outcome = ?"
                " WHERE id = ? AND outcome IS NULL AND o IS NOT NULL",
                (x, o, Outcome(outcome).value, pairing_id),
            )
            return cur.rowcount == 1

    async def claim_announcement(
        self, tournament_id: int, round: int, posts: Sequence[NewPost] = ()
    ) -> bool:
        async with self._con.lock, self._con.transaction() as ok:
            if not await self._claim(tournament_id, round):
                ok.rollback()
                return False
            await insert_posts(self._con, posts)
            return True

    # ----------------------------------------------------------------- helpers (lock held)
    async def _claim(self, tournament_id: int, round: int) -> bool:
        cur = await self._con.db.execute(
            "UPDATE tournaments SET announced = ? WHERE id = ? AND announced < ?",
            (round, tournament_id, round),
        )
        return cur.rowcount == 1

    async def _read(self, tournament_id: int) -> TournamentRow | None:
        row = await self._con.first(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,)
        )
        return None if row is None else tournament_of(row)

    async def _entries(self, tournament_id: int) -> list[EntryRow]:
        rows = await self._con.all(
            f"SELECT {ENTRY_COLUMNS} FROM tournament_entries WHERE tournament_id = ?"
            " ORDER BY seed, entrant",
            (tournament_id,),
        )
        return [entry_of(r) for r in rows]
