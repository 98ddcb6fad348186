"""Queries of per-server settings, on PostgreSQL."""

from __future__ import annotations

import time

from bot.game.model import GuildSettings
from bot.storage.postgres.connection import Connection

# Every move starts a clock from a server's settings, so they are cached. Another process may
# save them (the server's shard moved to another cluster and back), so a cached value is trusted
# only this long: a change made elsewhere shows within it.
SETTINGS_TTL = 10.0


class SettingQueries:
    def __init__(self, con: Connection) -> None:
        self._con = con
        # guild id -> (monotonic time read, its saved settings or None if it has none).
        self._settings: dict[int, tuple[float, GuildSettings | None]] = {}

    async def guild_settings(self, guild_id: int, default: GuildSettings) -> GuildSettings:
        cached = self._settings.get(guild_id)
        if cached is not None and time.monotonic() - cached[0] < SETTINGS_TTL:
            return cached[1] or default
        row = await self._con.pool.fetchrow(
            "SELECT pvp_timeout, ai_timeout FROM guild_settings WHERE guild_id = $1", guild_id
        )
        found = (
            None
            if row is None
            else GuildSettings(pvp_timeout=float(row[0]), ai_timeout=float(row[1]))
        )
        self._settings[guild_id] = (time.monotonic(), found)
        return found or default

    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self._con.pool.execute(
            "INSERT INTO guild_settings (guild_id, pvp_timeout, ai_timeout) VALUES ($1, $2, $3)"
            " ON CONFLICT (guild_id) DO UPDATE SET pvp_timeout = excluded.pvp_timeout,"
            " ai_timeout = excluded.ai_timeout",
            guild_id, settings.pvp_timeout, settings.ai_timeout,
        )
        self._settings[guild_id] = (time.monotonic(), settings)
