"""Every player-facing string of the bot, by text id, read from the gettext catalogues in
bot/i18n/locales (see bot/i18n/catalogue.py for the layout and the maintenance commands).

Strings are `str.format` templates; `t(key, **values)` fills them in. Code never builds English
sentences itself: it picks ids and passes values. A plural entry ("{count} games") is given its
`count`, which picks the form of the language (see bot/i18n/catalogue.py); a Counted value puts one
inside another text. The operator's console messages are not here:
they are English only, written where they are raised (bot/runtime/config.py, bot/runtime/preflight.py,
bot/runtime/main.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.i18n import catalogue

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


@dataclass(frozen=True, slots=True)
class Counted:
    """A plural entry and its count, as the value of another text ("{count} minutes" inside a
    sentence with two counts), filled in the language of the text around it."""

    key: str
    count: float


def text_in(locale: str, key: str, /, **values: object) -> str:
    """The text `key` in `locale` (e.g. "vi", "en-US" or "pt-BR"), falling back to English."""
    if key in LOADED.source_plurals:
        count = values.get(catalogue.COUNT)
        if not isinstance(count, int | float):  # a programming mistake: no count given
            raise TypeError(f"{key} is a plural text: give it count=<number>, not {count!r}")
        template = LOADED.plural(locale, key, count)
        if isinstance(count, float):
            values = {**values, catalogue.COUNT: f"{count:g}"}  # 10, not 10.0
    else:
        translated = LOADED.lookup(locale)
        found = translated.get(key) if translated is not None else None
        # KeyError here is a programming mistake: an id with no text.
        template = found if found is not None else EN[key]
    if not values:
        return template
    filled = {name: _filled(locale, value) for name, value in values.items()}
    return template.format(**filled)


def _filled(locale: str, value: object) -> object:
    if isinstance(value, TextId):
        return text_in(locale, value)
    if isinstance(value, Counted):
        return text_in(locale, value.key, count=value.count)
    return value
