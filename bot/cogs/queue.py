"""`/caro queue`: a member waits for an opponent of this server, with a Leave button; the
pairing loop (one per process, for the servers of its shards) pairs the waiting, posts each
pair's game in the channel of the one who waited longer, mentioning both, and turns both queue
messages into a link to it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import choices, option_names, size_suggestions, text
from bot.cogs.host import keep_listening
from bot.game.errors import UserError
from bot.game.mirrors import TIDY
from bot.game.model import GameState, shard_of_guild
from bot.game.options import RULES, parse_options
from bot.game.outbox_model import NewPost, PostKind, PostRow
from bot.game.ports import StorageUnavailable
from bot.game.queue_model import GameBoard, QueueEntry, QueuePairing, QueueStatus
from bot.ui.buttons import QueueLeave, answers
from bot.ui.languages import language
from bot.ui.posts import Rendered
from bot.ui.queue_view import left_content, paired_content, waiting_content, waiting_view
from bot.ui.replies import refuse
from engine import Rule

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")

# How often each process pairs its servers' queue when nobody joins: the accepted rating gap
# widens every 10 s (bot.game.queue_model), so a pair that became possible waits at most this.
PAIR_EVERY_S = 2.0
# After Discord refused a queued game's board, how long before it is posted again.
REPOST_AFTER_S = 60.0
# How often each process looks at the seats of the games between two servers of its servers:
# the bot hears of no member leaving (no members intent), and the other member should not wait
# out the clock of someone who cannot come back.
SEATS_EVERY_S = 10.0
# A member is asked for (a call to Discord) only once their turn has lasted this long: the one
# who plays on, as most do within a minute, costs nothing, and the one who left is still found
# well before a turn clock runs out. The member who waits for the other is not asked for: one
# who left is found once their turn comes.
SEAT_TURN_S = 60.0
DEFAULT_SIZE = "15x15"
# The `scope` option of /caro queue: paired with members of any server (unless the server turned
# that off in /caro settings), or of this server only.
ANY_SERVER = "any"
THIS_SERVER = "server"
SCOPES = (ANY_SERVER, THIS_SERVER)


class SlowTurns:
    """When this process first saw the turn of each game between two servers of its shards'
    servers, so a member is asked for only once their turn has lasted SEAT_TURN_S."""

    def __init__(self) -> None:
        # shard id -> game id -> its stage, the member to move, and when first seen.
        self._turns: dict[int, dict[int, tuple[int, int, float]]] = {}

    def slow(self, shard_id: int, turns: dict[int, tuple[int, int]]) -> list[int]:
        """Note the shard's turns now (game id -> its stage and the member to move); the games
        whose turn has lasted SEAT_TURN_S. Games no longer listed are forgotten."""
        before = self._turns.get(shard_id, {})
        now = time.monotonic()
        seen: dict[int, tuple[int, int, float]] = {}
        for game_id, (stage, mover) in turns.items():
            was = before.get(game_id)
            seen[game_id] = was if was is not None and was[:2] == (stage, mover) else (
                stage, mover, now)
        self._turns[shard_id] = seen
        return [game_id for game_id, turn in seen.items() if now - turn[2] >= SEAT_TURN_S]


class QueueCog(commands.Cog, name="Queue"):
    def __init__(self, bot: Host) -> None:
        self.bot = bot
        # Set by a join, a pair made here (a board may be in another of its shards) or a pairing
        # of two servers in any process: the next round starts at once, not PAIR_EVERY_S later.
        self.joined = asyncio.Event()
        # game id -> when Discord last refused its board.
        self._refused: dict[int, float] = {}
        # game id -> when Discord last refused its board in another server.
        self._refused_boards: dict[int, float] = {}
        # entry id -> its server and the count of those waiting its message shows, for the
        # entries waiting.
        self._shown: dict[int, tuple[int, int]] = {}
        # shard id -> when its seats of games between two servers were last looked at.
        self._seats_asked: dict[int, float] = {}
        self._turns = SlowTurns()

    async def cog_load(self) -> None:
        self.bot.spawn(self.run_queue())
        self.bot.spawn(keep_listening(self.bot, lambda: self.bot.services.queue.listen(
            self.joined.set), "queue: listening for pairings"))

    @app_commands.command(name=text("cmdname.queue"), description=text("cmd.queue"))
    @app_commands.rename(**option_names("size", "rule", "rated", "scope"))
    @app_commands.describe(
        size=text("cmd.start.size"), rule=text("cmd.start.rule"), rated=text("cmd.start.rated"),
        scope=text("cmd.queue.scope"),
    )
    @app_commands.choices(rule=choices("rule", RULES), scope=choices("scope", SCOPES))
    @app_commands.autocomplete(size=size_suggestions)
    async def queue(
        self,
        interaction: discord.Interaction[Any],
        size: str | None = None,
        rule: str | None = None,
        rated: bool = True,
        scope: str = ANY_SERVER,
    ) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        queue = self.bot.services.queue
        try:
            # 15x15 freestyle unless asked otherwise (the 15x15 preset alone would be caro).
            options = parse_options(
                None, size or DEFAULT_SIZE, rule or Rule.FREESTYLE.value, rated=rated
            )
            key = await queue.key(
                guild_id, options.rows, options.cols, options.k, options.rule.value, options.rated
            )
            entry = await queue.join(
                guild_id=guild_id, channel_id=channel_id, user_id=interaction.user.id, key=key,
                locale=await language(interaction, public=True),
                local=scope == THIS_SERVER, display_name=interaction.user.display_name,
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        waiting = await queue.waiting(key)
        try:
            response = await interaction.response.send_message(
                waiting_content(entry, waiting),
                view=waiting_view(entry),
                allowed_mentions=discord.AllowedMentions.none(),
            )
            message_id = response.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
        except BaseException:
            # No message, no Leave button: the entry must not wait where nobody can see it.
            with contextlib.suppress(UserError):
                await queue.leave(entry.user_id)
            raise
        await queue.posted(entry.id, message_id)
        self._shown[entry.id] = (guild_id, waiting)
        log.info("queue: %s joined (entry %d)", entry.user_id, entry.id)
        self.joined.set()

    @answers(QueueLeave)
    async def leave(
        self, interaction: discord.Interaction[Any], _: QueueLeave, entry: QueueEntry
    ) -> None:
        queue = self.bot.services.queue
        if entry.status is QueueStatus.WAITING:
            try:
                entry = await queue.leave(entry.user_id)
            except UserError:
                # Paired (or gone) between the read and the leave: show what it is now.
                entry = await queue.entry(entry.id) or entry
        await interaction.response.edit_message(content=await self.shown(entry), view=None)

    async def shown(self, entry: QueueEntry) -> str:
        """An entry's message once it waits no more."""
        if entry.status is not QueueStatus.PAIRED or entry.game_id is None:
            return left_content(entry)
        state = await self.bot.services.games.state(entry.game_id)
        if state is None:
            return paired_content(entry, None)
        row = state.row
        # The opponent of another server is named, not mentioned; the link is to this server's
        # own board of the game.
        opponent = (await self.bot.boards.look.names(state, entry.guild_id)).get(
            entry.partner_id or 0)
        where: tuple[int, int, int | None] = (row.guild_id, row.channel_id, row.message_id)
        if entry.guild_id != row.guild_id:
            for other in await self.bot.services.queue.boards(state.id):
                if other.guild_id == entry.guild_id:
                    where = (other.guild_id, other.channel_id, other.message_id)
        guild, channel, message = where
        board = None if message is None else (guild, channel, message)
        return paired_content(entry, board, opponent)

    async def run_queue(self) -> None:
        """Pair the queue of this process's servers and post the games, again and again."""
        await self.bot.wait_until_ready()
        while not self.bot.is_closed():
            count = self.bot.shard_count or 1
            for shard_id in self.bot.held_shards():
                with self.bot.working_for(shard_id):
                    try:
                        await self.pair_shard(shard_id, count)
                    except StorageUnavailable:
                        # Said once when the database was lost; the next round tries again.
                        break
                    except Exception:
                        if self.bot.is_closed():
                            return
                        log.exception("queue: pairing shard %d failed", shard_id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.joined.wait(), PAIR_EVERY_S)
            self.joined.clear()

    async def pair_shard(self, shard_id: int, shard_count: int) -> None:
        queue = self.bot.services.queue
        # The bot gets no event when a member leaves a server (no privileged intent): the
        # members of the pairs about to be made are asked for first, and only those still
        # in their server are paired.
        candidates = await queue.candidates(shard_id=shard_id, shard_count=shard_count)
        pairs: list[QueuePairing] = []
        if candidates:
            present = await self.present([e for pair in candidates for e in pair])
            pairs = await queue.pair(shard_id=shard_id, shard_count=shard_count, only=present)
        for pairing in pairs:
            log.info("queue: %d and %d paired: game %d", pairing.first.user_id,
                     pairing.second.user_id, pairing.game_id)
        if pairs:
            self.bot.services.clocks.deadlines_changed.set()
            # A second board may be in a server of another of this process's shards.
            self.joined.set()
        # New games, and any a stop or a refusal left without a board.
        for state in await queue.unposted(shard_id=shard_id, shard_count=shard_count):
            refused = self._refused.get(state.id)
            if refused is not None and time.monotonic() - refused < REPOST_AFTER_S:
                continue
            await self.post_game(state)
        # The boards of games between two servers in this shard's servers.
        for board in await queue.unposted_boards(shard_id=shard_id, shard_count=shard_count):
            refused = self._refused_boards.get(board.game_id)
            if refused is not None and time.monotonic() - refused < REPOST_AFTER_S:
                continue
            await self.post_board(board)
        await self.show_counts(shard_id, shard_count)
        asked = self._seats_asked.get(shard_id)
        if asked is None or time.monotonic() - asked >= SEATS_EVERY_S:
            self._seats_asked[shard_id] = time.monotonic()
            await self.check_seats(shard_id, shard_count)

    async def check_seats(self, shard_id: int, shard_count: int) -> None:
        """The members of the shard's servers who play a game between two servers and left
        their server (or whose server removed the bot) forfeit it. Only the member to move
        whose turn has lasted SEAT_TURN_S is asked for."""
        movers: dict[int, tuple[QueueEntry, discord.Guild]] = {}
        turns: dict[int, tuple[int, int]] = {}
        for entry in await self.bot.services.queue.cross_seats(
            shard_id=shard_id, shard_count=shard_count
        ):
            guild = self.bot.get_guild(entry.guild_id)
            if guild is None:
                # Removed while this process was away (no GUILD_DELETE came).
                await self.removed_from(entry.guild_id)
                continue
            state = None if entry.game_id is None else await self.bot.services.games.state(
                entry.game_id)
            if state is not None and state.mover_id == entry.user_id:
                movers[state.id] = (entry, guild)
                turns[state.id] = (state.stage, entry.user_id)
        for game_id in self._turns.slow(shard_id, turns):
            entry, guild = movers[game_id]
            try:
                await guild.fetch_member(entry.user_id)
            except discord.NotFound:
                log.info("queue: %d left server %d during game %s", entry.user_id,
                         entry.guild_id, entry.game_id)
                await self.forfeit(entry, bot_gone=False)
            except discord.HTTPException as exc:
                log.warning("queue: could not check that %d is in server %d (%s)",
                            entry.user_id, entry.guild_id, exc)

    async def forfeit(self, entry: QueueEntry, *, bot_gone: bool) -> None:
        """The member of `entry` can no longer play its game between two servers from their
        server: they resign it (rated as a resignation; nothing if it is over already), every
        board of it still there is redrawn by the process holding its server, and the other
        member is told in their own channel, in one write. `bot_gone`: their server removed the
        bot, so its board is not drawn."""
        if entry.game_id is None:
            return
        outbox = self.bot.services.outbox

        async def posts(state: GameState) -> list[NewPost]:
            drawn = await self.bot.boards.mirror_posts(state, entry.guild_id if bot_gone else None)
            return drawn + [
                outbox.post(other.guild_id, other.channel_id, PostKind.OPPONENT_GONE,
                            game=state.id, member=other.user_id)
                for other in await self.bot.services.queue.entries_of(state.id)
                if other.user_id != entry.user_id
            ]

        try:
            state = await self.bot.services.games.resign(entry.game_id, entry.user_id, posts=posts)
        except UserError:
            return  # over already: resigned, timed out, or forfeited by another round
        log.info("queue: game %d forfeited by %d, who can no longer play from server %d",
                 state.id, entry.user_id, entry.guild_id)
        self._refused.pop(state.id, None)
        self._refused_boards.pop(state.id, None)
        self.bot.boards.forget_if_over(state)

    async def show_counts(self, shard_id: int, shard_count: int) -> None:
        """Edit the messages of the shard's waiting entries whose count of those waiting for
        their game changed since they were last drawn: once a round at most, and only those.
        The entries of a server the bot is no longer in are taken out instead."""
        queue = self.bot.services.queue
        counts = await queue.waiting_counts(shard_id=shard_id, shard_count=shard_count)
        waiting = {entry.id for entry, _ in counts}
        for entry_id, (guild_id, _) in list(self._shown.items()):
            if entry_id not in waiting and shard_of_guild(guild_id, shard_count) == shard_id:
                del self._shown[entry_id]
        for entry, count in counts:
            if self.bot.get_guild(entry.guild_id) is None:
                # Removed while this process was away (no GUILD_DELETE came).
                await self.removed_from(entry.guild_id)
                continue
            if self._shown.get(entry.id) == (entry.guild_id, count) or entry.message_id is None:
                continue
            self._shown[entry.id] = (entry.guild_id, count)
            message = self.bot.get_partial_messageable(
                entry.channel_id, guild_id=entry.guild_id
            ).get_partial_message(entry.message_id)
            try:
                await message.edit(content=waiting_content(entry, count), view=waiting_view(entry),
                                   allowed_mentions=discord.AllowedMentions.none())
            except discord.HTTPException as exc:
                log.warning("queue: entry %d's message could not be edited (%s)", entry.id, exc)
                continue
            # Left or paired while the edit was on its way: show that instead, not the count.
            now = await queue.entry(entry.id)
            if now is not None and now.status is not QueueStatus.WAITING:
                await self.edit_entry_message(now)

    async def render_post(self, post: PostRow) -> Rendered:
        """A game's board in one server redrawn after a change drawn on another of its boards
        (Boards.mirror, Boards.board_edit), from the game as stored now. Or the call to the
        member to move in a game between two servers, in their own server (Notices.turn)."""
        if post.kind is PostKind.TURN_PING:
            state = await self.bot.services.games.state(post.number("game"))
            if state is None:
                return None
            return await self.bot.boards.notices.turn_call(
                state, post.number("member"), post.number("stage"))
        if post.kind is PostKind.OPPONENT_GONE:
            state = await self.bot.services.games.state(post.number("game"))
            if state is None:
                return None
            return await self.bot.boards.notices.opponent_gone(state, post.number("member"))
        if post.kind is not PostKind.GAME_BOARD:
            raise ValueError(f"post {post.id}: {post.kind} is not the queue's")
        return await self.bot.boards.board_edit(
            post.number("game"), post.number("guild"), tidy=bool(post.payload.get(TIDY)))

    async def present(self, entries: list[QueueEntry]) -> set[int]:
        """The entries (by id) whose members are still in their server. An entry whose member
        left it, or of a server the bot is no longer in, is taken out of the queue; one that
        cannot be checked now (Discord unreachable) waits for the next round."""
        queue = self.bot.services.queue
        found: set[int] = set()
        count = self.bot.shard_count or 1
        held = set(self.bot.held_shards())
        for entry in entries:
            if shard_of_guild(entry.guild_id, count) not in held:
                # A server of another process's shards (an entry open to any server): only that
                # process can ask about its members, and takes the entry out if they left.
                found.add(entry.id)
                continue
            guild = self.bot.get_guild(entry.guild_id)
            if guild is None:
                # Removed while this process was away (no GUILD_DELETE came).
                await self.removed_from(entry.guild_id)
                continue
            try:
                await guild.fetch_member(entry.user_id)
            except discord.NotFound:
                left = await queue.gone(entry.user_id)
                if left is not None:
                    log.info("queue: %d left server %d; entry %d taken out of the queue",
                             entry.user_id, entry.guild_id, left.id)
                    await self.edit_entry_message(left)
                continue
            except discord.HTTPException as exc:
                log.warning("queue: could not check that %d is in server %d (%s)",
                            entry.user_id, entry.guild_id, exc)
                continue
            found.add(entry.id)
        return found

    async def removed_from(self, guild_id: int) -> None:
        """The bot is no longer in the server: its waiting entries are taken out, and its
        members playing a game between two servers forfeit it."""
        queue = self.bot.services.queue
        left = await queue.leave_guild(guild_id)
        if left:
            log.info("queue: the bot was removed from server %d; entries taken out of the"
                     " queue: %s", guild_id, ", ".join(str(e.id) for e in left))
        count = self.bot.shard_count or 1
        for entry in await queue.cross_seats(shard_id=shard_of_guild(guild_id, count),
                                             shard_count=count):
            if entry.guild_id == guild_id:
                await self.forfeit(entry, bot_gone=True)

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        try:
            await self.removed_from(guild.id)
        except StorageUnavailable:
            # The pairing finds the server gone and takes its entries out then.
            log.warning("queue: server %d's entries stay until the database is back", guild.id)

    async def edit_entry_message(self, entry: QueueEntry) -> None:
        """Show an entry that waits no more as it is now, its Leave button gone."""
        if entry.message_id is None:
            return
        message = self.bot.get_partial_messageable(
            entry.channel_id, guild_id=entry.guild_id
        ).get_partial_message(entry.message_id)
        try:
            await message.edit(content=await self.shown(entry), view=None,
                               allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:
            log.warning("queue: entry %d's message could not be edited (%s)", entry.id, exc)

    async def post_board(self, board: GameBoard) -> None:
        """Post a queued game's board in the other member's server, and turn that member's
        queue message into a link to it."""
        state = await self.bot.services.games.state(board.game_id)
        if state is None or not state.active:
            return
        try:
            await self.bot.boards.post_board(state, board)
        except discord.HTTPException as exc:
            self._refused_boards[board.game_id] = time.monotonic()
            log.warning("queue: game %d's board in server %d could not be posted (%s); trying"
                        " again later", board.game_id, board.guild_id, exc)
            return
        self._refused_boards.pop(board.game_id, None)
        # A move made on the other board while this one was being posted was mirrored to no
        # message yet: draw this board again as the game now stands (kept: see state).
        now = await self.bot.services.games.state(board.game_id, keep=True)
        edit = None
        if now is not None and now.stage != state.stage:
            edit = await self.bot.boards.board_edit(board.game_id, board.guild_id)
        if edit is not None:
            try:
                await self.bot.get_partial_messageable(
                    board.channel_id, guild_id=board.guild_id
                ).get_partial_message(edit.message_id).edit(
                    **edit.parts, allowed_mentions=edit.allowed_mentions)
            except discord.HTTPException as exc:
                log.warning("queue: game %d's board in server %d could not be redrawn (%s)",
                            board.game_id, board.guild_id, exc)
        for entry in await self.bot.services.queue.entries_of(board.game_id):
            if entry.guild_id == board.guild_id:
                await self.edit_entry_message(entry)

    async def post_game(self, state: GameState) -> None:
        """Post a queued game's board, mentioning both players, and turn their queue messages
        into a link to it."""
        try:
            posted = await self.bot.boards.post_in_channel(state)
        except discord.HTTPException as exc:
            self._refused[state.id] = time.monotonic()
            log.warning("queue: game %d could not be posted (%s); trying again later",
                        state.id, exc)
            return
        self._refused.pop(state.id, None)
        if posted.stage != state.stage:
            # A move made on the game's board in another server while this one was being
            # posted was mirrored to no message yet: draw it as the game now stands.
            await self.bot.boards.show_quietly(posted)
        # The game is posted and both were mentioned there; the Leave button of a message
        # that could not be edited answers with the link.
        for entry in await self.bot.services.queue.entries_of(state.id):
            await self.edit_entry_message(entry)


__all__ = ["QueueCog"]
