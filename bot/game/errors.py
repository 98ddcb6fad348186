"""The error a member's request ends in when it cannot be done: shown to them, privately."""

from __future__ import annotations

from bot.i18n.texts import DEFAULT_LOCALE, command_names, t


class UserError(ValueError):
    """Something a member sent cannot be done; str() is the message to show them."""

    def __init__(self, key: str, **values: object) -> None:
        # In English, naming commands as an English Discord client does; members see it
        # in their own language (bot.ui.replies).
        super().__init__(t(key, **{**command_names(DEFAULT_LOCALE), **values}))
        self.key = key
        self.values = values
