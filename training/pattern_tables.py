"""The line-pattern tables of engine.ai.patterns, generated from caro's rules.

    python -m training.pattern_tables        # writes engine/ai/data/patterns.npz

A cell's line pattern in one direction is read from its ten neighbours on that line, five each
side, each empty, the player's own stone, the opponent's, or off the board (two bits each, the
nearest first on the negative side: see engine.ai.patterns.line_code). The class says what one
more stone of the player on the cell makes in that line, judged by playing it out on the line:

- FIVE: a row that wins under the rule (freestyle: five or more; exact and renju black: exactly
  five; caro: exactly five, not blocked by the opponent at both ends);
- F4 / B4: a four with two winning cells (open) or one;
- F3 / B3: a three that one more stone turns into an F4, or only into a B4;
- F2 / B2: a two that one more stone turns into an F3, or only into a B3;
- FREE: a win is still possible through the cell in that line; NONE: it is not.

Every row counted must hold the cell, so a four elsewhere on the line is not the cell's. The
caro rule is why an opponent's stone and the board's edge are told apart: only the first blocks
an end. Tables: FREESTYLE, EXACT and CARO, each indexed by the code with the player's stones as
1 (black); engine.ai.patterns swaps the colours for white, and under renju reads EXACT for black
and FREESTYLE for white.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

NONE, FREE, B2, F2, B3, F3, B4, F4, FIVE = range(9)
REACH = 5
WIDTH = 2 * REACH + 1
CENTRE = REACH
EMPTY, OWN, OPP, EDGE = 0, 1, 2, 3
RULES = ("freestyle", "exact", "caro")
OUT = Path(__file__).resolve().parent.parent / "engine" / "ai" / "data" / "patterns.npz"

Lines = npt.NDArray[np.int8]
Mask = npt.NDArray[np.bool_]


def all_lines() -> Lines:
    """Every code's line, (4**10, 11): the neighbours from the code, the cell itself empty."""
    codes = np.arange(4 ** (2 * REACH), dtype=np.int64)
    lines = np.zeros((codes.size, WIDTH), dtype=np.int8)
    for i, pos in enumerate(neighbour_positions()):
        lines[:, pos] = (codes >> (2 * i)) & 3
    return lines


def neighbour_positions() -> list[int]:
    """Line positions of the code's digits, digit 0 first: -1, -2, ..., -5, then +1, ..., +5."""
    return [CENTRE - o for o in range(1, REACH + 1)] + [CENTRE + o for o in range(1, REACH + 1)]


def _run(lines: Lines, p: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Own stones in a row through position p (its own stone counted), and where it starts."""
    n = lines.shape[0]
    own = lines == OWN
    left = np.zeros(n, dtype=np.int64)
    going = np.ones(n, dtype=bool)
    for q in range(p - 1, -1, -1):
        going &= own[:, q]
        left += going
    right = np.zeros(n, dtype=np.int64)
    going = np.ones(n, dtype=bool)
    for q in range(p + 1, WIDTH):
        going &= own[:, q]
        right += going
    return left + 1 + right, p - left


def _five_at(lines: Lines, p: int, rule: str) -> Mask:
    """Whether the own stone at p (already on the lines) stands in a winning row that holds the
    centre."""
    run, start = _run(lines, p)
    end = start + run - 1
    holds = (start <= CENTRE) & (end >= CENTRE)
    if rule == "freestyle":
        return holds & (run >= 5)
    ok = holds & (run == 5)
    if rule == "caro":
        # Both ends an opponent's stone: no win. The edge blocks nothing under caro.
        before = np.where(start - 1 >= 0, lines[np.arange(lines.shape[0]), np.clip(start - 1, 0, WIDTH - 1)], EDGE)
        after = np.where(end + 1 < WIDTH, lines[np.arange(lines.shape[0]), np.clip(end + 1, 0, WIDTH - 1)], EDGE)
        ok &= ~((before == OPP) & (after == OPP))
    return ok


def _wins(lines: Lines, rule: str) -> npt.NDArray[np.int64]:
    """How many empty cells would complete a winning row through the centre."""
    count = np.zeros(lines.shape[0], dtype=np.int64)
    for p in range(CENTRE - 4, CENTRE + 5):
        empty = lines[:, p] == EMPTY
        if not empty.any():
            continue
        trial = lines.copy()
        trial[empty, p] = OWN
        count += empty & _five_at(trial, p, rule)
    return count


def _four_level(lines: Lines, rule: str) -> npt.NDArray[np.int8]:
    """F4 (two winning cells or more), B4 (one) or NONE, for lines holding the centre's stone."""
    wins = _wins(lines, rule)
    return np.where(wins >= 2, F4, np.where(wins == 1, B4, NONE)).astype(np.int8)


def _best_after_one(lines: Lines, rule: str, level: int) -> npt.NDArray[np.int8]:
    """The best class reached by one more own stone on an empty cell near the centre, where the
    class is read by `level` (_four_level, or this function one level down)."""
    best = np.full(lines.shape[0], NONE, dtype=np.int8)
    for p in range(CENTRE - 4, CENTRE + 5):
        if p == CENTRE:
            continue
        empty = lines[:, p] == EMPTY
        if not empty.any():
            continue
        trial = lines[empty].copy()
        trial[:, p] = OWN
        got = _four_level(trial, rule) if level == 4 else _best_after_one(trial, rule, 4)
        sub = best[empty]
        best[empty] = np.maximum(sub, got)
    return best


def classify(lines: Lines, rule: str) -> npt.NDArray[np.int8]:
    """The class of one more own stone on each line's (empty) centre."""
    placed = lines.copy()
    placed[:, CENTRE] = OWN
    out = np.full(lines.shape[0], NONE, dtype=np.int8)
    five = _five_at(placed, CENTRE, rule)
    out[five] = FIVE
    rest = ~five
    four = _four_level(placed[rest], rule)
    sub = out[rest]
    sub[four > NONE] = four[four > NONE]
    out[rest] = sub
    rest = out == NONE
    three = _best_after_one(placed[rest], rule, 4)  # F4 -> F3, B4 -> B3
    three = np.where(three == F4, F3, np.where(three == B4, B3, NONE)).astype(np.int8)
    sub = out[rest]
    sub[three > NONE] = three[three > NONE]
    out[rest] = sub
    rest = out == NONE
    two = _best_after_one(placed[rest], rule, 3)  # F4 two stones on -> F2, B4 -> B2
    two = np.where(two == F4, F2, np.where(two == B4, B2, NONE)).astype(np.int8)
    sub = out[rest]
    sub[two > NONE] = two[two > NONE]
    out[rest] = sub
    # FREE: some five cells through the centre hold nothing of the opponent's nor the edge.
    rest = out == NONE
    free = np.zeros(int(rest.sum()), dtype=bool)
    part = placed[rest]
    for start in range(CENTRE - 4, CENTRE + 1):
        window = part[:, start:start + 5]
        free |= ((window == EMPTY) | (window == OWN)).all(axis=1)
    sub = out[rest]
    sub[free] = FREE
    out[rest] = sub
    return out


def generate() -> dict[str, npt.NDArray[np.int8]]:
    lines = all_lines()
    return {rule: classify(lines, rule) for rule in RULES}


def main() -> int:
    tables = generate()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **tables)
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
