"""The Discord double, driven by a real discord.py 2.7 client in this process.

The client is the library the bot uses, unmodified: it reaches the double only because
Route.BASE and the default gateway URL point there, which is what DISCORD_API_BASE and
DISCORD_GATEWAY_URL do for the bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
import sys
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands
from discord.ext import commands
from discord.webhook.async_ import async_context, interaction_response_params

from testkit.discord_double import DiscordDouble, InteractionFailed, Member, Message
from testkit.discord_double.state import Changes, notified
from testkit.gates import until

TOKEN = "test-token"


def button(custom_id: str, label: str = "x", **extra: Any) -> dict[str, Any]:
    return {"type": 2, "style": 2, "label": label, "custom_id": custom_id} | extra


def rows_of(buttons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": 1, "components": buttons[i:i + 5]} for i in range(0, len(buttons), 5)]


# Raw bodies a careless bot could send; discord.py's own client-side checks are bypassed by
# sending them through the library's real interaction-callback HTTP path.
RAW_CASES: dict[str, dict[str, Any]] = {
    "26 buttons": {"content": "board", "components": rows_of([button(f"c{i}") for i in range(26)])},
    "6 in a row": {"content": "board",
                   "components": [{"type": 1, "components": [button(f"c{i}") for i in range(6)]}]},
    "long custom_id": {"content": "board", "components": rows_of([button("x" * 101)])},
    "duplicate custom_id": {"content": "board", "components": rows_of([button("a1"), button("a1")])},
    "long label": {"content": "board", "components": rows_of([button("a1", "L" * 81)])},
    "2001 chars": {"content": "x" * 2001},
    "11 embeds": {"embeds": [{"title": str(i)} for i in range(11)]},
    "41 v2 components": {"flags": 1 << 15, "components": [
        {"type": 17, "components": [{"type": 10, "content": str(i)} for i in range(40)]}]},
    "25 buttons": {"content": "ok", "components": rows_of([button(f"c{i}") for i in range(25)])},
}


async def raw_callback(interaction: discord.Interaction, kind: int,
                       data: dict[str, Any] | None) -> Any:
    http = interaction._state.http
    return await async_context.get().create_interaction_response(
        interaction.id, interaction.token, session=interaction._session, proxy=http.proxy,
        proxy_auth=http.proxy_auth, params=interaction_response_params(kind, data))


class Cells(discord.ui.View):
    """Three buttons; a click rewrites the message (UPDATE_MESSAGE)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        for cell in ("A1", "B1", "C1"):
            item: discord.ui.Button[Cells] = discord.ui.Button(label=cell, custom_id=f"caro:cell:{cell}")
            item.callback = self._clicked(cell)  # type: ignore[method-assign]
            self.add_item(item)
        self.add_item(discord.ui.Button(label="Z9", custom_id="caro:cell:Z9", disabled=True))
        later: discord.ui.Button[Cells] = discord.ui.Button(label="Later", custom_id="caro:later")
        later.callback = self._later  # type: ignore[method-assign]
        self.add_item(later)

    async def _later(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(content="decided later")

    def _clicked(self, cell: str) -> Any:
        async def callback(interaction: discord.Interaction) -> None:
            await interaction.response.edit_message(content=f"played {cell}", view=self)
        return callback


class Name(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput[Name] = discord.ui.TextInput(label="Name", custom_id="name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"hello {self.name.value}")


class Setup(discord.ui.Modal, title="New game"):
    size: discord.ui.Label[Setup] = discord.ui.Label(
        text="Size", component=discord.ui.TextInput(custom_id="size"))
    level: discord.ui.Label[Setup] = discord.ui.Label(
        text="Level", component=discord.ui.Select(custom_id="level", options=[
            discord.SelectOption(label="easy"), discord.SelectOption(label="hard")]))

    async def on_submit(self, interaction: discord.Interaction) -> None:
        size = self.size.component.value  # type: ignore[attr-defined]
        level = self.level.component.values  # type: ignore[attr-defined]
        await interaction.response.send_message(f"{size} {level}")


class Harness(commands.Bot):
    """A small bot: one /caro group, remembering what Discord (the double) answered it."""

    def __init__(self, double: DiscordDouble) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.double = double
        self.errors: list[discord.HTTPException] = []
        self.responses: list[Any] = []
        group = app_commands.Group(name="caro", description="Play caro")
        admin = app_commands.Group(name="admin", description="Admin things", parent=group)

        @group.command(name="start", description="Start a game")
        @app_commands.choices(difficulty=[app_commands.Choice(name=n, value=n)
                                          for n in ("easy", "hard")])
        async def start(interaction: discord.Interaction, size: str = "3x3",
                        difficulty: str = "easy", opponent: discord.Member | None = None,
                        k: int = 3) -> None:
            who = opponent.name if opponent else "AI"
            await interaction.response.send_message(
                f"{size} k{k} {difficulty} vs {who}", view=Cells())

        @start.autocomplete("size")
        async def sizes(interaction: discord.Interaction,
                        current: str) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=s, value=s) for s in ("3x3", "5x5", "15x15")
                    if s.startswith(current)]

        @group.command(name="slow", description="Think, then answer")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0.05)
            await interaction.edit_original_response(content="thought about it")

        @group.command(name="secret", description="Ephemeral answer with a button")
        async def secret(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("only you", view=Cells(), ephemeral=True)

        @group.command(name="late", description="Answer after the deadline")
        async def late(interaction: discord.Interaction) -> None:
            await asyncio.sleep(self.double.response_deadline + 0.3)
            try:
                await interaction.response.send_message("too late")
            except discord.HTTPException as exc:
                self.errors.append(exc)

        @group.command(name="stall", description="Block the whole process, then answer")
        async def stall(interaction: discord.Interaction) -> None:
            time.sleep(self.double.response_deadline + 0.3)  # blocking on purpose
            await interaction.response.send_message("after a stall")

        @group.command(name="raw", description="Send a raw response body")
        async def raw(interaction: discord.Interaction, case: str) -> None:
            try:
                self.responses.append(await raw_callback(interaction, 4, RAW_CASES[case]))
            except discord.HTTPException as exc:
                self.errors.append(exc)
                await interaction.response.send_message("fallback")

        @group.command(name="twice", description="Respond twice")
        async def twice(interaction: discord.Interaction) -> None:
            await raw_callback(interaction, 4, {"content": "one"})
            try:
                await raw_callback(interaction, 4, {"content": "two"})
            except discord.HTTPException as exc:
                self.errors.append(exc)

        @group.command(name="update", description="Wrongly answer a slash command with an update")
        async def update(interaction: discord.Interaction) -> None:
            try:
                await raw_callback(interaction, 7, {"content": "nope"})
            except discord.HTTPException as exc:
                self.errors.append(exc)
                await interaction.response.send_message("fallback")

        @group.command(name="followups", description="Defer ephemerally, then follow up twice")
        async def followups(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await interaction.followup.send("first", ephemeral=True)
            await interaction.followup.send("second")

        @group.command(name="sleepy", description="Defer, then edit much later")
        async def sleepy(interaction: discord.Interaction) -> None:
            await interaction.response.defer()
            await asyncio.sleep(self.double.token_lifetime + 0.1)
            try:
                await interaction.edit_original_response(content="good morning")
            except discord.HTTPException as exc:
                self.errors.append(exc)

        @group.command(name="early", description="Follow up before responding")
        async def early(interaction: discord.Interaction) -> None:
            try:
                await interaction.followup.send("too early")
            except discord.HTTPException as exc:
                self.errors.append(exc)
            await interaction.response.send_message("then the response")

        @group.command(name="picture", description="Answer with an image")
        async def picture(interaction: discord.Interaction) -> None:
            file = discord.File(io.BytesIO(b"\x89PNG fake"), filename="board.png")
            await interaction.response.send_message("board", file=file)

        @group.command(name="name", description="Ask for a name in a modal")
        async def name(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Name())

        @group.command(name="tidy", description="Answer, follow up, edit and delete")
        async def tidy(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("temporary")
            original = await interaction.original_response()
            self.responses.append(original.content)
            extra = await interaction.followup.send("follow", wait=True)
            await extra.edit(content="follow, edited")
            await interaction.delete_original_response()

        @group.command(name="setup", description="Ask for settings in a labelled modal")
        async def setup(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(Setup())

        @admin.command(name="say", description="Post in the channel")
        async def say(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.defer(ephemeral=True)
            assert interaction.channel is not None
            await interaction.channel.send(text)  # type: ignore[union-attr]
            await interaction.followup.send("posted", ephemeral=True)

        self.tree.add_command(group)

    async def setup_hook(self) -> None:
        guild = discord.Object(id=int(self.double.guild_id))
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)


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


@pytest.fixture
async def double() -> AsyncIterator[DiscordDouble]:
    async with DiscordDouble(token=TOKEN) as d:
        yield d


@pytest.fixture
async def bot(double: DiscordDouble) -> AsyncIterator[Harness]:
    harness = Harness(double)
    with pointed_at(double):
        task = asyncio.create_task(harness.start(TOKEN))
        try:
            await double.wait_ready(timeout=15)
            yield harness
        finally:
            await harness.close()
            with contextlib.suppress(Exception):
                await task


@pytest.fixture
def alice(double: DiscordDouble) -> Member:
    return double.add_member("alice", locale="vi")


def codes(bot: Harness) -> list[int]:
    return [err.code for err in bot.errors]


async def wait_until(check: Any, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, "condition not met in time"
        await asyncio.sleep(0.02)


# ----------------------------------------------------------------------------- session


async def test_identify_ready_and_command_sync(double: DiscordDouble, bot: Harness) -> None:
    assert bot.user is not None and str(bot.user.id) == double.bot_user["id"]
    assert str(bot.application_id) == double.application_id
    stored = double.commands[double.guild_id]
    assert [c["name"] for c in stored] == ["caro"]
    caro = stored[0]
    assert caro["guild_id"] == double.guild_id and caro["application_id"] == double.application_id
    subs = {o["name"]: o["type"] for o in caro["options"]}
    assert subs["start"] == 1 and subs["admin"] == 2
    fetched = await bot.tree.fetch_commands(guild=discord.Object(id=int(double.guild_id)))
    assert [(c.name, str(c.id)) for c in fetched] == [("caro", caro["id"])]
    await wait_until(lambda: bot.get_guild(int(double.guild_id)) is not None)
    guild = bot.get_guild(int(double.guild_id))
    assert guild is not None and guild.get_channel(int(double.channel_id)) is not None
    assert guild.me is not None and guild.member_count == 1
    assert double.violations == []


async def test_resync_keeps_command_ids(double: DiscordDouble, bot: Harness) -> None:
    first = double.commands[double.guild_id][0]["id"]
    await bot.tree.sync(guild=discord.Object(id=int(double.guild_id)))
    assert double.commands[double.guild_id][0]["id"] == first
    assert double.command_puts == 2


async def test_wrong_token_fails_login_and_is_recorded(double: DiscordDouble) -> None:
    client = discord.Client(intents=discord.Intents.default())
    with pointed_at(double), pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()
    assert double.requests[-1].status == 401
    assert any("wrong bot token" in v for v in double.violations)


async def test_gateway_rejects_wrong_token_with_4004(double: DiscordDouble) -> None:
    async with aiohttp.ClientSession() as session, session.ws_connect(double.gateway_url) as ws:
        hello = await ws.receive_json()
        assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] > 0
        await ws.send_json({"op": 1, "d": None})
        assert (await ws.receive_json())["op"] == 11
        await ws.send_json({"op": 2, "d": {"token": "nope", "intents": 0, "properties": {}}})
        closing = await ws.receive()
        assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == 4004
    assert any("wrong token" in v for v in double.violations)


async def test_unknown_route_is_404_and_a_violation(double: DiscordDouble) -> None:
    headers = {"Authorization": f"Bot {TOKEN}"}
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{double.api_base}/guilds/1/bans", headers=headers) as resp:
            assert resp.status == 404 and (await resp.json())["message"] == "404: Not Found"
        async with session.get(f"{double.api_base}/users/@me", headers=headers) as resp:
            assert resp.headers["X-RateLimit-Limit"] == "50"
            assert int(resp.headers["X-RateLimit-Remaining"]) < 50
            assert resp.headers["X-RateLimit-Bucket"]
    assert double.violations == ["GET /guilds/1/bans: route unknown to the double (and maybe to Discord)"]


async def test_resume_after_disconnect_replays_and_keeps_working(
        double: DiscordDouble, bot: Harness, alice: Member) -> None:
    session_id = double.gateway.current.id if double.gateway.current else None
    await double.disconnect_bot(4000)
    await double.wait_connected(timeout=10)
    assert double.gateway.resumes == 1 and double.gateway.identifies == 1
    assert double.gateway.current is not None and double.gateway.current.id == session_id
    res = await alice.slash("caro start")
    assert res.content == "3x3 k3 easy vs AI"


@pytest.mark.slow  # discord.py waits 5 s before any IDENTIFY that is not its first
async def test_invalid_session_makes_the_bot_identify_again(
        double: DiscordDouble, bot: Harness, alice: Member) -> None:
    await double.disconnect_bot(4000, resumable=False)
    await wait_until(lambda: double.gateway.identifies == 2 and double.gateway.connected, 10)
    res = await alice.slash("caro slow")
    assert res.callback_type == 5


async def test_rate_limited_request_is_retried(double: DiscordDouble, bot: Harness,
                                               alice: Member) -> None:
    double.fail_next("PATCH", r"/messages/@original$", status=429, retry_after=0.1)
    res = await alice.slash("caro slow")
    assert res.message is not None
    await res.message.wait_for(lambda m: m.content == "thought about it", timeout=5)
    patches = [r.status for r in double.requests if r.method == "PATCH"]
    assert patches == [429, 200]
    assert double.violations == []


async def test_server_error_is_retried(double: DiscordDouble, bot: Harness) -> None:
    channel = bot.get_channel(int(double.channel_id))
    assert isinstance(channel, discord.TextChannel)
    double.fail_next("POST", r"^/channels/\d+/messages$", status=500)
    await channel.send("after a hiccup")
    assert [r.status for r in double.requests if r.method == "POST"] == [500, 200]
    assert [m.content for m in double.messages()] == ["after a hiccup"]


async def post_message(double: DiscordDouble, body: dict[str, Any]) -> tuple[int, Any]:
    headers = {"Authorization": f"Bot {TOKEN}"}
    url = f"{double.api_base}/channels/{double.channel_id}/messages"
    async with aiohttp.ClientSession() as session, session.post(url, json=body,
                                                                headers=headers) as resp:
        return resp.status, await resp.json()


async def test_an_enforced_nonce_returns_the_message_already_made_instead_of_a_second(
        double: DiscordDouble) -> None:
    status, first = await post_message(double, {"content": "once", "nonce": "n-1",
                                                "enforce_nonce": True})
    assert status == 200 and first["nonce"] == "n-1"
    status, again = await post_message(double, {"content": "once more", "nonce": "n-1",
                                                "enforce_nonce": True})
    # Discord: the same author's message with this nonce from the past few minutes comes back.
    assert status == 200 and again["id"] == first["id"] and again["content"] == "once"
    # Without enforce_nonce, or with another nonce (an integer is a nonce too), a new message.
    _, plain = await post_message(double, {"content": "plain", "nonce": "n-1"})
    _, other = await post_message(double, {"content": "other", "nonce": 12345,
                                           "enforce_nonce": True})
    assert len({first["id"], plain["id"], other["id"]}) == 3
    assert [m.content for m in double.messages()] == ["once", "plain", "other"]
    assert double.violations == []


async def test_a_nonce_over_25_characters_is_refused_as_invalid(double: DiscordDouble) -> None:
    status, body = await post_message(double, {"content": "x", "nonce": "n" * 26})
    assert status == 400 and body["code"] == 50035
    assert body["errors"]["nonce"]["_errors"][0]["code"] == "BASE_TYPE_MAX_LENGTH"
    assert double.messages() == [] and len(double.violations) == 1


async def test_an_answer_lost_after_the_message_was_made_is_retried_into_the_same_message(
        double: DiscordDouble, bot: Harness) -> None:
    channel = bot.get_channel(int(double.channel_id))
    assert isinstance(channel, discord.TextChannel)
    double.fail_next("POST", r"^/channels/\d+/messages$", status=500, mode="after",
                     content="^lost answer$")
    # discord.py tries a 5xx again with the same body, so with the same nonce.
    sent = await channel.send("lost answer", nonce="caro-lost")
    assert [r.status for r in double.requests if r.method == "POST"] == [500, 200]
    assert [m.content for m in double.messages()] == ["lost answer"]
    assert str(sent.id) == double.messages()[0].id


async def test_a_dropped_connection_still_made_the_message(
        double: DiscordDouble, bot: Harness) -> None:
    channel = bot.get_channel(int(double.channel_id))
    assert isinstance(channel, discord.TextChannel)
    double.fail_next("POST", r"^/channels/\d+/messages$", status=500, mode="drop")
    with pytest.raises(aiohttp.ClientError):
        await channel.send("made, never answered", nonce="caro-drop")
    assert [m.content for m in double.messages()] == ["made, never answered"]
    again = await channel.send("made, never answered", nonce="caro-drop")
    assert str(again.id) == double.messages()[0].id and len(double.messages()) == 1


async def test_a_held_call_makes_nothing_and_is_answered_when_released(
        double: DiscordDouble, bot: Harness) -> None:
    channel = bot.get_channel(int(double.channel_id))
    assert isinstance(channel, discord.TextChannel)
    fault = double.fail_next("POST", r"^/channels/\d+/messages$", status=500, mode="hold",
                             content="held")
    await channel.send("not this one")
    sending = asyncio.create_task(channel.send("held", nonce="caro-held"))
    await wait_until(lambda: fault.held == 1, 5)
    assert [m.content for m in double.messages()] == ["not this one"]
    fault.release()
    # discord.py tries the 500 again, and that call goes through.
    sent = await asyncio.wait_for(sending, 10)
    assert [m.content for m in double.messages()] == ["not this one", "held"]
    assert str(sent.id) == double.messages()[1].id


async def test_resume_replays_missed_dispatches(double: DiscordDouble) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(double.gateway_url) as ws:
            await ws.receive_json()
            await ws.send_json({"op": 2, "d": {"token": TOKEN, "intents": 1, "properties": {}}})
            ready, guild = await ws.receive_json(), await ws.receive_json()
            assert (ready["t"], ready["s"], guild["t"], guild["s"]) == (
                "READY", 1, "GUILD_CREATE", 2)
            assert ready["d"]["resume_gateway_url"] == double.gateway_url
            assert {c["name"] for c in guild["d"]["channels"]} == {"general"}
            session_id = ready["d"]["session_id"]
        await double.gateway.dispatch("CHANNEL_CREATE", {"id": "1", "type": 0, "name": "missed"})
        async with session.ws_connect(double.gateway_url) as ws:
            await ws.receive_json()
            await ws.send_json({"op": 6, "d": {"token": TOKEN, "session_id": session_id, "seq": 2}})
            missed, resumed = await ws.receive_json(), await ws.receive_json()
            assert (missed["t"], missed["s"], missed["d"]["name"]) == ("CHANNEL_CREATE", 3, "missed")
            assert (resumed["t"], resumed["s"]) == ("RESUMED", 4)
        async with session.ws_connect(double.gateway_url) as ws:
            await ws.receive_json()
            await ws.send_json({"op": 6, "d": {"token": TOKEN, "session_id": "gone", "seq": 2}})
            assert await ws.receive_json() == {"op": 9, "d": False, "s": None, "t": None}
    assert double.violations == []


async def test_lookup_routes(double: DiscordDouble, bot: Harness, alice: Member) -> None:
    channel = await bot.fetch_channel(int(double.channel_id))
    assert channel.name == "general"  # type: ignore[union-attr]
    guild = await bot.fetch_guild(int(double.guild_id))
    assert guild.name == "caro test server"
    member = await guild.fetch_member(int(alice.id))
    assert member.name == "alice"
    user = await bot.fetch_user(int(alice.id))
    assert user.name == "alice"
    shards, url, limit = await bot.http.get_bot_gateway()
    assert (shards, url, limit["max_concurrency"]) == (1, double.gateway_url, 1)
    with pytest.raises(discord.NotFound):
        await bot.fetch_user(1)
    assert double.violations == ["GET /users/1: unknown user"]


async def test_a_member_leaves_and_a_server_removes_the_bot(
    double: DiscordDouble, bot: Harness, alice: Member,
) -> None:
    guild = bot.get_guild(int(double.guild_id))
    assert guild is not None
    other = double.add_guild("another server")
    await until(lambda: bot.get_guild(int(other)) is not None)
    double.leave(alice)
    # A member who left is a 404 like on Discord, and no broken rule: asking is how a bot
    # without the members intent finds out.
    with pytest.raises(discord.NotFound):
        await guild.fetch_member(int(alice.id))
    double.remove_bot(other)
    await until(lambda: bot.get_guild(int(other)) is None)
    with pytest.raises(discord.NotFound):
        await bot.fetch_guild(int(other))
    assert double.violations == [f"GET /guilds/{other}: unknown guild"]

# ----------------------------------------------------------------------------- interactions


async def test_slash_command_answered(double: DiscordDouble, bot: Harness, alice: Member) -> None:
    bob = double.add_member("bob")
    res = await alice.slash("caro start", size="7x7", difficulty="hard", opponent=bob, k=5)
    assert res.callback_type == 4 and not res.ephemeral
    assert res.content == "7x7 k5 hard vs bob"
    msg = res.message
    assert msg is not None and double.messages() == [msg]
    assert [b["custom_id"] for b in msg.buttons] == [
        "caro:cell:A1", "caro:cell:B1", "caro:cell:C1", "caro:cell:Z9", "caro:later"]
    meta = msg.payload["interaction_metadata"]
    assert meta["user"]["id"] == alice.id and meta["name"] == "caro"
    callback = next(r for r in double.requests if r.path.endswith("/callback"))
    assert callback.json["type"] == 4 and callback.query["with_response"] == "1"
    assert double.violations == []


async def test_interaction_payload_is_complete(double: DiscordDouble, bot: Harness,
                                               alice: Member) -> None:
    seen: list[discord.Interaction] = []

    async def on_interaction(interaction: discord.Interaction) -> None:
        seen.append(interaction)

    bot.add_listener(on_interaction)
    await alice.slash("caro admin say", text="hi all")
    inter = seen[0]
    assert inter.locale is discord.Locale.vietnamese
    assert inter.guild_locale is discord.Locale.american_english
    assert str(inter.user.id) == alice.id and isinstance(inter.user, discord.Member)
    assert inter.filesize_limit == 10 * 1024 * 1024
    data = inter.data or {}
    assert data["options"][0]["name"] == "admin" and data["options"][0]["type"] == 2
    assert data["options"][0]["options"][0]["options"] == [
        {"name": "text", "type": 3, "value": "hi all"}]
    await wait_until(lambda: len(double.messages()) == 1)
    assert double.messages()[0].content == "hi all"


async def test_user_option_is_resolved(double: DiscordDouble, bot: Harness, alice: Member) -> None:
    bob = double.add_member("bob")
    await alice.slash("caro start", opponent=bob)
    sent = double.interactions[next(iter(double.interactions))].payload["data"]
    assert sent["resolved"]["users"][bob.id]["username"] == "bob"
    assert bob.id in sent["resolved"]["members"] and "user" not in sent["resolved"]["members"][bob.id]


async def test_choices_are_not_validated_unless_strict(double: DiscordDouble, bot: Harness,
                                                       alice: Member) -> None:
    res = await alice.slash("caro start", difficulty="impossible")
    assert res.content == "3x3 k3 impossible vs AI"
    double.strict_choices = True
    with pytest.raises(AssertionError, match="not one of the choices"):
        await alice.slash("caro start", difficulty="impossible")


async def test_what_a_client_cannot_send_raises_in_the_test(bot: Harness, alice: Member) -> None:
    with pytest.raises(AssertionError, match="no option"):
        await alice.slash("caro start", colour="red")
    with pytest.raises(AssertionError, match="INTEGER"):
        await alice.slash("caro start", k="five")
    with pytest.raises(AssertionError, match="needs a subcommand"):
        await alice.slash("caro admin")
    with pytest.raises(AssertionError, match="no slash command"):
        await alice.slash("chess start")


async def test_autocomplete(double: DiscordDouble, bot: Harness, alice: Member) -> None:
    res = await alice.autocomplete("caro start", "size", size="1", k=5)
    assert res.callback_type == 8 and res.message is None
    assert res.data["choices"] == [{"name": "15x15", "value": "15x15"}]
    sent = double.interactions[res.interaction_id].payload
    assert sent["type"] == 4
    assert {"name": "size", "type": 3, "value": "1", "focused": True} in (
        sent["data"]["options"][0]["options"])
    with pytest.raises(AssertionError, match="no autocomplete"):
        await alice.autocomplete("caro start", "difficulty")
    assert double.violations == []


async def test_deferred_reply_is_edited(double: DiscordDouble, bot: Harness, alice: Member) -> None:
    res = await alice.slash("caro slow")
    assert res.callback_type == 5 and res.message is not None
    msg = await res.message.wait_for(lambda m: m.content == "thought about it", timeout=5)
    assert not msg.loading and msg.edits == 1
    assert double.violations == []


async def test_button_click_answered_by_update(double: DiscordDouble, bot: Harness,
                                               alice: Member) -> None:
    res = await alice.slash("caro start")
    assert res.message is not None
    click = await alice.click(res.message, "B1")
    assert click.callback_type == 7 and click.message is res.message
    assert res.message.content == "played B1" and res.message.edits == 1
    again = await alice.click(res.message, "caro:cell:C1")
    assert again.content == "played C1"
    with pytest.raises(AssertionError, match="disabled"):
        await alice.click(res.message, "Z9")
    with pytest.raises(AssertionError, match="no button"):
        await alice.click(res.message, "Q7")
    sent = double.interactions[click.interaction_id].payload
    assert sent["data"] == {"custom_id": "caro:cell:B1", "component_type": 2}
    assert sent["message"]["id"] == res.message.id
    assert double.violations == []


async def test_deferred_update_then_edit_original(double: DiscordDouble, bot: Harness,
                                                  alice: Member) -> None:
    res = await alice.slash("caro start")
    assert res.message is not None
    click = await alice.click(res.message, "Later")
    assert click.callback_type == 6 and click.message is res.message
    await res.message.wait_for(lambda m: m.content == "decided later", timeout=5)
    assert double.violations == []


async def test_forged_custom_id_unanswered_fails_the_interaction(
        double: DiscordDouble, bot: Harness, alice: Member) -> None:
    double.response_deadline = 0.3
    res = await alice.slash("caro start")
    assert res.message is not None
    with pytest.raises(InteractionFailed, match="This interaction failed"):
        await alice.click_custom_id(res.message, "caro:forged:1")
    assert double.violations and "not acknowledged" in double.violations[0]


async def test_ephemeral_messages_are_visible_only_to_their_user(
        double: DiscordDouble, bot: Harness, alice: Member) -> None:
    bob = double.add_member("bob")
    res = await alice.slash("caro secret")
    msg = res.message
    assert res.ephemeral and msg is not None and msg.ephemeral
    assert double.messages() == [] and bob.messages() == [] and alice.messages() == [msg]
    with pytest.raises(AssertionError, match="ephemeral"):
        await bob.click(msg, "A1")
    click = await alice.click(msg, "A1")
    assert click.callback_type == 7 and msg.content == "played A1" and msg.ephemeral
    headers = {"Authorization": f"Bot {TOKEN}"}
    url = f"{double.api_base}/channels/{double.channel_id}/messages/{msg.id}"
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as resp:
        assert resp.status == 404 and (await resp.json())["code"] == 10008


async def test_followups_after_an_ephemeral_defer(double: DiscordDouble, bot: Harness,
                                                  alice: Member) -> None:
    res = await alice.slash("caro followups")
    first, second = await res.followups(2, timeout=5)
    assert first is res.message and first.content == "first" and first.ephemeral
    assert second.content == "second" and not second.ephemeral
    assert double.messages() == [second]
    assert double.violations == []


async def test_follow_up_before_acknowledging_is_refused(double: DiscordDouble, bot: Harness,
                                                          alice: Member) -> None:
    res = await alice.slash("caro early")
    assert res.content == "then the response"
    assert codes(bot) == [10015]
    assert len(double.violations) == 1 and "before any initial response" in double.violations[0]


async def test_original_and_followup_messages_by_webhook(
        double: DiscordDouble, bot: Harness, alice: Member) -> None:
    res = await alice.slash("caro tidy")
    (follow,) = await res.followups(1, timeout=5)
    await follow.wait_for(lambda m: m.edits == 1, timeout=5)
    assert res.message is not None
    await res.message.wait_for(lambda m: m.deleted, timeout=5)
    assert bot.responses == ["temporary"]
    assert [m.content for m in double.messages()] == ["follow, edited"]
    assert double.violations == []


async def test_interaction_token_expires(double: DiscordDouble, bot: Harness,
                                         alice: Member) -> None:
    double.token_lifetime = 0.2
    res = await alice.slash("caro sleepy")
    assert res.callback_type == 5
    await wait_until(lambda: bot.errors)
    assert codes(bot) == [50027] and bot.errors[0].status == 401
    assert res.message is not None and res.message.loading
    assert "tokens last 0.2 s" in double.violations[0]


async def test_other_channel(double: DiscordDouble, bot: Harness, alice: Member) -> None:
    other = double.add_channel("games")
    res = await alice.slash("caro start", channel_id=other)
    assert res.message is not None and res.message.channel_id == other
    assert double.messages(other) == [res.message] and double.messages() == []
    assert double.interactions[res.interaction_id].payload["channel"]["name"] == "games"


async def test_invalid_command_schema_is_refused(double: DiscordDouble) -> None:
    bad = [{"name": "Caro", "description": "x" * 101, "type": 1,
            "options": [{"name": "a", "description": "a", "type": 3},
                        {"name": "b", "description": "b", "type": 3, "required": True}]}]
    url = f"{double.api_base}/applications/{double.application_id}/commands"
    async with aiohttp.ClientSession() as session, session.put(
            url, json=bad, headers={"Authorization": f"Bot {TOKEN}"}) as resp:
        body = await resp.json()
    assert resp.status == 400 and body["code"] == 50035
    assert set(body["errors"]["0"]) == {"name", "description", "options"}
    assert double.commands == {} and double.command_puts == 0
    assert len(double.violations) == 1


async def test_attachment_is_kept(double: DiscordDouble, bot: Harness, alice: Member) -> None:
    res = await alice.slash("caro picture")
    assert res.message is not None
    (att,) = res.message.attachments
    assert att["filename"] == "board.png" and att["content_type"] == "image/png"
    assert att["data"] == b"\x89PNG fake" and att["size"] == 9
    async with aiohttp.ClientSession() as session, session.get(att["url"]) as resp:
        assert await resp.read() == b"\x89PNG fake"
    assert double.violations == []


async def test_modal_round_trip(double: DiscordDouble, bot: Harness, alice: Member) -> None:
    res = await alice.slash("caro name")
    assert res.callback_type == 9 and res.modal is not None and res.modal["title"] == "Your name"
    reply = await alice.submit_modal(None, res.modal["custom_id"], {"name": "Lan"})
    assert reply.callback_type == 4 and reply.content == "hello Lan"
    assert double.violations == []


async def test_labelled_modal_with_a_select(double: DiscordDouble, bot: Harness,
                                            alice: Member) -> None:
    res = await alice.slash("caro setup")
    assert res.modal is not None and [c["type"] for c in res.modal["components"]] == [18, 18]
    reply = await alice.submit_modal(None, res.modal["custom_id"], {"size": "9x9", "level": ["hard"]})
    assert reply.content == "9x9 ['hard']"
    assert double.violations == []


# ----------------------------------------------------------------------------- rules


@pytest.mark.parametrize("case, path", [
    ("26 buttons", "data.components"),
    ("6 in a row", "data.components.0.components"),
    ("long custom_id", "data.components.0.components.0.custom_id"),
    ("duplicate custom_id", "data.components.0.components.1.custom_id"),
    ("long label", "data.components.0.components.0.label"),
    ("2001 chars", "data.content"),
    ("11 embeds", "data.embeds"),
    ("41 v2 components", "data.components"),
])
async def test_rule_breaking_responses_are_refused(double: DiscordDouble, bot: Harness,
                                                   alice: Member, case: str, path: str) -> None:
    res = await alice.slash("caro raw", case=case)
    assert res.content == "fallback"
    (err,) = bot.errors
    assert err.status == 400 and err.code == 50035
    assert path in err.text
    assert len(double.violations) == 1 and "Invalid Form Body" in double.violations[0]


async def test_25_buttons_are_fine_and_come_back_with_response(
        double: DiscordDouble, bot: Harness, alice: Member) -> None:
    res = await alice.slash("caro raw", case="25 buttons")
    assert res.message is not None and len(res.message.buttons) == 25
    await wait_until(lambda: bot.responses)
    (body,) = bot.responses
    assert body["interaction"]["response_message_id"] == res.message.id
    assert body["resource"]["type"] == 4 and body["resource"]["message"]["content"] == "ok"
    assert double.violations == []


async def test_second_initial_response_is_40060(double: DiscordDouble, bot: Harness,
                                                alice: Member) -> None:
    res = await alice.slash("caro twice")
    assert res.content == "one"
    await wait_until(lambda: bot.errors)
    assert codes(bot) == [40060]
    assert "second initial response" in double.violations[0]


async def test_update_is_only_for_components(double: DiscordDouble, bot: Harness,
                                             alice: Member) -> None:
    res = await alice.slash("caro update")
    assert res.content == "fallback" and codes(bot) == [50035]
    assert "not valid" in double.violations[0]


@pytest.mark.slow
async def test_late_response_fails_and_gets_10062(double: DiscordDouble, bot: Harness,
                                                  alice: Member) -> None:
    with pytest.raises(InteractionFailed):
        await alice.slash("caro late")
    await wait_until(lambda: bot.errors, timeout=5)
    assert codes(bot) == [10062] and bot.errors[0].status == 404
    assert any("not acknowledged within 3 s" in v for v in double.violations)
    # The answer came 0.3 s after the deadline, or later on a loaded machine.
    late = [re.search(r"initial response after (\d+\.\d+) s", v) for v in double.violations]
    assert any(found and float(found[1]) >= 3.3 for found in late), double.violations
    assert double.messages() == []


async def test_a_stalled_test_process_is_not_blamed_on_the_bot(
        double: DiscordDouble, bot: Harness, alice: Member) -> None:
    # Here the bot shares the test's process, so its blocking sleep stalls the double too: the
    # double cannot tell that from the test itself hogging the loop, and does not count it.
    double.response_deadline = 0.3
    res = await alice.slash("caro stall")
    assert res.content == "after a stall"
    assert double.violations == []


async def test_channel_message_limits(double: DiscordDouble, bot: Harness) -> None:
    channel = bot.get_channel(int(double.channel_id))
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as empty:
        await channel.send("")
    assert empty.value.code == 50006
    sent = await channel.send("hello")
    edited = await sent.edit(content="hello again")
    stored: Message = double.messages()[0]
    assert edited.content == stored.content == "hello again" and stored.edits == 1
    await sent.delete()
    assert stored.deleted and double.messages() == []
    assert double.violations == ["POST /channels/" + double.channel_id + "/messages: empty message"]


async def test_recorded_requests_carry_json_and_files(double: DiscordDouble, bot: Harness,
                                                      alice: Member) -> None:
    await alice.slash("caro picture")
    put = next(r for r in double.requests if r.method == "PUT")
    assert put.status == 200 and put.json[0]["name"] == "caro"
    upload = double.requests[-1]
    assert upload.path.endswith("/callback") and upload.files == ["board.png"]
    assert upload.json["type"] == 4 and upload.json["data"]["attachments"][0]["filename"] == "board.png"
    times = [r.time for r in double.requests]
    assert times == sorted(times)


# ----------------------------------------------------------------------------- as a process

BOT_PROCESS = r"""
import os, discord, yarl
from discord import app_commands

discord.http.Route.BASE = os.environ["DISCORD_API_BASE"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])


class Bot(discord.Client):
    def __init__(self):
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="ping", description="Ping")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"pong {interaction.locale.value}")

    async def setup_hook(self):
        await self.tree.sync()


Bot().run(os.environ["DISCORD_TOKEN"], log_handler=None)
"""


async def test_a_bot_process_runs_against_the_double(double: DiscordDouble, alice: Member) -> None:
    env = dict(os.environ, DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=double.api_base,
               DISCORD_GATEWAY_URL=double.gateway_url)
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", BOT_PROCESS, env=env,
                                                stdout=asyncio.subprocess.DEVNULL,
                                                stderr=asyncio.subprocess.PIPE)
    try:
        await double.wait_ready(timeout=30)
        assert [c["name"] for c in double.commands[None]] == ["ping"]
        res = await alice.slash("ping")
        assert res.content == "pong vi" and double.violations == []
    finally:
        proc.terminate()
        _, err = await proc.communicate()
    assert TOKEN.encode() not in err


def test_double_bench_help_and_bad_rounds_are_answered_without_a_traceback() -> None:
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    shown = subprocess.run([sys.executable, "-m", "testkit.discord_double.bench", "--help"],
                           cwd=root, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0 and "rounds" in shown.stdout
    bad = subprocess.run([sys.executable, "-m", "testkit.discord_double.bench", "0"],
                         cwd=root, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "rounds must be 1 or more" in bad.stderr
    assert "Traceback" not in bad.stderr


async def test_a_player_cancelled_as_a_change_arrives_stops_waiting() -> None:
    # A crash campaign cancels its players right after a kill, while the bot's last edits still
    # arrive: a waiter that swallowed that cancellation (asyncio.wait_for on Python 3.11 does)
    # went on playing, and the round waited for it forever.
    changes = Changes()
    waiter = asyncio.ensure_future(changes.wait(10))
    await asyncio.sleep(0)
    changes.notify()
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter


async def test_a_change_wakes_its_waiter_and_a_quiet_wait_ends_at_its_timeout() -> None:
    changes = Changes()
    loop = asyncio.get_running_loop()
    waiter = asyncio.ensure_future(changes.wait(10))
    await asyncio.sleep(0)
    changes.notify()
    await asyncio.wait_for(waiter, 1)
    started = loop.time()
    await changes.wait(0.05)
    assert loop.time() - started >= 0.04


def test_a_new_message_notifies_only_the_mentions_its_allowed_mentions_let_through() -> None:
    content = "<@1> <@!2> <@&9> @everyone"
    assert notified(content, None) == (["1", "2"], ["9"], True)
    assert notified(content, {"parse": []}) == ([], [], False)
    assert notified(content, {"parse": [], "users": ["2"]}) == (["2"], [], False)
    assert notified(content, {"parse": ["users", "everyone"]}) == (["1", "2"], [], True)
    # Only a mention written in the content rings, whatever the list allows.
    assert notified("hello", {"users": ["1"]}) == ([], [], False)
