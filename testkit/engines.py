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



# A small piskvork brain: OK to START/RECTSTART, the first empty cell (row by row) as its move,
# ERROR to an INFO rule number not in KNOWN (as Rapfi answers a rule it does not play), and exit
# code 3 when asked for a move on a board narrower than DIE_BELOW.
_SCRIPT = """
import sys
KNOWN, DIE_BELOW = {known!r}, {die_below!r}
width = height = 0
stones = set()
for line in sys.stdin:
    words = line.strip().replace(",", " ").split()
    if not words:
        continue
    word = words[0].upper()
    if word == "START":
        width = height = int(words[1])
        print("OK", flush=True)
    elif word == "RECTSTART":
        width, height = int(words[1]), int(words[2])
        print("OK", flush=True)
    elif word == "INFO" and words[1] == "rule" and int(words[2]) not in KNOWN:
        print("ERROR Unknown rule id: " + words[2] + ". Rule is reset to freestyle...", flush=True)
    elif word == "BOARD":
        stones = set()
    elif word == "DONE":
        if width < DIE_BELOW:
            sys.exit(3)
        free = next((x, y) for y in range(height) for x in range(width) if (x, y) not in stones)
        print(f"{{free[0]}},{{free[1]}}", flush=True)
    elif word == "END":
        break
    elif len(words) == 3 and words[0].isdigit():
        stones.add((int(words[0]), int(words[1])))
"""


def scripted_brain(
    directory: Path, *, known: tuple[int, ...] = (0, 1, 8), die_below: int = 0
) -> tuple[str, ...]:
    """The command line of a scripted brain written into `directory`: it knows the INFO rule
    numbers `known`, and dies when asked to move on a board narrower than `die_below`."""
    script = directory / f"brain-{'-'.join(map(str, known))}-{die_below}.py"
    script.write_text(_SCRIPT.format(known=known, die_below=die_below), encoding="utf-8")
    return (sys.executable, str(script))
