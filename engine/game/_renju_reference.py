"""A second reading of renju's forbidden moves, by brute force, to test engine.game.renju against.

It shares nothing with engine.game.renju but the result types. Where engine.game.renju reads patterns in a
window of eleven cells, this one follows the RIF definitions on the whole board, one trial stone
at a time:

- a five or an overline is the unbroken row through the stone, measured to its ends;
- a four is found by trying every empty cell of the line: one whose stone makes a row of exactly
  five through the move is a way to five, and the four is that row less the trial cell;
- a straight four is a four with two ways to five and its four stones unbroken;
- a three is found by trying every empty cell of the line again: the stone there must make a
  straight four through the move, and then that cell is judged in full (a five or a forbidden
  move there means no three).

It is slow, and it is meant to be: nothing in it is there for speed.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from .board import DIRECTIONS
from .renju import Forbidden, Shape
from .types import Cell

EMPTY = 0
BLACK = 1


class _Ruling(Enum):
    ALLOWED = "allowed"
    FIVE = "five"
    FORBIDDEN = "forbidden"


class _Board:
    """Rows of cell values, changed in place by trial stones that are always taken back."""

    def __init__(self, rows: Sequence[Sequence[int]]) -> None:
        self.cells = [list(row) for row in rows]
        self.height = len(self.cells)
        self.width = len(self.cells[0]) if self.cells else 0

    def on_board(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.height and 0 <= cell[1] < self.width

    def get(self, cell: Cell) -> int:
        return self.cells[cell[0]][cell[1]]

    def set(self, cell: Cell, value: int) -> None:
        self.cells[cell[0]][cell[1]] = value

    def line(self, cell: Cell, direction: tuple[int, int]) -> list[Cell]:
        """Every cell of the board line through `cell` along `direction`, end to end."""
        dr, dc = direction
        r, c = cell
        while self.on_board((r - dr, c - dc)):
            r, c = r - dr, c - dc
        cells: list[Cell] = []
        while self.on_board((r, c)):
            cells.append((r, c))
            r, c = r + dr, c + dc
        return cells

    def black_row(self, cell: Cell, direction: tuple[int, int]) -> frozenset[Cell]:
        """The unbroken row of black stones through the black stone on `cell`."""
        row = {cell}
        dr, dc = direction
        for sign in (1, -1):
            r, c = cell[0] + sign * dr, cell[1] + sign * dc
            while self.on_board((r, c)) and self.get((r, c)) == BLACK:
                row.add((r, c))
                r, c = r + sign * dr, c + sign * dc
        return frozenset(row)


def _ways_to_five(board: _Board, move: Cell, direction: tuple[int, int]) -> dict[frozenset[Cell], set[Cell]]:
    """Each four through the black stone on `move` along `direction`: its four stones, and the
    empty cells of the line whose stone turns it into a row of exactly five."""
    fours: dict[frozenset[Cell], set[Cell]] = {}
    for trial in board.line(move, direction):
        if board.get(trial) != EMPTY:
            continue
        board.set(trial, BLACK)
        row = board.black_row(trial, direction)
        board.set(trial, EMPTY)
        if len(row) == 5 and move in row:
            fours.setdefault(row - {trial}, set()).add(trial)
    return fours


def _unbroken(board: _Board, stones: frozenset[Cell], direction: tuple[int, int]) -> bool:
    """Whether `stones` (black, on one line) are one unbroken row."""
    return board.black_row(min(stones), direction) >= stones


def _threes(
    board: _Board, move: Cell, direction: tuple[int, int], check_points: bool = True
) -> set[frozenset[Cell]]:
    """The stones of each three through the black stone on `move` along `direction`; without
    `check_points`, every row that one stone turns into a straight four, real or not."""
    threes: set[frozenset[Cell]] = set()
    for trial in board.line(move, direction):
        if board.get(trial) != EMPTY:
            continue
        board.set(trial, BLACK)
        straight = [
            stones
            for stones, ways in _ways_to_five(board, move, direction).items()
            if trial in stones and len(ways) >= 2 and _unbroken(board, stones, direction)
        ]
        board.set(trial, EMPTY)
        if straight and (not check_points or _judge(board, trial)[0] is _Ruling.ALLOWED):
            threes.update(stones - {trial} for stones in straight)
    return threes


def _judge(board: _Board, move: Cell) -> tuple[_Ruling, Shape | None, list[frozenset[Cell]]]:
    """The ruling on a black stone on the empty cell `move`, with the shape and rows if forbidden."""
    board.set(move, BLACK)
    try:
        rows = [board.black_row(move, d) for d in DIRECTIONS]
        if any(len(row) == 5 for row in rows):
            return _Ruling.FIVE, None, []
        overlines = [row for row in rows if len(row) >= 6]
        if overlines:
            return _Ruling.FORBIDDEN, Shape.OVERLINE, overlines
        fours = [stones for d in DIRECTIONS for stones in _ways_to_five(board, move, d)]
        if len(fours) >= 2:
            return _Ruling.FORBIDDEN, Shape.DOUBLE_FOUR, fours
        threes = [stones for d in DIRECTIONS for stones in _threes(board, move, d)]
        if len(threes) >= 2:
            return _Ruling.FORBIDDEN, Shape.DOUBLE_THREE, threes
        return _Ruling.ALLOWED, None, []
    finally:
        board.set(move, EMPTY)


def reference_forbidden(rows: Sequence[Sequence[int]], cell: Cell) -> Forbidden | None:
    """Why black may not play the empty `cell` of `rows` (0 empty, 1 X, 2 O), or None."""
    board = _Board(rows)
    if not board.on_board(cell) or board.get(cell) != EMPTY:
        raise ValueError(f"{cell!r} is not an empty cell of the board")
    ruling, shape, found = _judge(board, cell)
    if ruling is not _Ruling.FORBIDDEN or shape is None:
        return None
    lines = tuple(sorted(tuple(sorted(stones)) for stones in found))
    return Forbidden(cell, shape, lines)


def reference_forbidden_points(rows: Sequence[Sequence[int]]) -> tuple[Forbidden, ...]:
    """Every empty cell of `rows` that black may not play, in (row, col) order."""
    found: list[Forbidden] = []
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            if value == EMPTY:
                result = reference_forbidden(rows, (r, c))
                if result is not None:
                    found.append(result)
    return tuple(found)


def reference_threes(
    rows: Sequence[Sequence[int]], cell: Cell, *, check_points: bool = True
) -> tuple[tuple[Cell, ...], ...]:
    """The stones of each three a black stone on the empty `cell` makes, sorted as in Forbidden.

    Without `check_points` it lists every row one more stone would turn into a straight four,
    including those whose straight-four points are forbidden or make a five: the threes a rule
    without recursion would see."""
    board = _Board(rows)
    if not board.on_board(cell) or board.get(cell) != EMPTY:
        raise ValueError(f"{cell!r} is not an empty cell of the board")
    board.set(cell, BLACK)
    found = [stones for d in DIRECTIONS for stones in _threes(board, cell, d, check_points)]
    return tuple(sorted(tuple(sorted(stones)) for stones in found))
