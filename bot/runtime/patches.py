"""The places where discord.py has no public way to do what caro needs; all but the drawing's.

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
- `LazyCallbackResponse`: discord.py asks Discord for the message each interaction response
  makes or edits (`with_response`) and builds a whole Message of it at once, a board's 27
  buttons included: a sizeable share of a click's CPU, for an object the bot never reads (it
  reads `message_id`). Installed in discord.py's interactions module by
  `build_response_messages_lazily`, its `resource` is built when first read. Speed only: the
  wiring installs it only under CARO_FAST_DRAWING (the default).
- `add_choice`: a choice known only at start (the operator's external engine level); choices
  are otherwise fixed by a decorator when the cog's class is defined.

One more touch lives in the UI layer, beside its plain fallback: bot.ui.drawing, where boards are
sent as ready-made component payloads (also speed only, also under CARO_FAST_DRAWING).

tests/bot/runtime/test_patches.py checks each of these against the installed discord.py, so an
upgrade that moves the internals fails there, loudly, instead of silently turning a patch off.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import discord
import yarl

from bot.game.model import shard_of_guild
from bot.runtime.logs import current_shard

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
