"""The fair AI pool: owners served round-robin, none holding every worker, broken pools replaced."""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from bot.cpu.pool import FairPool, PoolClosedError, process_pool
from testkit.gates import Gate, until


async def test_a_flooding_member_leaves_a_worker_for_everyone_else() -> None:
    gate = Gate()
    pool = FairPool(lambda: ThreadPoolExecutor(2), workers=2)
    flood = [asyncio.create_task(pool.run("alice", gate.job, f"alice-{i}")) for i in range(8)]
    await until(lambda: len(gate.started) == 1)
    await asyncio.sleep(0.05)
    assert gate.started == ["alice-0"]  # alice holds one worker, not both
    bob = asyncio.create_task(pool.run("bob", gate.job, "bob"))
    await until(lambda: "bob" in gate.started)  # bob starts while alice's flood is still queued
    assert pool.queued("alice") == 7
    gate.release.set()
    assert await bob == "bob"
    assert await asyncio.gather(*flood) == [f"alice-{i}" for i in range(8)]
    await pool.close()


async def test_owners_are_served_round_robin() -> None:
    order: list[str] = []
    pool = FairPool(lambda: ThreadPoolExecutor(1), workers=1)
    blocker = Gate()
    first = asyncio.create_task(pool.run("alice", blocker.job, "alice-0"))
    await until(lambda: blocker.started == ["alice-0"])
    tasks = [
        asyncio.create_task(pool.run(owner, order.append, f"{owner}-{i}"))
        for owner, count in (("alice", 3), ("bob", 3), ("carol", 1))
        for i in range(1, count + 1)
    ]
    await asyncio.sleep(0)
    blocker.release.set()
    await asyncio.gather(first, *tasks)
    assert order == ["bob-1", "carol-1", "alice-1", "bob-2", "alice-2", "bob-3", "alice-3"]
    await pool.close()


def die_once(flag: str) -> int:
    """Kills its worker the first time (as the OS killing a worker would), then answers."""
    if not os.path.exists(flag):
        Path(flag).touch()
        os._exit(1)
    return os.getpid()


async def test_a_killed_worker_is_replaced_and_the_search_retried(tmp_path: Path) -> None:
    pool = FairPool(lambda: process_pool(1), workers=1)
    try:
        pid = await pool.run("alice", die_once, str(tmp_path / "died"))
        assert pid != os.getpid() and (tmp_path / "died").exists()
        assert await pool.run("bob", os.getpid) == pid  # the fresh pool keeps serving
    finally:
        await pool.close()


async def test_the_fair_pool_takes_the_loop_driven_pools_answers_without_waking_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loop-driven pool answers on the loop's own thread: the fair pool takes each answer
    as it comes, in order per owner, and nothing goes through the loop's thread-safe wake-up
    (which run_in_executor uses, a write to the loop's wake-up pipe per AI move)."""
    loop = asyncio.get_running_loop()
    woken: list[object] = []
    threadsafe = loop.call_soon_threadsafe

    def counted(callback: object, *args: object, **kwargs: object) -> object:
        woken.append(callback)
        return threadsafe(callback, *args, **kwargs)  # type: ignore[arg-type]

    pool = FairPool(lambda: process_pool(2), workers=2)
    try:
        await pool.run("warm-up", os.getpid)
        monkeypatch.setattr(loop, "call_soon_threadsafe", counted)
        answers = await asyncio.gather(
            *(pool.run(owner, divmod, n, 7) for n in range(20) for owner in ("alice", "bob"))
        )
        assert answers == [divmod(n, 7) for n in range(20) for _ in range(2)]
        with pytest.raises(ValueError, match="no such move"):
            await pool.run("alice", fail_with, "no such move")
        assert woken == []
    finally:
        await pool.close()


async def test_closing_drops_queued_searches_and_refuses_new_ones() -> None:
    gate = Gate()
    pool = FairPool(lambda: ThreadPoolExecutor(1), workers=1)
    running = asyncio.create_task(pool.run("alice", gate.job, "alice-0"))
    queued = asyncio.create_task(pool.run("bob", gate.job, "bob"))
    await until(lambda: gate.started == ["alice-0"])
    closing = asyncio.create_task(pool.close())
    await asyncio.sleep(0.01)
    gate.release.set()
    await closing
    assert await running == "alice-0"
    with pytest.raises(asyncio.CancelledError):
        await queued
    with pytest.raises(PoolClosedError):
        await pool.run("carol", str, 1)


def test_a_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        FairPool(lambda: ThreadPoolExecutor(1), workers=0)


async def test_a_job_would_start_at_once_only_with_a_worker_idle_and_nobody_queued() -> None:
    gate = Gate()
    pool = FairPool(lambda: ThreadPoolExecutor(2), workers=2)
    assert pool.has_free_worker()
    first = asyncio.create_task(pool.run("alice", gate.job, "alice-0"))
    await until(lambda: len(gate.started) == 1)
    assert pool.has_free_worker()  # one of two busy
    bob = asyncio.create_task(pool.run("bob", gate.job, "bob"))
    await until(lambda: len(gate.started) == 2)
    assert not pool.has_free_worker()
    gate.release.set()
    await asyncio.gather(first, bob)
    assert pool.has_free_worker()
    await pool.close()
    assert not pool.has_free_worker()


def fail_with(message: str) -> None:
    raise ValueError(message)


def unpicklable() -> object:
    return lambda: None


def sleep_then_pid(seconds: float) -> int:
    import time

    time.sleep(seconds)
    return os.getpid()


async def test_the_loop_driven_pool_brings_back_results_and_failures() -> None:
    pool = process_pool(2)
    loop = asyncio.get_running_loop()
    try:
        assert await loop.run_in_executor(pool, divmod, 17, 5) == (3, 2)
        # Far bigger than a pipe holds at once, both ways: they arrive whole.
        big = "x" * 3_000_000
        assert await loop.run_in_executor(pool, str.upper, big) == big.upper()
        with pytest.raises(ValueError, match="no such move"):
            await loop.run_in_executor(pool, fail_with, "no such move")
        # An answer pickle cannot carry is a failure of that job only: the worker serves on.
        with pytest.raises(RuntimeError, match="could not send its answer"):
            await loop.run_in_executor(pool, unpicklable)
        # Each job on its own worker at once: two different processes, neither this one.
        pids = await asyncio.gather(
            loop.run_in_executor(pool, sleep_then_pid, 0.3),
            loop.run_in_executor(pool, sleep_then_pid, 0.3),
        )
        assert len(set(pids)) == 2 and os.getpid() not in pids
    finally:
        await asyncio.to_thread(pool.shutdown, wait=True)


async def test_shutting_the_loop_driven_pool_down_lets_running_jobs_end() -> None:
    pool = process_pool(1)
    loop = asyncio.get_running_loop()
    running = loop.run_in_executor(pool, sleep_then_pid, 0.3)
    queued = loop.run_in_executor(pool, os.getpid)
    await asyncio.sleep(0.05)
    await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
    pid = await running
    with pytest.raises(asyncio.CancelledError):
        await queued
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(os.getpid)
    # The worker has exited.
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_a_worker_dying_breaks_the_loop_driven_pool() -> None:

    pool = process_pool(1)
    loop = asyncio.get_running_loop()
    pid = await loop.run_in_executor(pool, os.getpid)
    os.kill(pid, 9)  # as the OS killing it would
    with pytest.raises(BrokenProcessPool):
        await loop.run_in_executor(pool, sleep_then_pid, 1.0)
    with pytest.raises(BrokenProcessPool):
        pool.submit(os.getpid)
    pool.shutdown(wait=False)
