"""The message components the bot draws, as the plain payloads Discord's API documents
(https://discord.com/developers/docs/components/reference): buttons, action rows, a text display
and a media gallery. Each builder makes exactly what the discord.ui item of the same fields sends
(tests/bot/runtime/test_patches.py checks it against the installed discord.py). bot.ui.drawing
sends them as they are, or as discord.ui items."""

from __future__ import annotations

from typing import Final, Literal, TypedDict

import discord

ACTION_ROW: Final = 1
BUTTON: Final = 2
TEXT_DISPLAY: Final = 10
MEDIA_GALLERY: Final = 12


class ButtonPayload(TypedDict):
    """A button with a custom_id (Discord's "button" component)."""

    type: Literal[2]
    style: int
    disabled: bool
    label: str
    custom_id: str


class RowPayload(TypedDict):
    """An action row of buttons."""

    type: Literal[1]
    components: list[ButtonPayload]


class TextPayload(TypedDict):
    """A text display (Components V2): markdown text."""

    type: Literal[10]
    content: str


class MediaPayload(TypedDict):
    url: str


class GalleryItemPayload(TypedDict):
    media: MediaPayload
    spoiler: bool


class GalleryPayload(TypedDict):
    """A media gallery (Components V2): here, one picture."""

    type: Literal[12]
    items: list[GalleryItemPayload]


# A component at the top of a message: rows in a plain message, any of these in a V2 layout.
Payload = RowPayload | TextPayload | GalleryPayload


def button_payload(
    *, custom_id: str, label: str, style: discord.ButtonStyle, disabled: bool
) -> ButtonPayload:
    """What discord.ui.Button(custom_id=..., label=..., style=..., disabled=...) sends."""
    return {"type": BUTTON, "style": style.value, "disabled": disabled, "label": label,
            "custom_id": custom_id}


def row_payload(buttons: list[ButtonPayload]) -> RowPayload:
    """What a discord.ui.ActionRow of these buttons sends (and a View's row of them)."""
    return {"type": ACTION_ROW, "components": buttons}


def text_payload(content: str) -> TextPayload:
    """What discord.ui.TextDisplay(content) sends."""
    return {"type": TEXT_DISPLAY, "content": content}


def gallery_payload(url: str) -> GalleryPayload:
    """What discord.ui.MediaGallery(discord.MediaGalleryItem(url)) sends."""
    return {"type": MEDIA_GALLERY, "items": [{"media": {"url": url}, "spoiler": False}]}
