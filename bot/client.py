"""The Discord client: wires storage, the AI process pool, slash commands and buttons together."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
import time
from collections.abc import Coroutine
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import discord
from discord import app_commands

from engine import Board

from . import ai_worker
from .commands import caro_group
from .config import Settings
from .games import CUSTOM_ID, GameService, GameState, UserError, parse_custom_id, parse_options
from .render import game_content, game_view, help_embed, jump_link, leaderboard_embed, stats_embed
from .storage import ActiveGameExists, Storage
from .texts import t
from .views import CellButton, is_cell_click

log = logging.getLogger("caro.bot")

AI_WORKERS = 2
# Interaction tokens last 15 minutes; past this, edits go through the channel message endpoint.
INTERACTION_EDIT_WINDOW = 14 * 60


class CaroBot(discord.Client):
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
        self._games = GameService(self._storage, self._think)
        self.add_dynamic_items(CellButton)
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

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn, not fork: forking a process that runs the sqlite and asyncio threads can copy
        # a held lock into the child.
        return ProcessPoolExecutor(
            max_workers=AI_WORKERS, mp_context=multiprocessing.get_context("spawn")
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
        await self.show(state, interaction)

    async def resume_pending(self) -> None:
        """Answer the moves the AI owed when the bot last stopped."""
        await self.wait_until_ready()
        for state in await self.games.games_awaiting_ai():
            log.info("game %d: resuming the AI's pending move", state.id)
            await self.ai_turn(state.id, None)

    async def show(self, state: GameState, interaction: discord.Interaction[Any] | None) -> None:
        """Draw the game on its message: through the interaction while its token lasts, else
        through the channel message endpoint (after a restart, or a late answer)."""
        content, view = game_content(state), game_view(state)
        if interaction is not None and _age(interaction) < INTERACTION_EDIT_WINDOW:
            try:
                await interaction.edit_original_response(content=content, view=view)
                return
            except discord.HTTPException as exc:
                log.warning("game %d: editing via the interaction failed (%s)", state.id, exc)
        if state.row.message_id is None:
            log.warning("game %d has no message to edit", state.id)
            return
        message = self.get_partial_messageable(
            state.row.channel_id, guild_id=state.row.guild_id
        ).get_partial_message(state.row.message_id)
        await message.edit(content=content, view=view)

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
            await _ephemeral(interaction, t("error.guild_only"))
            return
        try:
            options = parse_options(difficulty, size, rule, first)
        except UserError as exc:
            await _ephemeral(interaction, str(exc))
            return
        state: GameState | None = None
        for _ in range(2):
            try:
                state = await self.games.start(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    player_id=interaction.user.id,
                    options=options,
                    rng=random.Random(interaction.id),
                )
                break
            except ActiveGameExists as exc:
                running = exc.game
                if running.message_id is None:
                    # Its board was never posted (the bot stopped in between): nobody can play
                    # it, so it must not block a new game.
                    await self.games.abandon(running.id)
                    continue
                link = jump_link(running.guild_id, running.channel_id, running.message_id)
                await _ephemeral(interaction, t("error.already_playing", link=link))
                return
        if state is None:
            await _ephemeral(interaction, t("error.already_playing_nolink"))
            return
        try:
            response = await interaction.response.send_message(
                game_content(state), view=game_view(state)
            )
            message_id = response.message_id
            if message_id is None:
                message_id = (await interaction.original_response()).id
        except BaseException:
            await self.games.abandon(state.id)
            raise
        await self.games.attach_message(state.id, message_id)
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
            await _ephemeral(interaction, t("error.guild_only"))
            return
        target = user or interaction.user
        assert self._storage is not None
        stats = await self._storage.user_stats(interaction.guild_id, target.id)
        board = await self._storage.leaderboard(interaction.guild_id)
        await interaction.response.send_message(
            embed=stats_embed(target.display_name, stats, board)
        )

    async def send_leaderboard(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild_id is None:
            await _ephemeral(interaction, t("error.guild_only"))
            return
        assert self._storage is not None
        board = await self._storage.leaderboard(interaction.guild_id)
        await interaction.response.send_message(embed=leaderboard_embed(board))

    async def send_help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(embed=help_embed(), ephemeral=True)

    async def _on_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        log.error("command failed", exc_info=error)
        if not interaction.response.is_done():
            await _ephemeral(interaction, t("error.internal"))

    # ----------------------------------------------------------------- buttons
    async def handle_click(self, interaction: discord.Interaction[Any], custom_id: str) -> None:
        """A click on a board button (called by CellButton for every custom_id on a board)."""
        try:
            ref = parse_custom_id(custom_id)
            message_id = interaction.message.id if interaction.message is not None else None
            state = await self.games.play(ref, user_id=interaction.user.id, message_id=message_id)
        except UserError as exc:
            await _ephemeral(interaction, str(exc))
            return
        except Exception:
            log.exception("click %r failed", custom_id)
            await _ephemeral(interaction, t("error.internal"))
            return
        try:
            await interaction.response.edit_message(
                content=game_content(state), view=game_view(state)
            )
        finally:
            # The move is stored: the AI must answer even if this acknowledgement failed; its
            # edit redraws the whole board anyway.
            if state.ai_to_move:
                self.spawn(self.ai_turn(state.id, interaction))

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # discord.py hands a click to CellButton only if the custom_id is well-formed and on the
        # clicked message; any other click (forged, or from an unknown component) is answered
        # here so that it is never left without a response.
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        if isinstance(custom_id, str) and is_cell_click(custom_id, interaction.message):
            return
        if isinstance(custom_id, str) and CUSTOM_ID.fullmatch(custom_id):
            # Well-formed but not on this message (an older drawing of a board): the game
            # service explains what is wrong with it.
            await self.handle_click(interaction, custom_id)
            return
        log.info("refused an unknown component click %r", str(custom_id)[:100])
        await _ephemeral(interaction, t("click.forged"))


def _age(interaction: discord.Interaction[Any]) -> float:
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()


async def _ephemeral(interaction: discord.Interaction[Any], text: str) -> None:
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)
