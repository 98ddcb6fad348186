"""Why a move is good, in one word a player understands (shown in the bot's move captions)."""

from __future__ import annotations

from ..game.board import Board
from ..game.types import Cell, IllegalMoveError
from .position import Position

REASONS = ("win", "block", "fork", "threat", "defend", "center", "near_center", "develop")


def explain(board: Board, move: Cell) -> str:
    """The REASONS code of `move` played by the side to move on `board` (the board before it).

    The first that applies, in REASONS order: win, block (stops an immediate win), fork (two or
    more winning threats at once), threat (one), defend (removes or reduces the opponent's chances
    to make an unstoppable double threat, e.g. blocks an open three), center (the centre cell, or
    one of the middle cells of an even side, on an empty or nearly empty board), near_center (next
    to it then), develop.
    """
    if board.is_over():
        raise IllegalMoveError("the game is over")
    if move not in board.legal_moves:
        raise IllegalMoveError(f"{move!r} is not a legal move here")
    pos = Position(board)
    index = move[0] * board.cols + move[1]
    return reason_at(pos, index)


def reason_at(pos: Position, index: int) -> str:
    """explain() on a Position that is left as it was found."""
    me = pos.turn
    them = 3 - me
    if pos.wins_at(index, me):
        return "win"
    their_wins = pos.win_cells(them)
    if index in their_wins or (their_wins and index in pos.blocks(them, their_wins)):
        return "block"
    forks_before = None if their_wins else _fork_cells(pos, them)
    pos.push(index)
    try:
        threats = len(pos.win_cells(me))
        forks_after = None if forks_before is None else _fork_cells(pos, them)
    finally:
        pos.pop()
    if threats >= 2:
        return "fork"
    if threats == 1:
        return "threat"
    if (
        forks_before
        and forks_after is not None
        and (index in forks_before or len(forks_after) < len(forks_before))
    ):
        return "defend"
    if pos.board.ply <= 2 and _near_centre(pos, index, reach=1):
        return "center"
    if pos.board.ply <= 2 and _near_centre(pos, index):
        return "near_center"
    return "develop"


def _fork_cells(pos: Position, mark: int) -> set[int]:
    """Cells where `mark` would make two or more winning threats at once."""
    return {cell for cell in pos.four_moves(mark) if len(pos.wins_after(cell, mark)) >= 2}


def _near_centre(pos: Position, index: int, reach: int | None = None) -> bool:
    """Whether `index` is within `reach` of the centre in doubled coordinates, which keep the
    centre of an even side (between two cells) an integer: reach 1 is the centre cell itself (its
    two middle cells on an even side); the default, 2 from 5x5 up, takes in its neighbours."""
    row, col = divmod(index, pos.cols)
    if reach is None:
        reach = 2 if min(pos.rows, pos.cols) >= 5 else 1
    return abs(2 * row - (pos.rows - 1)) <= reach and abs(2 * col - (pos.cols - 1)) <= reach
