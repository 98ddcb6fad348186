"""Puzzles: `/caro puzzle play` (a new one at the member's level), `daily` (the server's puzzle of
the day), `retry` (one the member failed) and `leaderboard`; the puzzle board's cells, pan
arrows, "type a move" form and Give up; and the background mining of this server's finished
games. Every move is judged by the engine in the CPU pool (bot.game.puzzles)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.group import text
from bot.game.errors import UserError
from bot.game.model import shard_of_guild
from bot.game.ports import UNAVAILABLE_RETRY_SECONDS, StorageUnavailable
from bot.game.puzzle_model import LEADERBOARD_MIN_ATTEMPTS, AttemptKind
from bot.game.puzzles import Session, empty_cell
from bot.i18n.texts import text_in
from bot.ui.buttons import (
    PuzzleCell,
    PuzzleForm,
    PuzzleGiveUp,
    PuzzlePan,
    PuzzleType,
    answers,
    move_modal,
)
from bot.ui.languages import language
from bot.ui.puzzles import Shown, leaderboard_embed, puzzle_parts, translator, uses_picture
from bot.ui.replies import ephemeral, refuse, unreachable
from bot.ui.window import DEFAULT_COLS, DEFAULT_ROWS, Window, WindowError
from engine.analysis.puzzles import Verdict

if TYPE_CHECKING:
    from bot.cogs.host import Host

log = logging.getLogger("caro.bot")

# How often the miner looks for newly finished games.
MINE_EVERY_S = 60.0
# Whose turn of the CPU pool puzzle work is: the miner is one more member of the fair pool.
MINER = "puzzle-miner"


def move_form(session: Session, locale: str) -> discord.ui.Modal:
    """The puzzle's "type a move" form, made stopped as a drawing is."""
    return move_modal(
        PuzzleForm.custom_id_of(attempt=session.attempt.id, ply=session.ply),
        text_in(locale, "modal.title"),
        text_in(locale, "modal.label"),
        text_in(locale, "modal.placeholder"),
    )


class PuzzleCog(commands.Cog, name="Puzzle"):
    puzzle = app_commands.Group(name=text("cmdname.puzzle"), description=text("cmd.puzzle"))

    def __init__(self, bot: Host) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.spawn(self.mine_finished_games())

    # ------------------------------------------------------------------ commands
    @puzzle.command(name=text("cmdname.puzzle_play"), description=text("cmd.puzzle_play"))
    async def play(self, interaction: discord.Interaction[Any]) -> None:
        await self.open(interaction, AttemptKind.NEW)

    @puzzle.command(name=text("cmdname.puzzle_daily"), description=text("cmd.puzzle_daily"))
    async def daily(self, interaction: discord.Interaction[Any]) -> None:
        await self.open(interaction, AttemptKind.DAILY)

    @puzzle.command(name=text("cmdname.puzzle_retry"), description=text("cmd.puzzle_retry"))
    async def retry(self, interaction: discord.Interaction[Any]) -> None:
        await self.open(interaction, AttemptKind.RETRY)

    @puzzle.command(
        name=text("cmdname.puzzle_leaderboard"), description=text("cmd.puzzle_leaderboard")
    )
    async def leaderboard(self, interaction: discord.Interaction[Any]) -> None:
        guild_id = interaction.guild_id
        assert guild_id is not None  # the /caro group checks this
        puzzles = self.bot.services.puzzles
        rows = await puzzles.leaderboard(guild_id)
        mine = await puzzles.standing(guild_id, interaction.user.id)
        tr = translator(await language(interaction, public=True))
        await interaction.response.send_message(
            embed=leaderboard_embed(rows, mine, tr, LEADERBOARD_MIN_ATTEMPTS),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def open(self, interaction: discord.Interaction[Any], kind: AttemptKind) -> None:
        """Open an attempt and post its board as the answer."""
        guild_id, channel_id = interaction.guild_id, interaction.channel_id
        assert guild_id is not None and channel_id is not None  # the /caro group checks this
        try:
            session = await self.bot.services.puzzles.start(
                kind,
                guild_id=guild_id,
                channel_id=channel_id,
                user_id=interaction.user.id,
                locale=await language(interaction, public=True),
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        parts = puzzle_parts(session, theme=await self._theme(session))
        response = await interaction.response.send_message(
            **parts, allowed_mentions=discord.AllowedMentions.none()
        )
        message_id = response.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await self.bot.services.puzzles.attach_message(session.attempt.id, message_id)
        log.info(
            "puzzle %d (%s) opened for %s as attempt %d",
            session.puzzle.id, kind.value, interaction.user.id, session.attempt.id,
        )

    # ------------------------------------------------------------------ the board
    @answers(PuzzleCell)
    async def click_cell(
        self, interaction: discord.Interaction[Any], click: PuzzleCell, session: Session
    ) -> None:
        await self.move(interaction, session, click.cell)

    @answers(PuzzleForm)
    async def typed(self, interaction: discord.Interaction[Any], form: PuzzleForm, cell: str) -> None:
        session = await self.bot.services.puzzles.own_session(
            form.attempt, interaction.user.id, form.ply
        )
        await self.move(interaction, session, cell)

    @answers(PuzzleType)
    async def open_form(
        self, interaction: discord.Interaction[Any], _: PuzzleType, session: Session
    ) -> None:
        await interaction.response.send_modal(move_form(session, await language(interaction)))

    @answers(PuzzlePan)
    async def pan(
        self, interaction: discord.Interaction[Any], click: PuzzlePan, session: Session
    ) -> None:
        board = session.board()
        shape = (min(DEFAULT_ROWS, board.rows), min(DEFAULT_COLS, board.cols))
        try:
            window = Window.decode(click.window)
            if (
                not uses_picture(board)
                or (window.rows, window.cols) != shape
                or not window.fits(board.rows, board.cols)
            ):
                raise UserError("click.forged")
            moved = window.pan(click.direction, board.rows, board.cols)
        except WindowError:
            raise UserError("click.forged") from None
        await interaction.response.edit_message(
            **puzzle_parts(session, window=moved, theme=await self._theme(session), edit=True)
        )

    @answers(PuzzleGiveUp)
    async def give_up(
        self, interaction: discord.Interaction[Any], click: PuzzleGiveUp, _: Session
    ) -> None:
        session, result = await self.bot.services.puzzles.give_up(
            click.attempt, interaction.user.id, click.ply
        )
        await interaction.response.edit_message(
            **puzzle_parts(
                session, Shown(result=result, gave_up=True), theme=await self._theme(session),
                edit=True,
            )
        )

    async def move(self, interaction: discord.Interaction[Any], session: Session, cell: str) -> None:
        """Judge the member's move in the pool (seconds on a big board: the click is
        acknowledged first) and show what it did. A cell that is not an empty one of the board
        is refused before that, privately."""
        empty_cell(session.board(), cell)
        await interaction.response.defer()
        owner = interaction.user.id

        async def run(fn: Any, *args: Any) -> Any:
            return await self.bot.ai.run_on_cpu(owner, fn, *args)

        try:
            done = await self.bot.services.puzzles.move(
                session.attempt.id, owner, session.ply, cell, run
            )
        except UserError as exc:
            await refuse(interaction, exc)
            return
        except StorageUnavailable:
            # Nothing was stored: the same move can be tried again once the database is back.
            await unreachable(interaction)
            return
        except Exception:
            if self.bot.is_closed():
                return
            # The click was acknowledged: the member is told rather than left waiting, and
            # nothing was stored, so the same move can be tried again.
            log.exception("puzzle attempt %d: judging a move failed", session.attempt.id)
            await ephemeral(interaction, text_in(await language(interaction), "error.internal"))
            return
        if done.check.verdict is Verdict.UNKNOWN:
            tr = translator(await language(interaction))
            await ephemeral(interaction, tr("puzzle.unknown", move=cell.upper()))
            return
        shown = Shown(check=done.check, result=done.finished)
        await interaction.edit_original_response(
            **puzzle_parts(done.session, shown, theme=await self._theme(done.session), edit=True)
        )
        if done.finished is not None:
            log.info(
                "puzzle attempt %d: %s", done.session.attempt.id, done.session.attempt.outcome
            )

    async def _theme(self, session: Session) -> str:
        return await self.bot.services.preferences.theme(session.attempt.user_id)

    # ------------------------------------------------------------------ mining
    async def mine_finished_games(self) -> None:
        """Mine the rated games finished from now on, in the background: one at a time, only
        when the CPU pool has a free worker, within the hourly cap, and only games of servers on
        this process's shards (another process mines the others)."""
        await self.bot.wait_until_ready()
        puzzles = self.bot.services.puzzles
        shards, count = self.bot.held_shards(), self.bot.shard_count or 1
        found: int | None = None
        while found is None and not self.bot.is_closed():
            try:
                found = await puzzles.mining_start(shards, count)
            except StorageUnavailable:
                # Said once when the database was lost: mining starts once it is back.
                await asyncio.sleep(UNAVAILABLE_RETRY_SECONDS)
            except Exception:
                log.exception("puzzle mining could not start")
                return
        if found is None:
            return
        seen = found
        while not self.bot.is_closed():
            await asyncio.sleep(MINE_EVERY_S)
            try:
                before, seen = seen, await self._mine_some(seen)
                if seen != before:
                    await puzzles.mined_through(seen, self.bot.held_shards(), count)
            except StorageUnavailable:
                # The games are read again from the last one marked mined, next time round.
                continue
            except Exception:
                if self.bot.is_closed():
                    return
                log.exception("puzzle mining failed")

    async def _mine_some(self, seen: int) -> int:
        puzzles = self.bot.services.puzzles
        count = self.bot.shard_count or 1
        held = set(self.bot.held_shards())
        for game in await puzzles.games_to_mine(seen):
            if not puzzles.may_mine() or not self.bot.ai.cpu_pool.has_free_worker():
                return seen
            seen = game.id
            if shard_of_guild(game.guild_id, count) not in held:
                continue

            async def run(fn: Any, *args: Any) -> Any:
                return await self.bot.ai.run_on_cpu(MINER, fn, *args)

            with contextlib.suppress(ValueError):
                added = await puzzles.mine_game(game, run)
                if added:
                    log.info("game %d: %d puzzles mined for its server", game.id, added)
        return seen


__all__ = ["PuzzleCog", "move_form"]
