"""The AI process pool, shared fairly between members.

One member starting many strong games (or AI-vs-AI watches) must not make everyone else wait:
each owner (the member a search is for) has a queue of its own, the queues are served
round-robin, and no single owner holds more than all but one of the workers. A member flooding
the pool therefore leaves a worker for everyone else, and another member's move waits for at
most the searches of the other members ahead in the round, not for the flood.

The workers are processes of a LoopProcessPool: the event loop itself writes each job to a
worker's pipe and reads the answer from another, with no helper threads in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import struct
import sys
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from typing import Any, Generic, TypeVar

log = logging.getLogger("caro.bot.ai")

T = TypeVar("T")

# Seconds a stopped worker gets to exit before it is killed (its search is over by then).
WORKER_EXIT_WAIT = 5.0
# Bytes read from an answer pipe at a time.
ANSWER_READ = 1 << 16


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
) -> Executor:
    if sys.platform == "win32":
        # Windows' event loop cannot watch a pipe (no add_reader): the standard pool there.
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=initializer,
            initargs=initargs,
        )
    return LoopProcessPool(workers, initializer, initargs)


# An answer's frame: its length, then the pickle.
_FRAME = struct.Struct("!Q")


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    jobs: Connection  # written here, blocking (the loop never watches it)
    answers: int  # the answer pipe's reading end, non-blocking (the loop watches it)
    received: bytearray = field(default_factory=bytearray)
    job: Future[Any] | None = None


def _serve(jobs: Connection, answers: Connection, initializer: Callable[..., object] | None,
           initargs: tuple[Any, ...]) -> None:
    """A worker process: run the jobs that arrive on `jobs`, one at a time, and write back
    (True, result) or (False, the exception) on `answers`; None (or the bot gone) ends it."""
    # Ctrl-C in a terminal reaches the whole process group: the bot stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)
    out = answers.fileno()
    while True:
        try:
            job = jobs.recv()
        except (EOFError, OSError):
            return  # the bot is gone
        if job is None:
            return
        fn, args = job
        try:
            answer: tuple[bool, Any] = (True, fn(*args))
        except BaseException as exc:  # the job's failure is the caller's to see
            answer = (False, exc)
        try:
            payload = ForkingPickler.dumps(answer)
        except Exception as exc:  # a result or exception pickle cannot carry
            failure = RuntimeError(f"the AI worker could not send its answer: {exc!r}")
            payload = ForkingPickler.dumps((False, failure))
        frame = memoryview(_FRAME.pack(len(payload)) + bytes(payload))
        try:
            while frame:
                frame = frame[os.write(out, frame):]
        except OSError:
            return  # the bot is gone (killed, say): nobody to answer


class LoopProcessPool(Executor):
    """Worker processes driven by the event loop itself: a job goes down a worker's job pipe,
    written by submit, and its answer comes back on the worker's answer pipe, read by a reader
    callback of the loop. A ProcessPoolExecutor hands each job and answer over between two
    helper threads of its own, each woken per job, several times the bot's CPU per AI move of
    this pool's hand-over, and every click against the AI is one.

    submit() must be called from the event loop's thread (FairPool does); shutdown() from it
    with wait=False, or from any other thread. A worker that dies breaks the pool, as with
    ProcessPoolExecutor: its jobs fail with BrokenProcessPool (FairPool starts a new pool).
    """

    def __init__(
        self,
        workers: int,
        initializer: Callable[..., object] | None = None,
        initargs: tuple[Any, ...] = (),
    ) -> None:
        if workers < 1:
            raise ValueError(f"a process pool needs at least one worker, not {workers}")
        self._size = workers
        self._initializer = initializer
        self._initargs = initargs
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._workers: list[_Worker] = []
        self._idle: deque[_Worker] = deque()
        self._pending: deque[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = deque()
        self._broken: str | None = None
        self._closing = False
        self._stopped = threading.Event()

    # ----------------------------------------------------------------- the loop's side
    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        if kwargs:
            raise TypeError("LoopProcessPool.submit takes positional arguments only")
        if self._broken is not None:
            raise BrokenProcessPool(self._broken)
        if self._closing:
            raise RuntimeError("cannot schedule new futures after shutdown")
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop, self._loop_thread = loop, threading.get_ident()
            self._start_workers()
        elif loop is not self._loop:
            raise RuntimeError("a LoopProcessPool serves the event loop that first used it")
        future: Future[T] = Future()
        self._pending.append((future, fn, args))
        self._dispatch()
        return future

    def _start_workers(self) -> None:
        # spawn, not fork: forking a process that runs the sqlite and asyncio threads can copy a
        # held lock into the child.
        context = multiprocessing.get_context("spawn")
        assert self._loop is not None
        for _ in range(self._size):
            job_r, job_w = context.Pipe(duplex=False)
            answer_r, answer_w = context.Pipe(duplex=False)
            process = context.Process(
                target=_serve, args=(job_r, answer_w, self._initializer, self._initargs),
                name="caro-ai-worker", daemon=True,
            )
            process.start()
            # The worker's ends, closed here so that its death is an end of file.
            job_r.close()
            answer_w.close()
            # The loop reads answers as they come (it makes the pipe non-blocking): a frame
            # may arrive in pieces, gathered in `received`.
            answers = os.dup(answer_r.fileno())
            answer_r.close()
            worker = _Worker(process, job_w, answers)
            self._workers.append(worker)
            self._idle.append(worker)
            self._loop.add_reader(answers, self._readable, worker)

    def _dispatch(self) -> None:
        while self._pending and self._idle:
            future, fn, args = self._pending.popleft()
            if not future.set_running_or_notify_cancel():
                continue
            worker = self._idle.popleft()
            try:
                worker.jobs.send((fn, args))
            except OSError as exc:
                future.set_exception(BrokenProcessPool(f"an AI worker is gone ({exc})"))
                self._break(f"an AI worker is gone ({exc})")
                return
            except Exception as exc:  # the job cannot be pickled: nothing was sent
                self._idle.appendleft(worker)
                future.set_exception(exc)
                continue
            worker.job = future

    def _readable(self, worker: _Worker) -> None:
        ended = False
        try:
            while True:
                chunk = os.read(worker.answers, ANSWER_READ)
                if not chunk:
                    ended = True
                    break
                worker.received += chunk
                if len(chunk) < ANSWER_READ:
                    break
        except BlockingIOError:
            pass
        except OSError:
            ended = True
        while True:
            answer = self._next_answer(worker)
            if answer is None:
                break
            self._answered(worker, answer)
            if self._broken is not None:
                return
        if ended and worker.answers >= 0:
            worker.process.join(0)  # reaps it if it has exited (never waits)
            code = worker.process.exitcode
            self._break(f"an AI worker process ended abruptly (exit code {code})")

    @staticmethod
    def _next_answer(worker: _Worker) -> tuple[bool, Any] | None:
        """The first whole answer in what `worker` sent so far (taken out), or None."""
        received = worker.received
        if len(received) < _FRAME.size:
            return None
        (size,) = _FRAME.unpack_from(received)
        end = _FRAME.size + size
        if len(received) < end:
            return None
        payload = bytes(received[_FRAME.size:end])
        del received[:end]
        try:
            ok, value = ForkingPickler.loads(payload)
        except Exception as exc:  # an answer that does not unpickle here
            return False, exc
        return bool(ok), value

    def _answered(self, worker: _Worker, answer: tuple[bool, Any]) -> None:
        ok, value = answer
        future, worker.job = worker.job, None
        self._idle.append(worker)
        if future is not None:
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)
        if self._closing:
            self._stop_if_idle()
        else:
            self._dispatch()

    def _break(self, reason: str) -> None:
        self._broken = reason
        for worker in self._workers:
            if worker.job is not None and not worker.job.done():
                worker.job.set_exception(BrokenProcessPool(reason))
            worker.job = None
        while self._pending:
            future, _fn, _args = self._pending.popleft()
            if future.set_running_or_notify_cancel():
                future.set_exception(BrokenProcessPool(reason))
        self._stop_workers(kill=True)

    def _stop_if_idle(self) -> None:
        if all(worker.job is None for worker in self._workers):
            self._stop_workers(kill=False)

    def _stop_workers(self, *, kill: bool) -> None:
        for worker in self._workers:
            if worker.answers < 0:
                continue  # stopped already
            if self._loop is not None:
                self._loop.remove_reader(worker.answers)
            os.close(worker.answers)
            worker.answers = -1
            with contextlib.suppress(OSError):
                if kill:
                    worker.process.kill()
                else:
                    worker.jobs.send(None)
            worker.jobs.close()
        self._idle.clear()
        self._stopped.set()

    def _begin_shutdown(self, cancel_futures: bool) -> None:
        if self._closing:
            return
        self._closing = True
        if cancel_futures:
            while self._pending:
                self._pending.popleft()[0].cancel()
        if self._broken is None and self._workers:
            self._stop_if_idle()
        else:
            self._stopped.set()

    # ----------------------------------------------------------------- any thread
    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more jobs (with `cancel_futures`, drop those not started), let the running
        ones end, then stop the workers; with `wait`, until they have exited (never from the
        loop's own thread: the answers are read there)."""
        on_loop = self._loop_thread is None or self._loop_thread == threading.get_ident()
        if on_loop:
            if wait and self._loop is not None and self._loop.is_running():
                raise RuntimeError("shutdown(wait=True) would block the loop that runs the pool")
            self._begin_shutdown(cancel_futures)
        else:
            assert self._loop is not None
            started = threading.Event()

            def begin() -> None:
                self._begin_shutdown(cancel_futures)
                started.set()

            try:
                self._loop.call_soon_threadsafe(begin)
            except RuntimeError:  # the loop is closed: nothing more will be answered
                self._break("the event loop is closed")
            else:
                started.wait()
        if wait:
            self._stopped.wait()
            for worker in self._workers:
                worker.process.join(WORKER_EXIT_WAIT)
                if worker.process.is_alive():
                    worker.process.kill()
                    worker.process.join()


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
            executor = self.executor
            if isinstance(executor, LoopProcessPool):
                # Its futures are completed on this loop's thread, by its reader callback: no
                # need for run_in_executor's thread-safe hand-off (a write to wake the loop, and
                # two more futures, per AI move). Still run after the pool's own callback
                # returns, as run_in_executor's would be: _finished may start the next job on it.
                submitted = executor.submit(job.fn, *job.args)

                def answered(done: Future[Any]) -> None:
                    # Off the loop's thread only once the loop is closed (the pool's shutdown
                    # breaks it from there): then nobody awaits the answer.
                    if not loop.is_closed():
                        loop.call_soon(self._finished, job, done)

                submitted.add_done_callback(answered)
                return
            running = loop.run_in_executor(executor, job.fn, *job.args)
        except (BrokenProcessPool, RuntimeError, PoolClosedError) as exc:
            running = loop.create_future()
            running.set_exception(exc)
        running.add_done_callback(lambda done: self._finished(job, done))

    def _finished(self, job: _Job[Any], done: Future[Any] | asyncio.Future[Any]) -> None:
        entry = self._owners.setdefault(job.owner, _Owner())
        entry.running -= 1
        self._running -= 1
        exc = None if done.cancelled() else done.exception()
        if isinstance(exc, BrokenProcessPool) and not job.retried and not self._closed:
            # A worker died (killed by the OS, say): one fresh pool, and this job once more,
            # ahead of its owner's other jobs.
            log.warning("AI worker pool broke (%s); starting a new one", exc)
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
