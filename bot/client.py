"""The Discord client: wires storage, the AI process pool, slash commands and buttons together."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import os
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import aiohttp
import discord
from discord import app_commands

from engine import Board

from . import ai_worker
from .commands import caro_group
from .config import Settings
from .flows import PlayFlows, message_parts, refuse, say
from .games import (
    CUSTOM_ID,
    DEFAULT_TIMEOUTS,
    GameOptions,
    GameService,
    GameState,
    UserError,
    load_state,
    parse_custom_id,
    parse_options,
)
from .loop_lag import monitor_loop_lag
from .ratings import LEADERBOARD_MIN_GAMES
from .render import (
    LEADERBOARD_SIZE,
    help_embed,
    leaderboard_embed,
    server_leaderboard_embed,
    stats_embed,
)
from .storage import GLOBAL_SCOPE, GuildSettings, Storage
from .translator import CatalogueTranslator, locale_of
from .views import CONTROL_ID, CellButton, ControlButton, is_dispatched_click
from .window import Window

log = logging.getLogger("caro.bot")

AI_WORKERS = 2
SEEN_INTERACTIONS = 4096
# Interaction tokens last 15 minutes; past this, edits go through the channel message endpoint.
INTERACTION_EDIT_WINDOW = 14 * 60


class CaroBot(PlayFlows, discord.Client):
    def __init__(self, settings: Settings) -> None:
        # No privileged intents: everything arrives as interactions.
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(intents=intents, allowed_mentions=discord.AllowedMentions.none())
        self.settings = settings
        self.tree: app_commands.CommandTree[CaroBot] = app_commands.CommandTree(self)
        self.tree.on_error = self._on_command_error  # type: ignore[method-assign]
        self._storage: Storage | None = None
        self._games: GameService | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._released = False
        self._seen_interactions: OrderedDict[str, None] = OrderedDict()
        self._draw_locks: dict[int, asyncio.Lock] = {}
        self._drawn_ply: dict[int, int] = {}  # the newest position drawn per running game
        # (guild, channel, player) of the /caro start commands being answered: a second one
        # must not mistake the first one's game, whose board is not posted yet, for a leftover.
        self._starting: set[tuple[int, int, int]] = set()
        # Discord may deliver one INTERACTION_CREATE twice (a replayed gateway event); a second
        # answer fails with 40060. Filtering where discord.py parses the event covers commands,
        # buttons and modals alike, whichever handler they reach.
        parsers: dict[str, Callable[[Any], None]] = self._connection.parsers
        parse_interaction = parsers["INTERACTION_CREATE"]

        def parse_once(data: Any) -> None:
            if self._first_delivery(str(data.get("id"))):
                parse_interaction(data)

        parsers["INTERACTION_CREATE"] = parse_once

    def _first_delivery(self, interaction_id: str) -> bool:
        seen = self._seen_interactions
        if interaction_id in seen:
            log.info("ignored a repeated delivery of interaction %s", interaction_id)
            return False
        seen[interaction_id] = None
        # Repeats come within seconds; a few thousand ids cover far more than that.
        if len(seen) > SEEN_INTERACTIONS:
            seen.popitem(last=False)
        return True

    # ----------------------------------------------------------------- lifecycle
    @property
    def games(self) -> GameService:
        if self._games is None:
            raise RuntimeError("the bot is not set up yet")
        return self._games

    async def setup_hook(self) -> None:
        self._storage = await Storage.open(self.settings.db_path)
        log.info(
            "database %s ready (schema %d)",
            self.settings.db_path,
            await self._storage.schema_version(),
        )
        self._pool = self._new_pool()
        self._games = GameService(
            self._storage,
            self._think,
            default_timeouts=GuildSettings(
                pvp_timeout=max(DEFAULT_TIMEOUTS.pvp_timeout, self.settings.min_timeout),
                ai_timeout=max(DEFAULT_TIMEOUTS.ai_timeout, self.settings.min_timeout),
            ),
            challenge_seconds=self.settings.challenge_seconds,
        )
        self.add_dynamic_items(CellButton, ControlButton)
        await self.tree.set_translator(CatalogueTranslator())
        self.tree.add_command(caro_group)
        if self.settings.guild_id is not None:
            guild = discord.Object(id=self.settings.guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d command(s) to guild %s", len(synced), self.settings.guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global command(s)", len(synced))
        self.spawn(self._warm_up())
        self.spawn(self.resume_pending())
        self.spawn(self.watch_deadlines())
        self.spawn(monitor_loop_lag(self.settings.loop_lag_log))
        # What is loaded by now (modules, discord.py's command tree, the engine) lives as long as
        # the process; frozen, full collections stop walking it each time: under load those
        # collections were the event loop's longest stalls (see the gc figures of loop_lag).
        gc.collect()
        gc.freeze()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn, not fork: forking a process that runs the sqlite and asyncio threads can copy
        # a held lock into the child.
        return ProcessPoolExecutor(
            max_workers=AI_WORKERS,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=ai_worker.init_worker,
            initargs=(os.getpid(),),
        )

    async def _warm_up(self) -> None:
        assert self._pool is not None
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._pool, ai_worker.warm_up) for _ in range(AI_WORKERS))
        )
        log.info("AI workers ready")

    async def release(self) -> None:
        """Stop background work, shut the AI pool down and close the database (idempotent)."""
        if self._released:
            return
        self._released = True
        # A READY that arrived while close() ran starts discord.py's 2 s READY timer after
        # close() looked for it; waiting below for the AI workers (still warming up) can outlast
        # it, and when it fires on the closed client it dies with a traceback.
        ready_timer = getattr(self._connection, "_ready_task", None)
        if ready_timer is not None:
            ready_timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pool is not None:
            pool = self._pool
            self._pool = None
            # Waits at most for one running search, which is bounded by the AI time limit.
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
        if self._storage is not None:
            await self._storage.close()
            self._storage = None
        log.info("shut down cleanly")

    async def close(self) -> None:
        # discord.py leaves its READY delay timer running on close; when it fires after close
        # dropped the loop it dies with a traceback (a stop within ~2 s of connecting).
        ready_timer = getattr(self._connection, "_ready_task", None)
        if ready_timer is not None:
            ready_timer.cancel()
        await super().close()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background task failed", exc_info=task.exception())

    async def on_ready(self) -> None:
        log.info("connected as %s (id %s)", self.user, self.user.id if self.user else "?")

    # ----------------------------------------------------------------- the AI
    async def _think(self, board: Board, level: str, seed: str) -> tuple[tuple[int, int], str]:
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            if self._pool is None:
                raise RuntimeError("the AI pool is shut down")
            try:
                row, col, reason = await loop.run_in_executor(
                    self._pool,
                    ai_worker.think,
                    board.text(),
                    level,
                    seed,
                    self.settings.ai_time_limit,
                )
                return (row, col), reason
            except BrokenProcessPool:
                # A worker died (e.g. killed by the OS); one fresh pool, one retry.
                if attempt == 2 or self._released:
                    raise
                log.warning("AI worker pool broke; starting a new one")
                self._pool = self._new_pool()
        raise AssertionError("unreachable")

    async def ai_turn(self, game_id: int, interaction: discord.Interaction[Any] | None) -> None:
        started = time.monotonic()
        try:
            state = await self.games.ai_move(game_id)
        except Exception:
            # The game stays on the AI's turn; resume_pending retries it at the next start.
            log.exception("game %d: the AI could not move", game_id)
            return
        if state is None:
            return
        log.info("game %d: AI moved in %.2fs", game_id, time.monotonic() - started)
        try:
            await self.show(state, interaction)
        except (discord.HTTPException, aiohttp.ClientError) as exc:
            # Discord kept failing (after discord.py's own retries) or the bot is stopping: the
            # move is stored, and the next start redraws boards whose last move was the AI's.
            log.warning("game %d: could not draw the AI's move (%r)", game_id, exc)

    async def _redraw_after_crash(self) -> None:
        assert self._storage is not None
        for row in await self._storage.games_to_redraw():
            try:
                await self.show(load_state(row), None)
            except (discord.HTTPException, aiohttp.ClientError) as exc:
                # Discord failing, or the bot stopping meanwhile: the next start tries again.
                log.warning("game %d: could not redraw its board (%r)", row.id, exc)

    async def resume_pending(self) -> None:
        """Answer the moves the AI owed when the bot last stopped and, in the background, redraw
        the boards a crash may have left a move behind (those can be many: they must not hold
        up players waiting for the AI)."""
        await self.wait_until_ready()
        self.spawn(self._redraw_after_crash())
        for state in await self.games.games_awaiting_ai():
            log.info("game %d: resuming the AI's pending move", state.id)
            if state.mode == "watch":
                self.spawn(self.watch_loop(state.id, None))
            else:
                await self.ai_turn(state.id, None)

    async def show(
        self,
        state: GameState,
        interaction: discord.Interaction[Any] | None,
        *,
        window: Window | None = None,
    ) -> None:
        """Draw the game on its message, one drawing of a game at a time, never an older position
        over a newer one: an edit held back by Discord's 429/5xx retries would otherwise land
        after later moves and show the player a stale board."""
        lock = self._draw_locks.setdefault(state.id, asyncio.Lock())
        async with lock:
            if state.board.ply < self._drawn_ply.get(state.id, -1):
                return
            if state.active:
                # The game may have ended (resigned, stopped, timed out) since this state was
                # read, at the same move count: drawing it would bring back a running board.
                fresh = await self.games.state(state.id)
                if fresh is not None and not fresh.active:
                    state = fresh
            await self._draw(state, interaction, window=window)
            self._drawn_ply[state.id] = state.board.ply
        if not state.active:
            self._draw_locks.pop(state.id, None)
            self._drawn_ply.pop(state.id, None)

    def redraw_if_drawing(self, state: GameState) -> None:
        """After an answer drew a finished game through its interaction: if an older drawing
        (the AI's last move) is still on its way to Discord, draw the end again behind it, so
        the message does not end up showing a running game."""
        lock = self._draw_locks.get(state.id)
        if lock is not None and lock.locked():
            self.spawn(self.show(state, None))

    async def _draw(
        self,
        state: GameState,
        interaction: discord.Interaction[Any] | None,
        *,
        window: Window | None = None,
    ) -> None:
        """Draw the game on its message: through the interaction while its token lasts, else
        through the channel message endpoint (after a restart, or a late answer)."""
        changes = () if state.active else await self.games.storage.rating_changes(state.id)

        def parts() -> dict[str, Any]:
            # Fresh each time: an attached picture can be sent only once.
            return message_parts(state, edit=True, window=window, changes=changes)

        if interaction is not None and _age(interaction) < INTERACTION_EDIT_WINDOW:
            try:
                await interaction.edit_original_response(**parts())
                return
            except discord.HTTPException as exc:
                log.warning("game %d: editing via the interaction failed (%s)", state.id, exc)
        if state.row.message_id is None:
            log.warning("game %d has no message to edit", state.id)
            return
        message = self.get_partial_messageable(
            state.row.channel_id, guild_id=state.row.guild_id
        ).get_partial_message(state.row.message_id)
        await message.edit(**parts())

    # ----------------------------------------------------------------- slash commands
    async def start_game(
        self,
        interaction: discord.Interaction[Any],
        difficulty: str | None,
        size: str | None,
        rule: str | None,
        first: str | None,
    ) -> None:
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        if guild_id is None or channel_id is None:
            await say(interaction, "error.guild_only")
            return
        try:
            options = parse_options(difficulty, size, rule, first)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        key = (guild_id, channel_id, interaction.user.id)
        if key in self._starting:
            await say(interaction, "error.already_playing_nolink")
            return
        self._starting.add(key)
        try:
            await self._start_game(interaction, guild_id, channel_id, options)
        finally:
            self._starting.discard(key)

    async def _start_game(
        self,
        interaction: discord.Interaction[Any],
        guild_id: int,
        channel_id: int,
        options: GameOptions,
    ) -> None:
        state = await self.post_new_game(
            interaction,
            lambda: self.games.start(
                guild_id=guild_id,
                channel_id=channel_id,
                player_id=interaction.user.id,
                options=options,
                rng=random.Random(interaction.id),
                locale=locale_of(interaction),
            ),
            busy="error.already_playing",
            busy_unposted="error.already_playing_nolink",
        )
        if state is None:
            return
        log.info(
            "game %d started: %s, %s, player %s plays %s",
            state.id,
            state.board.spec,
            state.row.ai_level,
            state.row.player_id,
            state.row.player_mark,
        )
        if state.ai_to_move:
            self.spawn(self.ai_turn(state.id, interaction))

    async def send_stats(
        self, interaction: discord.Interaction[Any], user: discord.abc.User | None
    ) -> None:
        if interaction.guild_id is None:
            await say(interaction, "error.guild_only")
            return
        target = user or interaction.user
        assert self._storage is not None
        stats = await self._storage.user_stats(interaction.guild_id, target.id)
        standings = {
            mode: await self._storage.standing(interaction.guild_id, target.id, mode)
            for mode in ("pvp", "ai")
        }
        # Issue 4: the player's record comes with this server's leaderboard.
        boards = {
            mode: await self._storage.rated_leaderboard(
                interaction.guild_id,
                mode,
                min_games=LEADERBOARD_MIN_GAMES,
                limit=LEADERBOARD_SIZE,
            )
            for mode in ("pvp", "ai")
        }
        loc = locale_of(interaction)
        await interaction.response.send_message(
            embeds=[
                stats_embed(target.display_name, stats, standings, loc),
                server_leaderboard_embed(boards, loc),
            ]
        )

    async def send_leaderboard(
        self,
        interaction: discord.Interaction[Any],
        scope: str | None = None,
        mode: str | None = None,
    ) -> None:
        if interaction.guild_id is None:
            await say(interaction, "error.guild_only")
            return
        assert self._storage is not None
        # Choices are only a client-side hint: anything else falls back to the defaults.
        scope = scope if scope in ("server", "global") else "server"
        mode = mode if mode in ("pvp", "ai") else "pvp"
        rows = await self._storage.rated_leaderboard(
            interaction.guild_id if scope == "server" else GLOBAL_SCOPE,
            mode,
            min_games=LEADERBOARD_MIN_GAMES,
        )
        await interaction.response.send_message(
            embed=leaderboard_embed(rows, scope, mode, locale_of(interaction))
        )

    async def send_help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            embed=help_embed(locale_of(interaction)), ephemeral=True
        )

    async def _on_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        log.error("command failed", exc_info=error)
        if not interaction.response.is_done():
            await say(interaction, "error.internal")

    # ----------------------------------------------------------------- buttons
    async def handle_click(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """A click on a board button (called by CellButton for every custom_id on a board)."""
        try:
            ref = parse_custom_id(custom_id)
            message_id = interaction.message.id if interaction.message is not None else None
            state = await self.games.play(ref, user_id=interaction.user.id, message_id=message_id)
            if state.row.message_id is None and message_id is not None:
                # The board was posted but the bot stopped before it stored the message id:
                # learn it from the click, or a restart could neither redraw nor resume it.
                await self.games.attach_message(state.id, message_id)
        except UserError as exc:
            await refuse(interaction, exc)
            return
        except Exception:
            log.exception("click %r failed", custom_id)
            await say(interaction, "error.internal")
            return
        try:
            await interaction.response.edit_message(**await self.drawing(state, edit=True))
        except discord.HTTPException as exc:
            # Too late (10062) or Discord kept failing: the move is stored, so the board must
            # still show it; the AI's answer redraws it anyway, otherwise draw it here.
            log.warning("game %d: acknowledging a click failed (%s)", state.id, exc)
            if not state.ai_to_move:
                with contextlib.suppress(discord.HTTPException):
                    await self.show(state, None)
        finally:
            # The move is stored: the AI must answer even if this acknowledgement failed; its
            # edit redraws the whole board anyway.
            if state.ai_to_move:
                self.spawn(self.ai_turn(state.id, interaction))

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # discord.py hands a click to CellButton only if the custom_id is well-formed and on the
        # clicked message; any other click (forged, or from an unknown component) is answered
        # here so that it is never left without a response.
        if interaction.type is discord.InteractionType.modal_submit:
            await self.handle_move_form(interaction)
            return
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        if isinstance(custom_id, str) and is_dispatched_click(custom_id, interaction.message):
            return
        if isinstance(custom_id, str) and CONTROL_ID.fullmatch(custom_id):
            # A control from an older drawing of the message: the handler explains.
            await ControlButton(custom_id).callback(interaction)
            return
        if isinstance(custom_id, str) and CUSTOM_ID.fullmatch(custom_id):
            # Well-formed but not on this message (an older drawing of a board): the game
            # service explains what is wrong with it.
            await self.handle_click(interaction, custom_id)
            return
        log.info("refused an unknown component click %r", str(custom_id)[:100])
        await say(interaction, "click.forged")


def _age(interaction: discord.Interaction[Any]) -> float:
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()
