"""The AI's side of an opening (engine.game.openings): every stone it places and every decision it
takes comes from the search's evaluation of the positions it could leave.

* Placing the stones that the other side will choose a colour for (swap, swap2, RIF's first
  three, swap2's two more), it aims at a balanced position: it evaluates candidate positions
  and picks, by the random generator, among the few whose score is nearest 0, so that either
  choice is fair and its openings vary.
* Choosing a colour, it takes the one the evaluation favours. In swap2 the second player places
  two more stones instead when the position is near balanced.
* RIF: the first player picks one of the 26 canonical openings near balance; O's fourth stone is
  the level's own move; X offers its two best fifth moves that are not mirror images of each
  other (O then picks the weaker for X), and O picks the offer worst for X.

Scores are for the side to move, from the compiled core's search at hard and impossible (when
it is usable in this process) and from the pure-Python search otherwise. Lower levels search
less and pick from more candidates, so they decide more loosely; every level's action is one
the opening accepts.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..game.board import Board
from ..game.openings import (
    Action,
    Choice,
    Opening,
    OpeningError,
    OpeningState,
    Step,
    StepKind,
    mirrors,
)
from ..game.types import Cell, Level, Mark, Rule
from ..support import cores
from .levels import choose_move
from .position import Position
from .search import WON as PY_WON
from .search import Searcher
from .threats import Budget

# Seconds a decision may take by default, everything included.
DEFAULT_TIME_LIMITS: dict[Level, float] = {
    Level.EASY: 0.1,
    Level.NORMAL: 0.5,
    Level.HARD: 1.0,
    Level.IMPOSSIBLE: 2.0,
}
# Share of the time the evaluations may take: the rest covers building boards and the checks.
SEARCH_SHARE = 0.85
# Scores are clipped to this much either way; a forced win or loss counts as the clip.
SCORE_CAP = 1 << 20


@dataclass(frozen=True, slots=True)
class Manner:
    """How one level takes its opening decisions."""

    compiled: bool  # evaluate with the compiled core when usable (else the Python search)
    depth: int  # the Python search's deepest iteration
    pool: int  # a balanced placement is drawn from this many of the most balanced candidates
    samples: int  # candidate positions evaluated per placement
    near_zero: int  # |score| up to this counts as balanced (swap2: place two more stones)
    offer_slack: int  # an offer is drawn from this many of the best fifth moves


MANNERS: dict[Level, Manner] = {
    Level.EASY: Manner(False, 1, 8, 8, 600, 5),
    Level.NORMAL: Manner(False, 2, 5, 10, 400, 3),
    Level.HARD: Manner(True, 3, 4, 12, 300, 2),
    Level.IMPOSSIBLE: Manner(True, 4, 3, 16, 250, 1),
}

# Candidate stones for swap and swap2: empty cells at most this far (king moves) from a stone.
NEAR = 2
# The stone that hands the choice over may go this far: a stone further off is a weaker one, and
# a weaker X stone is often what evens a game that X's first stones tilted its way.
LAST_REACH = 5
# The first stone of swap and swap2: within this far of the centre.
FIRST_STONE_RADIUS = 1


def decide(
    state: OpeningState,
    level: Level | str,
    *,
    rng: random.Random,
    time_limit: float | None = None,
) -> Action:
    """The action `level` takes at the opening's next step (whichever side it is), within
    `time_limit` seconds (DEFAULT_TIME_LIMITS by default). OpeningError when the opening is over;
    ValueError for an unknown level or a time limit that is not positive."""
    step = state.step
    if step is None:
        raise OpeningError("the opening is over: there is nothing to decide")
    known = Level.parse(level)
    if time_limit is None:
        time_limit = DEFAULT_TIME_LIMITS[known]
    if time_limit <= 0:
        raise ValueError(f"time_limit must be positive, not {time_limit!r}")
    start = time.perf_counter()
    judge = _Judge(known, start + time_limit * SEARCH_SHARE)
    if step.kind is StepKind.PLACE:
        action = _place(state, step, judge, rng, time_limit)
    elif step.kind is StepKind.CHOOSE:
        action = _choose(state, step, judge, rng)
    elif step.kind is StepKind.OFFER:
        action = _offer(state, step, judge, rng)
    else:
        action = _select(state, step, judge)
    if state.refusal(action) is not None:
        # Every branch above keeps to the rules; should one ever miss, a plain legal action is
        # better than a refused one.
        action = _any_legal(state, step, rng)
    return action


# ------------------------------------------------------------------------------ the evaluation
class _Judge:
    """Scores positions for the side to move, sharing one deadline between evaluations."""

    def __init__(self, level: Level, deadline: float) -> None:
        self.level = level
        self.manner = MANNERS[level]
        self.deadline = deadline
        self.compiled = self.manner.compiled and cores.usable()

    def left(self) -> float:
        return self.deadline - time.perf_counter()

    def score(self, board: Board, seconds: float) -> int:
        """The score of `board` for its side to move, searched for about `seconds`."""
        if board.is_over():
            outcome = board.outcome()
            assert outcome is not None
            if outcome.winner is None:
                return 0
            return SCORE_CAP if outcome.winner is board.turn else -SCORE_CAP
        until = min(self.deadline, time.perf_counter() + max(seconds, 0.0))
        if self.compiled:
            try:
                return self._core_score(board, until)
            except cores.CoreNotReady:
                self.compiled = False
        return self._python_score(board, until)

    def _core_score(self, board: Board, until: float) -> int:
        from . import compiled
        from .core import WON

        result = compiled.think(board, until)
        if result.kind in ("win", "vcf", "vct") or result.value >= WON:
            return SCORE_CAP
        if result.value <= -WON:
            return -SCORE_CAP
        return _clip(result.value)

    def _python_score(self, board: Board, until: float) -> int:
        pos = Position(board)
        if self.manner.depth <= 0 or until <= time.perf_counter():
            return _clip(pos.evaluate())
        searcher = Searcher(pos, Budget(None, until), 8, 10)
        result = searcher.root(self.manner.depth)
        if result.depth == 0 and abs(result.value) < PY_WON:
            return _clip(pos.evaluate())
        if abs(result.value) >= PY_WON:
            return SCORE_CAP if result.value > 0 else -SCORE_CAP
        return _clip(result.value)

    def ranking(self, board: Board, until: float) -> list[Cell]:
        """The side to move's moves, best first, as far as the search ranked them."""
        if self.compiled:
            try:
                from . import compiled

                result = compiled.think(board, until)
                order = [result.move, *(m for m in result.ranking if m != result.move)]
                return [divmod(m, board.cols) for m in order]
            except cores.CoreNotReady:
                self.compiled = False
        pos = Position(board)
        searcher = Searcher(pos, Budget(None, until), 8, 12)
        found = searcher.root(max(1, self.manner.depth))
        return [divmod(m, board.cols) for m in found.ranking]


def _clip(value: int) -> int:
    return max(-SCORE_CAP, min(SCORE_CAP, int(value)))


def _balance_score(board: Board, judge: _Judge, seconds: float) -> int:
    """How far from an even game `board` is, either way."""
    score = judge.score(board, seconds)
    return abs(score)


# ------------------------------------------------------------------------------ placing stones
def _place(
    state: OpeningState, step: Step, judge: _Judge, rng: random.Random, time_limit: float
) -> Action:
    board = state.board
    legal = state.cells()
    if state.opening is Opening.RIF:
        if board.ply < 3:
            return Action.place(_rif_stone(state, board, legal, judge, rng))
        # O's fourth stone: the level's own move.
        return Action.place(_search_move(board, judge, rng, time_limit, legal))
    if board.ply == 0:
        centre = (board.rows // 2, board.cols // 2)
        near_centre = [c for c in legal if _distance(c, centre) <= FIRST_STONE_RADIUS]
        return Action.place(rng.choice(near_centre or list(legal)))
    if step.count >= 2:
        # The first of two stones still to place: judge it with a partner stone each, so that
        # it is one of a pair that leaves a balanced position.
        return Action.place(_pair_stone(board, legal, judge, rng))
    return Action.place(_last_stone(board, legal, judge, rng))


def _near_stones(board: Board, cells: Sequence[Cell], reach: int = NEAR) -> list[Cell]:
    stones = board.moves
    near = [c for c in cells if any(_distance(c, s) <= reach for s in stones)]
    return near or list(cells)


def _distance(a: Cell, b: Cell) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def _pick_balanced(scored: list[tuple[int, Cell]], judge: _Judge, rng: random.Random) -> Cell:
    """One of the most balanced candidates (lowest |score|), drawn by `rng`."""
    scored.sort(key=lambda item: item[0])
    pool = scored[: judge.manner.pool]
    return rng.choice(pool)[1]


def _last_stone(board: Board, legal: Sequence[Cell], judge: _Judge, rng: random.Random) -> Cell:
    """The stone that hands the choice over: the candidates are scored as the chooser sees them.
    They reach further than the other stones' (LAST_REACH)."""
    cells = _near_stones(board, legal, LAST_REACH)
    rng.shuffle(cells)
    # This stone decides what the chooser gets: twice the usual candidates, each searched less.
    return _best_balanced(board, cells[: 2 * judge.manner.samples], judge, rng)


def _pair_stone(board: Board, legal: Sequence[Cell], judge: _Judge, rng: random.Random) -> Cell:
    """The first of two stones: pairs of it and a partner are scored, and the first stone of a
    balanced pair is played (the partner is chosen again, by _last_stone, on the next call)."""
    firsts = _near_stones(board, legal)
    pairs: list[tuple[Cell, Cell]] = []
    for _ in range(judge.manner.samples * 3):
        if len(pairs) >= judge.manner.samples:
            break
        first = rng.choice(firsts)
        board.push(first)
        try:
            partners = [
                c for c in _near_stones(board, list(board.legal_moves)) if not _refused(board, c)
            ]
        finally:
            board.pop()
        if partners:
            pair = (first, rng.choice(partners))
            if pair not in pairs:
                pairs.append(pair)
    scored: list[tuple[int, Cell]] = []
    for index, (first, second) in enumerate(pairs):
        seconds_each = judge.left() / max(1, len(pairs) - index)
        if seconds_each <= 0:
            break
        board.push(first)
        board.push(second)
        try:
            scored.append((_balance_score(board, judge, seconds_each), first))
        finally:
            board.pop()
            board.pop()
    if not scored:
        return rng.choice(firsts)
    return _pick_balanced(scored, judge, rng)


def _refused(board: Board, cell: Cell) -> bool:
    """Whether an opening stone on `cell` would be refused: forbidden, or ending the game."""
    if board.forbidden(cell) is not None:
        return True
    board.push(cell)
    try:
        return board.is_over()
    finally:
        board.pop()


def _search_move(
    board: Board, judge: _Judge, rng: random.Random, time_limit: float, legal: Sequence[Cell]
) -> Cell:
    seconds = max(0.001, judge.left())
    move = choose_move(board, judge.level, rng=rng, time_limit=min(seconds, time_limit))
    return move if move in legal else rng.choice(list(legal))


# ------------------------------------------------------------------------------ RIF's openings
def canonical_rif_openings(rows: int = 15, cols: int = 15) -> list[tuple[Cell, Cell, Cell]]:
    """RIF's 26 openings as (X, O, X) cells: the centre, O beside it (direct) or diagonal to it
    (indirect), and X within the centre's 5x5, one of each family of mirror images."""
    centre = (rows // 2, cols // 2)
    board = Board(rows, cols, 5, Rule.RENJU)
    found: list[tuple[Cell, Cell, Cell]] = []
    for second in ((centre[0] - 1, centre[1]), (centre[0] - 1, centre[1] + 1)):
        board.push(centre)
        board.push(second)
        kept: list[Cell] = []
        for row in range(centre[0] - 2, centre[0] + 3):
            for col in range(centre[1] - 2, centre[1] + 3):
                cell = (row, col)
                if board[cell] is not None or any(mirrors(board, cell, k) for k in kept):
                    continue
                kept.append(cell)
        found.extend((centre, second, third) for third in kept)
        board.pop()
        board.pop()
    return found


def _rif_stone(
    state: OpeningState,
    board: Board,
    legal: Sequence[Cell],
    judge: _Judge,
    rng: random.Random,
) -> Cell:
    if board.ply == 0:
        return legal[0]
    if board.ply == 1:
        # Score the canonical openings of each family, then place the O stone of a balanced
        # one, turned by a symmetry so that each of its four places can come.
        scored: list[tuple[int, Cell]] = []
        openings = canonical_rif_openings(board.rows, board.cols)
        rng.shuffle(openings)
        openings = openings[: judge.manner.samples * 2]
        for index, (_, second, third) in enumerate(openings):
            seconds = judge.left() / max(1, len(openings) - index)
            if seconds <= 0:
                break
            trial = board.copy()
            trial.push(second)
            trial.push(third)
            scored.append((_balance_score(trial, judge, seconds), second))
        wanted = _pick_balanced(scored, judge, rng) if scored else rng.choice(list(legal))
        family = [c for c in legal if _same_family(board, c, wanted)]
        return rng.choice(family or [wanted])
    # The third stone: the X cells of the 5x5, one per mirror family, scored.
    cells: list[Cell] = []
    for cell in legal:
        if not any(mirrors(board, cell, kept) for kept in cells):
            cells.append(cell)
    rng.shuffle(cells)
    return _best_balanced(board, cells, judge, rng)


def _same_family(board: Board, cell: Cell, wanted: Cell) -> bool:
    (r0, c0) = board.moves[0]
    return abs(cell[0] - r0) + abs(cell[1] - c0) == abs(wanted[0] - r0) + abs(wanted[1] - c0)


def _best_balanced(
    board: Board, cells: Sequence[Cell], judge: _Judge, rng: random.Random
) -> Cell:
    scored: list[tuple[int, Cell]] = []
    for index, cell in enumerate(cells):
        seconds = judge.left() / max(1, len(cells) - index)
        if seconds <= 0:
            break
        board.push(cell)
        try:
            scored.append((_balance_score(board, judge, seconds), cell))
        finally:
            board.pop()
    if not scored:
        return cells[0]
    return _pick_balanced(scored, judge, rng)


# ------------------------------------------------------------------------------ choices
def _choose(state: OpeningState, step: Step, judge: _Judge, rng: random.Random) -> Action:
    board = state.board
    # Searched with the whole time: this one score decides the choice.
    score = judge.score(board, judge.left())
    if Choice.PLACE_TWO in step.choices and abs(score) <= judge.manner.near_zero:
        return Action.choose(Choice.PLACE_TWO)
    # The score is the side to move's: O's in every choice of these openings, but read from
    # the board so that nothing here depends on it.
    mover_is_x = board.turn is Mark.X
    favoured_x = rng.random() < 0.5 if score == 0 else (score > 0) == mover_is_x
    return Action.choose(Choice.TAKE_X if favoured_x else Choice.TAKE_O)


# ------------------------------------------------------------------------------ RIF's fifth move
def _offer(state: OpeningState, step: Step, judge: _Judge, rng: random.Random) -> Action:
    board = state.board
    legal = set(state.cells())
    ranked = [c for c in judge.ranking(board, judge.deadline) if c in legal]
    # Beyond the search's list, the rest of the legal cells nearest the stones first.
    rest = sorted(legal - set(ranked), key=lambda c: (min(_distance(c, s) for s in board.moves), c))
    slack = judge.manner.offer_slack
    head = ranked[:slack]
    rng.shuffle(head)
    order = head + ranked[slack:] + rest
    chosen: list[Cell] = []
    taken = list(step.offers)
    for cell in order:
        if len(chosen) == step.count:
            break
        if cell in taken or any(mirrors(board, cell, other) for other in taken):
            continue
        chosen.append(cell)
        taken.append(cell)
    return Action.offer(chosen)


def _select(state: OpeningState, step: Step, judge: _Judge) -> Action:
    """O picks the offered fifth move that leaves X worst off: the best score for O to move."""
    board = state.board
    best: tuple[int, Cell] | None = None
    for index, cell in enumerate(step.offers):
        seconds = judge.left() / max(1, len(step.offers) - index)
        board.push(cell)
        try:
            score = judge.score(board, seconds)
        finally:
            board.pop()
        if best is None or score > best[0]:
            best = (score, cell)
    assert best is not None
    return Action.select(best[1])


# ------------------------------------------------------------------------------ the safety net
def _any_legal(state: OpeningState, step: Step, rng: random.Random) -> Action:
    if step.kind is StepKind.CHOOSE:
        return Action.choose(step.choices[0])
    if step.kind is StepKind.SELECT:
        return Action.select(step.offers[0])
    cells = list(state.cells())
    rng.shuffle(cells)
    if step.kind is StepKind.PLACE:
        for cell in cells:
            action = Action.place(cell)
            if state.refusal(action) is None:
                return action
        raise OpeningError("no stone can be placed here")
    board = state.board
    chosen: list[Cell] = []
    taken = list(step.offers)
    for cell in cells:
        if len(chosen) == step.count:
            break
        if not any(mirrors(board, cell, other) for other in taken):
            chosen.append(cell)
            taken.append(cell)
    return Action.offer(chosen)

__all__ = [
    "DEFAULT_TIME_LIMITS",
    "MANNERS",
    "Manner",
    "canonical_rif_openings",
    "decide",
]
