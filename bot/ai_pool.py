"""The AI process pool, shared fairly between members.

One member starting many strong games (or AI-vs-AI watches) must not make everyone else wait:
each owner (the member a search is for) has a queue of its own, the queues are served
round-robin, and no single owner holds more than all but one of the workers. A member flooding
the pool therefore leaves a worker for everyone else, and another member's move waits for at
most the searches of the other members ahead in the round, not for the flood.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

log = logging.getLogger("caro.bot.ai")

T = TypeVar("T")


class PoolClosedError(RuntimeError):
    """The pool was shut down: no more searches are taken."""


@dataclass(eq=False)
class _Job(Generic[T]):
    owner: Hashable
    fn: Callable[..., T]
    args: tuple[Any, ...]
    future: asyncio.Future[T]
    retried: bool = False


@dataclass
class _Owner:
    queue: deque[_Job[Any]] = field(default_factory=deque)
    running: int = 0
    last_served: int = 0  # the pool's serve count when this owner last got a worker; 0: never


def process_pool(
    workers: int, initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = ()
) -> ProcessPoolExecutor:
    # spawn, not fork: forking a process that runs the sqlite and asyncio threads can copy a
    # held lock into the child.
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=initializer,
        initargs=initargs,
    )


class FairPool:
    """Runs `fn(*args)` in worker processes, owners served round-robin.

    `make_executor` builds the executor (again, if a worker dies and breaks it); `workers` is
    its size, which the scheduler never oversubscribes, so a queued job waits here, in the
    owner's queue, not in the executor's single first-come-first-served queue.
    """

    def __init__(self, make_executor: Callable[[], Executor], workers: int) -> None:
        if workers < 1:
            raise ValueError(f"an AI pool needs at least one worker, not {workers}")
        self._make_executor = make_executor
        self._executor: Executor | None = make_executor()
        self.workers = workers
        self._owners: OrderedDict[Hashable, _Owner] = OrderedDict()
        self._running = 0
        self._served = 0
        self._closed = False

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            raise PoolClosedError("the AI pool is shut down")
        return self._executor

    def queued(self, owner: Hashable | None = None) -> int:
        """Jobs waiting for a worker: of one owner, or of everyone."""
        if owner is not None:
            entry = self._owners.get(owner)
            return 0 if entry is None else len(entry.queue)
        return sum(len(entry.queue) for entry in self._owners.values())

    def has_free_worker(self) -> bool:
        """Whether a job given now would start at once: a worker idle and nobody queued."""
        return not self._closed and self._running < self.workers and not self.queued()

    async def run(self, owner: Hashable, fn: Callable[..., T], *args: Any) -> T:
        """The result of `fn(*args)` computed in a worker, in `owner`'s turn."""
        if self._closed:
            raise PoolClosedError("the AI pool is shut down")
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        entry = self._owners.get(owner)
        if entry is None:
            entry = self._owners[owner] = _Owner()
        entry.queue.append(_Job(owner, fn, args, future))
        self._pump()
        return await future

    async def broadcast(self, fn: Callable[[], T]) -> list[T]:
        """Runs `fn` once per worker slot at the same time (warm-up: each worker loads the
        engine before the first player's move needs it)."""
        loop = asyncio.get_running_loop()
        return list(
            await asyncio.gather(
                *(loop.run_in_executor(self.executor, fn) for _ in range(self.workers))
            )
        )

    def _cap(self) -> int:
        """The most workers one owner may hold: all but one, always, so that a member who
        arrives while another floods finds a worker free (or freed by the next finished job of
        anyone) instead of waiting behind the flood."""
        return max(1, self.workers - 1)

    def _next_job(self) -> _Job[Any] | None:
        while True:
            eligible = [e for e in self._owners.values() if e.queue and e.running < self._cap()]
            if not eligible:
                return None
            # Least recently served first (a newcomer, never served, before everyone who has
            # been); ties in order of arrival, which is the dict's order.
            entry = min(eligible, key=lambda e: e.last_served)
            job = entry.queue.popleft()
            if not job.future.cancelled():
                self._served += 1
                entry.last_served = self._served
                return job

    def _pump(self) -> None:
        while self._running < self.workers and not self._closed:
            job = self._next_job()
            if job is None:
                break
            self._start(job)
        self._forget_idle_owners()

    def _forget_idle_owners(self) -> None:
        for owner in [o for o, e in self._owners.items() if not e.queue and not e.running]:
            del self._owners[owner]

    def _start(self, job: _Job[Any]) -> None:
        loop = asyncio.get_running_loop()
        entry = self._owners.setdefault(job.owner, _Owner())
        entry.running += 1
        self._running += 1
        try:
            running = loop.run_in_executor(self.executor, job.fn, *job.args)
        except (BrokenProcessPool, RuntimeError, PoolClosedError) as exc:
            running = loop.create_future()
            running.set_exception(exc)
        running.add_done_callback(lambda done: self._finished(job, done))

    def _finished(self, job: _Job[Any], done: asyncio.Future[Any]) -> None:
        entry = self._owners.setdefault(job.owner, _Owner())
        entry.running -= 1
        self._running -= 1
        exc = None if done.cancelled() else done.exception()
        if isinstance(exc, BrokenProcessPool) and not job.retried and not self._closed:
            # A worker died (killed by the OS, say): one fresh pool, and this job once more,
            # ahead of its owner's other jobs.
            log.warning("AI worker pool broke; starting a new one")
            self._replace_executor()
            job.retried = True
            entry.queue.appendleft(job)
        elif not job.future.done():
            if done.cancelled():
                job.future.cancel()
            elif exc is not None:
                job.future.set_exception(exc)
            else:
                job.future.set_result(done.result())
        self._pump()

    def _replace_executor(self) -> None:
        broken = self._executor
        self._executor = self._make_executor()
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        """Refuse new work, drop queued work, and wait for the running searches (each bounded
        by its own time limit)."""
        if self._closed:
            return
        self._closed = True
        for entry in self._owners.values():
            while entry.queue:
                entry.queue.popleft().future.cancel()
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
