"""Event-loop lag: how late the loop wakes a task that asked to sleep, logged periodically.

Every interaction must be acknowledged within 3 s, and that only holds while nothing blocks the
event loop; this metric shows an operator whether something does (a slow query, a search run
in-process by mistake, a swapping host) long before users see "This interaction failed".
"""

from __future__ import annotations

import asyncio
import logging
import math

log = logging.getLogger("caro.metrics")

SAMPLE_INTERVAL = 0.05
# Without CARO_LOOP_LAG_LOG the figures still go to DEBUG, once a minute.
DEFAULT_REPORT_INTERVAL = 60.0


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an already sorted, non-empty list."""
    index = max(0, math.ceil(fraction * len(sorted_values)) - 1)
    return sorted_values[min(index, len(sorted_values) - 1)]


def lag_summary(lags: list[float], seconds: float) -> str:
    ordered = sorted(lags)
    return (
        f"loop lag over {seconds:.1f} s: max {ordered[-1] * 1000:.1f} ms, "
        f"p99 {percentile(ordered, 0.99) * 1000:.1f} ms, "
        f"mean {sum(ordered) / len(ordered) * 1000:.2f} ms ({len(ordered)} samples)"
    )


async def monitor_loop_lag(report_interval: float | None) -> None:
    """Run until cancelled: sample the lag every SAMPLE_INTERVAL and log a summary per interval.

    `report_interval` (seconds) is the operator's CARO_LOOP_LAG_LOG setting: summaries at INFO
    that often; None means DEBUG once a minute.
    """
    level = logging.INFO if report_interval is not None else logging.DEBUG
    interval = report_interval if report_interval is not None else DEFAULT_REPORT_INTERVAL
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    window_start = loop.time()
    while True:
        asked = loop.time()
        await asyncio.sleep(SAMPLE_INTERVAL)
        now = loop.time()
        lags.append(max(0.0, now - asked - SAMPLE_INTERVAL))
        if now - window_start >= interval:
            if log.isEnabledFor(level):
                log.log(level, lag_summary(lags, now - window_start))
            lags.clear()
            window_start = now
