"""An AI review of a finished game: the turning points and a short summary per player.

review_game() goes over every move within a budget and asks the strongest AI (through the public
engine.ai.analyse_move, which runs the solver where it can prove a result and the threat search
for forced wins by fours) what it would have played and whether the result is already decided.
From those answers it finds:

- a missed forced win: the mover had a proven win and the move let it go (the winning move and
  the line that follows are given);
- a move that threw away a draw (proven by the solver) or let the opponent in: after it the
  opponent has a proven forced win, after the engine's move they had none;
- where the winner's forced win began: the first move from which every later position was a
  proven win for them;
- otherwise a large swing of a static evaluation (lines of k still open to each side), used only
  where nothing is proven, because the AI's public API gives proofs but not its scores.

Proofs are preferred to the evaluation everywhere: a position the solver or the threat search
proves is worth exactly 1 (won), 0.5 (drawn) or 0 (lost) to the side that moved.

Budgets: each position gets a node allowance (`node_limit`), and the compiled core searches it
from empty tables, which makes the review the same on every run, process and machine; `budget_s`
caps the wall time of the whole review, and a review that hits it says so (`complete` is False)
and reports only the moves it reached.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from typing import Any

from ..ai import MoveInfo, analyse_move
from ..game.board import DIRECTIONS, Board
from ..game.notation import cell_name, parse_cell, player_label
from ..game.types import Cell, Level, Mark, MoveError, Rule

# Nodes the AI may search per position: a few milliseconds of the compiled core on big boards
# (a 60-move 15x15 review takes about 2 s of CPU), the solver or the pure-Python search on
# small boards and in endgames.
DEFAULT_NODE_LIMIT = 5000
# Wall-clock cap of a whole review, in seconds.
DEFAULT_BUDGET_S = 60.0
# Boards this small (cells), or with this few empty cells, are in the solver's reach: a value
# proven there is the solver's, elsewhere it is a forced win found by the threat search.
SOLVER_CELLS = 30
SOLVER_EMPTIES = 14
# Plies of a line shown after a better move or a refuted one, when no forced win ends it sooner.
LINE_PLIES = 6
# A forced win is shown to the end, up to this many plies.
WIN_LINE_PLIES = 24
# Win-chance thresholds (0..1) of what a move lost compared with the engine's move.
INACCURACY = 0.10
MISTAKE = 0.20
BLUNDER = 0.35
# Share of the wall-clock cap the first pass (one analysis per position) may use; the rest is
# for the checks and lines of the turning points it found.
FIRST_PASS_SHARE = 0.8

Progress = Callable[[int, int], None]


class TurnKind(StrEnum):
    """What happened at a turning point."""

    MISSED_WIN = "missed_win"  # the mover had a forced win and let it go
    LOST_DRAW = "lost_draw"  # a proven draw became a proven loss
    LOSING_MOVE = "losing_move"  # an open game became a proven loss; the better move kept it open
    WIN_BEGAN = "win_began"  # from here on the winner's win was forced
    SWING = "swing"  # a large drop of the evaluation, nothing proven


class Proof(StrEnum):
    """What a turning point rests on."""

    SOLVER = "solver"
    THREATS = "threats"
    EVALUATION = "evaluation"


class Verdict(StrEnum):
    """One move, judged by the win chance it gave away."""

    BEST = "best"  # the engine's own move
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


@dataclass(frozen=True, slots=True)
class MoveReview:
    """One move. `ply` counts from 1 (X's first move); win chances are the mover's, 0 to 1."""

    ply: int
    mover: Mark
    move: Cell
    best: Cell
    chance_played: float
    chance_best: float
    proven_before: int | None  # 1 / 0 / -1 for the mover before the move, when proven
    verdict: Verdict

    @property
    def loss(self) -> float:
        return max(0.0, self.chance_best - self.chance_played)


@dataclass(frozen=True, slots=True)
class TurningPoint:
    """A move that changed the game. `line` follows the better move (and starts with it);
    `refutation` is what follows the move played (starting with the opponent's reply)."""

    ply: int
    mover: Mark
    kind: TurnKind
    proof: Proof
    move: Cell
    better: Cell | None
    line: tuple[Cell, ...]
    refutation: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    mark: Mark
    moves: int
    accuracy: float  # 0-100, from the win chance each move gave away
    best_moves: int
    inaccuracies: int
    mistakes: int
    blunders: int


@dataclass(frozen=True, slots=True)
class Review:
    rows: int
    cols: int
    k: int
    rule: Rule
    moves: tuple[Cell, ...]
    move_reviews: tuple[MoveReview, ...]
    turning_points: tuple[TurningPoint, ...]
    summaries: tuple[PlayerSummary, PlayerSummary]  # X then O
    complete: bool  # every move was reviewed within the wall-clock cap
    node_limit: int
    seconds: float

    def summary_of(self, mark: Mark) -> PlayerSummary:
        return self.summaries[0] if mark is Mark.X else self.summaries[1]

    # JSON-ready form, for caching a review next to its game.
    def to_dict(self) -> dict[str, Any]:
        return {
            "version": 1,
            "board": f"{self.rows}x{self.cols} k{self.k} {self.rule.value}",
            "moves": _names(self.moves),
            "node_limit": self.node_limit,
            "complete": self.complete,
            "seconds": round(self.seconds, 3),
            "move_reviews": [
                {
                    "ply": m.ply,
                    "move": cell_name(m.move),
                    "best": cell_name(m.best),
                    "chance_played": round(m.chance_played, 4),
                    "chance_best": round(m.chance_best, 4),
                    "proven_before": m.proven_before,
                    "verdict": m.verdict.value,
                }
                for m in self.move_reviews
            ],
            "turning_points": [
                {
                    "ply": t.ply,
                    "kind": t.kind.value,
                    "proof": t.proof.value,
                    "move": cell_name(t.move),
                    "better": cell_name(t.better) if t.better is not None else None,
                    "line": _names(t.line),
                    "refutation": _names(t.refutation),
                }
                for t in self.turning_points
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Review:
        """The review to_dict gave; ValueError if it is not one (a damaged or older cache)."""
        try:
            if data["version"] != 1:
                raise ValueError(f"unknown review version {data['version']!r}")
            board = Board.from_text(data["board"])
            rows, cols = board.rows, board.cols

            def cell(name: str) -> Cell:
                return parse_cell(name, rows, cols)

            moves = tuple(cell(n) for n in data["moves"])
            reviews = tuple(
                MoveReview(
                    ply=int(m["ply"]),
                    mover=Mark.X if int(m["ply"]) % 2 == 1 else Mark.O,
                    move=cell(m["move"]),
                    best=cell(m["best"]),
                    chance_played=float(m["chance_played"]),
                    chance_best=float(m["chance_best"]),
                    proven_before=None if m["proven_before"] is None else int(m["proven_before"]),
                    verdict=Verdict(m["verdict"]),
                )
                for m in data["move_reviews"]
            )
            points = tuple(
                TurningPoint(
                    ply=int(t["ply"]),
                    mover=Mark.X if int(t["ply"]) % 2 == 1 else Mark.O,
                    kind=TurnKind(t["kind"]),
                    proof=Proof(t["proof"]),
                    move=cell(t["move"]),
                    better=None if t["better"] is None else cell(t["better"]),
                    line=tuple(cell(n) for n in t["line"]),
                    refutation=tuple(cell(n) for n in t["refutation"]),
                )
                for t in data["turning_points"]
            )
            return cls(
                rows,
                cols,
                board.k,
                board.rule,
                moves,
                reviews,
                points,
                _summaries(reviews, points),
                bool(data["complete"]),
                int(data["node_limit"]),
                float(data["seconds"]),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"not a stored review: {exc!r}") from None

    def text(self, names: tuple[str | None, str | None] = (None, None)) -> str:
        """The review in English for the terminal: summaries, then the turning points. `names`
        are the players of X and O, if they have names."""
        lines = [
            f"Review of a {self.rows}x{self.cols} k{self.k} {self.rule.value} game, "
            f"{counted(len(self.moves), 'move')}"
        ]
        if not self.complete:
            lines.append(f"(time ran out: moves 1 to {len(self.move_reviews)} reviewed)")
        for summary, name in zip(self.summaries, names, strict=True):
            lines.append(
                f"{player_label(name, summary.mark)}: accuracy {summary.accuracy:.0f}%, "
                f"{summary.best_moves} best, "
                f"{counted(summary.inaccuracies, 'inaccuracy', 'inaccuracies')}, "
                f"{counted(summary.mistakes, 'mistake')}, {counted(summary.blunders, 'blunder')}"
            )
        if not self.turning_points:
            lines.append("No turning points: no move changed the result the engine could see.")
        for point in self.turning_points:
            lines.append("")
            name = names[0] if point.mover is Mark.X else names[1]
            lines.append(describe(point, player_label(name, point.mover)))
        return "\n".join(lines)


def counted(number: int, word: str, plural: str = "") -> str:
    """"1 blunder", "2 blunders": a count with its noun in the right number (English)."""
    return f"{number} {word if number == 1 else plural or word + 's'}"


def describe(point: TurningPoint, player: str) -> str:
    """One turning point in English, two or three lines; `player` names the mover
    (notation.player_label)."""
    played = cell_name(point.move)
    head = {
        TurnKind.MISSED_WIN: f"missed a forced win with {played}",
        TurnKind.LOST_DRAW: f"threw away a draw with {played}",
        TurnKind.LOSING_MOVE: f"{played} lets the opponent force a win",
        TurnKind.WIN_BEGAN: f"{played} starts a forced win",
        TurnKind.SWING: f"{played} gives away a lot",
    }[point.kind]
    proof = {
        Proof.SOLVER: "proven by the solver",
        Proof.THREATS: "proven by a forced sequence of threats",
        Proof.EVALUATION: "by the engine's evaluation",
    }[point.proof]
    lines = [f"Move {point.ply}, {player}: {head} ({proof})."]
    if point.better is not None:
        lines.append(
            f"  Better: {cell_name(point.better)}, then {' '.join(_names(point.line[1:])) or '-'}"
        )
    if point.refutation:
        what = "The win" if point.kind is TurnKind.WIN_BEGAN else "After it"
        lines.append(f"  {what}: {' '.join(_names(point.refutation))}")
    return "\n".join(lines)


def _names(cells: Sequence[Cell]) -> list[str]:
    return [cell_name(c) for c in cells]


# ----------------------------------------------------------------------------- the review
class _Reviewer:
    def __init__(self, cells: int, node_limit: int, deadline: float) -> None:
        self.node_limit = node_limit
        self.deadline = deadline
        self.cells = cells

    def out_of_time(self) -> bool:
        return time.perf_counter() > self.deadline

    def analyse(self, board: Board) -> MoveInfo:
        # A fixed rng, a node limit and, on big boards, the compiled core on fresh tables (it
        # otherwise keeps them between searches, and its answer would depend on what it searched
        # before): the same review every time, in any process.
        return analyse_move(
            board,
            Level.IMPOSSIBLE,
            rng=random.Random(0),
            node_limit=self.node_limit,
            fresh_tables=True,
        )

    def proof_kind(self, board: Board) -> Proof:
        if self.cells <= SOLVER_CELLS or self.cells - board.ply <= SOLVER_EMPTIES:
            return Proof.SOLVER
        return Proof.THREATS

    def line(self, board: Board, first: Cell | None, plies: int) -> tuple[Cell, ...]:
        """`first` (if given) then the AI's moves for both sides, until the end or `plies`."""
        work = board.copy()
        played: list[Cell] = []
        if first is not None:
            work.push(first)
            played.append(first)
        while not work.is_over() and len(played) < plies and not self.out_of_time():
            move = self.analyse(work).move
            work.push(move)
            played.append(move)
        return tuple(played)

    def proven_line(self, board: Board, first: Cell | None) -> tuple[Cell, ...]:
        return self.line(board, first, WIN_LINE_PLIES)


@dataclass(slots=True)
class ReviewWork:
    """A review under way, as plain picklable data: the bot hands it to the AI pool a slice at a
    time (continue_review), so a long review never holds a worker for long and other members'
    moves run in between, and shows `done` of `total` while it waits.

    before[i] is the AI's answer on the position before move i+1 (its mover to move);
    after_best[i] the opponent's answer after the AI's own move there, when the player chose
    another; final the answer after the last move, when the game did not end on the board.
    """

    moves: tuple[Cell, ...]
    rows: int
    cols: int
    k: int
    rule: Rule
    node_limit: int
    before: list[MoveInfo]
    after_best: list[MoveInfo | None]
    final: MoveInfo | None = None
    final_done: bool = False
    seconds: float = 0.0

    @property
    def total(self) -> int:
        return len(self.moves)

    @property
    def done(self) -> int:
        return len(self.before)

    @property
    def analysed(self) -> bool:
        """Every move has been analysed: conclude_review has all it needs."""
        return self.done == self.total and self.final_done


def begin_review(
    moves: Sequence[Cell | str],
    rows: int,
    cols: int,
    k: int,
    rule: Rule = Rule.FREESTYLE,
    *,
    node_limit: int = DEFAULT_NODE_LIMIT,
) -> ReviewWork:
    """A review of `moves` (cells or names like "H8", X first), nothing analysed yet.

    Raises ValueError (MoveError for a move that cannot be played) on bad input."""
    if isinstance(node_limit, bool) or not isinstance(node_limit, int) or node_limit < 1:
        raise ValueError(f"node_limit must be a whole number of at least 1, not {node_limit!r}")
    board = Board(rows, cols, k, rule)
    cells: list[Cell] = []
    for number, move in enumerate(moves, start=1):
        try:
            cell = board.parse_move(move) if isinstance(move, str) else move
            board.push(cell)
        except MoveError as exc:
            raise type(exc)(f"move {number}: {exc}") from None
        cells.append(cell)
    return ReviewWork(tuple(cells), rows, cols, k, board.rule, node_limit, [], [])


def continue_review(
    work: ReviewWork,
    seconds: float | None = None,
    *,
    positions: int | None = None,
    progress: Progress | None = None,
) -> ReviewWork:
    """Analyse the next moves of `work` for about `seconds`, or `positions` moves, whichever
    ends first (all of them if neither is given), and return it.

    The answers depend only on the moves and the node limit, never on how the work is sliced.
    In a process pool the returned object is the one to keep (the argument is a copy there)."""
    start = time.perf_counter()
    deadline = math.inf if seconds is None else start + seconds
    reviewer = _Reviewer(work.rows * work.cols, work.node_limit, math.inf)
    board = Board(work.rows, work.cols, work.k, work.rule)
    for cell in work.moves[: work.done]:
        board.push(cell)
    stop_at = work.total if positions is None else min(work.total, work.done + max(1, positions))
    while work.done < stop_at and time.perf_counter() < deadline:
        cell = work.moves[work.done]
        info = reviewer.analyse(board)
        alt: MoveInfo | None = None
        if info.move != cell:
            board.push(info.move)
            if not board.is_over():
                alt = reviewer.analyse(board)
            board.pop()
        work.before.append(info)
        work.after_best.append(alt)
        board.push(cell)
        if progress is not None:
            progress(work.done, work.total)
    if work.done == work.total and not work.final_done and time.perf_counter() <= deadline:
        work.final = None if board.is_over() else reviewer.analyse(board)
        work.final_done = True
    work.seconds += time.perf_counter() - start
    return work


def conclude_review(work: ReviewWork, seconds: float | None = None) -> Review:
    """The Review of what `work` has analysed: turning points (with their lines, which take a
    few more analyses, within `seconds` if given) and summaries. A review of only some of the
    moves says so (`complete` is False)."""
    start = time.perf_counter()
    deadline = math.inf if seconds is None else start + seconds
    reviewer = _Reviewer(work.rows * work.cols, work.node_limit, deadline)
    reached = work.done
    cells = list(work.moves)
    whole = Board(work.rows, work.cols, work.k, work.rule)
    for cell in cells:
        whole.push(cell)
    before, after_best = work.before, work.after_best
    final = work.final if work.final_done else None

    move_reviews: list[MoveReview] = []
    points: list[TurningPoint] = []
    board = Board(work.rows, work.cols, work.k, work.rule)
    for index in range(reached):
        cell = cells[index]
        mover = board.turn
        info = before[index]
        next_info = before[index + 1] if index + 1 < reached else final
        proven_before = info.value if info.solved else None
        after = board.copy()
        after.push(cell)
        played_chance = _played_chance(after, mover, next_info, info, cell)
        best_chance = _best_chance(board, mover, info, after_best[index], cell, played_chance)
        verdict = _verdict(info.move == cell, best_chance - played_chance)
        review = MoveReview(
            index + 1, mover, cell, info.move, played_chance, best_chance, proven_before, verdict
        )
        point = _turning_point(reviewer, board, review, info, after_best[index], next_info)
        if point is not None:
            points.append(point)
            if point.kind is not TurnKind.SWING and verdict is not Verdict.BLUNDER:
                # A proven change of result is a blunder whatever the evaluation said.
                review = replace(review, verdict=Verdict.BLUNDER)
        move_reviews.append(review)
        board.push(cell)

    # The forced win begins after every other turning point: a move that missed a win, or let
    # the opponent in, says the result was still open at that move.
    settled = max((point.ply for point in points), default=0)
    began = _win_began(reviewer, whole, cells, before, reached, settled)
    if began is not None:
        points.append(began)
        points.sort(key=lambda p: (p.ply, p.kind != TurnKind.WIN_BEGAN))
    reviews = tuple(move_reviews)
    turning = tuple(points)
    return Review(
        work.rows,
        work.cols,
        work.k,
        work.rule,
        work.moves,
        reviews,
        turning,
        _summaries(reviews, turning),
        work.analysed,
        work.node_limit,
        work.seconds + time.perf_counter() - start,
    )


def review_game(
    moves: Sequence[Cell | str],
    rows: int,
    cols: int,
    k: int,
    rule: Rule = Rule.FREESTYLE,
    budget_s: float = DEFAULT_BUDGET_S,
    *,
    node_limit: int = DEFAULT_NODE_LIMIT,
    progress: Progress | None = None,
) -> Review:
    """Review the game of `moves` (cells or names like "H8", X first) on a rows x cols board,
    in one call: begin_review, continue_review and conclude_review within `budget_s` seconds.

    Pure and synchronous. `progress(done, total)` is called after each move is analysed.
    Raises ValueError (MoveError) if a move cannot be played, and for a budget that is not
    positive.
    """
    if not budget_s > 0:
        raise ValueError(f"budget_s must be positive, not {budget_s!r}")
    start = time.perf_counter()
    work = begin_review(moves, rows, cols, k, rule, node_limit=node_limit)
    continue_review(work, budget_s * FIRST_PASS_SHARE, progress=progress)
    left = max(0.0, budget_s - (time.perf_counter() - start))
    review = conclude_review(work, left)
    if progress is not None:
        progress(work.done, work.total)
    return review


def _chance_of(value: int) -> float:
    """A proven value (1 win, 0 draw, -1 loss) as a win chance."""
    return (value + 1) / 2


def _played_chance(
    after: Board, mover: Mark, next_info: MoveInfo | None, info: MoveInfo, cell: Cell
) -> float:
    outcome = after.outcome()
    if outcome is not None:
        return 0.5 if outcome.winner is None else (1.0 if outcome.winner is mover else 0.0)
    if next_info is not None and next_info.solved and next_info.value is not None:
        return _chance_of(-next_info.value)
    if info.move == cell and info.solved and info.value is not None:
        return _chance_of(info.value)
    return evaluation_chance(after, mover)


def _best_chance(
    board: Board,
    mover: Mark,
    info: MoveInfo,
    alt: MoveInfo | None,
    cell: Cell,
    played_chance: float,
) -> float:
    if info.move == cell:
        return played_chance
    if info.solved and info.value is not None:
        return _chance_of(info.value)
    if alt is not None and alt.solved and alt.value is not None:
        return _chance_of(-alt.value)
    after = board.copy()
    after.push(info.move)
    outcome = after.outcome()
    if outcome is not None:
        return 0.5 if outcome.winner is None else 1.0
    return evaluation_chance(after, mover)


def _verdict(is_best: bool, loss: float) -> Verdict:
    if is_best:
        return Verdict.BEST
    if loss >= BLUNDER:
        return Verdict.BLUNDER
    if loss >= MISTAKE:
        return Verdict.MISTAKE
    if loss >= INACCURACY:
        return Verdict.INACCURACY
    return Verdict.GOOD


def _opponent_wins(info: MoveInfo | None) -> bool:
    return info is not None and info.solved and info.value == 1


def _turning_point(
    reviewer: _Reviewer,
    board: Board,
    review: MoveReview,
    info: MoveInfo,
    alt: MoveInfo | None,
    next_info: MoveInfo | None,
) -> TurningPoint | None:
    """The turning point at this move, if it is one. `board` is the position before it."""
    cell = review.move
    if cell == info.move:
        return None
    after = board.copy()
    after.push(cell)
    proof = reviewer.proof_kind(board)
    if info.solved and info.value == 1:
        if after.is_over() or _keeps_win(reviewer, after):
            return None
        return TurningPoint(
            review.ply,
            review.mover,
            TurnKind.MISSED_WIN,
            proof,
            cell,
            info.move,
            reviewer.proven_line(board, info.move),
            reviewer.line(after, None, LINE_PLIES) if not after.is_over() else (),
        )
    if after.is_over():
        return None
    if (
        _opponent_wins(next_info)
        and not _opponent_wins(alt)
        and not (info.solved and info.value == -1)
    ):
        kind = TurnKind.LOST_DRAW if info.solved and info.value == 0 else TurnKind.LOSING_MOVE
        return TurningPoint(
            review.ply,
            review.mover,
            kind,
            reviewer.proof_kind(after),
            cell,
            info.move,
            reviewer.line(board, info.move, LINE_PLIES),
            reviewer.proven_line(after, None),
        )
    if review.loss >= BLUNDER and not _opponent_wins(next_info) and review.proven_before != -1:
        return TurningPoint(
            review.ply,
            review.mover,
            TurnKind.SWING,
            Proof.EVALUATION,
            cell,
            info.move,
            reviewer.line(board, info.move, LINE_PLIES),
            reviewer.line(after, None, LINE_PLIES),
        )
    return None


def _keeps_win(reviewer: _Reviewer, after: Board) -> bool:
    """After the mover's move: is their win still proven once the opponent makes the AI's reply?"""
    reply = reviewer.analyse(after)
    if reply.solved and reply.value is not None:
        return reply.value == -1
    again = after.copy()
    again.push(reply.move)
    if again.is_over():
        return False
    info = reviewer.analyse(again)
    return info.solved and info.value == 1


def _win_began(
    reviewer: _Reviewer,
    board: Board,
    cells: list[Cell],
    before: list[MoveInfo],
    reached: int,
    settled: int,
) -> TurningPoint | None:
    """The first move of the winner after move `settled` from which every later position of
    theirs is a proven win."""
    outcome = board.outcome()
    if outcome is None or outcome.winner is None or reached < len(cells):
        return None
    winner = outcome.winner
    first_index = 0 if winner is Mark.X else 1
    began: int | None = None
    for index in range(len(cells) - 1, -1, -1):
        if index % 2 != first_index % 2:
            continue
        info = before[index]
        if index + 1 <= settled or not (info.solved and info.value == 1):
            break
        began = index
    # A win on the spot is no sequence worth showing; nor is one the winner did not play out.
    if began is None or began >= len(cells) - 1:
        return None
    start = Board(board.rows, board.cols, board.k, board.rule)
    for cell in cells[:began]:
        start.push(cell)
    return TurningPoint(
        began + 1,
        winner,
        TurnKind.WIN_BEGAN,
        reviewer.proof_kind(start),
        cells[began],
        None,
        (),
        tuple(cells[began:]),
    )


def _summaries(
    reviews: Sequence[MoveReview], points: Sequence[TurningPoint]
) -> tuple[PlayerSummary, PlayerSummary]:
    def of(mark: Mark) -> PlayerSummary:
        own = [r for r in reviews if r.mover is mark]
        accuracy = sum(move_accuracy(r.loss) for r in own) / len(own) if own else 100.0
        count = {v: sum(1 for r in own if r.verdict is v) for v in Verdict}
        return PlayerSummary(
            mark,
            len(own),
            round(accuracy, 1),
            count[Verdict.BEST],
            count[Verdict.INACCURACY],
            count[Verdict.MISTAKE],
            count[Verdict.BLUNDER],
        )

    return of(Mark.X), of(Mark.O)


def move_accuracy(loss: float) -> float:
    """0-100 for a move that gave away `loss` of win chance: 100 for none, falling fast at first
    (the curve chess sites use for the same figure, so players read it the way they know)."""
    value = 103.1668 * math.exp(-0.04354 * loss * 100) - 3.1669
    return max(0.0, min(100.0, value))


# ----------------------------------------------------------------------------- evaluation
@lru_cache(maxsize=32)
def _windows(rows: int, cols: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Every line of k cells on the board, as cell indices."""
    found: list[tuple[int, ...]] = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in DIRECTIONS:
                end_r, end_c = r + dr * (k - 1), c + dc * (k - 1)
                if 0 <= end_r < rows and 0 <= end_c < cols:
                    found.append(tuple((r + dr * i) * cols + c + dc * i for i in range(k)))
    return tuple(found)


def _line_scores(board: Board) -> dict[Mark, float]:
    """Every line of k still open to a side counts for it, four times more per stone it holds."""
    grid = board.grid
    scores = {Mark.X: 0.0, Mark.O: 0.0}
    for window in _windows(board.rows, board.cols, board.k):
        x = o = 0
        for index in window:
            value = grid[index]
            if value == Mark.X:
                x += 1
            elif value == Mark.O:
                o += 1
        if x and not o:
            scores[Mark.X] += 4.0**x
        elif o and not x:
            scores[Mark.O] += 4.0**o
    # The side to move plays first on every line it shares with the other: weight it up.
    scores[board.turn] *= 1.5
    return scores


def evaluation(board: Board, mark: Mark) -> float:
    """A static score of the position for `mark` (its open lines less the opponent's). Used only
    where the AI proved nothing."""
    scores = _line_scores(board)
    return scores[mark] - scores[mark.other]


def evaluation_chance(board: Board, mark: Mark) -> float:
    """evaluation() as a win chance for `mark`, 0 to 1 (0.5 for an even position)."""
    outcome = board.outcome()
    if outcome is not None:
        return 0.5 if outcome.winner is None else (1.0 if outcome.winner is mark else 0.0)
    scores = _line_scores(board)
    # The scale grows with the stones on the board: late in a game both sides own many lines,
    # and the same lead means less than it does after five moves.
    scale = 2.0 * 4.0 ** max(1, board.k - 2) + 0.1 * (scores[Mark.X] + scores[Mark.O])
    return 1.0 / (1.0 + math.exp(-(scores[mark] - scores[mark.other]) / scale))


def review_board(board: Board, budget_s: float = DEFAULT_BUDGET_S, **options: Any) -> Review:
    """review_game on the moves of `board`."""
    return review_game(
        board.moves, board.rows, board.cols, board.k, board.rule, budget_s, **options
    )


__all__ = [
    "BLUNDER",
    "DEFAULT_BUDGET_S",
    "DEFAULT_NODE_LIMIT",
    "INACCURACY",
    "MISTAKE",
    "MoveReview",
    "PlayerSummary",
    "Proof",
    "Review",
    "TurnKind",
    "ReviewWork",
    "TurningPoint",
    "Verdict",
    "begin_review",
    "conclude_review",
    "continue_review",
    "describe",
    "evaluation",
    "evaluation_chance",
    "move_accuracy",
    "review_board",
    "review_game",
]
