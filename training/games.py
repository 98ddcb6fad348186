"""The positions of games played by bench.match, for the fit of the evaluation (training.net).

    python -m training.games /tmp/caro-rapfi.jsonl [...] --out /tmp/caro-rapfi.npz

bench.match writes a JSON line per game with `--log`: its opening, who played black and white,
each move and the winner. This reads those games back and keeps every position after the
opening, as training.selfplay does for its own games, labelled by how the game ended for the
side to move: so a net can be fitted on games against another engine, whose results say what
caro's own self-play cannot. A game that ended on a time-out, an illegal move or a brain's
failure says nothing about its positions and is left out, as is a position where the side to
move can make five at once. Only 15×15 games can be read, all of one rule.

The file is in training.selfplay's format, with `game` numbering the games in the order read, and
`brain` (with `--brain NAME`) telling, per position, whether that brain was the side to move.
`search` is NaN unless `--values NAME` names a brain that says its value with each move, as
Rapfi does ("MESSAGE ... Eval 54", "Eval +M13" for a win it proved): then each position that
brain was to move in, and each one its move made, gets that value as the side to move's chance
to win, sigmoid(points / scale) (1 or 0 for a proven result; the position after its move the
other side's, one minus it). The scale is the one that best predicts the games' results from
the brain's values, found on the file's games (`--value-scale` sets it instead). training.net
`--search S` aims its targets at S of these values: a deeper search than caro's to learn from.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bench.losses import Value, value_said
from bench.match import reply_cell
from engine.game.types import Rule
from training import fit
from training.selfplay import SIZE

ENDED = ("five", "draw")  # the reasons of a game that ended on the board


@dataclass(frozen=True, slots=True)
class Game:
    """A finished game: its cells in order (opening first), the opening's length, the result
    for the side that moved first (1 won, 0.5 drawn, 0 lost) and who made each move after
    the opening."""

    cells: tuple[int, ...]
    opening: int
    first_score: float
    movers: tuple[str, ...]
    rule: Rule
    said: tuple[Value | None, ...]  # per move after the opening: the value its brain said

    def score(self, i: int) -> float:
        """The result for the side to move before move `i` after the opening."""
        return self.first_score if i % 2 == 0 else 1.0 - self.first_score


class LogError(ValueError):
    """A line that is no game of bench.match's log."""


def _cell(reply: object) -> int:
    cell = reply_cell(str(reply), SIZE)
    if cell is None:
        raise LogError(f"not a move of the board: {reply!r}")
    return cell[0] * SIZE + cell[1]


def parse(line: str) -> Game | None:
    """The game of one log line; None for a game that did not end on the board."""
    try:
        record = json.loads(line)
        if record["size"] != SIZE:
            raise LogError(f"a {record['size']}x{record['size']} game: only {SIZE}x{SIZE} is read")
        if record["reason"] not in ENDED:
            return None
        opening = [int(r) * SIZE + int(c) for r, c in record["opening"]]
        moves = record["moves"]
        cells = tuple(opening + [_cell(move["move"]) for move in moves])
        movers = tuple(str(move["by"]) for move in moves)
        said = tuple(value_said(str(line) for line in move.get("said", [])) for move in moves)
        winner = record["winner"]
        rule = Rule(record["rule"])
    except LogError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise LogError(f"not a game of bench.match's log: {error}") from error
    if len(set(cells)) != len(cells):
        raise LogError("a cell played twice")
    if winner is None:
        first_score = 0.5
    elif not movers or winner != movers[-1]:
        # The last stone made the five: a winner other than its maker is no game on the board.
        raise LogError(f"won by {winner!r} but the last move is {movers[-1:]!r}'s")
    else:
        # The side that made the last move won; it moved first after the opening when the
        # moves after the opening are odd in number.
        first_score = 1.0 if len(moves) % 2 == 1 else 0.0
    return Game(cells, len(opening), first_score, movers, rule, said)


def read(lines: Iterable[str]) -> Iterator[Game]:
    """The games of a log that ended on the board, in order; blank lines skipped."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            game = parse(line)
        except LogError as error:
            raise LogError(f"line {number}: {error}") from None
        if game is not None:
            yield game


Positions = tuple[list[npt.NDArray[np.int64]], list[int], list[float], list[int], list[str]]


def positions(game: Game) -> Positions:
    """Each position after the opening with its features (training.selfplay's), the result for
    the side to move, its ply and who was to move."""
    from training.selfplay import _features

    feats, windows, labels, plies, movers = [], [], [], [], []
    for i, mover in enumerate(game.movers):
        ply = game.opening + i
        f, w, five = _features(list(game.cells[:ply]), game.rule)
        if five:
            continue
        feats.append(f)
        windows.append(w)
        labels.append(game.score(i))
        plies.append(ply)
        movers.append(mover)
    return feats, windows, labels, plies, movers


def chance(value: Value, scale: float) -> float:
    """A brain's value as its chance to win: 1 or 0 for a proven result, else sigmoid(points /
    scale)."""
    if value.won:
        return 1.0
    if value.lost:
        return 0.0
    return 1.0 / (1.0 + math.exp(-value.points / scale))


def _said(game: Game, brain: str) -> Iterator[tuple[int, Value]]:
    """The values `brain` said, by the index of the move after the opening it said them with."""
    for i, (mover, value) in enumerate(zip(game.movers, game.said, strict=True)):
        if mover == brain and value is not None:
            yield i, value


def value_scale(games: Iterable[Game], brain: str) -> tuple[float, float, int]:
    """The scale at which `brain`'s values (those short of a proven result) best predict how
    its games ended, by log-loss over a grid of 5 to 2,000 points; with that log-loss and the
    number of values read. ValueError when it said none."""
    points, results = [], []
    for game in games:
        for i, value in _said(game, brain):
            if not (value.won or value.lost):
                points.append(value.points)
                results.append(game.score(i))
    if not points:
        raise ValueError(f"{brain} said no values short of a proven result")
    x, y = np.array(points, dtype=np.float64), np.array(results)
    best = (math.inf, 0.0)
    for scale in np.arange(5.0, 2000.0 + 1.0, 5.0):
        loss = fit.log_loss(1.0 / (1.0 + np.exp(-x / scale)), y)
        best = min(best, (loss, float(scale)))
    return best[1], best[0], len(points)


def position_values(game: Game, brain: str, scale: float) -> list[float]:
    """Per move after the opening, the side to move's chance by `brain`'s values: its own where
    it was to move, one minus it in the position its move made, NaN elsewhere."""
    out = [math.nan] * len(game.movers)
    for i, value in _said(game, brain):
        out[i] = chance(value, scale)
        if i + 1 < len(out):
            out[i + 1] = 1.0 - out[i]
    return out


def _job(game: Game) -> Positions:
    from engine.ai import warm_up

    warm_up()
    return positions(game)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", help="bench.match --log files")
    parser.add_argument("--brain", default=None, help="mark the positions this brain was to move in")
    parser.add_argument("--values", default=None, metavar="NAME",
                        help="the search targets from the values this brain said with its moves")
    parser.add_argument("--value-scale", type=float, default=None,
                        help="its points per unit of logit (default: fitted on the games)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.value_scale is not None and not args.value_scale > 0:
        parser.error("--value-scale must be above 0")
    start = time.perf_counter()
    games: list[Game] = []
    for path in args.logs:
        try:
            with open(path, encoding="utf-8") as log:
                games += read(log)
        except (OSError, LogError) as error:
            parser.error(f"{path}: {error}")
    rules = {game.rule for game in games}
    if not games:
        parser.error("no game that ended on the board")
    if len(rules) > 1:
        parser.error(f"games of several rules: {', '.join(sorted(r.value for r in rules))}")
    scale = args.value_scale
    if args.values is not None and scale is None:
        try:
            scale, loss, read_values = value_scale(games, args.values)
        except ValueError as error:
            parser.error(str(error))
        print(f"{args.values}'s values: scale {scale:g} (log-loss {loss:.4f} on {read_values} of "
              "them short of a proven result)", flush=True)
    feats: list[npt.NDArray[np.int64]] = []
    windows: list[int] = []
    labels: list[float] = []
    numbers: list[int] = []
    plies: list[int] = []
    movers: list[str] = []
    searched: list[float] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for number, (f, w, lab, ply, who) in enumerate(pool.map(_job, games, chunksize=8)):
            feats += f
            windows += w
            labels += lab
            numbers += [number] * len(lab)
            plies += ply
            movers += who
            if args.values is not None and scale is not None:
                game = games[number]
                chances = position_values(game, args.values, scale)
                searched += [chances[p - game.opening] for p in ply]
            if (number + 1) % 200 == 0:
                print(f"{number + 1} games, {len(labels)} positions, "
                      f"{time.perf_counter() - start:.0f} s", flush=True)
    game_start = np.cumsum([0] + [len(g.cells) for g in games[:-1]])
    extra = {} if args.brain is None else {"brain": np.array([m == args.brain for m in movers])}
    np.savez_compressed(
        args.out, counts=np.array(feats, dtype=np.int64), windows=np.array(windows, dtype=np.int64),
        result=np.array(labels, dtype=np.float64),
        search=np.array(searched, dtype=np.float64) if searched else np.full(len(labels), np.nan),
        game=np.array(numbers, dtype=np.int64), ply=np.array(plies, dtype=np.int64),
        game_seed=np.arange(len(games), dtype=np.int64), game_start=game_start.astype(np.int64),
        game_moves=np.array([c for g in games for c in g.cells], dtype=np.int16),
        rule=np.array(rules.pop().value), **extra)  # type: ignore[arg-type]
    valued = "" if not searched else f", {int(np.isfinite(searched).sum())} with {args.values}'s values"
    print(f"wrote {args.out}: {len(games)} games, {len(labels)} positions{valued}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
