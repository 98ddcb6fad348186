"""Discord's payload rules, checked the way Discord checks them.

Each check yields FieldError(path, code, message); `form_body` turns them into Discord's
400 / 50035 "Invalid Form Body" JSON so discord.py raises the same HTTPException it would in
production, and `describe` turns them into one-line violations for tests to read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from testkit.discord_double.state import COMPONENTS_V2, iter_components

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_ROWS = 5
MAX_ROW_BUTTONS = 5
MAX_V2_COMPONENTS = 40
MAX_CUSTOM_ID = 100
MAX_LABEL = 80
MAX_EMBED_TOTAL = 6000

ACTION_ROW, BUTTON, STRING_SELECT, TEXT_INPUT = 1, 2, 3, 4
SELECTS = {3, 5, 6, 7, 8}
LABEL = 18
LINK_STYLE, PREMIUM_STYLE = 5, 6
# Components V2 layout/content types (section, text display, thumbnail, media gallery, file,
# separator, container); only valid with the IS_COMPONENTS_V2 flag.
V2_ONLY = {9, 10, 11, 12, 13, 14, 17}

COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$", re.UNICODE)


@dataclass(frozen=True)
class FieldError:
    path: tuple[str | int, ...]
    code: str
    message: str


def form_body(errors: list[FieldError], prefix: tuple[str | int, ...] = ()) -> dict[str, Any]:
    nested: dict[str, Any] = {}
    for err in errors:
        node = nested
        for part in prefix + err.path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": err.code, "message": err.message})
    return {"message": "Invalid Form Body", "code": 50035, "errors": nested}


def describe(errors: list[FieldError]) -> str:
    return "; ".join(f"{'.'.join(map(str, e.path)) or '(body)'}: {e.message}" for e in errors)


def _max_len(path: tuple[str | int, ...], value: Any, limit: int) -> Iterator[FieldError]:
    if isinstance(value, str | list) and len(value) > limit:
        yield FieldError(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _between(path: tuple[str | int, ...], value: Any, low: int, high: int) -> Iterator[FieldError]:
    if not isinstance(value, str | list) or not low <= len(value) <= high:
        yield FieldError(path, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")


def message_errors(data: dict[str, Any], *, creating: bool, files: int = 0) -> list[FieldError]:
    """What Discord rejects in a message create/edit body (also an interaction response's data)."""
    errors: list[FieldError] = []
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        errors.append(FieldError(("content",), "BASE_TYPE_STRING", "Must be a string."))
    errors += _max_len(("content",), content, MAX_CONTENT)
    embeds = data.get("embeds") or []
    errors += _max_len(("embeds",), embeds, MAX_EMBEDS)
    for i, embed in enumerate(embeds[:MAX_EMBEDS]):
        errors += _embed_errors(("embeds", i), embed)
    flags = int(data.get("flags") or 0)
    components = data.get("components") or []
    if flags & COMPONENTS_V2:
        if content:
            errors.append(FieldError(("content",), "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                                     "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2"))
        if embeds:
            errors.append(FieldError(("embeds",), "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                                     "The 'embeds' field cannot be used when using MessageFlags.IS_COMPONENTS_V2"))
        total = sum(1 for _ in iter_components(components))
        if total > MAX_V2_COMPONENTS:
            errors.append(FieldError(("components",), "COMPONENT_MAX_TOTAL_COMPONENTS_EXCEEDED",
                                     f"Must be {MAX_V2_COMPONENTS} or fewer in total "
                                     f"(this message has {total})."))
    else:
        errors += _max_len(("components",), components, MAX_ROWS)
        for i, comp in enumerate(components):
            if comp.get("type") != ACTION_ROW:
                errors.append(FieldError(("components", i, "type"), "COMPONENT_TYPE_INVALID",
                                         f"Component type {comp.get('type')} needs "
                                         "MessageFlags.IS_COMPONENTS_V2 at the top level."))
    errors += _component_errors(components, v2=bool(flags & COMPONENTS_V2))
    if creating and not (content or embeds or components or files or data.get("attachments")
                         or data.get("sticker_ids") or data.get("poll")):
        errors.append(FieldError((), "EMPTY_MESSAGE", "Cannot send an empty message"))
    return errors


MAX_NONCE = 25


def nonce_errors(data: dict[str, Any]) -> list[FieldError]:
    """A Create Message's nonce: an integer or a string of up to 25 characters."""
    nonce = data.get("nonce")
    if nonce is None or isinstance(nonce, int) and not isinstance(nonce, bool):
        return []
    if not isinstance(nonce, str):
        return [FieldError(("nonce",), "BASE_TYPE_STRING", "Must be a string or an integer.")]
    return list(_max_len(("nonce",), nonce, MAX_NONCE))


def _embed_errors(path: tuple[str | int, ...], embed: Any) -> Iterator[FieldError]:
    if not isinstance(embed, dict):
        yield FieldError(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    yield from _max_len(path + ("title",), embed.get("title"), 256)
    yield from _max_len(path + ("description",), embed.get("description"), 4096)
    fields = embed.get("fields") or []
    yield from _max_len(path + ("fields",), fields, 25)
    total = len(embed.get("title") or "") + len(embed.get("description") or "")
    for j, field in enumerate(fields):
        yield from _max_len(path + ("fields", j, "name"), field.get("name"), 256)
        yield from _max_len(path + ("fields", j, "value"), field.get("value"), 1024)
        total += len(field.get("name") or "") + len(field.get("value") or "")
    footer = embed.get("footer") or {}
    yield from _max_len(path + ("footer", "text"), footer.get("text"), 2048)
    author = embed.get("author") or {}
    yield from _max_len(path + ("author", "name"), author.get("name"), 256)
    total += len(footer.get("text") or "") + len(author.get("name") or "")
    if total > MAX_EMBED_TOTAL:
        yield FieldError(path, "MAX_EMBED_SIZE_EXCEEDED",
                         f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}")


def _component_errors(components: list[dict[str, Any]], *, v2: bool) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: dict[str, tuple[str | int, ...]] = {}

    def walk(comps: list[Any], path: tuple[str | int, ...]) -> None:
        for i, comp in enumerate(comps):
            here = path + (i,)
            if not isinstance(comp, dict):
                errors.append(FieldError(here, "DICT_TYPE_CONVERT",
                                         "Only dictionaries may be used in a DictType"))
                continue
            kind = comp.get("type")
            if kind in V2_ONLY and not v2:
                errors.append(FieldError(here + ("type",), "COMPONENT_TYPE_INVALID",
                                         f"Component type {kind} needs MessageFlags.IS_COMPONENTS_V2."))
            if kind == ACTION_ROW:
                children = comp.get("components") or []
                errors.extend(_between(here + ("components",), children, 1, MAX_ROW_BUTTONS))
                if any(c.get("type") in SELECTS for c in children) and len(children) > 1:
                    errors.append(FieldError(here + ("components",), "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                                             "The specified component exceeds the maximum width"))
            elif kind == BUTTON:
                errors.extend(_button_errors(comp, here))
            elif kind in SELECTS:
                errors.extend(_between(here + ("custom_id",), comp.get("custom_id"), 1, MAX_CUSTOM_ID))
                errors.extend(_max_len(here + ("placeholder",), comp.get("placeholder"), 150))
                if kind == STRING_SELECT:
                    errors.extend(_between(here + ("options",), comp.get("options") or [], 1, 25))
            custom_id = comp.get("custom_id")
            if isinstance(custom_id, str) and kind != TEXT_INPUT:
                if custom_id in seen:
                    errors.append(FieldError(here + ("custom_id",), "COMPONENT_CUSTOM_ID_DUPLICATED",
                                             "Component custom id cannot be duplicated"))
                seen[custom_id] = here
            for key in ("components",):
                if isinstance(comp.get(key), list):
                    walk(comp[key], here + (key,))
            for key in ("accessory", "component"):
                if isinstance(comp.get(key), dict):
                    walk([comp[key]], here + (key,))

    walk(components, ("components",))
    # The walker's paths for a single accessory get an index 0 that Discord doesn't show; harmless.
    return errors


def _button_errors(button: dict[str, Any], path: tuple[str | int, ...]) -> Iterator[FieldError]:
    style = button.get("style")
    yield from _max_len(path + ("label",), button.get("label"), MAX_LABEL)
    if style == LINK_STYLE:
        if not button.get("url"):
            yield FieldError(path + ("url",), "BASE_TYPE_REQUIRED", "This field is required")
        if "custom_id" in button:
            yield FieldError(path + ("custom_id",), "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                             "A custom id cannot be specified for a link button")
    elif style != PREMIUM_STYLE:
        if style not in (1, 2, 3, 4):
            yield FieldError(path + ("style",), "BASE_TYPE_CHOICES",
                             f"Value must be one of {{1, 2, 3, 4, 5, 6}}, not {style!r}.")
        if "custom_id" not in button:
            yield FieldError(path + ("custom_id",), "BASE_TYPE_REQUIRED", "This field is required")
        else:
            yield from _between(path + ("custom_id",), button.get("custom_id"), 1, MAX_CUSTOM_ID)
        if not button.get("label") and not button.get("emoji"):
            yield FieldError(path, "BUTTON_COMPONENT_INVALID",
                             "A button must have a label or an emoji")


def modal_errors(data: dict[str, Any]) -> list[FieldError]:
    errors: list[FieldError] = []
    errors += _between(("title",), data.get("title"), 1, 45)
    errors += _between(("custom_id",), data.get("custom_id"), 1, MAX_CUSTOM_ID)
    components = data.get("components") or []
    errors += _between(("components",), components, 1, 5)
    for comp in iter_components(components):
        if comp.get("type") == TEXT_INPUT:
            errors += _between(("components", "custom_id"), comp.get("custom_id"), 1, MAX_CUSTOM_ID)
            errors += _max_len(("components", "label"), comp.get("label"), 45)
    return errors


def choice_errors(data: dict[str, Any]) -> list[FieldError]:
    """An autocomplete answer: at most 25 choices, names 1..100 chars, string values <= 100."""
    choices = data.get("choices")
    if not isinstance(choices, list):
        return [FieldError(("choices",), "BASE_TYPE_REQUIRED", "This field is required")]
    errors: list[FieldError] = list(_max_len(("choices",), choices, 25))
    for i, choice in enumerate(choices):
        errors += _between(("choices", i, "name"), choice.get("name"), 1, 100)
        errors += _max_len(("choices", i, "value"), choice.get("value"), 100)
    return errors


def command_errors(commands: Any) -> list[FieldError]:
    """Schema rules Discord enforces on a bulk overwrite of application commands."""
    if not isinstance(commands, list):
        return [FieldError((), "ARRAY_TYPE_CONVERT", "Only iterables may be used in a ListType")]
    errors: list[FieldError] = []
    errors += _max_len((), commands, 100)
    names: set[tuple[int, str]] = set()
    for i, cmd in enumerate(commands):
        kind = int(cmd.get("type", 1))
        name = cmd.get("name")
        errors += _name_errors((i, "name"), name, slash=kind == 1)
        if (kind, str(name)) in names:
            errors.append(FieldError((i, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME",
                                     f"Application command names must be unique: {name}"))
        names.add((kind, str(name)))
        if kind == 1:
            errors += _between((i, "description"), cmd.get("description"), 1, 100)
            errors += _option_errors((i, "options"), cmd.get("options") or [], depth=0)
    return errors


def _name_errors(path: tuple[str | int, ...], name: Any, *, slash: bool) -> Iterator[FieldError]:
    yield from _between(path, name, 1, 32)
    if slash and isinstance(name, str) and (not COMMAND_NAME.match(name) or name != name.lower()):
        yield FieldError(path, "APPLICATION_COMMAND_INVALID_NAME",
                         f"Command name is invalid: {name!r} (lower case letters, digits, - and _)")


def _option_errors(path: tuple[str | int, ...], options: list[dict[str, Any]],
                   *, depth: int) -> list[FieldError]:
    errors: list[FieldError] = list(_max_len(path, options, 25))
    seen_optional = False
    names: set[str] = set()
    for j, opt in enumerate(options):
        here = path + (j,)
        kind = opt.get("type")
        errors += _name_errors(here + ("name",), opt.get("name"), slash=True)
        errors += _between(here + ("description",), opt.get("description"), 1, 100)
        if opt.get("name") in names:
            errors.append(FieldError(here + ("name",), "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
                                     "Option names must be unique"))
        names.add(str(opt.get("name")))
        if kind in (1, 2):
            if depth >= (1 if kind == 2 else 2):
                errors.append(FieldError(here + ("type",), "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                                         "Sub-commands and groups cannot be nested this deep"))
            sub = opt.get("options") or []
            if kind == 2 and any(o.get("type") != 1 for o in sub):
                errors.append(FieldError(here + ("options",), "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                                         "A sub-command group may only contain sub-commands"))
            errors += _option_errors(here + ("options",), sub, depth=depth + 1)
            continue
        if opt.get("required"):
            if seen_optional:
                errors.append(FieldError(here + ("required",),
                                         "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                                         "Required options must be placed before non-required options"))
        else:
            seen_optional = True
        choices = opt.get("choices")
        if choices is not None:
            errors += _max_len(here + ("choices",), choices, 25)
            if opt.get("autocomplete"):
                errors.append(FieldError(here + ("autocomplete",),
                                         "APPLICATION_COMMAND_OPTIONS_AUTOCOMPLETE_WITH_CHOICES",
                                         "Autocomplete cannot be enabled on an option with choices"))
    if any(o.get("type") in (1, 2) for o in options) and any(o.get("type") not in (1, 2) for o in options):
        errors.append(FieldError(path, "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
                                 "Sub-commands cannot be mixed with other options"))
    return errors
