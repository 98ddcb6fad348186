"""Everything a game goes through besides a plain move: challenges between members, AI-vs-AI
games, resignations, hints, rematches, the big-board window and its "type a move" form, turn
clocks and per-server settings. A mixin of CaroBot, kept apart so client.py stays the wiring."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from .games import CHALLENGE_FIRSTS, MoveRef, UserError, parse_options, parse_timeout
from .render import (
    board_file,
    challenge_content,
    challenge_view,
    game_content,
    game_view,
    jump_link,
    move_modal,
    uses_image,
)
from .storage import ActiveGameExists, ChallengeRow, GameRow, GuildSettings
from .texts import TextId, text_in
from .translator import locale_of
from .views import MODAL_FIELD, ControlRef, parse_control_id
from .window import Window, WindowError, initial_window

if TYPE_CHECKING:
    from .games import GameService, GameState

log = logging.getLogger("caro.bot")

# The deadline watcher sleeps until the next clock runs out, but wakes at least this often, so
# a deadline written by another process (or a clock skew) is still noticed.
MAX_DEADLINE_SLEEP = 30.0


class PlayFlows:
    """Mixed into CaroBot; relies on its `games`, `settings`, `show`, `spawn` and `ai_turn`."""

    if TYPE_CHECKING:
        from .config import Settings

        settings: Settings

        @property
        def games(self) -> GameService: ...

        def spawn(self, coro: Any) -> None: ...

        def redraw_if_drawing(self, state: GameState) -> None: ...

        async def show(
            self,
            state: GameState,
            interaction: discord.Interaction[Any] | None,
            *,
            window: Window | None = None,
        ) -> None: ...

        async def ai_turn(
            self, game_id: int, interaction: discord.Interaction[Any] | None
        ) -> None: ...

        async def _start_game(
            self, interaction: Any, guild_id: int, channel_id: int, options: Any
        ) -> None: ...

        def get_partial_messageable(self, id: int, *, guild_id: int | None = None) -> Any: ...

        def is_closed(self) -> bool: ...

        async def wait_until_ready(self) -> None: ...

    async def drawing(
        self, state: GameState, *, edit: bool = False, window: Window | None = None
    ) -> dict[str, Any]:
        """message_parts, with the rating changes of a finished game."""
        changes = () if state.active else await self.games.rating_changes(state.id)
        return message_parts(state, edit=edit, window=window, changes=changes)

    # ----------------------------------------------------------------- challenges
    async def send_challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.abc.User,
        size: str | None,
        rule: str | None,
        first: str | None,
    ) -> None:
        loc = locale_of(interaction)
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        if guild_id is None or channel_id is None:
            await say(interaction, "error.guild_only")
            return
        try:
            options = parse_options(None, size, rule, first, firsts=CHALLENGE_FIRSTS)
            challenge = await self.games.challenge(
                guild_id=guild_id,
                channel_id=channel_id,
                challenger_id=interaction.user.id,
                opponent_id=opponent.id,
                opponent_is_bot=opponent.bot,
                options=options,
                locale=loc,
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        response = await interaction.response.send_message(
            challenge_content(challenge),
            view=challenge_view(challenge),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=opponent.id)]),
        )
        message_id = response.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await self.games.attach_challenge_message(challenge.id, message_id)
        log.info("challenge %d: %s -> %s", challenge.id, interaction.user.id, opponent.id)

    async def _answer_challenge(
        self, interaction: discord.Interaction[Any], ref: ControlRef
    ) -> None:
        accept = ref.action == "ca"
        try:
            challenge, state = await self.games.answer_challenge(
                ref.target, interaction.user.id, accept=accept, rng=random.Random(interaction.id)
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        if state is None:
            # Stored as declined either way; the message says who closed it.
            content = challenge_content(challenge)
            if interaction.user.id == challenge.challenger_id:
                content = text_in(
                    challenge.locale,
                    "challenge.withdrawn",
                    challenger=f"<@{challenge.challenger_id}>",
                    opponent=f"<@{challenge.opponent_id}>",
                )
            await interaction.response.edit_message(content=content, view=None)
            return
        # The challenge message becomes the board, so the game lives where it was agreed.
        message_id = interaction.message.id if interaction.message is not None else None
        if message_id is not None:
            await self.games.attach_message(state.id, message_id)
            state = await self.games.state(state.id) or state
        await interaction.response.edit_message(**await self.drawing(state, edit=True))
        log.info("challenge %d accepted: game %d", challenge.id, state.id)

    async def _show_challenge(self, challenge: ChallengeRow) -> None:
        if challenge.message_id is None:
            return
        message = self.get_partial_messageable(
            challenge.channel_id, guild_id=challenge.guild_id
        ).get_partial_message(challenge.message_id)
        await message.edit(content=challenge_content(challenge), view=None)

    # ----------------------------------------------------------------- AI vs AI
    async def start_watch(
        self,
        interaction: discord.Interaction[Any],
        x_level: str | None,
        o_level: str | None,
        size: str | None,
        rule: str | None,
    ) -> None:
        loc = locale_of(interaction)
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        if guild_id is None or channel_id is None:
            await say(interaction, "error.guild_only")
            return
        try:
            x_options = parse_options(x_level or "normal", size, rule, None)
            o_options = parse_options(o_level or "hard", size, rule, None)
            if "adaptive" in (x_options.level, o_options.level):
                raise UserError(
                    "error.bad_choice",
                    value="adaptive",
                    option=TextId("option.difficulty"),
                    choices="easy, normal, hard, impossible",
                )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        state = await self.post_new_game(
            interaction,
            lambda: self.games.start_watch(
                guild_id=guild_id,
                channel_id=channel_id,
                starter_id=interaction.user.id,
                x_level=x_options.level,
                o_level=o_options.level,
                options=x_options,
                locale=loc,
            ),
            busy="watch.running",
            busy_unposted="watch.running",
        )
        if state is None:
            return
        log.info("game %d: AI %s vs AI %s", state.id, x_options.level, o_options.level)
        self.spawn(self.watch_loop(state.id, interaction))

    async def post_new_game(
        self,
        interaction: discord.Interaction[Any],
        create: Callable[[], Awaitable[GameState]],
        *,
        busy: str,
        busy_unposted: str,
    ) -> GameState | None:
        """Create a game with `create` and post its board as the answer to `interaction`; None
        (the user told why with `busy`, given a link to the game in the way, or `busy_unposted`)
        if a running game holds the slot. A game that cannot be posted is abandoned."""
        state: GameState | None = None
        for _ in range(2):
            try:
                state = await create()
                break
            except ActiveGameExists as exc:
                running = exc.game
                if running.message_id is None:
                    # Its board was never posted (the bot stopped in between): nobody can play
                    # or watch it, so it must not hold the slot.
                    await self.games.abandon(running.id)
                    continue
                link = jump_link(running.guild_id, running.channel_id, running.message_id)
                await say(interaction, busy, link=link)
                return None
        if state is None:
            await say(interaction, busy_unposted, link="")
            return None
        try:
            response = await interaction.response.send_message(**message_parts(state))
            message_id = response.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
            await self.games.attach_message(state.id, message_id)
        except BaseException:
            await self.games.abandon(state.id)
            raise
        return state

    async def watch_loop(self, game_id: int, interaction: discord.Interaction[Any] | None) -> None:
        """Play an AI-vs-AI game to the end, one move every watch_delay seconds at most."""
        delay = self.settings.watch_delay
        while True:
            started = time.monotonic()
            try:
                state = await self.games.ai_move(game_id)
            except Exception:
                log.exception("game %d: the AI could not move", game_id)
                return
            if state is None:
                return
            await self.show(state, interaction)
            if not state.ai_to_move:
                return
            await asyncio.sleep(max(0.0, delay - (time.monotonic() - started)))

    # ----------------------------------------------------------------- slash twins of buttons
    async def hint_in_channel(self, interaction: discord.Interaction[Any]) -> None:
        """/caro hint: the Hint button as a command, for players who prefer typing."""
        await self._button_as_command(
            interaction, "h", self.games.active_game, "error.no_running_game", self._hint
        )

    async def rematch_in_channel(self, interaction: discord.Interaction[Any]) -> None:
        """/caro rematch: the Rematch button of the user's last game in this channel."""
        await self._button_as_command(
            interaction, "rm", self.games.last_game, "error.no_finished_game", self._rematch
        )

    async def _button_as_command(
        self,
        interaction: discord.Interaction[Any],
        kind: str,
        find: Callable[[int, int, int], Awaitable[GameRow | None]],
        missing: str,
        press: Callable[[discord.Interaction[Any], ControlRef], Awaitable[None]],
    ) -> None:
        """Press the `kind` control of the game `find` gives for (guild, channel, user), as if
        on the current drawing of its board; `missing` if there is no such game."""
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        if guild_id is None or channel_id is None:
            await say(interaction, "error.guild_only")
            return
        game = await find(guild_id, channel_id, interaction.user.id)
        if game is None:
            await say(interaction, missing)
            return
        try:
            await press(interaction, ControlRef(kind, game.id, game.ply, None, None))
        except UserError as exc:
            await refuse(interaction, exc)

    # ----------------------------------------------------------------- resign, settings
    async def resign_in_channel(self, interaction: discord.Interaction[Any]) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        if guild_id is None or channel_id is None:
            await say(interaction, "error.guild_only")
            return
        running = await self.games.active_game(guild_id, channel_id, interaction.user.id)
        if running is None:
            await say(interaction, "error.no_running_game")
            return
        try:
            state = await self.games.resign(running.id, interaction.user.id)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        link = (
            jump_link(guild_id, channel_id, running.message_id)
            if running.message_id is not None
            else ""
        )
        await say(interaction, "resign.done", link=link)
        await self._show_quietly(state)

    async def change_settings(
        self,
        interaction: discord.Interaction[Any],
        timeout: float | None,
        ai_timeout: float | None,
    ) -> None:
        loc = locale_of(interaction)
        guild_id = interaction.guild_id
        if guild_id is None:
            await say(interaction, "error.guild_only")
            return
        permissions = interaction.permissions
        current = await self.games.timeouts(guild_id)
        if timeout is not None or ai_timeout is not None:
            if not permissions.manage_guild:
                await say(interaction, "error.no_permission")
                return
            try:
                current = GuildSettings(
                    pvp_timeout=current.pvp_timeout
                    if timeout is None
                    else parse_timeout(timeout, minimum_seconds=self.settings.min_timeout),
                    ai_timeout=current.ai_timeout
                    if ai_timeout is None
                    else parse_timeout(ai_timeout, minimum_seconds=self.settings.min_timeout),
                )
            except UserError as exc:
                await refuse(interaction, exc)
                return
            await self.games.save_timeouts(guild_id, current)
            log.info("guild %d: turn limits %s", guild_id, current)
        await interaction.response.send_message(
            text_in(
                loc,
                "settings.saved",
                pvp=f"{current.pvp_timeout / 60:g}",
                ai=f"{current.ai_timeout / 60:g}",
            ),
            ephemeral=True,
        )

    # ----------------------------------------------------------------- clocks
    async def watch_deadlines(self) -> None:
        """Finish the games whose player ran out of time and close unanswered challenges: at
        start-up (the bot may have been down when a clock ran out), then as each clock runs out."""
        await self.wait_until_ready()
        changed = self.games.deadlines_changed
        while not self.is_closed():
            changed.clear()
            try:
                await self._expire_due()
                upcoming = await self.games.next_deadline()
            except Exception:
                log.exception("checking deadlines failed")
                upcoming = None
            wait = MAX_DEADLINE_SLEEP
            if upcoming is not None:
                wait = min(wait, max(0.05, upcoming - time.time()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), wait)

    async def _expire_due(self) -> None:
        for state in await self.games.expire_games():
            log.info("game %d: %s ran out of time", state.id, state.board.turn.name)
            await self._show_quietly(state)
        for challenge in await self.games.expire_challenges():
            log.info("challenge %d expired", challenge.id)
            try:
                await self._show_challenge(challenge)
            except discord.HTTPException as exc:
                log.warning("challenge %d: could not edit its message (%s)", challenge.id, exc)

    async def _show_quietly(self, state: GameState) -> None:
        """Redraw a game through the channel; a failed edit is logged, the game is stored."""
        try:
            await self.show(state, None)
        except discord.HTTPException as exc:
            log.warning("game %d: could not edit its message (%s)", state.id, exc)

    # ----------------------------------------------------------------- control buttons
    async def handle_control(self, interaction: discord.Interaction[Any], ref: ControlRef) -> None:
        try:
            if ref.action in ("ca", "cd"):
                await self._answer_challenge(interaction, ref)
            elif ref.action == "r":
                state = await self.games.resign(
                    ref.target, interaction.user.id, expected_ply=ref.ply
                )
                await interaction.response.edit_message(**await self.drawing(state, edit=True))
                self.redraw_if_drawing(state)
            elif ref.action == "h":
                await self._hint(interaction, ref)
            elif ref.action == "rm":
                await self._rematch(interaction, ref)
            elif ref.action == "p":
                await self._pan(interaction, ref)
            elif ref.action == "t":
                await self._open_move_form(interaction, ref)
            elif ref.action == "s":
                state = await self.games.stop_watch(
                    ref.target,
                    interaction.user.id,
                    may_manage=interaction.permissions.manage_messages,
                )
                log.info("game %d: stopped by %s", state.id, interaction.user.id)
                await interaction.response.edit_message(**await self.drawing(state, edit=True))
                self.redraw_if_drawing(state)
            else:
                await refuse(interaction, UserError("click.forged"))
        except UserError as exc:
            await refuse(interaction, exc)

    async def _participant_state(
        self, interaction: discord.Interaction[Any], ref: ControlRef
    ) -> GameState:
        state = await self.games.state(ref.target)
        if state is None:
            raise UserError("click.no_game")
        if state.mark_of(interaction.user.id) is None:
            raise UserError("click.not_your_game")
        if not state.active:
            raise UserError("click.finished")
        if ref.ply is not None and ref.ply != state.board.ply:
            raise UserError("click.stale")
        return state

    async def _hint(self, interaction: discord.Interaction[Any], ref: ControlRef) -> None:
        assert ref.ply is not None
        state = await self._participant_state(interaction, ref)
        if state.mover_id != interaction.user.id:
            raise UserError("click.not_your_turn")
        # The engine may think for a while: acknowledge first, answer in the follow-up.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            hint = await self.games.hint(ref.target, ref.ply, interaction.user.id)
        except UserError as exc:
            await interaction.followup.send(localized(interaction, exc), ephemeral=True)
            return
        loc = locale_of(interaction)
        fresh = await self.games.state(ref.target)
        count = fresh.row.hints if fresh is not None else 1
        reason = text_in(loc, f"reason.{hint.reason}")
        await interaction.followup.send(
            text_in(loc, "hint.text", cell=hint.cell, reason=reason, count=count), ephemeral=True
        )
        if fresh is not None:
            await self._show_quietly(fresh)

    async def _rematch(self, interaction: discord.Interaction[Any], ref: ControlRef) -> None:
        old, options = await self.games.rematch_options(ref.target, interaction.user.id)
        if old.mode == "pvp":
            other = old.opponent_of(interaction.user.id)
            assert other is not None
            await self.send_challenge(
                interaction,
                _Opponent(other),
                _size_key(options),
                options.rule.value,
                options.first,
            )
            return
        assert interaction.guild_id is not None and interaction.channel_id is not None
        await self._start_game(interaction, interaction.guild_id, interaction.channel_id, options)

    async def _pan(self, interaction: discord.Interaction[Any], ref: ControlRef) -> None:
        assert ref.window is not None and ref.direction is not None
        state = await self._participant_state(interaction, ref)
        board = state.board
        try:
            window = Window.decode(ref.window, board.rows, board.cols)
        except WindowError:
            raise UserError("click.forged") from None
        moved = window.pan(ref.direction, board.rows, board.cols)
        await interaction.response.edit_message(
            **await self.drawing(state, edit=True, window=moved)
        )

    async def _open_move_form(self, interaction: discord.Interaction[Any], ref: ControlRef) -> None:
        state = await self._participant_state(interaction, ref)
        if state.mover_id != interaction.user.id:
            if state.mode == "pvp" and state.mover_id is not None:
                raise UserError("click.wait_for", user=f"<@{state.mover_id}>")
            raise UserError("click.not_your_turn")
        await interaction.response.send_modal(move_modal(state, locale_of(interaction)))

    async def handle_move_form(self, interaction: discord.Interaction[Any]) -> None:
        """The "type a move" form was sent: play the typed cell like a click on it."""
        data: Any = interaction.data or {}
        ref = parse_control_id(str(data.get("custom_id", "")))
        if ref is None or ref.action != "tm" or ref.ply is None:
            await refuse(interaction, UserError("click.forged"))
            return
        typed = _field_value(data.get("components") or [], MODAL_FIELD).strip().upper()
        # The whole text must name the cell (cutting it first read "J9(&(Q[" as J9); a long text
        # or one with markdown names none and is shown as "?" instead of being echoed.
        cell = typed if 0 < len(typed) <= 8 and not any(ch in typed for ch in "*`") else "?"
        message_id = interaction.message.id if interaction.message is not None else None
        try:
            state = await self.games.play(
                MoveRef(ref.target, ref.ply, cell),
                user_id=interaction.user.id,
                message_id=message_id,
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        try:
            if interaction.message is not None:
                await interaction.response.edit_message(**await self.drawing(state, edit=True))
            else:
                await interaction.response.defer()
                await self._show_quietly(state)
        finally:
            if state.ai_to_move:
                self.spawn(self.ai_turn(state.id, interaction))


class _Opponent:
    """The other player of a finished game, as the challenge flow wants a user."""

    def __init__(self, user_id: int) -> None:
        self.id = user_id
        self.bot = False


def _size_key(options: Any) -> str:
    return f"{options.rows}x{options.cols}"


def _field_value(components: list[Any], custom_id: str) -> str:
    stack = list(components)
    while stack:
        item = stack.pop()
        if not isinstance(item, dict):
            continue
        if item.get("custom_id") == custom_id and "value" in item:
            return str(item["value"])
        stack.extend(item.get("components") or [])
        if isinstance(item.get("component"), dict):
            stack.append(item["component"])
    return ""


def message_parts(
    state: GameState,
    *,
    edit: bool = False,
    window: Window | None = None,
    changes: Any = (),
) -> dict[str, Any]:
    """Keyword arguments that draw a game on a message (send or edit): text, buttons and, on a
    big board, the picture."""
    view = game_view(state, window=window, changes=changes)
    parts: dict[str, Any] = {"view": view}
    if isinstance(view, discord.ui.LayoutView):
        # The text is a component of the layout; V2 messages carry no content or embeds, and
        # an edit says so explicitly (a challenge's text turns into a board).
        if edit:
            parts.update(content=None, embeds=[])
    else:
        parts["content"] = game_content(state, changes=changes)
    if uses_image(state):
        picture = board_file(state, _window_for(state, window))
        if edit:
            parts["attachments"] = [picture]
        else:
            parts["file"] = picture
    return parts


def _window_for(state: GameState, window: Window | None) -> Window | None:
    if not state.active or state.mode == "watch":
        return None
    return (window or initial_window(state.board)).clamp(state.board.rows, state.board.cols)


def localized(interaction: discord.Interaction[Any], error: UserError) -> str:
    return text_in(locale_of(interaction), error.key, **error.values)


async def say(interaction: discord.Interaction[Any], key: str, **values: object) -> None:
    """An ephemeral answer in the user's language."""
    await ephemeral(interaction, text_in(locale_of(interaction), key, **values))


async def refuse(interaction: discord.Interaction[Any], error: UserError) -> None:
    await ephemeral(interaction, localized(interaction, error))


async def ephemeral(interaction: discord.Interaction[Any], text: str) -> None:
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)
