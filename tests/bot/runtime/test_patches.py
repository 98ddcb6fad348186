"""bot/runtime/patches.py and the fast drawing of bot/ui/drawing.py lean on discord.py internals
where no public way exists. These tests run them against the installed discord.py: if an upgrade
moves an internal, they fail here, loudly, instead of the patch silently doing nothing."""

from __future__ import annotations

from typing import Any

import discord
import pytest
import yarl

from bot.runtime import patches
from bot.ui.drawing import DrawnLayout, DrawnView
from bot.ui.payloads import button_payload, gallery_payload, row_payload, text_payload


def test_the_rest_base_and_gateway_can_be_pointed_elsewhere() -> None:
    base, gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    assert isinstance(base, str) and base.endswith("/api/v10")
    assert isinstance(gateway, yarl.URL)
    try:
        patches.point_at("http://127.0.0.1:9/api/v10", "ws://127.0.0.1:9/")
        route = discord.http.Route("GET", "/users/@me")
        assert route.url == "http://127.0.0.1:9/api/v10/users/@me"
        assert yarl.URL("ws://127.0.0.1:9/") == discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        patches.point_at(None, None)  # None keeps what is set
        assert discord.http.Route.BASE == "http://127.0.0.1:9/api/v10"
    finally:
        discord.http.Route.BASE = base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway


def test_discord_py_sends_enforce_nonce_with_every_nonce_the_outbox_gives() -> None:
    # The outbox (bot/cogs/outbox.py) relies on this with no patch of its own: Messageable.send
    # has `nonce` and no `enforce_nonce`, and discord.py adds enforce_nonce to every nonce. If an
    # upgrade stops doing so, a retry after a lost answer would post twice: this test fails first.
    params = discord.http.handle_message_parameters(content="final", nonce="caro0123456789abcdef0")
    assert params.payload is not None
    assert params.payload["nonce"] == "caro0123456789abcdef0"
    assert params.payload["enforce_nonce"] is True
    assert "nonce" in discord.abc.Messageable.send.__kwdefaults__


def test_a_repeated_interaction_reaches_discord_py_once() -> None:
    client = discord.Client(intents=discord.Intents.none())
    parsers: dict[str, Any] = client._connection.parsers
    assert "INTERACTION_CREATE" in parsers, "discord.py no longer parses events via .parsers"
    seen: list[str] = []
    parsers["INTERACTION_CREATE"] = lambda data: seen.append(data["id"])
    patches.filter_repeated_interactions(client, patches.RepeatFilter(size=2))
    for interaction_id in ["1", "1", "2", "1", "3", "1"]:
        client._connection.parsers["INTERACTION_CREATE"]({"id": interaction_id})
    # "1" is forgotten after two newer ids: repeats come within seconds, not thousands later.
    assert seen == ["1", "2", "3", "1"]


def test_the_ready_timer_is_where_the_patch_cancels_it() -> None:
    client = discord.Client(intents=discord.Intents.none())
    assert hasattr(client._connection, "_ready_task"), "discord.py renamed its READY timer"
    patches.cancel_ready_timer(client)  # no timer yet: nothing to do, no error


def test_a_choice_known_only_at_start_is_added_to_a_cog_command() -> None:
    from discord import app_commands
    from discord.ext import commands

    class Levels(commands.Cog):
        @app_commands.command(name="start", description="start")
        @app_commands.choices(
            level=[app_commands.Choice(name="easy", value="easy"),
                   app_commands.Choice(name="adaptive", value="adaptive")]
        )
        async def start(self, interaction: discord.Interaction[Any], level: str) -> None:
            pass

    first, second = Levels(), Levels()
    command = first.get_app_commands()[0]
    assert isinstance(command, app_commands.Command)
    extra = app_commands.Choice(name="Embryo", value="external")
    patches.add_choice(command, "level", extra, before="adaptive")
    parameter = command.get_parameter("level")
    assert parameter is not None
    assert [c.value for c in parameter.choices] == ["easy", "external", "adaptive"]
    sent = command.to_dict(app_commands.CommandTree(discord.Client(intents=discord.Intents.none())))
    assert {"name": "Embryo", "value": "external"} in sent["options"][0]["choices"]
    # Another instance of the cog (and the class's command) keeps the decorator's choices.
    other = second.get_app_commands()[0]
    assert isinstance(other, app_commands.Command)
    untouched = other.get_parameter("level")
    assert untouched is not None and [c.value for c in untouched.choices] == ["easy", "adaptive"]


@pytest.mark.parametrize("style", list(discord.ButtonStyle)[:4])
@pytest.mark.parametrize("label", ["\u200b", "X", "Đầu hàng", "\u2b05"])
@pytest.mark.parametrize("disabled", [False, True])
def test_drawn_payloads_are_what_discord_ui_sends(
    style: discord.ButtonStyle, label: str, disabled: bool
) -> None:
    """A drawing's payloads are made without discord.ui; if discord.py changes what its items
    send (a new key, another spelling), this fails instead of boards drifting from it."""
    ui = discord.ui.Button[Any](custom_id="caro:m:7:3:B2", label=label, style=style,
                                disabled=disabled)
    drawn = button_payload(custom_id="caro:m:7:3:B2", label=label, style=style, disabled=disabled)
    assert drawn == ui.to_component_dict()
    assert row_payload([drawn]) == discord.ui.ActionRow[Any](ui).to_component_dict()
    plain = discord.ui.View(timeout=None)
    plain.add_item(ui)
    assert DrawnView([row_payload([drawn])]).to_components() == plain.to_components()


def test_drawn_text_and_picture_are_what_discord_ui_sends() -> None:
    text = "**5x5, four in a row**\nYour turn"
    assert text_payload(text) == discord.ui.TextDisplay[Any](text).to_component_dict()
    url = "attachment://board.png"
    gallery = discord.ui.MediaGallery[Any](discord.MediaGalleryItem(url))
    assert gallery_payload(url) == gallery.to_component_dict()


async def test_discord_py_sends_a_drawing_as_given_and_keeps_none() -> None:
    """discord.py takes a message's components only from the view's to_components() and its V2
    flag from has_components_v2(), in every call that sends or edits a board, and keeps no view
    that is finished, as a drawing is, nor a finished modal, as the "type a move" form is (their
    clicks and submissions go to the bot's router alone). If an upgrade changes that, a board
    would lose its buttons, or be kept per message, or a click be answered twice."""
    import inspect

    row = row_payload([button_payload(custom_id="caro:m:1:0:A1", label="x",
                                      style=discord.ButtonStyle.secondary, disabled=False)])
    layout = DrawnLayout([text_payload("board"), row])
    with discord.http.handle_message_parameters(view=layout) as params:
        assert params.payload["components"] == [text_payload("board"), row]
        assert params.payload["flags"] == discord.MessageFlags(components_v2=True).value
    with discord.http.handle_message_parameters(content="board", view=DrawnView([row])) as params:
        assert params.payload["components"] == [row] and "flags" not in params.payload
    params = discord.webhook.async_.interaction_message_response_params(
        type=7, view=layout)
    assert params.payload["data"]["components"] == [text_payload("board"), row]
    assert params.payload["data"]["flags"] == discord.MessageFlags(components_v2=True).value
    for drawing in (layout, DrawnView([row])):
        assert drawing.is_finished() and not drawing.children
    for builder in (discord.http.handle_message_parameters,
                    discord.webhook.async_.interaction_message_response_params):
        source = inspect.getsource(builder)
        assert "view.to_components()" in source and "view.has_components_v2()" in source
    senders = [
        discord.InteractionResponse.send_message,
        discord.InteractionResponse.edit_message,
        discord.Interaction.edit_original_response,
        discord.PartialMessage.edit,
        discord.Message.edit,
        discord.abc.Messageable.send,
        discord.Webhook.send,
        discord.Webhook.edit_message,
        discord.InteractionResponse.send_modal,
    ]
    for sender in senders:
        source = inspect.getsource(sender)
        assert "store_view" in source and "is_finished()" in source, sender.__qualname__


def _callback_payload(resource: dict[str, Any] | None) -> dict[str, Any]:
    """What Discord answers an interaction response sent with_response (its documented
    "interaction callback response" object), as the double answers it."""
    interaction: dict[str, Any] = {"id": "501", "type": 3, "response_message_id": "601",
                                   "response_message_loading": False,
                                   "response_message_ephemeral": False}
    payload: dict[str, Any] = {"interaction": interaction}
    if resource is not None:
        payload["resource"] = resource
    return payload


def _board_message() -> dict[str, Any]:
    cells = [button_payload(custom_id=f"caro:m:7:3:{c}{r}", label="\u200b",
                            style=discord.ButtonStyle.secondary, disabled=False)
             for r in range(1, 4) for c in "ABC"]
    return {
        "id": "601", "channel_id": "301", "type": 0, "content": "your turn", "tts": False,
        "author": {"id": "9", "username": "caro", "discriminator": "0", "avatar": None,
                   "bot": True},
        "timestamp": "2026-11-26T00:00:00+00:00", "edited_timestamp": None,
        "mention_everyone": False, "mentions": [], "mention_roles": [], "attachments": [],
        "embeds": [], "pinned": False, "flags": 0,
        "components": [row_payload(cells[i:i + 3]) for i in range(0, 9, 3)],
    }


@pytest.mark.parametrize("resource", [
    {"type": 7, "message": _board_message()},
    {"type": 4, "message": _board_message()},
    {"type": 12, "activity_instance": {"id": "i-1"}},
    None,
], ids=["edit", "send", "activity", "none"])
def test_a_response_reads_as_discord_py_made_it_and_builds_its_message_when_read(
    resource: dict[str, Any] | None,
) -> None:
    """LazyCallbackResponse, from the same payload, says what discord.py's own class says; the
    message is built on first reading only, once."""
    import types

    client = discord.Client(intents=discord.Intents.none())
    parent: Any = types.SimpleNamespace(channel=client.get_partial_messageable(301))
    state = client._connection
    kind = discord.InteractionResponseType.message_update
    eager = discord.InteractionCallbackResponse(
        data=_callback_payload(resource), parent=parent, state=state, type=kind)
    lazy = patches.LazyCallbackResponse(
        data=_callback_payload(resource), parent=parent, state=state, type=kind)
    for name in ("id", "type", "message_id", "activity_id"):
        assert getattr(lazy, name) == getattr(eager, name), name
    assert (lazy.is_thinking(), lazy.is_ephemeral()) == (eager.is_thinking(), eager.is_ephemeral())
    if resource is not None and "message" in resource:
        assert lazy._message_payload is not None, "the message was built before it was read"
    first = lazy.resource
    assert type(first) is type(eager.resource)
    assert lazy.resource is first
    if isinstance(eager.resource, discord.InteractionMessage):
        assert isinstance(first, discord.InteractionMessage)
        assert (first.id, first.content, first.channel.id) == (
            eager.resource.id, eager.resource.content, eager.resource.channel.id)
        assert [c.to_dict() for c in first.components] == [
            c.to_dict() for c in eager.resource.components]
        assert len(first.components) == 3
        assert first._state._interaction is parent and first._state._parent is state
    elif eager.resource is not None:
        assert first.id == eager.resource.id


def test_discord_py_makes_every_response_through_the_name_the_patch_replaces() -> None:
    """discord.py's response methods must look the class up in the interactions module at call
    time, and its _update must still build the message from resource["message"]; otherwise the
    lazy class is never used, or builds what discord.py no longer does."""
    import inspect

    original = discord.InteractionCallbackResponse
    try:
        patches.build_response_messages_lazily()
        assert discord.interactions.InteractionCallbackResponse is (
            patches.LazyCallbackResponse)
        for name in ("send_message", "edit_message", "defer", "send_modal"):
            source = inspect.getsource(getattr(discord.InteractionResponse, name))
            assert "InteractionCallbackResponse(" in source, name
        update = inspect.getsource(original._update)
        assert "resource.get('message')" in update and "InteractionMessage(" in update
        assert "_InteractionMessageState(self._parent, self._state)" in update
        assert "resource" in original.__slots__
    finally:
        discord.interactions.InteractionCallbackResponse = original  # type: ignore[misc]
