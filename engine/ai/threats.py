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
