"""One run of `python -m bot` to its exit, for what it refuses before it gets anywhere (no token,
bad settings, a refused token, a database it cannot use), and a local port nothing listens on
(a Discord or an engine that is not there)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path


def run_to_exit(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the bot in `cwd` with only `env` of the DISCORD_* and CARO_* settings; its exit."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot"], env=base | env, cwd=cwd, capture_output=True, text=True,
        timeout=60,
    )


def run_bot(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m bot *args` in `cwd` with only `env` of the DISCORD_* and CARO_* settings and
    no input; its exit."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=cwd, env=clean | env, capture_output=True,
        text=True, timeout=60, stdin=subprocess.DEVNULL,
    )


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])

