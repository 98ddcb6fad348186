"""The wiring: storage, the AI turns (bot.ai: the fair CPU pool), the game services, the feature cogs under `/caro`, the
duplicate-delivery filter and the background tasks. Features live in bot/cogs/, one cog each.

The bot is one cluster: an AutoShardedBot running the shards of CARO_SHARD_IDS out of
CARO_SHARD_COUNT (unset: every shard of the count Discord recommends). Background work (owed AI
moves, redraws after a crash, run-out clocks) is asked for per shard held, so N clusters on one
PostgreSQL database each settle the games of their own guilds; only the cluster holding shard 0
registers the slash commands."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import discord
from discord.ext import commands

from bot.ai.turn import AiTurns
from bot.cogs import FEATURES, PlayCog, WatchCog
from bot.cogs.group import COMMANDS_HASH_KEY, CaroGroup, CaroTree, caro_group, sync_if_changed
from bot.game.levels import ExternalLevel
from bot.game.model import External, GameState, GuildSettings, Mode
from bot.game.options import ADAPTIVE
from bot.game.ports import UNAVAILABLE_RETRY_SECONDS, Storage, StorageUnavailable
from bot.game.services import Services, build_services
from bot.game.settings import DEFAULT_TIMEOUTS
from bot.i18n.translator import CatalogueTranslator
from bot.runtime import patches
from bot.runtime.config import Settings
from bot.runtime.logs import current_shard
from bot.runtime.loop_lag import monitor_loop_lag
from bot.storage import open_database
from bot.ui import display_names, drawing, pictures
from bot.ui.boards import Boards
from bot.ui.buttons import Router
from bot.ui.turns import Turns
from engine import cores

log = logging.getLogger("caro.bot")

CogT = TypeVar("CogT", bound=commands.Cog)
T = TypeVar("T")


class CaroBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings) -> None:
        # No privileged intents: everything arrives as interactions.
        intents = discord.Intents.none()
        intents.guilds = True
        shards: dict[str, Any] = {}
        if settings.shard_ids is not None:
            shards["shard_ids"] = list(settings.shard_ids)
        super().__init__(
            # No message commands: without the message content intent a prefix never arrives.
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=intents,
            allowed_mentions=discord.AllowedMentions.none(),
            tree_cls=CaroTree,
            # None: asked from Discord (GET /gateway/bot) when connecting.
            shard_count=settings.shard_count,
            **shards,
        )
        self.settings = settings
        # The operator's engine as a level, built once here and handed to whatever asks.
        self.external = ExternalLevel(settings.engine)
        self.boards = Boards(self)
        self.turns = Turns(self, self.boards)
        self.router = Router()
        self.caro: CaroGroup = caro_group()
        self._storage: Storage | None = None
        self._services: Services | None = None
        self._ai: AiTurns | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._released = False
        patches.filter_repeated_interactions(self, patches.RepeatFilter())
        # Both only for speed; off, discord.py draws and answers as it would on its own.
        drawing.use_fast(settings.fast_drawing)
        if settings.fast_drawing:
            patches.build_response_messages_lazily()

    # ----------------------------------------------------------------- lifecycle
    @property
    def services(self) -> Services:
        if self._services is None:
            raise RuntimeError("the bot is not set up yet")
        return self._services

    @property
    def ai(self) -> AiTurns:
        """The AI turns and the CPU pool (searches, review slices, replays, review pictures)."""
        if self._ai is None:
            raise RuntimeError("the bot is not set up yet")
        return self._ai

    @property
    def watch_delay(self) -> float:
        """The pause between moves of an AI-vs-AI game (CARO_WATCH_DELAY_SECONDS)."""
        return self.settings.watch_delay

    @property
    def min_timeout(self) -> float:
        """The shortest turn time limit /caro settings accepts (CARO_MIN_TIMEOUT_SECONDS)."""
        return self.settings.min_timeout

    def cog(self, cls: type[CogT]) -> CogT:
        """The loaded cog of class `cls` (one per feature)."""
        for found in self.cogs.values():
            if isinstance(found, cls):
                return found
        raise LookupError(f"the {cls.__name__} feature is not loaded")

    async def setup_hook(self) -> None:
        self._storage = await open_database(self.settings.db_path)
        log.info(
            "database %s ready (schema %d)",
            self.settings.db_path,
            await self._storage.schema_version(),
        )
        self._ai = AiTurns.in_processes(
            self.settings.ai_workers,
            time_limit=self.settings.ai_time_limit,
            quick_reply=self.settings.quick_reply,
            external=self.external,
        )
        self._services = build_services(
            self._storage,
            self._ai,
            default_timeouts=GuildSettings(
                pvp_timeout=max(DEFAULT_TIMEOUTS.pvp_timeout, self.settings.min_timeout),
                ai_timeout=max(DEFAULT_TIMEOUTS.ai_timeout, self.settings.min_timeout),
            ),
            challenge_seconds=self.settings.challenge_seconds,
            external=self.external,
        )
        await self.tree.set_translator(CatalogueTranslator())
        for feature in FEATURES:
            cog = feature(self)
            self.offer_external_level(cog)
            await self.add_cog(cog)
            self.adopt_commands(cog)
            self.router.adopt(cog)
        # Every button and form is answered by one of the cogs, or the bot does not start.
        self.router.require_every_action()
        self.tree.add_command(self.caro)
        await self.sync_commands()
        # Before the gateway: the first move after a start is drawn as fast as the next.
        pictures.warm_up()
        self.spawn(self._warm_up())
        self.spawn(self._build_cores())
        self.spawn(self.resume_pending())
        self.spawn(monitor_loop_lag(self.settings.loop_lag_log))
        # What is loaded by now (modules, discord.py's command tree, the engine) lives as long as
        # the process; frozen, full collections stop walking it each time: under load those
        # collections were the event loop's longest stalls (see the gc figures of loop_lag).
        gc.collect()
        gc.freeze()

    def offer_external_level(self, cog: commands.Cog) -> None:
        """Add the operator's engine (CARO_ENGINE_CMD) to the AI level choices of /caro start
        and /caro watch, under its configured name. Without one the commands are unchanged, so
        their schema (and its hash: no re-sync) stays the same."""
        engine = self.settings.engine
        if engine is None:
            return
        choice = discord.app_commands.Choice(name=engine.name, value=External.ENGINE.value)
        for command in cog.walk_app_commands():
            if not isinstance(command, discord.app_commands.Command):
                continue
            for parameter in ("difficulty", "x_level", "o_level"):
                if command.get_parameter(parameter) is not None:
                    patches.add_choice(command, parameter, choice, before=ADAPTIVE)

    def adopt_commands(self, cog: commands.Cog) -> None:
        """Move a feature cog's slash commands under `/caro` (a cog adds its commands at the top
        level of the tree; every caro command is a subcommand of the one group)."""
        for command in cog.get_app_commands():
            self.tree.remove_command(command.name)
            self.caro.add_command(command)

    async def sync_commands(self) -> None:
        if not self.settings.syncs_commands:
            # The cluster holding shard 0 registers them: N clusters syncing at once would race
            # on Discord's rate limit (and on the stored hash) for one and the same result.
            log.info("commands are registered by the cluster holding shard 0")
            return
        guild = None
        if self.settings.guild_id is not None:
            guild = discord.Object(id=self.settings.guild_id)
            self.tree.copy_global_to(guild=guild)
        await sync_if_changed(
            self.tree,
            guild,
            stored=await self.services.meta.get_meta(COMMANDS_HASH_KEY),
            store=lambda digest: self.services.meta.set_meta(COMMANDS_HASH_KEY, digest),
            force=bool(getattr(self.settings, "force_sync", False)),
        )

    async def _warm_up(self) -> None:
        try:
            await self.ai.warm_up()
        except RuntimeError:
            if self._released:
                return  # stopped before the workers were up
            raise
        log.info("AI workers ready")

    async def _build_cores(self) -> None:
        """Build this host's compiled search core in a process of its own, at low priority, if
        it has none: until then the AI workers play with the pure-Python search, and each
        loads the build as soon as it is there (bot.cpu.jobs.init_worker)."""
        state = cores.status()
        if state.built:
            return
        if not cores.numba_available():
            log.warning("search core: %s", cores.NO_NUMBA)
            return
        failed = cores.recently_failed()
        if failed is not None:
            # Tried and failed lately (killed for memory, say): not again at every start.
            log.warning(
                "search core: not compiled (%s); impossible plays with the pure-Python search; "
                "`caro-bot --prepare` compiles it",
                failed,
            )
            return
        log.info(
            "search core: compiling for %s in the background (once per host); impossible plays "
            "with the pure-Python search until it is ready",
            state.target,
        )
        started = asyncio.get_running_loop().time()
        process = await asyncio.create_subprocess_exec(
            *cores.build_command(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            _out, err = await process.communicate()
        except asyncio.CancelledError:
            # The bot is stopping: the build is the bot's own work, not left behind.
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise
        code = process.returncode
        if code == 0:
            log.info(
                "search core ready in %.0f s", asyncio.get_running_loop().time() - started
            )
            return
        if code is not None and code < 0:
            reason = f"the compile was killed by signal {-code} (out of memory?)"
            cores.record_failure(reason)
        else:
            lines = err.decode(errors="replace").strip().splitlines()
            reason = lines[-1] if lines else f"the compile exited with {code}"
        log.warning(
            "search core: %s; impossible plays with the pure-Python search; "
            "`caro-bot --prepare` compiles it",
            reason,
        )

    async def release(self) -> None:
        """Stop background work, shut the AI pool down and close the database (idempotent)."""
        if self._released:
            return
        self._released = True
        # A READY that arrived while close() ran starts discord.py's 2 s READY timer after
        # close() looked for it; waiting below for the AI workers (still warming up) can outlast
        # it, and when it fires on the closed client it dies with a traceback.
        patches.cancel_ready_timer(self)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._ai is not None:
            # Waits at most for the running searches, each bounded by the AI time limit.
            await self._ai.close()
        if self._storage is not None:
            await self._storage.close()
            self._storage = None

    async def close(self) -> None:
        patches.cancel_ready_timer(self)
        await super().close()

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        if self.is_closed():
            log.info("background task cut short by the shutdown (%r)", task.exception())
            return
        if isinstance(task.exception(), StorageUnavailable):
            # A courtesy (a ping, a redraw) the database's absence cut short; its loss and its
            # return are logged once by the storage, not per task.
            log.debug("background task cut short: %s", task.exception())
            return
        log.error("background task failed", exc_info=task.exception())

    async def on_ready(self) -> None:
        log.info(
            "connected as %s (id %s), shards %s of %s",
            self.user, self.user.id if self.user else "?",
            ",".join(map(str, self.held_shards())), self.shard_count,
        )

    # ----------------------------------------------------------------- shards of this cluster
    def held_shards(self) -> list[int]:
        """The shards this process runs (known once connected: the count may come from
        Discord)."""
        if self.shard_count is None:
            raise RuntimeError("the shard count is not known before connecting")
        return list(self.shard_ids) if self.shard_ids is not None else list(range(self.shard_count))

    @contextmanager
    def working_for(self, shard_id: int) -> Iterator[None]:
        """Log lines (and tasks started) inside carry `shard_id`."""
        mark = current_shard.set(shard_id)
        try:
            yield
        finally:
            current_shard.reset(mark)

    async def when_reachable(self, read: Callable[[], Awaitable[T]]) -> T:
        """`read()`, tried again while the database is away: the work of the start waits for
        it rather than being lost."""
        while True:
            try:
                return await read()
            except StorageUnavailable:
                await asyncio.sleep(UNAVAILABLE_RETRY_SECONDS)

    async def _redraw_after_crash(self) -> None:
        count = self.shard_count
        assert count is not None
        states: list[GameState] = []
        for shard_id in self.held_shards():
            with self.working_for(shard_id):
                states += await self.when_reachable(
                    functools.partial(
                        self.services.meta.games_to_redraw, shard_id=shard_id, shard_count=count
                    )
                )
        await self.boards.catch_up(states)

    async def resume_pending(self) -> None:
        """Answer the moves the AI owed when the bot last stopped and, in the background, redraw
        the boards a crash may have left a move behind (those can be many: they must not hold
        up players waiting for the AI). Only the games of guilds on this cluster's shards:
        another cluster's are its own to resume."""
        await self.wait_until_ready()
        count = self.shard_count
        assert count is not None
        self.spawn(self._redraw_after_crash())
        for shard_id in self.held_shards():
            with self.working_for(shard_id):
                states = await self.when_reachable(
                    functools.partial(
                        self.services.meta.games_awaiting_ai, shard_id=shard_id, shard_count=count
                    )
                )
                for state in states:
                    log.info("game %d: resuming the AI's pending move", state.id)
                    owner = PlayCog.owner_of(state)
                    if state.mode == Mode.WATCH:
                        self.spawn(self.cog(WatchCog).play_out(state.id, None, state.starter_id))
                    else:
                        await self.turns.ai_turn(state.id, None, owner)

    # ----------------------------------------------------------------- clicks no item took
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # Every member who plays makes interactions: their names for the board legends come
        # from here, not from one REST request per member.
        display_names.remember(interaction.guild_id, interaction.user)
        # Every button's click and every form's submission is answered by the router (see
        # items.Router for why it is the only entry); commands go to the command tree.
        try:
            await self.router.route(interaction)
        except Exception as exc:
            if not self.is_closed():
                raise
            # The shutdown closed the connection under an answer on its way, as it does under a
            # background task (_task_done): said, not a traceback.
            log.info("interaction cut short by the shutdown (%r)", exc)
