"""How a drawing's components (bot.ui.payloads) reach discord.py: the one place that decides.

discord.py sends a message's components only from a view. Two ways to make that view, chosen
once at start by the wiring from CARO_FAST_DRAWING (`use_fast`):

- fast (the default): a view that hands discord.py the payloads as they are, by overriding
  `to_components()` (discord.py offers no public way to send ready-made components). A board's
  27 buttons built as discord.ui items are the largest single cost of a click: each Button
  builds and copies a model object, a plain dict does not.
- plain: a real discord.ui View or LayoutView of Button, ActionRow, TextDisplay and
  MediaGallery items with the same fields, which discord.py turns into the same payloads. Slower,
  but it leans on no discord.py internal: the way out if an upgrade breaks the fast one.

Either way the view is stopped when made: discord.py keeps no finished view when it sends or
edits a message, so a click reaches the bot's router (bot.ui.buttons.Router) from its custom_id
alone, as after a restart. (Outside an event loop a view cannot be stopped; such a drawing is
never sent.) tests/bot/runtime/test_patches.py checks the fast views against discord.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

import discord

from bot.ui.payloads import ACTION_ROW, TEXT_DISPLAY, ButtonPayload, Payload, RowPayload

_fast = True


def use_fast(fast: bool) -> None:
    """Draw the fast way or the plain way from now on (the wiring calls it once, at start)."""
    global _fast
    _fast = fast


def fast() -> bool:
    return _fast


def view(rows: Sequence[RowPayload]) -> discord.ui.View:
    """A plain message's components: these action rows."""
    if _fast:
        return DrawnView(rows)
    drawn = discord.ui.View(timeout=None)
    for number, row in enumerate(rows):
        for button in row["components"]:
            drawn.add_item(_button(button, row=number))
    drawn.stop()
    return drawn


def layout(components: Sequence[Payload]) -> discord.ui.LayoutView:
    """A Components V2 message's components: text, a picture, action rows."""
    if _fast:
        return DrawnLayout(components)
    drawn = discord.ui.LayoutView(timeout=None)
    for component in components:
        drawn.add_item(_item(component))
    drawn.stop()
    return drawn


def _button(payload: ButtonPayload, row: int | None = None) -> discord.ui.Button[Any]:
    return discord.ui.Button(
        custom_id=payload["custom_id"],
        label=payload["label"],
        style=discord.ButtonStyle(payload["style"]),
        disabled=payload["disabled"],
        row=row,
    )


def _item(payload: Payload) -> discord.ui.Item[Any]:
    if payload["type"] == ACTION_ROW:
        return discord.ui.ActionRow(*(_button(button) for button in payload["components"]))
    if payload["type"] == TEXT_DISPLAY:
        return discord.ui.TextDisplay(payload["content"])
    return discord.ui.MediaGallery(*(
        discord.MediaGalleryItem(item["media"]["url"], spoiler=item["spoiler"])
        for item in payload["items"]
    ))


class _Drawing:
    """What DrawnView and DrawnLayout share: components given as payloads, sent as given. Made
    stopped: discord.py keeps no finished view."""

    _v2: ClassVar[bool]

    def __init__(self, payloads: Sequence[Payload]) -> None:
        # Cooperative: the next class in the MRO is discord.py's View or LayoutView.
        super().__init__(timeout=None)  # type: ignore[call-arg]
        # discord.py types components as plain dicts; these are exactly such dicts.
        self._payloads = cast(list[dict[str, Any]], list(payloads))
        self.stop()  # type: ignore[attr-defined]

    def to_components(self) -> list[dict[str, Any]]:
        return self._payloads

    def has_components_v2(self) -> bool:
        return self._v2


class DrawnView(_Drawing, discord.ui.View):
    """A plain message's components (action rows), given as payloads."""

    _v2 = False


class DrawnLayout(_Drawing, discord.ui.LayoutView):
    """A Components V2 message's components (text, gallery, action rows), given as payloads."""

    _v2 = True
