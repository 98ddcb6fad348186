"""Line patterns and cell patterns for five in a row: what a stone on an empty cell makes.

Per cell and direction, the line class (engine/ai/data/patterns.npz, generated from the rules by
training.pattern_tables) is read from the ten neighbours on the line, five each side. Per cell,
the four classes combine into one pattern (CATEGORIES below: a five, an open four or a double
four, a four-three, ...). The compiled core keeps both up to date as stones come and go
(engine.ai.core) and values a position by the sum, over the empty cells, of a weight per cell
pattern for the side to move and another for the side waiting: the weights are fitted on caro's
own games (training.fit) and shipped in engine/ai/data/ with a version: a rule's own fit
(weights-RULE.npz), or another rule's (BORROWED), where a match under that rule has shown it
better, else weights.npz. A rule's own net-RULE.npz (training.net), or another rule's
(BORROWED_NET), comes first: the same weights with a hidden layer beside them (Net).

This module loads the tables and lays them out for the core, reads the same patterns from a
Board in plain Python (for the training pipeline and the tests), and keeps a pattern board of
its own for the pure-Python search (PatternBoard).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..game.types import Rule

DATA = Path(__file__).resolve().parent / "data"
REACH = 5  # neighbours read each side of a cell
DIGITS = 2 * REACH
K = 5  # the patterns are those of five in a row

# Line classes (training.pattern_tables).
NONE, FREE, B2, F2, B3, F3, B4, F4, FIVE = range(9)
CLASSES = 9

# Cell patterns, weakest first: the combination of a cell's four line classes.
CATEGORIES = (
    "none",  # nothing of note
    "forbidden",  # renju: black may not play here (a double four or double three)
    "two",  # an open two
    "closed three",
    "two twos",
    "closed three plus",  # two closed threes, or a closed three and an open two
    "open three",
    "open three plus",  # an open three and a closed three or an open two
    "three-three",
    "four",
    "four plus",  # a four and a closed three or an open two
    "four-three",
    "open four",  # an open four or two fours: a win unless the opponent has a five to make
    "five",
)
(NONE_P, FORBID_P, L_F2, K_B3, J_F2X2, I_B3P, H_F3, G_F3P, F_F3X2, E_B4, D_B4P, C_B4F3, B_F4,
 A_FIVE) = range(len(CATEGORIES))
NCAT = len(CATEGORIES)


def combine(classes: tuple[int, int, int, int], forbid_doubles: bool) -> int:
    """The cell pattern of four line classes; with forbid_doubles (renju black) a double four
    or double three is forbidden (a five still wins)."""
    n = [0] * CLASSES
    for c in classes:
        n[c] += 1
    fours = n[F4] + n[B4]
    if n[FIVE]:
        return A_FIVE
    if forbid_doubles and (fours >= 2 or (fours == 0 and n[F3] >= 2)):
        return FORBID_P
    if n[F4] or n[B4] >= 2:
        return B_F4
    if n[B4]:
        if n[F3]:
            return C_B4F3
        return D_B4P if n[B3] + n[F2] else E_B4
    if n[F3] >= 2:
        return F_F3X2
    if n[F3]:
        return G_F3P if n[B3] + n[F2] else H_F3
    if n[B3] >= 2 or (n[B3] and n[F2]):
        return I_B3P
    if n[F2] >= 2:
        return J_F2X2
    if n[B3]:
        return K_B3
    if n[F2]:
        return L_F2
    return NONE_P


@lru_cache(maxsize=1)
def _raw_tables() -> dict[str, npt.NDArray[np.int8]]:
    with np.load(DATA / "patterns.npz") as data:
        return {name: data[name] for name in data.files}


def _base3_index() -> npt.NDArray[np.int64]:
    """For each base-3 code (0 empty, 1 own, 2 opponent or edge), its base-4 code."""
    codes = np.arange(3 ** DIGITS, dtype=np.int64)
    out = np.zeros_like(codes)
    for i in range(DIGITS):
        out |= ((codes // 3 ** i) % 3) << (2 * i)
    return out


@dataclass(frozen=True, slots=True)
class Tables:
    """The core's pattern tables for one rule.

    base: 3, or 4 under caro (where the edge, 3, blocks nothing and an opponent's stone, 2,
    does); a cell's code for a mark is sum(state * base**digit) over its ten neighbours, digit
    0..4 the cells at -1..-5 on the line, 5..9 those at +1..+5.
    line[mark, code]: the line class; comb[mark, key]: the cell pattern of the four classes,
    key = ((c0 * 9 + c1) * 9 + c2) * 9 + c3."""

    base: int
    line: npt.NDArray[np.int8]
    comb: npt.NDArray[np.int8]


@lru_cache(maxsize=8)
def tables(rule: Rule) -> Tables:
    raw = _raw_tables()
    if rule is Rule.CARO:
        base = 4
        per_mark = [raw["caro"], raw["caro"]]
    else:
        base = 3
        index = _base3_index()
        black = "exact" if rule in (Rule.EXACT, Rule.RENJU) else "freestyle"
        white = "exact" if rule is Rule.EXACT else "freestyle"
        per_mark = [raw[black][index], raw[white][index]]
    line = np.zeros((3, per_mark[0].size), dtype=np.int8)
    line[1], line[2] = per_mark
    comb = np.zeros((3, CLASSES ** 4), dtype=np.int8)
    for key in range(CLASSES ** 4):
        classes = (key // 729, key // 81 % 9, key // 9 % 9, key % 9)
        comb[1, key] = combine(classes, rule is Rule.RENJU)
        comb[2, key] = combine(classes, False)
    return Tables(base, line, comb)


def _combos() -> tuple[npt.NDArray[np.int64], int]:
    """Each key's combination: the index of its four classes as a sorted tuple (the order of the
    directions does not change what a cell makes), and how many combinations there are."""
    index: dict[tuple[int, ...], int] = {}
    combo = np.zeros(CLASSES**4, dtype=np.int64)
    for key in range(CLASSES**4):
        classes = tuple(sorted((key // 729, key // 81 % 9, key // 9 % 9, key % 9)))
        combo[key] = index.setdefault(classes, len(index))
    return combo, len(index)


COMBO, NCOMBO = _combos()
# [combination]: its first key. What a cell makes depends only on its combination (the tables
# are built so; tests/engine/ai/test_patterns.py checks it), so one key stands for them all.
FIRST_KEY = np.unique(COMBO, return_index=True)[1]


@dataclass(frozen=True, slots=True)
class Weights:
    """What a cell is worth to the side to move ([0]) and to the side waiting ([1]), in the
    core's evaluation units: a weight per cell pattern plus one per combination of its four
    line classes (COMBO), which tells apart cells of one pattern; `version` names the fit
    (training.fit)."""

    version: str
    cell: npt.NDArray[np.int64]  # [2, NCAT]
    combo: npt.NDArray[np.int64]  # [2, NCOMBO]
    # The old window term (engine.ai.core.evaluate's sums) is kept as a feature: its weight in
    # 1/1024ths.
    windows: int
    net: Net | None = None


@dataclass(frozen=True, slots=True)
class Net:
    """A hidden layer over the same cells (training.net): each of `hidden` units sums, over the
    empty cells, a weight per cell pattern and per combination for the side to move ([0]) and
    for the side waiting ([1]), plus its bias, all in 1/1024ths; the units above zero, times
    `out` (in 1/64ths of an evaluation unit per unit), are added to the evaluation. Kept as
    stones come and go like the sums of the weights above, it lets the evaluation weigh one
    cell against the others (a four-three to make is worth more when the opponent has no four)."""

    cell: npt.NDArray[np.int64]  # [2, NCAT, hidden]
    combo: npt.NDArray[np.int64]  # [2, NCOMBO, hidden]
    bias: npt.NDArray[np.int64]  # [hidden]
    out: npt.NDArray[np.int64]  # [hidden]

    @property
    def hidden(self) -> int:
        return int(self.bias.shape[0])


# The rules that play with another rule's fit, having none of their own: a match under the rule
# showed that fit better than the patterns alone (docs/benchmarks.md). Renju's and exact's
# games are freestyle's but for the overlines and black's forbidden points, which their tables
# read.
BORROWED = {Rule.RENJU: Rule.FREESTYLE, Rule.EXACT: Rule.FREESTYLE}
# The rules that play with another rule's net, each since a match under the rule showed it
# better than the fit they borrow and than a net fitted on their own games (docs/benchmarks.md).
BORROWED_NET = {Rule.RENJU: Rule.FREESTYLE, Rule.EXACT: Rule.FREESTYLE}


def weights_file(rule: Rule) -> Path:
    """The rule's own evaluation with a hidden layer (net-RULE.npz, training.net) where one has
    been shipped, else the net it borrows (BORROWED_NET), else its own fit (weights-RULE.npz),
    else the fit it borrows (BORROWED), else the fit of the cell patterns alone that every other
    rule plays with (weights.npz): an evaluation is only played under a rule once a match under
    it says so."""
    for name in (rule, BORROWED_NET.get(rule)):
        if name is not None and (DATA / f"net-{name.value}.npz").exists():
            return DATA / f"net-{name.value}.npz"
    for name in (rule, BORROWED.get(rule)):
        if name is not None and (DATA / f"weights-{name.value}.npz").exists():
            return DATA / f"weights-{name.value}.npz"
    return DATA / "weights.npz"


@lru_cache(maxsize=8)
def weights(rule: Rule) -> Weights:
    return _read_weights(weights_file(rule))


@lru_cache(maxsize=8)
def _read_weights(path: Path) -> Weights:
    """One file's evaluation, read once however many rules play it (BORROWED, BORROWED_NET)."""
    with np.load(path) as data:
        name = path.name
        cell = np.asarray(data["cell"], dtype=np.int64)
        if cell.shape != (2, NCAT):
            raise ValueError(f"{name}: cell weights of shape {cell.shape}, not (2, {NCAT})")
        # A fit of patterns alone (the first shipped) has no combination weights.
        combo = np.zeros((2, NCOMBO), dtype=np.int64)
        if "combo" in data.files:
            combo = np.asarray(data["combo"], dtype=np.int64)
            if combo.shape != (2, NCOMBO):
                raise ValueError(
                    f"{name}: combination weights of shape {combo.shape}, not (2, {NCOMBO})"
                )
        net = None
        if "net_bias" in data.files:
            bias = np.asarray(data["net_bias"], dtype=np.int64)
            net = Net(np.asarray(data["net_cell"], dtype=np.int64),
                      np.asarray(data["net_combo"], dtype=np.int64), bias,
                      np.asarray(data["net_out"], dtype=np.int64))
            h = bias.shape
            if (net.cell.shape, net.combo.shape, net.out.shape) != ((2, NCAT, *h), (2, NCOMBO, *h), h):
                raise ValueError(f"{name}: hidden-layer tables of shapes {net.cell.shape}, "
                                 f"{net.combo.shape}, {net.out.shape} for {h} units")
        return Weights(str(data["version"]), cell, combo, int(data["windows"]), net)


def _by_combination(rule: Rule, cell: npt.NDArray[np.int64],
                    combo: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """[mark, side, combination, ...]: for each combination of four classes, the cell pattern's
    row of `cell` ([side, pattern, ...]) plus the combination's row of `combo` ([side,
    combination, ...]); a forbidden point is worth nothing to black, whatever its lines."""
    comb = tables(rule).comb[:, FIRST_KEY]
    out = np.zeros((3, 2, NCOMBO, *cell.shape[2:]), dtype=np.int64)
    for mark in (1, 2):
        for side in (0, 1):
            value = cell[side][comb[mark]] + combo[side]
            value[comb[mark] == FORBID_P] = 0
            out[mark, side] = value
    return out


@lru_cache(maxsize=8)
def combo_values(rule: Rule) -> npt.NDArray[np.int64]:
    """[mark, side, combination]: what a cell whose four classes make `combination` is worth to
    mark as the side to move (side 0) or waiting (1): its pattern's weight plus its
    combination's. A forbidden point is worth nothing to black, whatever its lines."""
    w = weights(rule)
    return _by_combination(rule, w.cell, w.combo)


@lru_cache(maxsize=8)
def key_values(rule: Rule) -> npt.NDArray[np.int64]:
    """combo_values by key ([mark, side, key]): what a cell whose classes make `key` is worth."""
    return combo_values(rule)[:, :, COMBO]


@lru_cache(maxsize=8)
def net_combo_values(rule: Rule) -> npt.NDArray[np.int64]:
    """[mark, side, combination, unit]: what a cell whose four classes make `combination` adds
    to each hidden unit (Net), as combo_values for the weights; no units when the rule plays
    without a net."""
    net = weights(rule).net
    if net is None:
        return np.zeros((3, 2, 1, 0), dtype=np.int64)
    return _by_combination(rule, net.cell, net.combo)


# ------------------------------------------------------------------- from a Board, in Python
def line_code(grid: list[int] | tuple[int, ...], rows: int, cols: int, cell: int, d: tuple[int, int],
              mark: int, base: int) -> int:
    """The code of cell's line in direction d for mark (see Tables)."""
    r0, c0 = divmod(cell, cols)
    dr, dc = d
    code = 0
    for digit in range(DIGITS):
        o = -(digit + 1) if digit < REACH else digit - REACH + 1
        r, c = r0 + o * dr, c0 + o * dc
        if 0 <= r < rows and 0 <= c < cols:
            v = grid[r * cols + c]
            state = 0 if v == 0 else (1 if v == mark else 2)
        else:
            state = 3 if base == 4 else 2
        code += state * base ** digit
    return code


def cell_patterns(grid: list[int] | tuple[int, ...], rows: int, cols: int, rule: Rule,
                  mark: int) -> npt.NDArray[np.int8]:
    """The cell pattern of every empty cell for mark (NONE_P on stones)."""
    from ..game.board import DIRECTIONS

    t = tables(rule)
    out = np.zeros(rows * cols, dtype=np.int8)
    for cell in range(rows * cols):
        if grid[cell]:
            continue
        key = 0
        for d in DIRECTIONS:
            key = key * CLASSES + int(t.line[mark, line_code(grid, rows, cols, cell, d, mark, t.base)])
        out[cell] = t.comb[mark, key]
    return out


def features(grid: list[int] | tuple[int, ...], rows: int, cols: int, rule: Rule,
             me: int) -> npt.NDArray[np.int64]:
    """How many empty cells hold each pattern: [0] for me (to move), [1] for the opponent."""
    out = np.zeros((2, NCAT), dtype=np.int64)
    for side, mark in enumerate((me, 3 - me)):
        counts = np.bincount(cell_patterns(grid, rows, cols, rule, mark), minlength=NCAT)
        out[side] = counts
    return out


_COMBO = tuple(int(c) for c in COMBO)  # for PatternBoard: plain Python reads tuples faster


@lru_cache(maxsize=8)
def _flat_net_combo_values(rule: Rule) -> tuple[tuple[array[int], ...], ...]:
    """net_combo_values for PatternBoard: [mark][side] one flat array of combination * units +
    unit (plain Python reads those faster than numpy's, and they take a fifth of a tuple's
    memory); empty without a net."""
    values = net_combo_values(rule)
    if not values.shape[3]:
        return ()
    return ((), *(tuple(array("q", values[m, side].ravel().tolist()) for side in (0, 1))
                  for m in (1, 2)))


@lru_cache(maxsize=16)
def _layout(rows: int, cols: int, base: int
            ) -> tuple[tuple[tuple[tuple[int, int, int], ...], ...], tuple[int, ...]]:
    """PatternBoard's geometry, built once per board shape: per cell, the (neighbour, its slot
    cell * 4 + d, the weight of the cell's digit in that neighbour's code) it changes; and every
    slot's code on the empty board (its neighbours off the board are edges)."""
    from ..game.board import DIRECTIONS

    size = rows * cols
    edge = 3 if base == 4 else 2
    powers = [base ** j for j in range(DIGITS)]
    touch: list[list[tuple[int, int, int]]] = [[] for _ in range(size)]
    start = [0] * (size * 4)
    for r in range(rows):
        for c in range(cols):
            cell = r * cols + c
            for d, (dr, dc) in enumerate(DIRECTIONS):
                for j in range(DIGITS):
                    o = -(j + 1) if j < REACH else j - REACH + 1
                    rr, cc = r + o * dr, c + o * dc
                    if 0 <= rr < rows and 0 <= cc < cols:
                        touch[rr * cols + cc].append((cell, cell * 4 + d, powers[j]))
                    else:
                        start[cell * 4 + d] += edge * powers[j]
    return tuple(tuple(t) for t in touch), tuple(start)


class PatternBoard:
    """The core's pattern board in plain Python, kept in step by add and remove (flat cells): for
    the pure-Python search (engine.ai.position), which then values positions as the compiled
    core does."""

    def __init__(self, rows: int, cols: int, rule: Rule) -> None:
        t = tables(rule)
        values = key_values(rule)
        # [mark][side][key], as plain tuples: indexing numpy arrays from Python is slow.
        self.kv = ((), *(tuple(tuple(int(v) for v in values[m, side]) for side in (0, 1)) for m in (1, 2)))
        self.windows = weights(rule).windows
        self.line = (b"", t.line[1].tobytes(), t.line[2].tobytes())
        self.comb = (b"", t.comb[1].tobytes(), t.comb[2].tobytes())
        size = rows * cols
        self.grid = [0] * size
        self.touch, start = _layout(rows, cols, t.base)
        self.code: tuple[list[int], ...] = ([], list(start), list(start))
        self.cls: tuple[list[int], ...] = ([], [0] * (size * 4), [0] * (size * 4))
        self.key: tuple[list[int], ...] = ([], [0] * size, [0] * size)
        self.p4: tuple[list[int], ...] = ([], [0] * size, [0] * size)
        self.psum = [[0, 0], [0, 0], [0, 0]]
        # The hidden layer's sums (Net), [mark][side][unit], kept beside psum when there is one.
        net = weights(rule).net
        units = 0 if net is None else net.hidden
        self.nbias = [] if net is None else [int(b) for b in net.bias]
        self.nout = [] if net is None else [int(o) for o in net.out]
        self.nkv = _flat_net_combo_values(rule)
        self.nacc = [[[0] * units, [0] * units] for _ in range(3)]
        # The sums as they were before each stone, in the order of the stones: value() averages
        # with the last of them, as the core does.
        self.before: list[tuple[list[list[int]], list[list[list[int]]]]] = []
        for m in (1, 2):
            line, cls = self.line[m], self.cls[m]
            for slot in range(size * 4):
                cls[slot] = line[start[slot]]
            kv0, kv1 = self.kv[m]
            for cell in range(size):
                key = self._key(m, cell)
                self.key[m][cell] = key
                self.p4[m][cell] = self.comb[m][key]
                self.psum[m][0] += kv0[key]
                self.psum[m][1] += kv1[key]
                self._units(m, key, 1)

    def _units(self, m: int, key: int, sign: int, old: int = -1) -> None:
        """An empty cell of mark m's key counts (sign 1) or stops counting (-1) in the hidden
        layer's sums; with `old`, the cell's key changed from old to key."""
        if not self.nkv:
            return
        key = _COMBO[key]
        if old >= 0:
            old = _COMBO[old]
        for side in (0, 1):
            acc, row = self.nacc[m][side], self.nkv[m][side]
            units = len(acc)
            at = key * units
            if old >= 0:
                was = old * units
                for h in range(units):
                    acc[h] += row[at + h] - row[was + h]
            else:
                for h in range(units):
                    acc[h] += sign * row[at + h]

    def _key(self, m: int, cell: int) -> int:
        cls = self.cls[m]
        i = cell * 4
        return ((cls[i] * 9 + cls[i + 1]) * 9 + cls[i + 2]) * 9 + cls[i + 3]

    def _move(self, cell: int, mark: int, delta: int) -> None:
        grid = self.grid
        for m in (1, 2):
            step = delta * (1 if m == mark else 2)
            code, cls, line, keys, psum = self.code[m], self.cls[m], self.line[m], self.key[m], self.psum[m]
            comb, p4 = self.comb[m], self.p4[m]
            kv0, kv1 = self.kv[m]
            for e, slot, power in self.touch[cell]:
                value = code[slot] + step * power
                code[slot] = value
                new = line[value]
                if new != cls[slot]:
                    cls[slot] = new
                    key = self._key(m, e)
                    old = keys[e]
                    keys[e] = key
                    p4[e] = comb[key]
                    if not grid[e]:
                        psum[0] += kv0[key] - kv0[old]
                        psum[1] += kv1[key] - kv1[old]
                        self._units(m, key, 1, old)

    def add(self, cell: int, mark: int) -> None:
        """A stone of mark arrives on the empty cell."""
        self.before.append(
            ([row.copy() for row in self.psum], [[a.copy() for a in acc] for acc in self.nacc])
        )
        for m in (1, 2):
            key = self.key[m][cell]
            self.psum[m][0] -= self.kv[m][0][key]
            self.psum[m][1] -= self.kv[m][1][key]
            self._units(m, key, -1)
        self.grid[cell] = mark
        self._move(cell, mark, 1)

    def remove(self, cell: int, mark: int) -> None:
        """mark's stone leaves the cell (the last one that came)."""
        self._move(cell, mark, -1)
        self.grid[cell] = 0
        for m in (1, 2):
            key = self.key[m][cell]
            self.psum[m][0] += self.kv[m][0][key]
            self.psum[m][1] += self.kv[m][1][key]
            self._units(m, key, 1)
        self.before.pop()

    def value(self, me: int, windows: int) -> int:
        """engine.ai.core.evaluate's value for me, the side to move, given its window term."""
        them = 3 - me
        cells = self.psum[me][0] - self.psum[them][1] + self._net(self.nacc, me)
        if self.before:
            psum, nacc = self.before[-1]
            cells = (cells - (psum[them][0] - psum[me][1] + self._net(nacc, them))) >> 1
        return cells + ((windows * self.windows) >> 10)

    def _net(self, nacc: list[list[list[int]]], me: int) -> int:
        if not self.nkv:
            return 0
        net = 0
        for a, b, bias, out in zip(nacc[me][0], nacc[3 - me][1], self.nbias, self.nout, strict=True):
            if a + b + bias > 0:
                net += (a + b + bias) * out
        return net >> 16
