"""The classic Monte Carlo opponent: the fixed yardstick the AI levels are measured against.

For every candidate cell it plays N games to the end with uniformly random moves and keeps the
cell whose playouts its side won most often minus lost most often. Nothing else: no rule for
immediate wins or blocks, so its strength is the textbook baseline and stays put while the AI
levels change.

Playouts do not push stones one at a time. Each one orders the empty cells at random and deals
them alternately to the two sides; the winner is then whoever first completes a line in that
order. Stones are bits of Python ints (one padding column per row stops lines wrapping), "has a
run of k" is a handful of shift-and-AND steps, and the first stone that completes a run is found
by binary search over the prefix unions of each side's stones: a few big-int operations per
playout instead of a win check per move. Exact and caro rules can be spoiled by overlines and
blocked ends, so for them the search only finds the first ply with a run of k or more (no win
can come earlier) and the game is replayed stone by stone from there. Under renju the replay
judges black's lines as exact and white's as freestyle; the playouts do not refuse black's
forbidden moves (random games are the yardstick's rough guess either way), but the cells it
chooses between are only those black may play.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

from ..game.board import Board
from ..game.types import Cell, Mark, Rule

# Boards up to this many cells consider every empty cell; larger ones only cells near stones.
SMALL_BOARD_CELLS = 49
_OFF_BOARD = 3  # padding value in the replay grid: equal to neither mark, so it ends every run


@dataclass(frozen=True, slots=True)
class _Geometry:
    """Bit layout of one board spec. Cell (r, c) is bit (r + 1) * width + c."""

    rows: int
    cols: int
    k: int
    width: int
    steps: tuple[int, int, int, int]  # position offsets of the four line directions
    run_shifts: tuple[tuple[int, ...], ...]  # per direction, the shifts that find runs of k
    bits: tuple[int, ...]  # board index -> its bit
    replay_exact: bool  # exact/caro/renju: a run of k is not always a win
    caro: bool
    renju: bool  # white (O) wins with k or more
    blank_grid: tuple[int, ...]  # replay grid: 0 on the board, _OFF_BOARD in the padding


@lru_cache(maxsize=32)
def _geometry(rows: int, cols: int, k: int, rule: Rule) -> _Geometry:
    width = cols + 1
    steps = (1, width, width + 1, width - 1)
    run_shifts = []
    for step in steps:
        # Doubling: after shifting by n the mask marks starts of runs of 2n; a last shift by
        # k - n (<= n) joins two overlapping runs of n into one of k.
        shifts = []
        n = 1
        while 2 * n <= k:
            shifts.append(n * step)
            n *= 2
        if n < k:
            shifts.append((k - n) * step)
        run_shifts.append(tuple(shifts))
    positions = [(r + 1) * width + c for r in range(rows) for c in range(cols)]
    grid = [_OFF_BOARD] * ((rows + 2) * width)
    for p in positions:
        grid[p] = 0
    return _Geometry(
        rows=rows,
        cols=cols,
        k=k,
        width=width,
        steps=(steps[0], steps[1], steps[2], steps[3]),
        run_shifts=tuple(run_shifts),
        bits=tuple(1 << p for p in positions),
        replay_exact=rule is not Rule.FREESTYLE,
        caro=rule is Rule.CARO,
        renju=rule is Rule.RENJU,
        blank_grid=tuple(grid),
    )


def _has_run(stones: int, run_shifts: tuple[tuple[int, ...], ...]) -> bool:
    """Whether `stones` holds k or more in a row in any direction."""
    for shifts in run_shifts:
        m = stones
        for s in shifts:
            m &= m >> s
            if not m:
                break
        if m:
            return True
    return False


def _first_run(base: int, dealt: Sequence[int], run_shifts: tuple[tuple[int, ...], ...]) -> int:
    """Index of the dealt stone that first gives base a run of k, or -1 if none ever does."""
    if not dealt:
        return -1
    prefix = list(accumulate(dealt))
    if not _has_run(base | prefix[-1], run_shifts):
        return -1
    lo, hi = 0, len(prefix) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if _has_run(base | prefix[mid], run_shifts):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _exact_win(grid: list[int], p: int, mark: int, geo: _Geometry) -> bool:
    """The exact/caro rule for the stone just put at p; mirrors Board's check."""
    other = 3 - mark
    k = geo.k
    for s in geo.steps:
        back = 0
        q = p - s
        while grid[q] == mark:
            back += 1
            q -= s
        start_blocked = grid[q] == other
        fwd = 0
        q = p + s
        while grid[q] == mark:
            fwd += 1
            q += s
        run = back + 1 + fwd
        if geo.renju and mark == 2 and run >= k:
            return True
        if run == k and not (geo.caro and start_blocked and grid[q] == other):
            return True
    return False


def _playout(geo: _Geometry, mover: int, mover_base: int, other_base: int, order: Sequence[int],
             replay_grid: list[int] | None) -> int:
    """Result of dealing `order` alternately, mover first: 1 mover wins, -1 loses, 0 draw."""
    shifts = geo.run_shifts
    mine = order[0::2]
    theirs = order[1::2]
    i = _first_run(mover_base, mine, shifts)
    if replay_grid is None:
        # Freestyle: the first run of k wins. The opponent got there first exactly when their
        # first i stones (plies 2, 4, .., 2i) already hold one, so one check replaces a search.
        if i >= 0:
            return -1 if i and _has_run(other_base | sum(theirs[:i]), shifts) else 1
        return -1 if theirs and _has_run(other_base | sum(theirs), shifts) else 0
    j = _first_run(other_base, theirs, shifts)
    # The mover's i-th dealt stone is ply 2i + 1, the opponent's j-th is ply 2j + 2.
    first_ply = min(2 * i + 1 if i >= 0 else len(order) + 1, 2 * j + 2 if j >= 0 else len(order) + 1)
    if first_ply > len(order):
        return 0
    grid = replay_grid.copy()
    other = 3 - mover
    for t in range(first_ply - 1):
        grid[order[t].bit_length() - 1] = mover if t % 2 == 0 else other
    for t in range(first_ply - 1, len(order)):
        p = order[t].bit_length() - 1
        mark = mover if t % 2 == 0 else other
        grid[p] = mark
        if _exact_win(grid, p, mark, geo):
            return 1 if mark == mover else -1
    return 0


def playout_result(board: Board, order: Sequence[Cell]) -> Mark | None:
    """Winner when the cells in `order` are played in turn from `board`, found the fast way.

    `order` must hold every empty cell. This is what each playout computes; it exists so tests
    can check it against Board.push (under renju, for orders where black plays no forbidden
    point: the playouts do not refuse them).
    """
    if board.is_over():
        raise ValueError("the game is already over")
    cols = board.cols
    indices = [r * cols + c for r, c in order]
    empty = [i for i, v in enumerate(board.grid) if v == 0]
    if sorted(indices) != empty:
        raise ValueError("order must list every empty cell exactly once")
    geo = _geometry(board.rows, board.cols, board.k, board.rule)
    mover = int(board.turn)
    mover_base, other_base, replay = _bases(board, geo, mover)
    result = _playout(geo, mover, mover_base, other_base, [geo.bits[i] for i in indices], replay)
    if result == 0:
        return None
    return board.turn if result > 0 else board.turn.other


def _bases(board: Board, geo: _Geometry, mover: int) -> tuple[int, int, list[int] | None]:
    mover_base = other_base = 0
    replay = list(geo.blank_grid) if geo.replay_exact else None
    for index, value in enumerate(board.grid):
        if value:
            bit = geo.bits[index]
            if value == mover:
                mover_base |= bit
            else:
                other_base |= bit
            if replay is not None:
                replay[bit.bit_length() - 1] = value
    return mover_base, other_base, replay


def candidate_cells(board: Board, radius: int | None = 2) -> list[Cell]:
    """Cells worth trying: all empty ones on small boards (or radius None), else those within
    `radius` (king moves) of a stone, and the centre of an empty big board."""
    rows, cols, grid = board.rows, board.cols, board.grid
    if board.is_over():
        return []
    if radius is None or rows * cols <= SMALL_BOARD_CELLS:
        return list(board.legal_moves)
    if radius < 0:
        raise ValueError(f"the candidate radius must be 0 or more, not {radius}")
    if board.ply == 0:
        return [(rows // 2, cols // 2)]
    near: set[Cell] = set()
    for r, c in board.moves:
        for rr in range(max(0, r - radius), min(rows, r + radius + 1)):
            for cc in range(max(0, c - radius), min(cols, c + radius + 1)):
                if grid[rr * cols + cc] == 0:
                    near.add((rr, cc))
    if board.rule is Rule.RENJU:
        return sorted(cell for cell in near if not board.is_forbidden(cell))
    return sorted(near)


def monte_carlo_scores(board: Board, rng: random.Random, playouts: int = 1000,
                       candidates_radius: int | None = 2) -> dict[Cell, int]:
    """Wins minus losses over `playouts` random games after each candidate cell, for the side
    to move. A cell that ends the game scores +playouts for a win and 0 for a draw."""
    if playouts < 1:
        raise ValueError(f"playouts must be at least 1, not {playouts}")
    if board.is_over():
        raise ValueError("the game is over: there is no move to choose")
    board = board.copy()
    geo = _geometry(board.rows, board.cols, board.k, board.rule)
    player = int(board.turn)
    rnd = rng.random
    scores: dict[Cell, int] = {}
    for cell in candidate_cells(board, candidates_radius):
        board.push(cell)
        outcome = board.outcome()
        if outcome is not None:
            scores[cell] = playouts if outcome.winner is not None else 0
            board.pop()
            continue
        # Playouts start with the opponent to move, so their results are negated.
        mover = 3 - player
        mover_base, other_base, replay = _bases(board, geo, mover)
        grid = board.grid
        empties = [geo.bits[i] for i, v in enumerate(grid) if v == 0]
        board.pop()
        total = 0
        for _ in range(playouts):
            # Sorting by random keys is a uniform shuffle about twice as fast as rng.shuffle,
            # whose per-element loop runs in Python.
            order = sorted(empties, key=lambda _cell: rnd())
            total -= _playout(geo, mover, mover_base, other_base, order, replay)
        scores[cell] = total
    return scores


def monte_carlo_move(board: Board, rng: random.Random, playouts: int = 1000,
                     candidates_radius: int | None = 2) -> Cell:
    """The candidate with the best win-minus-loss count over random playouts; ties by rng."""
    scores = monte_carlo_scores(board, rng, playouts, candidates_radius)
    best = max(scores.values())
    return rng.choice([cell for cell, score in scores.items() if score == best])
