"""Renju's forbidden moves for black: double-three, double-four and overline.

The definitions are those of the International Rules of Renju (RIF), for black (X, the first
player) and five in a row:

- five: an unbroken row of exactly five stones. Black wins with it, and a move that makes one is
  never forbidden, whatever else it makes on other lines.
- overline: an unbroken row of six or more stones.
- four: a row of four stones to which one more stone gives a five. Fours are told apart by their
  stones: a straight four (_XXXX_) is one four with two ways to five, while X_XXX_X, XX_XX_XX and
  XXX_X_XXX made by the middle stone are two fours on one line.
- straight four: an unbroken row of four stones to which a five can be added in two ways.
- three: a row of three stones to which one more stone gives a straight four, where that stone
  is not itself forbidden and does not make a five at the same time.
- double-four, double-three: one move that makes two or more fours, or two or more threes, all
  through the cell played.

White has no forbidden moves. A move is judged in this order: a five allows it; else an overline,
then two fours, then two threes forbid it.

The check reads only the four lines through the cell, five cells each way: every shape above
that contains the cell, with the cells bounding it, fits in that span (see `_analyse`). Deciding
whether a three is real means asking the same question about its straight-four point with the
stone in place, which may ask it again about a further point; `Stones._verdict` explains why
that ends.

The questions: `forbidden(position, cell)` (why black may not play there, or None),
`is_forbidden(position, cell)` and `forbidden_points(position)`, on an engine Board or on rows
of cell values. `Stones` answers the same on a prepared copy that a search can update in place.

`engine.game._renju_reference` holds a second, brute-force reading of the same definitions that the
tests compare this one against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

from .notation import cell_name
from .types import Cell, IllegalMoveError, Mark

EMPTY = 0
BLACK = 1
# White stones and the padding beyond the edge: both end a black row and neither can be played.
BLOCK = 2

# Row/col steps of the four lines through a cell. Not imported from engine.game.board, so that the
# board can import this module when it plays renju.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))

# Cells each side of the move that decide its shapes: a four spans four cells on one side of it,
# and one more cell tells a five from an overline.
REACH = 5
WINDOW = 2 * REACH + 1


class Shape(Enum):
    """Why a black move is forbidden."""

    OVERLINE = "overline"
    DOUBLE_FOUR = "double-four"
    DOUBLE_THREE = "double-three"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class Forbidden:
    """A forbidden black move: the cell, the shape, and the stones of each row that makes it.

    `lines` holds, for an overline, each unbroken row of six or more; for a double-four, the four
    stones of each four; for a double-three, the three stones of each real three. Every row
    includes `cell` and lists its cells in (row, col) order; the rows are sorted the same way.
    """

    cell: Cell
    shape: Shape
    lines: tuple[tuple[Cell, ...], ...]

    def __str__(self) -> str:
        rows = "; ".join(" ".join(cell_name(c) for c in line) for line in self.lines)
        return f"{cell_name(self.cell)}: {self.shape} ({rows})"


class ForbiddenMoveError(IllegalMoveError):
    """Under renju, black's move is a forbidden shape (double-three, double-four or overline).

    `forbidden` names the cell, the shape and its rows; the message reads like "double-three at
    H8". Refused rather than lost: see docs/engine/renju.md."""

    def __init__(self, message: str, forbidden: Forbidden) -> None:
        super().__init__(message)
        self.forbidden = forbidden


@runtime_checkable
class BoardLike(Protocol):
    """What is read of an engine.Board: its shape, k, and row-major cells (0 empty, 1 X, 2 O)."""

    rows: int
    cols: int
    k: int

    @property
    def grid(self) -> Sequence[int]: ...


# A position: an engine Board (k must be 5), or rows of cell values (0 empty, 1 X, 2 O).
Position = BoardLike | Sequence[Sequence[int]]


# ----------------------------------------------------------------- one line through a move
@dataclass(frozen=True, slots=True)
class _LineShape:
    """What a black stone at the centre of an 11-cell line makes on that line.

    Offsets run from -REACH to REACH with the stone at 0. `threes` pairs each three's stones with
    the cells that would turn it into a straight four (one or two); whether those cells may be
    played depends on the whole board, so the caller decides which threes are real.
    """

    five: bool
    overline: bool
    fours: tuple[tuple[int, ...], ...]
    threes: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]


def _analyse(line: bytes) -> _LineShape:
    """The shapes through the centre of `line` (WINDOW cells, centre black, BLOCK off the board).

    Patterns are read as windows of the line, indices 0 to 10 with the stone at 5:
    - the unbroken row through the centre: five if exactly five long, overline if longer;
    - a four: five cells holding the centre, four black and one empty, with neither neighbour
      black, so that filling the gap gives exactly five;
    - a three: a straight four to be, `. a b c d .` with neither outer neighbour black, where
      a to d hold the centre, three black stones and one empty cell (the straight-four point).
    The widest of these, the three's, runs from one cell beyond an end to one cell beyond the
    other: at most REACH each side of the centre.
    """
    lo = hi = REACH
    while lo > 0 and line[lo - 1] == BLACK:
        lo -= 1
    while hi < WINDOW - 1 and line[hi + 1] == BLACK:
        hi += 1
    run = hi - lo + 1

    fours: list[tuple[int, ...]] = []
    for start in range(1, REACH + 1):
        cells = line[start : start + 5]
        if (
            cells.count(BLACK) == 4
            and cells.count(EMPTY) == 1
            and line[start - 1] != BLACK
            and line[start + 5] != BLACK
        ):
            stones = tuple(start + i - REACH for i in range(5) if cells[i] == BLACK)
            # A straight four shows up as two windows with the same stones: one four.
            if stones not in fours:
                fours.append(stones)

    threes: dict[tuple[int, ...], list[int]] = {}
    for start in range(1, REACH):
        inner = line[start + 1 : start + 5]
        if (
            line[start] == EMPTY
            and line[start + 5] == EMPTY
            and line[start - 1] != BLACK
            and line[start + 6] != BLACK
            and inner.count(BLACK) == 3
            and inner.count(EMPTY) == 1
        ):
            first = start + 1
            stones = tuple(first + i - REACH for i in range(4) if inner[i] == BLACK)
            point = first + inner.index(EMPTY) - REACH
            threes.setdefault(stones, []).append(point)

    return _LineShape(
        five=run == 5,
        overline=run > 5,
        fours=tuple(fours),
        threes=tuple((stones, tuple(points)) for stones, points in threes.items()),
    )


# Every line seen so far. Keys are 11 bytes of three values with the centre fixed: at most 3**10.
_SHAPES: dict[bytes, _LineShape] = {}


def _line_shape(line: bytes) -> _LineShape:
    shape = _SHAPES.get(line)
    if shape is None:
        shape = _SHAPES[line] = _analyse(line)
    return shape


# Verdicts on one black stone, inside the module: the forbidding ones are _OVERLINE and above.
_ALLOWED = 0
_FIVE = 1
_OVERLINE = 2
_DOUBLE_FOUR = 3
_DOUBLE_THREE = 4
_SHAPE_OF = {
    _OVERLINE: Shape.OVERLINE,
    _DOUBLE_FOUR: Shape.DOUBLE_FOUR,
    _DOUBLE_THREE: Shape.DOUBLE_THREE,
}


# ----------------------------------------------------------------- the position
class Stones:
    """The stones of a position, copied with a border of REACH blocked cells on every side so
    that the lines through any cell are read by one slice each, without bounds tests.

    Build one per position with `Stones.of` (or keep one and `place`/`remove` stones as a search
    moves); checks leave it as they found it.
    """

    __slots__ = ("rows", "cols", "_grid", "_width", "_steps")

    def __init__(self, rows: int, cols: int, grid: Sequence[int]) -> None:
        """Stones from a row-major sequence of rows * cols values (0 empty, 1 X, 2 O)."""
        if rows < 1 or cols < 1 or len(grid) != rows * cols:
            raise ValueError(f"expected {rows} x {cols} cell values, got {len(grid)}")
        self.rows = rows
        self.cols = cols
        width = cols + 2 * REACH
        padded = bytearray([BLOCK]) * ((rows + 2 * REACH) * width)
        for r in range(rows):
            start = (r + REACH) * width + REACH
            padded[start : start + cols] = bytes(grid[r * cols : (r + 1) * cols])
        for value in set(padded):
            if value not in (EMPTY, BLACK, BLOCK):
                raise ValueError(f"cell values are 0, 1 or 2, not {value}")
        self._grid = padded
        self._width = width
        # Index steps of the four directions.
        self._steps = tuple(dr * width + dc for dr, dc in DIRECTIONS)

    @classmethod
    def of(cls, position: Position) -> Stones:
        """Stones of a Board (whose k must be 5) or of rows of cell values."""
        if isinstance(position, BoardLike):
            if position.k != 5:
                raise ValueError(f"renju is five in a row, not k={position.k}")
            return cls(position.rows, position.cols, position.grid)
        rows = [list(row) for row in position]
        cols = len(rows[0]) if rows else 0
        if any(len(row) != cols for row in rows):
            raise ValueError("every row of the grid must have the same length")
        return cls(len(rows), cols, [value for row in rows for value in row])

    def copy(self) -> Stones:
        new = Stones.__new__(Stones)
        new.rows, new.cols, new._width, new._steps = self.rows, self.cols, self._width, self._steps
        new._grid = self._grid.copy()
        return new

    # ------------------------------------------------------------- editing
    def place(self, cell: Cell, mark: Mark) -> None:
        """Put a stone on an empty cell."""
        index = self._index(cell)
        if self._grid[index] != EMPTY:
            raise ValueError(f"{cell_name(cell)} is not empty")
        self._grid[index] = BLACK if mark == Mark.X else BLOCK

    def remove(self, cell: Cell) -> None:
        """Take a stone off its cell."""
        index = self._index(cell)
        if self._grid[index] == EMPTY:
            raise ValueError(f"{cell_name(cell)} is already empty")
        self._grid[index] = EMPTY

    # ------------------------------------------------------------- questions
    def is_forbidden(self, cell: Cell, mark: Mark = Mark.X) -> bool:
        """Whether `mark` may not play the empty `cell`: only black has forbidden moves."""
        index = self._empty_index(cell)
        return mark == Mark.X and self._verdict(index) >= _OVERLINE

    def forbidden(self, cell: Cell, mark: Mark = Mark.X) -> Forbidden | None:
        """Why `mark` may not play the empty `cell`, or None if it may."""
        index = self._empty_index(cell)
        if mark != Mark.X:
            return None
        verdict = self._verdict(index)
        if verdict < _OVERLINE:
            return None
        return Forbidden(cell, _SHAPE_OF[verdict], self._lines(index, verdict))

    def forbidden_points(self, mark: Mark = Mark.X) -> tuple[Forbidden, ...]:
        """Every empty cell `mark` may not play, in (row, col) order."""
        if mark != Mark.X:
            return ()
        found: list[Forbidden] = []
        for row in range(self.rows):
            for col in range(self.cols):
                index = self._index((row, col))
                if self._grid[index] == EMPTY:
                    verdict = self._verdict(index)
                    if verdict >= _OVERLINE:
                        lines = self._lines(index, verdict)
                        found.append(Forbidden((row, col), _SHAPE_OF[verdict], lines))
        return tuple(found)

    # ------------------------------------------------------------- inside
    def _index(self, cell: Cell) -> int:
        row, col = cell
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise ValueError(f"{cell!r} is off the {self.rows}x{self.cols} board")
        return (row + REACH) * self._width + col + REACH

    def _empty_index(self, cell: Cell) -> int:
        index = self._index(cell)
        if self._grid[index] != EMPTY:
            raise ValueError(f"{cell_name(cell)} is not empty")
        return index

    def _cell(self, index: int) -> Cell:
        row, col = divmod(index, self._width)
        return row - REACH, col - REACH

    def _shapes(self, index: int) -> list[_LineShape]:
        """The shapes a black stone at `index` makes on its four lines (the stone in place)."""
        grid = self._grid
        return [
            _line_shape(bytes(grid[index - REACH * step : index + REACH * step + 1 : step]))
            for step in self._steps
        ]

    def _verdict(self, index: int) -> int:
        """Five, allowed or the forbidding shape, for a black stone on the empty cell `index`.

        A three is real when one of its straight-four points gets the verdict "allowed" with
        this stone in place, so this calls itself on that point. It ends: each nested call has
        one black stone more on the board than its caller and none fewer, and it only nests
        through an empty cell, so a chain of calls is never longer than the number of empty
        cells. It stays short in practice: a nested call is made only where the stone makes two
        threes at once, and each level needs two more threes through the newest stone.
        """
        grid = self._grid
        grid[index] = BLACK
        try:
            shapes = self._shapes(index)
            if any(shape.five for shape in shapes):
                return _FIVE
            if any(shape.overline for shape in shapes):
                return _OVERLINE
            if sum(len(shape.fours) for shape in shapes) >= 2:
                return _DOUBLE_FOUR
            candidates = [
                (step, stones_points)
                for step, shape in zip(self._steps, shapes, strict=True)
                for stones_points in shape.threes
            ]
            if len(candidates) < 2:
                return _ALLOWED
            real = 0
            for n, (step, (_, points)) in enumerate(candidates):
                if self._makes_straight_four(index, step, points):
                    real += 1
                    if real == 2:
                        return _DOUBLE_THREE
                elif real + len(candidates) - n - 1 < 2:
                    break
            return _ALLOWED
        finally:
            grid[index] = EMPTY

    def _makes_straight_four(self, index: int, step: int, points: tuple[int, ...]) -> bool:
        """Whether one of a three's straight-four points may be played (the three is real)."""
        return any(self._verdict(index + offset * step) == _ALLOWED for offset in points)

    def _lines(self, index: int, verdict: int) -> tuple[tuple[Cell, ...], ...]:
        """The rows behind a forbidding verdict on the empty cell `index`."""
        grid = self._grid
        grid[index] = BLACK
        try:
            shapes = self._shapes(index)
            rows: list[tuple[int, ...]] = []
            for step, shape in zip(self._steps, shapes, strict=True):
                if verdict == _OVERLINE and shape.overline:
                    rows.append(self._unbroken_row(index, step))
                elif verdict == _DOUBLE_FOUR:
                    rows += [tuple(index + o * step for o in stones) for stones in shape.fours]
                elif verdict == _DOUBLE_THREE:
                    rows += [
                        tuple(index + o * step for o in stones)
                        for stones, points in shape.threes
                        if self._makes_straight_four(index, step, points)
                    ]
        finally:
            grid[index] = EMPTY
        return tuple(sorted(tuple(sorted(self._cell(i) for i in row)) for row in rows))

    def _unbroken_row(self, index: int, step: int) -> tuple[int, ...]:
        """The whole unbroken black row through `index` along `step`, which may pass REACH."""
        grid = self._grid
        lo = hi = index
        while grid[lo - step] == BLACK:
            lo -= step
        while grid[hi + step] == BLACK:
            hi += step
        return tuple(range(lo, hi + step, step))


# ----------------------------------------------------------------- the module's questions
def forbidden(position: Position, cell: Cell, mark: Mark = Mark.X) -> Forbidden | None:
    """Why `mark` may not play the empty `cell` of `position` under renju, or None if it may."""
    return Stones.of(position).forbidden(cell, mark)


def is_forbidden(position: Position, cell: Cell, mark: Mark = Mark.X) -> bool:
    """Whether `mark` may not play the empty `cell` of `position` under renju."""
    return Stones.of(position).is_forbidden(cell, mark)


def forbidden_points(position: Position, mark: Mark = Mark.X) -> tuple[Forbidden, ...]:
    """Every empty cell of `position` that `mark` may not play under renju, in (row, col) order.

    Always empty for white."""
    return Stones.of(position).forbidden_points(mark)
