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


def has_catalogue(locale: str) -> bool:
    """Whether the bot speaks `locale`: English, or a language with a catalogue ("vi", "vi-VN")."""
    language = locale.replace("_", "-").partition("-")[0].lower()
    return language == DEFAULT_LOCALE or LOADED.lookup(locale) is not None


def choose_language(own: str | None, server: str | None, client: str | None) -> str:
    """The language to write to a member in: the one they chose for caro (`own`), else their
    server's default (`server`), else their Discord client's (`client`) if the bot speaks it,
    else English. The one rule every reply, ping and warning follows."""
    for chosen in (own, server):
        if chosen:
            return chosen
    if client and has_catalogue(client):
        return client
    return DEFAULT_LOCALE


# The /caro group's text id: "caro" in every language so far, but a catalogue may name it.
GROUP_KEY = "cmdname.caro"
COMMAND_PREFIX = "cmdname."
# Texts name a command through a placeholder {cmd_<name>} ("{cmd_start}"), filled with the name
# Discord shows the reader, which follows their Discord client, not the language of the text.
COMMAND_PLACEHOLDER = "cmd_"


def subcommands() -> list[str]:
    """The /caro subcommands: every command name the catalogues translate, in their order."""
    return [
        key.removeprefix(COMMAND_PREFIX)
        for key in EN
        if key.startswith(COMMAND_PREFIX) and key != GROUP_KEY
    ]


def command_name(locale: str, name: str) -> str:
    """How Discord shows the subcommand `name` to a client in `locale`, e.g. "/caro bắt-đầu";
    a subcommand of a subgroup is named `<group>_<name>` ("/caro puzzle play")."""
    group, _, sub = name.partition("_")
    if sub and COMMAND_PREFIX + group in EN:
        return (
            f"/{text_in(locale, GROUP_KEY)} {text_in(locale, COMMAND_PREFIX + group)}"
            f" {text_in(locale, COMMAND_PREFIX + name)}"
        )
    return f"/{text_in(locale, GROUP_KEY)} {text_in(locale, COMMAND_PREFIX + name)}"


def command_names(client: str) -> dict[str, str]:
    """The values of every {cmd_<name>} placeholder for a reader whose Discord client is in
    `client`: give them to text_in along with a text's own values."""
    return {COMMAND_PLACEHOLDER + name: command_name(client, name) for name in subcommands()}


def _filled(locale: str, value: object) -> object:
    if isinstance(value, TextId):
        return text_in(locale, value)
    if isinstance(value, Counted):
        return text_in(locale, value.key, count=value.count)
    return value
