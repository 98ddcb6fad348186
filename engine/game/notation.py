"""Cell names: a column letter then a row number counted from the top, like a spreadsheet ("H8")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .types import Cell, InvalidMoveError, Mark, quoted

MAX_SIDE = 26  # one letter per column keeps names short and unambiguous
_CELL_RE = re.compile(r"([A-Za-z])\s*([0-9]{1,2})")


def column_letter(col: int) -> str:
    return chr(ord("A") + col)


def cell_name(cell: Cell) -> str:
    row, col = cell
    if not (0 <= col < MAX_SIDE) or row < 0:
        raise InvalidMoveError(f"cell {quoted(cell)} has no name")
    return f"{column_letter(col)}{row + 1}"


def parse_cell(text: str, rows: int, cols: int) -> Cell:
    """Parse "h8" / "H8" / " H 8 " into (row, col), checked against a rows x cols board."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move is written like A1, not {quoted(text)}")
    match = _CELL_RE.fullmatch(text.strip())
    if match is None:
        raise InvalidMoveError(
            f"{quoted(text.strip())} is not a move: write a column letter then a row number, like B2"
        )
    col = ord(match.group(1).upper()) - ord("A")
    row = int(match.group(2)) - 1
    if not (0 <= row < rows and 0 <= col < cols):
        last = cell_name((rows - 1, cols - 1))
        # The name is rebuilt from the parts: the spaces the pattern allows inside could be many.
        name = f"{match.group(1).upper()}{match.group(2)}"
        raise InvalidMoveError(f"{name} is off the board (A1 to {last})")
    return row, col


class SizeError(ValueError):
    """A board size that is not written as ROWSxCOLS[kK] or is off the allowed range."""


@dataclass(frozen=True, slots=True)
class BoardSize:
    rows: int
    cols: int
    k: int | None  # None where the text gave no k: the caller's default applies

    def with_k(self, default: int | None = None) -> tuple[int, int, int]:
        """(rows, cols, k): the written k, else `default`, else five or the longer side."""
        longer = max(self.rows, self.cols)
        k = self.k if self.k is not None else default if default is not None else min(5, longer)
        if not 1 <= k <= longer:
            raise SizeError(f"k must be from 1 to {longer} on a {self.rows}x{self.cols} board, not {k}")
        return self.rows, self.cols, k


# ASCII digits only: int() alone would also take "1_5", and str.isdigit() takes "²" and "１".
_SIZE_RE = re.compile(r"([0-9]{1,3})(?:\s*[x×]\s*([0-9]{1,3}))?(?:\s*k\s*([0-9]{1,3}))?")


def parse_size(text: str) -> BoardSize:
    """The one board-size parser: "15" (square), "15x15", "9x7", "15x15k5", "15 × 15 K5".

    Sides are 1 to MAX_SIDE and k, where given, 1 to the longer side; SizeError otherwise."""
    if not isinstance(text, str):
        raise SizeError(f"a board size is written like 15x15, not {quoted(text)}")
    match = _SIZE_RE.fullmatch(text.strip().lower())
    if match is None:
        raise SizeError(
            f"bad board size {quoted(text.strip())}: write ROWSxCOLS like 15x15, "
            "or ROWSxCOLSkK like 15x15k5"
        )
    rows = int(match.group(1))
    cols = int(match.group(2)) if match.group(2) is not None else rows
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise SizeError(f"board sides must be from 1 to {MAX_SIDE}, not {rows}x{cols}")
    size = BoardSize(rows, cols, int(match.group(3)) if match.group(3) is not None else None)
    if size.k is not None:
        size.with_k()  # range check
    return size


def parse_sizes(text: str, *, need_k: bool = False) -> list[BoardSize]:
    """A comma-separated list of sizes ("3x3k3, 9x9k5"); SizeError if empty or any is bad."""
    sizes = [parse_size(part) for part in text.split(",") if part.strip()]
    if not sizes:
        raise SizeError("no board sizes given")
    if need_k:
        for size in sizes:
            if size.k is None:
                raise SizeError(
                    f"{size.rows}x{size.cols} needs its k: write ROWSxCOLSkK, like 9x9k5"
                )
    return sizes


def player_label(name: str | None, mark: Mark) -> str:
    """A player as reviews and replays name them: "Alice (X)"; just "X" with no name (or a name
    that is the mark); "caro AI (hard, O)" for a name with its own brackets at the end."""
    if not name or name == mark.name:
        return mark.name
    if name.endswith(")") and "(" in name:
        return f"{name[:-1]}, {mark.name})"
    return f"{name} ({mark.name})"
