"""The /caro group (bot/cogs/group.py): through the Discord double and the real bot process, its
commands are registered again only when they changed; and in narrow unit tests with stand-in
interactions (Discord cannot send a direct-message interaction through the double), its one
guild/channel check, the tree's error handler and the schema hash that decides whether commands
are registered again."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.cogs.group import CaroTree, NotInServerChannel, caro_group, commands_hash, sync_if_changed
from testkit.bot_process import BotHandle, StartBot


def command_puts(bot: BotHandle) -> int:
    return sum(
        1 for r in bot.double.requests if r.method == "PUT" and r.path.endswith("/commands")
    )


async def test_commands_are_registered_again_only_when_they_changed(start_bot: StartBot) -> None:
    bot = await start_bot()
    assert command_puts(bot) == 1
    await bot.restart()
    assert command_puts(bot) == 1
    assert "commands unchanged since the last sync" in bot.log_text()
    # A schema this version did not register (an older version's) is registered again.
    await bot.stop()
    with sqlite3.connect(bot.db_path) as db:
        db.execute("UPDATE meta SET value = 'older' WHERE key = 'commands_hash'")
    await bot.start()
    assert command_puts(bot) == 2
    alice = bot.double.add_member("alice")
    assert (await alice.slash("caro help")).ephemeral


# ------------------------------------------------------------------ stand-in interactions

class Response:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bool]] = []

    def is_done(self) -> bool:
        return bool(self.sent)

    async def send_message(self, text: str, *, ephemeral: bool = False) -> None:
        self.sent.append((text, ephemeral))


class DirectMessage:
    """What matters of an interaction from a direct message: no server, no server channel."""

    guild_id = None
    channel_id = 5
    locale = discord.Locale.vietnamese
    response: Response

    def __init__(self) -> None:
        self.response = Response()
        self.extras: dict[object, object] = {}


def tree_with(description: str) -> app_commands.CommandTree[Any]:
    client = discord.Client(intents=discord.Intents.none())
    tree: app_commands.CommandTree[Any] = CaroTree(client)
    group = caro_group()

    @group.command(name="ping", description=description)
    async def ping(interaction: discord.Interaction[Any]) -> None:
        """A command to hash."""

    tree.add_command(group)
    return tree


def test_a_command_from_a_direct_message_is_refused_in_the_members_language() -> None:
    async def run() -> list[tuple[str, bool]]:
        interaction: Any = DirectMessage()
        group = caro_group()
        with pytest.raises(NotInServerChannel):
            await group.interaction_check(interaction)
        tree = tree_with("pong")
        await tree.on_error(interaction, NotInServerChannel())
        return interaction.response.sent

    sent = asyncio.run(run())
    assert len(sent) == 1 and sent[0][1] is True  # private
    assert "máy chủ" in sent[0][0]  # Vietnamese: "server"


def test_the_schema_hash_follows_what_would_be_registered() -> None:
    async def run() -> tuple[str, str, str, str]:
        same = await commands_hash(tree_with("pong"), None)
        again = await commands_hash(tree_with("pong"), None)
        changed = await commands_hash(tree_with("pong!"), None)
        elsewhere = await commands_hash(tree_with("pong"), discord.Object(id=42))
        return same, again, changed, elsewhere

    same, again, changed, elsewhere = asyncio.run(run())
    assert same == again
    assert changed != same
    assert elsewhere != same and elsewhere.startswith("42:")


def test_an_unchanged_schema_is_not_registered_again() -> None:
    stored: list[str] = []

    async def run() -> bool:
        tree = tree_with("pong")
        digest = await commands_hash(tree, None)

        async def store(value: str) -> None:
            stored.append(value)

        # tree.sync would need a logged-in client: reaching it here would raise.
        return await sync_if_changed(tree, None, stored=digest, store=store)

    assert asyncio.run(run()) is False and stored == []
