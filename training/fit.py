"""Fit the cell-pattern weights of the core's evaluation on self-play positions.

    python -m training.fit /tmp/caro-selfplay.npz [--out engine/ai/data/weights.npz]

The model is the evaluation itself read as a logistic regression: the chance that the side to
move wins is sigmoid(evaluation / SCALE), where the evaluation is the sum over empty cells of a
weight per cell pattern of the side to move, minus one per cell pattern of the side waiting,
plus a weight times the window term (engine.ai.core.evaluate). A draw counts as half a win and
half a loss. The fit (scikit-learn's LogisticRegression, lightly regularised) gives the weights
in units of the logit; times SCALE and rounded they are the core's integers. The last tenth of
the games is held out, and the held-out log-loss is printed for the fitted model and for the
window term alone (the evaluation caro had before): the new weights must do better there
before a match (bench.match) has the final word.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

from engine.ai import patterns

SCALE = 400  # evaluation units per unit of logit
WINDOW_UNIT = 1000.0  # the window term is fitted in thousands
OUT = Path(__file__).resolve().parent.parent / "engine" / "ai" / "data" / "weights.npz"
# Patterns whose weight stays 0: the empty cells of no note (their count is the board's
# emptiness) and the forbidden points (worth nothing to black, no matter to white).
FIXED = (patterns.NONE_P, patterns.FORBID_P)


def design(data: dict[str, npt.NDArray[np.generic]]) -> npt.NDArray[np.float64]:
    counts = np.asarray(data["counts"], dtype=np.float64).reshape(-1, 2, patterns.NCAT)
    free = [c for c in range(patterns.NCAT) if c not in FIXED]
    windows = np.asarray(data["windows"], dtype=np.float64)[:, None] / WINDOW_UNIT
    return np.hstack([counts[:, 0, free], -counts[:, 1, free], windows])


def _binary(x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
            ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Draws as half a win and half a loss: each position once per outcome, weighted."""
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
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--c", type=float, default=1.0, help="inverse regularisation strength")
    args = parser.parse_args(argv)
    parts = [dict(np.load(path)) for path in args.data]
    data = {key: np.concatenate([p[key] for p in parts]) for key in ("counts", "windows", "result", "game")}
    x = design(data)
    y = np.asarray(data["result"], dtype=np.float64)
    games = np.unique(data["game"])
    held = np.isin(data["game"], games[int(len(games) * 0.9):])
    print(f"{len(y)} positions from {len(games)} games; {int(held.sum())} held out")

    model = LogisticRegression(C=args.c, max_iter=2000)
    model.fit(*_binary(x[~held], y[~held])[:2], sample_weight=_binary(x[~held], y[~held])[2])
    base = LogisticRegression(C=args.c, max_iter=2000)
    wx = x[:, -1:]
    base.fit(*_binary(wx[~held], y[~held])[:2], sample_weight=_binary(wx[~held], y[~held])[2])
    print(f"held-out log-loss: fitted patterns {log_loss(model.predict_proba(x[held])[:, 1], y[held]):.4f}"
          f", window term alone {log_loss(base.predict_proba(wx[held])[:, 1], y[held]):.4f}"
          f", a coin {log_loss(np.full(int(held.sum()), 0.5), y[held]):.4f}")

    # Refit on every game for the weights shipped.
    model.fit(*_binary(x, y)[:2], sample_weight=_binary(x, y)[2])
    beta = model.coef_[0]
    free = [c for c in range(patterns.NCAT) if c not in FIXED]
    cell = np.zeros((2, patterns.NCAT), dtype=np.int64)
    cell[0, free] = np.round(beta[: len(free)] * SCALE)
    cell[1, free] = np.round(beta[len(free): 2 * len(free)] * SCALE)
    windows = int(round(beta[-1] * SCALE * 1024 / WINDOW_UNIT))
    version = f"fit-{datetime.date.today():%Y%m%d}-{len(y)}"
    for name, own, theirs in zip(patterns.CATEGORIES, cell[0], cell[1], strict=True):
        print(f"  {name:<18} to move {own:>7}  waiting {theirs:>7}")
    print(f"  window term weight {windows}/1024; intercept {model.intercept_[0] * SCALE:.0f}")
    np.savez_compressed(args.out, version=np.array(version), cell=cell, windows=np.array(windows))
    print(f"wrote {args.out} ({version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
