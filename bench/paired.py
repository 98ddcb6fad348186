"""Two builds of a brain compared game by game, from two `bench.match` logs against the same
opponent on the same openings and colours (the same `--seed`, `--square`, `--balanced` and
`--games`): each game of the one paired with the game of the same number in the other.

    python -m bench.paired /tmp/new.jsonl /tmp/old.jsonl --name caro

Opening imbalance, the colours and the opponent's own strength are shared by both games of a
pair, so the difference of their scores spreads less than the difference of two separate runs'
scores (docs/benchmarks.md has the figures).

Printed: the games paired, each log's score, the difference (first log less the second) with
its 95% interval, and how many pairs the first log scored more in and how many less. Exit status
2 where the logs' games do not pair (another opening, board, rule or colours under the same
number) or none pair.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Z95 = 1.959964


@dataclass(frozen=True, slots=True)
class Paired:
    games: int
    first: float  # the first log's score, 0..1
    second: float
    difference: float  # the mean of the pairs' differences, -1..1
    margin: float  # half the 95% interval of `difference`
    better: int  # pairs the first log scored more in
    worse: int


def score(record: dict[str, object], name: str) -> float:
    """The game's result for `name`: 1, 0.5 or 0."""
    winner = record.get("winner")
    if winner == name:
        return 1.0
    return 0.5 if winner is None else 0.0


def _setting(record: dict[str, object], name: str) -> tuple[object, ...]:
    opening = tuple(tuple(cell) for cell in record["opening"])  # type: ignore[attr-defined]
    return (record.get("size"), record.get("rule"), opening, record["black"] == name)


def pair(first: Iterable[dict[str, object]], second: Iterable[dict[str, object]],
         name: str) -> Paired:
    """The games of both logs with the same number, compared; ValueError where a number holds
    another game (opening, board, rule or colour) in each log, or none pair."""
    theirs = {int(r["index"]): r for r in second}  # type: ignore[call-overload]
    diffs: list[float] = []
    a: list[float] = []
    b: list[float] = []
    for record in first:
        other = theirs.get(int(record["index"]))  # type: ignore[call-overload]
        if other is None:
            continue
        if _setting(record, name) != _setting(other, name):
            raise ValueError(f"game {record['index']} is another game in each log")
        a.append(score(record, name))
        b.append(score(other, name))
        diffs.append(a[-1] - b[-1])
    n = len(diffs)
    if n == 0:
        raise ValueError("no game of one log has its number in the other")
    mean = sum(diffs) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    return Paired(n, sum(a) / n, sum(b) / n, mean, Z95 * spread / math.sqrt(n),
                  sum(d > 0 for d in diffs), sum(d < 0 for d in diffs))


def _read(path: str) -> list[dict[str, object]]:
    with open(path) as log:
        return [json.loads(line) for line in log if line.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", help="a bench.match --log file: the build being tried")
    parser.add_argument("second", help="the log of the build it is set against")
    parser.add_argument("--name", required=True, help="the brain both logs played")
    args = parser.parse_args(argv)
    try:
        result = pair(_read(args.first), _read(args.second), args.name)
    except (OSError, ValueError, KeyError) as exc:
        print(f"bench.paired: {exc}", file=sys.stderr)
        return 2
    print(f"{result.games} games paired: {args.name} scored {result.first:.1%} in {args.first} "
          f"and {result.second:.1%} in {args.second}")
    print(f"difference {100 * result.difference:+.1f} +- {100 * result.margin:.1f} points "
          f"(95%); pairs scored more in the first {result.better}, less {result.worse}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
