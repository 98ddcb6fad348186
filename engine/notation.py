"""Cell names: a column letter then a row number counted from the top, like a spreadsheet ("H8")."""

from __future__ import annotations

import re

from .types import Cell, InvalidMoveError, quoted

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
