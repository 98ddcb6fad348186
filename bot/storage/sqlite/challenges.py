"""Queries of the challenges aggregate: challenges between members and accepting them."""

from __future__ import annotations

import sqlite3

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
from bot.storage.sqlite.connection import SHARD, Connection, check_shard
from bot.storage.sqlite.games import GameQueries
from engine.game.openings import Opening

_CHALLENGE_COLUMNS = (
    "id, guild_id, channel_id, message_id, challenger_id, opponent_id, rows, cols, k, rule, first, "
    "locale, status, deadline, game_id, rated, opening"
)
# A pending challenge of the server between two members, either way round, still open at a time:
# parameters guild, now, a, b, b, a. One whose time ran out but that the deadline watcher has
# not closed yet no longer holds the pair.
_PAIR_PENDING = (
    "status = 'pending' AND guild_id = ? AND deadline > ?"
    " AND ((challenger_id = ? AND opponent_id = ?) OR (challenger_id = ? AND opponent_id = ?))"
)


class ChallengeQueries:
    """Challenges; accepting one creates its game (through the games) in the same transaction."""

    def __init__(self, con: Connection, games: GameQueries) -> None:
        self._con = con
        self._games = games

    async def create_challenge(self, new: NewChallenge, *, now: float) -> ChallengeRow:
        async with self._con.lock:
            # One write transaction (BEGIN IMMEDIATE): another process on the same file waits
            # until this one has checked and written, so both cannot pass the check.
            async with self._con.transaction():
                waiting = await self._con.first(
                    f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE {_PAIR_PENDING}"
                    " ORDER BY id LIMIT 1",
                    (new.guild_id, now, new.challenger_id, new.opponent_id,
                     new.opponent_id, new.challenger_id),
                )
                if waiting is not None:
                    raise ChallengePending(_challenge_row(waiting))
                cur = await self._con.db.execute(
                    "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id,"
                    " rows, cols, k, rule, first, locale, deadline, rated, opening)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        new.guild_id,
                        new.channel_id,
                        new.challenger_id,
                        new.opponent_id,
                        new.rows,
                        new.cols,
                        new.k,
                        new.rule,
                        ChallengeFirst(new.first).value,
                        new.locale,
                        new.deadline,
                        int(new.rated),
                        new.opening.value,
                    ),
                )
            challenge_id = cur.lastrowid
            assert challenge_id is not None
            found = await self._challenge(challenge_id)
        assert found is not None
        return found

    async def challenge(self, challenge_id: int) -> ChallengeRow | None:
        async with self._con.lock:
            return await self._challenge(challenge_id)

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id)
            )

    async def close_challenge(self, challenge_id: int, status: ChallengeStatus) -> bool:
        """Move a pending challenge to `status` (declined or expired); False if it was no
        longer pending."""
        async with self._con.lock:
            cur = await self._con.db.execute(
                "UPDATE challenges SET status = ? WHERE id = ? AND status = 'pending'",
                (ChallengeStatus(status).value, challenge_id),
            )
            return cur.rowcount == 1

    async def accept_challenge(self, challenge_id: int, new: NewGame) -> GameRow | None:
        """Create the challenge's game and mark the challenge accepted, in one transaction: a
        game exists iff its challenge says accepted, whatever else runs at the same moment."""
        async with self._con.lock:
            try:
                async with self._con.transaction() as ok:
                    cur = await self._con.db.execute(
                        "UPDATE challenges SET status = 'accepted'"
                        " WHERE id = ? AND status = 'pending'",
                        (challenge_id,),
                    )
                    if cur.rowcount != 1:
                        ok.rollback()
                        return None
                    game_id = await self._games.insert_game(new)
                    await self._con.db.execute(
                        "UPDATE challenges SET game_id = ? WHERE id = ?", (game_id, challenge_id)
                    )
            except sqlite3.IntegrityError:
                existing = await self._games.game_in_the_way(new)
                if existing is None:
                    raise
                raise ActiveGameExists(existing) from None
            game = await self._games.read_game(game_id)
        assert game is not None
        return game

    async def due_challenges(self, now: float, *, shard_id: int = 0,
                             shard_count: int = 1) -> list[ChallengeRow]:
        """Pending challenges of the shard whose time ran out by `now`."""
        check_shard(shard_id, shard_count)
        async with self._con.lock:
            rows = await self._con.all(
                f"SELECT {_CHALLENGE_COLUMNS} FROM challenges"
                f" WHERE status = 'pending' AND deadline <= ? AND {SHARD} ORDER BY deadline, id",
                (now, shard_count, shard_id),
            )
        return [_challenge_row(r) for r in rows]

    async def pending_challenges(self, *, challenger_id: int, opponent_id: int) -> tuple[int, int]:
        async with self._con.lock:
            sent = await self._con.scalar(
                "SELECT COUNT(*) FROM challenges WHERE status = 'pending' AND challenger_id = ?",
                (challenger_id,),
            )
            received = await self._con.scalar(
                "SELECT COUNT(*) FROM challenges WHERE status = 'pending' AND opponent_id = ?",
                (opponent_id,),
            )
        return sent, received

    async def _challenge(self, challenge_id: int) -> ChallengeRow | None:
        row = await self._con.first(
            f"SELECT {_CHALLENGE_COLUMNS} FROM challenges WHERE id = ?", (challenge_id,)
        )
        return None if row is None else _challenge_row(row)


def _challenge_row(row: sqlite3.Row) -> ChallengeRow:
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
