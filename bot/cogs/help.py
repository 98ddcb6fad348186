"""`/caro help`: how to play, in the member's language; with a topic, one rule and its picture."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, text
from bot.game.levels import ExternalLevel
from bot.i18n.texts import text_in
from bot.i18n.translator import locale_of
from bot.ui import picture_jobs
from bot.ui.help_text import help_sections
from bot.ui.languages import language, reply_text
from bot.ui.rule_pictures import RuleTopic

# The picture's file name in the message, which the embed points at.
RULE_PNG = "rule.png"

if TYPE_CHECKING:
    from bot.cogs.host import Host


def help_embed(
    external: ExternalLevel, locale: str = "en-US", client: str | None = None
) -> discord.Embed:
    """/caro help as one embed: the introduction, then a field per section (commands named as
    a Discord client in `client` shows them; by default `locale`)."""
    (_, introduction), *sections = help_sections(locale, external, client)
    embed = discord.Embed(title=text_in(locale, "help.title"), description=introduction)
    for title, body in sections:
        embed.add_field(name=title, value=body, inline=False)
    return embed


class HelpCog(commands.Cog, name="Help"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        # A handful at most: two topics in each language and theme.
        self._pictures: dict[tuple[RuleTopic, str, str], bytes] = {}

    @app_commands.command(name=text("cmdname.help"), description=text("cmd.help"))
    @app_commands.rename(**option_names("topic"))
    @app_commands.describe(topic=text("cmd.help.topic"))
    @app_commands.choices(topic=choices("topic", [topic.value for topic in RuleTopic]))
    async def help(self, interaction: discord.Interaction[Any], topic: str | None = None) -> None:
        locale = await language(interaction)
        if topic is None:
            await interaction.response.send_message(
                embed=help_embed(self.bot.external, locale, locale_of(interaction)),
                ephemeral=True,
            )
            return
        # Discord sends only the choices offered; anything else is a forged request.
        if topic not in {known.value for known in RuleTopic}:
            await interaction.response.send_message(
                await reply_text(interaction, "error.bad_topic"), ephemeral=True
            )
            return
        chosen = RuleTopic(topic)
        embed = discord.Embed(
            title=text_in(locale, f"topic.{chosen.value}"),
            description=await reply_text(interaction, f"help.topic.{chosen.value}"),
        )
        embed.set_image(url=f"attachment://{RULE_PNG}")
        theme = await self.bot.services.preferences.theme(interaction.user.id)
        key = (chosen, locale, theme)
        picture = self._pictures.get(key)
        if picture is not None:
            await interaction.response.send_message(
                embed=embed, file=discord.File(io.BytesIO(picture), RULE_PNG), ephemeral=True
            )
            return
        # Drawn once per topic, language and theme, in the pool and never on the event loop;
        # acknowledged first, as the pool may be busy with AI moves.
        await interaction.response.defer(ephemeral=True, thinking=True)
        picture = await self.bot.ai.run_on_cpu(
            interaction.user.id, picture_jobs.rule_picture, chosen.value, locale, theme
        )
        self._pictures[key] = picture
        await interaction.followup.send(
            embed=embed, file=discord.File(io.BytesIO(picture), RULE_PNG), ephemeral=True
        )
