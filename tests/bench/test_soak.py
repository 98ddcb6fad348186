"""bench.soak --short, the CI variant of the soak run: two bot processes of two shards on a
throwaway PostgreSQL server, 100 servers, games against the AI and between members,
tournaments, puzzles, replays and settings for about a minute and a half, with a SIGKILL, a
PostgreSQL restart, a short outage and a season boundary, then the audit (about 2.5 minutes on a
loaded two-core machine).

The audit's correctness checks must all pass: nothing acknowledged lost, nothing counted twice,
every post made once, no rule broken, no traceback. Its timing checks (answers within Discord's
deadline, p99 and CPU of the last window against the first, memory) are the benchmark's own
exit status; here, on a machine running the rest of the suite at the same time, they are
printed, not asserted."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.soak import parse_args
from testkit.postgres import find_bindir
from testkit.postgres import required as postgres_required

ROOT = Path(__file__).resolve().parents[2]
TIMING = ("interactions answered after Discord's deadline",
          "click p99 and bot CPU per click, last window over first",
          "memory growth of each process after warm-up <= 10%")


def test_the_short_variant_has_a_kill_a_restart_and_fits_in_three_minutes() -> None:
    args = parse_args(["--short"])
    seconds = args.minutes * 60
    assert seconds <= 120
    assert args.processes >= 2 and args.servers >= 100
    assert 0 < args.kill_first < seconds and args.pg_restart_first < seconds
    assert args.outage_at + args.outage_seconds < seconds
    assert args.season_at < seconds


def test_the_full_run_is_the_issues_hour() -> None:
    args = parse_args([])
    assert (args.minutes, args.processes, args.shards, args.servers, args.rate) == (
        60, 4, 4, 1000, 100)
    assert args.pg_restart_every == 900 and args.outage_seconds == 60
    assert args.window == 3600 or args.minutes < 120


@pytest.mark.slow
def test_the_short_soak_passes_its_audit() -> None:
    if find_bindir() is None:
        if postgres_required():
            pytest.fail("PostgreSQL is not installed and CARO_REQUIRE_POSTGRES is set")
        pytest.skip("PostgreSQL is not installed")
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "bench.soak", "--short"], cwd=ROOT,
                          capture_output=True, text=True, timeout=420, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    took = time.perf_counter() - began
    print(done.stdout)
    print(f"bench.soak --short: {took:.0f} s, exit {done.returncode}")
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")][1:]
    assert len(rows) >= 12, done.stdout + done.stderr[-3000:]
    failed = [row for row in rows if "| FAIL" in row
              and not any(name in row for name in TIMING)]
    assert not failed, "\n".join(failed) + "\n" + done.stderr[-3000:]
    assert "1 SIGKILL(s)" in done.stdout and "1 PostgreSQL restart(s)" in done.stdout
