"""The AI turn's home (bot.ai.turn.AiTurns): the quick-wait rule, the pool a search runs on, the
member it is searched for, the external engine's fallback and a move whose workers die."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import pytest

from bot.ai.turn import EXTERNAL_FALLBACK, AiTurns, is_quick
from bot.cpu import jobs
from bot.cpu.pool import FairPool
from bot.game.levels import NO_ENGINE, ExternalEngineSettings, ExternalLevel
from bot.game.model import External
from engine import Board
from engine.game.types import Level
from testkit.gates import Gate, until

T = TypeVar("T")


class RecordingPool(FairPool):
    """A fair pool over threads that records (member, function, args) of every job."""

    def __init__(self, workers: int = 1) -> None:
        super().__init__(lambda: ThreadPoolExecutor(workers), workers)
        self.jobs: list[tuple[Hashable, str, tuple[Any, ...]]] = []

    async def run(self, owner: Hashable, fn: Callable[..., T], *args: Any) -> T:
        self.jobs.append((owner, fn.__name__, args))
        return await super().run(owner, fn, *args)


def turns(
    *, time_limit: float | None = None, quick_reply: float = 0.06,
    external: ExternalLevel = NO_ENGINE, workers: int = 1,
) -> AiTurns:
    return AiTurns(
        RecordingPool(workers), RecordingPool(1),
        time_limit=time_limit, quick_reply=quick_reply, external=external,
    )


# ----------------------------------------------------------------- how long a click may wait
def test_quick_levels_follow_the_operators_time_limit() -> None:
    assert is_quick(Level.EASY, None)
    assert not is_quick(Level.NORMAL, None)
    assert not is_quick(Level.IMPOSSIBLE, None)
    assert is_quick(Level.HARD, 0.05)  # CARO_AI_TIME_LIMIT makes every level that fast
    assert not is_quick(Level.EASY, 0.5)
    assert not is_quick(External.ENGINE, None)  # an operator's engine keeps its own limit


async def test_a_click_waits_for_a_quick_level_only_and_never_on_a_members_turn() -> None:
    ai = turns(quick_reply=0.25)
    assert ai.quick_wait(Level.EASY) == 0.25
    assert ai.quick_wait(Level.IMPOSSIBLE) == 0.0
    assert ai.quick_wait(External.ENGINE) == 0.0
    assert ai.quick_wait(None) == 0.0
    await ai.close()


async def test_the_wiring_builds_the_cpu_pool_of_caro_ai_workers_and_the_quick_worker() -> None:
    ai = AiTurns.in_processes(3, time_limit=0.05, quick_reply=0.2, external=NO_ENGINE)
    assert (ai.cpu_pool.workers, ai.quick_pool.workers) == (3, 1)
    # The operator's limit makes hard quick, so a click against it waits.
    assert ai.quick_wait(Level.HARD) == 0.2
    await ai.close()


# ----------------------------------------------------------------- where a search runs, for whom
async def test_quick_levels_search_on_their_own_worker_unless_it_is_busy_and_the_pool_idle() -> None:
    ai = turns(workers=2)
    shared, quick = ai.cpu_pool, ai.quick_pool
    gate = Gate()
    # Other members' long searches hold every worker of the CPU pool: easy is not behind them.
    long = [asyncio.create_task(shared.run(f"m{i}", gate.job, f"long-{i}")) for i in range(2)]
    await until(lambda: len(gate.started) == 2)
    assert ai.pool_for(Level.EASY) is quick
    assert ai.pool_for(Level.HARD) is shared
    assert ai.pool_for(Level.IMPOSSIBLE) is shared
    gate.release.set()
    await asyncio.gather(*long)
    # The quick worker busy and the CPU pool idle: easy takes an idle worker there.
    slow = Gate()
    busy = asyncio.create_task(quick.run("m9", slow.job, "easy-0"))
    await until(lambda: slow.started == ["easy-0"])
    assert ai.pool_for(Level.EASY) is shared
    slow.release.set()
    await busy
    await ai.close()


async def test_a_search_is_queued_as_the_members_and_reaches_the_worker_as_the_levels_id() -> None:
    ai = turns()
    board = Board(5, 5, 4)
    (row, col), reason = await ai.think(board, Level.EASY, 42, "seed")
    assert board[(row, col)] is None and reason
    quick = ai.quick_pool
    assert isinstance(quick, RecordingPool)
    assert quick.jobs == [(42, "think", (board.text(), "easy", "seed", None))]
    await ai.close()


async def test_other_heavy_work_runs_on_the_cpu_pool_in_the_members_turn() -> None:
    ai = turns()
    assert await ai.run_on_cpu(7, divmod, 17, 5) == (3, 2)
    shared = ai.cpu_pool
    assert isinstance(shared, RecordingPool)
    assert shared.jobs == [(7, "divmod", (17, 5))]
    await ai.close()
    with pytest.raises(RuntimeError, match="shut down"):
        await ai.run_on_cpu(7, divmod, 17, 5)


# ----------------------------------------------------------------- the external engine
async def test_an_external_seat_without_an_engine_is_played_by_the_fallback_level(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ai = turns(external=NO_ENGINE)
    board = Board.from_text("15x15 k5 freestyle H8 H9 I9")
    with caplog.at_level(logging.WARNING):
        (row, col), reason = await ai.think(board, External.ENGINE, 7, "seed")
    assert board[(row, col)] is None and reason
    shared = ai.cpu_pool
    assert isinstance(shared, RecordingPool)
    ((member, fn, args),) = shared.jobs
    assert (member, fn, args[1]) == (7, "think", EXTERNAL_FALLBACK.value)
    assert "goes on without CARO_ENGINE_CMD: impossible plays instead" in caplog.text
    await ai.close()


async def test_an_external_seat_with_an_engine_asks_it_in_the_members_turn(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    asked: list[tuple[Any, ...]] = []

    def think_external(*args: Any) -> tuple[int, int, str, bool]:
        asked.append(args)
        return 7, 7, "win", False  # as if the engine failed and the fallback moved

    monkeypatch.setattr(jobs, "think_external", think_external)
    engine = ExternalEngineSettings(command=("pbrain",), name="Embryo", time_limit=0.5)
    ai = turns(external=ExternalLevel(engine), time_limit=0.3)
    board = Board(15, 15, 5)
    with caplog.at_level(logging.WARNING):
        # Stored as the stand-in's move, so the board can say who played it.
        assert await ai.think(board, External.ENGINE, 9, "s") == ((7, 7), "stand_in:win")
    assert asked == [(board.text(), "s", ("pbrain",), 0.5, 0.3)]
    shared = ai.cpu_pool
    assert isinstance(shared, RecordingPool)
    assert [job[0] for job in shared.jobs] == [9]
    assert "Embryo did not move on 15x15 k5 freestyle: impossible played instead" in caplog.text
    await ai.close()


# ----------------------------------------------------------------- workers dying
class DyingWorkers(Executor):
    """A pool whose every worker dies under its job, as under the out-of-memory killer."""

    def __init__(self) -> None:
        self.jobs = 0

    def submit(self, fn: object, /, *args: object, **kwargs: object) -> Future[object]:
        self.jobs += 1
        future: Future[object] = Future()
        future.set_exception(BrokenProcessPool("an AI worker process ended abruptly (exit code -9)"))
        return future


async def test_a_move_whose_workers_die_twice_is_answered_by_the_pure_python_search(
    caplog: pytest.LogCaptureFixture,
) -> None:
    dying: list[DyingWorkers] = []

    def make() -> DyingWorkers:
        dying.append(DyingWorkers())
        return dying[-1]

    ai = AiTurns(FairPool(make, workers=1), FairPool(lambda: ThreadPoolExecutor(1), workers=1))
    board = Board.from_text("15x15 k5 freestyle H8 H9 I9")
    with caplog.at_level(logging.INFO):
        (row, col), reason = await ai.think(board, Level.IMPOSSIBLE, "alice", "seed")
    assert board[(row, col)] is None and reason
    assert [pool.jobs for pool in dying] == [1, 1]  # tried, then once more on a fresh pool
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage().split(" (")[0] for r in warnings] == [
        "AI worker pool broke",
        "AI workers died on one move twice",
    ]
    assert not any(r.levelno >= logging.ERROR or r.exc_info for r in caplog.records)
    await ai.close()
