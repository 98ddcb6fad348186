"""Win detection scenarios under each rule: directions, edges, shapes, overlines and caro blocks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from engine import Board, Cell, Mark, Outcome, Rule
from testkit.rules import K_RULES

# Scattered far-away cells for the side that only has to pass its turn: never two adjacent.
FILLER: tuple[Cell, ...] = tuple((14, c) for c in range(0, 15, 2)) + tuple(
    (12, c) for c in range(0, 15, 2)
)


def alternate(xs: Sequence[Cell], os: Sequence[Cell]) -> list[Cell]:
    """Interleave X's and O's stones in push order (X first)."""
    assert len(xs) - len(os) in (0, 1)
    order: list[Cell] = []
    for i, x in enumerate(xs):
        order.append(x)
        if i < len(os):
            order.append(os[i])
    return order


def play(board: Board, cells: Sequence[Cell]) -> Board:
    for i, cell in enumerate(cells):
        assert board.outcome() is None, f"game ended early, before move {i}: {board.text()}"
        board.push(cell)
    return board


def x_plays(board: Board, xs: Sequence[Cell], os: Sequence[Cell] = FILLER) -> Board:
    """X plays xs (the last one decides); O answers with the first len(xs)-1 cells of os."""
    return play(board, alternate(xs, os[: len(xs) - 1]))


def gomoku(rule: Rule = Rule.FREESTYLE) -> Board:
    return Board(15, 15, 5, rule)


# ----------------------------------------------------------------- directions
@pytest.mark.parametrize("rule", K_RULES)
@pytest.mark.parametrize(
    ("xs", "line"),
    [
        # row, built left to right
        ([(7, 3), (7, 4), (7, 5), (7, 6), (7, 7)], [(7, 3), (7, 4), (7, 5), (7, 6), (7, 7)]),
        # column, built bottom to top
        ([(8, 2), (7, 2), (6, 2), (5, 2), (4, 2)], [(4, 2), (5, 2), (6, 2), (7, 2), (8, 2)]),
        # main diagonal, finished in the middle
        ([(2, 2), (3, 3), (5, 5), (6, 6), (4, 4)], [(2, 2), (3, 3), (4, 4), (5, 5), (6, 6)]),
        # anti-diagonal, finished at the top end
        ([(6, 1), (5, 2), (4, 3), (3, 4), (2, 5)], [(2, 5), (3, 4), (4, 3), (5, 2), (6, 1)]),
    ],
)
def test_five_in_each_direction_wins(rule: Rule, xs: list[Cell], line: list[Cell]) -> None:
    board = x_plays(gomoku(rule), xs)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.X
    assert sorted(outcome.line) == sorted(line)
    assert len(outcome.line) == 5


def test_winning_line_is_ordered_along_its_direction() -> None:
    board = x_plays(gomoku(), [(7, 3), (7, 4), (7, 6), (7, 7), (7, 5)])
    assert board.outcome() == Outcome(Mark.X, ((7, 3), (7, 4), (7, 5), (7, 6), (7, 7)))
    board = x_plays(gomoku(), [(2, 6), (3, 5), (5, 3), (6, 2), (4, 4)])
    # Anti-diagonal: listed from the upper-right end down to the lower-left.
    assert board.outcome() == Outcome(Mark.X, ((2, 6), (3, 5), (4, 4), (5, 3), (6, 2)))


def test_four_is_not_a_win() -> None:
    board = x_plays(gomoku(), [(7, 3), (7, 4), (7, 5), (7, 6)])
    assert board.outcome() is None
    # A broken five (gap in the middle) is not a win either.
    board.push((12, 14))
    board.push((7, 8))
    assert board.outcome() is None


def test_o_can_win_too() -> None:
    xs = [(0, 0), (0, 2), (0, 4), (0, 6), (0, 8)]
    os = [(9, 9), (9, 10), (9, 11), (9, 12), (9, 13)]
    board = play(gomoku(), alternate(xs, os))
    assert board.outcome() == Outcome(Mark.O, tuple(os))


def test_mixed_colours_do_not_make_a_line() -> None:
    board = play(Board(3, 3, 3), alternate([(0, 0), (0, 2), (1, 1)], [(0, 1), (2, 2)]))
    assert board.outcome() is None


# ----------------------------------------------------------------- edges, corners, shapes
@pytest.mark.parametrize("rule", K_RULES)
def test_corner_to_corner_diagonals_on_a_small_board(rule: Rule) -> None:
    board = Board(5, 5, 5, rule)
    xs = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]
    os = [(0, 1), (0, 2), (0, 3), (1, 0)]
    assert play(board, alternate(xs, os)).outcome() == Outcome(Mark.X, tuple(xs))
    board = Board(5, 5, 5, rule)
    xs = [(4, 0), (3, 1), (2, 2), (1, 3), (0, 4)]
    outcome = play(board, alternate(xs, os)).outcome()
    assert outcome is not None and outcome.winner is Mark.X
    assert sorted(outcome.line) == sorted(xs)


@pytest.mark.parametrize("rule", K_RULES)
def test_lines_along_each_edge(rule: Rule) -> None:
    for xs in (
        [(0, c) for c in range(10, 15)],  # top edge, right corner
        [(14, c) for c in range(5)],  # bottom edge, left corner
        [(r, 0) for r in range(5)],  # left edge
        [(r, 14) for r in range(10, 15)],  # right edge
    ):
        os = [(7, 1), (7, 3), (7, 5), (7, 7)]
        board = play(gomoku(rule), alternate(xs, os))
        outcome = board.outcome()
        assert outcome is not None and outcome.winner is Mark.X, (rule, xs)
        assert sorted(outcome.line) == sorted(xs)


def test_wide_board_k_larger_than_the_short_side() -> None:
    # 3 rows x 7 columns, k=5: only rows can win.
    board = Board(3, 7, 5)
    play(
        board, alternate([(0, 0), (1, 0), (2, 0), (0, 1), (1, 1)], [(0, 6), (1, 6), (2, 6), (2, 5)])
    )
    assert board.outcome() is None  # columns of 3 never reach 5
    board = Board(3, 7, 5)
    xs = [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]
    assert play(board, alternate(xs, [(0, 0), (0, 1), (0, 2), (0, 3)])).outcome() == Outcome(
        Mark.X, tuple(xs)
    )


def test_tall_board_k_larger_than_the_short_side() -> None:
    board = Board(7, 3, 5)
    xs = [(0, 2), (1, 2), (2, 2), (3, 2), (4, 2)]
    assert play(board, alternate(xs, [(6, 0), (5, 0), (4, 0), (3, 0)])).outcome() == Outcome(
        Mark.X, tuple(xs)
    )


def test_one_row_board() -> None:
    board = Board(1, 5, 2)
    play(board, [(0, 0), (0, 2)])
    board.push((0, 1))
    assert board.outcome() == Outcome(Mark.X, ((0, 0), (0, 1)))
    # 1x5 with k=5: O always breaks the line, so the board fills up to a draw.
    board = play(Board(1, 5, 5), [(0, 0), (0, 1), (0, 2), (0, 3)])
    board.push((0, 4))
    assert board.outcome() == Outcome(None, ())


def test_one_column_board() -> None:
    board = play(Board(5, 1, 3), [(0, 0), (4, 0), (1, 0), (3, 0)])
    assert board.outcome() is None
    board.push((2, 0))
    assert board.outcome() == Outcome(Mark.X, ((0, 0), (1, 0), (2, 0)))


@pytest.mark.parametrize("rule", K_RULES)
def test_k1_first_stone_wins(rule: Rule) -> None:
    board = Board(3, 3, 1, rule)
    board.push((1, 1))
    assert board.outcome() == Outcome(Mark.X, ((1, 1),))
    tiny = Board(1, 1, 1, rule)
    tiny.push((0, 0))
    assert tiny.outcome() == Outcome(Mark.X, ((0, 0),))


def test_one_by_one_board_with_k1_is_never_a_draw() -> None:
    board = Board(1, 1, 1)
    assert len(board.legal_moves) == 1
    board.push((0, 0))
    assert board.outcome() is not None and not board.outcome().is_draw  # type: ignore[union-attr]


def test_full_board_draw_on_a_rectangle() -> None:
    # 2x4, k=3: rows X O X O / O X O X have no three in a row.
    cells = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 0), (1, 3), (1, 2)]
    board = Board(2, 4, 3)
    play(board, cells[:-1])
    board.push(cells[-1])
    assert board.outcome() == Outcome(None, ())
    assert board.outcome() is not None and board.outcome().is_draw  # type: ignore[union-attr]


# ----------------------------------------------------------------- overlines
def overline_board(rule: Rule) -> Board:
    """X has a six in row 7 (cols 2..7) completed by the middle stone; O played filler."""
    return x_plays(gomoku(rule), [(7, 2), (7, 3), (7, 4), (7, 6), (7, 7), (7, 5)])


def test_overline_wins_in_freestyle() -> None:
    outcome = overline_board(Rule.FREESTYLE).outcome()
    assert outcome is not None and outcome.winner is Mark.X
    assert outcome.line == tuple((7, c) for c in range(2, 8))


@pytest.mark.parametrize("rule", [Rule.EXACT, Rule.CARO])
def test_overline_does_not_win_under_exact_rules(rule: Rule) -> None:
    board = overline_board(rule)
    assert board.outcome() is None
    assert len(board.legal_moves) == 225 - board.ply


@pytest.mark.parametrize("rule", [Rule.EXACT, Rule.CARO])
def test_extending_a_four_to_an_overline_does_not_win(rule: Rule) -> None:
    # X: cols 1..4 and 6 in row 3: col 5 would make six, col 0 would make five.
    board = x_plays(gomoku(rule), [(3, 1), (3, 2), (3, 3), (3, 4), (3, 6)])
    assert board.outcome() is None
    board.push((12, 14))
    board.push((3, 5))
    assert board.outcome() is None
    board.push((12, 13))
    board.push((3, 0))  # now eight in a row: still an overline
    assert board.outcome() is None


@pytest.mark.parametrize("rule", [Rule.EXACT, Rule.CARO])
def test_exact_five_wins_in_another_direction_than_the_overline(rule: Rule) -> None:
    # The last stone (7,5) makes six across and exactly five down.
    xs = [(7, 2), (7, 3), (7, 4), (7, 6), (7, 7), (3, 5), (4, 5), (5, 5), (6, 5), (7, 5)]
    board = x_plays(gomoku(rule), xs)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.X
    assert outcome.line == ((3, 5), (4, 5), (5, 5), (6, 5), (7, 5))


@pytest.mark.parametrize(
    ("rule", "wins"), [(Rule.FREESTYLE, True), (Rule.EXACT, False), (Rule.CARO, False)]
)
def test_five_with_k3(rule: Rule, wins: bool) -> None:
    # X X _ X X filled in the middle: a five, which is an overline for k=3.
    board = Board(3, 5, 3, rule)
    play(board, alternate([(0, 0), (0, 1), (0, 3), (0, 4)], [(2, 0), (2, 2), (2, 4), (1, 0)]))
    board.push((0, 2))
    expected = Outcome(Mark.X, tuple((0, c) for c in range(5))) if wins else None
    assert board.outcome() == expected


def test_exact_rule_overlines_fill_the_board_to_a_draw() -> None:
    # 1x9, k=3: X ends with cols 0..4 (five) and O with cols 5..8 (four): both overlines.
    board = Board(1, 9, 3, Rule.EXACT)
    play(board, [(0, 0), (0, 8), (0, 1), (0, 7), (0, 3), (0, 5), (0, 4)])
    assert board.outcome() is None
    board.push((0, 6))  # O: cols 5..8
    assert board.outcome() is None
    board.push((0, 2))  # X: cols 0..4, and the board is full
    assert board.outcome() == Outcome(None, ())


# ----------------------------------------------------------------- caro blocks
BOTH_ENDS_BLOCKED = [(7, 2), (7, 8), (0, 0), (0, 14)]  # O closes both ends of X's five on row 7


@pytest.mark.parametrize(
    ("rule", "os", "wins"),
    [
        (Rule.CARO, BOTH_ENDS_BLOCKED, False),
        (Rule.CARO, [(7, 2), (0, 0), (0, 14), (14, 0)], True),  # blocked at one end only
        (Rule.EXACT, BOTH_ENDS_BLOCKED, True),  # only caro counts blocks
    ],
)
def test_five_between_blockers(rule: Rule, os: list[Cell], wins: bool) -> None:
    board = play(gomoku(rule), alternate([(7, 3), (7, 4), (7, 5), (7, 6)], os))
    board.push((7, 7))
    expected = Outcome(Mark.X, tuple((7, c) for c in range(3, 8))) if wins else None
    assert board.outcome() == expected


def test_caro_board_edge_is_not_a_block() -> None:
    # Five from the left edge with an O stone at the other end: the edge does not count.
    board = play(
        gomoku(Rule.CARO),
        alternate([(7, 0), (7, 1), (7, 2), (7, 3)], [(7, 5), (0, 0), (0, 14), (14, 14)]),
    )
    board.push((7, 4))
    assert board.outcome() == Outcome(Mark.X, tuple((7, c) for c in range(5)))
    # Both ends at the edge: 5 columns wide.
    board = play(
        Board(5, 5, 5, Rule.CARO),
        alternate([(2, 0), (2, 1), (2, 2), (2, 3)], [(0, 0), (0, 2), (4, 0), (4, 2)]),
    )
    board.push((2, 4))
    assert board.outcome() == Outcome(Mark.X, tuple((2, c) for c in range(5)))


def test_caro_gap_before_the_blocker_leaves_the_end_open() -> None:
    board = play(
        gomoku(Rule.CARO),
        alternate([(7, 3), (7, 4), (7, 5), (7, 6)], [(7, 1), (7, 9), (0, 0), (0, 14)]),
    )
    board.push((7, 7))  # O at (7,1) and (7,9) leave an empty cell at each end
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is Mark.X


def test_caro_diagonal_blocked_at_both_ends() -> None:
    xs = [(3, 3), (4, 4), (5, 5), (6, 6), (7, 7)]
    os = [(2, 2), (8, 8), (0, 14), (14, 0)]
    board = play(gomoku(Rule.CARO), alternate(xs[:-1], os))
    board.push(xs[-1])
    assert board.outcome() is None


def test_caro_blocked_five_stays_dead_and_another_line_wins_later() -> None:
    # Stones never disappear, so a five closed at both ends can never become a win; the game
    # goes on and a later open five elsewhere wins with its own line.
    board = play(
        gomoku(Rule.CARO),
        alternate([(7, 3), (7, 4), (7, 5), (7, 6), (7, 7)], [(7, 2), (7, 8), (0, 0), (0, 14)]),
    )
    assert board.outcome() is None
    later_x = [(10, 3), (10, 4), (10, 5), (10, 6), (10, 7)]
    later_o = [(14, 0), (14, 2), (14, 4), (14, 6), (14, 8)]
    for x, o in zip(later_x, later_o, strict=True):
        board.push(o)
        assert board.outcome() is None
        board.push(x)
    assert board.outcome() == Outcome(Mark.X, tuple(later_x))


def test_caro_blocked_in_one_direction_but_open_in_another_wins() -> None:
    # The last stone (7,7) closes a blocked five across and an open five down.
    xs = [(7, 3), (7, 4), (7, 5), (7, 6), (3, 7), (4, 7), (5, 7), (6, 7), (7, 7)]
    os = [(7, 2), (7, 8), (0, 0), (0, 14), (14, 0), (14, 14), (12, 0), (12, 14)]
    board = play(gomoku(Rule.CARO), alternate(xs[:-1], os))
    board.push(xs[-1])
    assert board.outcome() == Outcome(Mark.X, ((3, 7), (4, 7), (5, 7), (6, 7), (7, 7)))


def test_caro_own_stone_beyond_the_run_is_an_overline_not_a_block() -> None:
    # X X X X _ X with O at the far left: filling the gap gives six -> no win under caro.
    board = play(
        gomoku(Rule.CARO),
        alternate(
            [(7, 3), (7, 4), (7, 5), (7, 6), (7, 8)], [(7, 2), (0, 0), (0, 14), (14, 0), (14, 14)]
        ),
    )
    board.push((7, 7))
    assert board.outcome() is None


# ----------------------------------------------------------------- hostile input in messages
LONG = "Q" * 6000


@pytest.mark.parametrize(
    ("read", "start"),
    [
        (lambda: Board().parse_move(LONG), "'QQQQQQQQQQQQQQQQQQQQ'… is not a move"),
        (lambda: Board().parse_move("H" + " " * 6000 + "99"), "H99 is off the board (A1 to C3)"),
        (lambda: Board.from_text(LONG), "expected 'ROWSxCOLS kK RULE moves...', got 'QQQQ"),
        (lambda: Board.from_text(f"{LONG} k5 caro"), "bad board size 'QQQQQQQQQQQQQQQQQQQQ'…"),
        (lambda: Board.from_text(f"15x15 {LONG} caro"), "bad k 'QQQQQQQQQQQQQQQQQQQQ'…"),
        (lambda: Board.from_text(f"3x3 k3 caro {LONG}"), "'QQQQQQQQQQQQQQQQQQQQ'… is not a move"),
        (lambda: Board.from_text(f"3x3 k3 {LONG}"), "unknown rule 'QQQQQQQQQQQQQQQQQQQQ'…"),
        (lambda: Rule.parse(LONG), "unknown rule 'QQQQQQQQQQQQQQQQQQQQ'…"),
        (lambda: Board().push(tuple(range(3000))), "(0, 1, 2, 3, 4, 5, 6…"),
    ],
)
def test_messages_quote_only_the_start_of_long_input(read: Callable[[], object], start: str) -> None:
    with pytest.raises(ValueError) as caught:
        read()
    message = str(caught.value)
    assert message.startswith(start)
    assert len(message) < 120, message


def test_short_input_is_quoted_whole() -> None:
    with pytest.raises(ValueError, match=r"^'hello world' is not a move"):
        Board().parse_move("hello world")
    with pytest.raises(ValueError, match=r"^bad k 'k99x': write it like k5$"):
        Board.from_text("15x15 k99x caro")
