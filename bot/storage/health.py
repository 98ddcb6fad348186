"""Whether the database can be reached: each backend's connection-level failures become one
StorageUnavailable, said once in the log.

While the database is away every call of a repository fails at once with StorageUnavailable
instead of waiting on a dead server or a locked file, so a member's click is answered within
Discord's deadline and the background loops go round without piling up. Meanwhile one probe
(the backend's cheapest statement that needs what failed) runs every `retry_every` seconds; the
first one that succeeds brings the database back. The log gets one WARNING when it is lost and
one INFO, with how long it was away, when it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.game.ports import StorageUnavailable

log = logging.getLogger("caro.storage")

T = TypeVar("T")
RETRY_EVERY = 1.0


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class Health:
    """Up or down, for one database. `ping` is the probe; `is_unavailable` tells a failure to
    reach the database from any other error (a broken constraint, a bug), which passes through
    unchanged."""

    def __init__(
        self,
        name: str,
        ping: Callable[[], Awaitable[object]],
        is_unavailable: Callable[[BaseException], bool],
        *,
        retry_every: float = RETRY_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self._ping = ping
        self._is_unavailable = is_unavailable
        self.retry_every = retry_every
        self._clock = clock
        self.down_since: float | None = None
        self.reason = ""
        self._prober: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def refuse_while_down(self) -> None:
        """StorageUnavailable while the database is away (checked before each call, and by the
        SQLite connection once it has its lock, as a call may have queued from before)."""
        if self.down_since is not None:
            raise StorageUnavailable(f"database {self.name} unreachable ({self.reason})")

    def failed(self, exc: BaseException) -> StorageUnavailable | None:
        """The StorageUnavailable that `exc` stands for, the database then counted as lost;
        None if `exc` is some other error."""
        if isinstance(exc, StorageUnavailable):
            return exc
        if self._closed or not self._is_unavailable(exc):
            return None
        if self.down_since is None:
            self.down_since = self._clock()
            self.reason = one_line(exc)
            log.warning(
                "database %s unreachable (%s): members are told to try again in a moment,"
                " background work waits; retrying every %.0f s",
                self.name, self.reason, self.retry_every,
            )
            self._prober = asyncio.get_running_loop().create_task(self._probe())
        return StorageUnavailable(f"database {self.name} unreachable ({self.reason})")

    async def _probe(self) -> None:
        while not self._closed:
            await asyncio.sleep(self.retry_every)
            try:
                await self._ping()
            except Exception as exc:
                # Still away (any other error of the probe is also "not back": it is one fixed
                # statement, and the next probe tries again).
                log.debug("database %s still unreachable (%s)", self.name, one_line(exc))
                continue
            since = self.down_since
            self.down_since = None
            gone = 0.0 if since is None else self._clock() - since
            log.info("database %s reachable again after %.1f s", self.name, gone)
            return

    def guard(self, repository: T) -> T:
        """`repository` with each of its public coroutine methods refusing at once while the
        database is away and turning a failure to reach it into StorageUnavailable. Patched on
        the instance, so repositories that hold one another go through the guard too."""
        for name, method in inspect.getmembers(repository, inspect.iscoroutinefunction):
            if not name.startswith("_"):
                setattr(repository, name, self._guarded(method))
        return repository

    def _guarded(self, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(method)
        async def guarded(*args: Any, **kwargs: Any) -> Any:
            self.refuse_while_down()
            try:
                return await method(*args, **kwargs)
            except Exception as exc:
                unavailable = self.failed(exc)
                if unavailable is None or unavailable is exc:
                    raise
                raise unavailable from exc

        return guarded

    async def close(self) -> None:
        """Stop probing (the database is being closed)."""
        self._closed = True
        if self._prober is not None:
            self._prober.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._prober


__all__ = ["RETRY_EVERY", "Health", "one_line"]
