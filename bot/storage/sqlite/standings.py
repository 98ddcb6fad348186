"""Queries of the standings aggregate: ratings and records per scope and mode, the same per
server and rating season, the rating change of each finished game, and the results per AI level
behind /caro stats."""

from __future__ import annotations

from datetime import UTC, date, datetime

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
from bot.storage.rows import ai_results, in_stored_order, rated_rows, rating_points
from bot.storage.sqlite.connection import Connection
from engine import Mark


class StandingQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con

    async def standing(self, scope: int, user_id: int, mode: Mode) -> Standing:
        async with self._con.lock:
            return await self._standing(scope, user_id, mode)

    async def rated_leaderboard(
        self, scope: int, mode: Mode, *, min_games: int, limit: int = 10
    ) -> list[RatedRow]:
        """Ranked by rating, then games played (more first), then user id."""
        async with self._con.lock:
            rows = await self._con.all(
                "SELECT user_id, rating, wins, draws, losses FROM standings"
                " WHERE scope = ? AND mode = ? AND wins + draws + losses >= ?"
                " ORDER BY rating DESC, wins + draws + losses DESC, user_id ASC LIMIT ?",
                (scope, Mode(mode).value, min_games, limit),
            )
        return rated_rows(rows)

    async def season_leaderboard(
        self, guild_id: int, season: str, mode: Mode, *, min_games: int, limit: int = 10
    ) -> list[RatedRow]:
        """Ranked as rated_leaderboard, in one season of one server."""
        async with self._con.lock:
            rows = await self._con.all(
                "SELECT user_id, rating, wins, draws, losses FROM season_standings"
                " WHERE guild_id = ? AND season = ? AND mode = ? AND wins + draws + losses >= ?"
                " ORDER BY rating DESC, wins + draws + losses DESC, user_id ASC LIMIT ?",
                (guild_id, season, Mode(mode).value, min_games, limit),
            )
        return rated_rows(rows)

    async def seasons(self, guild_id: int) -> list[Season]:
        async with self._con.lock:
            rows = await self._con.all(
                "SELECT DISTINCT starts, season FROM season_standings WHERE guild_id = ?"
                " ORDER BY starts DESC, season DESC",
                (guild_id,),
            )
        return [Season(date.fromisoformat(str(starts)), str(name)) for starts, name in rows]

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        async with self._con.lock:
            rows = await self._con.all(
                "SELECT user_id, scope, mode, before, after FROM rating_changes WHERE game_id = ?"
                " ORDER BY scope, user_id",
                (game_id,),
            )
        return [
            RatingChange(int(u), int(s), Mode(m), float(b), float(a)) for u, s, m, b, a in rows
        ]

    async def rating_history(
        self, scope: int, user_id: int, mode: Mode, *, limit: int, season: str | None = None
    ) -> list[float]:
        async with self._con.lock:
            if season is None:
                rows = await self._con.all(
                    "SELECT c.before, c.after FROM rating_changes c"
                    " JOIN games g ON g.id = c.game_id"
                    " WHERE c.scope = ? AND c.user_id = ? AND c.mode = ?"
                    " ORDER BY g.finished_at DESC, c.game_id DESC LIMIT ?",
                    (scope, user_id, Mode(mode).value, limit),
                )
            else:
                rows = await self._con.all(
                    "SELECT before, after FROM season_rating_changes"
                    " WHERE guild_id = ? AND season = ? AND user_id = ? AND mode = ?"
                    " ORDER BY id DESC LIMIT ?",
                    (scope, season, user_id, Mode(mode).value, limit),
                )
        return rating_points(rows)

    async def user_stats(self, guild_id: int, user_id: int) -> UserStats:
        async with self._con.lock:
            rows = await self._con.all(
                "SELECT ai_level, result, COUNT(*) FROM results"
                " WHERE guild_id = ? AND user_id = ? GROUP BY ai_level, result",
                (guild_id, user_id),
            )
        tallies: dict[str, dict[str, int]] = {}
        for level, result, count in rows:
            tallies.setdefault(str(level), {})[str(result)] = int(count)
        by_level = {level: _record(t) for level, t in tallies.items()}
        overall = Record(
            wins=sum(r.wins for r in by_level.values()),
            draws=sum(r.draws for r in by_level.values()),
            losses=sum(r.losses for r in by_level.values()),
        )
        return UserStats(overall=overall, by_level=by_level)

    # ----------------------------------------------------------------- helpers (lock held)
    async def count_result(
        self, game: GameRow, winner: Mark | None, rate: RatePolicy
    ) -> tuple[RatingChange, ...]:
        """Write a rated finished game's result per AI level and its rating changes, in each
        member's server and globally, as `rate` (the rating policy) computes them from the
        standings; the changes written. Each member's server is their own (see _homes): in a
        game between two servers each is rated in theirs, against the other's rating there.
        Each server's season (if seasons are on there) moves too, from the season's standings:
        the all-time ones never read them."""
        homes = await self._homes(game)
        everywhere = dict.fromkeys(game.members, GLOBAL_SCOPE)
        in_server = {
            user: (await self._standing(homes[user], user, game.mode)).rating
            for user in game.members
        }
        globally = {
            user: (await self._standing(GLOBAL_SCOPE, user, game.mode)).rating
            for user in game.members
        }
        changes = []
        for scopes, current in ((homes, in_server), (everywhere, globally)):
            for update in rate(game, winner, current):
                scope = scopes[update.user_id]
                await self._write_rating(game, scope, update.user_id, update.result,
                                         update.before, update.after)
                changes.append(
                    RatingChange(update.user_id, scope, game.mode, update.before, update.after)
                )
        await self._count_season(game, winner, rate, homes, in_server)
        for user, level, result in ai_results(game, winner):
            await self._con.db.execute(
                "INSERT INTO results (game_id, guild_id, user_id, ai_level, result)"
                " VALUES (?, ?, ?, ?, ?)",
                (game.id, homes[user], user, level.value, result.value),
            )
        return in_stored_order(changes)

    async def _homes(self, game: GameRow) -> dict[int, int]:
        """Each member's server: the server of their board in another server (a game between
        two servers), else the game's."""
        rows = await self._con.all(
            "SELECT user_id, guild_id FROM game_boards WHERE game_id = ?", (game.id,)
        )
        boards = {int(user): int(guild) for user, guild in rows}
        return {user: boards.get(user, game.guild_id) for user in game.members}

    async def _count_season(
        self, game: GameRow, winner: Mark | None, rate: RatePolicy, homes: dict[int, int],
        befores: dict[int, float],
    ) -> None:
        """Move each member's rating in the season of their server, if it has seasons on. A
        member whose server has none is rated at their server's all-time rating from before
        the game (`befores`), so the other member's season still moves against them."""
        seasons = {guild: await self._season_of(game, guild) for guild in set(homes.values())}
        if all(season is None for season in seasons.values()):
            return
        current: dict[int, float] = {}
        for user in game.members:
            season = seasons[homes[user]]
            current[user] = (
                befores[user]
                if season is None
                else await self._season_rating(homes[user], season, user, game.mode)
            )
        for update in rate(game, winner, current):
            season = seasons[homes[update.user_id]]
            if season is not None:
                await self._write_season(game, homes[update.user_id], season, update.user_id,
                                         update.result, update.before, update.after)

    async def _write_rating(
        self, game: GameRow, scope: int, user_id: int, result: Result, before: float,
        after: float,
    ) -> None:
        await self._con.db.execute(
            "INSERT INTO standings (scope, user_id, mode, rating, wins, draws, losses)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, user_id, mode) DO UPDATE SET"
            " rating = excluded.rating, wins = wins + excluded.wins,"
            " draws = draws + excluded.draws, losses = losses + excluded.losses",
            (
                scope,
                user_id,
                game.mode.value,
                after,
                int(result is Result.WIN),
                int(result is Result.DRAW),
                int(result is Result.LOSS),
            ),
        )
        await self._con.db.execute(
            "INSERT INTO rating_changes (game_id, scope, user_id, mode, before, after)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (game.id, scope, user_id, game.mode.value, before, after),
        )

    async def _season_of(self, game: GameRow, guild_id: int) -> Season | None:
        """The season `game` counts in for the members of `guild_id`: that server's season
        length at the game's finish time, which the finishing write just stored."""
        row = await self._con.first(
            "SELECT g.finished_at, s.season_length FROM games g"
            " LEFT JOIN guild_settings s ON s.guild_id = ? WHERE g.id = ?",
            (guild_id, game.id),
        )
        assert row is not None  # the caller just finished it
        finished = (
            datetime.now(UTC)
            if row[0] is None
            else datetime.fromisoformat(str(row[0]).replace("Z", "+00:00"))
        )
        return season_of(stored_length(row[1]), finished)

    async def _season_rating(self, guild_id: int, season: Season, user_id: int, mode: Mode) -> float:
        """The member's rating in `season`; at their first game of it, the soft reset of the
        last season they played in this server."""
        row = await self._con.first(
            "SELECT rating FROM season_standings"
            " WHERE guild_id = ? AND season = ? AND user_id = ? AND mode = ?",
            (guild_id, season.name, user_id, mode.value),
        )
        if row is not None:
            return float(row[0])
        last = await self._con.first(
            "SELECT rating FROM season_standings"
            " WHERE guild_id = ? AND user_id = ? AND mode = ? AND season <> ?"
            " ORDER BY starts DESC, season DESC LIMIT 1",
            (guild_id, user_id, mode.value, season.name),
        )
        return soft_reset(START_RATING, None if last is None else float(last[0]))

    async def _write_season(
        self, game: GameRow, guild_id: int, season: Season, user_id: int, result: Result,
        before: float, after: float,
    ) -> None:
        await self._con.db.execute(
            "INSERT INTO season_standings"
            " (guild_id, season, starts, user_id, mode, rating, wins, draws, losses)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (guild_id, season, user_id, mode) DO UPDATE SET"
            " rating = excluded.rating, wins = wins + excluded.wins,"
            " draws = draws + excluded.draws, losses = losses + excluded.losses",
            (
                guild_id,
                season.name,
                season.starts.isoformat(),
                user_id,
                game.mode.value,
                after,
                int(result is Result.WIN),
                int(result is Result.DRAW),
                int(result is Result.LOSS),
            ),
        )
        await self._con.db.execute(
            "INSERT INTO season_rating_changes"
            " (game_id, guild_id, season, user_id, mode, before, after)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game.id, guild_id, season.name, user_id, game.mode.value, before, after),
        )

    async def _standing(self, scope: int, user_id: int, mode: Mode) -> Standing:
        row = await self._con.first(
            "SELECT rating, wins, draws, losses FROM standings"
            " WHERE scope = ? AND user_id = ? AND mode = ?",
            (scope, user_id, Mode(mode).value),
        )
        if row is None:
            return Standing(rating=START_RATING, record=Record())
        return Standing(
            rating=float(row[0]),
            record=Record(wins=int(row[1]), draws=int(row[2]), losses=int(row[3])),
        )


def _record(tally: dict[str, int]) -> Record:
    return Record(wins=tally.get("win", 0), draws=tally.get("draw", 0), losses=tally.get("loss", 0))
