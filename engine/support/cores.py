"""The compiled cores: numba's builds of the search core (engine.ai.core, engine.ai.pns) and of the
solver's (engine.solve._solver_core). Whether they are built on this host, building them once, and
loading them.

numba compiles a function at its first call and keeps the result in an on-disk cache. For the
search core that first call is minutes of CPU, which no player can wait for. So the cores are
built apart (`build`: one process of a host at a time, under a file lock, each part of them in a
short-lived process of its own), a stamp beside the cache says what it was built for, and each
process decides what a missing build means for it
(`Policy`): a program run by hand builds on first use; a process that must answer in time (an AI
worker, a pbrain engine) plays with the pure-Python search until the stamp appears, then loads
the cache in a background thread and switches over (`load_when_ready`).

The code is compiled for a portable CPU target of the host's architecture (`cpu_target`), not for
the host's own CPU, so the cache stays valid when a host moves to another CPU of the same kind.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import hashlib
import importlib.util
import json
import logging
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

log = logging.getLogger("caro.engine.cores")

# The sources whose compiled functions live in the cache; numba's own index checks them by
# modification time and size, and so does the stamp.
SOURCES = ("ai/core.py", "ai/pns.py", "solve/_solver_core.py")
# The engine package (engine/), which SOURCES are relative to: this module is engine/support/.
_ENGINE_DIR = Path(__file__).resolve().parent.parent
# How often a waiting process looks for the stamp (a stat call).
POLL_SECONDS = 1.0
# After a build that was killed (by the out-of-memory killer, say), a background build is not
# tried again for this long: a host that cannot afford it would otherwise pay it at every start.
RETRY_KILLED_AFTER = 24 * 3600.0


class Policy(enum.Enum):
    """What a process does when it needs a core that this host has not built yet."""

    BUILD = "build"  # build it now, under the host's lock (programs run by hand, tests)
    FALL_BACK = "fall back"  # play with the pure-Python search meanwhile (AI workers, pbrain)


class CoreNotReady(RuntimeError):
    """The compiled cores are not in the cache, and this process may not compile them."""


class BuildFailed(RuntimeError):
    """A build of the cores did not finish; the message says why in one line."""


# ----------------------------------------------------------------------------- where and what
def cpu_target() -> str:
    """The CPU the cores are compiled for: a baseline of the host's architecture that every CPU
    of that kind runs, so one cache serves a host that moves between CPUs of the same kind."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64"):
        return "x86-64-v2"
    return "generic"


def cache_dir() -> Path:
    """Where numba's cache and the stamp live: NUMBA_CACHE_DIR when set, else the user's cache
    folder (XDG_CACHE_HOME, ~/.cache; LOCALAPPDATA on Windows) under caro/."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return Path(given).expanduser()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "caro"


def configure_numba() -> None:
    """Point numba at the portable target and at cache_dir(), unless the operator chose: numba
    reads these when it is imported, so this runs before any core module imports it."""
    os.environ.setdefault("NUMBA_CACHE_DIR", str(cache_dir()))
    # LLVM's level 2, not numba's 3: the core runs as fast (docs/benchmarks.md) for less of the
    # build's CPU. An operator's NUMBA_OPT wins.
    os.environ.setdefault("NUMBA_OPT", "2")
    if "NUMBA_CPU_NAME" not in os.environ:
        os.environ["NUMBA_CPU_NAME"] = cpu_target()
        # Empty: the features are the target's own, not the host's (numba adds the host's).
        os.environ["NUMBA_CPU_FEATURES"] = ""
    numba = sys.modules.get("numba")
    # Still being imported by another thread (the loader) has no config yet: it reads the
    # environment set above when it gets there.
    config = getattr(numba, "config", None)
    if config is not None:
        # Imported before us (by a program of its own): it has read the environment already.
        config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
        config.CPU_NAME = os.environ["NUMBA_CPU_NAME"]
        config.CPU_FEATURES = os.environ.get("NUMBA_CPU_FEATURES", "")


@functools.cache
def _package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "missing"


def _key() -> dict[str, Any]:
    """What a build depends on, all of it read without importing numba."""
    sources = {}
    for name in SOURCES:
        stat = (_ENGINE_DIR / name).stat()
        sources[name] = [stat.st_mtime_ns, stat.st_size]
    return {
        "engine": str(_ENGINE_DIR),
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "numba": _package_version("numba"),
        "llvmlite": _package_version("llvmlite"),
        "machine": platform.machine(),
        "cpu": os.environ.get("NUMBA_CPU_NAME", ""),
        "features": os.environ.get("NUMBA_CPU_FEATURES", ""),
        "sources": sources,
    }


def _files() -> tuple[Path, Path, Path]:
    """The stamp, the lock and the failure record of this engine folder's build."""
    folder = cache_dir()
    tag = hashlib.sha256(str(_ENGINE_DIR).encode()).hexdigest()[:12]
    return (
        folder / f"cores-{tag}.json",
        folder / f"cores-{tag}.lock",
        folder / f"cores-{tag}.failed.json",
    )


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@dataclass(frozen=True, slots=True)
class Status:
    """How ready the compiled cores are, for `caro doctor` and the logs."""

    built: bool  # this host's cache holds them for the current sources and target
    loaded: bool  # this process has them loaded
    cache: Path
    target: str
    build_seconds: float | None  # what the build took (wall clock), when built
    build_cpu_seconds: float | None
    build_peak_mb: float | None
    failure: str | None  # the last background build's failure, when it failed

    def summary(self) -> str:
        """One line: compiled or not, for which target, where."""
        if self.built:
            took = f", built in {self.build_seconds:.0f} s" if self.build_seconds else ""
            state = f"compiled for {self.target}{took}"
        elif self.failure:
            state = f"not compiled ({self.failure})"
        else:
            state = f"not compiled yet for {self.target} (`caro prepare` builds it)"
        return f"search core: {state}; cache {self.cache}"


def status() -> Status:
    configure_numba()
    stamp_path, _lock, failed_path = _files()
    stamp = _read_json(stamp_path)
    built = stamp is not None and stamp.get("key") == _key()
    failed = _read_json(failed_path)
    failure = None if built or failed is None else str(failed.get("reason", "failed"))
    if not numba_available():
        failure = NO_NUMBA
    return Status(
        built=built,
        loaded=_loaded.is_set(),
        cache=cache_dir(),
        target=os.environ.get("NUMBA_CPU_NAME", ""),
        build_seconds=stamp.get("seconds") if built and stamp else None,
        build_cpu_seconds=stamp.get("cpu_seconds") if built and stamp else None,
        build_peak_mb=stamp.get("peak_mb") if built and stamp else None,
        failure=failure,
    )


def built() -> bool:
    """Whether this host has the cores built for the current sources and target (no numba)."""
    return status().built


# ----------------------------------------------------------------------------- loading
_policy = Policy.BUILD
_loaded = threading.Event()
_load_lock = threading.Lock()
_guard_installed = False


def set_policy(policy: Policy) -> None:
    """How this process treats a core that is not built yet (see Policy)."""
    global _policy
    _policy = policy


def loaded() -> bool:
    return _loaded.is_set()


def wait_loaded(timeout: float) -> bool:
    """Wait up to `timeout` seconds for the cores to be loaded (load_when_ready loads them);
    whether they are."""
    return _loaded.wait(timeout)


def usable() -> bool:
    """Whether the compiled cores may serve this call: always under Policy.BUILD (numba then
    compiles whatever a call needs that is not loaded yet; ensure() first makes that nothing);
    under Policy.FALL_BACK only once they are loaded. Never where numba is not installed."""
    return _loaded.is_set() or (_policy is Policy.BUILD and numba_available())


@functools.cache
def numba_available() -> bool:
    """Whether numba is installed: it has wheels for x86-64 and 64-bit ARM; elsewhere (32-bit
    ARM, say) the package installs without it and the pure-Python search plays."""
    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):  # ValueError: a None placed in sys.modules
        return False


NO_NUMBA = "numba is not installed on this platform: the pure-Python search plays"


# Calls every compiled function once with each signature it is called with, so that numba loads
# (or, in a build, compiles) all of them now. Given by the cores' owner (engine.ai.exercise_cores).
Exercise = Callable[[], None]


def ensure(
    exercise: Exercise, progress: Callable[[str], None] | None = None, parts: Sequence[str] = ()
) -> None:
    """Load the cores into this process, building them first (under the host's lock, `parts` as
    in build) if this host has none: what a program run by hand does before it needs them."""
    if _loaded.is_set() or not numba_available():
        return
    if not built():
        build(exercise, progress, parts)
    load(exercise)


def load(exercise: Exercise) -> None:
    """Load the cores from the cache and exercise every function once (so no later call of
    theirs is the first). Under Policy.FALL_BACK a function missing from the cache raises
    CoreNotReady instead of compiling."""
    configure_numba()
    with _load_lock:
        if _loaded.is_set():
            return
        if _policy is Policy.FALL_BACK:
            # From here on, for good: no later call in this process may compile either.
            _refuse_compiles()
        exercise()
        _loaded.set()


def _refuse_compiles() -> None:
    """From now on in this process, a numba compile stops before it starts (a listener on
    numba's compile event) and raises CoreNotReady instead. Installed once."""
    global _guard_installed
    if _guard_installed:
        return
    configure_numba()
    from numba.core import event

    class RefuseCompiles(event.Listener):
        def on_start(self, ev: Any) -> None:
            dispatcher = ev.data.get("dispatcher")
            name = getattr(dispatcher, "__qualname__", "a compiled function")
            raise CoreNotReady(f"{name} is not in the compiled cache")

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", RefuseCompiles())  # type: ignore[no-untyped-call]
    _guard_installed = True


def load_when_ready(exercise: Exercise) -> None:
    """In a Policy.FALL_BACK process: a daemon thread that waits for a build of this host's cores
    (another process makes it) and loads it, after which usable() is True. Once per process."""
    global _waiter
    with _waiter_lock:
        if _waiter is not None or _loaded.is_set():
            return
        _waiter = threading.Thread(
            target=_wait_and_load, args=(exercise,), name="caro-core-loader", daemon=True
        )
    _waiter.start()


_waiter: threading.Thread | None = None
_waiter_lock = threading.Lock()


def _wait_and_load(exercise: Exercise) -> None:
    stamp_path, _lock, _failed = _files()
    tried: float | None = None
    while not _loaded.is_set():
        try:
            changed = stamp_path.stat().st_mtime
        except OSError:
            changed = None
        if changed is not None and changed != tried and built():
            tried = changed
            try:
                load(exercise)
            except CoreNotReady as exc:
                # The stamp promised what the cache does not hold (cleared by hand, say): drop
                # it, so that the next build makes both again.
                log.warning("search core: %s; the pure-Python search plays on", exc)
                with contextlib.suppress(OSError):
                    stamp_path.unlink()
                continue
            return
        time.sleep(POLL_SECONDS)


# ----------------------------------------------------------------------------- building
def build(
    exercise: Exercise, progress: Callable[[str], None] | None = None, parts: Sequence[str] = ()
) -> float:
    """Compile the cores into the cache unless this host has them: one process at a time (the
    others wait on the lock, then find them built). Each of `parts` is compiled in a process of
    its own (part_command), in order; without parts, `exercise` compiles them all here.
    Returns the seconds the compile took (0.0 when it was built already). BuildFailed if the
    compile fails."""
    from filelock import FileLock

    say = progress or log.info
    if not numba_available():
        raise BuildFailed(NO_NUMBA)
    configure_numba()
    stamp_path, lock_path, _failed = _files()
    lock = FileLock(str(lock_path))
    try:
        stamp_path.parent.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except OSError as exc:
        raise BuildFailed(
            f"cannot write the cache folder {stamp_path.parent} ({exc.strerror or exc}): "
            "set NUMBA_CACHE_DIR to a folder this user can write"
        ) from None
    try:
        seconds = _build_locked(exercise, say, parts)
    finally:
        lock.release()
    if seconds:
        say(f"search core ready in {seconds:.0f} s")
    return seconds


def numba_cache_folders() -> list[Path]:
    """numba's cache folders of SOURCES' modules under cache_dir(), named as numba names them
    (the source folder's name and the SHA-1 of its absolute path), for the folder as imported
    and as resolved (they differ under a symbolic link)."""
    here = Path(os.path.abspath(__file__)).parent.parent
    folders = {
        str(base / Path(name).parent)
        for base in (here, _ENGINE_DIR)
        for name in SOURCES
    }
    return [
        cache_dir() / f"{Path(folder).name}_{hashlib.sha1(folder.encode()).hexdigest()}"
        for folder in sorted(folders)
    ]


def _clear_compiled() -> None:
    """Remove SOURCES' compiled functions from numba's cache before a build. numba checks a
    cached function against its own file only, and a function keeps the code of what it calls:
    after core.py changed, pns.py's functions would load unchanged with core.py's old code in
    them (and the old layout of its arrays)."""
    stems = {Path(name).stem for name in SOURCES}
    for folder in numba_cache_folders():
        for stem in stems:
            for path in [*folder.glob(f"{stem}.*.nbi"), *folder.glob(f"{stem}.*.nbc")]:
                with contextlib.suppress(OSError):
                    path.unlink()


def _build_locked(exercise: Exercise, say: Callable[[str], None], parts: Sequence[str]) -> float:
    stamp_path, _lock, failed_path = _files()
    if built():
        return 0.0
    with contextlib.suppress(OSError):
        stamp_path.unlink()
    _clear_compiled()
    target = os.environ.get("NUMBA_CPU_NAME", "")
    say(f"search core: compiling for {target} (once per host: a few minutes of CPU)")
    started, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    try:
        for number, name in enumerate(parts, 1):
            say(f"search core: part {number} of {len(parts)} ({name})")
            _build_part(name)
        if not parts:
            with _load_lock:
                exercise()
                _loaded.set()
    except BuildFailed as exc:
        _write(failed_path, {"key": _key(), "reason": str(exc), "at": time.time()})
        raise
    except Exception as exc:
        reason = f"compile failed: {type(exc).__name__}: {exc}".splitlines()[0]
        _write(failed_path, {"key": _key(), "reason": reason, "at": time.time()})
        raise BuildFailed(reason) from exc
    seconds = time.perf_counter() - started
    record = {
        "key": _key(),
        "seconds": round(seconds, 1),
        "cpu_seconds": round(time.process_time() - cpu + _children_cpu() - children, 1),
        "peak_mb": round(_peak_rss_mb(), 1),
        "at": time.time(),
    }
    _write(stamp_path, record)
    with contextlib.suppress(OSError):
        failed_path.unlink()
    return seconds


def part_command(name: str) -> list[str]:
    """The command that compiles one part of the cores (see build), in a process of its own."""
    return [sys.executable, "-m", "engine", "prepare", "--part", name]


def _build_part(name: str) -> None:
    """Compile one part in a process of its own, so that what LLVM allocated for it is given
    back when the part is done: the build's peak memory is its largest part's."""
    process = subprocess.Popen(
        part_command(name), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _out, err = process.communicate()
    except BaseException:
        # Interrupted (the program stopped): the part is not left compiling on its own.
        process.kill()
        process.wait()
        raise
    code = process.returncode
    if code < 0:
        raise BuildFailed(f"the compile was killed by signal {-code} (out of memory?)")
    if code != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        raise BuildFailed(lines[-1] if lines else f"the compile of {name} exited with {code}")


def die_with_parent() -> None:
    """Linux: this process is killed when the one that started it dies (a part of a build
    whose build was killed would otherwise compile on for nothing)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def _children_cpu() -> float:
    """CPU seconds of this process's finished child processes (the parts of a build)."""
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return float(usage.ru_utime + usage.ru_stime)


def _write(path: Path, data: dict[str, Any]) -> None:
    """Write whole or not at all: a reader never sees half a stamp."""
    part = path.with_name(path.name + f".{os.getpid()}.part")
    part.write_text(json.dumps(data, indent=1))
    os.replace(part, path)


def _peak_rss_mb() -> float:
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    # The largest of this process and its finished children (the parts of a build).
    peak = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    # Linux counts kilobytes, macOS bytes.
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def record_failure(reason: str) -> None:
    """Remember that a background build failed (killed, say), so the next start does not try
    again at once (see RETRY_KILLED_AFTER)."""
    _stamp, _lock, failed_path = _files()
    with contextlib.suppress(OSError):
        failed_path.parent.mkdir(parents=True, exist_ok=True)
        _write(failed_path, {"key": _key(), "reason": reason, "at": time.time()})


def recently_failed() -> str | None:
    """The reason the last background build of these sources failed, if it was recent."""
    _stamp, _lock, failed_path = _files()
    failed = _read_json(failed_path)
    if failed is None or failed.get("key") != _key():
        return None
    if time.time() - float(failed.get("at", 0)) > RETRY_KILLED_AFTER:
        return None
    return str(failed.get("reason", "failed"))


def build_command() -> list[str]:
    """The command that builds the cores in a process of its own, at low priority."""
    return [sys.executable, "-m", "engine", "prepare", "--background"]


def start_background_build() -> subprocess.Popen[bytes] | None:
    """Start building this host's cores in a process of its own (see build_command), unless they
    are built or a recent background build failed. The caller reaps the process."""
    if built() or recently_failed() or not numba_available():
        return None
    return subprocess.Popen(
        build_command(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
