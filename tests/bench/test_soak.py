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

from bench.soak import Check, chain_problem, parse_args, result_for, table
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


def test_a_rating_chain_is_checked_from_its_start_to_the_standing() -> None:
    steps = [(1200.0, 1216.0), (1216.0, 1201.0), (1201.0, 1215.5)]
    assert chain_problem(1200.0, steps, 1215.5) is None
    assert chain_problem(1200.0, steps[::-1], 1215.5) is None  # in any order
    # A lost update: two games computed from the same rating.
    lost = [(1200.0, 1216.0), (1200.0, 1184.0)]
    assert chain_problem(1200.0, lost, 1184.0) == "rating changes do not chain"
    # A change counted twice, or a standing that is not where the changes end.
    assert chain_problem(1200.0, steps + [steps[-1]], 1215.5) is not None
    assert chain_problem(1200.0, steps, 1300.0) == "rating 1300.00 is not the end of its changes"
    # A season starts from its soft reset, not the start rating.
    assert chain_problem(1250.0, [(1250.0, 1262.0)], 1262.0) is None


def test_a_members_result_is_read_from_the_winner_and_their_mark() -> None:
    assert [result_for(w, "X") for w in ("X", "O", None)] == ["win", "loss", "draw"]
    assert result_for("O", "O") == "win"


def test_the_audit_table_says_pass_fail_or_not_applicable() -> None:
    lines = table([Check("moves", True, "12 acknowledged"), Check("memory", None, "too short"),
                   Check("late", False, "3")])
    assert lines[0].startswith("| check") and "| PASS   | 12 acknowledged |" in lines[2]
    assert "| n/a    | too short |" in lines[3] and "| FAIL   | 3 |" in lines[4]


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
