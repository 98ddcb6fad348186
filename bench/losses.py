"""Where a brain's games against a Gomocup engine were lost, read from a `bench.match` log and
the engine's own values (Rapfi's MESSAGE lines: "Eval 54", "Eval -120", a forced win "Eval +M29",
a forced loss "Eval -M12").

    python -m bench.losses /tmp/caro-rapfi.jsonl --name caro --prove 300000 \\
        --again ".venv/bin/caro pbrain --say-depth" --again-turn 8 \\
        --judge "/tmp/rapfi/src/Rapfi/build/pbrain-rapfi" --judge-turn 3

For each game the brain (`--name`) lost: the move after the opening at which the opponent's
value first reached `--edge` and the one at which it first claimed a forced win. The turning
move of such a game is the brain's move after which the opponent first claimed a forced win,
from a position it had valued short of one (its value before the move is printed).

On each turning move, optionally:
- `--prove N`: does caro's threat search (fours and at most `--threes` threes,
  `engine.ai.compiled.threat_win`) prove the opponent's win after it, within N nodes?
- `--again COMMAND`: the brain asked again on the position before it at `--again-turn` seconds
  (a longer think): does it still play the turning move?
- `--judge COMMAND`: the opponent asked, from the brain's side, on the position before it
  (`--judge-turn` seconds): did the position already lose (a forced loss), or was there a move
  that holds? And, where `--again` chose another move, the opponent's value after that move.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.match import BrainError, Process, board_request, info_lines, parse_brain, reply_cell
from engine.game.board import Board
from engine.game.notation import parse_cell
from engine.game.types import Cell, InvalidMoveError, Rule
from engine.support.stats import percentile

_EVAL = re.compile(r"\bEval\s+([+-]?)(M?)(\d+)", re.IGNORECASE)
_LINE = re.compile(r"\bBestline\b(.*)", re.IGNORECASE)
START_WAIT = 60.0  # seconds a brain may take to answer START (caro loads its compiled core)
ANSWER_GRACE = 30.0  # seconds past the turn time before a brain asked here counts as silent


@dataclass(frozen=True, slots=True)
class Value:
    """A brain's value of its move, for itself: points, or a forced result in `plies`."""

    points: int = 0
    plies: int = 0  # > 0: a forced win in that many plies; < 0: a forced loss

    @property
    def won(self) -> bool:
        return self.plies > 0

    @property
    def lost(self) -> bool:
        return self.plies < 0

    def __str__(self) -> str:
        if self.plies:
            return f"{'+' if self.plies > 0 else '-'}M{abs(self.plies)}"
        return f"{self.points:+d}"


def line_said(said: Iterable[str], size: int) -> tuple[Cell, ...]:
    """The principal variation in a move's MESSAGE lines (Rapfi's "Bestline H8 G9 ...", caro's
    own notation), up to its first name that is no cell of the board; or nothing."""
    found: list[Cell] = []
    for text in said:
        match = _LINE.search(text)
        if match:
            found = []
            for name in match[1].split():
                try:
                    found.append(parse_cell(name, size, size))
                except InvalidMoveError:
                    break
    return tuple(found)


def read_logs(parser: argparse.ArgumentParser, paths: Iterable[str],
              name: str) -> list[dict[str, object]]:
    """The records of `bench.match --log` files; a usage error where they hold no game of
    `name`."""
    records: list[dict[str, object]] = []
    for path in paths:
        with open(path) as log:
            records.extend(json.loads(line) for line in log if line.strip())
    if not records:
        parser.error("the logs hold no game")
    if not any(name in (r["black"], r["white"]) for r in records):
        parser.error(f"no game of {name!r} in the logs")
    return records


def value_said(said: Iterable[str]) -> Value | None:
    """The last value in a move's MESSAGE lines, or None where it said none."""
    found = None
    for line in said:
        for sign, mate, number in _EVAL.findall(line):
            n = int(number)
            if mate:
                found = Value(plies=-n if sign == "-" else n)
            else:
                found = Value(points=-n if sign == "-" else n)
    return found


@dataclass(frozen=True, slots=True)
class Turn:
    """The brain's move after which the opponent first claimed a forced win."""

    game: int
    size: int
    rule: Rule
    before: tuple[Cell, ...]  # every stone in the order played, the opening first
    move: Cell
    value_before: Value  # the opponent's value when it made its move before
    claimed: Value  # the opponent's value when it answered the turning move
    after_opening: int  # the turning move's number after the opening, from 1
    line: tuple[Cell, ...] = ()  # the opponent's principal variation from its answer on


@dataclass(slots=True)
class Loss:
    game: int
    moves: int
    edge_at: int | None  # the first move (after the opening) the opponent valued at the edge
    win_at: int | None  # the first move at which it claimed a forced win
    turn: Turn | None


def _cell(reply: str, size: int) -> Cell:
    cell = reply_cell(reply, size)
    if cell is None:
        raise ValueError(f"{reply!r} is no cell of a {size}x{size} board")
    return cell


def losses(records: Iterable[dict[str, object]], name: str, edge: int) -> tuple[list[Loss], int]:
    """The lost games of `name` among the log's records, and how many games it played."""
    out: list[Loss] = []
    played = 0
    for record in records:
        if name not in (record["black"], record["white"]):
            continue
        played += 1
        winner = record["winner"]
        if winner is None or winner == name:
            continue
        moves: list[dict[str, object]] = record["moves"]  # type: ignore[assignment]
        # Logs written before bench.match named them are of 15x15 freestyle games.
        size = int(record.get("size", 15))  # type: ignore[call-overload]
        rule = Rule(str(record.get("rule", Rule.FREESTYLE.value)))
        opening = [tuple(cell) for cell in record["opening"]]  # type: ignore[attr-defined]
        loss = Loss(int(record["index"]), len(moves), None, None, None)  # type: ignore[call-overload]
        last: tuple[int, Value] | None = None
        for i, move in enumerate(moves):
            if move["by"] == name:
                continue
            value = value_said(move["said"])  # type: ignore[arg-type]
            if value is None:
                continue
            if loss.edge_at is None and (value.won or (not value.lost and value.points >= edge)):
                loss.edge_at = i + 1
            if value.won:
                loss.win_at = i + 1
                if last is not None and not last[1].won and last[0] == i - 2:
                    cells = [*opening, *(_cell(str(m["move"]), size) for m in moves[: i - 1])]
                    loss.turn = Turn(loss.game, size, rule, tuple(cells),
                                     _cell(str(moves[i - 1]["move"]), size), last[1], value, i,
                                     line_said(move["said"], size))  # type: ignore[arg-type]
                break
            last = (i, value)
        out.append(loss)
    return out, played


# What an attacker's move in a winning line makes, by its cell pattern (engine.ai.patterns).
FOURS = "a four"
THREES = "an open three"
QUIET = "neither"


def line_kinds(turn: Turn) -> list[str]:
    """For each of the attacker's moves in `turn.line` (the opponent's principal variation,
    its own move first), read until the line meets a stone: whether it makes a four (or five),
    an open three (or a double three), or neither, by its cell pattern."""
    from engine.ai import patterns as pat

    size = turn.size
    board = pat.PatternBoard(size, size, turn.rule)
    for i, (r, c) in enumerate([*turn.before, turn.move]):
        board.add(r * size + c, 1 if i % 2 == 0 else 2)
    attacker = 1 if (len(turn.before) + 1) % 2 == 0 else 2
    kinds = []
    for j, (r, c) in enumerate(turn.line):
        cell = r * size + c
        if board.grid[cell]:
            break
        mark = attacker if j % 2 == 0 else 3 - attacker
        if mark == attacker:
            made = board.p4[mark][cell]
            kinds.append(FOURS if made >= pat.E_B4 else THREES if made >= pat.H_F3 else QUIET)
        board.add(cell, mark)
    return kinds


def _board(turn: Turn, cells: Sequence[Cell]) -> Board:
    board = Board(turn.size, turn.size, 5, turn.rule)
    for cell in cells:
        board.push(cell)
    return board


def ask(command: str, board: Board, turn: float) -> tuple[Cell, Value | None]:
    """A Gomocup brain's move on `board` (for the side to move), at `turn` seconds, and the
    value it said."""
    proc = Process(parse_brain(f"brain={command}"))
    try:
        proc.send(f"START {board.rows}")
        proc.answer(time.perf_counter() + START_WAIT, [])
        proc.send(*info_lines(turn, board.rule))
        chatter: list[str] = []
        proc.send(*board_request(board))
        reply = proc.answer(time.perf_counter() + turn + ANSWER_GRACE, chatter)
        return _cell(reply, board.rows), value_said(chatter)
    finally:
        proc.close()


def _spread(values: list[int]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    return (f"p10 {percentile(ordered, 0.1):g}, median {percentile(ordered, 0.5):g}, "
            f"p90 {percentile(ordered, 0.9):g}")


@dataclass(slots=True)
class Checked:
    """What the optional checks found on one turning move."""

    proved: bool = False  # caro's threat search proved the opponent's win after it
    again: Cell | None = None  # the brain's move asked again
    judged: Value | None = None  # the judge's value from the brain's side, before it
    after: Value | None = None  # the judge's value (the opponent's) after the move asked again


def _summary(args: argparse.Namespace, turns: list[Turn], checked: list[Checked]) -> None:
    n = len(turns)
    if n and args.prove:
        print(f"  caro's threat search ({args.threes} threes, {args.prove} nodes) proves the "
              f"opponent's win after {sum(c.proved for c in checked)} of {n} turning moves")
    moved = [c.again is not None and c.again != t.move for t, c in zip(turns, checked, strict=True)]
    if n and args.again:
        print(f"  asked again at {args.again_turn:g} s: another move at {sum(moved)} of {n}")
    if not (n and args.judge):
        return
    lost = [c.judged is not None and c.judged.lost for c in checked]
    holds = [c.judged is not None and not c.judged.lost for c in checked]
    print(f"  the judge at {args.judge_turn:g} s, from {args.name}'s side: already a forced loss "
          f"at {sum(lost)} of {n}, a move that holds at {sum(holds)}")
    if args.again:
        for name, group in (("holds", holds), ("already lost", lost)):
            changed = [c for c, g, m in zip(checked, group, moved, strict=True) if g and m]
            spared = sum(c.after is not None and not c.after.won for c in changed)
            print(f"    where {name}: asked again, the same move at "
                  f"{sum(group) - len(changed)}, "
                  f"another at {len(changed)}; after it no forced win claimed at {spared}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="bench.match --log files")
    parser.add_argument("--name", required=True, help="the brain whose losses are read")
    parser.add_argument("--edge", type=int, default=300,
                        help="the opponent's value counted as a clear edge")
    parser.add_argument("--prove", type=int, default=0, metavar="NODES",
                        help="ask caro's threat search after each turning move")
    parser.add_argument("--threes", type=int, default=4, help="threes the threat search reads")
    parser.add_argument("--again", default=None, metavar="COMMAND",
                        help="ask this brain again on each turning position")
    parser.add_argument("--again-turn", type=float, default=8.0)
    parser.add_argument("--judge", default=None, metavar="COMMAND",
                        help="ask this brain (the opponent) on each turning position")
    parser.add_argument("--judge-turn", type=float, default=3.0)
    parser.add_argument("--verbose", action="store_true", help="a line per lost game")
    args = parser.parse_args(argv)

    records = read_logs(parser, args.logs, args.name)
    lost, played = losses(records, args.name, args.edge)
    turns = [loss.turn for loss in lost if loss.turn is not None]
    print(f"{args.name}: {played} games, {len(lost)} lost")
    edges = [loss.edge_at for loss in lost if loss.edge_at is not None]
    wins = [loss.win_at for loss in lost if loss.win_at is not None]
    print(f"  the opponent's value first at {args.edge} or more: in {len(edges)} of them, "
          f"at move {_spread(edges)} after the opening")
    print(f"  a forced win first claimed: in {len(wins)}, at move {_spread(wins)}")
    print(f"  turning moves (a forced win claimed right after one of {args.name}'s moves, from a "
          f"position valued short of one): {len(turns)}")
    if turns:
        print(f"    the opponent's value before: {_spread([t.value_before.points for t in turns if not t.value_before.plies])}"
              f"; {sum(t.value_before.lost for t in turns)} from a forced loss of its own")
        print(f"    the win claimed, plies: {_spread([t.claimed.plies for t in turns])}")
        kinds = [kind for t in turns for kind in line_kinds(t)]
        if kinds:
            shares = ", ".join(f"{kind} {kinds.count(kind)} ({kinds.count(kind) / len(kinds):.0%})"
                               for kind in (FOURS, THREES, QUIET))
            print(f"    the attacker's {len(kinds)} moves in the opponent's lines after them "
                  f"make: {shares}")

    if args.prove:
        from engine.ai import compiled
    checked: list[Checked] = []
    for t in turns:
        seen = Checked()
        notes = []
        if args.prove:
            result = compiled.threat_win(_board(t, [*t.before, t.move]), args.prove, args.threes)
            seen.proved = result.kind != "none"
            notes.append(f"threat search: {result.kind} ({result.nodes} nodes)")
        try:
            if args.again:
                seen.again, _ = ask(args.again, _board(t, t.before), args.again_turn)
                notes.append(f"again: {seen.again}"
                             + (" (the same)" if seen.again == t.move else ""))
            if args.judge:
                best, seen.judged = ask(args.judge, _board(t, t.before), args.judge_turn)
                notes.append(f"judge: {best} {seen.judged}")
                if seen.again is not None and seen.again != t.move:
                    _, seen.after = ask(args.judge, _board(t, [*t.before, seen.again]),
                                        args.judge_turn)
                    notes.append(f"judge after again: {seen.after}")
        except BrainError as error:
            print(f"  game {t.game + 1}: {error}", file=sys.stderr)
            return 1
        checked.append(seen)
        if args.verbose:
            print(f"  game {t.game + 1}: move {t.after_opening} {t.move}, "
                  f"{t.value_before} -> {t.claimed}; " + "; ".join(notes), flush=True)
    _summary(args, turns, checked)
    if args.verbose:
        for loss in lost:
            if loss.turn is None:
                print(f"  game {loss.game + 1}: {loss.moves} moves, no turning move "
                      f"(edge at {loss.edge_at}, a win claimed at {loss.win_at})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
