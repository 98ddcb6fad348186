"""Figures for the double: start/stop cost, time to READY, interaction round trips.

    python -m testkit.discord_double.bench [rounds]

A minimal discord.py client runs in this process; each round is one slash command answered
with a message carrying a button, then one click answered by an update.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time

import discord
import yarl
from discord import app_commands

from testkit.discord_double import DiscordDouble


class Tap(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="tap", custom_id="bench:tap")
    async def tap(self, interaction: discord.Interaction, _: discord.ui.Button[Tap]) -> None:
        await interaction.response.edit_message(content="tapped", view=self)


class BenchBot(discord.Client):
    def __init__(self, guild_id: str) -> None:
        super().__init__(intents=discord.Intents.default())
        self.tree = app_commands.CommandTree(self)
        self.guild = discord.Object(id=int(guild_id))

        @self.tree.command(name="ping", description="Ping", guild=self.guild)
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong", view=Tap())

    async def setup_hook(self) -> None:
        await self.tree.sync(guild=self.guild)


def summary(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"{name}: median {statistics.median(ms):.2f} ms, p95 {p95:.2f} ms, n={len(ms)}"


async def main(rounds: int) -> None:
    starts, stops = [], []
    for _ in range(20):
        t0 = time.perf_counter()
        double = DiscordDouble()
        await double.start()
        t1 = time.perf_counter()
        await double.stop()
        starts.append(t1 - t0)
        stops.append(time.perf_counter() - t1)
    print(summary("double start", starts))
    print(summary("double stop (idle)", stops))

    double = DiscordDouble()
    await double.start()
    discord.http.Route.BASE = double.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(double.gateway_url)
    client = BenchBot(double.guild_id)
    t0 = time.perf_counter()
    task = asyncio.create_task(client.start(double.token))
    await double.wait_ready(30)
    print(f"in-process discord.py client login + READY + command sync: "
          f"{(time.perf_counter() - t0) * 1000:.1f} ms")
    alice = double.add_member("alice")
    slash, click = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        res = await alice.slash("ping")
        t1 = time.perf_counter()
        assert res.message is not None
        await alice.click(res.message, "tap")
        slash.append(t1 - t0)
        click.append(time.perf_counter() - t1)
    print(summary("slash -> callback 4", slash))
    print(summary("click -> callback 7", click))
    print(f"violations: {double.violations}")
    t0 = time.perf_counter()
    await client.close()
    await task
    await double.stop()
    print(f"client close + double stop: {(time.perf_counter() - t0) * 1000:.1f} ms")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m testkit.discord_double.bench",
        description="Figures for the Discord double itself: start/stop cost, time to READY, "
                    "slash and click round trips with a minimal discord.py client.")
    parser.add_argument("rounds", nargs="?", type=int, default=200,
                        help="slash + click rounds to time (default 200)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"rounds must be 1 or more, not {args.rounds}")
    return args


if __name__ == "__main__":
    asyncio.run(main(parse_args(sys.argv[1:]).rounds))
