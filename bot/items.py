"""The base of every board and challenge button, and what all of them share.

Each action (a cell, resign, hint, rematch, pan, type-a-move, stop, accept, decline) is one
`discord.ui.DynamicItem` class, kept in the cog of its feature, with a typed template: its fields
are parsed once, in `from_custom_id`, and the item checks its own preconditions. A click is
understood from its custom_id alone, so boards keep working after a restart with no view kept
in memory. The drawing (render.py) asks the class registered for an action to make its button;
it never imports a cog, so no module imports one that imports it back.
"""

from __future__ import annotations

import enum
import logging
import re
from collections.abc import Callable
from typing import Any, ClassVar, Self

import discord

from .discord_patches import Payload, button_payload

log = logging.getLogger("caro.bot")

EMPTY_LABEL = "\u200b"  # zero-width space: Discord needs a label, an empty cell shows none
MODAL_FIELD = "cell"  # custom_id of the text input of the "type a move" form

# Shared pieces of the templates: ids without leading zeros (one spelling per id), a ply of at
# most 3 digits (26x26 = 676 moves).
ID = r"[1-9][0-9]{0,17}"
PLY = r"0|[1-9][0-9]{0,2}"


class Action(enum.Enum):
    CELL = "m"
    RESIGN = "r"
    HINT = "h"
    REMATCH = "rm"
    TYPE_MOVE = "t"
    PAN = "p"
    STOP = "s"
    ACCEPT = "ca"
    DECLINE = "cd"
    REPLAY_STEP = "rs"
    REPLAY = "ro"
    EXPORT = "ex"
    REVIEW = "rv"
    HISTORY_PAGE = "hp"


# Matches no custom_id: only the subclasses, with their own templates, are registered.
_NO_ID = re.compile(r"(?!)")
_REGISTRY: dict[Action, type[CaroButton]] = {}


class CaroButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=_NO_ID):
    """A button rebuilt from its custom_id alone, which is all a click after a restart brings.

    Subclasses set `action`, a `template` (class keyword), parse their fields in
    `from_custom_id` and build their id in `custom_id_for`.
    """

    action: ClassVar[Action]
    pattern: ClassVar[re.Pattern[str]] = _NO_ID
    # Clicks the bot routes itself (dispatch_click) instead of registering the class with
    # discord.py: for every click on a registered DynamicItem, discord.py rebuilds a View of all
    # the clicked message's components to find the item (a board's 27: 7% of the bot's CPU per
    # click in bench/load.py). Only for buttons drawn as payloads (DrawnView, DrawnLayout), which
    # discord.py never stores: a stored view registers its DynamicItems with discord.py again,
    # which would route their clicks twice.
    routed_by_bot: ClassVar[bool] = False

    def __init_subclass__(cls, *, template: str | re.Pattern[str], **kwargs: Any) -> None:
        super().__init_subclass__(template=template, **kwargs)
        cls.pattern = re.compile(template) if isinstance(template, str) else template
        action = cls.__dict__.get("action")
        if isinstance(action, Action):
            _REGISTRY[action] = cls

    def __init__(
        self,
        custom_id: str,
        *,
        label: str = EMPTY_LABEL,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(custom_id=custom_id, label=label, style=style, disabled=disabled)
        )

    @classmethod
    def build(cls, **fields: Any) -> Self:
        """A button for these fields (label, style and disabled among them)."""
        raise NotImplementedError(f"{cls.__name__} cannot be drawn")

    @classmethod
    async def answer_click(
        cls, interaction: discord.Interaction[Any], custom_id: str, match: re.Match[str]
    ) -> None:
        """Answer a click dispatch_click routes here: the item, rebuilt from its id, answers."""
        base = discord.ui.Button[Any](custom_id=custom_id)
        item = await cls.from_custom_id(interaction, base, match)
        await item.callback(interaction)

    @classmethod
    def drawn(cls, **fields: Any) -> Payload:
        """The payload of the button `build` makes, for a drawing (DrawnView, DrawnLayout): the
        click comes back to this class, which the bot registers at start-up, from the id alone.
        Subclasses drawn many times a message (the cells) make it without building the item."""
        button = cls.build(**fields).item
        assert button.custom_id is not None and button.label is not None
        return button_payload(custom_id=button.custom_id, label=button.label,
                              style=button.style, disabled=button.disabled)


class GameButton(CaroButton, template=r"(?!)"):
    """A button whose custom_id is `caro:<action>:<game id>`: it knows its game and nothing else.
    Subclasses set `action` and a template with a `game` group."""

    def __init__(self, game: int, **style: Any) -> None:
        super().__init__(f"caro:{self.action.value}:{game}", **style)
        self.game = game

    @classmethod
    def build(cls, **fields: Any) -> Self:
        return cls(fields.pop("game"), **fields)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(int(match["game"]))


def _button_class(action: Action) -> type[CaroButton]:
    """The class the feature cog registered for `action`."""
    try:
        return _REGISTRY[action]
    except KeyError:
        raise LookupError(
            f"no button class for {action}: import bot.cogs (the feature cogs) first"
        ) from None


def make_button(action: Action, /, **fields: Any) -> discord.ui.Item[Any]:
    """The button of `action` for these fields, made by the class the feature cog registered."""
    return _button_class(action).build(**fields)


def drawn_button(action: Action, /, **fields: Any) -> Payload:
    """The payload of make_button's button (see CaroButton.drawn), for a drawing."""
    return drawer(action)(**fields)


def drawer(action: Action) -> Callable[..., Payload]:
    """drawn_button for one action, looked up once (a board draws 25 cells at a time)."""
    return _button_class(action).drawn


def registered() -> list[type[CaroButton]]:
    return list(_REGISTRY.values())


def routed_by_discord() -> list[type[CaroButton]]:
    """The classes to register with discord.py (Client.add_dynamic_items); the others' clicks
    reach dispatch_click."""
    return [cls for cls in _REGISTRY.values() if not cls.routed_by_bot]


def message_carries(message: discord.Message | None, custom_id: str) -> bool:
    """Whether the message carries a component with this custom_id (only the bot draws
    components, so such a message is a drawing of the game or challenge the id names)."""
    if message is None:
        return False
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        stack.extend(getattr(component, "children", ()) or ())
        inner = getattr(component, "component", None)
        if inner is not None:
            stack.append(inner)
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            stack.append(accessory)
    return False


def on_its_message(
    interaction: discord.Interaction[Any], stored_message_id: int | None, custom_id: str
) -> bool:
    """Whether the click came from the stored message of its game or challenge. Before that
    message is known (the bot stopped between posting and storing it), a message carrying the
    clicked id is a drawing of it."""
    message = interaction.message
    if message is None:
        return False
    if stored_message_id is not None:
        return message.id == stored_message_id
    return message_carries(message, custom_id)


def match_item(custom_id: str) -> tuple[type[CaroButton], re.Match[str]] | None:
    for cls in _REGISTRY.values():
        match = cls.pattern.fullmatch(custom_id)
        if match is not None:
            return cls, match
    return None


async def dispatch_click(
    interaction: discord.Interaction[Any], refuse_forged: Callable[[], Any]
) -> None:
    """Answer a component click discord.py does not hand to an item: a button the bot routes
    itself (CaroButton.routed_by_bot), or one of ours whose id is not on the clicked message (an
    older drawing in the member's client, or a forgery), goes to its item, which checks the
    board and explains; anything else is refused as forged. Never left without an answer."""
    data: Any = interaction.data or {}
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str):
        await refuse_forged()
        return
    found = match_item(custom_id)
    if found is None:
        log.info("refused an unknown component click %r", custom_id[:100])
        await refuse_forged()
        return
    cls, match = found
    if not cls.routed_by_bot and message_carries(interaction.message, custom_id):
        return  # discord.py dispatched it to the item already
    await cls.answer_click(interaction, custom_id, match)


__all__ = [
    "Action",
    "CaroButton",
    "EMPTY_LABEL",
    "ID",
    "MODAL_FIELD",
    "PLY",
    "dispatch_click",
    "drawn_button",
    "drawer",
    "make_button",
    "match_item",
    "message_carries",
    "on_its_message",
    "registered",
    "routed_by_discord",
]
