"""Queries of the challenges aggregate on PostgreSQL: challenges between members and accepting
them."""

from __future__ import annotations

from typing import Any

import asyncpg  # type: ignore[import-untyped]

from bot.game.model import (
    ActiveGameExists,
    ChallengeFirst,
    ChallengePending,
    ChallengeRow,
    ChallengeStatus,
    GameRow,
    NewChallenge,
    NewGame,
)
from bot.storage.postgres.connection import (
    CLAIM_SECONDS,
    Connection,
    check_shard,
    row_count,
    shard_filter,
)
from bot.storage.postgres.games import GameQueries
from engine.game.openings import Opening

_CHALLENGE_COLUMNS = (
    "id, guild_id, channel_id, message_id, challenger_id, opponent_id, rows, cols, k, rule, first, "
    "locale, status, deadline, game_id, rated, opening"
)
# The class of the transaction locks on a pair of members' challenges (the first key of the
# two-key advisory locks; the migrations' one-key lock lives apart from these).
PAIR_LOCK = 0x63686C67


class ChallengeQueries:
    """Challenges; accepting one creates its game (through the games) in the same transaction."""

    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def create_challenge(self, new: NewChallenge, *, now: float) -> ChallengeRow:
        low, high = sorted((new.challenger_id, new.opponent_id))
        async with self._con.transaction() as (con, _):
            # Two challenges between the same members sent at the same moment (from any
            # processes) queue on this lock, so the second one sees the first. It is released
            # with the transaction; other pairs only share it when their hashes collide.
            await con.execute(
                "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                PAIR_LOCK, f"{new.guild_id}:{low}:{high}",
            )
            waiting = await con.fetchrow(
                f"SELECT {_CHALLENGE_COLUMNS} FROM challenges"
                " WHERE status = 'pending' AND guild_id = $1 AND deadline > $2"
                " AND ((challenger_id = $3 AND opponent_id = $4)"
                " OR (challenger_id = $4 AND opponent_id = $3))"
                " ORDER BY id LIMIT 1",
                new.guild_id, now, new.challenger_id, new.opponent_id,
            )
            if waiting is not None:
                raise ChallengePending(_challenge_row(waiting))
            row = await con.fetchrow(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, rows,"
                " cols, k, rule, first, locale, deadline, rated, opening)"
                " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
                f" RETURNING {_CHALLENGE_COLUMNS}",
                new.guild_id, new.channel_id, new.challenger_id, new.opponent_id, new.rows,
                new.cols, new.k, new.rule, ChallengeFirst(new.first).value, new.locale,
                new.deadline, new.rated, new.opening.value,
            )
        return _challenge_row(row)

    async def challenge(self, challenge_id: int) -> ChallengeRow | None:
        row = await self._con.pool.fetchrow(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = $1", challenge_id
        )
        return None if row is None else _challenge_row(row)

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await self._con.pool.execute(
            "UPDATE challenges SET message_id = $1 WHERE id = $2", message_id, challenge_id
        )

    async def close_challenge(self, challenge_id: int, status: ChallengeStatus) -> bool:
        """Move a pending challenge to `status` (declined or expired); False if it was no
        longer pending."""
        done = await self._con.pool.execute(
            "UPDATE challenges SET status = $1 WHERE id = $2 AND status = 'pending'",
            ChallengeStatus(status).value, challenge_id,
        )
        return row_count(done) == 1

    async def accept_challenge(self, challenge_id: int, new: NewGame) -> GameRow | None:
        """Create the challenge's game and mark the challenge accepted, in one transaction."""
        try:
            async with self._con.transaction() as (con, ok):
                done = await con.execute(
                    "UPDATE challenges SET status = 'accepted' WHERE id = $1 AND status = 'pending'",
                    challenge_id,
                )
                if row_count(done) != 1:
                    ok.rollback()
                    return None
                game = await self._games.insert_game(con, new)
                await con.execute(
                    "UPDATE challenges SET game_id = $1 WHERE id = $2", game.id, challenge_id
                )
        except asyncpg.UniqueViolationError:
            existing = await self._games.game_in_the_way(new)
            if existing is None:
                raise
            raise ActiveGameExists(existing) from None
        return game

    async def due_challenges(self, now: float, *, shard_id: int = 0,
                             shard_count: int = 1) -> list[ChallengeRow]:
        """Pending challenges of the shard whose time ran out by `now`, each claimed for this
        caller as due_games claims games."""
        check_shard(shard_id, shard_count)
        rows = await self._con.pool.fetch(
            "WITH due AS (SELECT id FROM challenges WHERE status = 'pending' AND deadline <= $1"
            " AND (claimed_until IS NULL OR claimed_until <= $1)"
            f" AND {shard_filter('$2', '$3')}"
            " ORDER BY deadline, id FOR UPDATE SKIP LOCKED)"
            " UPDATE challenges SET claimed_until = $1 + $4 FROM due"
            f" WHERE challenges.id = due.id RETURNING {_qualified()}",
            now, shard_count, shard_id, CLAIM_SECONDS,
        )
        return sorted((_challenge_row(r) for r in rows), key=lambda c: (c.deadline, c.id))

    async def pending_challenges(self, *, challenger_id: int, opponent_id: int) -> tuple[int, int]:
        row = await self._con.pool.fetchrow(
            "SELECT COUNT(*) FILTER (WHERE challenger_id = $1),"
            " COUNT(*) FILTER (WHERE opponent_id = $2)"
            " FROM challenges WHERE status = 'pending' AND (challenger_id = $1 OR opponent_id = $2)",
            challenger_id, opponent_id,
        )
        return int(row[0]), int(row[1])


def _qualified() -> str:
    return ", ".join(f"challenges.{c.strip()}" for c in _CHALLENGE_COLUMNS.split(","))


def _challenge_row(row: Any) -> ChallengeRow:
    return ChallengeRow(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        message_id=None if row["message_id"] is None else int(row["message_id"]),
        challenger_id=int(row["challenger_id"]),
        opponent_id=int(row["opponent_id"]),
        rows=int(row["rows"]),
        cols=int(row["cols"]),
        k=int(row["k"]),
        rule=str(row["rule"]),
        first=ChallengeFirst(row["first"]),
        locale=str(row["locale"]),
        status=ChallengeStatus(row["status"]),
        deadline=float(row["deadline"]),
        game_id=None if row["game_id"] is None else int(row["game_id"]),
        rated=bool(row["rated"]),
        opening=Opening(row["opening"]),
    )
