"""Queries of the standings aggregate on PostgreSQL: ratings and records per scope and mode, the
same per server and rating season, the rating change of each finished game, and the results per
AI level behind /caro stats."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.game.model import (
    GameRow,
    Mode,
    RatedRow,
    RatingChange,
    Record,
    Result,
    Standing,
    UserStats,
)
from bot.game.ports import GLOBAL_SCOPE, RatePolicy
from bot.game.ratings import START_RATING
from bot.game.seasons import Season, season_of, soft_reset, stored_length
from bot.storage.postgres.connection import Connection
from bot.storage.rows import ai_results, in_stored_order, rated_rows, rating_points
from engine import Mark


class StandingQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def standing(self, scope: int, user_id: int, mode: Mode) -> Standing:
        row = await self._con.pool.fetchrow(
            "SELECT rating, wins, draws, losses FROM standings"
            " WHERE scope = $1 AND user_id = $2 AND mode = $3",
            scope, user_id, Mode(mode).value,
        )
        if row is None:
            return Standing(rating=START_RATING, record=Record())
        return Standing(
            rating=float(row[0]),
            record=Record(wins=int(row[1]), draws=int(row[2]), losses=int(row[3])),
        )

    async def rated_leaderboard(
        self, scope: int, mode: Mode, *, min_games: int, limit: int = 10
    ) -> list[RatedRow]:
        """Ranked by rating, then games played (more first), then user id."""
        rows = await self._con.pool.fetch(
            "SELECT user_id, rating, wins, draws, losses FROM standings"
            " WHERE scope = $1 AND mode = $2 AND wins + draws + losses >= $3"
            " ORDER BY rating DESC, wins + draws + losses DESC, user_id ASC LIMIT $4",
            scope, Mode(mode).value, min_games, limit,
        )
        return rated_rows(rows)

    async def season_leaderboard(
        self, guild_id: int, season: str, mode: Mode, *, min_games: int, limit: int = 10
    ) -> list[RatedRow]:
        """Ranked as rated_leaderboard, in one season of one server."""
        rows = await self._con.pool.fetch(
            "SELECT user_id, rating, wins, draws, losses FROM season_standings"
            " WHERE guild_id = $1 AND season = $2 AND mode = $3 AND wins + draws + losses >= $4"
            " ORDER BY rating DESC, wins + draws + losses DESC, user_id ASC LIMIT $5",
            guild_id, season, Mode(mode).value, min_games, limit,
        )
        return rated_rows(rows)

    async def seasons(self, guild_id: int) -> list[Season]:
        rows = await self._con.pool.fetch(
            "SELECT DISTINCT starts, season FROM season_standings WHERE guild_id = $1"
            " ORDER BY starts DESC, season DESC",
            guild_id,
        )
        return [Season(starts, str(name)) for starts, name in rows]

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        rows = await self._con.pool.fetch(
            "SELECT user_id, scope, mode, before, after FROM rating_changes WHERE game_id = $1"
            " ORDER BY scope, user_id",
            game_id,
        )
        return [
            RatingChange(int(u), int(s), Mode(m), float(b), float(a)) for u, s, m, b, a in rows
        ]

    async def rating_history(
        self, scope: int, user_id: int, mode: Mode, *, limit: int, season: str | None = None
    ) -> list[float]:
        if season is None:
            rows = await self._con.pool.fetch(
                "SELECT c.before, c.after FROM rating_changes c JOIN games g ON g.id = c.game_id"
                " WHERE c.scope = $1 AND c.user_id = $2 AND c.mode = $3"
                " ORDER BY g.finished_at DESC, c.game_id DESC LIMIT $4",
                scope, user_id, Mode(mode).value, limit,
            )
        else:
            rows = await self._con.pool.fetch(
                "SELECT before, after FROM season_rating_changes"
                " WHERE guild_id = $1 AND season = $2 AND user_id = $3 AND mode = $4"
                " ORDER BY id DESC LIMIT $5",
                scope, season, user_id, Mode(mode).value, limit,
            )
        return rating_points(rows)

    async def user_stats(self, guild_id: int, user_id: int) -> UserStats:
        rows = await self._con.pool.fetch(
            "SELECT ai_level, result, COUNT(*) FROM results"
            " WHERE guild_id = $1 AND user_id = $2 GROUP BY ai_level, result",
            guild_id, user_id,
        )
        tallies: dict[str, dict[str, int]] = {}
        for level, result, count in rows:
            tallies.setdefault(str(level), {})[str(result)] = int(count)
        by_level = {
            level: Record(wins=t.get("win", 0), draws=t.get("draw", 0), losses=t.get("loss", 0))
            for level, t in tallies.items()
        }
        overall = Record(
            wins=sum(r.wins for r in by_level.values()),
            draws=sum(r.draws for r in by_level.values()),
            losses=sum(r.losses for r in by_level.values()),
        )
        return UserStats(overall=overall, by_level=by_level)

    # ----------------------------------------------------------------- helpers (in a transaction)
    async def count_result(
        self, con: Any, game: GameRow, winner: Mark | None, rate: RatePolicy
    ) -> tuple[RatingChange, ...]:
        """Write a rated finished game's result per AI level and its rating changes, in the
        server and globally, in the caller's transaction; the changes written.

        The members' standing rows are locked before their ratings are read: another process
        finishing a game of the same member waits here and then computes from the rating this
        game wrote, so no update is lost. Rows are locked in one order (the server's scope
        before the global one, members by id), so two finishing games never wait on each other
        in a circle. A row missing (a member's first game in a scope) is created, then locked.

        Each step is one round trip for both scopes: a finishing move waits for each, and on a
        busy machine each waits for the server to be scheduled. The usual finish takes two: lock
        and read (with the per-level result), then write; with seasons on, three more for the
        season (see _count_season).
        """
        members = sorted(game.members)
        mode = game.mode.value
        scopes = [game.guild_id, GLOBAL_SCOPE]
        results = ai_results(game, winner)
        rows = await con.fetch(
            _COUNT_AND_LOCK, scopes, mode, members, GLOBAL_SCOPE, game.id, game.guild_id,
            [user for user, _, _ in results], [level.value for _, level, _ in results],
            [result.value for _, _, result in results],
        )
        if len(rows) < len(scopes) * len(members):
            await con.executemany(
                "INSERT INTO standings (scope, user_id, mode, rating) VALUES ($1, $2, $3, $4)"
                " ON CONFLICT (scope, user_id, mode) DO NOTHING",
                [(scope, user, mode, START_RATING) for scope in scopes for user in members],
            )
            # A new statement, so a new snapshot (READ COMMITTED): it sees rows another
            # process created meanwhile, which the INSERT above waited for.
            rows = await con.fetch(_LOCK, scopes, mode, members, GLOBAL_SCOPE)
        writes = []
        changes = []
        for scope in scopes:
            current = {
                int(r["user_id"]): float(r["rating"]) for r in rows if int(r["scope"]) == scope
            }
            for update in rate(game, winner, current):
                writes.append((
                    scope, update.user_id, mode, update.after,
                    int(update.result is Result.WIN), int(update.result is Result.DRAW),
                    int(update.result is Result.LOSS), game.id, update.before,
                ))
                changes.append(
                    RatingChange(update.user_id, scope, game.mode, update.before, update.after)
                )
        await con.executemany(
            "WITH counted AS (UPDATE standings SET rating = $4, wins = wins + $5,"
            " draws = draws + $6, losses = losses + $7"
            " WHERE scope = $1 AND user_id = $2 AND mode = $3)"
            " INSERT INTO rating_changes (game_id, scope, user_id, mode, before, after)"
            " VALUES ($8, $1, $2, $3, $9, $4)",
            writes,
        )
        await self._count_season(con, game, winner, rate, members)
        return in_stored_order(changes)

    async def _count_season(
        self, con: Any, game: GameRow, winner: Mark | None, rate: RatePolicy, members: list[int]
    ) -> None:
        """Move the members' ratings in the season `game` counts in (its server's season
        length at its finish time), in the caller's transaction. Their season rows are locked
        after their all-time rows, as every finishing game does, so the order stays one."""
        found = await con.fetchrow(
            "SELECT g.finished_at, s.season_length FROM games g"
            " LEFT JOIN guild_settings s ON s.guild_id = g.guild_id WHERE g.id = $1",
            game.id,
        )
        season = season_of(stored_length(found[1]), found[0] or datetime.now(UTC))
        if season is None:
            return
        mode = game.mode.value
        keys = (game.guild_id, season.name, mode, members)
        rows = await con.fetch(_LOCK_SEASON, *keys)
        if len(rows) < len(members):
            # A member's first game of the season starts from the soft reset of the last season
            # they played in this server.
            last = {
                int(r["user_id"]): float(r["rating"])
                for r in await con.fetch(_LAST_SEASON, *keys)
            }
            await con.executemany(
                "INSERT INTO season_standings (guild_id, season, starts, user_id, mode, rating)"
                " VALUES ($1, $2, $3, $4, $5, $6)"
                " ON CONFLICT (guild_id, season, user_id, mode) DO NOTHING",
                [
                    (game.guild_id, season.name, season.starts, user, mode,
                     soft_reset(START_RATING, last.get(user)))
                    for user in members
                ],
            )
            rows = await con.fetch(_LOCK_SEASON, *keys)
        current = {int(r["user_id"]): float(r["rating"]) for r in rows}
        await con.executemany(
            "WITH moved AS (UPDATE season_standings SET rating = $5, wins = wins + $6,"
            " draws = draws + $7, losses = losses + $8 WHERE guild_id = $1 AND season = $2"
            " AND user_id = $3 AND mode = $4)"
            " INSERT INTO season_rating_changes"
            " (game_id, guild_id, season, user_id, mode, before, after)"
            " VALUES ($9, $1, $2, $3, $4, $10, $5)",
            [
                (game.guild_id, season.name, update.user_id, mode, update.after,
                 int(update.result is Result.WIN), int(update.result is Result.DRAW),
                 int(update.result is Result.LOSS), game.id, update.before)
                for update in rate(game, winner, current)
            ],
        )


# The standing rows of a finishing game, locked in the rows' order (the server's scope first,
# then the global one; members by id). Parameters: scopes, mode, members, the global scope.
_LOCK = (
    "SELECT scope, user_id, rating FROM standings WHERE scope = ANY($1::BIGINT[])"
    " AND mode = $2 AND user_id = ANY($3::BIGINT[])"
    " ORDER BY scope = $4, user_id FOR UPDATE"
)
# The same, writing the game's results per AI level on the way (one row per member playing the
# AI; none in the other modes). More parameters: game, guild, then the results' members, levels
# and results as arrays.
_COUNT_AND_LOCK = (
    "WITH counted AS (INSERT INTO results (game_id, guild_id, user_id, ai_level, result)"
    " SELECT $5, $6, r.user_id, r.ai_level, r.result"
    " FROM unnest($7::BIGINT[], $8::TEXT[], $9::TEXT[]) AS r(user_id, ai_level, result)) "
    + _LOCK
)
# The members' rows of one season, locked by member id. Parameters: guild, season, mode, members.
_LOCK_SEASON = (
    "SELECT user_id, rating FROM season_standings WHERE guild_id = $1 AND season = $2"
    " AND mode = $3 AND user_id = ANY($4::BIGINT[]) ORDER BY user_id FOR UPDATE"
)
# Each member's rating in the last other season they played in the server; the same parameters.
_LAST_SEASON = (
    "SELECT DISTINCT ON (user_id) user_id, rating FROM season_standings"
    " WHERE guild_id = $1 AND season <> $2 AND mode = $3 AND user_id = ANY($4::BIGINT[])"
    " ORDER BY user_id, starts DESC, season DESC"
)
