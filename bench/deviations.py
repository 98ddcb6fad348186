"""Where a brain's moves lose ground against a Gomocup engine, read from a `bench.match`
log and the engine's own values and lines (Rapfi's MESSAGE lines "Eval 54", "Bestline H8 G9").

    python -m bench.deviations /tmp/caro-rapfi.jsonl --name caro --jump 100 --seconds 1

A *deviation* is a move of the brain (`--name`) that is not the reply the opponent expected
(the second cell of the opponent's principal variation at its move before), after which the
opponent's value rose by `--jump` points or more at its next move, both values short of a forced
result. The opponent's expected reply is then the move it feared more, read deeper than the
brain read its own.

For each deviation, the brain's compiled search (this tree's, in this process) is asked:
- on the position, at `--seconds`: the move it chooses, and where the expected reply stands
  in its root ranking (moves best first, those that failed low in their order of search;
  "unranked" where the search did not rank it);
- after each of the two moves, at `--seconds` each, from empty tables: its value of each
  (for the side that made it; a threat search's proof is a forced win, and a single forced
  reply is played and the position after it read). Where it values the expected reply higher
  once made to read it, the search did not find it in time (its order, pruning or depth); where
  it still values its own move higher, its evaluation and horizon disagree with the opponent's.

Before the searches, a tally of the cell patterns (engine.ai.patterns) the moves played take
against the expected replies: for the brain (what a move makes) and for the opponent (what it
blocks). Where its moves block less than the expected replies, the brain values defence below
what the opponent's deeper reading does.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable
from dataclasses import dataclass

from bench.losses import line_said, read_logs, value_said
from bench.match import reply_cell
from engine.game.board import Board
from engine.game.notation import cell_name
from engine.game.types import Cell, Rule
from engine.support.stats import percentile


@dataclass(frozen=True, slots=True)
class Deviation:
    game: int
    after_opening: int  # the brain's move number after the opening, from 1
    before: tuple[Cell, ...]  # every stone played before the brain's move
    rule: Rule
    size: int
    played: Cell
    expected: Cell
    value_before: int  # the opponent's value at its move before
    value_after: int  # its value at its move after
    lost: bool  # the brain lost the game


def deviations(records: Iterable[dict[str, object]], name: str, jump: int,
               plies: int) -> tuple[list[Deviation], int, int]:
    """The brain's deviations in the log's games, the brain's moves read (those with the
    opponent's values on both sides), and how many of them were the expected reply."""
    out: list[Deviation] = []
    read = same = 0
    for record in records:
        if name not in (record["black"], record["white"]):
            continue
        moves: list[dict[str, object]] = record["moves"]  # type: ignore[assignment]
        size = int(record.get("size", 15))  # type: ignore[call-overload]
        rule = Rule(str(record.get("rule", Rule.FREESTYLE.value)))
        opening: list[Cell] = [(int(row), int(col))
                               for row, col in record["opening"]]  # type: ignore[attr-defined]
        replies = [reply_cell(str(m["move"]), size) for m in moves]
        # A move that is no cell of the board ended its game: the moves before it are read.
        if None in replies:
            moves = moves[: replies.index(None)]
        cells: list[Cell] = [*opening, *(c for c in replies if c is not None)]
        lost = record["winner"] not in (None, name)
        for i in range(1, min(len(moves) - 1, plies)):
            if moves[i]["by"] != name:
                continue
            before = value_said(moves[i - 1]["said"])  # type: ignore[arg-type]
            after = value_said(moves[i + 1]["said"])  # type: ignore[arg-type]
            line = line_said(moves[i - 1]["said"], size)  # type: ignore[arg-type]
            if before is None or after is None or before.plies or after.plies or len(line) < 2:
                continue
            if line[0] != cells[len(opening) + i - 1]:
                continue  # a line that does not start with the opponent's own move is stale
            read += 1
            played = cells[len(opening) + i]
            if played == line[1]:
                same += 1
                continue
            if after.points - before.points < jump:
                continue
            out.append(Deviation(int(record["index"]), i // 2 + 1,  # type: ignore[call-overload]
                                 tuple(cells[: len(opening) + i]), rule, size,
                                 played, line[1], before.points, after.points, lost))
    return out, read, same


@dataclass(frozen=True, slots=True)
class Shapes:
    """How the moves played at deviations compare with the expected replies by the cell
    patterns they take (engine.ai.patterns.CATEGORIES, ranked in that order): for the brain
    (what the move makes) and for the opponent (what it blocks)."""

    makes_more: int
    makes_less: int
    blocks_more: int
    blocks_less: int


def shapes(found: Iterable[Deviation]) -> Shapes:
    """The tally of Shapes over the deviations `found`."""
    from engine.ai.patterns import cell_patterns

    tally = [0, 0, 0, 0]
    for d in found:
        board = _board(d)
        me = int(board.turn)
        for side, mark in ((0, me), (2, 3 - me)):
            cells = cell_patterns(list(board.grid), d.size, d.size, d.rule, mark)
            played = int(cells[d.played[0] * d.size + d.played[1]])
            expected = int(cells[d.expected[0] * d.size + d.expected[1]])
            tally[side] += played > expected
            tally[side + 1] += played < expected
    return Shapes(*tally)


def _board(d: Deviation, extra: tuple[Cell, ...] = ()) -> Board:
    board = Board(d.size, d.size, 5, d.rule)
    for cell in (*d.before, *extra):
        board.push(cell)
    return board


def _value_of(board: Board, seconds: float) -> int:
    """The compiled search's value of the position for the side that just moved."""
    return -_to_move(board, seconds)


def _to_move(board: Board, seconds: float, forced: int = 0) -> int:
    """The compiled search's value of the position for the side to move: a threat search's
    proof is a won value (the search says 0 for a win by threes), and a single reply (the
    search says no value) is played and the position after it read."""
    from engine.ai import compiled, core

    outcome = board.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0
        return core.WIN if outcome.winner == board.turn else -core.WIN
    result = compiled.think(board, time.perf_counter() + seconds, fresh=True)
    if result.kind == "vct":
        return core.WON
    if result.kind == "search" and len(result.ranking) < 2 and forced < 30:
        board.push(divmod(result.move, board.cols))
        return -_to_move(board, seconds, forced + 1)
    return result.value


def _shown(value: int) -> str:
    """A value as the report prints it: points, or a forced win or loss."""
    from engine.ai import core

    if value >= core.WON:
        return "a forced win"
    if value <= -core.WON:
        return "a forced loss"
    return f"{value:+d}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="bench.match --log files")
    parser.add_argument("--name", required=True, help="the brain whose moves are read")
    parser.add_argument("--jump", type=int, default=100,
                        help="the rise in the opponent's value that makes a deviation")
    parser.add_argument("--plies", type=int, default=60,
                        help="read the games' first PLIES moves after the opening")
    parser.add_argument("--seconds", type=float, default=1.0, help="the search's time per ask")
    parser.add_argument("--only-lost", action="store_true", help="the brain's lost games alone")
    parser.add_argument("--limit", type=int, default=0, help="ask on the first N deviations")
    args = parser.parse_args(argv)

    records = read_logs(parser, args.logs, args.name)
    found, read, same = deviations(records, args.name, args.jump, args.plies)
    if args.only_lost:
        found = [d for d in found if d.lost]
    print(f"{args.name}: {read} moves with the opponent's values around them; the expected reply "
          f"at {same} ({same / max(1, read):.0%}); deviations of {args.jump}+ points: {len(found)}")
    taken = shapes(found)
    print(f"  the cell pattern of the move played against the expected reply's: for "
          f"{args.name} (what it makes), stronger at {taken.makes_more} and weaker at "
          f"{taken.makes_less}; for the opponent (what it blocks), stronger at "
          f"{taken.blocks_more} and weaker at {taken.blocks_less}")
    if args.limit:
        found = found[: args.limit]
    from engine.ai import compiled, core

    prefers_expected = chosen_expected = chosen_played = 0
    ranks: list[int] = []
    unranked = 0
    gaps: list[int] = []
    for d in found:
        board = _board(d)
        size = d.size
        result = compiled.think(board, time.perf_counter() + args.seconds, fresh=True)
        flat = d.expected[0] * size + d.expected[1]
        rank = result.ranking.index(flat) + 1 if flat in result.ranking else None
        if rank is None:
            unranked += 1
        else:
            ranks.append(rank)
        chose = (result.move // size, result.move % size)
        chosen_expected += chose == d.expected
        chosen_played += chose == d.played
        mine = _value_of(_board(d, (d.played,)), args.seconds)
        theirs = _value_of(_board(d, (d.expected,)), args.seconds)
        prefers_expected += theirs > mine
        if max(abs(mine), abs(theirs)) < core.WON:
            gaps.append(theirs - mine)
        print(f"  game {d.game + 1} move {d.after_opening}: played {cell_name(d.played)}, "
              f"expected {cell_name(d.expected)} ({d.value_before:+d} -> {d.value_after:+d}); "
              f"now {cell_name(chose)} ({result.kind}, depth {result.depth}), expected ranked "
              f"{rank or 'unranked'} of {len(result.ranking)}; values: played {_shown(mine)}, "
              f"expected {_shown(theirs)}", flush=True)
    n = len(found)
    if n:
        ordered = sorted(ranks)
        print(f"asked {n}: the search now chooses the expected reply at {chosen_expected}, the "
              f"move played at {chosen_played}; "
              f"ranks it median {percentile(ordered, 0.5) if ordered else 0:g} "
              f"(unranked {unranked}); made to read both, values the expected reply higher at "
              f"{prefers_expected} of {n} (the gap where neither is a forced result, median "
              f"{percentile(sorted(gaps), 0.5) if gaps else 0:+g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
