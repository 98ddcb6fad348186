"""Fit the cell weights of the core's evaluation on self-play positions.

    python -m training.fit /tmp/caro-selfplay.npz [--out engine/ai/data/weights-RULE.npz]

The model is the evaluation itself read as a logistic regression: the chance that the side to
move wins is sigmoid(evaluation / SCALE), where the evaluation is the sum over empty cells of a
weight per cell pattern and one per combination of its four line classes
(engine.ai.patterns.COMBO) of the side to move, minus the same of the side waiting, plus a
weight times the window term (engine.ai.core.position_value; the search averages it with the
position before the last stone). The combinations are read from the
positions themselves (the data's game moves); `--patterns-only` fits the patterns alone, as
the first shipped weights were. A draw counts as half a win and half a loss. The fit (scikit-learn's LogisticRegression, lightly regularised) gives the weights
in units of the logit; times SCALE and rounded they are the core's integers. The last tenth of
the games is held out, and the held-out log-loss is printed for the fitted model and for the
window term alone (the evaluation caro had before): the new weights must do better there
before a match (bench.match) has the final word.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from engine.ai import patterns

SCALE = 400  # evaluation units per unit of logit
WINDOW_UNIT = 1000.0  # the window term is fitted in thousands
DATA = Path(__file__).resolve().parent.parent / "engine" / "ai" / "data"
# Patterns whose weight stays 0: the empty cells of no note (their count is the board's
# emptiness) and the forbidden points (worth nothing to black, no matter to white).
FIXED = (patterns.NONE_P, patterns.FORBID_P)


def design(data: dict[str, npt.NDArray[np.generic]]) -> npt.NDArray[np.float64]:
    counts = np.asarray(data["counts"], dtype=np.float64).reshape(-1, 2, patterns.NCAT)
    free = [c for c in range(patterns.NCAT) if c not in FIXED]
    windows = np.asarray(data["windows"], dtype=np.float64)[:, None] / WINDOW_UNIT
    return np.hstack([counts[:, 0, free], -counts[:, 1, free], windows])


def replayed(data: dict[str, npt.NDArray[np.generic]]) -> Iterator[tuple[int, Any, int]]:
    """Each position of the data replayed in the compiled core, in order: its row, the core's
    state of it (engine.ai.core's, valid until the next one is yielded) and the mark to move."""
    from engine.ai import compiled, core
    from engine.game.types import Rule

    if "game_moves" not in data:
        raise ValueError("the data has no game moves (made before training.selfplay kept them): "
                         "fit it with --patterns-only, or make it again")
    rule = Rule(str(data["rule"]))
    g = compiled.geometry(15, 15, 5, rule)
    starts = list(np.asarray(data["game_start"])) + [len(data["game_moves"])]
    where = {int(seed): i for i, seed in enumerate(np.asarray(data["game_seed"]))}
    state = None
    current, placed = -1, 0
    for row, (seed, ply) in enumerate(zip(np.asarray(data["game"]), np.asarray(data["ply"]), strict=True)):
        i = where[int(seed)]
        if i != current or ply < placed:
            state, current, placed = compiled.new_state(g, []), i, 0
            moves = np.asarray(data["game_moves"][starts[i]:starts[i + 1]], dtype=np.int64)
        assert state is not None
        while placed < ply:
            core.place(g, state, int(moves[placed]), 1 if placed % 2 == 0 else 2)
            placed += 1
        yield row, state, 1 if ply % 2 == 0 else 2


def combos(data: dict[str, npt.NDArray[np.generic]]) -> sp.csr_matrix:
    """Per position, how many empty cells hold each combination of line classes: the side to
    move's, then the side waiting's negated, read by replaying each game in the compiled core."""
    rows, cols, vals = [], [], []
    for row, state, me in replayed(data):
        empty = state.grid == 0
        for side, mark in enumerate((me, 3 - me)):
            counts = np.bincount(state.pkey[mark][empty], minlength=patterns.NCOMBO)
            (nz,) = np.nonzero(counts)
            rows += [row] * len(nz)
            cols += list(nz + side * patterns.NCOMBO)
            vals += list(counts[nz] * (1.0 if side == 0 else -1.0))
    shape = (len(data["game"]), 2 * patterns.NCOMBO)
    return sp.csr_matrix((vals, (rows, cols)), shape=shape, dtype=np.float64)


def _binary(x: npt.NDArray[np.float64] | sp.csr_matrix, y: npt.NDArray[np.float64]
            ) -> tuple[npt.NDArray[np.float64] | sp.csr_matrix, npt.NDArray[np.int64],
                       npt.NDArray[np.float64]]:
    """Draws as half a win and half a loss: each position once per outcome, weighted."""
    if sp.issparse(x):
        xs = sp.vstack([x, x]).tocsr()
        ys = np.concatenate([np.ones(len(y), dtype=np.int64), np.zeros(len(y), dtype=np.int64)])
        ws = np.concatenate([y, 1.0 - y])
        keep = ws > 0
        return xs[keep], ys[keep], ws[keep]
    xs = np.vstack([x, x])
    ys = np.concatenate([np.ones(len(y), dtype=np.int64), np.zeros(len(y), dtype=np.int64)])
    ws = np.concatenate([y, 1.0 - y])
    keep = ws > 0
    return xs[keep], ys[keep], ws[keep]


def log_loss(p: npt.NDArray[np.float64], y: npt.NDArray[np.float64]) -> float:
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main(argv: list[str] | None = None) -> int:
    from sklearn.linear_model import LogisticRegression

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", help="training.selfplay files")
    parser.add_argument("--out", help="default: engine/ai/data/weights-RULE.npz, for the data's rule")
    parser.add_argument("--c", type=float, default=0.1, help="inverse regularisation strength")
    parser.add_argument("--patterns-only", action="store_true",
                        help="fit a weight per cell pattern, none per combination of classes")
    args = parser.parse_args(argv)
    parts = [dict(np.load(path)) for path in args.data]
    data = {key: np.concatenate([p[key] for p in parts]) for key in ("counts", "windows", "result", "game")}
    x: npt.NDArray[np.float64] | sp.csr_matrix = design(data)
    ncombo = 0
    if not args.patterns_only:
        # Each file's games replayed apart (their seeds may repeat across files).
        blocks = [combos(p) for p in parts]
        x = sp.hstack([sp.csr_matrix(x[:, :-1]), sp.vstack(blocks), sp.csr_matrix(x[:, -1:])]).tocsr()
        ncombo = 2 * patterns.NCOMBO
    y = np.asarray(data["result"], dtype=np.float64)
    games = np.unique(data["game"])
    held = np.isin(data["game"], games[int(len(games) * 0.9):])
    print(f"{len(y)} positions from {len(games)} games; {int(held.sum())} held out")

    model = LogisticRegression(C=args.c, max_iter=2000)
    xs, ys, ws = _binary(x[~held], y[~held])
    model.fit(xs, ys, sample_weight=ws)
    base = LogisticRegression(C=args.c, max_iter=2000)
    wx = x[:, -1:]
    xs, ys, ws = _binary(wx[~held], y[~held])
    base.fit(xs, ys, sample_weight=ws)
    print(f"held-out log-loss: fitted {log_loss(model.predict_proba(x[held])[:, 1], y[held]):.4f}"
          f", window term alone {log_loss(base.predict_proba(wx[held])[:, 1], y[held]):.4f}"
          f", a coin {log_loss(np.full(int(held.sum()), 0.5), y[held]):.4f}")

    # Refit on every game for the weights shipped.
    xs, ys, ws = _binary(x, y)
    model.fit(xs, ys, sample_weight=ws)
    beta = model.coef_[0]
    free = [c for c in range(patterns.NCAT) if c not in FIXED]
    cell = np.zeros((2, patterns.NCAT), dtype=np.int64)
    cell[0, free] = np.round(beta[: len(free)] * SCALE)
    cell[1, free] = np.round(beta[len(free): 2 * len(free)] * SCALE)
    combo = np.zeros((2, patterns.NCOMBO), dtype=np.int64)
    if ncombo:
        start = 2 * len(free)
        combo[0] = np.round(beta[start:start + patterns.NCOMBO] * SCALE)
        combo[1] = np.round(beta[start + patterns.NCOMBO:start + ncombo] * SCALE)
    windows = int(round(beta[-1] * SCALE * 1024 / WINDOW_UNIT))
    version = f"fit-{datetime.date.today():%Y%m%d}-{len(y)}"
    for name, own, theirs in zip(patterns.CATEGORIES, cell[0], cell[1], strict=True):
        print(f"  {name:<18} to move {own:>7}  waiting {theirs:>7}")
    print(f"  window term weight {windows}/1024; intercept {model.intercept_[0] * SCALE:.0f}")
    if ncombo:
        print(f"  combinations: {int(np.count_nonzero(combo))} weights set, to move "
              f"{combo[0].min()}..{combo[0].max()}, waiting {combo[1].min()}..{combo[1].max()}")
    rules = {str(p["rule"]) for p in parts}
    if args.out is None and len(rules) != 1:
        raise ValueError(f"the data mixes rules ({', '.join(sorted(rules))}): name the file with --out")
    args.out = args.out or str(DATA / f"weights-{rules.pop()}.npz")
    np.savez_compressed(args.out, version=np.array(version), cell=cell, combo=combo,
                        windows=np.array(windows))
    print(f"wrote {args.out} ({version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
