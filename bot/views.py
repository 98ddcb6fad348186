"""The board's cell buttons as DynamicItems: a click is understood from its custom_id alone, so
boards keep working after a restart without any view kept in memory."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, Self, cast

import discord

from .games import CUSTOM_ID

if TYPE_CHECKING:
    from .window import Window

EMPTY_LABEL = "\u200b"  # zero-width space: Discord needs a label, an empty cell shows none
MODAL_FIELD = "cell"  # custom_id of the text input of the "type a move" form

# caro:<action>:<id>[:<ply>][:<window>:<direction>]. Actions: r resign, h hint, rm rematch,
# t open the "type a move" form, tm that form's submission, s stop an AI-vs-AI game (any
# drawing of it: stopping needs no position), ca / cd accept / decline a
# challenge (id = challenge id), p pan the window (the window travels in the id, so a pan needs
# no stored state and survives a restart).
CONTROL_ID = re.compile(
    r"caro:(?P<action>r|h|rm|t|tm|ca|cd|p|s):(?P<id>[1-9][0-9]{0,17})"
    r"(?::(?P<ply>0|[1-9][0-9]{0,2}))?"
    r"(?::(?P<window>w[0-9]{1,2}\.[0-9]{1,2}(?:\.[1-5]x[1-5])?):(?P<direction>up|down|left|right))?"
)
_NEEDS_PLY = {"r", "h", "rm", "t", "tm", "p"}


@dataclass(frozen=True, slots=True)
class ControlRef:
    action: str
    target: int  # a game id, or a challenge id for ca / cd
    ply: int | None
    window: str | None
    direction: str | None


def control_id(action: str, target: int, ply: int | None = None) -> str:
    return f"caro:{action}:{target}" if ply is None else f"caro:{action}:{target}:{ply}"


def pan_id(game_id: int, ply: int, window: Window, direction: str) -> str:
    return f"caro:p:{game_id}:{ply}:{window.encode()}:{direction}"


def parse_control_id(text: str) -> ControlRef | None:
    match = CONTROL_ID.fullmatch(text)
    if match is None:
        return None
    action, ply = match["action"], match["ply"]
    if (action in _NEEDS_PLY) != (ply is not None) or (action == "p") != bool(match["window"]):
        return None
    return ControlRef(
        action=action,
        target=int(match["id"]),
        ply=None if ply is None else int(ply),
        window=match["window"],
        direction=match["direction"],
    )


class ClickHandler(Protocol):
    async def handle_click(self, interaction: discord.Interaction[Any], custom_id: str) -> None: ...

    async def handle_control(
        self, interaction: discord.Interaction[Any], ref: ControlRef
    ) -> None: ...


# Matches no custom_id: only the subclasses below, with their own templates, are registered.
_NO_ID = re.compile(r"(?!)")


class _IdButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=_NO_ID):
    """A button rebuilt from its custom_id alone, which is all a click after a restart brings."""

    def __init__(
        self,
        custom_id: str,
        *,
        label: str = EMPTY_LABEL,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                custom_id=custom_id, label=label, style=style, disabled=disabled, row=row
            ),
            row=row,
        )

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        return cls(match.string)


class CellButton(_IdButton, template=CUSTOM_ID.pattern):
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handler = cast(ClickHandler, interaction.client)
        await handler.handle_click(interaction, self.custom_id)


class ControlButton(_IdButton, template=CONTROL_ID.pattern):
    """Resign, hint, rematch, pan, type-a-move, stop and challenge answers."""

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        handler = cast(ClickHandler, interaction.client)
        ref = parse_control_id(self.custom_id)
        if ref is None:
            await handler.handle_click(interaction, self.custom_id)  # answered as forged
            return
        await handler.handle_control(interaction, ref)


def message_has_custom_id(message: discord.Message | None, custom_id: str) -> bool:
    """Whether the message carries a component with this custom_id (discord.py dispatches a
    DynamicItem only then, so other clicks need an answer from elsewhere)."""
    if message is None:
        return False
    stack: list[Any] = list(message.components)
    while stack:
        component = stack.pop()
        if getattr(component, "custom_id", None) == custom_id:
            return True
        stack.extend(getattr(component, "children", ()) or ())
    return False


def is_cell_click(custom_id: str, message: discord.Message | None) -> bool:
    return CUSTOM_ID.fullmatch(custom_id) is not None and message_has_custom_id(message, custom_id)


def is_dispatched_click(custom_id: str, message: discord.Message | None) -> bool:
    """Whether discord.py hands this click to one of the DynamicItems above."""
    known = CUSTOM_ID.fullmatch(custom_id) or CONTROL_ID.fullmatch(custom_id)
    return known is not None and message_has_custom_id(message, custom_id)
