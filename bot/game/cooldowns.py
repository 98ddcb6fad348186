"""Per-member cooldowns on the actions that create work: starting a game, a watch, a challenge,
asking for a hint, joining the queue. A member over the rate gets a short private answer saying when to try again.

The services share one set and take them in their actions (games, challenges), not in the
commands: a slash command, a button and a Rematch reach the same action, so they meet the same
cooldown. Refusals for a bad option cost nothing (the cooldown is taken after the options are
checked). No Discord code here: a member is a (server, user) pair of ids."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.game.errors import UserError

# Pruned when more members than this have a window: windows that have closed are dropped.
MAX_BUCKETS = 10_000


@dataclass(slots=True)
class _Window:
    opened: float
    used: int


class Cooldown:
    """At most `rate` uses per `per` seconds for each member of each server: a window opens at a
    member's first use and lets `rate` uses through until it closes."""

    def __init__(self, rate: int, per: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.per = rate, per
        self._clock = clock
        self._windows: dict[tuple[int, int], _Window] = {}

    def hit(self, guild_id: int, user_id: int) -> None:
        """Count one use by `user_id` in `guild_id`; UserError ("try again in N s") if they are
        over the rate (the use is then not counted)."""
        now = self._clock()
        key = (guild_id, user_id)
        window = self._windows.get(key)
        if window is None or now - window.opened >= self.per:
            if window is None and len(self._windows) >= MAX_BUCKETS:
                self._prune(now)
            self._windows[key] = _Window(opened=now, used=1)
            return
        if window.used >= self.rate:
            left = self.per - (now - window.opened)
            raise UserError("error.cooldown", seconds=f"{max(1, round(left))}")
        window.used += 1

    def _prune(self, now: float) -> None:
        for key in [k for k, w in self._windows.items() if now - w.opened >= self.per]:
            del self._windows[key]


class Cooldowns:
    """The cooldown of each action that makes work for the bot. The rates let a member play
    game after game at a human pace and stop a script."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.start = Cooldown(5, 30.0, clock)
        self.challenge = Cooldown(5, 60.0, clock)
        self.watch = Cooldown(3, 60.0, clock)
        self.hint = Cooldown(3, 20.0, clock)
        # Joining the queue: a join and Leave loop would repost a message each time.
        self.queue = Cooldown(5, 60.0, clock)
