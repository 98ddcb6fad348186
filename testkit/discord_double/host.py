"""The double as its parts see it. `DiscordDouble` (server.py) builds the gateway (gateway.py), the
REST API (rest.py) and the members (members.py), and hands itself to them and to the slash-command
builder (commands.py); they are typed against `Host`, what they use of it, and `Person`, what
they use of a member. So none of them imports the server, and the server imports them all: the
double has no import cycle."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from testkit.discord_double.interactions import Interaction, InteractionResult
from testkit.discord_double.state import (
    Guild,
    Message,
    MessageStore,
    RecordedRequest,
    Snowflakes,
    StallClock,
)


@runtime_checkable
class Person(Protocol):
    """A guild member the double plays (members.Member)."""

    id: str
    name: str
    locale: str
    permissions: str
    # The guilds this user is in; the first is home.
    guild_ids: list[str]
    user: dict[str, Any]

    @property
    def channel_id(self) -> str: ...

    def member_payload(self, *, with_user: bool = True,
                       with_permissions: bool = False) -> dict[str, Any]: ...


class Host(Protocol):
    """What the gateway, the REST API, the members and the command builder use of the double."""

    token: str
    bot_user: dict[str, Any]
    owner: dict[str, Any]
    application_id: str
    application_flags: int
    app_permissions: str
    strict_choices: bool
    port: int
    ids: Snowflakes
    store: MessageStore
    clock: StallClock
    requests: list[RecordedRequest]
    response_deadline: float
    token_lifetime: float
    bot_ready: bool
    commands: dict[str | None, list[dict[str, Any]]]
    command_puts: int
    interactions: dict[str, Interaction]
    interactions_by_token: dict[str, Interaction]
    max_guilds_per_shard: int
    guild_id: str
    guilds: dict[str, Guild]
    guild_ids: list[str]
    channels: dict[str, dict[str, Any]]

    @property
    def members(self) -> Mapping[str, Person]: ...

    @property
    def gateway_url(self) -> str: ...

    @property
    def recommended_shards(self) -> int: ...

    def violate(self, text: str) -> None: ...

    def shard_of(self, guild_id: str, num_shards: int) -> int: ...

    def guild_of_channel(self, channel_id: str) -> str: ...

    def guild_payload(self, guild_id: str | None = None) -> dict[str, Any]: ...

    def guild_create_payload(self, guild_id: str | None = None) -> dict[str, Any]: ...

    def guild_channels(self, guild_id: str | None = None) -> list[dict[str, Any]]: ...

    def bot_member_payload(self, guild_id: str | None = None) -> dict[str, Any]: ...

    def all_member_payloads(self, guild_id: str | None = None) -> list[dict[str, Any]]: ...

    def opened_modal(self, user_id: str, custom_id: str) -> dict[str, Any] | None: ...

    def remember_modal(self, user_id: str, modal: dict[str, Any]) -> None: ...

    def message_by_nonce(self, author_id: str, nonce: str) -> Message | None: ...

    def remember_nonce(self, author_id: str, nonce: str, message: Message) -> None: ...

    def new_message(self, channel_id: str, data: dict[str, Any], *,
                    attachments: list[dict[str, Any]], files: dict[str, bytes],
                    visible_to: str | None = None, msg_type: int = ...,
                    interaction: Interaction | None = None, extra_flags: int = 0) -> Message: ...

    def edit_message(self, message: Message, data: dict[str, Any], *,
                     attachments: list[dict[str, Any]] | None, files: dict[str, bytes]) -> None: ...

    def delete_message(self, message: Message) -> None: ...

    def is_component_message_interaction(self, inter: Interaction) -> bool: ...

    async def interact(self, kind: int, member: Person, data: dict[str, Any], *,
                       channel_id: str | None, description: str,
                       message: Message | None = None,
                       interaction_id: str | None = None) -> InteractionResult: ...
