"""Every player-facing string of the bot, by text id, read from the gettext catalogues in
bot/locales (see bot/catalogue.py for the layout and the maintenance commands).

Strings are `str.format` templates; `t(key, **values)` fills them in. Code never builds English
sentences itself: it picks ids and passes values. The operator's console messages are not here:
they are English only, in bot/console.py.
"""

from __future__ import annotations

from collections.abc import Mapping

from . import catalogue

DEFAULT_LOCALE = "en"

# Loaded once, when the bot starts: a broken catalogue stops the start with the file and line,
# rather than a player meeting it mid-game.
LOADED: catalogue.Catalogues = catalogue.load()

EN: Mapping[str, str] = LOADED.source
# Every language by its gettext name ("en", "vi", "pt_BR", ...).
CATALOGUES: Mapping[str, Mapping[str, str]] = {DEFAULT_LOCALE: EN, **LOADED.translations}
# The Vietnamese catalogue under the name the earlier dict-based module gave it.
VI: Mapping[str, str] = CATALOGUES.get("vi", {})


def t(key: str, /, **values: object) -> str:
    """The English text `key`, filled with `values`."""
    return text_in(DEFAULT_LOCALE, key, **values)


class TextId(str):
    """A value that is itself a text id, translated along with the text it fills in (e.g. the
    name of an option inside an error message kept for a user of another language)."""

    __slots__ = ()


def text_in(locale: str, key: str, /, **values: object) -> str:
    """The text `key` in `locale` (e.g. "vi", "en-US" or "pt-BR"), falling back to English."""
    translated = LOADED.lookup(locale)
    template = translated.get(key) if translated is not None else None
    if template is None:
        template = EN[key]  # KeyError here is a programming mistake: an id with no text.
    if not values:
        return template
    filled = {
        name: text_in(locale, value) if isinstance(value, TextId) else value
        for name, value in values.items()
    }
    return template.format(**filled)
