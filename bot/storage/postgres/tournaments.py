"""Queries of tournaments, their entries and their pairings, on PostgreSQL. Several processes
may try the same step at once: an entry against the player limit, the start and a round's
pairing lock the tournament's row first (SELECT ... FOR UPDATE), so the second waits and then
finds the step done; the other steps are one guarded UPDATE each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import asyncpg  # type: ignore[import-untyped]

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
from bot.storage.postgres.connection import Connection, check_shard, row_count, shard_filter
from bot.storage.postgres.outbox import insert_posts
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

_ENTRIES = (
    f"SELECT {ENTRY_COLUMNS} FROM tournament_entries WHERE tournament_id = $1"
    " ORDER BY seed, entrant"
)


class TournamentQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def create_tournament(self, new: NewTournament) -> TournamentRow:
        row = await self._con.pool.fetchrow(
            f"INSERT INTO tournaments ({TOURNAMENT_INSERT_COLUMNS}) VALUES ($1, $2, $3, $4, $5,"
            f" $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING {TOURNAMENT_COLUMNS}",
            *tournament_values(new),
        )
        return tournament_of(row)

    async def tournament(self, tournament_id: int) -> TournamentRow | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE id = $1", tournament_id
        )
        return None if row is None else tournament_of(row)

    async def set_tournament_message(self, tournament_id: int, message_id: int) -> None:
        await self._con.pool.execute(
            "UPDATE tournaments SET message_id = $2 WHERE id = $1", tournament_id, message_id
        )

    async def guild_tournaments(self, guild_id: int, *, live_only: bool) -> list[TournamentRow]:
        rows = await self._con.pool.fetch(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE guild_id = $1"
            f" AND (NOT $2 OR status IN {LIVE}) ORDER BY id DESC",
            guild_id, live_only,
        )
        return [tournament_of(r) for r in rows]

    async def live_tournaments(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[TournamentRow]:
        check_shard(shard_id, shard_count)
        rows = await self._con.pool.fetch(
            f"SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status IN {LIVE}"
            f" AND {shard_filter('$1', '$2')} ORDER BY id",
            shard_count, shard_id,
        )
        return [tournament_of(r) for r in rows]

    async def entries(self, tournament_id: int) -> list[EntryRow]:
        return [entry_of(r) for r in await self._con.pool.fetch(_ENTRIES, tournament_id)]

    async def add_entry(
        self, tournament_id: int, entrant: Entrant, *, max_players: int, late: bool = False
    ) -> bool:
        allowed = {TournamentStatus.OPEN.value}
        if late:
            allowed |= {TournamentStatus.RUNNING.value, TournamentStatus.PAUSED.value}
        async with self._con.transaction() as (con, ok):
            # Two processes entering the last free places count one after the other.
            status = await con.fetchval(
                "SELECT status FROM tournaments WHERE id = $1 FOR UPDATE", tournament_id
            )
            entered = await con.fetchval(
                "SELECT COUNT(*) FILTER (WHERE NOT withdrawn) FROM tournament_entries"
                " WHERE tournament_id = $1",
                tournament_id,
            )
            if status not in allowed or int(entered) >= max_players:
                ok.rollback()
                return False
            done = await con.execute(
                "INSERT INTO tournament_entries (tournament_id, entrant, seed)"
                " SELECT $1, $2, COALESCE(MAX(seed) + 1, 0) FROM tournament_entries"
                " WHERE tournament_id = $1 ON CONFLICT (tournament_id, entrant) DO NOTHING",
                tournament_id, entrant,
            )
            return row_count(done) == 1

    async def remove_entry(self, tournament_id: int, entrant: Entrant) -> bool:
        done = await self._con.pool.execute(
            "DELETE FROM tournament_entries WHERE tournament_id = $1 AND entrant = $2"
            " AND EXISTS (SELECT 1 FROM tournaments WHERE id = $1 AND status = 'open')",
            tournament_id, entrant,
        )
        return row_count(done) == 1

    async def withdraw(self, tournament_id: int, entrant: Entrant) -> bool:
        done = await self._con.pool.execute(
            "UPDATE tournament_entries SET withdrawn = true"
            " WHERE tournament_id = $1 AND entrant = $2 AND NOT withdrawn"
            f" AND EXISTS (SELECT 1 FROM tournaments WHERE id = $1 AND status IN {LIVE})",
            tournament_id, entrant,
        )
        return row_count(done) == 1

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
        async with self._con.transaction() as (con, ok):
            # Locked first: an entry waits for the start, then finds the tournament running.
            status = await con.fetchval(
                "SELECT status FROM tournaments WHERE id = $1 FOR UPDATE", tournament_id
            )
            order = seed_order(seeds, [entry_of(r) for r in await con.fetch(_ENTRIES,
                                                                            tournament_id)])
            if status != TournamentStatus.OPEN.value or order is None:
                ok.rollback()
                return False
            await con.execute(
                "UPDATE tournaments SET status = 'running', rounds = $2, started_at = $3,"
                " ends_at = $4 WHERE id = $1",
                tournament_id, rounds, now, ends_at,
            )
            await con.execute(
                "UPDATE tournament_entries e SET seed = s.seed"
                " FROM unnest($2::TEXT[], $3::INTEGER[]) AS s(entrant, seed)"
                " WHERE e.tournament_id = $1 AND e.entrant = s.entrant",
                tournament_id, [entrant for entrant, _ in order], [seed for _, seed in order],
            )
            await insert_posts(con, posts)
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
        async with self._con.transaction() as (con, ok):
            done = await con.execute(
                "UPDATE tournaments SET status = $3,"
                " finished_at = CASE WHEN $4 THEN $5 ELSE finished_at END"
                " WHERE id = $1 AND status = $2",
                tournament_id, before.value, after.value, after.over, now,
            )
            if row_count(done) != 1:
                ok.rollback()
                return False
            await insert_posts(con, posts)
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
        async with self._con.transaction() as (con, ok):
            # Locked first: a second process pairing the same round waits, then finds it paired.
            row = await con.fetchrow(
                "SELECT status, round FROM tournaments WHERE id = $1 FOR UPDATE", tournament_id
            )
            if (
                row is None
                or row["status"] != TournamentStatus.RUNNING.value
                or int(row["round"]) != round - 1
            ):
                ok.rollback()
                return False
            await con.execute(
                "UPDATE tournaments SET round = $2 WHERE id = $1", tournament_id, round
            )
            await con.executemany(
                "INSERT INTO tournament_pairings (tournament_id, round, board, x, o)"
                " VALUES ($1, $2, $3, $4, $5)",
                [(tournament_id, round, p.board, p.x, p.o) for p in pairings],
            )
            await insert_posts(con, posts)
            if announce is not None and await _claim(con, tournament_id, round - 1):
                await insert_posts(con, [announce])
            return True

    async def pairings(self, tournament_id: int) -> list[PairingRow]:
        rows = await self._con.pool.fetch(
            f"SELECT {PAIRING_COLUMNS} FROM tournament_pairings WHERE tournament_id = $1"
            " ORDER BY round, board",
            tournament_id,
        )
        return [pairing_of(r) for r in rows]

    async def claim_game(self, pairing_id: int, game_id: int) -> bool:
        try:
            done = await self._con.pool.execute(
                "UPDATE tournament_pairings SET game_id = $2 WHERE id = $1 AND game_id IS NULL"
                " AND o IS NOT NULL AND outcome IS NULL",
                pairing_id, game_id,
            )
        except asyncpg.UniqueViolationError:
            # The game is another pairing's already (its unique index).
            return False
        return row_count(done) == 1

    async def unbound_games(self, tournament_id: int) -> list[int]:
        rows = await self._con.pool.fetch(UNBOUND_GAMES.format("$1"), tournament_id)
        return [int(r["id"]) for r in rows]

    async def release_game(self, pairing_id: int, game_id: int) -> bool:
        done = await self._con.pool.execute(
            "UPDATE tournament_pairings SET game_id = NULL WHERE id = $1 AND game_id = $2"
            " AND outcome IS NULL",
            pairing_id, game_id,
        )
        return row_count(done) == 1

    async def record_result(
        self, pairing_id: int, x: Entrant, o: Entrant, outcome: Outcome
    ) -> bool:
        done = await self._con.pool.execute(
            "UPDATE tournament_pairings SET x = $2, o = $3, outcome = $4"
            " WHERE id = $1 AND outcome IS NULL AND o IS NOT NULL",
            pairing_id, x, o, Outcome(outcome).value,
        )
        return row_count(done) == 1

    async def claim_announcement(
        self, tournament_id: int, round: int, posts: Sequence[NewPost] = ()
    ) -> bool:
        async with self._con.transaction() as (con, ok):
            if not await _claim(con, tournament_id, round):
                ok.rollback()
                return False
            await insert_posts(con, posts)
            return True


async def _claim(con: Any, tournament_id: int, round: int) -> bool:
    """Move `announced` up to `round` (one guarded UPDATE: one caller wins)."""
    done = await con.execute(
        "UPDATE tournaments SET announced = $2 WHERE id = $1 AND announced < $2",
        tournament_id, round,
    )
    return row_count(done) == 1
