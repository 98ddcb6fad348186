"""Alpha-beta search with iterative deepening, a transposition table and threat-aware move lists.

Values are for the side to move. A win found `p` plies from the root is worth WIN - p, so the
search prefers the fastest win and, when lost, the slowest loss.
"""

from __future__ import annotations

from dataclasses import dataclass

from .position import Position
from .threats import Budget, OutOfBudget, vcf

WIN = 1_000_000_000
WON = WIN - 10_000  # any value beyond this is a forced result

EXACT, LOWER, UPPER = 0, 1, 2
MAX_EXTENDED_PLY = 40  # no free plies past this depth, so extensions always end


@dataclass(frozen=True, slots=True)
class SearchResult:
    move: int
    value: int
    depth: int  # the deepest iteration completed
    ranking: tuple[int, ...]  # root moves, best first, as the last full iteration ordered them


class Searcher:
    """One search: its own table, killers and history, so results depend only on the inputs."""

    def __init__(
        self, pos: Position, budget: Budget, width: int, root_width: int, leaf_vcf: int = 0
    ) -> None:
        self.pos = pos
        self.budget = budget
        self.width = width
        self.root_width = root_width
        self.leaf_vcf = leaf_vcf  # attacker moves a leaf's threat search may read; 0: none
        self.table: dict[int, tuple[int, int, int, int]] = {}  # key -> depth, flag, value, move
        self.killers: dict[int, int] = {}  # ply -> a move that cut off there before
        self.history = [0] * pos.size
        self.root_ply = pos.board.ply

    # ------------------------------------------------------------------ move lists
    def ordered(self, ply: int, hint: int) -> tuple[list[int], bool]:
        """Moves worth searching, best guess first, and whether they are forced."""
        pos = self.pos
        me = pos.turn
        them = 3 - me
        threats = pos.win_cells(them)
        if threats:
            blocks = pos.blocks(them, threats)
            # No block only under renju (black's are all forbidden): the game is lost, and any
            # move will do.
            if blocks:
                return blocks, True
        cells = pos.candidates()
        scores = pos.move_scores(cells, me)
        history = self.history
        killer = self.killers.get(ply, -1)
        keyed = []
        for cell, score in zip(cells, scores, strict=True):
            bonus = history[cell]
            if cell == hint:
                bonus += 1 << 40
            elif cell == killer:
                bonus += 1 << 30
            keyed.append((score + bonus, -cell))
        keyed.sort(reverse=True)
        width = self.root_width if ply == 0 else self.width
        return [-c for _, c in keyed[:width]], False

    # ------------------------------------------------------------------ the search
    def negamax(self, depth: int, alpha: int, beta: int, ply: int) -> int:
        pos = self.pos
        if self.budget.spent():
            raise OutOfBudget
        me = pos.turn
        if pos.win_cells(me):
            return WIN - ply - 1
        if pos.board.is_over():
            return 0
        if depth <= 0:
            threats = pos.win_cells(3 - me)
            if threats:
                blocks = pos.blocks(3 - me, threats)
                if not blocks or (len(threats) > 1 and len(blocks) > 1):
                    return -(WIN - ply - 2)
            elif self.leaf_vcf and pos.live[me][pos.k - 2]:
                # A quiet-looking leaf may hide a win by fours for the side to move.
                line = vcf(pos, self.budget, self.leaf_vcf)
                if line is not None:
                    return WIN - ply - len(line)
            return pos.evaluate()
        key = pos.board.zobrist
        entry = self.table.get(key)
        hint = -1
        if entry is not None:
            e_depth, flag, value, hint = entry
            if e_depth >= depth:
                value = _from_table(value, ply)
                if flag == EXACT:
                    return value
                if flag == LOWER and value >= beta:
                    return value
                if flag == UPPER and value <= alpha:
                    return value
        moves, forced = self.ordered(ply, hint)
        if not moves:
            return 0
        # A forced block costs the defender no thought: search it one ply deeper for free, so
        # lines of fours are read further.
        next_depth = depth if forced and len(moves) == 1 and ply < MAX_EXTENDED_PLY else depth - 1
        start_alpha = alpha
        best = -WIN
        best_move = moves[0]
        for move in moves:
            pos.push(move)
            value = -self.negamax(next_depth, -beta, -alpha, ply + 1)
            pos.pop()
            if value > best:
                best = value
                best_move = move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self.killers[ply] = move
                        self.history[move] += depth * depth
                        break
        flag = UPPER if best <= start_alpha else (LOWER if best >= beta else EXACT)
        self.table[key] = (depth, flag, _to_table(best, ply), best_move)
        return best

    def root(self, max_depth: int) -> SearchResult:
        """Iterative deepening until max_depth or the budget ends; the last full pass answers."""
        pos = self.pos
        moves, _ = self.ordered(0, -1)
        result = SearchResult(moves[0], 0, 0, tuple(moves))
        if len(moves) == 1:
            return result
        for depth in range(1, max_depth + 1):
            scored: list[tuple[int, int]] = []
            alpha = -WIN
            try:
                for move in moves:
                    pos.push(move)
                    value = -self.negamax(depth - 1, -WIN, -alpha, 1)
                    pos.pop()
                    scored.append((value, move))
                    alpha = max(alpha, value)
            except OutOfBudget:
                # Unwind the pushes the aborted search left behind.
                while pos.board.ply > self.root_ply:
                    pos.pop()
                # The pass searched the old best first, so any move that beat it within this
                # pass is better at the new depth too.
                if scored:
                    value, move = max(scored, key=lambda s: s[0])
                    result = SearchResult(move, value, result.depth, result.ranking)
                break
            # Stable sort keeps the previous order among equals, so ties stay reproducible.
            ranked = sorted(scored, key=lambda s: -s[0])
            moves = [m for _, m in ranked]
            result = SearchResult(moves[0], ranked[0][0], depth, tuple(moves))
            if abs(ranked[0][0]) >= WON:
                break  # proven: the shortest win (or longest loss) is already in hand
        return result


def _to_table(value: int, ply: int) -> int:
    # Forced results are stored relative to the node, so a transposition at another ply reads
    # the right distance to the end.
    if value >= WON:
        return value + ply
    if value <= -WON:
        return value - ply
    return value


def _from_table(value: int, ply: int) -> int:
    if value >= WON:
        return value - ply
    if value <= -WON:
        return value + ply
    return value
