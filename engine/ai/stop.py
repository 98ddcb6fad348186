"""Stop: a request, from another thread, that a running search end now.

Kept apart from engine.ai.compiled (which imports numba) so that callers such as `caro pbrain`
can make one without loading the compiled core.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol


class _Flagged(Protocol):
    """What a Stop reaches into: the compiled core's Ctx, whose stat[2] the search reads."""

    @property
    def stat(self) -> Any: ...


class Stop:
    """Ends an engine.ai.compiled.think() early, from any thread: set() makes the search stop
    within a few hundred nodes (it then returns the best move it has, always a legal one), and a think() given a Stop
    that is already set returns almost at once.

    The core reads its context's stat[2] at every node, and think() clears that flag at the start
    of each of its phases, so the request is kept here too and re-applied whenever a phase begins:
    a set() before the search, between two phases or during one is never lost.
    """

    __slots__ = ("_ctx", "_lock", "_set")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._ctx: _Flagged | None = None

    def set(self) -> None:
        with self._lock:
            self._set = True
            if self._ctx is not None:
                self._ctx.stat[2] = 1

    def is_set(self) -> bool:
        return self._set

    def arm(self, ctx: _Flagged) -> None:
        """For think(), once a phase's counters are reset: from now on set() reaches `ctx`."""
        with self._lock:
            self._ctx = ctx
            if self._set:
                ctx.stat[2] = 1

    def disarm(self) -> None:
        """For think(), when it returns: the tables are no longer this search's."""
        with self._lock:
            self._ctx = None
