"""A fake AI port for the game services: the real AI worker function run in-process, counting its
calls and able to be held back, instead of the bot's pool of worker processes."""

from __future__ import annotations

import asyncio

from bot.cpu import jobs
from bot.game.model import AiLevel
from engine import Board
from engine.game.notation import cell_name
from engine.game.openings import Action, Choice, OpeningState, StepKind


class Thinker:
    """The real AI worker function, run in-process; counts calls and can be held back. A
    member's move waits `wait` seconds for a quick answer (none unless a test sets it)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, AiLevel, str]] = []
        self.members: list[object] = []
        self.gate: asyncio.Event | None = None
        self.wait = 0.0

    async def think(
        self, board: Board, level: AiLevel, member: object, seed: str
    ) -> tuple[tuple[int, int], str]:
        self.calls.append((board.text(), level, seed))
        self.members.append(member)
        if self.gate is not None:
            await self.gate.wait()
        row, col, reason = jobs.think(board.text(), level.value, seed, None)
        return (row, col), reason

    def quick_wait(self, level: AiLevel | None) -> float:
        return self.wait

    async def open(
        self, opening: OpeningState, level: AiLevel, member: object, seed: str
    ) -> Action:
        """The real opening job (engine.ai.openings), in-process, counted with the moves."""
        board = opening.board
        self.calls.append((board.text(), level, seed))
        self.members.append(member)
        if self.gate is not None:
            await self.gate.wait()
        kind, names, choice = jobs.decide_opening(
            opening.opening.value,
            (board.rows, board.cols, board.k, board.rule.value),
            tuple(cell_name(cell) for cell in board.moves),
            opening.decisions,
            level.value,
            seed,
            None,
        )
        cells = tuple(board.parse_move(name) for name in names)
        if kind == StepKind.CHOOSE.value:
            return Action.choose(Choice(choice))
        if kind == StepKind.OFFER.value:
            return Action.offer(cells)
        if kind == StepKind.SELECT.value:
            return Action.select(cells[0])
        return Action.place(cells[0])
