"""The double shards like Discord: GET /gateway/bot announces a count, IDENTIFY carries
[shard_id, num_shards], each session holds the guilds of its shard, and every event of a guild goes
to the session that owns it. Driven by raw websocket clients (to see exactly which frame reaches
which connection) and by an unmodified discord.py AutoShardedClient."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands

from testkit.discord_double import DiscordDouble

TOKEN = "test-token"
GUILDS_INTENT, GUILD_MESSAGES_INTENT = 1 << 0, 1 << 9


class RawShard:
    """One gateway connection spoken by hand: HELLO, IDENTIFY, then every frame it receives."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []

    async def next_frame(self, timeout: float = 5.0) -> dict[str, Any]:
        msg = await self.ws.receive(timeout=timeout)
        if msg.type is not aiohttp.WSMsgType.TEXT:
            raise ConnectionError(f"socket closed: {msg.type!r} code {self.ws.close_code}")
        frame: dict[str, Any] = json.loads(msg.data)
        self.frames.append(frame)
        return frame

    async def until(self, event: str, timeout: float = 5.0) -> dict[str, Any]:
        while True:
            frame = await self.next_frame(timeout)
            if frame.get("t") == event:
                return frame

    async def identify(self, shard: Any = None, intents: int = GUILDS_INTENT) -> None:
        hello = await self.next_frame()
        assert hello["op"] == 10
        data: dict[str, Any] = {"token": TOKEN, "intents": intents,
                                "properties": {"os": "linux", "browser": "raw", "device": "raw"}}
        if shard is not None:
            data["shard"] = shard
        await self.ws.send_str(json.dumps({"op": 2, "d": data}))

    async def close_code(self, timeout: float = 5.0) -> int | None:
        """Read until the server closes the socket; the close code it sent."""
        with contextlib.suppress(ConnectionError):
            while True:
                await self.next_frame(timeout)
        return self.ws.close_code

    def guild_creates(self) -> list[str]:
        return [f["d"]["id"] for f in self.frames if f.get("t") == "GUILD_CREATE"]

    def events(self, name: str) -> list[dict[str, Any]]:
        return [f["d"] for f in self.frames if f.get("t") == name]


@pytest.fixture
async def double() -> AsyncIterator[DiscordDouble]:
    async with DiscordDouble(token=TOKEN) as d:
        yield d


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def connect(http: aiohttp.ClientSession, double: DiscordDouble) -> RawShard:
    return RawShard(await http.ws_connect(double.gateway_url))


async def ready_shard(http: aiohttp.ClientSession, double: DiscordDouble, shard: list[int],
                      intents: int = GUILDS_INTENT) -> RawShard:
    raw = await connect(http, double)
    await raw.identify(shard, intents)
    ready = await raw.until("READY")
    for _ in ready["d"]["guilds"]:
        await raw.until("GUILD_CREATE")
    return raw


def two_shard_world(double: DiscordDouble) -> tuple[str, str]:
    """The default guild plus one guild on each shard of two; (guild on 0, guild on 1)."""
    return double.add_guild("zero", shard=(0, 2)), double.add_guild("one", shard=(1, 2))


async def register_ping(http: aiohttp.ClientSession, double: DiscordDouble) -> None:
    url = f"{double.api_base}/applications/{double.application_id}/commands"
    body = [{"name": "ping", "description": "Where am I answered", "type": 1}]
    async with http.put(url, json=body, headers={"Authorization": f"Bot {TOKEN}"}) as resp:
        assert resp.status == 200, await resp.text()


async def answer(http: aiohttp.ClientSession, double: DiscordDouble, interaction: dict[str, Any],
                 content: str) -> None:
    url = f"{double.api_base}/interactions/{interaction['id']}/{interaction['token']}/callback"
    async with http.post(url, json={"type": 4, "data": {"content": content}}) as resp:
        assert resp.status == 204, await resp.text()


async def test_gateway_bot_announces_one_shard_by_default_and_the_set_count(
        double: DiscordDouble, http: aiohttp.ClientSession) -> None:
    headers = {"Authorization": f"Bot {TOKEN}"}
    async with http.get(f"{double.api_base}/gateway/bot", headers=headers) as resp:
        assert (await resp.json())["shards"] == 1
    double.shard_count = 3
    async with http.get(f"{double.api_base}/gateway/bot", headers=headers) as resp:
        body = await resp.json()
    assert body["shards"] == 3 and body["url"] == double.gateway_url


def test_recommended_shards_grow_one_per_thousand_guilds() -> None:
    double = DiscordDouble(token=TOKEN)
    for i in range(1000):
        double.add_guild(f"g{i}")
    assert len(double.guild_ids) == 1001 and double.recommended_shards == 2


def test_add_guild_places_the_guild_on_the_asked_shard() -> None:
    double = DiscordDouble(token=TOKEN)
    for num in (2, 3, 7):
        for shard_id in range(num):
            guild_id = double.add_guild(shard=(shard_id, num))
            assert (int(guild_id) >> 22) % num == shard_id
    assert len(set(double.guild_ids)) == len(double.guild_ids)
    with pytest.raises(ValueError, match="does not exist"):
        double.add_guild(shard=(2, 2))


async def test_each_shard_session_gets_ready_and_guild_create_for_its_guilds_only(
        double: DiscordDouble, http: aiohttp.ClientSession) -> None:
    on_zero, on_one = two_shard_world(double)
    zero = await ready_shard(http, double, [0, 2])
    one = await ready_shard(http, double, [1, 2])
    expected_zero = {g for g in double.guild_ids if (int(g) >> 22) % 2 == 0}
    expected_one = set(double.guild_ids) - expected_zero
    assert on_zero in expected_zero and on_one in expected_one
    ready_zero, ready_one = zero.events("READY")[0], one.events("READY")[0]
    assert {g["id"] for g in ready_zero["guilds"]} == expected_zero
    assert {g["id"] for g in ready_one["guilds"]} == expected_one
    assert ready_zero["shard"] == [0, 2] and ready_one["shard"] == [1, 2]
    assert set(zero.guild_creates()) == expected_zero
    assert set(one.guild_creates()) == expected_one
    assert not double.violations


async def test_identify_without_shard_gets_every_guild(double: DiscordDouble,
                                                       http: aiohttp.ClientSession) -> None:
    two_shard_world(double)
    raw = await ready_shard(http, double, None)  # type: ignore[arg-type]
    assert set(raw.guild_creates()) == set(double.guild_ids)
    assert "shard" not in raw.events("READY")[0]


@pytest.mark.parametrize("shard", [[2, 2], [-1, 2], [0, 0], [5, 3], [0], [0, 1, 2], "0,1",
                                   [True, 2], [0, 1.5], None])
async def test_identify_with_an_invalid_shard_is_closed_with_4010(
        double: DiscordDouble, http: aiohttp.ClientSession, shard: Any) -> None:
    raw = await connect(http, double)
    hello = await raw.next_frame()
    assert hello["op"] == 10
    await raw.ws.send_str(json.dumps({"op": 2, "d": {"token": TOKEN, "intents": 1,
                                                     "properties": {}, "shard": shard}}))
    assert await raw.close_code() == 4010
    assert not raw.events("READY")
    assert any("invalid shard" in v for v in double.violations)


async def test_a_session_holding_too_many_guilds_is_closed_with_4011_until_sharded(
        double: DiscordDouble, http: aiohttp.ClientSession) -> None:
    two_shard_world(double)
    double.max_guilds_per_shard = 2
    unsharded = await connect(http, double)
    await unsharded.identify(None)
    assert await unsharded.close_code() == 4011
    assert any("would hold 3 guilds" in v for v in double.violations)
    double.violations.clear()
    # Sharded in two, each session holds at most two of the three guilds.
    zero = await ready_shard(http, double, [0, 2])
    one = await ready_shard(http, double, [1, 2])
    assert len(zero.guild_creates()) + len(one.guild_creates()) == 3
    assert not double.violations


async def test_interactions_and_messages_of_a_guild_go_to_the_session_owning_it(
        double: DiscordDouble, http: aiohttp.ClientSession) -> None:
    on_zero, on_one = two_shard_world(double)
    intents = GUILDS_INTENT | GUILD_MESSAGES_INTENT
    zero = await ready_shard(http, double, [0, 2], intents)
    one = await ready_shard(http, double, [1, 2], intents)
    await register_ping(http, double)
    ann = double.add_member("ann", guild_id=on_one)
    bea = double.add_member("bea", guild_id=on_zero)

    async def serve(raw: RawShard, label: str) -> None:
        with contextlib.suppress(ConnectionError, TimeoutError):
            while True:
                frame = await raw.until("INTERACTION_CREATE", timeout=10)
                await answer(http, double, frame["d"], f"answered by {label}")

    servers = [asyncio.create_task(serve(zero, "shard 0")),
               asyncio.create_task(serve(one, "shard 1"))]
    try:
        res_one = await ann.slash("ping")
        res_zero = await bea.slash("ping")
    finally:
        for task in servers:
            task.cancel()
        await asyncio.gather(*servers, return_exceptions=True)
    assert res_one.content == "answered by shard 1"
    assert res_zero.content == "answered by shard 0"
    assert res_one.message.channel_id == double.guilds[on_one].channel_id
    assert {i["guild_id"] for i in one.events("INTERACTION_CREATE")} == {on_one}
    assert {i["guild_id"] for i in zero.events("INTERACTION_CREATE")} == {on_zero}
    # The answers are messages in those guilds' channels: MESSAGE_CREATE on the same shard.
    for raw in (zero, one):
        with contextlib.suppress(TimeoutError):
            while True:
                await raw.next_frame(timeout=0.3)
    one_messages = [m for m in one.frames if m.get("t") == "MESSAGE_CREATE"]
    zero_messages = [m for m in zero.frames if m.get("t") == "MESSAGE_CREATE"]
    assert {m["d"]["guild_id"] for m in one_messages} == {on_one}
    assert {m["d"]["guild_id"] for m in zero_messages} == {on_zero}
    assert not double.violations


async def test_a_guild_joined_while_running_arrives_on_its_shard_only(
        double: DiscordDouble, http: aiohttp.ClientSession) -> None:
    two_shard_world(double)
    zero = await ready_shard(http, double, [0, 2])
    one = await ready_shard(http, double, [1, 2])
    before_zero = len(zero.guild_creates())
    joined = double.add_guild("late", shard=(1, 2))
    frame = await one.until("GUILD_CREATE")
    assert frame["d"]["id"] == joined and frame["d"]["name"] == "late"
    channel = double.add_channel("late-games", guild_id=joined)
    created = await one.until("CHANNEL_CREATE")
    assert created["d"]["id"] == channel and created["d"]["guild_id"] == joined
    with pytest.raises(TimeoutError):
        await zero.until("GUILD_CREATE", timeout=0.3)
    assert len(zero.guild_creates()) == before_zero


async def test_one_member_in_two_guilds_acts_in_each_and_nowhere_else(
        double: DiscordDouble, http: aiohttp.ClientSession) -> None:
    other = double.add_guild("other", locale="vi")
    third = double.add_guild("third")
    raw = await ready_shard(http, double, [0, 1])
    await register_ping(http, double)
    cam = double.add_member("cam", locale="vi")
    double.join(cam, other)

    async def serve() -> None:
        with contextlib.suppress(ConnectionError, TimeoutError):
            while True:
                frame = await raw.until("INTERACTION_CREATE", timeout=10)
                await answer(http, double, frame["d"], f"hi from {frame['d']['guild_id']}")

    server = asyncio.create_task(serve())
    try:
        home = await cam.slash("ping")
        away = await cam.slash("ping", channel_id=double.guilds[other].channel_id)
        with pytest.raises(AssertionError, match="not a member of guild"):
            await cam.slash("ping", channel_id=double.guilds[third].channel_id)
    finally:
        server.cancel()
        await asyncio.gather(server, return_exceptions=True)
    assert home.content == f"hi from {double.guild_id}"
    assert away.content == f"hi from {other}"
    sent = raw.events("INTERACTION_CREATE")
    assert [i["guild_locale"] for i in sent] == ["en-US", "vi"]
    assert all(i["member"]["user"]["id"] == cam.id for i in sent)
    headers = {"Authorization": f"Bot {TOKEN}"}
    url = f"{double.api_base}/guilds/{third}/members/{cam.id}"
    async with http.get(url, headers=headers) as resp:
        assert resp.status == 404
    async with http.get(f"{double.api_base}/guilds/{other}/channels", headers=headers) as resp:
        assert [c["id"] for c in await resp.json()] == [double.guilds[other].channel_id]


# --------------------------------------------------------------- discord.py AutoShardedClient


@contextlib.contextmanager
def pointed_at(double: DiscordDouble) -> Iterator[None]:
    base, gateway = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = double.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(double.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = gateway


class ShardedBot(discord.AutoShardedClient):
    """Answers /where with the shard its library filed the interaction's guild under."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(intents=discord.Intents.default(), **kwargs)
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="where", description="Which shard answers")
        async def where(interaction: discord.Interaction) -> None:
            assert interaction.guild is not None
            await interaction.response.send_message(
                f"guild {interaction.guild.id} on shard {interaction.guild.shard_id}")

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        # discord.py waits 5 s between IDENTIFYs to respect Discord's identify rate; the double
        # has no such limit, and the test would only wait.
        return None


async def test_auto_sharded_client_takes_the_announced_count_and_serves_every_guild(
        double: DiscordDouble) -> None:
    double.shard_count = 2
    guilds = two_shard_world(double)
    members = [double.add_member(f"m{i}", guild_id=g) for i, g in enumerate(guilds)]
    with pointed_at(double):
        bot = ShardedBot()
        runner = asyncio.create_task(bot.start(TOKEN))
        try:
            await double.wait_ready()
            await double.wait_shards(range(2), 2)
            await asyncio.wait_for(bot.wait_until_ready(), 10)
            assert bot.shard_count == 2
            assert {g.id for g in bot.guilds} == {int(g) for g in double.guild_ids}
            for guild_id, member in zip(guilds, members, strict=True):
                shard_id = (int(guild_id) >> 22) % 2
                res = await member.slash("where")
                assert res.content == f"guild {guild_id} on shard {shard_id}"
                session = double.gateway.owner(guild_id)
                assert session is not None and session.shard == (shard_id, 2)
                sent = [f for f in session.sent if f["t"] == "INTERACTION_CREATE"]
                assert sent and sent[-1]["d"]["id"] == res.interaction_id
            identified = sorted(s.shard for s in double.gateway.identified)
            assert identified == [(0, 2), (1, 2)]
            # Shard 1's connection drops; discord.py resumes that shard alone, and its guild
            # is answered again, by the same session.
            resumes = double.gateway.resumes
            await double.disconnect_bot(4000, shard_id=1)
            await asyncio.sleep(0.1)
            await double.wait_shards(range(2), 2)
            assert double.gateway.resumes == resumes + 1
            on_one = guilds[1]
            res = await members[1].slash("where")
            assert res.content == f"guild {on_one} on shard 1"
            assert len(double.gateway.identified) == 2
        finally:
            await bot.close()
            await asyncio.gather(runner, return_exceptions=True)
    assert any(r.path == "/gateway/bot" for r in double.requests)
    assert not double.violations


async def test_auto_sharded_client_with_too_few_shards_is_refused(double: DiscordDouble) -> None:
    """A cluster asking for [2, 2] (an operator's typo in its shard ids) gets 4010, which
    discord.py raises as a closed connection instead of running without those guilds."""
    with pointed_at(double):
        bot = ShardedBot(shard_count=2, shard_ids=[2])
        with pytest.raises(discord.ConnectionClosed) as info:
            await asyncio.wait_for(bot.start(TOKEN), 15)
        await bot.close()
    assert info.value.code == 4010
