"""The watcher of the tournaments of this process's shards: it repeats the runner's step
(bot.game.tournament_runner.TournamentRunner.advance) of every live tournament, and posts the
games each step (or an organiser's start) started. What else a step decided it wrote to the
outbox, which bot.cogs.outbox sends, drawn by bot.cogs.tournament.posts."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.cogs.watch import WatchCog
from bot.game.model import GameState, Mode
from bot.game.outbox_model import PostKind
from bot.game.ports import StorageUnavailable
from bot.game.tournament_model import TournamentRow
from bot.game.tournament_runner import Progress

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")

# How often the watcher takes a step of every running tournament: results and pairings follow a
# finished game within this.
STEP_EVERY_S = 2.0
# After Discord refused a game's board, how long before the watcher posts it again.
REPOST_AFTER_S = 60.0
# How long round 1's boards wait for the "has begun" post, so the channel reads in order. Short:
# the games' clocks are running, and a post Discord is slow to take is not waited for.
START_POST_WAIT_S = 5.0


class TournamentWatcher:
    """Steps this process's tournaments and posts their games' boards."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        # game id -> when Discord last refused its board.
        self._refused: dict[int, float] = {}

    async def run_tournaments(self) -> None:
        """Take a step of every live tournament of this process's shards, again and again."""
        await self.bot.wait_until_ready()
        runner = self.bot.services.tournament_runner
        while not self.bot.is_closed():
            count = self.bot.shard_count or 1
            for shard_id in self.bot.held_shards():
                with self.bot.working_for(shard_id):
                    try:
                        live = await runner.live(shard_id=shard_id, shard_count=count)
                    except StorageUnavailable:
                        # Said once when the database was lost; the next round tries again.
                        break
                    except Exception:
                        if self.bot.is_closed():
                            return
                        log.exception("reading the tournaments of shard %d failed", shard_id)
                        continue
                    for row in live:
                        # One tournament's failure must not hold up the others.
                        try:
                            progress = await runner.advance(row.id)
                            if progress is not None:
                                await self.publish(progress)
                        except StorageUnavailable:
                            # A step goes on from what is stored, so the next round takes it
                            # up again where the database was lost.
                            break
                        except Exception:
                            if self.bot.is_closed():
                                return
                            log.exception("tournament %d: its step failed", row.id)
            await asyncio.sleep(STEP_EVERY_S)

    async def publish(self, progress: Progress) -> None:
        """Post the games a step started. What else it decided (the start, a round's standings,
        the final, the announcement redrawn) it wrote to the outbox, which sends it."""
        row = progress.tournament
        if progress.too_few:
            log.info("tournament %d: cancelled, too few entries", row.id)
        if progress.started:
            log.info("tournament %d: started", row.id)
        if progress.round_done is not None:
            log.info("tournament %d: round %d over", row.id, progress.round_done)
        if progress.final:
            log.info("tournament %d: finished", row.id)
        if progress.started and progress.games:
            # The "has begun" post names round 1's pairings: it comes before their boards.
            await self.bot.services.outbox.settled(
                PostKind.TOURNAMENT_STARTED, row.id, START_POST_WAIT_S
            )
        for state in progress.games:
            await self.post_game(row, state)

    async def post_game(self, row: TournamentRow, state: GameState) -> None:
        refused = self._refused.get(state.id)
        if refused is not None and time.monotonic() - refused < REPOST_AFTER_S:
            return
        try:
            posted = await self.bot.boards.post_in_channel(state)
        except discord.HTTPException as exc:
            self._refused[state.id] = time.monotonic()
            log.warning("tournament %d: could not post game %d (%s)", row.id, state.id, exc)
            return
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            # No answer: the board may have been made. The next step tries again at once, with
            # the same nonce, so Discord hands back that board rather than making a second.
            log.warning("tournament %d: no answer posting game %d (%r)", row.id, state.id, exc)
            return
        self._refused.pop(state.id, None)
        log.info("tournament %d: game %d started", row.id, state.id)
        if posted.mode is Mode.WATCH:
            self.bot.spawn(self.bot.cog(WatchCog).play_out(posted.id, None, posted.starter_id))
        elif posted.ai_to_move:
            self.bot.spawn(self.bot.turns.ai_turn(posted.id, None, posted.starter_id))

    async def redraw_games(self, states: list[GameState]) -> None:
        """Redraw the boards of games a control ended (a withdrawal lost, a cancel stopped)."""
        for state in states:
            await self.bot.boards.show_quietly(state)


__all__ = ["REPOST_AFTER_S", "START_POST_WAIT_S", "STEP_EVERY_S", "TournamentWatcher"]
