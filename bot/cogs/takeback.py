"""Takebacks: `/caro takeback` takes the member's last move back in a casual game (against the AI
at once; between members once the other accepts, with the buttons of a request posted in the
channel, or in a game between two servers in the other member's own channel, by the outbox,
whose answer comes back to the asker's). The rules are the game's (bot.game.takebacks); this
parses, calls and draws."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import text
from bot.game.errors import UserError
from bot.game.model import GameState, jump_link
from bot.game.outbox_model import PostKind, PostRow
from bot.game.takebacks import Request
from bot.i18n.texts import text_in
from bot.ui.buttons import TakebackAccept, TakebackDecline, answers
from bot.ui.languages import member_language
from bot.ui.notices import only
from bot.ui.posts import NewMessage, Rendered
from bot.ui.render import takeback_request_content, takeback_request_view
from bot.ui.replies import refuse, say

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")


def board_link(state: GameState) -> str:
    row = state.row
    return "" if row.message_id is None else jump_link(row.guild_id, row.channel_id, row.message_id)


class TakebackCog(commands.Cog, name="Takeback"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot

    @app_commands.command(name=text("cmdname.takeback"), description=text("cmd.takeback"))
    async def takeback(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        user_id = interaction.user.id
        running = await self.bot.services.games.active_game(guild_id, channel_id, user_id)
        # Else the member's board in this channel of a game between two servers.
        game_id = running.id if running is not None else (
            await self.bot.services.queue.board_game(guild_id, channel_id, user_id))
        if game_id is None:
            await say(interaction, "error.no_running_game")
            return
        try:
            done = await self.bot.services.takebacks.take_back(game_id, user_id)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        if isinstance(done, Request) and done.across:
            # The outbox asks the other member in their own channel; they are named, never
            # mentioned, here.
            names = await self.bot.boards.look.names(done.state, guild_id)
            await say(interaction, "takeback.asked_across", user=names.get(done.opponent, ""),
                      cell=done.state.row.moves[-1].cell)
            log.info("game %d: takeback asked across servers at move %d", done.state.id,
                     done.state.board.ply)
            return
        if isinstance(done, Request):
            await interaction.response.send_message(
                takeback_request_content(done.state, done.requester, done.opponent),
                view=takeback_request_view(done.state),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=done.opponent)]),
            )
            log.info("game %d: takeback asked at move %d", done.state.id, done.state.board.ply)
            return
        await say(interaction, "takeback.done", link=board_link(done))
        await self.bot.boards.taken_back(done)

    @answers(TakebackAccept)
    async def accept(
        self, interaction: discord.Interaction[Any], click: TakebackAccept, _: None
    ) -> None:
        state = await self.bot.services.takebacks.accept(click.game, click.ply, interaction.user.id)
        boards = self.bot.boards
        # The request may be on the game's board in another server than its own: the line
        # speaks that board's language and links to it.
        line = text_in(
            await boards.look.locale(state, interaction.guild_id) or state.row.locale,
            "takeback.accepted",
            user=f"<@{interaction.user.id}>",
            link=await boards.link_in(state, interaction.guild_id),
        )
        await interaction.response.edit_message(content=line, view=None)
        if await boards.look.cross(state) is not None:
            return  # the takeback's outbox rows redraw each board and answer the asker
        await boards.taken_back(state)
        # It is the asker's turn again: they are called like after any move.
        self.bot.spawn(boards.notices.turn(state, actor=interaction.user.id))

    @answers(TakebackDecline)
    async def decline(
        self, interaction: discord.Interaction[Any], click: TakebackDecline, _: None
    ) -> None:
        state = await self.bot.services.takebacks.decline(
            click.game, click.ply, interaction.user.id
        )
        locale = await self.bot.boards.look.locale(state, interaction.guild_id)
        line = text_in(locale or state.row.locale, "takeback.declined",
                       user=f"<@{interaction.user.id}>")
        await interaction.response.edit_message(content=line, view=None)

    async def render_post(self, post: PostRow) -> Rendered:
        """A takeback in a game between two servers, in the channel of `member` (their own
        server's): the request, with its Accept and Decline, while it is open; or the answer to
        the asker."""
        if post.kind not in (PostKind.TAKEBACK_REQUEST, PostKind.TAKEBACK_ANSWER):
            raise ValueError(f"post {post.id}: {post.kind} is not a takeback's")
        state = await self.bot.services.games.state(post.number("game"))
        if state is None:
            return None
        member = post.number("member")
        place = await self.bot.boards.look.place(state, member)
        if place is None:
            return None
        names = await self.bot.boards.look.names(state, place.guild_id)
        view = None
        if post.kind is PostKind.TAKEBACK_REQUEST:
            ply, asker = post.number("ply"), post.number("asker")
            if not state.active or state.board.ply != ply or not state.row.takeback_pending:
                return None  # answered by a move, or the game ended: nothing to ask
            content = takeback_request_content(state, asker, member, locale=place.locale,
                                               name=names.get(asker, ""))
            view = takeback_request_view(state, place.locale)
        else:
            locale = await member_language(self.bot.services, place.guild_id, member,
                                           client=place.locale)
            key = "takeback.accepted_across" if post.number("accepted") else (
                "takeback.declined_across")
            content = text_in(locale, key, member=f"<@{member}>",
                              user=names.get(post.number("answerer"), ""))
        alone = NewMessage(content, view=view, allowed_mentions=only(member))
        if place.message_id is None:
            return alone
        # A reply to the member's own board; the message alone if replies are not allowed.
        reference = self.bot.get_partial_messageable(
            place.channel_id, guild_id=place.guild_id
        ).get_partial_message(place.message_id).to_reference(fail_if_not_exists=False)
        return NewMessage(content, view=view, allowed_mentions=only(member),
                          reference=reference, fallback=alone)


__all__ = ["TakebackCog", "board_link"]
