"""Threat sequences: victory by continuous fours (VCF).

The attacker plays only moves that threaten to win at once, so every defender reply is forced
(block the single winning cell, or lose). That keeps the tree narrow enough to read many moves
deep, which is how most games on big boards are actually decided.
"""

from __future__ import annotations

import time

from .position import Position


class Budget:
    """Shared node counter with an abort point: a node cap, a clock deadline, or both."""

    __slots__ = ("nodes", "node_limit", "deadline", "clock")

    def __init__(self, node_limit: int | None, deadline: float | None) -> None:
        self.nodes = 0
        self.node_limit = node_limit
        self.deadline = deadline
        self.clock = time.perf_counter

    def spent(self) -> bool:
        """Count one node; True when the search must stop."""
        self.nodes += 1
        if self.node_limit is not None:
            return self.nodes > self.node_limit
        # A node costs tens of microseconds, the clock a tenth of one: read it every time.
        return self.deadline is not None and self.clock() > self.deadline


class OutOfBudget(Exception):
    """Raised inside a search when its budget is spent; the caller keeps its last full answer."""


def vcf(pos: Position, budget: Budget, max_depth: int = 40) -> list[int] | None:
    """A winning line of fours for the side to move, as flat cells (its moves and the forced
    replies, alternating), or None when none is found. Raises OutOfBudget when the budget ends."""
    attacker = pos.turn
    failed: set[int] = set()
    line: list[int] = []
    start = pos.board.ply
    try:
        found = _attack(pos, attacker, budget, max_depth, failed, line)
    except OutOfBudget:
        # Leave the position as it was given, whatever depth the budget ran out at.
        while pos.board.ply > start:
            pos.pop()
        raise
    return line if found else None


def _attack(
    pos: Position, attacker: int, budget: Budget, depth: int, failed: set[int], line: list[int]
) -> bool:
    if budget.spent():
        raise OutOfBudget
    wins = pos.win_cells(attacker)
    if wins:
        line.append(wins[0])
        return True
    defender = 3 - attacker
    if depth <= 0 or pos.win_cells(defender):
        # A defender's own four would have to be answered: the fours stop being continuous.
        return False
    key = pos.board.zobrist
    if key in failed:
        return False
    moves = pos.four_moves(attacker)
    if len(moves) > 1:
        scores = pos.move_scores(moves, attacker)
        order = sorted(range(len(moves)), key=lambda i: -scores[i])
        moves = [moves[i] for i in order]
    for move in moves:
        pos.push(move)
        threats = pos.win_cells(attacker)
        won = bool(threats)
        shown: list[int] = []
        if won:
            for reply in pos.blocks(attacker, threats):
                pos.push(reply)
                sub: list[int] = []
                ok = _attack(pos, attacker, budget, depth - 1, failed, sub)
                pos.pop()
                if not ok:
                    won = False
                    break
                if not shown:
                    shown = [reply, *sub]
        pos.pop()
        if won:
            line.extend([move, *shown])
            return True
    failed.add(key)
    return False


# Threat moves the VCT search tries per attacker node, best first by the quick move score: the
# few strongest threes decide nearly every real sequence, and width is what makes it explode.
VCT_THREE_WIDTH = 6


def vct(pos: Position, budget: Budget, max_depth: int = 6) -> list[int] | None:
    """A forced win for the side to move by continuous threats (fours and open threes), as flat
    cells (attacking moves and the first defence tried after each), or None when none is found.

    A three counts as a threat when it leaves a cell that would make two winning cells at once
    (an open four or a double four). The defences read after it are the cells of the attacker's
    lines one stone short of a four that hold such a cell, plus the defender's own fours, which
    gain it a tempo. That is the usual narrowing of threat-space search: sound for the attacker's
    fours, and for threes it misses only unusual defences, so callers treat the answer as the
    strongest of hints rather than a proof. `max_depth` caps the attacker's threes in a line
    (fours cost nothing: the replies to them are forced).
    Raises OutOfBudget when the budget ends, with the position restored.
    """
    attacker = pos.turn
    failed: set[tuple[int, int]] = set()
    line: list[int] = []
    start = pos.board.ply
    found = False
    try:
        # Deepening one three at a time finds the short wins first and cheaply: each extra three
        # multiplies the work. Lines that failed with d threes left stay failed at that d.
        for depth in range(1, max_depth + 1):
            if _threat_attack(pos, attacker, budget, depth, failed, line):
                found = True
                break
    except OutOfBudget:
        while pos.board.ply > start:
            pos.pop()
        raise
    return line if found else None


def fork_cells(pos: Position, mark: int) -> list[int]:
    """Cells where `mark` would make two or more winning cells at once (an open or double four)."""
    return [cell for cell in pos.four_moves(mark) if len(pos.wins_after(cell, mark)) >= 2]


def _three_moves(pos: Position, attacker: int, fours: list[int]) -> list[int]:
    """Empty cells that grow a line of k-3 of the attacker's stones into one of k-2, best first."""
    k = pos.k
    if k < 4:
        return []
    mine, theirs = pos.count[attacker], pos.count[3 - attacker]
    grid, window_cells = pos.grid, pos.window_cells
    found: set[int] = set()
    for w, cells in enumerate(window_cells):
        if mine[w] == k - 3 and theirs[w] == 0:
            for cell in cells:
                if not grid[cell]:
                    found.add(cell)
    found.difference_update(fours)
    moves = pos.allowed(sorted(found), attacker)
    scores = pos.move_scores(moves, attacker)
    order = sorted(range(len(moves)), key=lambda i: (-scores[i], moves[i]))
    return [moves[i] for i in order]


def _threat_attack(
    pos: Position,
    attacker: int,
    budget: Budget,
    depth: int,
    failed: set[tuple[int, int]],
    line: list[int],
) -> bool:
    """The attacker is to move: does a four or a three lead to a forced win?"""
    if budget.spent():
        raise OutOfBudget
    wins = pos.win_cells(attacker)
    if wins:
        line.append(wins[0])
        return True
    defender = 3 - attacker
    their_wins = pos.win_cells(defender)
    if their_wins:
        # The defender's four must be answered first; the attack goes on only if one cell does.
        blocks = pos.blocks(defender, their_wins)
        if len(blocks) != 1:
            return False
        pos.push(blocks[0])
        try:
            sub: list[int] = []
            ok = _threat_defend(pos, attacker, budget, depth, failed, sub)
        finally:
            pos.pop()
        if ok:
            line.extend([blocks[0], *sub])
        return ok
    key = (pos.board.zobrist, depth)
    if key in failed:
        return False
    fours = pos.four_moves(attacker)
    if len(fours) > 1:
        scores = pos.move_scores(fours, attacker)
        order = sorted(range(len(fours)), key=lambda i: -scores[i])
        fours = [fours[i] for i in order]
    tried = 0
    threes = _three_moves(pos, attacker, fours) if depth > 0 else []
    for move in [*fours, *threes]:
        is_three = move not in fours
        pos.push(move)
        try:
            if is_three:
                if not fork_cells(pos, attacker):
                    continue
                tried += 1
            sub = []
            # Fours cost no depth: every reply to them is forced, so they stay cheap to read.
            ok = _threat_defend(pos, attacker, budget, depth - is_three, failed, sub)
        finally:
            pos.pop()
        if ok:
            line.extend([move, *sub])
            return True
        if tried >= VCT_THREE_WIDTH:
            break
    failed.add(key)
    return False


def _threat_defend(
    pos: Position,
    attacker: int,
    budget: Budget,
    depth: int,
    failed: set[tuple[int, int]],
    line: list[int],
) -> bool:
    """The defender is to move after a threat: does every defence still lose?"""
    if budget.spent():
        raise OutOfBudget
    defender = 3 - attacker
    if pos.win_cells(defender):
        return False
    wins = pos.win_cells(attacker)
    if wins:
        replies = pos.blocks(attacker, wins)
    else:
        forks = fork_cells(pos, attacker)
        if not forks:
            return False
        replies = _defences(pos, attacker, forks)
        replies.extend(c for c in pos.four_moves(defender) if c not in replies)
    shown: list[int] = []
    for reply in replies:
        pos.push(reply)
        try:
            sub: list[int] = []
            ok = _threat_attack(pos, attacker, budget, depth, failed, sub)
        finally:
            pos.pop()
        if not ok:
            return False
        if not shown:
            shown = [reply, *sub]
    line.extend(shown)
    return True


def _defences(pos: Position, attacker: int, forks: list[int]) -> list[int]:
    """Empty cells of the attacker's lines one stone short of a four that hold a fork cell."""
    k, grid = pos.k, pos.grid
    window_cells = pos.window_cells
    fork_set = set(forks)
    found: set[int] = set(forks)
    for w in pos.live[attacker][k - 2]:
        cells = window_cells[w]
        if any(c in fork_set for c in cells):
            found.update(c for c in cells if not grid[c])
    return pos.allowed(sorted(found), 3 - attacker)
