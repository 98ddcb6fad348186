"""A board wrapped with the incremental bookkeeping the AI needs on every node.

Every segment of k cells in a row ("window") keeps its count of X and O stones; from those counts
come the static evaluation (kept as a running sum), the cells that win at once ("fours": windows
one stone short of k with no opponent stone) and the cells that make such a four ("threes").
The Board stays the source of truth for results: wins under EXACT and CARO are checked against
the real rule, because a window one stone short may still be an overline or blocked at both ends.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import cast

from ..game.board import DIRECTIONS, Board, winning_line
from ..game.types import Rule
from .patterns import K, PatternBoard

# A window holding `c` stones of one side and none of the other is worth VALUE_BASE**c to that
# side; the steep base makes one longer line outweigh many short ones, as it does in play.
VALUE_BASE = 8
NEAR_RADIUS = 2  # candidate moves are empty cells at most this far (king moves) from a stone
# Boards up to this many cells consider every empty cell, so a full-width search there is exact.
EVERY_CELL_UP_TO = 30


@dataclass(frozen=True, slots=True)
class Tables:
    """Geometry of one (rows, cols, k): which cells each window holds and the reverse."""

    window_cells: tuple[tuple[int, ...], ...]
    cell_windows: tuple[tuple[int, ...], ...]
    near: tuple[tuple[int, ...], ...]  # cells within NEAR_RADIUS of each cell, itself excluded
    worth: tuple[int, ...]  # index c: worth of a live window holding c stones to their owner
    gain: tuple[int, ...]  # index c: what one more stone adds to a live window holding c


@lru_cache(maxsize=64)
def tables(rows: int, cols: int, k: int) -> Tables:
    windows: list[tuple[int, ...]] = []
    for dr, dc in DIRECTIONS:
        for r in range(rows):
            for c in range(cols):
                end_r, end_c = r + (k - 1) * dr, c + (k - 1) * dc
                if 0 <= end_r < rows and 0 <= end_c < cols:
                    windows.append(tuple((r + i * dr) * cols + c + i * dc for i in range(k)))
    per_cell: list[list[int]] = [[] for _ in range(rows * cols)]
    for w, cells in enumerate(windows):
        for cell in cells:
            per_cell[cell].append(w)
    near = []
    for r in range(rows):
        for c in range(cols):
            near.append(
                tuple(
                    rr * cols + cc
                    for rr in range(max(0, r - NEAR_RADIUS), min(rows, r + NEAR_RADIUS + 1))
                    for cc in range(max(0, c - NEAR_RADIUS), min(cols, c + NEAR_RADIUS + 1))
                    if (rr, cc) != (r, c)
                )
            )
    worth = [VALUE_BASE**c if c else 0 for c in range(k + 1)]
    # gain[k] = 0 closes the table: a full window has nothing more to gain.
    gain = tuple([*(worth[c + 1] - worth[c] for c in range(k)), 0])
    return Tables(
        tuple(windows), tuple(tuple(ws) for ws in per_cell), tuple(near), tuple(worth), gain
    )


class Position:
    """A private copy of a board plus window counts, kept in step by push/pop (flat indices)."""

    __slots__ = (
        "board",
        "grid",
        "rows",
        "cols",
        "k",
        "rule",
        "size",
        "count",
        "live",
        "near",
        "sums",
        "window_cells",
        "cell_windows",
        "near_cells",
        "worth",
        "gain",
        "attack",
        "tracked",
        "stones",
        "pboard",
    )

    def __init__(self, board: Board, patterns: bool = False) -> None:
        self.board = board.copy()
        # The live list: it changes as self.board is pushed and popped.
        self.grid = cast(list[int], self.board.grid)
        self.rows, self.cols, self.k, self.rule = board.rows, board.cols, board.k, board.rule
        self.size = board.rows * board.cols
        # Renju's stones, kept in step by the board's push and pop: black's forbidden points.
        self.stones = self.board.renju_stones
        t = tables(board.rows, board.cols, board.k)
        self.window_cells, self.cell_windows, self.near_cells = (
            t.window_cells,
            t.cell_windows,
            t.near,
        )
        self.worth, self.gain = t.worth, t.gain
        n_windows = len(t.window_cells)
        # count[mark][w]: stones of that mark in window w (index 0 unused so marks index directly).
        self.count: tuple[list[int], list[int], list[int]] = ([], [0] * n_windows, [0] * n_windows)
        # live[mark][c]: windows with c stones of mark and none of the other, for c in k-1, k-2.
        self.live: tuple[list[set[int]], ...] = tuple(
            [set() for _ in range(self.k + 1)] for _ in range(3)
        )
        # attack[mark][cell]: what a stone of mark on cell adds to its live windows, kept up to
        # date so that ordering moves costs a lookup per cell instead of a walk over windows.
        self.attack: tuple[list[int], list[int], list[int]] = (
            [],
            [t.gain[0] * len(ws) for ws in t.cell_windows],
            [t.gain[0] * len(ws) for ws in t.cell_windows],
        )
        # tracked[c]: whether live windows holding c stones are kept in self.live.
        self.tracked = tuple(c in (self.k - 1, self.k - 2) for c in range(self.k + 1))
        self.near = [0] * self.size
        # sums[mark]: total worth of mark's live windows (index 0 unused).
        self.sums = [0, 0, 0]
        for mark in (1, 2):
            if self.k - 2 == 0 or self.k - 1 == 0:
                self.live[mark][0].update(range(n_windows))
        # With patterns (impossible's fallback on five-in-a-row boards) the position is valued as
        # the compiled core values it: by its cell patterns (engine.ai.patterns).
        self.pboard: PatternBoard | None = None
        if patterns and self.k == K and self.size > EVERY_CELL_UP_TO:
            self.pboard = PatternBoard(self.rows, self.cols, self.rule)
        # In the order they were played: the pattern board's value reads the one before the last.
        for row, col in self.board.moves:
            index = row * self.cols + col
            self._add(index, self.grid[index])

    # ------------------------------------------------------------------ bookkeeping
    def _add(self, index: int, mark: int) -> None:
        other = 3 - mark
        mine, theirs = self.count[mark], self.count[other]
        live_mine, live_theirs = self.live[mark], self.live[other]
        att_mine, att_theirs = self.attack[mark], self.attack[other]
        window_cells, gain = self.window_cells, self.gain
        tracked = self.tracked
        worth = self.worth
        grown = 0
        lost = 0
        for w in self.cell_windows[index]:
            a = mine[w]
            b = theirs[w]
            mine[w] = a + 1
            if b == 0:
                grown += gain[a]
                if tracked[a]:
                    live_mine[a].discard(w)
                if tracked[a + 1]:
                    live_mine[a + 1].add(w)
                d = gain[a + 1] - gain[a]
                for cell in window_cells[w]:
                    att_mine[cell] += d
            if a == 0:
                lost += worth[b]
                if tracked[b]:
                    live_theirs[b].discard(w)
                d = gain[b]
                for cell in window_cells[w]:
                    att_theirs[cell] -= d
        self.sums[mark] += grown
        self.sums[other] -= lost
        near = self.near
        for cell in self.near_cells[index]:
            near[cell] += 1
        if self.pboard is not None:
            self.pboard.add(index, mark)

    def _remove(self, index: int, mark: int) -> None:
        other = 3 - mark
        mine, theirs = self.count[mark], self.count[other]
        live_mine, live_theirs = self.live[mark], self.live[other]
        att_mine, att_theirs = self.attack[mark], self.attack[other]
        window_cells, gain = self.window_cells, self.gain
        tracked = self.tracked
        worth = self.worth
        shrunk = 0
        regained = 0
        for w in self.cell_windows[index]:
            a = mine[w]
            b = theirs[w]
            mine[w] = a - 1
            if b == 0:
                shrunk += gain[a - 1]
                if tracked[a]:
                    live_mine[a].discard(w)
                if tracked[a - 1]:
                    live_mine[a - 1].add(w)
                d = gain[a - 1] - gain[a]
                for cell in window_cells[w]:
                    att_mine[cell] += d
            if a == 1:
                regained += worth[b]
                if tracked[b]:
                    live_theirs[b].add(w)
                d = gain[b]
                for cell in window_cells[w]:
                    att_theirs[cell] += d
        self.sums[mark] -= shrunk
        self.sums[other] += regained
        near = self.near
        for cell in self.near_cells[index]:
            near[cell] -= 1
        if self.pboard is not None:
            self.pboard.remove(index, mark)

    # ------------------------------------------------------------------ moves
    @property
    def turn(self) -> int:
        return 1 if self.board.ply % 2 == 0 else 2

    def push(self, index: int) -> None:
        mark = 1 if self.board.ply % 2 == 0 else 2
        self.board.push(divmod(index, self.cols))
        self._add(index, mark)

    def pop(self) -> None:
        mark = 2 if self.board.ply % 2 == 0 else 1
        row, col = self.board.pop()
        self._remove(row * self.cols + col, mark)

    # ------------------------------------------------------------------ reading
    def forbidden(self, index: int, mark: int) -> bool:
        """Whether `mark` may not play the empty cell `index`: black's renju shapes."""
        stones = self.stones
        return stones is not None and mark == 1 and stones.is_forbidden(divmod(index, self.cols))

    def allowed(self, cells: list[int], mark: int) -> list[int]:
        """`cells` less those `mark` may not play (only black's, only under renju)."""
        stones = self.stones
        if stones is None or mark != 1:
            return cells
        cols = self.cols
        return [c for c in cells if not stones.is_forbidden(divmod(c, cols))]

    def wins_at(self, index: int, mark: int) -> bool:
        """Would `mark` win by playing the empty cell `index` (whoever is to move)?"""
        row, col = divmod(index, self.cols)
        line = winning_line(self.grid, self.rows, self.cols, self.k, self.rule, row, col, mark)
        return line is not None

    def win_cells(self, mark: int) -> list[int]:
        """Empty cells where `mark` would complete a winning line, in ascending order."""
        k = self.k
        if k == 1:
            return [i for i, v in enumerate(self.grid) if not v]
        grid = self.grid
        cells: set[int] = set()
        window_cells = self.window_cells
        for w in self.live[mark][k - 1]:
            for cell in window_cells[w]:
                if not grid[cell]:
                    cells.add(cell)
                    break
        if self.rule is not Rule.FREESTYLE:
            cells = {c for c in cells if self.wins_at(c, mark)}
        return sorted(cells)

    def blocks(self, mark: int, wins: list[int] | None = None) -> list[int]:
        """Cells where the opponent of `mark` can play to stop `mark` winning next move.

        Usually just the winning cells themselves (when there are two or more, none stops them
        all and the caller finds the loss). Under CARO a stone just past either end of the line
        can also stop it, by leaving the k stones blocked at both ends.
        """
        if wins is None:
            wins = self.win_cells(mark)
        if self.stones is not None:
            # Renju: black may not block on a forbidden point, so a four whose only block is
            # one wins for white. Empty then: no block at all.
            return self.allowed(wins, 3 - mark)
        if self.rule is not Rule.CARO or not wins:
            return wins
        rows, cols, k, grid = self.rows, self.cols, self.k, self.grid
        other = 3 - mark
        found = set(wins)
        for index in wins:
            row, col = divmod(index, cols)
            for dr, dc in DIRECTIONS:
                for sign in (1, -1):
                    for step in range(1, k + 1):
                        r, c = row + sign * step * dr, col + sign * step * dc
                        if not (0 <= r < rows and 0 <= c < cols):
                            break
                        cell = r * cols + c
                        if grid[cell] != mark:
                            if not grid[cell]:
                                found.add(cell)
                            break
        out = []
        for cell in sorted(found):
            grid[cell] = other  # a throwaway stone: only the rule check below reads it
            if not any(self.wins_at(w, mark) for w in wins if w != cell):
                out.append(cell)
            grid[cell] = 0
        return out or wins

    def wins_after(self, cell: int, mark: int) -> set[int]:
        """The cells where `mark` would win next if it had a stone on the empty `cell` now."""
        k, grid = self.k, self.grid
        mine, theirs = self.count[mark], self.count[3 - mark]
        window_cells = self.window_cells
        found = set(self.win_cells(mark))
        found.discard(cell)
        for w in self.cell_windows[cell]:
            if theirs[w] == 0 and mine[w] == k - 2:
                for other in window_cells[w]:
                    if not grid[other] and other != cell:
                        found.add(other)
        grid[cell] = mark  # a throwaway stone, taken back before returning
        try:
            if self.rule is not Rule.FREESTYLE or k == 1:
                found = {c for c in found if not grid[c] and self.wins_at(c, mark)}
        finally:
            grid[cell] = 0
        return found

    def four_moves(self, mark: int) -> list[int]:
        """Empty cells where `mark` would make a line one stone short of k (a "four"), less
        black's forbidden points under renju."""
        k = self.k
        if k < 2:
            return []
        grid = self.grid
        cells: set[int] = set()
        window_cells = self.window_cells
        for w in self.live[mark][k - 2]:
            for cell in window_cells[w]:
                if not grid[cell]:
                    cells.add(cell)
        return self.allowed(sorted(cells), mark)

    def candidates(self) -> list[int]:
        """Empty cells near a stone; every empty cell on small boards or with no stone yet.
        Under renju black's forbidden points are left out: they cannot be played."""
        grid, near = self.grid, self.near
        if self.size <= EVERY_CELL_UP_TO:
            found = [i for i in range(self.size) if not grid[i]]
        else:
            found = [i for i in range(self.size) if near[i] and not grid[i]]
            if not found:
                found = [i for i in range(self.size) if not grid[i]]
        return self.allowed(found, self.turn)

    def move_scores(self, cells: list[int], mark: int) -> list[int]:
        """Quick worth of playing each cell for `mark`: its own lines grown plus the opponent's cut."""
        mine, theirs = self.attack[mark], self.attack[3 - mark]
        # Cutting a line is worth a bit less than growing one of the same length: the mover is
        # a tempo ahead.
        return [mine[c] + (theirs[c] * 7 >> 3) for c in cells]

    def evaluate(self) -> int:
        """Static worth for the side to move."""
        me = 1 if self.board.ply % 2 == 0 else 2
        mine, theirs = self.sums[me], self.sums[3 - me]
        if self.pboard is not None:
            return self.pboard.value(me, mine * 9 // 8 - theirs)
        return mine - theirs
