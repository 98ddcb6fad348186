"""Fit the core's evaluation with a hidden layer on self-play positions.

    python -m training.net /tmp/caro-selfplay.npz [...] [--out engine/ai/data/net-RULE.npz]

The model is the evaluation of training.fit (a weight per cell pattern and per combination of a
cell's four line classes, for the side to move and the side waiting, summed over the empty
cells, plus the window term) with a hidden layer beside it: each of `--hidden` units sums its own
weights over the same cells, and the units above zero add to the evaluation, each at a weight
of its own (engine.ai.patterns.Net). So the layer is kept as the weights' sums are, stone by
stone, and can weigh one cell against the others, which a sum of cells cannot: a four-three to
make counts for more when the opponent has no four of their own. The chance that the side to
move wins is sigmoid(evaluation / 400), as in training.fit; all of it is fitted at once by
minibatch gradient descent (Adam) on the log-loss, the features scaled to unit size and a small
L2 penalty, in numpy: no library model has this shape (a linear part beside a layer over the
same per-cell counts) or exports it as the core's integer tables.

The last tenth of each file's games is held out; each epoch prints the held-out log-loss and
the weights of the best epoch are kept (training.fit's figure for the same files is the one to
beat). They are written in the core's integers with a version (`net-DATE-POSITIONS-hUNITS`).
`--init` starts from a shipped net instead of random weights (another rule's, to fit it to a
rule with fewer games of its own); its held-out loss is epoch 0's, kept if no epoch beats it.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from engine.ai import core, patterns
from training import fit

FREE = [c for c in range(patterns.NCAT) if c not in fit.FIXED]
UNIT = 1024  # the hidden units' sums, in 1/1024ths
OUT_UNIT = 64  # the units' weights, in 1/64ths of an evaluation unit
Params = dict[str, npt.NDArray[np.float64]]
Before = tuple[sp.csr_matrix, npt.NDArray[np.float64]]
Side = tuple[sp.csr_matrix, npt.NDArray[np.float64], npt.NDArray[np.float64]]


def features(part: dict[str, npt.NDArray[np.generic]]) -> tuple[sp.csr_matrix, npt.NDArray[np.float64]]:
    """Per position, the counts of each cell pattern (FREE ones) and each combination, the
    side to move's then the side waiting's, and the window term in thousands."""
    # training.fit's columns, with the side waiting's counts, which it negates, made positive.
    design = fit.design(part)
    cells, windows = abs(design[:, :-1]), design[:, -1:]
    return sp.hstack([sp.csr_matrix(cells), abs(fit.combos(part))]).tocsr(), windows


class Model:
    """logit = [counts / scale, windows]·linear + bias + out·relu((counts / scale)·hidden + b1).

    With the position before the last stone (`before`: its scaled counts and a share m per row),
    the cells' part (all but the window term and the bias) is (1 - m) of the position's own less
    m of the one before, valued for the side that was to move there: m = 1/2 is the search's
    average (engine.ai.core.evaluate), m = 0 the position's own value."""

    def __init__(self, nfeat: int, hidden: int, rng: np.random.Generator) -> None:
        self.p: Params = {
            "linear": np.zeros(nfeat + 1), "bias": np.zeros(1),
            "hidden": rng.normal(0.0, 0.1 / np.sqrt(40), (nfeat, hidden)), "b1": np.zeros(hidden),
            "out": rng.normal(0.0, 0.1, hidden),
        }

    def cells(self, x: sp.csr_matrix) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The cells' part of the logit and the units' sums, from the scaled counts."""
        pre = x @ self.p["hidden"] + self.p["b1"]
        return x @ self.p["linear"][:-1] + np.maximum(pre, 0.0) @ self.p["out"], pre

    def forward(self, xa: sp.csr_matrix, x: sp.csr_matrix, before: Before | None = None
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The logits and the units' sums, from the counts with the window term (xa) and without (x)."""
        z, pre, _, _ = self._forward(xa, x, before)
        return z, pre

    def _forward(self, xa: sp.csr_matrix, x: sp.csr_matrix, before: Before | None
                 ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                            npt.NDArray[np.float64], list[Side]]:
        """forward's logits and units' sums, the window term, and for each position read (the
        own, and the one before where averaged) its counts, units' sums and share of the logit."""
        own, pre = self.cells(x)
        windows = xa[:, -1].toarray().ravel()
        rest = windows * self.p["linear"][-1] + self.p["bias"][0]
        if before is None:
            return rest + own, pre, windows, [(x, pre, np.ones(len(windows)))]
        xq, m = before
        other, other_pre = self.cells(xq)
        return (rest + (1.0 - m) * own - m * other, pre, windows,
                [(x, pre, 1.0 - m), (xq, other_pre, -m)])

    def grads(self, xa: sp.csr_matrix, x: sp.csr_matrix, y: npt.NDArray[np.float64], l2: float,
              before: Before | None = None) -> Params:
        z, _, windows, sides = self._forward(xa, x, before)
        dz = (1.0 / (1.0 + np.exp(-z)) - y) / len(y)
        g: Params = {
            "linear": l2 * self.p["linear"], "bias": np.array([dz.sum()]),
            "out": l2 * self.p["out"], "hidden": l2 * self.p["hidden"],
            "b1": np.zeros_like(self.p["b1"]),
        }
        g["linear"][-1] += windows @ dz
        for counts, units, share in sides:
            dc = share * dz
            dpre = dc[:, None] * self.p["out"][None, :] * (units > 0)
            g["linear"][:-1] += counts.T @ dc
            g["out"] += np.maximum(units, 0.0).T @ dc
            g["hidden"] += counts.T @ dpre
            g["b1"] += dpre.sum(axis=0)
        return g

    def loss(self, xa: sp.csr_matrix, x: sp.csr_matrix, y: npt.NDArray[np.float64],
             before: Before | None = None) -> float:
        z = self.forward(xa, x, before)[0]
        return fit.log_loss(1.0 / (1.0 + np.exp(-z)), y)


def previous(part: dict[str, npt.NDArray[np.generic]]) -> npt.NDArray[np.int64]:
    """Per position, the row of the position before its last stone (the same game, a ply
    fewer), or -1 where the data does not hold it (a game's first position after the opening)."""
    game, ply = np.asarray(part["game"]), np.asarray(part["ply"])
    prev = np.full(len(game), -1, dtype=np.int64)
    if len(game) > 1:
        follows = (game[1:] == game[:-1]) & (ply[1:] == ply[:-1] + 1)
        prev[1:][follows] = np.flatnonzero(follows)
    return prev


def _before(x: sp.csr_matrix, prev: npt.NDArray[np.int64] | None, rows: npt.NDArray[np.int64]
            ) -> Before | None:
    """The rows' positions before the last stone, for the averaged model (None: the own value)."""
    if prev is None:
        return None
    q = prev[rows]
    return x[np.maximum(q, 0)], np.where(q >= 0, 0.5, 0.0)


def targets(part: dict[str, npt.NDArray[np.generic]], share: float) -> npt.NDArray[np.float64]:
    """What the fit aims at per position: the game's result, with `share` of it taken instead
    from the search's chance where the data has one (training.selfplay's `search`)."""
    result = np.asarray(part["result"], dtype=np.float64)
    if share == 0.0 or "search" not in part:
        return result
    chance = np.asarray(part["search"], dtype=np.float64)
    return np.where(np.isnan(chance), result, (1.0 - share) * result + share * chance)


class Adam:
    """Adam's running moments for a model's parameters: step() moves them against a minibatch's
    gradients, in place."""

    def __init__(self, params: Params) -> None:
        self._m = {k: np.zeros_like(p) for k, p in params.items()}
        self._v = {k: np.zeros_like(p) for k, p in params.items()}
        self._steps = 0

    def step(self, params: Params, grads: Params, lr: float) -> None:
        self._steps += 1
        t = self._steps
        for k, g in grads.items():
            self._m[k] = 0.9 * self._m[k] + 0.1 * g
            self._v[k] = 0.999 * self._v[k] + 0.001 * g * g
            params[k] -= lr * (self._m[k] / (1 - 0.9**t)) / (
                np.sqrt(self._v[k] / (1 - 0.999**t)) + 1e-8)


def train(x: sp.csr_matrix, w: npt.NDArray[np.float64], y: npt.NDArray[np.float64],
          held: npt.NDArray[np.bool_], args: argparse.Namespace,
          outcome: npt.NDArray[np.float64] | None = None,
          start: Params | None = None,
          prev: npt.NDArray[np.int64] | None = None) -> tuple[Params, float]:
    """Adam over minibatches of the positions not held out (x the scaled counts, w the window
    term, y the targets), its step shrunk by args.decay after each epoch, from random weights or
    from `start`; the best epoch's parameters on the held-out ones (`start` itself among them),
    and their log-loss against `outcome` (the games' results; y when not given). With `prev`
    (previous()'s rows), the model fitted is the search's average with the position before."""
    outcome = y if outcome is None else outcome
    xa = sp.hstack([x, sp.csr_matrix(w)]).tocsr()
    rng = np.random.default_rng(args.seed)
    model = Model(x.shape[1], args.hidden, rng)
    train_rows, held_rows = np.flatnonzero(~held), np.flatnonzero(held)
    best: tuple[float, Params] = (np.inf, {})
    if start is not None:
        model.p = {k: p.copy() for k, p in start.items()}
        if len(held_rows):
            # A fit that only makes the net it starts from worse on the held-out games keeps it.
            loss = model.loss(xa[held_rows], x[held_rows], outcome[held_rows],
                              _before(x, prev, held_rows))
            print(f"epoch 0 (--init): held-out log-loss {loss:.4f}", flush=True)
            best = (loss, {k: p.copy() for k, p in model.p.items()})
    adam = Adam(model.p)
    for epoch in range(1, args.epochs + 1):
        # At a fixed step the held-out loss jumped from epoch to epoch and two seeds ended far
        # apart; a step that shrinks lets the fit settle.
        lr = args.lr * args.decay ** (epoch - 1)
        rng.shuffle(train_rows)
        for b in range(0, len(train_rows), args.batch):
            rows = train_rows[b:b + args.batch]
            adam.step(model.p, model.grads(xa[rows], x[rows], y[rows], args.l2,
                                           _before(x, prev, rows)), lr)
        loss = (model.loss(xa[held_rows], x[held_rows], outcome[held_rows],
                           _before(x, prev, held_rows)) if len(held_rows) else np.nan)
        print(f"epoch {epoch}: held-out log-loss {loss:.4f}", flush=True)
        if not loss >= best[0]:  # the first epoch, a better one, or nothing held out
            best = (loss, {k: p.copy() for k, p in model.p.items()})
    return best[1], best[0]


def export(p: Params, scale: npt.NDArray[np.float64]) -> dict[str, npt.NDArray[np.int64]]:
    """The core's integers: training.fit's weights for the linear part, engine.ai.patterns.Net's
    tables for the layer."""
    nf, nc = len(FREE), patterns.NCOMBO
    linear = p["linear"][:-1] / scale * fit.SCALE
    hidden = p["hidden"] / scale[:, None] * UNIT
    units = hidden.shape[1]
    cell = np.zeros((2, patterns.NCAT))
    cell[0, FREE], cell[1, FREE] = linear[:nf], -linear[nf:2 * nf]  # the side waiting's count against
    combo = np.stack([linear[2 * nf:2 * nf + nc], -linear[2 * nf + nc:]])
    net_cell = np.zeros((2, patterns.NCAT, units))
    net_cell[0, FREE], net_cell[1, FREE] = hidden[:nf], hidden[nf:2 * nf]
    net_combo = np.stack([hidden[2 * nf:2 * nf + nc], hidden[2 * nf + nc:]])
    return {
        "cell": np.round(cell).astype(np.int64), "combo": np.round(combo).astype(np.int64),
        "windows": np.array(round(float(p["linear"][-1]) * fit.SCALE * 1024 / fit.WINDOW_UNIT)),
        "net_cell": np.round(net_cell).astype(np.int64),
        "net_combo": np.round(net_combo).astype(np.int64),
        "net_bias": np.round(p["b1"] * UNIT).astype(np.int64),
        "net_out": np.round(p["out"] * fit.SCALE * OUT_UNIT).astype(np.int64),
    }


def imported(tables: dict[str, npt.NDArray[np.generic]]) -> Params:
    """The parameters that export() turns into these tables, for features of unit scale (see
    scaled): a shipped net to start a fit from (`--init`). The intercept, which export() leaves
    out, is 0. ValueError or KeyError for tables that are not a net of these patterns."""
    if "net_cell" not in tables:
        raise ValueError("not a net: it has no hidden layer (training.fit's weights?)")
    cell, combo = np.asarray(tables["cell"], np.float64), np.asarray(tables["combo"], np.float64)
    if cell.shape != (2, patterns.NCAT) or combo.shape != (2, patterns.NCOMBO):
        raise ValueError(f"tables of shape {cell.shape} and {combo.shape}, not of these patterns")
    linear = np.concatenate([cell[0, FREE], -cell[1, FREE], combo[0], -combo[1]])
    net_cell = np.asarray(tables["net_cell"], np.float64)
    net_combo = np.asarray(tables["net_combo"], np.float64)
    hidden = np.concatenate([net_cell[0, FREE], net_cell[1, FREE], net_combo[0], net_combo[1]])
    windows = float(tables["windows"]) * fit.WINDOW_UNIT / (fit.SCALE * 1024)
    return {
        "linear": np.append(linear / fit.SCALE, windows), "bias": np.zeros(1),
        "hidden": hidden / UNIT,
        "b1": np.asarray(tables["net_bias"], np.float64) / UNIT,
        "out": np.asarray(tables["net_out"], np.float64) / (fit.SCALE * OUT_UNIT),
    }


def scaled(p: Params, scale: npt.NDArray[np.float64]) -> Params:
    """Parameters for features of unit scale made the same model for features divided by
    `scale` (the fit's scaled counts; the window term is not scaled)."""
    return {**p, "linear": p["linear"] * np.append(scale, 1.0), "hidden": p["hidden"] * scale[:, None]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", help="training.selfplay files, of one rule")
    parser.add_argument("--out", help="default: engine/ai/data/net-RULE.npz, for the data's rule")
    parser.add_argument("--hidden", type=int, default=None,
                        help="hidden units (16; with --init, the net's)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--lr", type=float, default=2e-3, help="Adam's first step")
    parser.add_argument("--decay", type=float, default=0.6, help="the step's factor after each epoch")
    parser.add_argument("--l2", type=float, default=1e-3, help="the weights' L2 penalty")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--search", type=float, default=0.0,
                        help="share of each target taken from the search's chance, not the result")
    parser.add_argument("--init", help="a net-*.npz to start from (its units set --hidden)")
    parser.add_argument("--averaged", action="store_true",
                        help="fit the search's value: the cells' part averaged with the position "
                             "before the last stone")
    args = parser.parse_args(argv)
    start_params = None
    if args.init:
        try:
            with np.load(args.init) as shipped:
                start_params = imported({k: shipped[k] for k in shipped.files})
        except (OSError, ValueError, KeyError) as error:
            parser.error(f"--init {args.init}: not a net file ({error})")
        units = int(start_params["b1"].shape[0])
        if args.hidden not in (None, units):
            parser.error(f"--hidden {args.hidden}: the net of --init has {units} units")
        args.hidden = units
    args.hidden = 16 if args.hidden is None else args.hidden
    if args.hidden < 1 or args.epochs < 1 or args.batch < 1:
        parser.error("--hidden, --epochs and --batch must be at least 1")
    if not 0.0 < args.decay <= 1.0:
        parser.error("--decay must be above 0 and at most 1")
    if not 0.0 <= args.search <= 1.0:
        parser.error("--search must be from 0 to 1")
    if args.hidden > core.NET_UNITS:
        parser.error(f"--hidden: the core plays at most {core.NET_UNITS} units")
    start = time.perf_counter()
    parts = [dict(np.load(path)) for path in args.data]
    rules = {str(p["rule"]) for p in parts}
    if len(rules) != 1:
        parser.error(f"the data mixes rules ({', '.join(sorted(rules))})")
    xs, ws, ys, results, held, prevs = [], [], [], [], [], []
    rows = 0
    for part in parts:
        x, w = features(part)
        prev = previous(part)
        prevs.append(np.where(prev >= 0, prev + rows, -1))
        rows += x.shape[0]
        xs.append(x)
        ws.append(w)
        ys.append(targets(part, args.search))
        results.append(np.asarray(part["result"], dtype=np.float64))
        games = np.unique(part["game"])
        held.append(np.isin(part["game"], games[int(len(games) * 0.9):]))
    x, w, y, out = sp.vstack(xs).tocsr(), np.vstack(ws), np.concatenate(ys), np.concatenate(held)
    print(f"{len(y)} positions, {int(out.sum())} held out; features read in "
          f"{time.perf_counter() - start:.0f} s", flush=True)
    scale = np.sqrt(np.asarray(x.multiply(x).mean(axis=0)).ravel()) + 1e-6
    init = None if start_params is None else scaled(start_params, scale)
    params, loss = train((x @ sp.diags(1.0 / scale)).tocsr(), w, y, out, args, np.concatenate(results),
                         init, np.concatenate(prevs) if args.averaged else None)
    tables = export(params, scale)
    version = f"net-{datetime.date.today():%Y%m%d}-{len(y)}-h{args.hidden}"
    path = Path(args.out or fit.DATA / f"net-{rules.pop()}.npz")
    np.savez_compressed(path, version=np.array(version), **tables)  # type: ignore[arg-type]
    print(f"best held-out log-loss {loss:.4f}; wrote {path} ({version}) in "
          f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
