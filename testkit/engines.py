"""External engines for the tests: the command that runs this project's own engine as a pbrain
(Gomocup protocol) engine, the way an operator's CARO_ENGINE_CMD would name one."""

from __future__ import annotations

import sys
from pathlib import Path


def caro_pbrain() -> tuple[str, ...]:
    """The command line of `caro pbrain` (the installed script, else `python -m engine`)."""
    script = Path(sys.executable).parent / "caro"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "engine"]
    return (*base, "pbrain")

