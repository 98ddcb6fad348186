"""One run of `python -m bot` to its exit, for what it refuses before it gets anywhere (no token,
bad settings, a refused token, a database it cannot use)."""

from __future__ import annotations

import os
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
