"""The AI's incremental bookkeeping agrees with a fresh count and with the Board's own rules."""

from __future__ import annotations

import random

import pytest

from engine import Board, Rule
from engine.ai.position import Position

SPECS = [
    (15, 15, 5, Rule.FREESTYLE),
    (9, 9, 5, Rule.CARO),
    (7, 7, 4, Rule.EXACT),
    (5, 5, 4, Rule.CARO),
    (3, 3, 3, Rule.FREESTYLE),
    (4, 7, 2, Rule.FREESTYLE),
    (3, 3, 1, Rule.FREESTYLE),
    (1, 8, 3, Rule.EXACT),
]


def snapshot(pos: Position) -> tuple[object, ...]:
    return pos.count, pos.live, pos.attack, pos.sums, pos.near


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s[0]}x{s[1]}k{s[2]}{s[3].value}")
def test_push_pop_keeps_every_count_in_step(spec: tuple[int, int, int, Rule]) -> None:
    rng = random.Random(7)
    pos = Position(Board(*spec))
    for _ in range(150):
        if pos.board.is_over() or (pos.board.ply and rng.random() < 0.35):
            pos.pop()
        else:
            pos.push(rng.choice([i for i, v in enumerate(pos.grid) if not v]))
        assert snapshot(pos) == snapshot(Position(pos.board))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s[0]}x{s[1]}k{s[2]}{s[3].value}")
def test_win_cells_match_the_board(spec: tuple[int, int, int, Rule]) -> None:
    rng = random.Random(3)
    for game in range(6):
        board = Board(*spec)
        while not board.is_over():
            pos = Position(board)
            truth = []
            for cell in list(board.legal_moves):
                board.push(cell)
                if board.outcome() is not None and board.outcome().winner is board.turn.other:  # type: ignore[union-attr]
                    truth.append(cell[0] * board.cols + cell[1])
                board.pop()
            assert pos.win_cells(pos.turn) == truth, (game, board.text())
            board.push(rng.choice(list(board.legal_moves)))


def test_caro_blocks_include_the_far_end() -> None:
    # O: four in a row on row 7 from column 3, X already at column 2. Under CARO, X stops the
    # five either on its cell (7,7) or just past it at (7,8), which shuts both ends.
    board = Board(15, 15, 5, Rule.CARO)
    for x, o in zip(
        [(7, 2), (0, 0), (14, 14), (12, 12)], [(7, 3), (7, 4), (7, 5), (7, 6)], strict=True
    ):
        board.push(x)
        board.push(o)
    pos = Position(board)
    assert pos.win_cells(2) == [7 * 15 + 7]
    assert pos.blocks(2) == [7 * 15 + 7, 7 * 15 + 8]
    free = Board(15, 15, 5, Rule.FREESTYLE)
    for cell in board.moves:
        free.push(cell)
    assert Position(free).blocks(2) == [7 * 15 + 7]


def test_position_leaves_the_callers_board_alone() -> None:
    board = Board(9, 9, 5)
    board.push((4, 4))
    pos = Position(board)
    pos.push(0)
    pos.push(1)
    assert board.moves == ((4, 4),)
