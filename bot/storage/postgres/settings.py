"""Queries of per-server and per-member settings, on PostgreSQL."""

from __future__ import annotations

import time

from bot.game.model import GuildSettings, MemberSettings
from bot.game.seasons import stored_length
from bot.storage.postgres.connection import Connection
from bot.storage.rows import member_settings_of

# Every move starts a clock from a server's settings, and every drawing reads a member's theme,
# so both are cached. Another process may save them (the server's shard moved to another
# cluster and back, or the member used another shard's server), so a cached value is trusted
# only this long: a change made elsewhere shows within it.
SETTINGS_TTL = 10.0


class SettingQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con
        # guild id -> (monotonic time read, its saved settings or None if it has none).
        self._settings: dict[int, tuple[float, GuildSettings | None]] = {}
        # user id -> (monotonic time read, their settings).
        self._members: dict[int, tuple[float, MemberSettings]] = {}

    async def guild_settings(self, guild_id: int, default: GuildSettings) -> GuildSettings:
        cached = self._settings.get(guild_id)
        if cached is not None and time.monotonic() - cached[0] < SETTINGS_TTL:
            return cached[1] or default
        row = await self._con.pool.fetchrow(
            "SELECT pvp_timeout, ai_timeout, language, season_length, tournament_role,"
            " cross_server"
            " FROM guild_settings"
            " WHERE guild_id = $1",
            guild_id,
        )
        found = (
            None
            if row is None
            else GuildSettings(
                pvp_timeout=float(row[0]),
                ai_timeout=float(row[1]),
                language=None if row[2] is None else str(row[2]),
                season_length=stored_length(row[3]),
                tournament_role=None if row[4] is None else int(row[4]),
                cross_server=bool(row[5]),
            )
        )
        self._settings[guild_id] = (time.monotonic(), found)
        return found or default

    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self._con.pool.execute(
            "INSERT INTO guild_settings"
            " (guild_id, pvp_timeout, ai_timeout, language, season_length, tournament_role,"
            " cross_server)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7)"
            " ON CONFLICT (guild_id) DO UPDATE SET pvp_timeout = excluded.pvp_timeout,"
            " ai_timeout = excluded.ai_timeout, language = excluded.language,"
            " season_length = excluded.season_length,"
            " tournament_role = excluded.tournament_role, cross_server = excluded.cross_server",
            guild_id,
            settings.pvp_timeout,
            settings.ai_timeout,
            settings.language,
            settings.season_length.value,
            settings.tournament_role,
            settings.cross_server,
        )
        self._settings[guild_id] = (time.monotonic(), settings)

    async def member_settings(self, user_id: int) -> MemberSettings:
        cached = self._members.get(user_id)
        if cached is not None and time.monotonic() - cached[0] < SETTINGS_TTL:
            return cached[1]
        row = await self._con.pool.fetchrow(
            "SELECT theme, turn_pings, clock_warnings, language FROM member_settings"
            " WHERE user_id = $1",
            user_id,
        )
        found = MemberSettings() if row is None else member_settings_of(*row)
        self._members[user_id] = (time.monotonic(), found)
        return found

    async def save_member_settings(self, user_id: int, settings: MemberSettings) -> None:
        await self._con.pool.execute(
            "INSERT INTO member_settings (user_id, theme, turn_pings, clock_warnings, language)"
            " VALUES ($1, $2, $3, $4, $5)"
            " ON CONFLICT (user_id) DO UPDATE SET theme = excluded.theme,"
            " turn_pings = excluded.turn_pings, clock_warnings = excluded.clock_warnings,"
            " language = excluded.language",
            user_id,
            None if settings.theme is None else settings.theme.value,
            settings.turn_pings,
            settings.clock_warnings,
            settings.language,
        )
        self._members[user_id] = (time.monotonic(), settings)
