"""Cold start: what a host without a compiled search core pays, and what players see meanwhile.

    python -m bench.coldstart
    python -m bench.coldstart --memory-limit 1G --watch-seconds 240

Every run starts from a new, empty cache folder (NUMBA_CACHE_DIR), as on a host's first start.

1. The build: `caro prepare` in a process of its own; its wall time, CPU time and peak RSS.
2. First moves: the first move of each level on 7x7 and 15x15 in a process that may not compile
   (an AI worker's policy, engine.support.cores.Policy.FALL_BACK) while a background build runs beside it
   (`caro prepare --background`, as the bot starts it), then again once that process has loaded
   the build. A move past its level's time limit is marked.
3. With `--memory-limit` (Linux with a cgroup v1 memory controller, as root): the real bot process
   in a memory cgroup of that size, against the local Discord double, on an empty cache. A member
   starts 15x15 against impossible with the AI first and plays `--moves` moves, then watches
   impossible against impossible for `--watch-seconds`. Printed: when the log said the core was
   being compiled and ready, each AI move's time (the bot's own "AI moved in" log lines), the
   moves over impossible's limit, the cgroup's peak memory and OOM kills, and every log line at
   WARNING or above.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from engine.ai import DEFAULT_TIME_LIMITS
from engine.game.types import Level
from engine.support.stats import percentile

try:
    from testkit.bot_process import TOKEN, BotHandle
    from testkit.discord_double import DiscordDouble
    from testkit.faults import free_cells, players_turn, shutdown, text_of
except ModuleNotFoundError as exc:
    MISSING: ModuleNotFoundError | None = exc
else:
    MISSING = None
NEEDS = (
    "--memory-limit needs the repository's test kit (testkit/): run "
    "`.venv/bin/python -m bench.coldstart` from the root of a clone"
)

ROOT = Path(__file__).resolve().parents[1]
CGROUP_MEMORY = Path("/sys/fs/cgroup/memory")
BOARDS = {"7x7": "7x7 k5 freestyle D4 D5 E5", "15x15": "15x15 k5 freestyle H8 H9 I9 G7 J10"}
MOVED = re.compile(r"^(\S+ \S+) .*game (\d+): AI moved in ([\d.]+)s", re.MULTILINE)
READY = re.compile(r"^(\S+ \S+) .*search core ready in", re.MULTILINE)

# Times the first move of each level on each board (one process, the AI worker's policy); with
# "--wait" on the command line, then waits for a build and times them again.
MOVES_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from engine import Board, cores
    from engine.ai import choose_move, load_cores_when_ready

    cores.set_policy(cores.Policy.FALL_BACK)
    boards = json.loads(sys.argv[1])

    def measure():
        times = {}
        for name, text in boards.items():
            for level in ("easy", "normal", "hard", "impossible"):
                board = Board.from_text(text)
                started = time.perf_counter()
                choose_move(board, level)
                times[f"{name} {level}"] = time.perf_counter() - started
        return times

    print(json.dumps({"compiled": cores.loaded(), "times": measure()}), flush=True)
    if len(sys.argv) > 2:
        load_cores_when_ready()
        while not cores.loaded():
            time.sleep(0.2)
        print(json.dumps({"compiled": cores.loaded(), "times": measure()}), flush=True)
    """
)


def env_with_cache(cache: Path) -> dict[str, str]:
    return {**os.environ, "NUMBA_CACHE_DIR": str(cache)}


def timed_run(command: list[str], env: dict[str, str]) -> tuple[int, float, float, float]:
    """(exit status, wall seconds, CPU seconds, peak RSS in MB) of a command, from the kernel's
    accounting of the finished process."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    return os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def build_figures() -> None:
    with tempfile.TemporaryDirectory(prefix="caro-coldstart-") as folder:
        code, wall, cpu, peak = timed_run(
            [sys.executable, "-m", "engine", "prepare"], env_with_cache(Path(folder))
        )
    print(f"build (caro prepare, empty cache): exit {code}, {wall:.1f} s wall, {cpu:.1f} s CPU, "
          f"peak RSS {peak:.0f} MB", flush=True)


def first_moves() -> None:
    with tempfile.TemporaryDirectory(prefix="caro-coldstart-") as folder:
        env = env_with_cache(Path(folder))
        build = subprocess.Popen(
            [sys.executable, "-m", "engine", "prepare", "--background"], cwd=ROOT, env=env
        )
        mover = subprocess.Popen(
            [sys.executable, "-c", MOVES_SCRIPT, json.dumps(BOARDS), "--wait"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
        )
        assert mover.stdout is not None
        before = json.loads(mover.stdout.readline())
        build.wait()
        after = json.loads(mover.stdout.readline())
        mover.wait()
    print("\nfirst move per level (ms; * over its time limit), a process that may not compile:")
    print(f"{'board level':22} {'while compiling':>16} {'after':>10} {'limit':>7}")
    for key, seconds in before["times"].items():
        limit = DEFAULT_TIME_LIMITS[Level(key.split()[1])]
        marks = ["*" if s > limit else " " for s in (seconds, after["times"][key])]
        print(f"{key:22} {seconds * 1000:15.1f}{marks[0]} {after['times'][key] * 1000:9.1f}{marks[1]} "
              f"{limit * 1000:7.0f}")
    print(f"(compiled core used: {before['compiled']} while compiling, {after['compiled']} after)")


def parse_bytes(text: str) -> int:
    match = re.fullmatch(r"(\d+)([KMG]?)i?B?", text.strip(), re.IGNORECASE)
    if not match:
        raise argparse.ArgumentTypeError(f"expected a size such as 1G or 512M, got {text!r}")
    return int(match.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[
        match.group(2).upper()
    ]


class Cgroup:
    """A cgroup v1 memory group with a hard limit (no swap on these machines)."""

    def __init__(self, limit: int) -> None:
        if not (CGROUP_MEMORY / "cgroup.procs").exists():
            raise SystemExit(f"--memory-limit needs a cgroup v1 memory controller at {CGROUP_MEMORY}")
        self.path = CGROUP_MEMORY / f"caro-coldstart-{os.getpid()}"
        self.path.mkdir()
        (self.path / "memory.limit_in_bytes").write_text(str(limit))

    def add(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def peak_mb(self) -> float:
        return int((self.path / "memory.max_usage_in_bytes").read_text()) / (1 << 20)

    def oom_kills(self) -> int:
        for line in (self.path / "memory.oom_control").read_text().splitlines():
            if line.startswith("oom_kill "):
                return int(line.split()[1])
        return int((self.path / "memory.failcnt").read_text() != "0")

    def remove(self) -> None:
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.1)


async def in_memory_limit(limit: int, moves: int, watch_seconds: float) -> int:
    if MISSING is not None:
        print(f"bench.coldstart: {NEEDS} ({MISSING})", file=sys.stderr)
        return 2
    group = Cgroup(limit)
    try:
        with tempfile.TemporaryDirectory(prefix="caro-coldstart-") as folder:
            work = Path(folder)
            started = time.monotonic()
            double, handle = await launch_in(group, work)
            try:
                await play(handle, moves, watch_seconds)
            finally:
                problems = await shutdown(double, handle, allow_tracebacks=True)
            report(handle, group, limit, started, problems)
    finally:
        group.remove()
    return 0


async def launch_in(group: Cgroup, work: Path) -> tuple[object, BotHandle]:
    """The double and the bot, the bot moved into `group` before it starts any child process
    (its AI workers and the build start once it has logged in)."""
    env = {
        "NUMBA_CACHE_DIR": str(work / "cache"),
        "CARO_LOG_LEVEL": "DEBUG",
        "CARO_WATCH_DELAY_SECONDS": "0.2",
    }
    double = DiscordDouble(token=TOKEN)
    await double.start()
    (work / "bot").mkdir()
    handle = BotHandle(double, work / "bot", env)
    await handle.start(wait=False)
    assert handle.process is not None
    group.add(handle.process.pid)
    await handle.wait_ready(timeout=120)
    return double, handle


async def play(handle: BotHandle, moves: int, watch_seconds: float) -> None:
    alice = handle.double.add_member("alice")
    game = await alice.slash("caro start", size="15x15", difficulty="impossible", first="ai")
    message = await game.message.wait_for(players_turn, timeout=30)
    for _ in range(moves):
        cells = free_cells(message)
        if not cells:
            break
        await alice.click(message, cells[len(cells) // 2])
        message = await message.wait_for(
            lambda m: players_turn(m) or "wins" in text_of(m), timeout=30
        )
        if not players_turn(message):
            break
    await alice.slash("caro resign")
    # Watched games one after the other until the time is up (one per channel at a time).
    deadline = time.monotonic() + watch_seconds
    while time.monotonic() < deadline:
        watch = await alice.slash("caro watch", x_level="impossible", o_level="impossible",
                                  size="15x15")
        if watch.ephemeral:
            # The watch cooldown (a few a minute): wait as it says.
            wait = re.search(r"try again in (\d+) s", text_of(watch.message))
            if wait is None:
                raise SystemExit(f"/caro watch was refused: {text_of(watch.message)}")
            await asyncio.sleep(int(wait.group(1)) + 1)
            continue
        while time.monotonic() < deadline and not over(watch.message):
            await asyncio.sleep(0.5)


def over(message: object) -> bool:
    text = text_of(message)
    return "wins.**" in text or "**Draw.**" in text


def report(handle: BotHandle, group: Cgroup, limit: int, started: float, problems: list[str]) -> None:
    log = handle.log_text()
    lines = log.splitlines()
    limit_s = DEFAULT_TIME_LIMITS[Level.IMPOSSIBLE]
    ready = READY.search(log)
    moves = [(m.group(1), float(m.group(3))) for m in MOVED.finditer(log)]
    print(f"\nthe bot in a {limit / (1 << 30):.2g} GiB memory cgroup, empty cache:")
    for line in lines:
        if "search core" in line:
            print(f"  log: {line.strip()}")
    phases = {
        "before the core was ready": [t for at, t in moves if ready is None or at < ready.group(1)],
        "after": [t for at, t in moves if ready is not None and at >= ready.group(1)],
    }
    for phase, times in phases.items():
        if not times:
            continue
        times.sort()
        print(f"  AI moves {phase}: {len(times)}, p50 {percentile(times, 0.5) * 1000:.0f} ms, "
              f"p95 {percentile(times, 0.95) * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms; "
              f"over impossible's {limit_s:g} s: {sum(t > limit_s for t in times)}")
    print(f"  cgroup peak memory {group.peak_mb():.0f} MB, OOM kills {group.oom_kills()}")
    loud = [line for line in lines if re.search(r"\b(WARNING|ERROR|CRITICAL)\b", line)]
    print(f"  log lines at WARNING or above: {len(loud)}; tracebacks: {log.count('Traceback')}")
    for line in loud[:20]:
        print(f"    {line.strip()}")
    for problem in problems:
        print(f"  problem: {problem}")
    print(f"  run took {time.monotonic() - started:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.coldstart", description=__doc__.splitlines()[0])
    parser.add_argument("--memory-limit", type=parse_bytes, default=None,
                        help="also run the bot in a memory cgroup of this size (e.g. 1G)")
    parser.add_argument("--moves", type=int, default=8,
                        help="the member's moves against impossible (default 8)")
    parser.add_argument("--watch-seconds", type=float, default=120.0,
                        help="how long to watch impossible against impossible (default 120)")
    parser.add_argument("--skip-build", action="store_true",
                        help="skip parts 1 and 2 (the build alone, first moves)")
    args = parser.parse_args(argv)
    if not args.skip_build:
        build_figures()
        first_moves()
    if args.memory_limit is not None:
        return asyncio.run(in_memory_limit(args.memory_limit, args.moves, args.watch_seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
