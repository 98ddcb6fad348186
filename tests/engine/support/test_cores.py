"""engine.support.cores: a process that must answer in time never compiles; it plays with the pure-Python
search until a build of the cores appears, then switches over without a restart. Each scenario
runs in a process of its own, on a cache folder of its own (NUMBA_CACHE_DIR)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from engine.ai import DEFAULT_TIME_LIMITS
from engine.game.types import Level
from engine.support import cores

ROOT = Path(__file__).resolve().parents[3]
IMPOSSIBLE_LIMIT = DEFAULT_TIME_LIMITS[Level.IMPOSSIBLE]


def run_python(code: str, cache: Path, **kwargs: object) -> subprocess.Popen[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT, env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        **kwargs,  # type: ignore[call-overload]
    )


def copy_build(into: Path) -> None:
    """What a finished build leaves: numba's cache files, then the stamp (last, as build()
    writes it). Copied from this test session's own build instead of compiling again."""
    source = cores.cache_dir()
    stamp, _lock, _failed = cores._files()
    shutil.copytree(source, into, dirs_exist_ok=True, ignore=shutil.ignore_patterns("cores-*"))
    shutil.copy2(stamp, into / stamp.name)


def test_a_process_that_may_not_compile_plays_pure_python_then_switches_to_a_build(tmp_path):
    cache = tmp_path / "cache"
    worker = run_python(
        f"""
        import sys, time
        from engine import Board, cores
        from engine.ai import analyse_move, load_cores_when_ready
        from engine.ai import compiled

        cores.set_policy(cores.Policy.FALL_BACK)
        load_cores_when_ready()
        board = Board.from_text("15x15 k5 freestyle H8 H9 I9 G7 J10 K11")
        started = time.perf_counter()
        info = analyse_move(board, "impossible")
        took = time.perf_counter() - started
        print("before", cores.loaded(), board.grid[info.move[0] * 15 + info.move[1]], took < {IMPOSSIBLE_LIMIT})
        sys.stdin.readline()
        deadline = time.monotonic() + 60
        while not cores.loaded() and time.monotonic() < deadline:
            time.sleep(0.1)
        info = analyse_move(board, "impossible")
        shapes = list(compiled._ctx_cache)
        print("after", cores.loaded(), (15, 15, 5) in [s[:3] for s in shapes])
        """,
        cache,
    )
    assert worker.stdout is not None and worker.stdin is not None
    before = worker.stdout.readline().split()
    # Nothing was compiled meanwhile: the cache folder holds no compiled function.
    assert not list(cache.rglob("*.nbc")) if cache.exists() else True
    copy_build(cache)
    worker.stdin.write("go\n")
    worker.stdin.flush()
    after = worker.stdout.readline().split()
    _out, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err
    assert before == ["before", "False", "0", "True"], err
    assert after == ["after", "True", "True"], err


def test_a_function_missing_from_the_cache_is_refused_not_compiled(tmp_path):
    """The guard behind Policy.FALL_BACK: numba's compile event stops a compile before it
    starts. Fails loudly if numba stops sending that event."""
    worker = run_python(
        """
        import numba
        from engine import cores

        cores.set_policy(cores.Policy.FALL_BACK)
        cores._refuse_compiles()

        @numba.njit
        def double(x):
            return 2 * x

        try:
            double(21)
        except cores.CoreNotReady as exc:
            print("refused:", exc)
        else:
            print("compiled")
        """,
        tmp_path / "cache",
    )
    out, err = worker.communicate(timeout=120)
    assert worker.returncode == 0, err
    assert out.startswith("refused: double is not in the compiled cache"), out + err


def test_a_process_that_may_not_compile_never_builds_on_its_own(tmp_path):
    cache = tmp_path / "cache"
    worker = run_python(
        """
        from engine import Board, cores
        from engine.ai import choose_move

        cores.set_policy(cores.Policy.FALL_BACK)
        board = Board.from_text("9x9 k5 caro E5 E6 D4")
        print(choose_move(board, "impossible", time_limit=0.3), cores.loaded(), cores.built())
        """,
        cache,
    )
    out, err = worker.communicate(timeout=60)
    assert worker.returncode == 0, err
    assert out.split()[-2:] == ["False", "False"]
    assert not list(cache.rglob("*.nbi")) if cache.exists() else True


def test_prepare_on_a_built_host_says_so_and_doctor_names_the_target_and_cache(tmp_path):
    cache = tmp_path / "cache"
    copy_build(cache)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    prepare = subprocess.run(
        [sys.executable, "-m", "engine", "prepare"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=120,
    )
    assert prepare.returncode == 0, prepare.stderr
    assert "compiling" not in prepare.stdout
    assert f"search core: compiled for {cores.cpu_target()}" in prepare.stdout
    doctor = subprocess.run(
        [sys.executable, "-m", "engine", "doctor"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=60,
    )
    assert doctor.returncode == 0
    assert f"cpu target: {cores.cpu_target()}" in doctor.stdout
    assert str(cache) in doctor.stdout
    version = subprocess.run(
        [sys.executable, "-m", "engine", "--version"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=60,
    )
    assert version.stdout.splitlines()[1].startswith(
        f"search core: compiled for {cores.cpu_target()}"
    )


def test_doctor_on_a_host_without_a_build_says_how_to_make_one(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty")}
    doctor = subprocess.run(
        [sys.executable, "-m", "engine", "doctor"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=60,
    )
    assert "search core: not compiled yet" in doctor.stdout
    assert "caro prepare" in doctor.stderr


def test_the_stamp_records_what_the_build_cost():
    stamp, _lock, _failed = cores._files()
    record = json.loads(stamp.read_text())
    assert record["key"]["cpu"] == cores.cpu_target()
    assert record["seconds"] >= 0 and record["cpu_seconds"] >= 0 and record["peak_mb"] > 0


def test_the_cores_compile_at_llvm_level_2_unless_the_operator_chose_a_level():
    code = "import engine, numba; print(int(numba.config.OPT))"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"}
    chosen = {**env, "NUMBA_OPT": "3"}
    for environment, level in ((env, "2"), (chosen, "3")):
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment,
                             capture_output=True, text=True, check=True)
        assert run.stdout.strip() == level


def test_a_recent_failed_build_is_not_retried_at_every_start(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert cores.recently_failed() is None
    cores.record_failure("the compile was killed by signal 9 (out of memory?)")
    assert cores.recently_failed() == "the compile was killed by signal 9 (out of memory?)"
    assert cores.start_background_build() is None
    stamp, _lock, failed = cores._files()
    record = json.loads(failed.read_text())
    record["at"] = time.time() - cores.RETRY_KILLED_AFTER - 1
    failed.write_text(json.dumps(record))
    assert cores.recently_failed() is None


def test_without_numba_every_level_plays_with_the_pure_python_search(tmp_path):
    """Where numba has no wheel (a 32-bit Raspberry Pi OS, say) caro installs without it."""
    worker = run_python(
        """
        import sys
        sys.modules["numba"] = None  # what an install without numba looks like to an import
        from engine import Board, cores
        from engine.ai import choose_move, warm_up

        warm_up()
        for text in ("4x4 k4 freestyle B2", "15x15 k5 caro H8 H9"):
            for level in ("easy", "normal", "hard", "impossible"):
                board = Board.from_text(text)
                assert board[choose_move(board, level, time_limit=0.3)] is None
        print(cores.usable(), cores.status().summary())
        """,
        tmp_path / "cache",
    )
    out, err = worker.communicate(timeout=120)
    assert worker.returncode == 0, err
    assert out.strip() == f"False search core: not compiled ({cores.NO_NUMBA}); cache {tmp_path / 'cache'}"


def test_a_cache_folder_that_cannot_be_written_is_one_line_naming_it(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(blocker / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "engine", "prepare"], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(f"caro prepare: cannot write the cache folder {blocker / 'cache'} (")
    assert done.stderr.endswith("set NUMBA_CACHE_DIR to a folder this user can write\n")
    assert len(done.stderr.splitlines()) == 1


def _never(*_args: object) -> None:
    raise AssertionError("a build in parts compiles nothing in the process that runs it")


def test_each_part_of_a_build_compiles_in_a_process_of_its_own_and_the_stamp_counts_them(
    tmp_path, monkeypatch
):
    """LLVM gives a compile's memory back only when its process ends: one process per part keeps
    the build's peak to its largest part's, which the stamp records with the parts' CPU."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    ran = tmp_path / "ran"
    part = (
        "import os, sys, time; block = bytearray(600 << 20); block[::4096] = b'x' * len(block[::4096]); "
        "end = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"
        f"open({str(ran)!r}, 'a').write(sys.argv[1] + ' ' + str(os.getpid()) + '\\n')"
    )
    monkeypatch.setattr(cores, "part_command", lambda name: [sys.executable, "-c", part, name])
    assert cores.build(_never, parts=("first", "second")) > 0
    lines = [line.split() for line in ran.read_text().splitlines()]
    assert [name for name, _pid in lines] == ["first", "second"]
    assert len({pid for _name, pid in lines} | {str(os.getpid())}) == 3
    assert cores.built()
    stamp, _lock, _failed = cores._files()
    record = json.loads(stamp.read_text())
    assert record["peak_mb"] >= 600 and record["cpu_seconds"] >= 0.6


def test_a_part_killed_for_memory_fails_the_build_and_is_not_retried_at_every_start(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    kill = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    monkeypatch.setattr(cores, "part_command", lambda name: [sys.executable, "-c", kill])
    try:
        cores.build(_never, parts=("search",))
    except cores.BuildFailed as exc:
        reason = str(exc)
    else:
        raise AssertionError("the build went on without its part")
    assert reason == "the compile was killed by signal 9 (out of memory?)"
    assert not cores.built()
    assert cores.recently_failed() == reason
    assert cores.start_background_build() is None


def test_the_test_run_says_it_is_building_the_cores_before_its_silence(tmp_path):
    # Stopped as soon as the line shows: the build itself is not waited for.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1"}
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
         "tests/engine/game/test_notation.py"],
        cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    seen: list[str] = []
    try:
        assert run.stdout is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = run.stdout.readline()
            if not line:
                break
            seen.append(line)
            if "search core: compiling" in line:
                break
    finally:
        os.killpg(run.pid, 9)
        run.wait()
    assert any("search core: compiling" in line and "once per host" in line for line in seen), seen


def test_a_brain_on_a_host_with_a_build_loads_it_before_it_reads_start(tmp_path):
    # caro pbrain answers START once the host's built cores are loaded (LOAD_AT_START_S at most;
    # here longer, so a busy machine does not decide), so its first moves are the core's.
    cache = tmp_path / "cache"
    copy_build(cache)
    worker = run_python(
        """
        from engine import cores
        from engine.programs import pbrain

        pbrain.LOAD_AT_START_S = 120.0
        pbrain.ready_cores(None)
        print(cores.loaded(), cores.usable())
        """,
        cache,
    )
    out, err = worker.communicate(timeout=180)
    assert worker.returncode == 0, err
    assert out.split() == ["True", "True"], err


def test_the_cache_folders_cleared_before_a_build_are_those_numba_writes_to(tmp_path, monkeypatch):
    """Fails loudly if numba names its cache folders differently."""
    from numba.core.caching import _CacheLocator

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    engine = Path(cores.__file__).resolve().parent.parent
    for name in cores.SOURCES:
        folder = _CacheLocator.get_suitable_cache_subpath(str(engine / name))
        assert tmp_path / folder in cores.numba_cache_folders()


def test_a_build_first_removes_the_compiled_functions_of_the_engine_sources_only(
    tmp_path, monkeypatch
):
    """A function of pns.py keeps the code of the core.py functions it calls, and numba checks it
    against pns.py alone: a build for changed sources starts from none of theirs."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    ai_folder = next(f for f in cores.numba_cache_folders() if f.name.startswith("ai_"))
    ai_folder.mkdir(parents=True)
    ours = [ai_folder / "pns.threats-452.py311.nbi", ai_folder / "pns.threats-452.py311.1.nbc",
            ai_folder / "core.vcf-1258.py311.nbi"]
    kept = [ai_folder / "other.f-1.py311.nbi", tmp_path / "cache" / "ai_0000" / "pns.g-1.py311.nbi"]
    for path in [*ours, *kept]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("stale")
    monkeypatch.setattr(cores, "part_command", lambda name: [sys.executable, "-c", "pass"])
    assert cores.build(_never, parts=("first",)) >= 0
    assert cores.built()
    assert not any(path.exists() for path in ours)
    assert all(path.exists() for path in kept)
