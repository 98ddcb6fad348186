"""A small Gomocup brain for the bench tests, run as a program: it plays the first empty cell of
the board in reading order (the one moving first wins on a diagonal).

Its arguments, each optional: `starts=FILE` notes its process id there when it starts,
`infos=FILE` writes each INFO line it gets there, `say=VALUE` says "Eval VALUE" before each move
(as Rapfi does)."""

from __future__ import annotations

import os
import sys


def main() -> None:
    options = dict(arg.split("=", 1) for arg in sys.argv[1:])
    if "starts" in options:
        with open(options["starts"], "a") as starts:
            starts.write(f"{os.getpid()}\n")
    size, taken = 0, set()

    def answer() -> None:
        cell = next((r, c) for r in range(size) for c in range(size) if (r, c) not in taken)
        taken.add(cell)
        if "say" in options:
            print(f"MESSAGE Depth 9 | Eval {options['say']} | Node 1", flush=True)
        print(f"{cell[1]},{cell[0]}", flush=True)

    lines = iter(sys.stdin)
    for line in lines:
        word, _, rest = line.strip().partition(" ")
        if word == "START":
            size, taken = int(rest), set()
            print("OK", flush=True)
        elif word == "RESTART":
            taken = set()
            print("OK", flush=True)
        elif word == "BOARD":
            taken = set()
            for row in lines:
                if row.strip() == "DONE":
                    break
                x, y, _ = row.strip().split(",")
                taken.add((int(y), int(x)))
            answer()
        elif word == "TURN":
            x, y = rest.split(",")
            taken.add((int(y), int(x)))
            answer()
        elif word == "INFO" and "infos" in options:
            with open(options["infos"], "a") as infos:
                infos.write(rest + "\n")
        elif word == "END":
            break


if __name__ == "__main__":
    main()
