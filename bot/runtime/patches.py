"""The few places where discord.py has no public way to do what caro needs; all of them here.

- `point_at`: another REST base and gateway (a proxy, or the local Discord double the tests run
  against). discord.py reads both from class attributes and offers no setting for them.
- `filter_repeated_interactions`: Discord may deliver one INTERACTION_CREATE twice (a replayed
  gateway event); answering it again fails with 40060. Filtering where discord.py parses the
  event covers commands, buttons and modals alike, whichever handler they would reach. The same
  place marks the interaction's shard for the log (logging_setup.current_shard): every task
  discord.py starts for it (command, button, modal, on_interaction) is created there and copies
  the mark.
- `recommended_shard_count`: the shard count Discord recommends (GET /gateway/bot). An
  AutoShardedClient without a count asks for it itself, but then connects to the gateway URL that
  answer names, ignoring DISCORD_GATEWAY_URL; asking first and setting the count keeps the
  override.
- `cancel_ready_timer`: discord.py leaves its READY delay timer running on close; if it fires
  after the loop is gone it dies with a traceback (a stop within ~2 s of connecting).
- `DrawnView` / `DrawnLayout` and the payload builders: a board is sent as ready-made component
  payloads. Built as discord.ui items, a 5x5 board's 27 buttons were the largest single cost of
  a click (each Button builds and copies a model object); as plain dicts it is a fraction.
  discord.py takes a message's components only through a view's `to_components()`, which these
  override. A drawing is stopped when made, and discord.py keeps no finished view (nor a finished
  modal) when it sends or edits a message: its clicks reach the bot's router (items.Router) from
  the custom_id alone, as after a restart (outside an event loop a view cannot be stopped; such
  a drawing is never sent).
- `LazyCallbackResponse`: discord.py asks Discord for the message each interaction response
  makes or edits (`with_response`) and builds a whole Message of it at once, a board's 27
  buttons included: a sizeable share of a click's CPU in bench/load.py, for an object the bot never
  reads (it reads `message_id`). Installed in discord.py's interactions module by
  `build_response_messages_lazily`, its `resource` is built when first read.
- `add_choice`: a choice known only at start (the operator's external engine level); choices
  are otherwise fixed by a decorator when the cog's class is defined.

tests/bot/test_discord_patches.py checks each of these against the installed discord.py, so an
upgrade that moves the internals fails there, loudly, instead of silently turning a patch off.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, ClassVar

import discord
import yarl

from bot.runtime.logs import current_shard, shard_of_guild

log = logging.getLogger("caro.bot")

SEEN_INTERACTIONS = 4096


def point_at(api_base: str | None, gateway_url: str | None) -> None:
    """Send REST calls to `api_base` (".../api/v10") and the first gateway connection to
    `gateway_url`; None keeps Discord's own."""
    if api_base:
        discord.http.Route.BASE = api_base
    if gateway_url:
        # Resumes use the URL READY announces; only the first connection needs this.
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


class RepeatFilter:
    """Remembers the latest interaction ids; `first(id)` is False for an id seen before."""

    def __init__(self, size: int = SEEN_INTERACTIONS) -> None:
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._size = size

    def first(self, interaction_id: str) -> bool:
        if interaction_id in self._seen:
            log.info("ignored a repeated delivery of interaction %s", interaction_id)
            return False
        self._seen[interaction_id] = None
        # Repeats come within seconds; a few thousand ids cover far more than that.
        if len(self._seen) > self._size:
            self._seen.popitem(last=False)
        return True


def filter_repeated_interactions(client: discord.Client, repeats: RepeatFilter) -> None:
    """Drop an INTERACTION_CREATE whose id `repeats` has seen, before discord.py parses it."""
    parsers: dict[str, Callable[[Any], None]] = client._connection.parsers
    parse_interaction = parsers["INTERACTION_CREATE"]

    def parse_once(data: Any) -> None:
        if not repeats.first(str(data.get("id"))):
            return
        guild_id = data.get("guild_id")
        shard = None
        if guild_id is not None and str(guild_id).isdigit():
            shard = shard_of_guild(int(guild_id), client.shard_count or 1)
        mark = current_shard.set(shard)
        try:
            parse_interaction(data)
        finally:
            current_shard.reset(mark)

    parsers["INTERACTION_CREATE"] = parse_once


async def recommended_shard_count(client: discord.Client) -> int:
    """How many shards Discord recommends for this bot (needs a logged-in client)."""
    count, _url, _limits = await client.http.get_bot_gateway()
    return int(count)


def cancel_ready_timer(client: discord.Client) -> None:
    ready_timer = getattr(client._connection, "_ready_task", None)
    if ready_timer is not None:
        ready_timer.cancel()


def add_choice(
    command: discord.app_commands.Command[Any, ..., Any],
    parameter: str,
    choice: discord.app_commands.Choice[str],
    *,
    before: str | None = None,
) -> None:
    """Offer `choice` for `parameter` of `command` (a cog's own copy), ahead of the choice whose
    value is `before` if there is one, else last."""
    params: dict[str, Any] = command._params
    param = params[parameter]
    offered = list(param.choices)
    values = [c.value for c in offered]
    at = values.index(before) if before in values else len(offered)
    offered.insert(at, choice)
    # A new parameter object: the cog's command shares its parameters with the class's.
    params[parameter] = dataclasses.replace(param, choices=offered)


# Component types of Discord's API (https://discord.com/developers/docs/components/reference).
ACTION_ROW, BUTTON, TEXT_DISPLAY, MEDIA_GALLERY = 1, 2, 10, 12

Payload = dict[str, Any]


def button_payload(
    *, custom_id: str, label: str, style: discord.ButtonStyle, disabled: bool
) -> Payload:
    """What discord.ui.Button(custom_id=..., label=..., style=..., disabled=...) sends."""
    return {"type": BUTTON, "style": style.value, "disabled": disabled, "label": label,
            "custom_id": custom_id}


def row_payload(buttons: list[Payload]) -> Payload:
    """What a discord.ui.ActionRow of these buttons sends (and a View's row of them)."""
    return {"type": ACTION_ROW, "components": buttons}


def text_payload(content: str) -> Payload:
    """What discord.ui.TextDisplay(content) sends."""
    return {"type": TEXT_DISPLAY, "content": content}


def gallery_payload(url: str) -> Payload:
    """What discord.ui.MediaGallery(discord.MediaGalleryItem(url)) sends."""
    return {"type": MEDIA_GALLERY, "items": [{"media": {"url": url}, "spoiler": False}]}


class _Drawing:
    """What DrawnView and DrawnLayout share: components given as payloads, sent as given. Made
    stopped: discord.py keeps no finished view."""

    _v2: ClassVar[bool]

    def __init__(self, payloads: list[Payload]) -> None:
        # Cooperative: the next class in the MRO is discord.py's View or LayoutView.
        super().__init__(timeout=None)  # type: ignore[call-arg]
        self._payloads = payloads
        self.stop()  # type: ignore[attr-defined]

    def to_components(self) -> list[Payload]:
        return self._payloads

    def has_components_v2(self) -> bool:
        return self._v2


class LazyCallbackResponse(discord.InteractionCallbackResponse[Any]):
    """discord.py's answer to an interaction response, with `resource` (the message the response
    made or edited) built on first reading instead of at once; everything else as discord.py
    sets it, from the same payload."""

    __slots__ = ("_message_payload", "_resource")

    def _update(self, data: Any) -> None:
        resource = data.get("resource")
        message = resource.get("message") if isinstance(resource, dict) else None
        self._message_payload = message
        if message is not None:
            # discord.py's own _update reads everything but the message from the rest.
            rest = {key: value for key, value in resource.items() if key != "message"}
            data = {**data, "resource": rest}
        super()._update(data)

    # A property over discord.py's slot of the same name, which its _update sets.
    @property
    def resource(self) -> Any:
        message = self._message_payload
        if message is not None:
            # What discord.py's _update makes of it.
            self._resource = discord.InteractionMessage(
                state=discord.interactions._InteractionMessageState(  # type: ignore[arg-type]
                    self._parent, self._state
                ),
                channel=self._parent.channel,  # type: ignore[arg-type]
                data=message,
            )
            self._message_payload = None
        return self._resource

    @resource.setter
    def resource(self, value: Any) -> None:
        self._resource = value


def build_response_messages_lazily() -> None:
    """Make discord.py answer interaction responses with LazyCallbackResponse: its response
    methods name the class through the interactions module's globals."""
    discord.interactions.InteractionCallbackResponse = LazyCallbackResponse  # type: ignore[misc]


class DrawnView(_Drawing, discord.ui.View):
    """A plain message's components (action rows), given as payloads."""

    _v2 = False


class DrawnLayout(_Drawing, discord.ui.LayoutView):
    """A Components V2 message's components (text, gallery, action rows), given as payloads."""

    _v2 = True
