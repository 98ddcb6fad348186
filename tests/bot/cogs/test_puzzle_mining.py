"""The background mining of finished games (PuzzleCog._mine_some) against a real SQLite database:
a finished rated game of a server on this process's shards is mined into that server's puzzles;
nothing is mined while the AI pool has no free worker (the game waits for the next look), nor
past the hourly cap, nor for a server another process holds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.cogs.puzzle import PuzzleCog
from bot.game import puzzles as puzzle_service
from bot.game import ratings
from bot.game.model import Finish, Mode, NewGame
from bot.game.services import Services, build_services
from bot.storage import SqliteStorage
from engine import Mark
from testkit.thinkers import Thinker
from testkit.worlds import Clock

# X missed a forced win by fours at move 11 (K8, then K9) and played A15.
HAND_GAME = ["H8", "G8", "I8", "C3", "J8", "D3", "K10", "E3", "K11", "N14", "A15", "K8"]
HERE, ELSEWHERE = 5, (1 << 22) + 5  # guild ids on shard 0 and shard 1 of 2


class Pool:
    def __init__(self) -> None:
        self.free = True

    def has_free_worker(self) -> bool:
        return self.free


class Ai:
    def __init__(self) -> None:
        self.cpu_pool = Pool()
        self.jobs: list[str] = []

    async def run_on_cpu(self, member: object, fn: Callable[..., Any], *args: Any) -> Any:
        self.jobs.append(fn.__name__)
        return fn(*args)


class Host:
    shard_count = 2

    def __init__(self, services: Services) -> None:
        self.services = services
        self.ai = Ai()

    def held_shards(self) -> list[int]:
        return [0]


async def finished_game(svc: Services, guild: int) -> int:
    game = await svc.storage.games.create_game(NewGame(
        guild_id=guild, channel_id=1, mode=Mode.PVP, x=10, o=20, started_by=10,
        rows=15, cols=15, k=5, rule="freestyle", rated=True,
    ))
    for ply, cell in enumerate(HAND_GAME):
        await svc.storage.games.add_move(game.id, ply, cell, by_ai=False, now=0.0)
    await svc.storage.games.finish_game(game.id, Finish(Mark.O), rate=ratings.game_updates)
    return game.id


async def test_finished_games_are_mined_in_the_background_within_the_limits(
    tmp_path: Path, monkeypatch: Any
) -> None:
    storage = await SqliteStorage.open(tmp_path / "caro.db")
    svc = build_services(storage, Thinker(), clock=Clock())
    host = Host(svc)
    cog = PuzzleCog(host)  # type: ignore[arg-type]
    try:
        start = await svc.puzzles.mining_start([0], 2)
        assert start == 0
        mine_here = await finished_game(svc, HERE)
        # The pool is busy: nothing is mined, and the game is looked at again next time.
        host.ai.cpu_pool.free = False
        assert await cog._mine_some(start) == start
        assert host.ai.jobs == []
        host.ai.cpu_pool.free = True
        seen = await cog._mine_some(start)
        assert seen == mine_here and host.ai.jobs == ["puzzle_mine"]
        [mined] = await storage.puzzles.server_puzzles(HERE)
        assert mined.guild_id == HERE and mined.puzzle.line[0] == "K8"
        assert mined.puzzle.source == f"game {mine_here}"
        # Another process's server is left to it.
        elsewhere = await finished_game(svc, ELSEWHERE)
        assert await cog._mine_some(seen) == elsewhere
        assert host.ai.jobs == ["puzzle_mine"]
        assert await storage.puzzles.count_puzzles(ELSEWHERE) == 0
        # Past the hourly cap nothing more is mined this hour.
        monkeypatch.setattr(puzzle_service, "MINED_GAMES_PER_HOUR", 1)
        later = await finished_game(svc, HERE)
        assert await cog._mine_some(elsewhere) == elsewhere
        svc.puzzles._clock.now += 3601.0  # type: ignore[attr-defined]
        assert await cog._mine_some(elsewhere) == later
    finally:
        await storage.close()
