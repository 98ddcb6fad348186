"""The m,n,k board: stones, turn, move stack and the one source of truth for results."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from .notation import MAX_SIDE, cell_name, column_letter, parse_cell, parse_size
from .renju import Forbidden, ForbiddenMoveError, Stones
from .types import (
    Cell,
    IllegalMoveError,
    InvalidMoveError,
    Mark,
    Outcome,
    Rule,
    quoted,
)

# Row/col steps of the four line directions: horizontal, vertical, both diagonals.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))

EMPTY = 0


def winning_line(
    grid: Sequence[int], rows: int, cols: int, k: int, rule: Rule, row: int, col: int, mark: int
) -> tuple[Cell, ...] | None:
    """The line `mark` wins with by a stone on (row, col) under `rule`, or None.

    The cell itself is not read, so search code can ask about an empty cell as well as the one
    just played; the scan reaches at most k (k + 1 for the exact rules) stones either way: O(k).
    """
    if rule is Rule.RENJU:
        rule = Rule.EXACT if mark == 1 else Rule.FREESTYLE
    other = 3 - mark
    # Freestyle needs to know only "at least k"; the exact rules need one stone beyond.
    reach = k if rule is Rule.FREESTYLE else k + 1
    for dr, dc in DIRECTIONS:
        back = 0
        r, c = row - dr, col - dc
        while back < reach and 0 <= r < rows and 0 <= c < cols and grid[r * cols + c] == mark:
            back += 1
            r -= dr
            c -= dc
        start_blocked = 0 <= r < rows and 0 <= c < cols and grid[r * cols + c] == other
        fwd = 0
        r, c = row + dr, col + dc
        while fwd < reach and 0 <= r < rows and 0 <= c < cols and grid[r * cols + c] == mark:
            fwd += 1
            r += dr
            c += dc
        end_blocked = 0 <= r < rows and 0 <= c < cols and grid[r * cols + c] == other
        run = back + 1 + fwd
        if run < k:
            continue
        if rule is not Rule.FREESTYLE and (
            run != k or (rule is Rule.CARO and start_blocked and end_blocked)
        ):
            continue
        return tuple((row + i * dr, col + i * dc) for i in range(-back, fwd + 1))
    return None

_SIZE_RE = re.compile(r"([0-9]+)[xX]([0-9]+)")
_K_RE = re.compile(r"[kK][0-9]+")


@lru_cache(maxsize=64)
def zobrist_keys(rows: int, cols: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Random 64-bit keys per (mark, cell), fixed per board shape so hashes are reproducible."""
    size = rows * cols
    rng = random.Random(f"caro-zobrist-{rows}x{cols}")
    empty = tuple(0 for _ in range(size))
    x_keys = tuple(rng.getrandbits(64) for _ in range(size))
    o_keys = tuple(rng.getrandbits(64) for _ in range(size))
    return empty, x_keys, o_keys


class LegalMoves:
    """A lazy view of the empty cells while the game is on; empty once it is over."""

    __slots__ = ("_board",)

    def __init__(self, board: Board) -> None:
        self._board = board

    def __iter__(self) -> Iterator[Cell]:
        b = self._board
        if b.is_over():
            return
        cols = b.cols
        # Under renju black's forbidden points are not legal: the board refuses them.
        renju = b.rule is Rule.RENJU and b.turn is Mark.X
        for index, value in enumerate(b.grid):
            if value == EMPTY:
                cell = divmod(index, cols)
                if not (renju and b.is_forbidden(cell)):
                    yield cell

    def __len__(self) -> int:
        b = self._board
        if b.is_over():
            return 0
        empty = b.rows * b.cols - b.ply
        if b.rule is Rule.RENJU and b.turn is Mark.X:
            return empty - len(b.forbidden_points())
        return empty

    def __contains__(self, cell: object) -> bool:
        b = self._board
        if b.is_over() or not isinstance(cell, tuple) or len(cell) != 2:
            return False
        row, col = cell
        if not (isinstance(row, int) and isinstance(col, int)):
            return False
        return (
            0 <= row < b.rows
            and 0 <= col < b.cols
            and b.grid[row * b.cols + col] == EMPTY
            and not b.is_forbidden((row, col))
        )

    def __bool__(self) -> bool:
        if self._board.rule is Rule.RENJU:
            return next(iter(self), None) is not None
        return len(self) > 0

    def __repr__(self) -> str:
        names = ", ".join(self._board.move_name(c) for c in self)
        return f"<LegalMoves ({names})>"


class Board:
    """An m,n,k game in progress. X always moves first; cells are 0-based (row, col).

    State is kept incrementally (grid, move stack, Zobrist hash, outcome) so that push/pop are
    cheap enough for search; the result is found from the last move only, in O(k).
    """

    __slots__ = (
        "rows",
        "cols",
        "k",
        "rule",
        "_grid",
        "_moves",
        "_outcome",
        "_hash",
        "_keys",
        "_stones",
    )

    def __init__(self, rows: int = 3, cols: int = 3, k: int = 3, rule: Rule = Rule.FREESTYLE) -> None:
        for name, side in (("rows", rows), ("cols", cols)):
            if not isinstance(side, int) or isinstance(side, bool) or not 1 <= side <= MAX_SIDE:
                raise ValueError(f"{name} must be a whole number from 1 to {MAX_SIDE}, not {quoted(side)}")
        longest = max(rows, cols)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= longest:
            raise ValueError(f"k must be from 1 to {longest} on a {rows}x{cols} board, not {quoted(k)}")
        if not isinstance(rule, Rule):
            rule = Rule.parse(str(rule))
        if rule is Rule.RENJU and k != 5:
            raise ValueError(f"renju is five in a row: k must be 5, not {k}")
        self.rows = rows
        self.cols = cols
        self.k = k
        self.rule = rule
        self._grid: list[int] = [EMPTY] * (rows * cols)
        self._moves: list[int] = []
        self._outcome: Outcome | None = None
        self._hash = 0
        self._keys = zobrist_keys(rows, cols)
        # Renju's copy of the stones, kept in step by push and pop, for the forbidden-move check.
        self._stones = Stones(rows, cols, self._grid) if rule is Rule.RENJU else None

    # ----------------------------------------------------------------- reading the position
    @property
    def turn(self) -> Mark:
        return Mark.X if len(self._moves) % 2 == 0 else Mark.O

    @property
    def moves(self) -> tuple[Cell, ...]:
        cols = self.cols
        return tuple(divmod(i, cols) for i in self._moves)

    @property
    def last_move(self) -> Cell | None:
        return divmod(self._moves[-1], self.cols) if self._moves else None

    @property
    def ply(self) -> int:
        """Number of stones on the board."""
        return len(self._moves)

    @property
    def grid(self) -> Sequence[int]:
        """Row-major cell values (0 empty, 1 X, 2 O). Read-only: for search code's hot loops."""
        return self._grid

    @property
    def zobrist(self) -> int:
        """Hash of the stones on the board (turn follows from the stone count)."""
        return self._hash

    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self)

    def __getitem__(self, cell: Cell) -> Mark | None:
        row, col = cell
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IndexError(f"{quoted(cell)} is off the {self.rows}x{self.cols} board")
        value = self._grid[row * self.cols + col]
        return Mark(value) if value else None

    def outcome(self) -> Outcome | None:
        """None while the game goes on; otherwise who won (None for a draw) and the winning line."""
        return self._outcome

    def is_over(self) -> bool:
        return self._outcome is not None

    # ----------------------------------------------------------------- making and taking back moves
    def push(self, cell: Cell) -> None:
        """Play `cell` for the side to move. IllegalMoveError if it cannot be played."""
        if self._outcome is not None:
            raise IllegalMoveError("the game is over")
        try:
            row, col = cell
        except (TypeError, ValueError):
            raise IllegalMoveError(f"{quoted(cell)} is not a (row, col) cell") from None
        if not (isinstance(row, int) and isinstance(col, int)):
            raise IllegalMoveError(f"{quoted(cell)} is not a (row, col) cell")
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise IllegalMoveError(f"{quoted(cell)} is off the {self.rows}x{self.cols} board")
        index = row * self.cols + col
        if self._grid[index] != EMPTY:
            raise IllegalMoveError(f"{cell_name(cell)} is already taken")
        mark = Mark.X if len(self._moves) % 2 == 0 else Mark.O
        stones = self._stones
        if stones is not None:
            # Refused rather than lost: a forbidden point is shown and named to the player, and
            # an engine never plays one. A five is never forbidden (it is checked first).
            if mark is Mark.X:
                forbidden = stones.forbidden(cell)
                if forbidden is not None:
                    raise ForbiddenMoveError(
                        f"{forbidden.shape} at {cell_name(cell)}: black may not play it under renju",
                        forbidden,
                    )
            stones.place(cell, mark)
        self._grid[index] = mark
        self._moves.append(index)
        self._hash ^= self._keys[mark][index]
        line = self._winning_line(row, col, mark)
        if line is not None:
            self._outcome = Outcome(winner=mark, line=line)
        elif len(self._moves) == len(self._grid) or (
            # Under renju black, to move, may play none of the empty cells: the board is as
            # full as it can be for black, and the game is drawn as a full board is.
            stones is not None and mark is Mark.O and not self.legal_moves
        ):
            self._outcome = Outcome(winner=None, line=())

    def pop(self) -> Cell:
        """Take back the last move and return its cell. IndexError on an empty board."""
        if not self._moves:
            raise IndexError("no move to take back")
        index = self._moves.pop()
        mark = self._grid[index]
        self._grid[index] = EMPTY
        if self._stones is not None:
            self._stones.remove(divmod(index, self.cols))
        self._hash ^= self._keys[mark][index]
        # push refuses moves after the end, so the position before any move was still open.
        self._outcome = None
        return divmod(index, self.cols)

    def push_name(self, text: str) -> Cell:
        """Parse and play a move written like "H8"; returns the cell."""
        cell = self.parse_move(text)
        self.push(cell)
        return cell

    # ----------------------------------------------------------------- rules
    @property
    def renju_stones(self) -> Stones | None:
        """Under renju, the board's own engine.game.renju.Stones, kept in step by push and pop (for
        search code to ask about black's forbidden points without a copy); None otherwise.
        Read only: changing it would break the board's checks."""
        return self._stones

    def forbidden(self, cell: Cell) -> Forbidden | None:
        """Under renju, why the side to move may not play the empty `cell` (only black is ever
        refused), or None; always None under the other rules."""
        stones = self._stones
        if stones is None or len(self._moves) % 2 or self._outcome is not None:
            return None
        return stones.forbidden(cell)

    def is_forbidden(self, cell: Cell) -> bool:
        """Whether the side to move may not play the empty `cell` for the renju shapes."""
        stones = self._stones
        if stones is None or len(self._moves) % 2 or self._outcome is not None:
            return False
        return stones.is_forbidden(cell)

    def forbidden_points(self) -> tuple[Forbidden, ...]:
        """Every empty cell the side to move may not play under renju, in (row, col) order."""
        stones = self._stones
        if stones is None or len(self._moves) % 2 or self._outcome is not None:
            return ()
        return stones.forbidden_points()

    def _winning_line(self, row: int, col: int, mark: int) -> tuple[Cell, ...] | None:
        return winning_line(self._grid, self.rows, self.cols, self.k, self.rule, row, col, mark)

    # ----------------------------------------------------------------- notation and text form
    def parse_move(self, text: str) -> Cell:
        """Cell named by text like "H8" (case-insensitive). InvalidMoveError if it names none."""
        return parse_cell(text, self.rows, self.cols)

    def move_name(self, cell: Cell) -> str:
        row, col = cell
        if not (0 <= row < self.rows and 0 <= col < self.cols):
            raise InvalidMoveError(f"{quoted(cell)} is off the {self.rows}x{self.cols} board")
        return cell_name(cell)

    @property
    def spec(self) -> str:
        """Board size, k and rule, e.g. "15x15 k5 caro"."""
        return f"{self.rows}x{self.cols} k{self.k} {self.rule.value}"

    def text(self) -> str:
        """Spec then moves, e.g. "3x3 k3 freestyle B2 A1"; Board.from_text reads it back."""
        names = [cell_name(divmod(i, self.cols)) for i in self._moves]
        return " ".join([self.spec, *names])

    @classmethod
    def from_text(cls, text: str) -> Board:
        parts = text.split() if isinstance(text, str) else []
        if len(parts) < 3:
            raise ValueError(f"expected 'ROWSxCOLS kK RULE moves...', got {quoted(text)}")
        size, k_part, rule_part, *names = parts
        if _SIZE_RE.fullmatch(size) is None:
            raise ValueError(f"bad board size {quoted(size)}: write it like 15x15")
        if _K_RE.fullmatch(k_part) is None:
            raise ValueError(f"bad k {quoted(k_part)}: write it like k5")
        rows, cols, k = parse_size(size + k_part).with_k()
        board = cls(rows, cols, k, Rule.parse(rule_part))
        for name in names:
            board.push_name(name)
        return board

    # ----------------------------------------------------------------- copying and comparing
    def copy(self) -> Board:
        new = Board.__new__(Board)
        new.rows, new.cols, new.k, new.rule = self.rows, self.cols, self.k, self.rule
        new._grid = self._grid.copy()
        new._moves = self._moves.copy()
        new._outcome = self._outcome
        new._hash = self._hash
        new._keys = self._keys
        new._stones = None if self._stones is None else self._stones.copy()
        return new

    def __eq__(self, other: object) -> bool:
        """Same board spec and the same moves in the same order."""
        if not isinstance(other, Board):
            return NotImplemented
        return (
            (self.rows, self.cols, self.k, self.rule) == (other.rows, other.cols, other.k, other.rule)
            and self._moves == other._moves
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __reduce__(self) -> tuple[object, ...]:
        # Pickles as its text form: compact, and it re-validates on the other side (process pools).
        return (Board.from_text, (self.text(),))

    def __repr__(self) -> str:
        return f"Board({self.text()!r})"

    def __str__(self) -> str:
        """The board drawn with coordinates, '.' for empty cells."""
        width = len(str(self.rows))
        header = " " * (width + 1) + " ".join(column_letter(c) for c in range(self.cols))
        lines = [header]
        symbols = {EMPTY: ".", Mark.X: "X", Mark.O: "O"}
        for r in range(self.rows):
            row = self._grid[r * self.cols : (r + 1) * self.cols]
            lines.append(f"{r + 1:>{width}} " + " ".join(symbols[v] for v in row))
        return "\n".join(lines)
