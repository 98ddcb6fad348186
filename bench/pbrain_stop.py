"""`caro pbrain` under a manager: how promptly does it answer a command that arrives while it
thinks, and how much of the turn time does it use?

    python -m bench.pbrain_stop --runs 5 --turns 1000,3000

The real brain (`caro pbrain`, default level impossible: the compiled core) runs over pipes, as
a manager drives it. Printed, each over `--runs` tries on an open 15x15 middle game:

- END during a search given a minute: from writing END to the process's exit (and, for
  comparison, END while the brain waits for a command);
- RESTART during such a search: from writing it to the brain's OK (which waits for nothing but
  the stop; the next search, BEGIN, then waits for the cut one to unwind, and that answer's time
  is printed too);
- a move given `timeout_turn` T: from writing the command to the answer, against T.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

MIDGAME = ["BOARD", "7,7,1", "8,8,2", "6,8,1", "8,6,2", "9,9,1", "6,6,2", "DONE"]
SEARCH_FIRST = 1.0  # seconds the brain thinks before the command that cuts it


class Brain:
    def __init__(self) -> None:
        script = Path(sys.executable).parent / "caro"
        command = [str(script)] if script.exists() else [sys.executable, "-m", "engine"]
        self.proc = subprocess.Popen(
            [*command, "pbrain"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[tuple[str | None, float]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((line.strip(), time.perf_counter()))
        self.lines.put((None, time.perf_counter()))

    def send(self, *lines: str) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()
        return time.perf_counter()

    def answer(self) -> tuple[str | None, float]:
        return self.lines.get(timeout=120)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def started() -> Brain:
    brain = Brain()
    brain.send("INFO timeout_turn 60000", "INFO timeout_match 0", "START 15")
    line, _ = brain.answer()
    assert line == "OK", line
    return brain


def end_latency(thinking: bool = True) -> float:
    brain = started()
    if thinking:
        brain.send(*MIDGAME)
    time.sleep(SEARCH_FIRST)
    sent = brain.send("END")
    brain.proc.wait(timeout=120)
    took = time.perf_counter() - sent
    line, _ = brain.answer()
    assert line is None, f"a move was sent for the abandoned search: {line}"
    brain.close()
    return took


def restart_latency() -> tuple[float, float]:
    brain = started()
    brain.send(*MIDGAME)
    time.sleep(SEARCH_FIRST)
    sent = brain.send("RESTART")
    line, at = brain.answer()
    assert line == "OK", line
    ok = at - sent
    sent = brain.send("INFO timeout_turn 100", "BEGIN")
    line, at = brain.answer()
    assert line is not None and "," in line, line
    brain.send("END")
    brain.close()
    return ok, at - sent


def turn_use(turn_ms: int) -> float:
    brain = started()
    brain.send(f"INFO timeout_turn {turn_ms}")
    sent = brain.send(*MIDGAME)
    line, at = brain.answer()
    assert line is not None and "," in line, line
    brain.send("END")
    brain.close()
    return at - sent


def summary(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"median {statistics.median(ms):.0f} ms, min {min(ms):.0f}, max {max(ms):.0f} "
        f"({len(ms)} runs)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", default="1000,3000", help="timeout_turn values in ms")
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ends = [end_latency() for _ in range(args.runs)]
    print(f"END during a search: exit after {summary(ends)}")
    idle = [end_latency(thinking=False) for _ in range(args.runs)]
    print(f"  (END while idle, for comparison: exit after {summary(idle)})")
    restarts = [restart_latency() for _ in range(args.runs)]
    print(f"RESTART during a search: OK after {summary([r[0] for r in restarts])}")
    print(f"  the next move (BEGIN, 100 ms turn) after {summary([r[1] for r in restarts])}")
    for turn in (int(t) for t in args.turns.split(",")):
        used = [turn_use(turn) for _ in range(args.runs)]
        print(f"timeout_turn {turn} ms: answered after {summary(used)}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
