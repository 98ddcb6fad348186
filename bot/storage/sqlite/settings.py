"""Queries of per-server settings."""

from __future__ import annotations

from bot.game.model import GuildSettings
from bot.storage.sqlite.connection import Connection


class SettingQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con
        # guild id -> its saved settings, None if it has none; see guild_settings.
        self._settings: dict[int, GuildSettings | None] = {}

    async def guild_settings(self, guild_id: int, default: GuildSettings) -> GuildSettings:
        # Every move starts a clock from these; they change only through save_guild_settings of
        # this one process, so a cache is exact and saves a database trip per move.
        if guild_id in self._settings:
            return self._settings[guild_id] or default
        async with self._con.lock:
            row = await self._con.first(
                "SELECT pvp_timeout, ai_timeout FROM guild_settings WHERE guild_id = ?", (guild_id,)
            )
        found = (
            None
            if row is None
            else GuildSettings(pvp_timeout=float(row[0]), ai_timeout=float(row[1]))
        )
        self._settings[guild_id] = found
        return found or default

    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        async with self._con.lock:
            await self._con.db.execute(
                "INSERT INTO guild_settings (guild_id, pvp_timeout, ai_timeout) VALUES (?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET pvp_timeout = excluded.pvp_timeout,"
                " ai_timeout = excluded.ai_timeout",
                (guild_id, settings.pvp_timeout, settings.ai_timeout),
            )
            self._settings[guild_id] = settings
