"""Each member's own settings: their board theme, turn pings, clock warnings and language."""

from __future__ import annotations

from bot.game.model import BoardStyle, MemberSettings
from bot.game.ports import SettingStore


class MemberPreferences:
    def __init__(self, store: SettingStore) -> None:
        self._store = store

    async def member(self, user_id: int) -> MemberSettings:
        """The member's settings (the defaults if they never chose). Cached by the store, so
        a drawing or a turn may ask each time."""
        return await self._store.member_settings(user_id)

    async def theme(self, user_id: int) -> BoardStyle:
        """The theme the member's pictures are drawn in (MemberSettings.style)."""
        return (await self.member(user_id)).style

    async def save_member(self, user_id: int, settings: MemberSettings) -> None:
        await self._store.save_member_settings(user_id, settings)


__all__ = ["MemberPreferences"]
