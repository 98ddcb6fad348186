"""DiscordDouble: the fake Discord a test starts, plays members in, and inspects."""

from __future__ import annotations

import asyncio
import secrets
import socket
import time
from typing import Any

from aiohttp import web

from testkit.discord_double.gateway import GUILD_MEMBERS_INTENT, GUILD_MESSAGES_INTENT, Gateway
from testkit.discord_double.host import Person
from testkit.discord_double.interactions import (
    APPLICATION_COMMAND,
    KIND_NAMES,
    MESSAGE_COMPONENT,
    Interaction,
    InteractionFailed,
    InteractionResult,
)
from testkit.discord_double.members import Member
from testkit.discord_double.rest import Fault, Rest
from testkit.discord_double.state import (
    BOT_PERMISSIONS,
    EPHEMERAL,
    EVERYONE_PERMISSIONS,
    Guild,
    Message,
    MessageStore,
    RecordedRequest,
    Snowflakes,
    StallClock,
    iso_now,
    normalize,
    notified,
    user_payload,
)

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
# Message types Discord gives bot replies: DEFAULT, REPLY, and CHAT_INPUT_COMMAND for slash answers.
DEFAULT, REPLY, CHAT_INPUT_COMMAND = 0, 19, 20


# How long Discord keeps a nonce it enforced: "the past few minutes", in its words.
NONCE_WINDOW_S = 180.0


class DiscordDouble:
    """A local Discord: REST under /api/v10 and the gateway websocket, on 127.0.0.1."""

    def __init__(self, token: str = "test-token", *, heartbeat_interval: int = 41250,
                 response_deadline: float = 3.0, token_lifetime: float = 15 * 60) -> None:
        self.token = token
        self._tasks: set[asyncio.Task[Any]] = set()
        self.response_deadline = response_deadline
        self.token_lifetime = token_lifetime
        self.strict_choices = False
        self.ids = Snowflakes()
        bot_id = self.ids.next()
        self.bot_user = user_payload(bot_id, "caro-bot", bot=True)
        self.application_id = bot_id
        # GATEWAY_MESSAGE_CONTENT_LIMITED | APPLICATION_COMMAND_BADGE: what a fresh bot app reports.
        self.application_flags = (1 << 19) | (1 << 23)
        self.owner = user_payload(self.ids.next(), "owner")
        self.store = MessageStore()
        self.requests: list[RecordedRequest] = []
        self.violations: list[str] = []
        self.commands: dict[str | None, list[dict[str, Any]]] = {}
        self.command_puts = 0
        self.interactions: dict[str, Interaction] = {}
        # The same by token, for the webhook endpoints: a long run sends thousands.
        self.interactions_by_token: dict[str, Interaction] = {}
        self.bot_ready = False
        self.app_permissions = BOT_PERMISSIONS
        # Sharding: the count GET /gateway/bot recommends (None: one per 1,000 guilds, like
        # Discord) and the most guilds one session may hold before IDENTIFY is refused with 4011
        # (2,500 on Discord; a test lowers it).
        self.shard_count: int | None = None
        self.max_guilds_per_shard = 2500
        self.guilds: dict[str, Guild] = {}
        self.guild_ids: list[str] = []
        self.channels: dict[str, dict[str, Any]] = {}
        self.guild_id = self.add_guild("caro test server")
        first = self.guilds[self.guild_id]
        # The first guild's world under its old names: existing tests use these directly.
        self.roles = first.roles
        self.bot_role_id = first.bot_role_id
        self.channel_id = first.channel_id
        self.members: dict[str, Member] = {}
        self._bot_joined_at = iso_now()
        self._modals: dict[tuple[str, str], dict[str, Any]] = {}
        # (author id, nonce) -> when the message was made and the message, for enforce_nonce.
        self._nonces: dict[tuple[str, str], tuple[float, Message]] = {}
        self.gateway = Gateway(self, heartbeat_interval)
        self.rest = Rest(self)
        self._runner: web.AppRunner | None = None
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self.clock = StallClock()
        self.port = 0

    # ----------------------------------------------------------------- lifecycle

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/attachments/{channel}/{attachment}/{filename}", self.rest.attachment)
        app.router.add_route("*", "/{tail:.*}", self.rest.handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5, access_log=None)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        self.clock.start()

    async def stop(self) -> None:
        self.clock.stop()
        self.rest.release_held()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for inter in self.interactions.values():
            if not inter.done.is_set():
                inter.failed = True
                inter.done.set()
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> DiscordDouble:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def wait_ready(self, timeout: float = 30) -> None:
        """Until a bot session got READY and application commands were registered."""
        def ready() -> bool:
            return self.bot_ready and self.command_puts > 0

        if not await self.store.changes.wait_until(ready, timeout):
            raise AssertionError(f"bot not ready within {timeout} s (READY sent: {self.bot_ready}, "
                                 f"command registrations: {self.command_puts}); "
                                 f"violations: {self.violations}")

    def reset_ready(self) -> None:
        """Forget READY and command registration, so wait_ready waits for a restarted bot."""
        self.bot_ready = False
        self.command_puts = 0

    async def wait_connected(self, timeout: float = 30) -> None:
        """Until the bot has a live gateway connection (after a disconnect: resumed or re-identified)."""
        if not await self.store.changes.wait_until(lambda: self.gateway.connected, timeout):
            raise AssertionError(f"bot did not reconnect to the gateway within {timeout} s")

    async def disconnect_bot(self, code: int = 4000, *, resumable: bool = True,
                             shard_id: int | None = None) -> None:
        """Close the bot's gateway socket (the latest session, or that shard's); with
        resumable=False its RESUME gets INVALID_SESSION."""
        await self.gateway.disconnect(code, resumable=resumable, shard_id=shard_id)

    async def wait_shards(self, shard_ids: set[int] | list[int] | range, num_shards: int,
                          timeout: float = 30) -> None:
        """Until each of these shards (of num_shards) has a live session that got READY."""
        wanted = set(shard_ids)

        def live() -> bool:
            return wanted <= self.gateway.live_shards(num_shards)

        if not await self.store.changes.wait_until(live, timeout):
            raise AssertionError(f"shards {sorted(wanted)} of {num_shards} not all connected "
                                 f"within {timeout} s (live: "
                                 f"{sorted(self.gateway.live_shards(num_shards))}); "
                                 f"violations: {self.violations}")

    def fail_next(self, method: str, path_regex: str, status: int = 429, retry_after: float = 0.5,
                  times: int = 1, *, mode: str = "refuse", content: str | None = None) -> Fault:
        """Answer the next `times` matching REST calls (with `content`: those whose message text
        matches it) otherwise: with `status` (429 carries retry_after), as `mode` says (see
        Fault)."""
        return self.rest.fail_next(method, path_regex, status, retry_after, times, mode=mode,
                                   content=content)

    def message_by_nonce(self, author_id: str, nonce: str) -> Message | None:
        """The message `author_id` made with `nonce` within the past few minutes (enforce_nonce)."""
        found = self._nonces.get((author_id, nonce))
        if found is None or time.monotonic() - found[0] > NONCE_WINDOW_S:
            return None
        return found[1]

    def remember_nonce(self, author_id: str, nonce: str, message: Message) -> None:
        now = time.monotonic()
        if len(self._nonces) > 10_000:
            self._nonces = {k: v for k, v in self._nonces.items() if now - v[0] <= NONCE_WINDOW_S}
        self._nonces[(author_id, nonce)] = (now, message)

    def violate(self, text: str) -> None:
        self.violations.append(text)

    # ----------------------------------------------------------------- world

    @staticmethod
    def _role(role_id: str, name: str, permissions: str, *, position: int,
              tags: dict[str, Any] | None = None) -> dict[str, Any]:
        role: dict[str, Any] = {
            "id": role_id, "name": name, "description": None, "permissions": permissions,
            "position": position, "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False, "managed": tags is not None, "mentionable": False, "icon": None,
            "unicode_emoji": None, "flags": 0,
        }
        if tags is not None:
            role["tags"] = tags
        return role

    def add_role(self, name: str, *, guild_id: str | None = None, permissions: str = "0") -> str:
        """A new role of a guild (the first by default), told to the bot as Discord does with
        GUILD_ROLE_CREATE; its id. Give it to a member with `member.roles.append(id)`."""
        guild = self.guilds[guild_id or self.guild_id]
        role = self._role(self.ids.next(), name, permissions, position=len(guild.roles))
        guild.roles.append(role)
        if getattr(self, "gateway", None) is not None and self.bot_ready:
            self._spawn(self.gateway.dispatch(
                "GUILD_ROLE_CREATE", {"guild_id": guild.id, "role": role},
                guild_id=guild.id,
            ))
        return str(role["id"])

    def _guild_snowflake(self, shard: tuple[int, int] | None) -> str:
        """A fresh id; with `shard=(k, n)` one whose guild lands on shard k of n, i.e.
        (id >> 22) % n == k, by moving its timestamp back at most n - 1 ms."""
        ident = int(self.ids.next())
        if shard is not None:
            shard_id, num_shards = shard
            if not 0 <= shard_id < num_shards:
                raise ValueError(f"shard {shard_id} of {num_shards} does not exist")
            ms = ident >> 22
            ms -= (ms - shard_id) % num_shards
            ident = (ms << 22) | (ident & 0x3FFFFF)
        return str(ident)

    def add_guild(self, name: str = "another server", *, locale: str = "en-US",
                  shard: tuple[int, int] | None = None) -> str:
        """A server the bot is in, with @everyone, the bot's managed role and a "general"
        channel; `shard=(k, n)` picks an id on shard k of n. Joined live: GUILD_CREATE to the
        session of its shard. Returns the guild id (its main channel: guilds[id].channel_id)."""
        guild_id = self._guild_snowflake(shard)
        bot_role_id = self.ids.next()
        roles = [
            self._role(guild_id, "@everyone", EVERYONE_PERMISSIONS, position=0),
            self._role(bot_role_id, "caro-bot", BOT_PERMISSIONS, position=1,
                       tags={"bot_id": self.application_id}),
        ]
        guild = Guild(guild_id, name, roles, bot_role_id, locale=locale)
        self.guilds[guild_id] = guild
        self.guild_ids.append(guild_id)
        guild.channel_id = self.add_channel("general", guild_id=guild_id)
        if getattr(self, "gateway", None) is not None and self.bot_ready:
            self._spawn(self.gateway.dispatch("GUILD_CREATE", self.guild_create_payload(guild_id),
                                              guild_id=guild_id))
        return guild_id

    def shard_of(self, guild_id: str, num_shards: int) -> int:
        """The shard a guild belongs to, Discord's formula."""
        return (int(guild_id) >> 22) % num_shards

    @property
    def recommended_shards(self) -> int:
        """What GET /gateway/bot announces: the set count, else one shard per 1,000 guilds."""
        if self.shard_count is not None:
            return self.shard_count
        return max(1, -(-len(self.guild_ids) // 1000))

    def add_channel(self, name: str, *, guild_id: str | None = None) -> str:
        guild_id = guild_id or self.guild_id
        if guild_id not in self.guilds:
            raise AssertionError(f"no guild {guild_id}")
        channel_id = self.ids.next()
        self.channels[channel_id] = {
            "id": channel_id, "type": 0, "guild_id": guild_id, "name": name,
            "position": sum(1 for c in self.channels.values() if c["guild_id"] == guild_id),
            "parent_id": None, "topic": None, "nsfw": False,
            "last_message_id": None, "rate_limit_per_user": 0, "permission_overwrites": [],
            "flags": 0, "icon_emoji": None, "theme_color": None,
        }
        if getattr(self, "gateway", None) is not None and self.bot_ready:
            self._spawn(self.gateway.dispatch("CHANNEL_CREATE", dict(self.channels[channel_id]),
                                              guild_id=guild_id))
        return channel_id

    def guild_of_channel(self, channel_id: str) -> str:
        return str(self.channels[channel_id]["guild_id"])

    def add_member(self, name: str, locale: str = "en-US", *,
                   guild_id: str | None = None) -> Member:
        """A new user, member of one guild (the first by default); `join` adds more guilds."""
        guild_id = guild_id or self.guild_id
        if guild_id not in self.guilds:
            raise AssertionError(f"no guild {guild_id}")
        member = Member(self, self.ids.next(), name, locale=locale, joined_at=iso_now(),
                        permissions=EVERYONE_PERMISSIONS, guild_id=guild_id)
        self.members[member.id] = member
        self._member_added(member, guild_id)
        return member

    def join(self, member: Member, guild_id: str) -> None:
        """The same user joins another guild (one player, several servers)."""
        if guild_id not in self.guilds:
            raise AssertionError(f"no guild {guild_id}")
        if guild_id not in member.guild_ids:
            member.guild_ids.append(guild_id)
            self._member_added(member, guild_id)

    def leave(self, member: Member, guild_id: str | None = None) -> None:
        """The member leaves a guild (the first by default): GUILD_MEMBER_REMOVE, which only a
        session with the GUILD_MEMBERS intent receives; GET member answers 404 from now on."""
        guild_id = guild_id or self.guild_id
        if guild_id not in member.guild_ids:
            raise AssertionError(f"{member!r} is not a member of {guild_id}")
        member.guild_ids.remove(guild_id)
        if self.bot_ready:
            payload = {"guild_id": guild_id, "user": member.member_payload()["user"]}
            self._spawn(self.gateway.dispatch("GUILD_MEMBER_REMOVE", payload, guild_id=guild_id,
                                              intent=GUILD_MEMBERS_INTENT))

    def remove_bot(self, guild_id: str) -> None:
        """The server removes the bot (kicked, banned, or the server deleted): GUILD_DELETE
        without `unavailable` to the session of its shard; the guild is no longer in READY,
        and its REST routes answer Unknown Guild."""
        if guild_id not in self.guild_ids:
            raise AssertionError(f"the bot is not in {guild_id}")
        self.guild_ids.remove(guild_id)
        if self.bot_ready:
            self._spawn(self.gateway.dispatch("GUILD_DELETE", {"id": guild_id},
                                              guild_id=guild_id))

    def _member_added(self, member: Member, guild_id: str) -> None:
        if self.bot_ready:
            payload = member.member_payload() | {"guild_id": guild_id}
            self._spawn(self.gateway.dispatch("GUILD_MEMBER_ADD", payload, guild_id=guild_id,
                                              intent=GUILD_MEMBERS_INTENT))

    def bot_member_payload(self, guild_id: str | None = None) -> dict[str, Any]:
        guild = self.guilds[guild_id or self.guild_id]
        return {
            "user": self.bot_user, "roles": [guild.bot_role_id], "nick": None, "avatar": None,
            "banner": None, "joined_at": self._bot_joined_at, "premium_since": None,
            "deaf": False, "mute": False, "pending": False, "flags": 0,
            "communication_disabled_until": None,
        }

    def all_member_payloads(self, guild_id: str | None = None) -> list[dict[str, Any]]:
        guild_id = guild_id or self.guild_id
        return [self.bot_member_payload(guild_id)] + [
            m.member_payload() for m in self.members.values() if guild_id in m.guild_ids]

    def guild_channels(self, guild_id: str | None = None) -> list[dict[str, Any]]:
        guild_id = guild_id or self.guild_id
        return [c for c in self.channels.values() if c["guild_id"] == guild_id]

    def guild_payload(self, guild_id: str | None = None) -> dict[str, Any]:
        guild = self.guilds[guild_id or self.guild_id]
        return {
            "id": guild.id, "name": guild.name, "icon": None, "icon_hash": None,
            "splash": None, "discovery_splash": None, "banner": None, "description": None,
            "owner_id": self.owner["id"], "region": "deprecated", "afk_channel_id": None,
            "afk_timeout": 300, "verification_level": 0, "default_message_notifications": 0,
            "explicit_content_filter": 0, "roles": list(guild.roles), "emojis": [],
            "stickers": [], "features": [], "mfa_level": 0, "application_id": None,
            "system_channel_id": guild.channel_id, "system_channel_flags": 0,
            "rules_channel_id": None, "public_updates_channel_id": None,
            "safety_alerts_channel_id": None, "max_members": 500000,
            "max_video_channel_users": 25, "max_stage_video_channel_users": 50,
            "vanity_url_code": None, "premium_tier": 0, "premium_subscription_count": 0,
            "preferred_locale": guild.locale, "nsfw": False, "nsfw_level": 0,
            "premium_progress_bar_enabled": False, "incidents_data": None,
        }

    def guild_create_payload(self, guild_id: str | None = None) -> dict[str, Any]:
        guild_id = guild_id or self.guild_id
        members = self.all_member_payloads(guild_id)
        return self.guild_payload(guild_id) | {
            "joined_at": self._bot_joined_at, "large": False, "unavailable": False, "lazy": True,
            "member_count": len(members), "members": members,
            "channels": [{k: v for k, v in ch.items() if k != "guild_id"}
                         for ch in self.guild_channels(guild_id)],
            "threads": [], "presences": [], "voice_states": [], "stage_instances": [],
            "guild_scheduled_events": [], "soundboard_sounds": [], "embedded_activities": [],
        }

    def messages(self, channel_id: str | None = None) -> list[Message]:
        """Non-ephemeral history of a channel (the main one by default), oldest first."""
        return self.store.channel_history(channel_id or self.channel_id)

    def opened_modal(self, user_id: str, custom_id: str) -> dict[str, Any] | None:
        """The last modal with this custom_id the bot opened for this user, if any."""
        return self._modals.get((user_id, custom_id))

    def remember_modal(self, user_id: str, modal: dict[str, Any]) -> None:
        self._modals[(user_id, str(modal.get("custom_id")))] = modal

    # ----------------------------------------------------------------- messages

    def new_message(self, channel_id: str, data: dict[str, Any], *,
                    attachments: list[dict[str, Any]], files: dict[str, bytes],
                    visible_to: str | None = None, msg_type: int = DEFAULT,
                    interaction: Interaction | None = None, extra_flags: int = 0) -> Message:
        flags = (int(data.get("flags") or 0) & ~EPHEMERAL) | extra_flags
        if visible_to is not None:
            flags |= EPHEMERAL
        payload: dict[str, Any] = {
            "id": self.ids.next(), "type": msg_type, "channel_id": channel_id,
            "content": data.get("content") or "", "author": self.bot_user,
            "attachments": attachments, "embeds": list(data.get("embeds") or []),
            "mentions": [], "mention_roles": [], "mention_everyone": False, "pinned": False,
            "tts": bool(data.get("tts")), "timestamp": iso_now(), "edited_timestamp": None,
            "flags": flags, "components": list(data.get("components") or []),
        }
        normalize(payload)
        if data.get("message_reference"):
            payload["message_reference"] = data["message_reference"]
            payload["type"] = REPLY
        if interaction is not None:
            payload["webhook_id"] = self.application_id
            payload["application_id"] = self.application_id
            payload["interaction_metadata"] = self._metadata(interaction)
            if interaction.kind == APPLICATION_COMMAND:
                member = self.members[interaction.user_id]
                payload["interaction"] = {
                    "id": interaction.id, "type": interaction.kind,
                    "name": interaction.payload["data"]["name"], "user": member.user,
                    "member": member.member_payload(with_user=False),
                }
        message = Message(self.store, payload, visible_to=visible_to, files=files)
        users, _, everyone = notified(message.content, data.get("allowed_mentions"))
        # Only members of the channel's guild hear a ping; an ephemeral message rings nobody.
        guild = self.guild_of_channel(channel_id)
        if visible_to is None:
            message.pinged = [
                u for u in users if u in self.members and guild in self.members[u].guild_ids
            ]
            message.pinged_everyone = everyone
        self.store.add(message)
        channel = self.channels.get(channel_id)
        if channel is not None and visible_to is None:
            channel["last_message_id"] = message.id
            self._spawn(self.gateway.dispatch("MESSAGE_CREATE", self._event_payload(message),
                                              guild_id=self.guild_of_channel(channel_id),
                                              intent=GUILD_MESSAGES_INTENT))
        return message

    def _metadata(self, interaction: Interaction) -> dict[str, Any]:
        member = self.members[interaction.user_id]
        meta: dict[str, Any] = {
            "id": interaction.id, "type": interaction.kind, "user": member.user,
            "authorizing_integration_owners": {"0": self.guild_of_channel(interaction.channel_id)},
        }
        if interaction.kind == APPLICATION_COMMAND:
            meta["name"] = interaction.payload["data"]["name"]
            meta["command_type"] = 1
        if interaction.source_message is not None:
            meta["interacted_message_id"] = interaction.source_message.id
        if interaction.original is not None and interaction.kind == APPLICATION_COMMAND:
            meta["original_response_message_id"] = interaction.original.id
        return meta

    def edit_message(self, message: Message, data: dict[str, Any], *,
                     attachments: list[dict[str, Any]] | None, files: dict[str, bytes]) -> None:
        payload = message.payload
        for key in ("content", "embeds", "components"):
            if key in data:
                payload[key] = data[key] if data[key] is not None else ("" if key == "content" else [])
        normalize(payload)
        if "flags" in data and data["flags"] is not None:
            # Only SUPPRESS_EMBEDS can be toggled and IS_COMPONENTS_V2 set; the rest is Discord's.
            keep = payload["flags"] & ~(1 << 2)
            payload["flags"] = keep | (int(data["flags"]) & ((1 << 2) | (1 << 15)))
        payload["flags"] &= ~(1 << 7)
        if attachments is not None:
            payload["attachments"] = attachments
            message._files.update(files)
        payload["edited_timestamp"] = iso_now()
        message.edits += 1
        self.store.edited(message)
        if message.visible_to is None and message.channel_id in self.channels:
            self._spawn(self.gateway.dispatch("MESSAGE_UPDATE", self._event_payload(message),
                                              guild_id=self.guild_of_channel(message.channel_id),
                                              intent=GUILD_MESSAGES_INTENT))

    def delete_message(self, message: Message) -> None:
        message.deleted = True
        self.store.changes.notify()
        if message.visible_to is None and message.channel_id in self.channels:
            guild_id = self.guild_of_channel(message.channel_id)
            self._spawn(self.gateway.dispatch(
                "MESSAGE_DELETE",
                {"id": message.id, "channel_id": message.channel_id, "guild_id": guild_id},
                guild_id=guild_id, intent=GUILD_MESSAGES_INTENT,
            ))

    def _event_payload(self, message: Message) -> dict[str, Any]:
        guild_id = self.guild_of_channel(message.channel_id)
        member = {k: v for k, v in self.bot_member_payload(guild_id).items() if k != "user"}
        return message.snapshot() | {"guild_id": guild_id, "member": member}

    def _spawn(self, coro: Any) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coro)
        except RuntimeError:
            coro.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ----------------------------------------------------------------- interactions

    def interaction_payload(self, inter_id: str, token: str, kind: int, member: Person,
                            channel_id: str, data: dict[str, Any],
                            message: Message | None) -> dict[str, Any]:
        channel = self.channels[channel_id]
        guild = self.guilds[channel["guild_id"]]
        payload: dict[str, Any] = {
            "id": inter_id, "application_id": self.application_id, "type": kind, "data": data,
            "guild_id": guild.id,
            "guild": {"id": guild.id, "locale": guild.locale, "features": []},
            "channel_id": channel_id,
            "channel": channel | {"permissions": member.permissions},
            "member": member.member_payload(with_permissions=True),
            "token": token, "version": 1, "locale": member.locale, "guild_locale": guild.locale,
            "app_permissions": self.app_permissions, "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": guild.id}, "context": 0,
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if message is not None:
            payload["message"] = message.snapshot()
        return payload

    async def interact(self, kind: int, member: Person, data: dict[str, Any], *,
                       channel_id: str | None, description: str,
                       message: Message | None = None,
                       interaction_id: str | None = None) -> InteractionResult:
        channel_id = str(channel_id or member.channel_id)
        if channel_id not in self.channels:
            raise AssertionError(f"no channel {channel_id} in the guild")
        guild_id = self.guild_of_channel(channel_id)
        if guild_id not in member.guild_ids:
            raise AssertionError(f"{member.name} is not a member of guild {guild_id}: a Discord "
                                 "client cannot use its channels")
        if self.gateway.owner(guild_id) is None:
            raise AssertionError(f"no bot session on the gateway for guild {guild_id} (its shard "
                                 "has not identified): start the bot and wait_ready()")
        if interaction_id is not None and interaction_id in self.interactions:
            raise AssertionError(f"interaction id {interaction_id} was already used")
        inter_id = interaction_id or self.ids.next()
        token = "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(48)
        payload = self.interaction_payload(inter_id, token, kind, member, channel_id, data, message)
        loop = asyncio.get_running_loop()
        inter = Interaction(
            id=inter_id, token=token, kind=kind, user_id=member.id, channel_id=channel_id,
            payload=payload, description=f"{member.name}'s {KIND_NAMES[kind]} {description}",
            dispatched_at=loop.time(), source_message=message,
        )
        self.interactions[inter_id] = inter
        self.interactions_by_token[token] = inter
        await self.gateway.dispatch("INTERACTION_CREATE", payload, guild_id=guild_id)
        inter.dispatched_at = loop.time()
        self._timers[inter.id] = loop.call_later(self.response_deadline, self._expire, inter)
        await inter.done.wait()
        timer = self._timers.pop(inter.id, None)
        if timer is not None:
            timer.cancel()
        if inter.failed:
            raise InteractionFailed(
                f"{inter.description}: no response within {self.response_deadline:g} s, "
                "Discord shows 'This interaction failed'"
            )
        return InteractionResult(inter, self.store.changes)

    async def redeliver(self, interaction_id: str) -> bool:
        """Dispatch an interaction again with the same id and token, as Discord may when it
        repeats a gateway event; the bot must not answer it twice. False if no session."""
        inter = self.interactions[interaction_id]
        return await self.gateway.dispatch("INTERACTION_CREATE", inter.payload,
                                           guild_id=str(inter.payload["guild_id"]))

    def _expire(self, inter: Interaction) -> None:
        if inter.acknowledged or inter.failed:
            return
        left = self.response_deadline - self.clock.elapsed(inter.dispatched_at)
        if left > 0.01:
            self._timers[inter.id] = asyncio.get_running_loop().call_later(left, self._expire, inter)
            return
        inter.failed = True
        self.violate(f"{inter.description}: not acknowledged within "
                     f"{self.response_deadline:g} s (interaction {inter.id})")
        inter.done.set()
        self.store.changes.notify()

    def is_component_message_interaction(self, inter: Interaction) -> bool:
        return inter.kind == MESSAGE_COMPONENT or (
            inter.kind == 5 and inter.source_message is not None)
