"""`/caro block` and `/caro unblock`: a member keeps others from challenging them and from
being paired with them, in every server. `/caro block` with no member lists whom they blocked.
Every answer is private: the blocked member is never told."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import option_names, text
from bot.game.errors import UserError
from bot.ui.replies import refuse, say

if TYPE_CHECKING:
    from bot.cogs.host import Host


class BlocksCog(commands.Cog, name="Blocks"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.block"), description=text("cmd.block"))
    @app_commands.rename(**option_names("member"))
    @app_commands.describe(member=text("cmd.block.member"))
    async def block(
        self, interaction: discord.Interaction[Any], member: discord.User | None = None
    ) -> None:
        blocks = self.bot.services.blocks
        if member is None:
            found = await blocks.blocked(interaction.user.id)
            if not found:
                await say(interaction, "block.list_empty")
                return
            await say(interaction, "block.list", users=", ".join(f"<@{u}>" for u in found))
            return
        try:
            await blocks.block(interaction.user.id, member.id, other_is_bot=member.bot)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await say(interaction, "block.done", user=f"<@{member.id}>")

    @app_commands.command(name=text("cmdname.unblock"), description=text("cmd.unblock"))
    @app_commands.rename(**option_names("member"))
    @app_commands.describe(member=text("cmd.unblock.member"))
    async def unblock(self, interaction: discord.Interaction[Any], member: discord.User) -> None:
        try:
            await self.bot.services.blocks.unblock(interaction.user.id, member.id)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        await say(interaction, "block.lifted", user=f"<@{member.id}>")


__all__ = ["BlocksCog"]
