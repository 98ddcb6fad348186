"""A fake AI port for the game services: the real AI worker function run in-process, counting its
calls and able to be held back, instead of the bot's pool of worker processes."""

from __future__ import annotations

import asyncio

from bot.cpu import jobs
from bot.game.model import AiLevel
from engine import Board


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
