"""The error a member's request ends in when it cannot be done: shown to them, privately."""

from __future__ import annotations

from bot.i18n.texts import t


class UserError(ValueError):
    """Something a member sent cannot be done; str() is the message to show them."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(t(key, **values))
        self.key = key
        self.values = values
