"""`caro doctor`: what this installation runs on, and whether the compiled search core is ready
(for which CPU target, where its cache is, what its build took)."""

from __future__ import annotations

import argparse
import platform
import sys
from importlib.metadata import PackageNotFoundError, version

from .. import __version__
from ..support import cores


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def run(args: argparse.Namespace) -> int:
    del args
    state = cores.status()
    lines = [
        f"caro {__version__}",
        f"python {platform.python_version()} on {platform.system()} {platform.machine()}",
        f"numba {_version('numba')}, llvmlite {_version('llvmlite')}",
        state.summary(),
        f"cpu target: {state.target} (portable across CPUs of this architecture)",
    ]
    if state.built and state.build_cpu_seconds is not None:
        lines.append(
            f"last build: {state.build_seconds:.0f} s wall, {state.build_cpu_seconds:.0f} s CPU, "
            f"peak memory {state.build_peak_mb:.0f} MB"
        )
    print("\n".join(lines))
    if not state.built:
        print("run `caro prepare` (or `caro-bot --prepare`) to build it now", file=sys.stderr)
    return 0
