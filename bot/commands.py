"""The /caro slash command group. Options arrive as plain strings and are validated by the game
service, because Discord's choice lists are only a client-side hint (a hostile client can send
anything). Every name and description carries its text id, for the translator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.app_commands import Choice, locale_str

from .games import (
    CHALLENGE_FIRSTS,
    DIFFICULTIES,
    FIRSTS,
    LEVELS,
    RULES,
    SIZES,
    UserError,
    parse_size,
)
from .texts import t, text_in
from .translator import locale_of

if TYPE_CHECKING:
    from .client import CaroBot

SCOPES: tuple[str, ...] = ("server", "global")
MODES: tuple[str, ...] = ("pvp", "ai")


def _s(key: str) -> locale_str:
    """A command text in English, carrying its id so the translator can find other languages."""
    return locale_str(t(key), key=key)


def _option_names(*parameters: str) -> dict[str, locale_str]:
    """Each option shows under its own text id, optname.<parameter>."""
    return {name: _s(f"optname.{name}") for name in parameters}


def _choices(prefix: str, values: tuple[str, ...] | list[str]) -> list[Choice[str]]:
    return [Choice(name=_s(f"{prefix}.{v}"), value=v) for v in values]


caro_group = app_commands.Group(
    name=_s("cmdname.caro"), description=_s("cmd.group"), guild_only=True
)


def _bot(interaction: discord.Interaction[Any]) -> CaroBot:
    return cast("CaroBot", interaction.client)


@caro_group.command(name=_s("cmdname.start"), description=_s("cmd.start"))
@app_commands.rename(**_option_names("difficulty", "size", "rule", "first"))
@app_commands.describe(
    difficulty=_s("cmd.start.difficulty"),
    size=_s("cmd.start.size"),
    rule=_s("cmd.start.rule"),
    first=_s("cmd.start.first"),
)
@app_commands.choices(
    difficulty=_choices("level", DIFFICULTIES),
    rule=_choices("rule", RULES),
    first=_choices("first", FIRSTS),
)
async def start(
    interaction: discord.Interaction[Any],
    difficulty: str | None = None,
    size: str | None = None,
    rule: str | None = None,
    first: str | None = None,
) -> None:
    await _bot(interaction).start_game(interaction, difficulty, size, rule, first)


@caro_group.command(name=_s("cmdname.challenge"), description=_s("cmd.challenge"))
@app_commands.rename(**_option_names("opponent", "size", "rule", "first"))
@app_commands.describe(
    opponent=_s("cmd.challenge.opponent"),
    size=_s("cmd.start.size"),
    rule=_s("cmd.start.rule"),
    first=_s("cmd.challenge.first"),
)
@app_commands.choices(
    rule=_choices("rule", RULES),
    first=_choices("first", CHALLENGE_FIRSTS),
)
async def challenge(
    interaction: discord.Interaction[Any],
    opponent: discord.User,
    size: str | None = None,
    rule: str | None = None,
    first: str | None = None,
) -> None:
    await _bot(interaction).send_challenge(interaction, opponent, size, rule, first)


@caro_group.command(name=_s("cmdname.watch"), description=_s("cmd.watch"))
@app_commands.rename(**_option_names("x_level", "o_level", "size", "rule"))
@app_commands.describe(
    x_level=_s("cmd.watch.x_level"),
    o_level=_s("cmd.watch.o_level"),
    size=_s("cmd.start.size"),
    rule=_s("cmd.start.rule"),
)
@app_commands.choices(
    x_level=_choices("level", LEVELS),
    o_level=_choices("level", LEVELS),
    rule=_choices("rule", RULES),
)
async def watch(
    interaction: discord.Interaction[Any],
    x_level: str | None = None,
    o_level: str | None = None,
    size: str | None = None,
    rule: str | None = None,
) -> None:
    await _bot(interaction).start_watch(interaction, x_level, o_level, size, rule)


async def size_suggestions(
    interaction: discord.Interaction[Any], current: str
) -> list[Choice[str]]:
    """The presets matching what is typed, and the typed size itself if it is a valid one
    (any board up to 26x26): a list of choices could not offer those."""
    loc = locale_of(interaction)
    typed = current.strip().lower()
    found = [
        Choice(name=text_in(loc, f"size.{key}"), value=key) for key in SIZES if typed in key
    ]
    if typed and typed not in SIZES:
        try:
            rows, cols, k = parse_size(typed)
        except UserError:
            pass
        else:
            if (rows, cols, k) in SIZES.values():
                return found[:25]  # a preset written short ("15"): listed once, as the preset
            name = text_in(loc, "size.custom", rows=rows, cols=cols, k=k)
            found.insert(0, Choice(name=name, value=typed[:20]))
    return found[:25]


start.autocomplete("size")(size_suggestions)
challenge.autocomplete("size")(size_suggestions)
watch.autocomplete("size")(size_suggestions)


@caro_group.command(name=_s("cmdname.resign"), description=_s("cmd.resign"))
async def resign(interaction: discord.Interaction[Any]) -> None:
    await _bot(interaction).resign_in_channel(interaction)


@caro_group.command(name=_s("cmdname.hint"), description=_s("cmd.hint"))
async def hint(interaction: discord.Interaction[Any]) -> None:
    await _bot(interaction).hint_in_channel(interaction)


@caro_group.command(name=_s("cmdname.rematch"), description=_s("cmd.rematch"))
async def rematch(interaction: discord.Interaction[Any]) -> None:
    await _bot(interaction).rematch_in_channel(interaction)


@caro_group.command(name=_s("cmdname.settings"), description=_s("cmd.settings"))
@app_commands.rename(**_option_names("timeout", "ai_timeout"))
@app_commands.describe(timeout=_s("cmd.settings.timeout"), ai_timeout=_s("cmd.settings.ai_timeout"))
async def settings(
    interaction: discord.Interaction[Any],
    timeout: float | None = None,
    ai_timeout: float | None = None,
) -> None:
    await _bot(interaction).change_settings(interaction, timeout, ai_timeout)


@caro_group.command(name=_s("cmdname.stats"), description=_s("cmd.stats"))
@app_commands.rename(**_option_names("user"))
@app_commands.describe(user=_s("cmd.stats.user"))
async def stats(interaction: discord.Interaction[Any], user: discord.User | None = None) -> None:
    await _bot(interaction).send_stats(interaction, user)


@caro_group.command(name=_s("cmdname.leaderboard"), description=_s("cmd.leaderboard"))
@app_commands.rename(**_option_names("scope", "mode"))
@app_commands.describe(scope=_s("cmd.leaderboard.scope"), mode=_s("cmd.leaderboard.mode"))
@app_commands.choices(scope=_choices("scope", SCOPES), mode=_choices("mode", MODES))
async def leaderboard(
    interaction: discord.Interaction[Any], scope: str | None = None, mode: str | None = None
) -> None:
    await _bot(interaction).send_leaderboard(interaction, scope, mode)


@caro_group.command(name=_s("cmdname.help"), description=_s("cmd.help"))
async def help_(interaction: discord.Interaction[Any]) -> None:
    await _bot(interaction).send_help(interaction)
