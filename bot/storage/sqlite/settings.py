"""Queries of per-server and per-member settings."""

from __future__ import annotations

from bot.game.model import GuildSettings, MemberSettings
from bot.game.seasons import stored_length
from bot.storage.rows import member_settings_of
from bot.storage.sqlite.connection import Connection


class SettingQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con
        # Settings change only through the saves of this one process, so these caches are
        # exact and save a database trip per move and per drawing.
        # guild id -> its saved settings, None if it has none.
        self._settings: dict[int, GuildSettings | None] = {}
        self._members: dict[int, MemberSettings] = {}

    async def guild_settings(self, guild_id: int, default: GuildSettings) -> GuildSettings:
        if guild_id in self._settings:
            return self._settings[guild_id] or default
        async with self._con.lock:
            row = await self._con.first(
                "SELECT pvp_timeout, ai_timeout, language, season_length, tournament_role,"
                " cross_server FROM guild_settings WHERE guild_id = ?",
                (guild_id,),
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
        self._settings[guild_id] = found
        return found or default

    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "INSERT INTO guild_settings"
                " (guild_id, pvp_timeout, ai_timeout, language, season_length, tournament_role,"
                " cross_server)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET pvp_timeout = excluded.pvp_timeout,"
                " ai_timeout = excluded.ai_timeout, language = excluded.language,"
                " season_length = excluded.season_length,"
                " tournament_role = excluded.tournament_role, cross_server = excluded.cross_server",
                (guild_id, settings.pvp_timeout, settings.ai_timeout, settings.language,
                 settings.season_length.value, settings.tournament_role, settings.cross_server),
            )
            self._settings[guild_id] = settings

    async def member_settings(self, user_id: int) -> MemberSettings:
        if user_id in self._members:
            return self._members[user_id]
        async with self._con.lock:
            row = await self._con.first(
                "SELECT theme, turn_pings, clock_warnings, language FROM member_settings"
                " WHERE user_id = ?",
                (user_id,),
            )
        found = MemberSettings() if row is None else member_settings_of(*row)
        self._members[user_id] = found
        return found

    async def save_member_settings(self, user_id: int, settings: MemberSettings) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "INSERT INTO member_settings (user_id, theme, turn_pings, clock_warnings, language)"
                " VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET theme = excluded.theme,"
                " turn_pings = excluded.turn_pings, clock_warnings = excluded.clock_warnings,"
                " language = excluded.language",
                (
                    user_id,
                    None if settings.theme is None else settings.theme.value,
                    int(settings.turn_pings),
                    int(settings.clock_warnings),
                    settings.language,
                ),
            )
            self._members[user_id] = settings
