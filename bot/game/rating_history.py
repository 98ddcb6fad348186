"""The rating lines of /caro stats: a member's rating over their last rated games in this
server, one line per pool they played in (against people, against the AI; all time and the
current season)."""

from __future__ import annotations

from bot.game.model import Mode, RatingLine
from bot.game.ports import StandingStore
from bot.game.seasons import Season

# Games a line covers at most: enough to show a trend, few enough that each game stays visible
# on a picture the size of a Discord embed.
CHART_GAMES = 50


async def rating_lines(
    standings: StandingStore,
    guild_id: int,
    user_id: int,
    season: Season | None,
    *,
    games: int = CHART_GAMES,
) -> list[RatingLine]:
    """The member's lines in this server, each mode's all-time line before its season line;
    only the pools they have rated games in (none: nothing to draw). `season` is the one
    running now, None when the server has seasons off."""
    periods = [None] if season is None else [None, season.name]
    lines = []
    for mode in (Mode.PVP, Mode.AI):
        for name in periods:
            ratings = await standings.rating_history(
                guild_id, user_id, mode, limit=games, season=name
            )
            if ratings:
                lines.append(RatingLine(mode, name, tuple(ratings)))
    return lines


__all__ = ["CHART_GAMES", "rating_lines"]
