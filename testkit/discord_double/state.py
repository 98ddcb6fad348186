"""The double's world: snowflakes, the guild, its channels, and the messages kept in them."""

from __future__ import annotations

import asyncio
import datetime
import itertools
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

DISCORD_EPOCH_MS = 1420070400000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
COMPONENTS_V2 = 1 << 15

# Permissions a guild owner-less bot typically gets from its role: view, send, embed, attach,
# read history, use application commands. Sent as app_permissions like Discord does.
BOT_PERMISSIONS = str((1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31))
# @everyone's default permissions in a fresh guild (what `member.permissions` carries).
EVERYONE_PERMISSIONS = str(
    (1 << 0) | (1 << 6) | (1 << 10) | (1 << 11) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 31)
)


class Snowflakes:
    """Ids shaped like Discord's: a millisecond timestamp in the high bits, so they sort by time."""

    def __init__(self) -> None:
        self._counter = itertools.count()

    def next(self) -> str:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return str((ms << 22) | (next(self._counter) & 0x3FFFFF))


@dataclass
class RecordedRequest:
    """One REST call the bot made. `path` is relative to the API base (e.g. "/users/@me");
    `time` is the event loop's clock; `json` is the body (payload_json for multipart)."""

    method: str
    path: str
    json: Any
    time: float
    query: dict[str, str] = field(default_factory=dict)
    status: int = 0
    files: list[str] = field(default_factory=list)


@dataclass
class Guild:
    """One server the bot is in: its roles (the first is @everyone, whose id is the guild's) and
    its main text channel. Channels and members live in the double, tagged with guild ids."""

    id: str
    name: str
    roles: list[dict[str, Any]]
    bot_role_id: str
    channel_id: str = ""
    locale: str = "en-US"


def iso_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


def user_payload(user_id: str, name: str, *, bot: bool = False) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": user_id,
        "username": name,
        "discriminator": "0",
        "global_name": None if bot else name.capitalize(),
        "avatar": None,
        "avatar_decoration_data": None,
        "public_flags": 0,
        "flags": 0,
        "banner": None,
        "accent_color": None,
        "collectibles": None,
        "primary_guild": None,
    }
    if bot:
        data["bot"] = True
    return data


class Changes:
    """Lets waiters sleep until the stored world changes (a message created, edited, deleted...)."""

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []

    def notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait(self, timeout: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that arrives as `fut`
        # completes (it returns the result instead), and a crash campaign cancels its players
        # while the bot's last edits still arrive: a player went on playing and the round's
        # gather waited for it forever.
        try:
            await asyncio.wait({fut}, timeout=timeout)
        finally:
            fut.cancel()

    async def wait_until(self, check: Callable[[], bool], timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not check():
            left = deadline - loop.time()
            if left <= 0:
                return False
            await self.wait(left)
        return True


def iter_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every component of a message, depth first: rows, V2 containers, sections and their accessories."""
    for comp in components:
        yield comp
        children = comp.get("components")
        if isinstance(children, list):
            yield from iter_components(children)
        for key in ("accessory", "component"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from iter_components([child])


class StallClock:
    """Elapsed time on the event loop minus the stretches this process was stalled.

    The double shares its loop with the test; if the test blocks the loop (or the machine does
    not schedule this process), a bot's timely answer would be read late. Stalls are measured by
    a ticker and not counted against the bot.
    """

    TICK = 0.05
    STALL = 0.1

    def __init__(self) -> None:
        self._stalls: list[tuple[float, float]] = []
        self._task: asyncio.Task[None] | None = None
        self._last: float | None = None

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._last = loop.time()
        self._task = loop.create_task(self._tick())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(self.TICK)
            now = loop.time()
            self._last = now
            lag = now - before - self.TICK
            if lag > self.STALL:
                self._stalls.append((now - lag, now))

    def elapsed(self, since: float) -> float:
        """Seconds since `since` (a loop time), stalls excluded, including one that just ended
        and that the ticker has not woken up to record yet."""
        now = asyncio.get_running_loop().time()
        stalls = list(self._stalls)
        if self._last is not None and now - self._last - self.TICK > self.STALL:
            stalls.append((self._last + self.TICK, now))
        stalled = sum(min(end, now) - max(begin, since) for begin, end in stalls
                      if end > since and begin < now)
        return now - since - stalled


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value (what a payload is): a tenth of copy.deepcopy's time, which
    was the double's largest cost under load (a message copied per event and per answer)."""
    return orjson.loads(orjson.dumps(value))


def normalize(payload: dict[str, Any]) -> None:
    """Fill in what Discord adds to a stored message: embed type "rich", and numeric component
    ids, given in depth-first order to the components that came without one."""
    embeds = []
    for embed in payload.get("embeds") or []:
        embeds.append({"type": "rich"} | embed if isinstance(embed, dict) else embed)
    payload["embeds"] = embeds
    components = json_copy(payload.get("components") or [])
    every = list(iter_components(components))
    used = {c["id"] for c in every if isinstance(c.get("id"), int)}
    counter = itertools.count(1)
    for comp in every:
        if not isinstance(comp.get("id"), int):
            comp["id"] = next(n for n in counter if n not in used)
    payload["components"] = components


class Message:
    """A message as the double keeps it; tests read the bot's output through these.

    The object is live: edits by the bot update it in place, so a test holding a Message always
    sees the current state. `payload` is exactly what Discord would return for it.
    """

    def __init__(self, store: MessageStore, payload: dict[str, Any], *, visible_to: str | None,
                 files: dict[str, bytes]) -> None:
        self._store = store
        self.payload = payload
        self.visible_to = visible_to
        self._files = files
        self.edits = 0
        self.deleted = False
        # Whom creating the message notified (see notified): user ids, and whether @everyone
        # or @here rang. An edit notifies nobody, as on Discord.
        self.pinged: list[str] = []
        self.pinged_everyone = False

    def __repr__(self) -> str:
        state = " deleted" if self.deleted else ""
        return f"<Message id={self.id} edits={self.edits}{state} content={self.content!r}>"

    @property
    def id(self) -> str:
        return str(self.payload["id"])

    @property
    def channel_id(self) -> str:
        return str(self.payload["channel_id"])

    @property
    def content(self) -> str:
        return str(self.payload.get("content") or "")

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.payload.get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return list(self.payload.get("components") or [])

    @property
    def flags(self) -> int:
        return int(self.payload.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred response's "Bot is thinking..." placeholder."""
        return bool(self.flags & LOADING)

    @property
    def author_id(self) -> str:
        return str(self.payload["author"]["id"])

    @property
    def attachments(self) -> list[dict[str, Any]]:
        out = []
        for att in self.payload.get("attachments") or []:
            out.append({
                "id": att["id"],
                "filename": att["filename"],
                "content_type": att.get("content_type"),
                "size": att["size"],
                "url": att["url"],
                "data": self._files.get(str(att["id"]), b""),
            })
        return out

    def attachment_data(self, attachment_id: str) -> bytes | None:
        return self._files.get(str(attachment_id))

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in iter_components(self.components) if c.get("type") == 2]

    def button(self, target: str) -> dict[str, Any]:
        """The button whose custom_id is `target`, or ends with ":target", or is labelled `target`."""
        buttons = self.buttons
        for matches in (
            [b for b in buttons if b.get("custom_id") == target],
            [b for b in buttons if str(b.get("custom_id", "")).endswith(":" + target)],
            [b for b in buttons if b.get("label") == target],
        ):
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                ids = [b.get("custom_id") for b in matches]
                raise AssertionError(f"{len(matches)} buttons match {target!r}: {ids}")
        described = [(b.get("custom_id"), b.get("label")) for b in buttons]
        raise AssertionError(
            f"no button {target!r} on message {self.id}; its buttons (custom_id, label): {described}"
        )

    def refresh(self) -> Message:
        """The current stored state (the object is live already, so this is itself)."""
        return self

    async def wait_for(self, predicate: Callable[[Message], bool], timeout: float = 10.0) -> Message:
        """Wait until `predicate(message)` holds, re-checking after every change the bot makes."""
        if await self._store.changes.wait_until(lambda: bool(predicate(self)), timeout):
            return self
        raise AssertionError(
            f"message {self.id} did not reach the expected state within {timeout} s; now: "
            f"content={self.content!r} embeds={self.embeds!r} buttons="
            f"{[(b.get('custom_id'), b.get('label'), b.get('disabled', False)) for b in self.buttons]}"
        )

    def snapshot(self) -> dict[str, Any]:
        return json_copy(self.payload)


_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def notified(content: str, allowed: dict[str, Any] | None) -> tuple[list[str], list[str], bool]:
    """(users, roles, everyone) a new message with this content notifies, as Discord decides:
    only mentions written in the content, filtered by its allowed_mentions (none given: every
    mention in it rings)."""
    users = list(dict.fromkeys(_USER_MENTION.findall(content)))
    roles = list(dict.fromkeys(_ROLE_MENTION.findall(content)))
    everyone = "@everyone" in content or "@here" in content
    if allowed is None:
        return users, roles, everyone
    parse = set(allowed.get("parse") or ())
    if "users" not in parse:
        listed = {str(u) for u in allowed.get("users") or ()}
        users = [u for u in users if u in listed]
    if "roles" not in parse:
        listed = {str(r) for r in allowed.get("roles") or ()}
        roles = [r for r in roles if r in listed]
    return users, roles, everyone and "everyone" in parse


class MessageStore:
    """Every message of every channel, ephemeral ones included, in creation order."""

    def __init__(self) -> None:
        self.changes = Changes()
        self.by_id: dict[str, Message] = {}
        self.order: list[Message] = []
        self._watchers: list[Callable[[Message], None]] = []

    def watch(self, watcher: Callable[[Message], None]) -> None:
        """Call `watcher(message)` as each message is created or edited, at that moment: a
        waiter woken by `changes` runs later and may miss a state the next edit replaced,
        while a benchmark timing every state of a board must see each one when it lands."""
        self._watchers.append(watcher)

    def add(self, message: Message) -> Message:
        self.by_id[message.id] = message
        self.order.append(message)
        self.edited(message)
        return message

    def edited(self, message: Message) -> None:
        """A message was created or changed: tell the watchers, then wake the waiters."""
        for watcher in self._watchers:
            watcher(message)
        self.changes.notify()

    def get(self, message_id: str) -> Message | None:
        return self.by_id.get(str(message_id))

    def channel_history(self, channel_id: str | None, *, viewer: str | None = None) -> list[Message]:
        """Messages a viewer can see (everyone when viewer is None: ephemeral ones excluded)."""
        out = []
        for msg in self.order:
            if msg.deleted or (channel_id is not None and msg.channel_id != str(channel_id)):
                continue
            if msg.visible_to is not None and msg.visible_to != viewer:
                continue
            out.append(msg)
        return out
