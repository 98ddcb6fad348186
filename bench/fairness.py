"""Fairness benchmark: one member floods the AI pool, another plays "easy"; how long does the
second one wait for the AI's answer?

    python -m bench.fairness --flood-games 8 --flood-watches 8 --duration 60

The real bot process runs against the local Discord double. "mallory" starts `--flood-games`
"impossible" games on 26x26 (the AI moves first, and she answers every AI move at once) and
`--flood-watches` AI-vs-AI watches ("impossible" against "impossible", 26x26), one per channel,
so the AI pool always has strong searches queued. "bob" plays "easy" on 9x9 in a channel of his
own: each of his clicks is timed until his board shows the AI's answer. The same is measured
first with no flood, as the baseline.

Printed: bob's reply times (p50/p95/max) without and with the flood, mallory's starts that the
bot refused (its per-member limits) and how many AI moves her games got meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.support.stats import percentile
from testkit.discord_double import InteractionFailed
from testkit.faults import free_cells, is_over, launch, ply_of, settle, shutdown


@dataclass
class Flood:
    refused: list[str] = field(default_factory=list)
    ai_moves: int = 0
    boards: list[Any] = field(default_factory=list)


def refusal_text(result: Any) -> str | None:
    """The bot's private refusal, or None if it posted a board."""
    if result.ephemeral:
        return str(result.content or "")[:120]
    return None


async def answered(message: Any, ply: int, timeout: float) -> bool:
    """Waits until the board shows a later position than `ply` + 1 (the AI has answered) or
    the game is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if is_over(message) or (free_cells(message) and ply_of(message) >= ply + 2):
            return True
        await asyncio.sleep(0.005)
    return False


async def play_easy(double: Any, member: Any, channel: str, seconds: float,
                    rng: random.Random) -> list[float]:
    """bob's reply times: click, then wait for the AI's answer, for `seconds`. bob starts games
    faster than a person does; when the bot's per-member cooldown says so, the next game is
    played by a fresh member in his place (another member, as far as the pool is concerned)."""
    times: list[float] = []
    stop = time.monotonic() + seconds
    message = None
    while time.monotonic() < stop:
        if message is None or is_over(message):
            start = await member.slash("caro start", channel_id=channel, difficulty="easy",
                                       size="9x9", first="me")
            if "Slow down" in str(refusal_text(start)):
                member = double.add_member(f"{member.name}+")
                continue
            if refusal_text(start) is not None:
                raise RuntimeError(f"bob's game was refused: {refusal_text(start)}")
            message = start.message
        cells = free_cells(message)
        if not cells:
            await asyncio.sleep(0.01)
            continue
        ply = ply_of(message)
        started = time.perf_counter()
        try:
            await member.click(message, rng.choice(cells))
        except InteractionFailed:
            continue
        if await answered(message, ply, timeout=30):
            times.append(time.perf_counter() - started)
    return times


async def flood(double: Any, member: Any, args: argparse.Namespace, flood_state: Flood,
                stop: asyncio.Event, rng: random.Random) -> None:
    channels = [double.add_channel(f"flood-{i}") for i in range(max(args.flood_games,
                                                                     args.flood_watches))]
    for i in range(args.flood_watches):
        result = await member.slash("caro watch", channel_id=channels[i], x_level="impossible",
                                    o_level="impossible", size="26x26")
        if (text := refusal_text(result)) is not None:
            flood_state.refused.append(f"watch: {text}")
    for i in range(args.flood_games):
        result = await member.slash("caro start", channel_id=channels[i],
                                    difficulty="impossible", size="26x26", first="ai")
        if (text := refusal_text(result)) is not None:
            flood_state.refused.append(f"game: {text}")
        else:
            flood_state.boards.append(result.message)
    seen: dict[int, int] = {}
    while not stop.is_set():
        for board in flood_state.boards:
            cells = free_cells(board)
            if is_over(board) or not cells:
                continue
            ply = ply_of(board)
            if seen.get(board.id) == ply:
                continue
            seen[board.id] = ply
            flood_state.ai_moves += 1
            with contextlib.suppress(InteractionFailed, AssertionError):
                await member.click(board, rng.choice(cells))
        await asyncio.sleep(0.05)


def line(name: str, times: list[float]) -> str:
    if not times:
        return f"{name}: no replies measured"
    ms = sorted(t * 1000 for t in times)
    return (f"{name}: n={len(ms)}, p50 {percentile(ms, 0.5):.0f} ms, "
            f"p95 {percentile(ms, 0.95):.0f} ms, max {ms[-1]:.0f} ms")


async def main(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="caro-fair-") as tmp:
        double, bot = await launch(Path(tmp), CARO_WATCH_DELAY_SECONDS=str(args.watch_delay))
        try:
            bob, mallory = double.add_member("bob"), double.add_member("mallory")
            baseline = await play_easy(double, bob, double.add_channel("bob-alone"), args.baseline, rng)
            stop = asyncio.Event()
            flood_state = Flood()
            flooding = asyncio.create_task(flood(double, mallory, args, flood_state, stop, rng))
            await asyncio.sleep(args.ramp)  # the flood's searches fill the pool first
            loaded = await play_easy(double, bob, double.add_channel("bob-flood"), args.duration, rng)
            stop.set()
            await flooding
            print(f"AI workers flooded by one member: {args.flood_games} impossible 26x26 "
                  f"games + {args.flood_watches} impossible AI-vs-AI watches")
            print(line("bob's easy reply, no flood", baseline))
            print(line("bob's easy reply, during the flood", loaded))
            print(f"mallory: {len(flood_state.refused)} start(s) refused, "
                  f"{flood_state.ai_moves} AI answers on her boards meanwhile")
            for text in flood_state.refused[:4]:
                print(f"  refused: {text}")
            await settle(double)
        finally:
            problems = await shutdown(double, bot, allow_violations=True)
    for problem in problems:
        print(f"problem: {problem}")
    return 1 if problems else 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood-games", type=int, default=8, help="mallory's impossible games")
    parser.add_argument("--flood-watches", type=int, default=8, help="mallory's AI-vs-AI watches")
    parser.add_argument("--duration", type=float, default=60, help="seconds bob plays in the flood")
    parser.add_argument("--baseline", type=float, default=10, help="seconds bob plays alone first")
    parser.add_argument("--ramp", type=float, default=3, help="seconds the flood runs before bob")
    parser.add_argument("--watch-delay", type=float, default=0.1,
                        help="pause between watch moves, seconds (the bot's default is 1.5)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for name in ("flood_games", "flood_watches"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')} must be 0 or more")
    for name in ("duration", "baseline", "ramp"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name} must be more than 0 seconds")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
