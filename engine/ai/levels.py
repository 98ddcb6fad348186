"""The AI ladder: one entry point, four levels from loose to perfect.

easy      mostly random moves near the stones, often takes a win it sees, never searches;
normal    takes wins and blocks, a two-ply search of its six best-looking moves (eight at the
          root), and three moves in ten pick one of its next four choices instead of the best;
hard      takes wins and blocks, wins by continuous fours, a three-ply search of its six
          best-looking moves (eight at the root; every move, to the end, on boards of up to 30
          cells), and one move in ten picks its second or third choice instead;
impossible  the solver where it can prove a result; on bigger boards the compiled core
          (engine.ai.core): wins by continuous fours, then by threes (threat-space search), a
          principal-variation search to the deepest depth the time allows (its leaves also look
          for wins by fours), and a guard: the chosen move must leave the opponent no forced
          win by fours or by up to three threes.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from types import ModuleType

from ..game.board import Board
from ..game.types import LEVELS, Cell, IllegalMoveError, Level, Rule
from ..support import cores
from .explain import reason_at
from .position import EVERY_CELL_UP_TO, Position
from .search import WON, Searcher
from .stop import Stop
from .threats import Budget, OutOfBudget, vcf, vct

# Share of the move's time the searches may take (the compiled core's deadline, the end of the
# pure-Python plan): the rest covers building the core's copy of the board, the caption's reason
# and handing the move back (a process pool pickles it).
CORE_SHARE = 0.85

# Seconds per move. They include everything analyse_move does, so the bot can promise them.
DEFAULT_TIME_LIMITS: dict[Level, float] = {
    Level.EASY: 0.02,
    Level.NORMAL: 0.25,
    Level.HARD: 0.4,
    Level.IMPOSSIBLE: 0.8,
}

# Boards this small (cells) are searched at full width: every empty cell is a candidate.
FULL_WIDTH_CELLS = EVERY_CELL_UP_TO
# The solver is asked first on boards this small (its whole-game table makes it instant), and
# after the threat search on boards up to FULL_WIDTH_CELLS or with this few empty cells left.
SOLVER_TABLE_CELLS = 9
SOLVER_EMPTIES = 14
# Threes the guard reads in the opponent's threat sequences: every candidate defence costs one
# such search, and past three threes a single one can take longer than a whole move.
GUARD_VCT_DEPTH = 3


@dataclass(frozen=True, slots=True)
class MoveInfo:
    """A chosen move and how it was found."""

    move: Cell
    reason: str  # one of REASONS
    nodes: int
    depth: int
    seconds: float
    solved: bool  # `value` is proven (solver, forced win by fours, or a complete search)
    value: int | None  # 1 win / 0 draw / -1 loss for the side to move, when solved


@dataclass(frozen=True, slots=True)
class Style:
    """How one level plays."""

    take_win: float  # chance of taking an immediate win it sees
    loose: float  # chance of a move picked without thought (easy) or a lesser move (others)
    slip_choices: int  # how many of the top moves a slip may pick from
    max_depth: int
    width: int  # moves searched per inner node
    root_width: int
    vcf_depth: int  # 0: no threat-sequence search
    vct_depth: int  # threes in a win by continuous threats (fours and threes); 0: not searched
    leaf_vcf: int  # how deep the search's leaves look for wins by fours; 0: not at all
    guard: bool  # check the chosen move leaves no forced win by fours (and threes, vct_depth)
    read_small_boards_to_the_end: bool  # no depth cap on boards searched at full width
    solver: bool
    # Value five-in-a-row positions by their cell patterns, as the compiled core does
    # (engine.ai.patterns); otherwise by the window term alone.
    patterns: bool = False


STYLES: dict[Level, Style] = {
    Level.EASY: Style(
        take_win=0.75,
        loose=0.6,
        slip_choices=0,
        max_depth=0,
        width=0,
        root_width=0,
        vcf_depth=0,
        vct_depth=0,
        leaf_vcf=0,
        guard=False,
        read_small_boards_to_the_end=False,
        solver=False,
    ),
    Level.NORMAL: Style(
        take_win=1.0,
        loose=0.3,
        slip_choices=4,
        max_depth=2,
        width=6,
        root_width=8,
        vcf_depth=0,
        vct_depth=0,
        leaf_vcf=0,
        guard=False,
        read_small_boards_to_the_end=False,
        solver=False,
    ),
    Level.HARD: Style(
        take_win=1.0,
        loose=0.1,
        slip_choices=2,
        max_depth=3,
        width=6,
        root_width=8,
        vcf_depth=10,
        vct_depth=0,
        leaf_vcf=0,
        guard=False,
        read_small_boards_to_the_end=True,
        solver=False,
    ),
    Level.IMPOSSIBLE: Style(
        take_win=1.0,
        loose=0.0,
        slip_choices=1,
        max_depth=40,
        width=10,
        root_width=18,
        vcf_depth=30,
        vct_depth=4,
        leaf_vcf=4,
        guard=True,
        read_small_boards_to_the_end=True,
        solver=True,
        patterns=True,
    ),
}

_solver_module: ModuleType | None = None
_solver_missing = False


def _solver() -> ModuleType | None:
    """engine.solve.solver when it can be imported (it is optional for the search levels)."""
    global _solver_module, _solver_missing
    if _solver_module is None and not _solver_missing:
        try:
            from ..solve import solver
        except ImportError:
            _solver_missing = True
        else:
            _solver_module = solver
    return _solver_module


def choose_move(
    board: Board,
    level: str,
    *,
    rng: random.Random | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    compiled: bool = True,
    stop: Stop | None = None,
    fresh_tables: bool = False,
) -> Cell:
    """The move `level` plays on `board` (which is left untouched). `compiled=False` plays
    with the pure-Python search, as when the compiled core is not built (the arena's
    `python-impossible`).

    `stop` (an engine.ai.stop.Stop) set from another thread ends the compiled core's search
    early: the move is then the best it had. The pure-Python levels and the solver do not read it
    (they run to their own limits). With `fresh_tables` the compiled core starts from empty
    tables instead of those of earlier moves, so that with a `node_limit` the move is the same
    in any process, whatever was searched before."""
    return _analyse(
        board,
        level,
        rng,
        time_limit,
        node_limit,
        with_reason=False,
        compiled=compiled,
        stop=stop,
        fresh_tables=fresh_tables,
    ).move


def analyse_move(
    board: Board,
    level: str,
    *,
    rng: random.Random | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    compiled: bool = True,
    stop: Stop | None = None,
    fresh_tables: bool = False,
    reason: bool = True,
) -> MoveInfo:
    """The move `level` plays on `board`, with why (unless `reason` is False: the reason is
    then "") and how hard it looked (`stop` and `fresh_tables` as in choose_move)."""
    return _analyse(
        board,
        level,
        rng,
        time_limit,
        node_limit,
        with_reason=reason,
        compiled=compiled,
        stop=stop,
        fresh_tables=fresh_tables,
    )


class _Plan:
    """The clock and node allowance of one move, shared out between the phases."""

    def __init__(self, start: float, time_limit: float, node_limit: int | None) -> None:
        self.start = start
        # Keep a margin for what follows the search (unwinding, explaining, pickling back).
        self.end = start + time_limit * CORE_SHARE
        self.node_limit = node_limit
        self.nodes = 0

    def budget(self, share: float) -> Budget:
        """A budget for the next phase: `share` of what is left."""
        if self.node_limit is not None:
            return Budget(max(1, int((self.node_limit - self.nodes) * share)), None)
        now = time.perf_counter()
        return Budget(None, now + max(0.0, self.end - now) * share)

    def spend(self, budget: Budget) -> None:
        self.nodes += budget.nodes


def _analyse(
    board: Board,
    level: str,
    rng: random.Random | None,
    time_limit: float | None,
    node_limit: int | None,
    *,
    with_reason: bool,
    compiled: bool = True,
    stop: Stop | None = None,
    fresh_tables: bool = False,
) -> MoveInfo:
    start = time.perf_counter()
    known = Level.parse(level)
    style = STYLES[known]
    if board.is_over():
        raise IllegalMoveError("the game is over: there is no move to choose")
    if time_limit is None:
        time_limit = DEFAULT_TIME_LIMITS[known]
    if time_limit <= 0:
        raise ValueError(f"time_limit must be positive, not {time_limit!r}")
    if node_limit is not None and node_limit < 1:
        raise ValueError(f"node_limit must be at least 1, not {node_limit!r}")
    if rng is None:
        rng = random.Random(0)
    plan = _Plan(start, time_limit, node_limit)

    if style.solver and board.rows * board.cols <= SOLVER_TABLE_CELLS:
        # Tiny boards: the solver's whole-game table answers in microseconds.
        solved = _try_solver(board, rng, plan, 1.0)
        if solved is not None:
            return _solved_info(board, solved, start, with_reason)

    size = board.rows * board.cols
    if (
        compiled
        and known is Level.IMPOSSIBLE
        and size > FULL_WIDTH_CELLS
        and size - board.ply > SOLVER_EMPTIES
        and cores.usable()
    ):
        try:
            return _core_move(
                board, start, time_limit, node_limit, with_reason, stop=stop, fresh=fresh_tables
            )
        except cores.CoreNotReady:
            # A function the cache lacks, in a process that may not compile: this move is the
            # pure-Python search's, like every move before the cores were built.
            pass

    pos = Position(board, patterns=style.patterns)
    picked = _pick(pos, style, rng, plan)
    if isinstance(picked, _Solved):
        return _solved_info(board, picked, start, with_reason)
    index, depth, solved_value = picked
    move = divmod(index, board.cols)
    reason = reason_at(pos, index) if with_reason else ""
    return MoveInfo(
        move=move,
        reason=reason,
        nodes=plan.nodes,
        depth=depth,
        seconds=time.perf_counter() - start,
        solved=solved_value is not None,
        value=solved_value,
    )


def _core_move(
    board: Board,
    start: float,
    time_limit: float,
    node_limit: int | None,
    with_reason: bool,
    *,
    stop: Stop | None = None,
    fresh: bool = False,
) -> MoveInfo:
    """impossible on boards the solver cannot finish: the compiled core (engine.ai.compiled)."""
    from . import compiled

    if board.ply == 0:
        index = (board.rows // 2) * board.cols + board.cols // 2
        result = compiled.CoreResult(index, 0, 0, 0, "centre", ())
    else:
        deadline = start + time_limit * CORE_SHARE
        result = compiled.think(
            board,
            None if node_limit is not None else deadline,
            node_limit,
            stop=stop,
            fresh=fresh,
        )
    move = result.move
    if board.rule is Rule.RENJU and board.is_forbidden(divmod(move, board.cols)):
        # The core keeps off black's forbidden points itself; should one come through all the
        # same, the best-ranked allowed move is played instead, as no forbidden one may be.
        allowed = [m for m in result.ranking if not board.is_forbidden(divmod(m, board.cols))]
        if not allowed:
            raise cores.CoreNotReady("no allowed move from the compiled core")
        move = allowed[0]
        result = compiled.CoreResult(move, 0, result.depth, result.nodes, "search", ())
    reason = reason_at(Position(board), result.move) if with_reason else ""
    # The proof-number VCT answers every defence of the attacker's threes (engine.ai.pns), so a
    # win it finds is as forced as one by fours.
    solved = result.kind in ("win", "vcf", "vct")
    return MoveInfo(
        move=divmod(result.move, board.cols),
        reason=reason,
        nodes=result.nodes,
        depth=result.depth,
        seconds=time.perf_counter() - start,
        solved=solved,
        value=1 if solved else None,
    )


@dataclass(frozen=True, slots=True)
class _Solved:
    move: Cell
    value: int
    plies: int
    nodes: int


def _solved_info(board: Board, solved: _Solved, start: float, with_reason: bool) -> MoveInfo:
    reason = (
        reason_at(Position(board), solved.move[0] * board.cols + solved.move[1])
        if with_reason
        else ""
    )
    return MoveInfo(
        solved.move,
        reason,
        solved.nodes,
        solved.plies,
        time.perf_counter() - start,
        True,
        solved.value,
    )


def _try_solver(board: Board, rng: random.Random, plan: _Plan, share: float) -> _Solved | None:
    """The solver's perfect move when it proves the position within `share` of the budget."""
    solver = _solver()
    if solver is None:
        return None
    if plan.node_limit is not None:
        # Reproducible runs stop on nodes only, never on the clock.
        limits: dict[str, float | int] = {
            "node_limit": max(1, int((plan.node_limit - plan.nodes) * share))
        }
    else:
        limits = {"time_limit": max(0.0005, (plan.end - time.perf_counter()) * share)}
    try:
        result = solver.analyse(board, **limits)
    except solver.SolveTimeout as exc:
        plan.nodes += exc.nodes
        return None
    plan.nodes += result.nodes
    # Every best move is in the solver's memo now, so asking for one by rng costs a lookup.
    move = solver.perfect_move(board, rng=rng, **limits)
    return _Solved(move, result.value, result.plies, result.nodes)


def _pick(
    pos: Position, style: Style, rng: random.Random, plan: _Plan
) -> tuple[int, int, int | None] | _Solved:
    """(cell index, depth reached, proven value or None), or the solver's answer.

    The phases, cheapest and surest first: a win on the spot, the centre of an empty board, the
    only block of the opponent's win, a win by continuous fours, one by threes (big boards), the
    solver, then the search.
    """
    me = pos.turn
    them = 3 - me
    wins = pos.win_cells(me)
    if wins and rng.random() < style.take_win:
        return (rng.choice(wins) if style.max_depth == 0 else wins[0]), 1, 1
    if style.max_depth == 0:
        return _loose_move(pos, style, rng), 0, None

    if pos.board.ply == 0:
        return _centre(pos), 0, None
    threats = pos.win_cells(them)
    blocks = pos.blocks(them, threats) if threats else []
    if len(blocks) == 1:
        return blocks[0], 1, None

    if style.vcf_depth and not threats:
        budget = plan.budget(0.25)
        try:
            line = vcf(pos, budget, style.vcf_depth)
        except OutOfBudget:
            line = None
        plan.spend(budget)
        if line:
            return line[0], len(line), 1

    if style.vct_depth and not threats and pos.size > FULL_WIDTH_CELLS:
        budget = plan.budget(0.25)
        try:
            line = vct(pos, budget, style.vct_depth)
        except OutOfBudget:
            line = None
        plan.spend(budget)
        if line:
            # Not a proof (the defences read are a narrowed set), so no value is claimed.
            return line[0], len(line), None

    if style.solver and (
        pos.size <= FULL_WIDTH_CELLS or pos.size - pos.board.ply <= SOLVER_EMPTIES
    ):
        solved = _try_solver(pos.board, rng, plan, 0.5)
        if solved is not None:
            return solved

    budget = plan.budget(0.6 if style.guard else 1.0)
    size = pos.size
    full = size <= FULL_WIDTH_CELLS
    width = size if full else style.width
    root_width = size if full else style.root_width
    searcher = Searcher(pos, budget, width, root_width, style.leaf_vcf)
    max_depth = style.max_depth
    if full and style.read_small_boards_to_the_end:
        max_depth = max(max_depth, size - pos.board.ply)
    result = searcher.root(max_depth)
    plan.spend(budget)
    ranking = list(result.ranking)
    choice = result.move

    proven: int | None = None
    # Only a full-width search proves anything: a narrowed one may have left out the one defence
    # that refutes its "win". Full width, a forced result is exact at any depth, and a draw is
    # exact once every line was read to the end of the game.
    if full and (abs(result.value) >= WON or result.depth >= size - pos.board.ply):
        proven = 1 if result.value >= WON else (-1 if result.value <= -WON else 0)

    if style.loose and rng.random() < style.loose and result.value < WON:
        # A slip: one of the next few moves the search liked, as a person might pick.
        pool = ranking[1 : 1 + style.slip_choices]
        if pool:
            choice = rng.choice(pool)
            proven = None
    elif style.guard and result.value < WON:
        choice = _guarded(pos, choice, ranking, plan, style.vct_depth)
    return choice, result.depth, proven


def _guarded(
    pos: Position, choice: int, ranking: list[int], plan: _Plan, vct_depth: int = 0
) -> int:
    """The best-ranked move after which the opponent has no forced win by threats.

    The threats checked are continuous fours, and on big boards with `vct_depth` also threes.
    When the search's choice allows one, the defences worth trying are the cells of that winning
    line (taking one of them breaks it), our own fours (they gain the tempo) and the next moves
    of the ranking; the first that leaves no forced win is played.
    """
    budget = plan.budget(1.0)
    threes = min(vct_depth, GUARD_VCT_DEPTH) if pos.size > FULL_WIDTH_CELLS else 0

    def their_line() -> list[int] | None:
        # Called with the opponent to move, just after one of our candidate moves.
        line = vcf(pos, budget, 30)
        if line is None and threes:
            line = vct(pos, budget, threes)
        return line

    try:
        pos.push(choice)
        try:
            line = their_line()
        finally:
            pos.pop()
        if line is None:
            return choice
        rank = {m: i for i, m in enumerate(ranking)}
        tried = {choice}
        pool = [
            m
            for m in dict.fromkeys([*line, *pos.four_moves(pos.turn), *ranking[:8]])
            if m not in tried and not pos.grid[m] and not pos.forbidden(m, pos.turn)
        ]
        pool.sort(key=lambda m: rank.get(m, len(rank)))
        for move in pool:
            pos.push(move)
            try:
                refuted = their_line() is not None
            finally:
                pos.pop()
            if not refuted:
                return move
    except OutOfBudget:
        pass
    finally:
        plan.spend(budget)
    return choice


def _centre(pos: Position) -> int:
    return (pos.rows // 2) * pos.cols + pos.cols // 2


def _loose_move(pos: Position, style: Style, rng: random.Random) -> int:
    """easy: a random move next to the stones, or the move that looks best at a glance."""
    cells = pos.candidates()
    if pos.board.ply == 0:
        centre_r, centre_c = pos.rows // 2, pos.cols // 2
        cells = [
            c
            for c in cells
            if abs(c // pos.cols - centre_r) <= 2 and abs(c % pos.cols - centre_c) <= 2
        ]
        return rng.choice(cells)
    if rng.random() < style.loose:
        grid, cols, rows = pos.grid, pos.cols, pos.rows
        close = []
        for cell in cells:
            r, c = divmod(cell, cols)
            if any(
                grid[rr * cols + cc]
                for rr in range(max(0, r - 1), min(rows, r + 2))
                for cc in range(max(0, c - 1), min(cols, c + 2))
            ):
                close.append(cell)
        return rng.choice(close or cells)
    scores = pos.move_scores(cells, pos.turn)
    best = max(scores)
    return rng.choice([c for c, s in zip(cells, scores, strict=True) if s == best])


__all__ = [
    "DEFAULT_TIME_LIMITS",
    "LEVELS",
    "STYLES",
    "MoveInfo",
    "analyse_move",
    "choose_move",
]
