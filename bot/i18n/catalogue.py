"""The player-facing texts as gettext catalogues, and the tools that keep them whole.

Layout (what `pybabel init/update -D caro -d bot/i18n/locales` expects, so translators use the
ordinary gettext tools, Poedit included):

    bot/i18n/locales/caro.pot                       every text id with its English text (the source)
    bot/i18n/locales/<locale>/LC_MESSAGES/caro.po   one file per other language, e.g. vi, pt_BR

Each entry's `msgctxt` is the text id the code asks for ("game.your_turn"), its `msgid` the
English text and its `msgstr` the translation: translators see the English they translate, and the
code never depends on the English wording. Texts are `str.format` templates ("{user}"), flagged
python-brace-format so gettext tools check the placeholders too.

A text with a number of things in it is a gettext plural entry: `msgid` (one) and
`msgid_plural` (more) in English, and in each language as many `msgstr[i]` forms as its
Plural-Forms header says (Vietnamese has one). Such a text is filled in with a `count`, which
picks the form by the language's own rule, as ngettext does.

The .po files are parsed when the bot starts (no compile step: `pip install -e .` on a fresh
machine is all it takes, and the wheel ships the same files). Adding a language is adding a file.

    python -m bot.i18n.catalogue check                 every problem of every catalogue; exit 1 if any
    python -m bot.i18n.catalogue add KEY EN [L=TEXT…]  a new text id with its English and translations
    python -m bot.i18n.catalogue reword KEY EN         new English; translations get marked fuzzy
    python -m bot.i18n.catalogue import-dicts FILE     ids of an old-style texts.py (EN/VI dicts) that
                                                  the catalogues lack, e.g. from a merged branch
"""

from __future__ import annotations

import argparse
import ast
import gettext
import io
import string
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

DOMAIN = "caro"
LOCALES_DIR = Path(__file__).with_name("locales")
TEMPLATE_NAME = f"{DOMAIN}.pot"
BRACE_FLAG = "python-brace-format"

# Discord's rules for the localized name of a command or option: lower case where the script has
# case, no spaces, 1 to 32 characters; descriptions 1 to 100. A catalogue breaking them makes the
# command sync fail for every language, so the check refuses them up front.
NAME_PREFIXES = ("cmdname.", "optname.")
DESCRIPTION_PREFIX = "cmd."
MAX_NAME = 32
MAX_DESCRIPTION = 100
# The prefix the operator's messages had when they lived among the player texts.
CONSOLE_PREFIX = "console."


class CatalogueError(ValueError):
    """A catalogue file cannot be read as one (bad syntax, an entry without its text id)."""


def catalogue_path(directory: Path, locale: str) -> Path:
    return directory / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def normalise(locale: str) -> str:
    """A Discord or BCP 47 locale ("pt-BR", "vi") in gettext's spelling ("pt_BR", "vi")."""
    language, _, region = locale.replace("-", "_").partition("_")
    return f"{language.lower()}_{region.upper()}" if region else language.lower()


# English's plural rule: one thing, or any other number of them.
ENGLISH_PLURAL = "(n != 1)"
# The value that picks a plural entry's form.
COUNT = "count"
# An entry's text: a template, or a plural entry's forms (English: one, then more).
Text = str | tuple[str, ...]


@dataclass(frozen=True, eq=False)  # compared by identity: the locale cache keys on it
class Catalogues:
    """The English source and every translation found, by gettext locale name."""

    # A plural entry's text here is its English plural form; its forms are in `plurals`.
    source: Mapping[str, str]
    translations: Mapping[str, Mapping[str, str]]
    # Plural entries: the English forms (one, more), and each language's forms by id.
    source_plurals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    plurals: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    # Each language's Plural-Forms: how many forms, and the rule (a C expression of n) that
    # picks one.
    plural_counts: Mapping[str, int] = field(default_factory=dict)
    plural_rules: Mapping[str, str] = field(default_factory=dict)
    # Entries a check must report but the bot must not show: untranslated or fuzzy ids, per
    # locale, and ids a translation has that the source no longer has.
    untranslated: Mapping[str, frozenset[str]] = field(default_factory=dict)
    fuzzy: Mapping[str, frozenset[str]] = field(default_factory=dict)
    extra: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def lookup(self, locale: str) -> Mapping[str, str] | None:
        """The translation for `locale` ("pt-BR" finds pt_BR, else pt), None for English or a
        language with no catalogue (the caller then shows the English text)."""
        return _lookup(self, locale)

    def plural(self, locale: str, key: str, count: float) -> str:
        """The form of plural entry `key` for `count` things in `locale`, by that language's
        rule; English (by its rule) where the language has no translation of it. gettext's
        rules are for whole numbers: a fraction takes the last form (English's plural)."""
        found = _language(self, locale)
        forms = self.plurals.get(found, {}).get(key) if found is not None else None
        rule = ENGLISH_PLURAL
        if forms is None or found is None:
            forms = self.source_plurals[key]
        else:
            rule = self.plural_rules[found]
        if not float(count).is_integer():
            return forms[-1]
        return forms[min(_rule(rule)(int(count)), len(forms) - 1)]


@lru_cache(maxsize=64)
def _rule(expression: str) -> Callable[[int], int]:
    return gettext.c2py(expression)


@lru_cache(maxsize=256)
def _language(catalogues: Catalogues, locale: str) -> str | None:
    """The gettext name of the catalogue serving `locale`, None if none does."""
    locale = normalise(locale)
    for name in (locale, locale.partition("_")[0]):
        if name in catalogues.translations:
            return name
    return None


@lru_cache(maxsize=256)
def _lookup(catalogues: Catalogues, locale: str) -> Mapping[str, str] | None:
    # Cached, by the locale as given: every text the bot renders resolves its locale (a board,
    # a dozen), with a handful of distinct ones.
    locale = normalise(locale)
    found = catalogues.translations.get(locale)
    if found is None:
        found = catalogues.translations.get(locale.partition("_")[0])
    return found


def _read(path: Path) -> Catalog:
    try:
        with path.open("rb") as stream:
            return read_po(stream, domain=DOMAIN, abort_invalid=True)
    except Exception as error:  # Babel raises its own PoFileError and plain ValueErrors
        raise CatalogueError(f"{path}: {error}") from error


def _entries(path: Path, catalog: Catalog) -> list[tuple[str, Text, Text, bool]]:
    """(text id, English, translation, fuzzy) of every entry, in file order; a plural entry's
    English and translation are tuples of its forms."""
    entries: list[tuple[str, Text, Text, bool]] = []
    seen: set[str] = set()
    for message in catalog:
        if not message.id:
            continue  # the header
        english: Text = message.id if isinstance(message.id, str) else tuple(message.id)
        string = message.string
        translated: Text = string if isinstance(string, str) else tuple(string or ())
        if isinstance(english, str) != isinstance(translated, str):
            raise CatalogueError(f"{path}:{message.lineno}: a plural entry needs msgstr[0]...")
        key = message.context
        if not key:
            raise CatalogueError(f"{path}:{message.lineno}: entry without msgctxt (its text id)")
        if key in seen:
            raise CatalogueError(f"{path}:{message.lineno}: text id {key} appears twice")
        seen.add(key)
        entries.append((key, english, translated, message.fuzzy))
    return entries


def _last(text: Text) -> str:
    """A text as one template: a plural entry's last form (English: the plural)."""
    return text if isinstance(text, str) else text[-1]


def load(directory: Path = LOCALES_DIR) -> Catalogues:
    """Every catalogue under `directory`: the template is the English source; each
    <locale>/LC_MESSAGES/caro.po is a language. Untranslated and fuzzy entries fall back to
    English at run time, as gettext does."""
    template = directory / TEMPLATE_NAME
    source_entries = _entries(template, _read(template))
    source = {key: _last(english) for key, english, _, _ in source_entries}
    source_plurals = {
        key: english for key, english, _, _ in source_entries if isinstance(english, tuple)
    }
    translations: dict[str, dict[str, str]] = {}
    plurals: dict[str, dict[str, tuple[str, ...]]] = {}
    plural_counts: dict[str, int] = {}
    plural_rules: dict[str, str] = {}
    untranslated: dict[str, frozenset[str]] = {}
    fuzzy: dict[str, frozenset[str]] = {}
    extra: dict[str, frozenset[str]] = {}
    for path in sorted(directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        locale = normalise(path.parent.parent.name)
        texts: dict[str, str] = {}
        forms: dict[str, tuple[str, ...]] = {}
        missing: set[str] = set(source)
        doubtful: set[str] = set()
        unknown: set[str] = set()
        catalog = _read(path)
        for key, _english, translated, is_fuzzy in _entries(path, catalog):
            if key not in source:
                unknown.add(key)
                continue
            if is_fuzzy:
                doubtful.add(key)
            elif translated and all(translated):
                texts[key] = _last(translated)
                if isinstance(translated, tuple):
                    forms[key] = translated
                missing.discard(key)
        translations[locale] = texts
        plurals[locale] = forms
        plural_counts[locale] = catalog.num_plurals
        plural_rules[locale] = catalog.plural_expr
        untranslated[locale] = frozenset(missing - doubtful)
        fuzzy[locale] = frozenset(doubtful)
        extra[locale] = frozenset(unknown)
    return Catalogues(
        source, translations, untranslated=untranslated, fuzzy=fuzzy, extra=extra,
        source_plurals=source_plurals, plurals=plurals, plural_counts=plural_counts,
        plural_rules=plural_rules,
    )


def placeholders(template: str) -> set[str]:
    """The names a template fills in ("{user}" -> "user"); ValueError if it is malformed."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def problems(catalogues: Catalogues) -> list[str]:
    """Everything that would show a player a wrong, English or broken text, one line each."""
    found: list[str] = []
    for key, english in catalogues.source.items():
        try:
            placeholders(english)
        except ValueError as error:
            found.append(f"source: {key}: malformed template ({error})")
    for key, english_forms in catalogues.source_plurals.items():
        shapes = {frozenset(_safe_placeholders(form)) for form in english_forms}
        if len(english_forms) != 2 or len(shapes) != 1 or COUNT not in next(iter(shapes)):
            found.append(
                f"source: {key}: a plural entry is one msgid and one msgid_plural, both with "
                f"{{{COUNT}}} and the same placeholders"
            )
    for locale, texts in catalogues.translations.items():
        forms_of = catalogues.plurals.get(locale, {})
        wanted = catalogues.plural_counts.get(locale, 2)
        for key in sorted(texts):
            plural_here, plural_there = key in forms_of, key in catalogues.source_plurals
            if plural_here != plural_there:
                shape = "a plural entry" if plural_there else "not a plural entry"
                found.append(f"{locale}: {key}: must be {shape}, as in {TEMPLATE_NAME}")
            elif plural_here and len(forms_of[key]) != wanted:
                found.append(
                    f"{locale}: {key}: {len(forms_of[key])} plural forms; its Plural-Forms "
                    f"header says {wanted}"
                )
            elif plural_here:
                ours = _safe_placeholders(catalogues.source[key])
                for form in forms_of[key][:-1]:  # the last is checked with the other texts
                    if _safe_placeholders(form) != ours:
                        found.append(
                            f"{locale}: {key}: a plural form's placeholders "
                            f"{sorted(_safe_placeholders(form))} differ from the English "
                            f"{sorted(ours)}"
                        )
    texts_by_locale: dict[str, Mapping[str, str]] = {"source": catalogues.source}
    texts_by_locale.update(catalogues.translations)
    for locale, texts in catalogues.translations.items():
        for key in sorted(catalogues.untranslated.get(locale, ())):
            found.append(f"{locale}: {key}: not translated")
        for key in sorted(catalogues.fuzzy.get(locale, ())):
            found.append(f"{locale}: {key}: marked fuzzy (check the translation, then unmark it)")
        for key in sorted(catalogues.extra.get(locale, ())):
            found.append(f"{locale}: {key}: not in {TEMPLATE_NAME} (remove it, or add it there)")
        for key, text in texts.items():
            try:
                theirs = placeholders(text)
            except ValueError as error:
                found.append(f"{locale}: {key}: malformed template ({error})")
                continue
            ours = placeholders(catalogues.source[key])
            if theirs != ours:
                found.append(
                    f"{locale}: {key}: placeholders {sorted(theirs)} differ from the English "
                    f"{sorted(ours)}"
                )
    for locale, texts in texts_by_locale.items():
        for key, text in texts.items():
            if key.startswith(NAME_PREFIXES) and not _discord_name(text):
                found.append(
                    f"{locale}: {key}: {text!r} is not a Discord command or option name "
                    f"(lower case, no spaces, 1-{MAX_NAME} characters)"
                )
            elif key.startswith(DESCRIPTION_PREFIX) and not 1 <= len(text) <= MAX_DESCRIPTION:
                found.append(
                    f"{locale}: {key}: {len(text)} characters; Discord allows 1-{MAX_DESCRIPTION}"
                )
    return found


def _safe_placeholders(template: str) -> set[str]:
    """placeholders(), with a malformed template (reported on its own) as having none."""
    try:
        return placeholders(template)
    except ValueError:
        return set()


def _discord_name(text: str) -> bool:
    return (
        1 <= len(text) <= MAX_NAME
        and text == text.lower()
        and all(char.isalnum() or char in "-_" for char in text)
    )


# ------------------------------------------------------------------ writing (maintenance tools)


def _write(path: Path, catalog: Catalog) -> None:
    buffer = io.BytesIO()
    write_po(buffer, catalog, sort_output=False, include_lineno=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())


def _flags(english: str) -> list[str]:
    return [BRACE_FLAG] if placeholders(english) else []


def add_texts(
    directory: Path,
    new: Mapping[str, str],
    translated: Mapping[str, Mapping[str, str]],
) -> list[str]:
    """Add each id of `new` (id -> English) missing from the template, to the template and to
    every language (with its text from `translated[locale]` where given, else untranslated so
    `check` lists it). Returns the ids added; ids already present are left as they are."""
    template_path = directory / TEMPLATE_NAME
    template = _read(template_path)
    present = {message.context for message in template if message.id}
    added = [key for key in new if key not in present]
    if not added:
        return []
    for key in added:
        template.add(new[key], "", context=key, flags=_flags(new[key]))
    _write(template_path, template)
    for path in sorted(directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        locale = normalise(path.parent.parent.name)
        catalog = _read(path)
        texts = translated.get(locale, translated.get(locale.partition("_")[0], {}))
        for key in added:
            catalog.add(new[key], texts.get(key, ""), context=key, flags=_flags(new[key]))
        _write(path, catalog)
    return added


def reword(directory: Path, key: str, english: str) -> list[str]:
    """Give `key` new English text. Each language keeps its translation, marked fuzzy (gettext's
    "check me": the bot shows English until a translator confirms it, and `check` lists it).
    Returns the locales whose translation was marked; KeyError if the template lacks `key`."""
    template_path = directory / TEMPLATE_NAME
    template = _read(template_path)
    if not _replace_id(template, key, english, fuzzy=False):
        raise KeyError(key)
    _write(template_path, template)
    marked: list[str] = []
    for path in sorted(directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        catalog = _read(path)
        if _replace_id(catalog, key, english, fuzzy=True):
            marked.append(normalise(path.parent.parent.name))
        _write(path, catalog)
    return marked


def _replace_id(catalog: Catalog, key: str, english: str, *, fuzzy: bool) -> bool:
    """Replace the msgid of entry `key` in place (keeping the file order); whether the entry was
    there with a translation (then marked fuzzy if `fuzzy`)."""
    for message in catalog:
        if message.id and message.context == key:
            break
    else:
        return False
    if not isinstance(message.id, str):
        raise ValueError(f"{key} is a plural entry: edit its msgid and msgid_plural in the files")
    translated = bool(message.string)
    flags = set(message.flags) - {"fuzzy", BRACE_FLAG}
    flags.update(_flags(english))
    if fuzzy and translated:
        flags.add("fuzzy")
    # Babel keys its entries by (msgid, msgctxt): rebuild the catalogue to keep the order.
    entries = [m for m in catalog if m.id]
    for existing in entries:
        catalog.delete(existing.id, context=existing.context)
    for existing in entries:
        if existing is message:
            catalog.add(english, message.string, context=key, flags=sorted(flags))
        else:
            catalog[existing.id] = existing
    return translated or not fuzzy


def texts_from_dicts(source: str) -> dict[str, dict[str, str]]:
    """The catalogues of an old-style texts.py (module-level dicts `EN`, `VI`, … of literal
    strings), read without running it: {"en": {...}, "vi": {...}}."""
    found: dict[str, dict[str, str]] = {}
    for node in ast.parse(source).body:
        target: ast.expr | None = None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if (
            isinstance(target, ast.Name)
            and target.id.isupper()
            and len(target.id) == 2
            and isinstance(value, ast.Dict)
        ):
            texts = ast.literal_eval(value)
            if isinstance(texts, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in texts.items()
            ):
                found[target.id.lower()] = texts
    return found


def _main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bot.i18n.catalogue",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dir", type=Path, default=LOCALES_DIR, help="the locales directory")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="list every problem; exit 1 if there is one")
    add = commands.add_parser("add", help="add a text id to every catalogue")
    add.add_argument("key", help="the text id, e.g. game.clock")
    add.add_argument("english", help="its English text (a str.format template)")
    add.add_argument("translations", nargs="*", metavar="LOCALE=TEXT", help="e.g. vi='Hết giờ'")
    change = commands.add_parser(
        "reword", help="new English text for a text id; translations are marked fuzzy"
    )
    change.add_argument("key")
    change.add_argument("english")
    from_dicts = commands.add_parser(
        "import-dicts", help="add the ids an old-style texts.py has and the catalogues lack"
    )
    from_dicts.add_argument("file", type=Path, help="e.g. the output of git show BRANCH:bot/i18n/texts.py")
    args = parser.parse_args(argv)
    directory: Path = args.dir
    try:
        if args.command == "add":
            translated: dict[str, dict[str, str]] = {}
            for item in args.translations:
                locale, sep, text = item.partition("=")
                if not sep:
                    parser.error(f"expected LOCALE=TEXT, got {item!r}")
                translated[normalise(locale)] = {args.key: text}
            added = add_texts(directory, {args.key: args.english}, translated)
            print(f"added {args.key}" if added else f"{args.key} is already there; not changed")
        elif args.command == "reword":
            for locale in reword(directory, args.key, args.english):
                print(f"{locale}: {args.key}: translation marked fuzzy; check it, then unmark it")
        elif args.command == "import-dicts":
            old = texts_from_dicts(args.file.read_text(encoding="utf-8"))
            english = old.pop("en", {})
            # Console messages are the operator's, English only, written where they are raised
            # (bot/runtime/config.py, bot/runtime/preflight.py, bot/runtime/main.py), never in the player catalogues.
            for key in [key for key in english if key.startswith(CONSOLE_PREFIX)]:
                del english[key]
                print(f"not imported: {key} is a console message; write it where it is raised")
            added = add_texts(directory, english, old)
            current = load(directory).source
            for key in added:
                print(f"added {key}")
            for key, text in english.items():
                if key not in added and current.get(key) != text:
                    print(f"differs (not changed; edit {TEMPLATE_NAME} and the .po files): {key}")
        found = problems(load(directory))
        for problem in found:
            print(problem)
        if found and args.command == "check":
            return 1
    except (CatalogueError, KeyError, OSError, SyntaxError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
