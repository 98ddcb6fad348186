"""Per-server settings: the turn clocks and default language a server chose, or the
installation's defaults."""

from __future__ import annotations

from bot.game.model import GuildSettings
from bot.game.ports import SettingStore

# Defaults of the per-server turn clock (seconds): a member waiting for another gets the move
# back sooner; against the AI nobody waits, so a game may rest longer.
DEFAULT_TIMEOUTS = GuildSettings(pvp_timeout=10 * 60.0, ai_timeout=30 * 60.0)


class ServerSettings:
    def __init__(self, store: SettingStore, default_timeouts: GuildSettings = DEFAULT_TIMEOUTS):
        self._store = store
        self.default_timeouts = default_timeouts

    async def timeouts(self, guild_id: int) -> GuildSettings:
        return await self._store.guild_settings(guild_id, self.default_timeouts)

    async def save_timeouts(self, guild_id: int, settings: GuildSettings) -> None:
        await self._store.save_guild_settings(guild_id, settings)


__all__ = ["DEFAULT_TIMEOUTS", "ServerSettings"]
