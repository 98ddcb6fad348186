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
from bot.game.seasons import Season, SeasonLength, season_of, soft_reset, stored_length
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
        """Write a rated finished game's result per AI level and its rating changes, in each
        member's server and globally, in the caller's transaction; the changes written. Each
        member's server is their own: the server of their board in another server (a game
        between two servers), else the game's; each is rated there against the other's rating
        in their own server.

        The members' standing rows are locked before their ratings are read: another process
        finishing a game of the same member waits here and then computes from the rating this
        game wrote, so no update is lost. Rows are locked in one order (servers' scopes before
        the global one, then by member, then by scope), so two finishing games never wait on
        each other in a circle. A row missing (a member's first game in a scope) is created,
        then locked.

        Each step is one round trip for both scopes: a finishing move waits for each, and on a
        busy machine each waits for the server to be scheduled. The usual finish takes two: lock
        and read (with the per-level result), then write; with seasons on, three more for the
        season (see _count_season).
        """
        members = sorted(game.members)
        mode = game.mode.value
        results = ai_results(game, winner)
        keys = (game.id, mode, members, GLOBAL_SCOPE, game.guild_id)
        rows = await con.fetch(
            _COUNT_AND_LOCK, *keys,
            [user for user, _, _ in results], [level.value for _, level, _ in results],
            [result.value for _, _, result in results],
        )
        if len(rows) < 2 * len(members):
            await con.execute(_CREATE, *keys, START_RATING)
            # A new statement, so a new snapshot (READ COMMITTED): it sees rows another
            # process created meanwhile, which the INSERT above waited for.
            rows = await con.fetch(_LOCK, *keys)
        homes = {int(r["user_id"]): int(r["scope"]) for r in rows if r["scope"] != GLOBAL_SCOPE}
        in_server = {int(r["user_id"]): float(r["rating"]) for r in rows
                     if r["scope"] != GLOBAL_SCOPE}
        globally = {int(r["user_id"]): float(r["rating"]) for r in rows
                    if r["scope"] == GLOBAL_SCOPE}
        everywhere = dict.fromkeys(members, GLOBAL_SCOPE)
        writes = []
        changes = []
        for scopes, current in ((homes, in_server), (everywhere, globally)):
            for update in rate(game, winner, current):
                scope = scopes[update.user_id]
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
        lengths = {int(r["scope"]): stored_length(r["season_length"]) for r in rows
                   if r["scope"] != GLOBAL_SCOPE}
        finished = next((r["finished_at"] for r in rows), None) or datetime.now(UTC)
        await self._count_season(con, game, winner, rate, homes, in_server, (lengths, finished))
        return in_stored_order(changes)

    async def _count_season(
        self, con: Any, game: GameRow, winner: Mark | None, rate: RatePolicy,
        homes: dict[int, int], befores: dict[int, float],
        settings: tuple[dict[int, SeasonLength], datetime],
    ) -> None:
        """Move each member's rating in the season of their server (its season length at the
        game's finish time), if it has seasons on, in the caller's transaction. A member whose
        server has none is rated at their server's all-time rating from before the game
        (`befores`), so the other member's season still moves against them. Season rows are
        locked after the all-time rows, by server then member, as every finishing game does,
        so the order stays one. `settings`: each server's season length and the game's finish
        time, read with the rows locked."""
        mode = game.mode.value
        current = dict(befores)
        seasons: dict[int, Season] = {}
        lengths, finished = settings
        for guild in sorted(set(homes.values())):
            season = season_of(lengths.get(guild, stored_length(None)), finished)
            if season is None:
                continue
            seasons[guild] = season
            users = sorted(user for user, home in homes.items() if home == guild)
            keys = (guild, season.name, mode, users)
            rows = await con.fetch(_LOCK_SEASON, *keys)
            if len(rows) < len(users):
                # A member's first game of the season starts from the soft reset of the last
                # season they played in this server.
                last = {
                    int(r["user_id"]): float(r["rating"])
                    for r in await con.fetch(_LAST_SEASON, *keys)
                }
                await con.executemany(
                    "INSERT INTO season_standings"
                    " (guild_id, season, starts, user_id, mode, rating)"
                    " VALUES ($1, $2, $3, $4, $5, $6)"
                    " ON CONFLICT (guild_id, season, user_id, mode) DO NOTHING",
                    [
                        (guild, season.name, season.starts, user, mode,
                         soft_reset(START_RATING, last.get(user)))
                        for user in users
                    ],
                )
                rows = await con.fetch(_LOCK_SEASON, *keys)
            current.update({int(r["user_id"]): float(r["rating"]) for r in rows})
        if not seasons:
            return
        await con.executemany(
            "WITH moved AS (UPDATE season_standings SET rating = $5, wins = wins + $6,"
            " draws = draws + $7, losses = losses + $8 WHERE guild_id = $1 AND season = $2"
            " AND user_id = $3 AND mode = $4)"
            " INSERT INTO season_rating_changes"
            " (game_id, guild_id, season, user_id, mode, before, after)"
            " VALUES ($9, $1, $2, $3, $4, $10, $5)",
            [
                (homes[update.user_id], seasons[homes[update.user_id]].name, update.user_id,
                 mode, update.after, int(update.result is Result.WIN),
                 int(update.result is Result.DRAW), int(update.result is Result.LOSS), game.id,
                 update.before)
                for update in rate(game, winner, current)
                if homes[update.user_id] in seasons
            ],
        )


# Each member's server scope: the server of their board in another server (a game between two
# servers), else the game's. Parameters: game, mode, members, the global scope, the game's server.
_HOMES = (
    "homes AS (SELECT m.user_id, COALESCE(b.guild_id, $5) AS scope"
    " FROM unnest($3::BIGINT[]) AS m(user_id)"
    " LEFT JOIN game_boards b ON b.game_id = $1 AND b.user_id = m.user_id)"
)
# The standing rows of a finishing game (each member's server scope and the global one), locked
# in the rows' order (servers' scopes first, then the global one; by member, then scope), each
# with what the game's seasons need (_count_season): the season length of a server's scope and
# the game's finish time. The same parameters.
_LOCK_ROWS = (
    " SELECT s.scope, s.user_id, s.rating, g.season_length,"
    " (SELECT finished_at FROM games WHERE id = $1) AS finished_at FROM standings s"
    " LEFT JOIN guild_settings g ON g.guild_id = s.scope AND s.scope <> $4"
    " WHERE s.mode = $2 AND s.user_id = ANY($3::BIGINT[])"
    " AND (s.scope = $4 OR (s.scope, s.user_id) IN (SELECT scope, user_id FROM homes))"
    " ORDER BY s.scope = $4, s.user_id, s.scope FOR UPDATE OF s"
)
_LOCK = "WITH " + _HOMES + _LOCK_ROWS
# The same, writing the game's results per AI level on the way (one row per member playing the
# AI; none in the other modes). More parameters: the results' members, levels and results as
# arrays.
_COUNT_AND_LOCK = (
    "WITH counted AS (INSERT INTO results (game_id, guild_id, user_id, ai_level, result)"
    " SELECT $1, $5, r.user_id, r.ai_level, r.result"
    " FROM unnest($6::BIGINT[], $7::TEXT[], $8::TEXT[]) AS r(user_id, ai_level, result)), "
    + _HOMES + _LOCK_ROWS
)
# The missing standing rows of a finishing game, at the starting rating. The same parameters as
# _LOCK, then the starting rating.
_CREATE = (
    "WITH " + _HOMES + " INSERT INTO standings (scope, user_id, mode, rating)"
    " SELECT scope, user_id, $2::TEXT, $6::DOUBLE PRECISION FROM homes"
    " UNION ALL SELECT $4::BIGINT, user_id, $2::TEXT, $6::DOUBLE PRECISION FROM homes"
    " ON CONFLICT (scope, user_id, mode) DO NOTHING"
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
