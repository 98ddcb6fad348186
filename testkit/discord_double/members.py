"""Guild members: the people a test plays, who type slash commands and click buttons."""

from __future__ import annotations

from typing import Any

from testkit.discord_double.commands import command_data
from testkit.discord_double.host import Host
from testkit.discord_double.interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    InteractionResult,
)
from testkit.discord_double.state import Message, user_payload


class Member:
    def __init__(self, double: Host, user_id: str, name: str, *, locale: str,
                 joined_at: str, permissions: str, roles: list[str] | None = None,
                 guild_id: str | None = None) -> None:
        self._double = double
        # The guilds this user is in; the first is home: where slash() types by default.
        self.guild_ids: list[str] = [guild_id or double.guild_id]
        self.id = user_id
        self.name = name
        self.locale = locale
        self.joined_at = joined_at
        self.permissions = permissions
        self.roles: list[str] = list(roles or [])
        self.user = user_payload(user_id, name)

    def __repr__(self) -> str:
        return f"<Member {self.name} id={self.id}>"

    @property
    def channel_id(self) -> str:
        """The main channel of this member's home guild, where commands go by default."""
        return self._double.guilds[self.guild_ids[0]].channel_id

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def member_payload(self, *, with_user: bool = True, with_permissions: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": list(self.roles),
            "nick": None,
            "avatar": None,
            "banner": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
            "unusual_dm_activity_until": None,
        }
        if with_user:
            data["user"] = self.user
        if with_permissions:
            data["permissions"] = self.permissions
        return data

    def messages(self, channel_id: str | None = None) -> list[Message]:
        """What this member sees in a channel: its history plus their own ephemeral messages."""
        return self._double.store.channel_history(channel_id or self.channel_id,
                                                  viewer=self.id)

    async def slash(self, path: str, channel_id: str | None = None,
                    **options: Any) -> InteractionResult:
        """Run "/path" (e.g. "caro start") with options typed from the registered schema."""
        data = command_data(self._double, path, options,
                            guild_id=self._double.guild_of_channel(channel_id or self.channel_id))
        return await self._double.interact(APPLICATION_COMMAND, self, data,
                                           channel_id=channel_id, description=f"/{path}")

    async def autocomplete(self, path: str, focused: str, channel_id: str | None = None,
                           **options: Any) -> InteractionResult:
        """Type into option `focused` of "/path" (its text in options[focused], default "").

        The bot answers with callback type 8; the suggestions are `result.data["choices"]`.
        """
        data = command_data(self._double, path, options, focused=focused,
                            guild_id=self._double.guild_of_channel(channel_id or self.channel_id))
        return await self._double.interact(AUTOCOMPLETE, self, data, channel_id=channel_id,
                                           description=f"/{path} {focused}=")

    async def click(self, message: Message, target: str) -> InteractionResult:
        """Click the button matched by custom_id, a ":target" suffix, or its label."""
        self._check_can_see(message)
        button = message.button(target)
        if button.get("disabled"):
            raise AssertionError(f"button {target!r} on message {message.id} is disabled: "
                                 "a Discord client cannot click it")
        if "custom_id" not in button:
            raise AssertionError(f"button {target!r} is a link/premium button: clicking it "
                                 "sends no interaction")
        return await self.click_custom_id(message, str(button["custom_id"]))

    async def click_custom_id(self, message: Message, custom_id: str, *,
                              interaction_id: str | None = None) -> InteractionResult:
        """Send a component interaction with any custom_id (a forged click, if not on the message).

        `interaction_id` (from `double.ids.next()`) lets a test take ids in one order and send
        the clicks in another, like clicks that reach the bot out of order.
        """
        self._check_can_see(message)
        data = {"custom_id": custom_id, "component_type": 2}
        return await self._double.interact(MESSAGE_COMPONENT, self, data,
                                           channel_id=message.channel_id, message=message,
                                           description=repr(custom_id),
                                           interaction_id=interaction_id)

    async def submit_modal(self, message: Message | None, custom_id: str,
                           values: dict[str, Any]) -> InteractionResult:
        """Submit a modal: `values` maps each text input's custom_id to what the member typed."""
        if message is not None:
            self._check_can_see(message)
        components = modal_submission(self._double.opened_modal(self.id, custom_id), values)
        data = {"custom_id": custom_id, "components": components}
        return await self._double.interact(
            MODAL_SUBMIT, self, data,
            channel_id=message.channel_id if message is not None else None,
            message=message, description=repr(custom_id),
        )

    def _check_can_see(self, message: Message) -> None:
        if message.deleted:
            raise AssertionError(f"message {message.id} was deleted: nobody can click on it")
        if message.visible_to is not None and message.visible_to != self.id:
            raise AssertionError(f"{self.name} cannot see message {message.id}: it is ephemeral "
                                 "for someone else")


def _submitted(field: dict[str, Any], value: Any, ident: int) -> dict[str, Any]:
    kind = field.get("type", 4)
    if kind == 4:
        return {"type": 4, "id": ident, "custom_id": field["custom_id"], "value": str(value)}
    values = list(value) if isinstance(value, list | tuple) else [str(value)]
    return {"type": kind, "id": ident, "custom_id": field["custom_id"], "values": values}


def modal_submission(modal: dict[str, Any] | None, values: dict[str, Any]) -> list[dict[str, Any]]:
    """The `components` of a modal submit, laid out like the modal the bot opened.

    Text inputs carry `value`, selects carry `values` (give a list); fields the modal does not
    have (forged input) are sent in classic action rows.
    """
    out: list[dict[str, Any]] = []
    remaining = dict(values)
    for index, top in enumerate((modal or {}).get("components") or []):
        if top.get("type") == 18:
            field = top.get("component") or {}
            if field.get("custom_id") in remaining:
                inner = _submitted(field, remaining.pop(field["custom_id"]), index * 2 + 2)
                out.append({"type": 18, "id": index * 2 + 1, "component": inner})
        elif top.get("type") == 1:
            field = (top.get("components") or [{}])[0]
            if field.get("custom_id") in remaining:
                inner = _submitted(field, remaining.pop(field["custom_id"]), index * 2 + 2)
                out.append({"type": 1, "id": index * 2 + 1, "components": [inner]})
    for field_id, value in remaining.items():
        ident = 100 + len(out) * 2
        inner = _submitted({"type": 4, "custom_id": field_id}, value, ident + 1)
        out.append({"type": 1, "id": ident, "components": [inner]})
    return out
