"""Event-loop lag: how late the loop wakes a task that asked to sleep, logged periodically.

Every interaction must be acknowledged within 3 s, and that only holds while nothing blocks the
event loop; this metric shows an operator whether something does (a slow query, a search run
in-process by mistake, a swapping host) long before users see "This interaction failed".
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any

from engine.support.stats import percentile

log = logging.getLogger("caro.metrics")

SAMPLE_INTERVAL = 0.05
# Without CARO_LOOP_LAG_LOG the figures still go to DEBUG, once a minute.
DEFAULT_REPORT_INTERVAL = 60.0


class GcPauses:
    """How long the cyclic garbage collector stopped everything, per generation: a full
    collection walks every live object, which is the usual cause of a lag spike on a bot that
    otherwise only does small amounts of work per event."""

    def __init__(self) -> None:
        self._started = 0.0
        self.longest = [0.0, 0.0, 0.0]
        self.count = [0, 0, 0]

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        generation = int(info.get("generation", 2))
        self.longest[generation] = max(
            self.longest[generation], time.perf_counter() - self._started
        )
        self.count[generation] += 1

    def summary(self) -> str:
        return ", ".join(
            f"gen{g} {n}x max {t * 1000:.1f} ms"
            for g, (n, t) in enumerate(zip(self.count, self.longest, strict=True))
        )

    def reset(self) -> None:
        self.longest = [0.0, 0.0, 0.0]
        self.count = [0, 0, 0]


def lag_summary(lags: list[float], seconds: float, gc_pauses: GcPauses | None = None) -> str:
    ordered = sorted(lags)
    text = (
        f"loop lag over {seconds:.1f} s: max {ordered[-1] * 1000:.1f} ms, "
        f"p99 {percentile(ordered, 0.99) * 1000:.1f} ms, "
        f"mean {sum(ordered) / len(ordered) * 1000:.2f} ms ({len(ordered)} samples)"
    )
    return text if gc_pauses is None else f"{text}; gc: {gc_pauses.summary()}"


async def monitor_loop_lag(report_interval: float | None) -> None:
    """Run until cancelled: sample the lag every SAMPLE_INTERVAL and log a summary per interval.

    `report_interval` (seconds) is the operator's CARO_LOOP_LAG_LOG setting: summaries at INFO
    that often; None means DEBUG once a minute.
    """
    level = logging.INFO if report_interval is not None else logging.DEBUG
    interval = report_interval if report_interval is not None else DEFAULT_REPORT_INTERVAL
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    gc_pauses = GcPauses()
    gc.callbacks.append(gc_pauses)
    window_start = loop.time()
    try:
        while True:
            asked = loop.time()
            await asyncio.sleep(SAMPLE_INTERVAL)
            now = loop.time()
            lags.append(max(0.0, now - asked - SAMPLE_INTERVAL))
            if now - window_start >= interval:
                if log.isEnabledFor(level):
                    log.log(level, lag_summary(lags, now - window_start, gc_pauses))
                lags.clear()
                gc_pauses.reset()
                window_start = now
    finally:
        gc.callbacks.remove(gc_pauses)
