"""Holding jobs back and waiting on conditions, for tests of the AI's pools and turns: a `Gate`
whose jobs wait for the test to let them go, and `until`, which polls a condition."""

from __future__ import annotations

import asyncio
import threading


class Gate:
    """Jobs that wait for the test to let them go, recording the order they started in."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.release = threading.Event()
        self.lock = threading.Lock()

    def job(self, name: str) -> str:
        with self.lock:
            self.started.append(name)
        assert self.release.wait(10)
        return name



async def until(condition: object, timeout: float = 5.0) -> None:
    """Wait until `condition()` holds (polled every 5 ms); fail after `timeout` seconds."""
    async with asyncio.timeout(timeout):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.005)
