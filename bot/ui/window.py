"""The pan window: the few cells of a big board that get buttons, kept near the area of play.

Discord gives a message at most 5 action rows of 5 buttons. A board larger than that is shown as an
image, and only a window of it gets cell buttons: 4 rows x 5 columns by default, leaving the fifth
action row for the controls (pan arrows, "type a move", resign). The window is pure data so it can
travel inside a button's custom_id (`encode`/`decode`) and survive a restart of the bot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

from engine import Board
from engine.game.notation import MAX_SIDE

Cell = tuple[int, int]
Direction = Literal["up", "down", "left", "right"]

DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")
MAX_ROWS = 5  # Discord: 5 action rows per message
MAX_COLS = 5  # Discord: 5 buttons per action row
DEFAULT_ROWS = 4  # one action row stays free for the controls
DEFAULT_COLS = 5

_STEPS: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}
# No leading zeros and no sign, so each window has exactly one encoding.
_NUM = r"(0|[1-9][0-9]?)"
_ENCODED = re.compile(rf"w{_NUM}\.{_NUM}(?:\.([1-5])x([1-5]))?")


class WindowError(ValueError):
    """A window that cannot exist: garbage from a custom_id, a bad shape or direction."""


class Shape(Protocol):
    """Anything with a board's dimensions (an engine Board qualifies)."""

    @property
    def rows(self) -> int: ...

    @property
    def cols(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Window:
    """A rectangle of cells: rows top..top+rows-1, columns left..left+cols-1 (0-based)."""

    top: int
    left: int
    rows: int = DEFAULT_ROWS
    cols: int = DEFAULT_COLS

    def __post_init__(self) -> None:
        for name in ("top", "left", "rows", "cols"):
            value = getattr(self, name)
            # bool is an int subclass; True as a coordinate is a bug, not a 1.
            if not isinstance(value, int) or isinstance(value, bool):
                raise WindowError(f"window {name} must be a whole number, not {value!r}")
        _check_shape(self.rows, self.cols)
        if not (0 <= self.top < MAX_SIDE and 0 <= self.left < MAX_SIDE):
            raise WindowError(f"window corner ({self.top}, {self.left}) is off every board")

    @property
    def bottom(self) -> int:
        """One past the last row, like a slice end."""
        return self.top + self.rows

    @property
    def right(self) -> int:
        """One past the last column, like a slice end."""
        return self.left + self.cols

    def __contains__(self, cell: object) -> bool:
        if not isinstance(cell, tuple) or len(cell) != 2:
            return False
        row, col = cell
        return (
            isinstance(row, int)
            and isinstance(col, int)
            and self.top <= row < self.bottom
            and self.left <= col < self.right
        )

    def cells(self) -> list[Cell]:
        """The window's cells, row-major: the order buttons are added to a message."""
        return [(r, c) for r in range(self.top, self.bottom) for c in range(self.left, self.right)]

    def grid(self) -> list[list[Cell]]:
        """The cells grouped by row: one list per action row of buttons."""
        return [
            [(r, c) for c in range(self.left, self.right)] for r in range(self.top, self.bottom)
        ]

    def fits(self, board_rows: int, board_cols: int) -> bool:
        return self.bottom <= board_rows and self.right <= board_cols

    def clamp(self, board_rows: int, board_cols: int) -> Window:
        """This window moved (and shrunk if the board is smaller) to lie inside the board."""
        _check_board(board_rows, board_cols)
        rows, cols = min(self.rows, board_rows), min(self.cols, board_cols)
        top = min(max(self.top, 0), board_rows - rows)
        left = min(max(self.left, 0), board_cols - cols)
        return Window(top, left, rows, cols)

    def pan(
        self, direction: str, board_rows: int, board_cols: int, step: int | None = None
    ) -> Window:
        """The window moved towards `direction`, stopping at the board's edge.

        The default step is the window's size minus one, so the old and new views share a line
        and the player keeps their bearings.
        """
        d_row, d_col = _direction(direction)
        if step is None:
            step = max(1, (self.rows if d_row else self.cols) - 1)
        elif isinstance(step, bool) or not isinstance(step, int) or step < 1:
            raise WindowError(f"a pan step is a whole number of cells >= 1, not {step!r}")
        moved_top = min(max(self.top + d_row * step, 0), MAX_SIDE - 1)
        moved_left = min(max(self.left + d_col * step, 0), MAX_SIDE - 1)
        return Window(moved_top, moved_left, self.rows, self.cols).clamp(board_rows, board_cols)

    def can_pan(self, direction: str, board_rows: int, board_cols: int) -> bool:
        """Whether panning that way would show anything new (for disabling an arrow button)."""
        return self.pan(direction, board_rows, board_cols) != self.clamp(board_rows, board_cols)

    def encode(self) -> str:
        """A short text for a custom_id: "w3.7" for the default 4x5 shape, "w3.7.5x5" otherwise."""
        if (self.rows, self.cols) == (DEFAULT_ROWS, DEFAULT_COLS):
            return f"w{self.top}.{self.left}"
        return f"w{self.top}.{self.left}.{self.rows}x{self.cols}"

    @classmethod
    def decode(
        cls, text: str, board_rows: int | None = None, board_cols: int | None = None
    ) -> Window:
        """The window `encode` wrote. With the board's size, also checks the window lies on it."""
        match = _ENCODED.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise WindowError(f"{text!r} is not a window: expected something like 'w3.7'")
        top, left = int(match.group(1)), int(match.group(2))
        rows = int(match.group(3)) if match.group(3) else DEFAULT_ROWS
        cols = int(match.group(4)) if match.group(4) else DEFAULT_COLS
        window = cls(top, left, rows, cols)
        if board_rows is not None or board_cols is not None:
            if board_rows is None or board_cols is None:
                raise WindowError("give both board_rows and board_cols, or neither")
            _check_board(board_rows, board_cols)
            if not window.fits(board_rows, board_cols):
                raise WindowError(
                    f"window {text!r} goes past the edge of a {board_rows}x{board_cols} board"
                )
        return window


def initial_window(board: Board, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> Window:
    """The window to show first: centred on the last move, or on the board's centre before any.

    When the window has an even side the move cannot sit in the exact middle; the extra line then
    goes towards the centre of mass of the stones, where the game is being played.
    """
    _check_shape(rows, cols)
    rows, cols = min(rows, board.rows), min(cols, board.cols)
    focus = board.last_move
    if focus is None:
        return Window((board.rows - rows) // 2, (board.cols - cols) // 2, rows, cols)
    mass_row, mass_col = _centre_of_mass(board)
    top = _centred_start(focus[0], rows, mass_row)
    left = _centred_start(focus[1], cols, mass_col)
    return Window(max(top, 0), max(left, 0), rows, cols).clamp(board.rows, board.cols)


def followed_window(board: Board, rows: int = DEFAULT_ROWS, cols: int = DEFAULT_COLS) -> Window:
    """The window of a board shown from the first move and never panned: the first window,
    moved by `follow` for each move in turn. It depends on the game alone, so two boards of one
    game drawn by two processes show the same cells, whichever drew its board first."""
    _check_shape(rows, cols)
    rows, cols = min(rows, board.rows), min(cols, board.cols)
    window = Window((board.rows - rows) // 2, (board.cols - cols) // 2, rows, cols)
    for move in board.moves:
        window = follow(window, move, board)
    return window


def follow(window: Window, cell: Cell, board: Shape) -> Window:
    """The window moved as little as possible so it contains `cell` (e.g. the opponent's move)."""
    row, col = cell
    if not (0 <= row < board.rows and 0 <= col < board.cols):
        raise WindowError(f"cell {cell!r} is not on a {board.rows}x{board.cols} board")
    window = window.clamp(board.rows, board.cols)
    top, left = window.top, window.left
    if row < top:
        top = row
    elif row >= window.bottom:
        top = row - window.rows + 1
    if col < left:
        left = col
    elif col >= window.right:
        left = col - window.cols + 1
    return Window(top, left, window.rows, window.cols)


def _centred_start(focus: int, size: int, towards: float) -> int:
    """First line of a `size`-long span around `focus`, the odd extra line on `towards`' side."""
    before = (size - 1) // 2
    if size % 2 == 0 and towards > focus:
        return focus - before
    return focus - (size - 1 - before)


def _centre_of_mass(board: Board) -> tuple[float, float]:
    cells = board.moves
    return (
        sum(r for r, _ in cells) / len(cells),
        sum(c for _, c in cells) / len(cells),
    )


def _direction(direction: str) -> tuple[int, int]:
    try:
        return _STEPS[direction]
    except (KeyError, TypeError):
        raise WindowError(
            f"cannot pan {direction!r}: choose one of {', '.join(DIRECTIONS)}"
        ) from None


def _check_shape(rows: int, cols: int) -> None:
    if not (1 <= rows <= MAX_ROWS and 1 <= cols <= MAX_COLS):
        raise WindowError(f"a window is 1x1 to {MAX_ROWS}x{MAX_COLS} cells, not {rows}x{cols}")


def _check_board(board_rows: int, board_cols: int) -> None:
    if not (1 <= board_rows <= MAX_SIDE and 1 <= board_cols <= MAX_SIDE):
        raise WindowError(f"a board is 1x1 to {MAX_SIDE}x{MAX_SIDE}, not {board_rows}x{board_cols}")


__all__ = [
    "DEFAULT_COLS",
    "DEFAULT_ROWS",
    "DIRECTIONS",
    "Direction",
    "MAX_COLS",
    "MAX_ROWS",
    "Window",
    "WindowError",
    "follow",
    "initial_window",
]
