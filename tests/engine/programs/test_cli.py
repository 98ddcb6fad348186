"""The `caro` command line and the benchmark scripts as a user runs them: real subprocesses, exit
codes and the exact messages."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def caro(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "caro"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "engine"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, cwd=ROOT)


def test_caro_version_is_the_package_version() -> None:
    done = caro("--version")
    assert done.returncode == 0
    first, core = done.stdout.splitlines()
    assert first == f"caro {version('caro')}"
    assert core.startswith("search core: compiled for ")  # the test session built it


def test_caro_help_lists_every_command_and_version() -> None:
    done = caro("--help")
    assert done.returncode == 0
    assert "--version" in done.stdout
    for command in ("play", "solve", "arena", "bench", "pbrain"):
        assert command in done.stdout


def test_arena_refuses_a_games_file_it_cannot_write_before_playing(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "games.txt"
    done = caro("arena", "--levels", "easy,random", "--games", "50", "--size", "9x9",
                "--games-out", str(target))
    assert done.returncode == 2
    # Not one game was played: no progress lines, no report.
    assert done.stdout == ""
    assert done.stderr == (
        f"caro arena: error: cannot write --games-out {target}: No such file or directory\n"
    )


def test_arena_writes_every_game_to_the_games_file(tmp_path: Path) -> None:
    target = tmp_path / "games.txt"
    done = caro("arena", "--levels", "easy,random", "--games", "2", "--size", "4x4", "--k", "3",
                "--games-out", str(target))
    assert done.returncode == 0, done.stderr
    lines = target.read_text().splitlines()
    assert len(lines) == 2
    assert all(line.startswith(("easy v random: 4x4 k3", "random v easy: 4x4 k3")) for line in lines)


def test_bench_takes_a_size_without_k_like_every_other_command() -> None:
    done = caro("bench", "--sizes", "15x15", "--levels", "easy", "--moves", "1",
                "--no-solver", "--no-extras")
    assert done.returncode == 0, done.stderr
    assert "15x15 k5" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sizes", "99x99"], "caro bench: error: board sides must be from 1 to 26, not 99x99"),
        (["--time-limit", "0"], "caro bench: error: --time-limit must be positive"),
    ],
)
def test_bench_refuses_bad_arguments_in_one_line(args: list[str], message: str) -> None:
    done = caro("bench", *args)
    assert done.returncode == 2
    assert done.stderr == message + "\n"


@pytest.mark.parametrize("module", ["bench.load", "bench.crash", "bench.tournament_arena"])
def test_benchmarks_say_they_need_the_test_kit_of_a_clone(module: str) -> None:
    # testkit/ missing, as outside a clone: None in sys.modules blocks the import.
    code = (
        "import runpy, sys; sys.modules['testkit'] = None; sys.argv = [sys.argv[0], *sys.argv[1:]];"
        f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)"
    )

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, timeout=60, cwd=ROOT)

    helped = run("--help")
    assert helped.returncode == 0, helped.stderr
    assert "needs the repository's test kit" in " ".join(helped.stdout.split())
    refused = run()
    assert refused.returncode == 1
    assert refused.stderr == (
        f"python -m {module} needs the repository's test kit (testkit/): run "
        f"`.venv/bin/python -m {module}` from the root of a clone (missing: testkit.clusters).\n"
    )


@pytest.mark.parametrize("module", ["bench.load", "bench.crash", "bench.tournament_arena"])
def test_benchmark_help_works_in_a_clone(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m {module}")
