"""Per-member cooldowns on the commands that create work: starting a game, a watch, a challenge,
asking for a hint. A member over the rate gets a short private answer saying when to try again;
refusals for a bad option cost nothing (the cooldown is taken after the options are checked)."""

from __future__ import annotations

import time
from typing import Any

import discord
from discord.app_commands import Cooldown as Bucket

from .errors import UserError

# Pruned when more members than this have a bucket: idle buckets (full again) are dropped.
MAX_BUCKETS = 10_000


class Cooldown:
    """At most `rate` uses per `per` seconds for each member of each server."""

    def __init__(self, rate: int, per: float) -> None:
        self.rate, self.per = rate, per
        self._buckets: dict[tuple[int | None, int], Bucket] = {}

    def hit(self, interaction: discord.Interaction[Any]) -> None:
        """Count one use by the member of `interaction`; UserError ("try again in N s") if
        they are over the rate (the use is then not counted)."""
        key = (interaction.guild_id, interaction.user.id)
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= MAX_BUCKETS:
                self._prune()
            bucket = self._buckets[key] = Bucket(self.rate, self.per)
        retry_after = bucket.update_rate_limit()
        if retry_after is not None:
            raise UserError("error.cooldown", seconds=f"{max(1, round(retry_after))}")

    def _prune(self) -> None:
        now = time.time()
        for key in [k for k, b in self._buckets.items() if b.get_tokens(now) >= self.rate]:
            del self._buckets[key]


class Cooldowns:
    """The cooldown of each command that makes work for the bot. The rates let a member play
    game after game at a human pace and stop a script."""

    def __init__(self) -> None:
        self.start = Cooldown(5, 30.0)
        self.challenge = Cooldown(5, 60.0)
        self.watch = Cooldown(3, 60.0)
        self.hint = Cooldown(3, 20.0)
