"""Puzzles: positions from finished games where the side to move has a proven forced win.

A puzzle is a position (a board text), the side that wins from it, the proof's kind, its line
and a difficulty from the proof's size. They are mined from games (mine): the review's turning
points (engine.analysis.review) name the candidates, a missed forced win (the position before the move),
a move that let the opponent force a win (the position after it, the opponent to solve) and
where the winner's forced win began, and only those a proof confirms are kept.

How a position is proved (prove_board):

- Boards of up to review.SOLVER_CELLS cells, and positions with at most review.SOLVER_EMPTIES
  empty cells: the perfect-play solver (engine.solve.solver) within a node limit. The line is perfect
  play, the attacker's fastest win against the defender's slowest loss; the kind is SOLVED.
- Bigger boards: a threat proof, an AND/OR walk over the game tree. At each defender node the
  walk answers every reply: the blocks when the attacker has a four (any other reply loses to
  the five), every empty cell otherwise. At each attacker node it tries the moves that answered
  the sibling replies, then the move an oracle proposes: the compiled core's threat search
  (engine.ai.compiled.threat_win: fours, then the proof-number search by threes) when
  engine.support.cores.usable(), else the pure-Python VCF and VCT of engine.ai.threats. Every leaf is a
  five on the board, so a proof rests on the walk alone, never on the oracle's claims. The kind
  is VCF when every attacking move of the proof made a four, else VCT.

Everything is bounded by node limits (Limits), never by the clock: the same position and limits
give the same answer on any machine. A position the walk cannot prove within them is not a
puzzle, and a move it cannot judge within them is UNKNOWN.

Playing one: check_move(board, move) says whether the attacker's move still wins (any such move
is accepted, not only the stored line), gives the defender's best reply (the one whose proof is
longest) or, for a wrong move, the refutation: the defender's reply and why it holds.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..ai import analyse_move, choose_move
from ..ai.position import Position
from ..ai.threats import Budget, OutOfBudget, fork_cells, vcf
from ..ai.threats import _defences as three_defences
from ..game.board import Board
from ..game.notation import cell_name
from ..game.records import GameRecord
from ..game.types import Cell, Level, Mark, MoveError, Rule
from ..solve.solver import SolveTimeout, analyse
from ..support import cores
from .review import SOLVER_CELLS, SOLVER_EMPTIES, TurnKind, review_game

FORMAT_VERSION = 1
# Attacking moves (the five included) a mined puzzle must take at least: a five or an open four
# already on the board is no puzzle.
MIN_MOVES = 3
# Plies of play shown after a refuting reply when the refutation is not a win of the defender's.
REFUTATION_PLIES = 6
# Nodes of the review that names the candidates (engine.analysis.review.DEFAULT_NODE_LIMIT is 5000).
REVIEW_NODES = 5000


class ProofKind(StrEnum):
    """What a puzzle's win rests on."""

    VCF = "vcf"  # continuous fours: every attacking move makes a four
    VCT = "vct"  # fours and threes
    SOLVED = "solved"  # the solver's perfect play on a small board


class Verdict(StrEnum):
    """A candidate attacking move, judged."""

    SOLVED = "solved"  # it completes the win
    WINNING = "winning"  # a forced win still exists after it; `reply` is the best defence
    WRONG = "wrong"  # refuted: `reply` is the defender's answer, `reason` why it holds
    UNKNOWN = "unknown"  # the node limits ran out before either was proven


class Refutation(StrEnum):
    """Why a wrong move fails."""

    DEFENDER_WINS = "defender_wins"  # the reply wins, or leaves the defender a win not stoppable
    DRAW = "draw"  # the solver proves the defender holds a draw
    HOLDS = "holds"  # after the reply the attacker has no forced win the engine can prove


@dataclass(frozen=True, slots=True)
class Limits:
    """Node limits of one proof. `nodes` bounds the walk's positions plus the oracle's nodes;
    `oracle_nodes` one threat search at an attacker node; `threes` the threes it may use."""

    nodes: int = 400_000
    oracle_nodes: int = 20_000
    threes: int = 4
    solver_nodes: int = 2_000_000


@dataclass(frozen=True, slots=True)
class WinProof:
    """A proven forced win of the side to move. `line` runs from its first move to the five
    (the defender's replies are the best defence); `defences` counts the defender's replies in
    the whole proof after which the attacker needed more than an immediate five or a fork."""

    kind: ProofKind
    line: tuple[Cell, ...]
    defences: int
    nodes: int

    @property
    def moves(self) -> int:
        """The attacker's moves along the line, the five included."""
        return (len(self.line) + 1) // 2

    @property
    def difficulty(self) -> int:
        return self.moves + self.defences


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A position whose side to move (`to_move`) has a proven forced win.

    `position` is a Board.text() (size, k, rule and the moves that led there, so the last move
    can be shown); `line` the proving line as cell names; `moves` and `defences` the proof's
    size (WinProof), `difficulty` their sum; `source` the game it came from, `ply` the moves
    played before the position, `origin` the turning point that named it."""

    position: str
    to_move: Mark
    kind: ProofKind
    line: tuple[str, ...]
    moves: int
    defences: int
    difficulty: int
    source: str
    ply: int
    origin: str

    def board(self) -> Board:
        return Board.from_text(self.position)

    @property
    def key(self) -> str:
        """The same stones and side to move give the same key, whatever the move order."""
        board = self.board()
        stones: dict[Mark, list[str]] = {Mark.X: [], Mark.O: []}
        for index, cell in enumerate(board.moves):
            stones[Mark.X if index % 2 == 0 else Mark.O].append(cell_name(cell))
        return (
            f"{board.spec} {self.to_move.name} X:{','.join(sorted(stones[Mark.X]))}"
            f" O:{','.join(sorted(stones[Mark.O]))}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "position": self.position,
            "to_move": self.to_move.name,
            "kind": self.kind.value,
            "line": list(self.line),
            "moves": self.moves,
            "defences": self.defences,
            "difficulty": self.difficulty,
            "source": self.source,
            "ply": self.ply,
            "origin": self.origin,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Puzzle:
        """The puzzle to_dict gave; ValueError naming what is wrong otherwise (the position, the
        side to move and the line are checked on the board: the line must end in its five)."""
        try:
            if data["version"] != FORMAT_VERSION:
                raise ValueError(f"unknown puzzle version {data['version']!r}")
            puzzle = cls(
                position=str(data["position"]),
                to_move=Mark[str(data["to_move"])],
                kind=ProofKind(data["kind"]),
                line=tuple(str(name) for name in data["line"]),
                moves=int(data["moves"]),
                defences=int(data["defences"]),
                difficulty=int(data["difficulty"]),
                source=str(data["source"]),
                ply=int(data["ply"]),
                origin=str(data["origin"]),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a puzzle: missing or wrong field {exc}") from None
        puzzle.check()
        return puzzle

    def check(self) -> None:
        """ValueError unless the position is legal and open, `to_move` is its side to move and
        the line plays out from it to `to_move`'s five."""
        try:
            board = self.board()
        except ValueError as exc:
            raise ValueError(f"bad position: {exc}") from None
        if board.is_over():
            raise ValueError("the position is already over")
        if board.turn is not self.to_move:
            raise ValueError(f"{self.to_move.name} is not to move in the position")
        try:
            for name in self.line:
                board.push_name(name)
        except MoveError as exc:
            raise ValueError(f"bad solution: {exc}") from None
        outcome = board.outcome()
        if outcome is None or outcome.winner is not self.to_move:
            raise ValueError(f"the solution does not end in {self.to_move.name}'s win")


@dataclass(frozen=True, slots=True)
class MoveCheck:
    """A candidate attacking move, judged by check_move. `reply` is the defender's best reply
    (WINNING) or its refuting one (WRONG); `line` starts with it: the rest of the proof
    (WINNING), or the defender's win or play after the refutation (WRONG)."""

    verdict: Verdict
    move: Cell
    reply: Cell | None = None
    reason: Refutation | None = None
    line: tuple[Cell, ...] = ()


# ----------------------------------------------------------------------------- proofs
def uses_solver(board: Board) -> bool:
    """Whether `board` is proved by the solver (small boards, endgames) or by threats."""
    cells = board.rows * board.cols
    return cells <= SOLVER_CELLS or cells - board.ply <= SOLVER_EMPTIES


def prove_board(board: Board, limits: Limits = Limits()) -> WinProof | None:
    """A forced win of the side to move on `board` (left untouched), or None when none is
    proven within `limits`."""
    if board.is_over():
        return None
    if uses_solver(board):
        return _solver_proof(board, limits)
    walk = _Walk(board, limits)
    try:
        # A win by fours alone is named so even when threes would make it shorter.
        kind, first = ProofKind.VCF, walk.win(threes=0)
        if first < 0:
            kind, first = ProofKind.VCT, walk.win()
        node = walk.line(first) if first >= 0 else None
    except OutOfBudget:
        return None
    if node is None:
        return None
    return WinProof(kind, _cells(board, node.line), node.defences, walk.spent)


def prove(puzzle: Puzzle, limits: Limits = Limits()) -> WinProof | None:
    """Re-prove `puzzle` from its position, from scratch (nothing stored is trusted)."""
    return prove_board(puzzle.board(), limits)


def check_move(board: Board, move: Cell | str, limits: Limits = Limits()) -> MoveCheck:
    """Judge the attacker's (side to move's) `move` on `board` (left untouched): does a forced
    win still exist after it? MoveError if the move cannot be played."""
    work = board.copy()
    cell = work.parse_move(move) if isinstance(move, str) else move
    work.push(cell)
    outcome = work.outcome()
    if outcome is not None:
        if outcome.winner is board.turn:
            return MoveCheck(Verdict.SOLVED, cell)
        return MoveCheck(Verdict.WRONG, cell, reason=Refutation.DRAW)
    if uses_solver(work):
        return _solver_check(work, cell, limits)
    walk = _Walk(work, limits, attacker=int(board.turn))
    try:
        refuting = walk.refute()
        if refuting < 0:
            reply, _ = _best_reply(walk.answers)
            answer = walk.answers[reply][0]
            walk.pos.push(reply)
            rest = walk.line(answer)
            walk.pos.pop()
    except OutOfBudget:
        return MoveCheck(Verdict.UNKNOWN, cell)
    if refuting < 0:
        if rest is None:
            return MoveCheck(Verdict.UNKNOWN, cell)
        line = (_cell(work, reply), *_cells(work, rest.line))
        return MoveCheck(Verdict.WINNING, cell, _cell(work, reply), line=line)
    work.push(_cell(work, refuting))
    reason, after = _refutation(work, limits)
    return MoveCheck(
        Verdict.WRONG, cell, _cell(work, refuting), reason, (_cell(work, refuting), *after)
    )


def _cell(board: Board, index: int) -> Cell:
    return divmod(index, board.cols)


def _cells(board: Board, indices: Iterable[int]) -> tuple[Cell, ...]:
    return tuple(divmod(i, board.cols) for i in indices)


def _refutation(board: Board, limits: Limits) -> tuple[Refutation, tuple[Cell, ...]]:
    """After the refuting reply (the attacker to move on `board`): why it holds, and the play
    that follows it."""
    defender = int(board.turn.other)
    outcome = board.outcome()
    if outcome is not None:
        return Refutation.DEFENDER_WINS, ()
    pos = Position(board.copy())
    theirs = pos.win_cells(defender)
    if theirs and not pos.win_cells(3 - defender):
        # The defender wins next unless one stone stops every winning cell of theirs.
        stopped = False
        for block in pos.blocks(defender, theirs):
            pos.push(block)
            stopped = not pos.win_cells(defender)
            pos.pop()
            if stopped:
                break
        if not stopped:
            block = pos.blocks(defender, theirs)[0]
            pos.push(block)
            five = pos.win_cells(defender)[0]
            return Refutation.DEFENDER_WINS, _cells(board, (block, five))
    return Refutation.HOLDS, _engine_line(board, REFUTATION_PLIES, limits)


def _engine_line(board: Board, plies: int, limits: Limits) -> tuple[Cell, ...]:
    """The strongest AI's play for both sides from `board`, up to `plies` or the end."""
    work = board.copy()
    line: list[Cell] = []
    while len(line) < plies and not work.is_over():
        info = analyse_move(
            work,
            Level.IMPOSSIBLE,
            rng=random.Random(0),
            node_limit=limits.oracle_nodes,
            fresh_tables=True,
        )
        work.push(info.move)
        line.append(info.move)
    return tuple(line)


# ----------------------------------------------------------------------------- the solver
def _solver_proof(board: Board, limits: Limits) -> WinProof | None:
    try:
        first = analyse(board, node_limit=limits.solver_nodes)
        if first.value != 1:
            return None
        line = _perfect_line(board, limits)
    except SolveTimeout:
        return None
    attacker = int(board.turn)
    work = board.copy()
    defences = 0
    for cell in line:
        if int(work.turn) != attacker:
            defences += _real_replies(work, attacker)
        work.push(cell)
    return WinProof(ProofKind.SOLVED, line, defences, first.nodes)


def _perfect_line(board: Board, limits: Limits) -> tuple[Cell, ...]:
    """Perfect play from `board` to the end: the fastest win, the slowest loss."""
    work = board.copy()
    line: list[Cell] = []
    while not work.is_over():
        best = analyse(work, node_limit=limits.solver_nodes).best_move
        if best is None:
            break
        work.push(best)
        line.append(best)
    return tuple(line)


def _real_replies(board: Board, attacker: int) -> int:
    """The defender's replies on `board` after which the attacker cannot win at once."""
    pos = Position(board.copy())
    count = 0
    for reply in [i for i, v in enumerate(pos.grid) if not v]:
        pos.push(reply)
        if not pos.board.is_over() and not pos.win_cells(attacker):
            count += 1
        pos.pop()
    return count


def _solver_check(after: Board, cell: Cell, limits: Limits) -> MoveCheck:
    """check_move on a board the solver proves; `after` is the position after `cell`."""
    try:
        result = analyse(after, node_limit=limits.solver_nodes)
        if result.best_move is None:
            return MoveCheck(Verdict.UNKNOWN, cell)
        reply = result.best_move
        if result.value == -1:
            line = _perfect_line(after, limits)
            return MoveCheck(Verdict.WINNING, cell, reply, line=line)
        line = _perfect_line(after, limits)
    except SolveTimeout:
        return MoveCheck(Verdict.UNKNOWN, cell)
    reason = Refutation.DEFENDER_WINS if result.value == 1 else Refutation.DRAW
    return MoveCheck(Verdict.WRONG, cell, reply, reason, line)


# ----------------------------------------------------------------------------- the threat walk
@dataclass(frozen=True, slots=True)
class _Node:
    line: tuple[int, ...]  # flat cells: from this node's first move to the five
    defences: int


class _Walk:
    """A threat proof for one attacker (see the module's doc): the oracle proves each position
    with the attacker to move; every defender node on the line is answered reply by reply."""

    def __init__(self, board: Board, limits: Limits, attacker: int | None = None) -> None:
        self.pos = Position(board.copy())
        self.attacker = int(board.turn) if attacker is None else attacker
        self.limits = limits
        self.spent = 0
        self.compiled = cores.usable()
        # The reply that refuted the last defender node that failed.
        self.refutation = -1

    def tick(self, nodes: int = 1) -> None:
        self.spent += nodes
        if self.spent > self.limits.nodes:
            raise OutOfBudget

    def win(self, threes: int | None = None) -> int:
        """The first move of the attacker's (to move) proven win, or -1: a five, the blocks of
        the defender's four when they leave a proven win, else the oracle's."""
        pos, att = self.pos, self.attacker
        self.tick()
        wins = pos.win_cells(att)
        if wins:
            return wins[0]
        theirs = pos.win_cells(3 - att)
        if theirs:
            for block in pos.blocks(3 - att, theirs):
                pos.push(block)
                try:
                    refuted = self.refute(threes) >= 0
                finally:
                    pos.pop()
                if not refuted:
                    return block
            return -1
        return self._oracle(self.limits.threes if threes is None else threes)

    def _oracle(self, threes: int) -> int:
        """The first move of a win the threat search proves for the attacker (to move), or -1."""
        board, limits = self.pos.board, self.limits
        if self.compiled:
            from ..ai import compiled

            try:
                found = compiled.threat_win(board, limits.oracle_nodes, threes)
            except cores.CoreNotReady:
                self.compiled = False
            else:
                self.tick(found.nodes)
                return found.move
        # The pure-Python VCT's defences are not complete (engine.ai.threats): only its wins by
        # fours are proofs.
        budget = Budget(limits.oracle_nodes, None)
        try:
            line = vcf(self.pos, budget)
        except OutOfBudget:
            line = None
        self.tick(budget.nodes)
        return line[0] if line else -1

    def refute(self, threes: int | None = None) -> int:
        """The defender to move, the attacker having no four-free escape: a reply after which
        the attacker has no proven win, or -1 when every reply leaves one. Each reply costs one
        proof from the oracle (or a five, or the blocks of a counter-four)."""
        pos, att = self.pos, self.attacker
        theirs = pos.win_cells(3 - att)
        if theirs:
            return theirs[0]
        answers = self.answers = {}
        for reply in self.replies():
            pos.push(reply)
            before = self.spent
            try:
                answer = self.win(threes)
            finally:
                pos.pop()
            if answer < 0:
                return reply
            answers[reply] = (answer, self.spent - before)
        return -1

    def replies(self) -> Iterator[int]:
        """The defender's replies to read: the blocks when the attacker has a four (any other
        loses to the five), else every empty cell, the likeliest refutations first (the
        defender's own forks, the cells that meet the attacker's threes, the defender's fours,
        the cells near the stones)."""
        pos, att = self.pos, self.attacker
        wins = pos.win_cells(att)
        if wins:
            yield from pos.blocks(att, wins)
            return
        forks = fork_cells(pos, att)
        first: list[int] = fork_cells(pos, 3 - att)
        if forks:
            first.extend(three_defences(pos, att, forks))
        first.extend(pos.four_moves(3 - att))
        first.extend(pos.candidates())
        first.extend(i for i, v in enumerate(pos.grid) if not v)
        seen: set[int] = set()
        for cell in first:
            # Under renju black may not defend on a forbidden point.
            if cell not in seen and not pos.grid[cell] and not pos.forbidden(cell, 3 - att):
                seen.add(cell)
                yield cell

    # The last refute's replies, each with the attacker's answer and the nodes its proof took.
    answers: dict[int, tuple[int, int]]

    def line(self, first: int) -> _Node | None:
        """With the attacker to move and `first` a winning move: the line from it to the five,
        the defender choosing at each node the reply whose proof took the most nodes (the
        longest resistance), and the defences counted on the way. None if the line does not
        end in the attacker's five (a defender node on it found a refutation after all)."""
        pos, att = self.pos, self.attacker
        played = 0
        line: list[int] = []
        defences = 0
        move = first
        try:
            while True:
                pos.push(move)
                played += 1
                line.append(move)
                outcome = pos.board.outcome()
                if outcome is not None:
                    if outcome.winner is None or int(outcome.winner) != att:
                        return None
                    break
                refutation = self.refute()
                if refutation >= 0:
                    self.refutation = refutation
                    return None
                reply, distinct = _best_reply(self.answers)
                defences += distinct
                pos.push(reply)
                played += 1
                line.append(reply)
                move = self.answers[reply][0]
        finally:
            for _ in range(played):
                pos.pop()
        return _Node(tuple(line), defences)


def _best_reply(answers: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """The defence to show (the reply whose proof took the most nodes, the first of equals) and
    how many defences the node counts: the replies the attacker's commonest answer (its threat's
    follow-up) does not meet, plus that one."""
    counts: dict[int, int] = {}
    for answer, _ in answers.values():
        counts[answer] = counts.get(answer, 0) + 1
    common = max(counts, key=lambda a: (counts[a], -a))
    others = sum(1 for answer, _ in answers.values() if answer != common)
    reply = max(answers, key=lambda r: answers[r][1])
    return reply, others + 1


# ----------------------------------------------------------------------------- mining
def candidates(record: GameRecord, review_nodes: int = REVIEW_NODES) -> list[tuple[int, str]]:
    """(plies played, turning point kind) of the positions the review names in `record`: the
    position before a missed win and before the winner's forced win began, the one after a
    move that let the opponent force a win."""
    review = review_game(
        record.moves,
        record.rows,
        record.cols,
        record.k,
        record.rule,
        budget_s=3600.0,
        node_limit=review_nodes,
    )
    found: list[tuple[int, str]] = []
    for point in review.turning_points:
        if point.kind in (TurnKind.MISSED_WIN, TurnKind.WIN_BEGAN):
            found.append((point.ply - 1, point.kind.value))
        elif point.kind in (TurnKind.LOSING_MOVE, TurnKind.LOST_DRAW):
            found.append((point.ply, point.kind.value))
    return found


def mine(
    game: GameRecord | Board,
    *,
    source: str = "",
    limits: Limits = Limits(),
    review_nodes: int = REVIEW_NODES,
    min_moves: int = MIN_MOVES,
) -> list[Puzzle]:
    """The puzzles of one finished game: the review's candidates that a proof confirms, taking
    at least `min_moves` attacking moves, each position once."""
    record = GameRecord.from_board(game) if isinstance(game, Board) else game
    found: list[Puzzle] = []
    keys: set[str] = set()
    for ply, origin in candidates(record, review_nodes):
        board = Board(record.rows, record.cols, record.k, record.rule)
        for cell in record.moves[:ply]:
            board.push(cell)
        if board.is_over():
            continue
        proof = prove_board(board, limits)
        if proof is None or proof.moves < min_moves:
            continue
        puzzle = puzzle_of(board, proof, source=source, origin=origin)
        if puzzle.key not in keys:
            keys.add(puzzle.key)
            found.append(puzzle)
    return found


def puzzle_of(board: Board, proof: WinProof, *, source: str, origin: str) -> Puzzle:
    return Puzzle(
        position=board.text(),
        to_move=board.turn,
        kind=proof.kind,
        line=tuple(cell_name(c) for c in proof.line),
        moves=proof.moves,
        defences=proof.defences,
        difficulty=proof.difficulty,
        source=source,
        ply=board.ply,
        origin=origin,
    )


def dedupe(puzzles: Iterable[Puzzle]) -> list[Puzzle]:
    """Each position once (the first found), in order."""
    keys: set[str] = set()
    out: list[Puzzle] = []
    for puzzle in puzzles:
        if puzzle.key not in keys:
            keys.add(puzzle.key)
            out.append(puzzle)
    return out


def self_play(
    games: int,
    rows: int = 15,
    cols: int = 15,
    k: int = 5,
    rule: Rule = Rule.FREESTYLE,
    *,
    levels: tuple[str, str] = (Level.HARD, Level.IMPOSSIBLE),
    node_limit: int = 2000,
    seed: int = 1,
    opening: int = 2,
) -> Iterator[tuple[str, Board]]:
    """AI-vs-AI games: (a name for the game, its final board), reproducibly. The two levels
    swap colours every game; each game opens with `opening` random stones near the centre, and
    every move is searched within `node_limit` nodes (the clock is not read)."""
    for number in range(games):
        rng = random.Random(seed * 1_000_003 + number)
        board = Board(rows, cols, k, rule)
        centre_r, centre_c = rows // 2, cols // 2
        while board.ply < min(opening, rows * cols - 1):
            cell = (
                min(rows - 1, max(0, centre_r + rng.randint(-2, 2))),
                min(cols - 1, max(0, centre_c + rng.randint(-2, 2))),
            )
            if board[cell] is None:
                board.push(cell)
        players = levels if number % 2 == 0 else (levels[1], levels[0])
        while not board.is_over():
            level = players[board.ply % 2]
            board.push(
                choose_move(board, level, rng=rng, node_limit=node_limit, fresh_tables=True)
            )
        name = f"self-play {seed}:{number + 1} ({players[0]} X, {players[1]} O)"
        yield name, board


# ----------------------------------------------------------------------------- files
SHARE_HEADER = (
    "# caro puzzles: one a line. Each: who is to play and win | the proof (vcf: fours only, "
    "vct: fours and threes, solved: perfect play) | difficulty = attacking moves + defences the "
    "proof answers | the position (board, k, rule, the moves so far) | a solution (the "
    "attacker's moves and the best defence) | where it comes from"
)
_SHARE_RE = re.compile(
    r"(?P<mark>[XO]) to play and win \| (?P<kind>\w+) \| difficulty (?P<difficulty>\d+) = "
    r"(?P<moves>\d+) moves? \+ (?P<defences>\d+) defences? \| (?P<position>[^|]+) \| "
    r"solution (?P<line>[^|]+) \| (?P<origin>\w+) after move (?P<ply>\d+) of (?P<source>.*)"
)


def share_line(puzzle: Puzzle) -> str:
    """The puzzle as one line a person can read, and read_puzzles reads back."""
    moves = "move" if puzzle.moves == 1 else "moves"
    defences = "defence" if puzzle.defences == 1 else "defences"
    source = (puzzle.source or "an unnamed game").replace("|", "/")
    return (
        f"{puzzle.to_move.name} to play and win | {puzzle.kind.value} | difficulty "
        f"{puzzle.difficulty} = {puzzle.moves} {moves} + {puzzle.defences} {defences} | "
        f"{puzzle.position} | solution {' '.join(puzzle.line)} | {puzzle.origin} after move "
        f"{puzzle.ply} of {source}"
    )


def parse_share_line(line: str) -> Puzzle:
    match = _SHARE_RE.fullmatch(line.strip())
    if match is None:
        raise ValueError("not a puzzle line (expected 'X to play and win | vcf | ...')")
    return Puzzle.from_dict(
        {
            "version": FORMAT_VERSION,
            "position": match["position"].strip(),
            "to_move": match["mark"],
            "kind": match["kind"],
            "line": match["line"].split(),
            "moves": match["moves"],
            "defences": match["defences"],
            "difficulty": match["difficulty"],
            "source": match["source"].strip(),
            "ply": match["ply"],
            "origin": match["origin"],
        }
    )


def read_puzzles(text: str) -> list[Puzzle]:
    """Puzzles from a file's text: JSON lines (write_puzzles) or shared lines (share_text).
    ValueError naming the first line that is not a puzzle."""
    puzzles: list[Puzzle] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            if stripped.startswith("{"):
                data = json.loads(stripped)
                if not isinstance(data, dict):
                    raise ValueError("not a puzzle object")
                puzzles.append(Puzzle.from_dict(data))
            else:
                puzzles.append(parse_share_line(stripped))
        except ValueError as exc:  # json.JSONDecodeError is one
            raise ValueError(f"line {number}: {exc}") from None
    return puzzles


def load_puzzles(path: str | Path) -> list[Puzzle]:
    """read_puzzles on a file; OSError if it cannot be read."""
    return read_puzzles(Path(path).read_text(encoding="utf-8"))


def write_puzzles(puzzles: Iterable[Puzzle], path: str | Path) -> Path:
    """One JSON object a line."""
    file = Path(path)
    file.write_text(
        "".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in puzzles),
        encoding="utf-8",
    )
    return file


def hardest(puzzles: Iterable[Puzzle], count: int) -> list[Puzzle]:
    """The `count` hardest: by difficulty, then the longer win, then the position (stable)."""
    ranked = sorted(puzzles, key=lambda p: (-p.difficulty, -p.moves, p.position))
    return ranked[:count]


def share_text(puzzles: Iterable[Puzzle]) -> str:
    return "\n".join([SHARE_HEADER, *(share_line(p) for p in puzzles)]) + "\n"


__all__ = [
    "Limits",
    "MoveCheck",
    "ProofKind",
    "Puzzle",
    "Refutation",
    "Verdict",
    "WinProof",
    "candidates",
    "check_move",
    "dedupe",
    "hardest",
    "load_puzzles",
    "mine",
    "parse_share_line",
    "prove",
    "prove_board",
    "puzzle_of",
    "read_puzzles",
    "self_play",
    "share_line",
    "share_text",
    "uses_solver",
    "write_puzzles",
]
