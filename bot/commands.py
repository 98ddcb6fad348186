"""The /caro slash command group. Options arrive as plain strings and are validated by the game
service, because Discord's choice lists are only a client-side hint (a hostile client can send
anything)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.app_commands import Choice

from .games import FIRSTS, LEVELS, RULES, SIZES
from .texts import t

if TYPE_CHECKING:
    from .client import CaroBot

caro_group = app_commands.Group(name="caro", description=t("cmd.group"), guild_only=True)


def _bot(interaction: discord.Interaction[Any]) -> CaroBot:
    return cast("CaroBot", interaction.client)


@caro_group.command(name="start", description=t("cmd.start"))
@app_commands.describe(
    difficulty=t("cmd.start.difficulty"),
    size=t("cmd.start.size"),
    rule=t("cmd.start.rule"),
    first=t("cmd.start.first"),
)
@app_commands.choices(
    difficulty=[Choice(name=t(f"level.{v}"), value=v) for v in LEVELS],
    size=[Choice(name=t(f"size.{v}"), value=v) for v in SIZES],
    rule=[Choice(name=t(f"rule.{v}"), value=v) for v in RULES],
    first=[Choice(name=t(f"first.{v}"), value=v) for v in FIRSTS],
)
async def start(
    interaction: discord.Interaction[Any],
    difficulty: str | None = None,
    size: str | None = None,
    rule: str | None = None,
    first: str | None = None,
) -> None:
    await _bot(interaction).start_game(interaction, difficulty, size, rule, first)


@caro_group.command(name="stats", description=t("cmd.stats"))
@app_commands.describe(user=t("cmd.stats.user"))
async def stats(interaction: discord.Interaction[Any], user: discord.User | None = None) -> None:
    await _bot(interaction).send_stats(interaction, user)


@caro_group.command(name="leaderboard", description=t("cmd.leaderboard"))
async def leaderboard(interaction: discord.Interaction[Any]) -> None:
    await _bot(interaction).send_leaderboard(interaction)


@caro_group.command(name="help", description=t("cmd.help"))
async def help_(interaction: discord.Interaction[Any]) -> None:
    await _bot(interaction).send_help(interaction)
