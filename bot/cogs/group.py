"""The `/caro` command group shared by the feature cogs, its one guild/channel check, the tree's
error handler and the sync of the command schema when (and only when) it changed.

Options arrive as plain strings and are validated by the game service: Discord's choice lists
are only a client-side hint (a hostile client can send anything). Every name and description
carries its text id, for the translator.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str

from bot.game.errors import UserError
from bot.game.options import SIZES, parse_size
from bot.game.ports import StorageUnavailable
from bot.i18n.texts import t, text_in
from bot.ui.languages import language
from bot.ui.replies import refuse, say, unreachable
from engine.game.notation import MAX_SIDE

log = logging.getLogger("caro.bot")
# Discord's error code for an interaction that can no longer be answered (past its 3 s).
UNKNOWN_INTERACTION = 10062

COMMANDS_HASH_KEY = "commands_hash"


def text(key: str) -> locale_str:
    """A command text in English, carrying its id so the translator can find other languages."""
    return locale_str(t(key), key=key)


def option_names(*parameters: str) -> dict[str, locale_str]:
    """Each option shows under its own text id, optname.<parameter>."""
    return {name: text(f"optname.{name}") for name in parameters}


def choices(prefix: str, values: tuple[str, ...] | list[str]) -> list[Choice[str]]:
    return [Choice(name=text(f"{prefix}.{v}"), value=v) for v in values]


class NotInServerChannel(app_commands.CheckFailure):
    """A /caro command from a direct message or with no channel: games live in server channels."""


class CaroGroup(app_commands.Group):
    """`/caro`: every feature cog adds its subcommands here (see CaroBot.adopt_commands)."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        # guild_only hides the group in DMs, but a modified client may still send it there.
        if interaction.guild_id is None or interaction.channel_id is None:
            raise NotInServerChannel()
        return True


def caro_group() -> CaroGroup:
    return CaroGroup(name=text("cmdname.caro"), description=text("cmd.group"), guild_only=True)


class CaroTree(app_commands.CommandTree[Any]):
    """The command tree; its error handler answers every refused or failed command."""

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError, /
    ) -> None:
        if isinstance(error, NotInServerChannel):
            await say(interaction, "error.guild_only")
            return
        if isinstance(error, app_commands.CommandOnCooldown):
            await say(interaction, "error.cooldown", seconds=f"{max(1, round(error.retry_after))}")
            return
        if isinstance(error, app_commands.CheckFailure):
            await say(interaction, "error.internal")
            return
        if isinstance(error, app_commands.CommandInvokeError) and isinstance(
            error.original, UserError
        ):
            # The game service refused (a limit, a closed game...): the member's short answer.
            await refuse(interaction, error.original)
            return
        if isinstance(error, app_commands.CommandInvokeError) and isinstance(
            error.original, StorageUnavailable
        ):
            await unreachable(interaction)
            return
        if self.client.is_closed():
            # Stopping: the session is closed under the command; the game service left nothing
            # half-written, and the member can try again once the bot is back.
            log.info("a command was cut short by the shutdown (%s)", type(error).__name__)
            return
        original = getattr(error, "original", error)
        if isinstance(original, discord.NotFound) and original.code == UNKNOWN_INTERACTION:
            # Answered after Discord's 3 s: the interaction is gone and nothing can be said to
            # the member; the game service left nothing half-written.
            log.warning("a command was answered too late for Discord (%s)", original.text)
            return
        log.error("command failed", exc_info=error)
        if not interaction.response.is_done():
            try:
                await say(interaction, "error.internal")
            except discord.HTTPException as exc:
                log.warning("could not tell the member the command failed (%s)", exc)


async def commands_hash(tree: app_commands.CommandTree[Any], guild: discord.Object | None) -> str:
    """A digest of the payload a sync would send for `guild` (None: global), translations
    included, so a changed name, option or localisation changes it."""
    translator = tree.translator
    payload = []
    for command in tree.get_commands(guild=guild):
        if translator is None:
            payload.append(command.to_dict(tree))
        else:
            payload.append(await command.get_translated_payload(tree, translator))
    scope = "global" if guild is None else str(guild.id)
    body = json.dumps(payload, sort_keys=True, default=str).encode()
    return f"{scope}:{hashlib.sha256(body).hexdigest()}"


async def sync_if_changed(
    tree: app_commands.CommandTree[Any],
    guild: discord.Object | None,
    *,
    stored: str | None,
    store: Callable[[str], Awaitable[None]],
    force: bool = False,
) -> bool:
    """Register the commands with Discord if their schema differs from the `stored` digest (or
    `force`); whether it synced. Discord keeps registered commands, and syncing on every start
    counts against a daily limit, so an unchanged schema is left alone."""
    digest = await commands_hash(tree, guild)
    if digest == stored and not force:
        log.info("commands unchanged since the last sync; not syncing")
        return False
    synced = await tree.sync(guild=guild)
    await store(digest)
    where = "globally" if guild is None else f"to guild {guild.id}"
    log.info("synced %d command(s) %s", len(synced), where)
    return True


async def size_suggestions(
    interaction: discord.Interaction[Any], current: str
) -> list[Choice[str]]:
    """The presets matching what is typed, and the typed size itself if it is a valid one
    (any board up to 26x26); for a typed size that is not valid, one entry saying what is."""
    loc = await language(interaction)
    typed = current.strip().lower()
    found = [Choice(name=text_in(loc, f"size.{key}"), value=key) for key in SIZES if typed in key]
    if typed and typed not in SIZES:
        try:
            rows, cols, k = parse_size(typed)
        except UserError:
            if not found:
                # A choice's value is what gets sent: the typed text itself, so picking this
                # entry gives the usual refusal naming the allowed sizes.
                name = text_in(loc, "size.allowed", max=MAX_SIDE)
                return [Choice(name=name[:100], value=typed[:20] or "?")]
        else:
            if (rows, cols, k) in SIZES.values():
                return found[:25]  # a preset written short ("15"): listed once, as the preset
            name = text_in(loc, "size.custom", rows=rows, cols=cols, k=k)
            found.insert(0, Choice(name=name, value=typed[:20]))
    return found[:25]


__all__ = [
    "COMMANDS_HASH_KEY",
    "CaroGroup",
    "CaroTree",
    "NotInServerChannel",
    "caro_group",
    "choices",
    "commands_hash",
    "option_names",
    "size_suggestions",
    "sync_if_changed",
    "text",
]
