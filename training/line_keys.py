"""Whether the raw line keys would teach the evaluation more than its cell patterns do.

    python -m training.line_keys DATA.npz [...] [--min-count 100] [--key-floor 4]

The core's evaluation reads each empty cell through its line classes (engine.ai.patterns): a
handful of classes per direction, combined per cell. A line key is what a class is read from:
the stones on the line around the cell. This counts, per position, each key of every empty
cell and direction, four cells each side, from the side to move's view (own, the opponent's,
empty, off the board; a line read one way or the other is one key), and fits training.net's
model twice on the same games: on the patterns alone, then with the counts of the keys added
to it, starting from the first fit (so the second starts no worse). Both held-out log-losses are
printed: the check that says whether a net over raw keys, which the core would keep per cell
and direction as it keeps the classes, is worth its place there. With `--per-cell keys` it also
fits a net of the shape the strongest engines read from line keys (CellNet: a vector per class
of keys, summed over a cell's four directions and made non-negative per cell, then summed over
the cells under a small layer) on the keys alone, and prints its held-out log-loss too; with
`--per-cell both`, the same net with each cell's two combinations of line classes (the side to
move's and the side waiting's) among its inputs, so it need not learn from the keys what a
four or a three is.

The held-out games are chosen by their opening (a tenth of the openings, the same in every
file): several files of one set of openings, such as the `bench.match` logs of two builds
against Rapfi, then hold out the same openings in each, and no held-out game shares its
opening with a game fitted. The keys are many and most are rare, so only those seen in `--min-count`
fitted positions are counted, and each key's count is scaled to unit size only down to
`--key-floor` (a rare key scaled up as far as a common one fits the few games it is seen in).
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from engine.ai import patterns
from training import fit, net
from training.selfplay import SIZE

REACH = 4  # cells read each side of an empty cell
DIGITS = 2 * REACH
EMPTY, OWN, THEIRS, OFF = range(4)
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
Data = dict[str, npt.NDArray[np.generic]]
# What --per-cell fits CellNet on.
PER_CELL = {"keys": "the keys alone", "both": "the keys and the patterns"}


@lru_cache(maxsize=1)
def key_ids() -> tuple[npt.NDArray[np.int32], int]:
    """Per key (base 4, a digit per cell from four cells one way to four the other), the id of
    its class (the key and the key read the other way), and how many classes there are."""
    keys = np.arange(4**DIGITS)
    digits = np.stack([(keys >> (2 * i)) & 3 for i in range(DIGITS)], axis=1)
    mirrored = (digits[:, ::-1] << (2 * np.arange(DIGITS))).sum(axis=1)
    classes, ids = np.unique(np.minimum(keys, mirrored), return_inverse=True)
    return ids.astype(np.int32), len(classes)


@lru_cache(maxsize=1)
def _gather() -> npt.NDArray[np.int64]:
    """[direction, cell, neighbour]: where each neighbour lies in the board padded by REACH."""
    width = SIZE + 2 * REACH
    rows, cols = np.divmod(np.arange(SIZE * SIZE), SIZE)
    steps = [i for i in range(-REACH, REACH + 1) if i != 0]
    at = np.zeros((len(DIRECTIONS), SIZE * SIZE, DIGITS), dtype=np.int64)
    for d, (dr, dc) in enumerate(DIRECTIONS):
        for i, step in enumerate(steps):
            at[d, :, i] = (rows + REACH + dr * step) * width + cols + REACH + dc * step
    return at


def cell_keys(moves: npt.NDArray[np.int64] | list[int]
              ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_]]:
    """For the position these moves (cells r * SIZE + c, X first) make, the class of keys
    (key_ids) each cell reads in each direction for the side to move, [cell, direction], and
    which cells are empty."""
    ids, _ = key_ids()
    inner = np.zeros(SIZE * SIZE, dtype=np.int64)
    to_move = len(moves) % 2
    for i, cell in enumerate(moves):
        inner[cell] = OWN if i % 2 == to_move else THEIRS
    width = SIZE + 2 * REACH
    padded = np.full((width, width), OFF, dtype=np.int64)
    padded[REACH:REACH + SIZE, REACH:REACH + SIZE] = inner.reshape(SIZE, SIZE)
    around = padded.ravel()[_gather()]
    keys = (around << (2 * np.arange(DIGITS))).sum(axis=2)
    return ids[keys].T, inner == EMPTY


def key_counts(moves: npt.NDArray[np.int64] | list[int]) -> npt.NDArray[np.int64]:
    """How often each class of keys (key_ids) is read around the empty cells of the position
    these moves make, for the side to move."""
    classes, empty = cell_keys(moves)
    return np.bincount(classes[empty].ravel(), minlength=key_ids()[1])


def _game_moves(part: Data) -> dict[int, npt.NDArray[np.int64]]:
    """Each game's moves, by its number in `game`."""
    starts = np.asarray(part["game_start"], dtype=np.int64)
    moves = np.asarray(part["game_moves"], dtype=np.int64)
    ends = np.append(starts[1:], len(moves))
    seeds = np.asarray(part["game_seed"], dtype=np.int64)
    return {int(seed): moves[a:b] for seed, a, b in zip(seeds, starts, ends, strict=True)}


def features(part: Data) -> sp.csr_matrix:
    """Per position of a training.selfplay file, key_counts()."""
    games = _game_moves(part)
    rows, cols, counts = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for row, (g, p) in enumerate(zip(part["game"].tolist(), part["ply"].tolist(), strict=True)):
        found = key_counts(games[g][:p])
        seen = np.flatnonzero(found)
        rows.append(np.full(len(seen), row))
        cols.append(seen)
        counts.append(found[seen])
    return sp.csr_matrix(
        (np.concatenate(counts).astype(np.float64), (np.concatenate(rows), np.concatenate(cols))),
        shape=(len(part["game"]), key_ids()[1]))


class CellNet:
    """The shape of the nets the strongest engines read from line keys: per empty cell, the sum
    of a vector per input (the class of keys it reads in each of its four directions, and any
    other class given per cell), made non-negative (a unit below zero counts 0), summed over the
    empty cells; a small layer over that sum gives the logit. Each cell's vector changes only
    where a stone changes one of its keys, so the core could keep the sum stone by stone as it
    keeps the cell patterns'."""

    def __init__(self, classes: int, width: int, units: int, rng: np.random.Generator) -> None:
        self.p: net.Params = {
            "keys": rng.normal(0.0, 0.05, (classes, width)), "cell_bias": np.zeros(width),
            "hidden": rng.normal(0.0, 1.0 / np.sqrt(width), (width, units)),
            "b1": np.zeros(units), "out": rng.normal(0.0, 0.1, units), "bias": np.zeros(1),
        }

    def _forward(self, ids: npt.NDArray[np.uint16], empty: npt.NDArray[np.bool_]
                 ) -> tuple[npt.NDArray[np.float64], ...]:
        cells = self.p["keys"][ids].sum(axis=2) + self.p["cell_bias"]  # [position, cell, width]
        # Not divided by the cells' number: a shape on one cell (a four-three to make) must
        # reach the layer above with the weight a count has in training.net, whose inputs are
        # each scaled to unit size.
        pooled = (np.maximum(cells, 0.0) * empty[:, :, None]).sum(axis=1)
        pre = pooled @ self.p["hidden"] + self.p["b1"]
        return np.maximum(pre, 0.0) @ self.p["out"] + self.p["bias"][0], cells, pooled, pre

    def logits(self, ids: npt.NDArray[np.uint16], empty: npt.NDArray[np.bool_]
               ) -> npt.NDArray[np.float64]:
        return np.concatenate([self._forward(ids[b:b + 2048], empty[b:b + 2048])[0]
                               for b in range(0, len(ids), 2048)] or [np.zeros(0)])

    def grads(self, ids: npt.NDArray[np.uint16], empty: npt.NDArray[np.bool_],
              y: npt.NDArray[np.float64], l2: float) -> net.Params:
        z, cells, pooled, pre = self._forward(ids, empty)
        dz = (1.0 / (1.0 + np.exp(-z)) - y) / len(y)
        dpre = dz[:, None] * self.p["out"][None, :] * (pre > 0)
        dcells = (dpre @ self.p["hidden"].T)[:, None, :] * (
            (cells > 0) & empty[:, :, None])
        live = dcells.reshape(-1, dcells.shape[2])
        keys = np.zeros_like(self.p["keys"])
        for d in range(ids.shape[2]):
            at = ids[:, :, d].ravel()
            for j in range(keys.shape[1]):
                keys[:, j] += np.bincount(at, weights=live[:, j], minlength=len(keys))
        return {
            "keys": keys + l2 * self.p["keys"], "cell_bias": dcells.sum(axis=(0, 1)),
            "hidden": pooled.T @ dpre + l2 * self.p["hidden"], "b1": dpre.sum(axis=0),
            "out": np.maximum(pre, 0.0).T @ dz + l2 * self.p["out"], "bias": np.array([dz.sum()]),
        }


def train_cells(ids: npt.NDArray[np.uint16], empty: npt.NDArray[np.bool_],
                y: npt.NDArray[np.float64], held: npt.NDArray[np.bool_],
                args: argparse.Namespace, classes: int) -> tuple[CellNet, float]:
    """CellNet over `classes` inputs fitted as training.net fits its model (Adam, the step
    shrinking by args.decay after each epoch), the best epoch on the held-out positions kept,
    with its log-loss."""
    rng = np.random.default_rng(args.seed)
    model = CellNet(classes, args.cell_width, args.hidden, rng)
    fitted, kept = np.flatnonzero(~held), np.flatnonzero(held)
    best: tuple[float, net.Params] = (np.inf, model.p)
    adam = net.Adam(model.p)
    for epoch in range(1, args.epochs + 1):
        lr = args.lr * args.decay ** (epoch - 1)
        rng.shuffle(fitted)
        for b in range(0, len(fitted), args.batch):
            rows = fitted[b:b + args.batch]
            adam.step(model.p, model.grads(ids[rows], empty[rows], y[rows], args.cell_l2), lr)
        z = model.logits(ids[kept], empty[kept])
        loss = net.fit.log_loss(1.0 / (1.0 + np.exp(-z)), y[kept]) if len(kept) else np.nan
        print(f"epoch {epoch}: held-out log-loss {loss:.4f}", flush=True)
        if not loss >= best[0]:
            best = (loss, {k: p.copy() for k, p in model.p.items()})
    model.p = best[1]
    return model, best[0]


def held_out(part: Data, share: int = 10) -> npt.NDArray[np.bool_]:
    """Per position, whether its game's opening is held out (one opening in `share`): the same
    openings whatever the file (an opening is its stones, in any order)."""
    games = _game_moves(part)
    game, ply = np.asarray(part["game"], dtype=np.int64), np.asarray(part["ply"], dtype=np.int64)
    first: dict[int, int] = {}
    for g, p in zip(game.tolist(), ply.tolist(), strict=True):
        first[g] = min(first.get(g, p), p)
    held = {
        g: zlib.crc32(np.sort(games[g][:p]).astype(np.int64).tobytes()) % share == 0
        for g, p in first.items()
    }
    return np.array([held[g] for g in game.tolist()], dtype=bool)


def cells_of(part: Data) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.bool_]]:
    """Per position of a training.selfplay file, cell_keys()."""
    games = _game_moves(part)
    found = [cell_keys(games[g][:p])
             for g, p in zip(part["game"].tolist(), part["ply"].tolist(), strict=True)]
    cells = SIZE * SIZE
    return (np.array([f[0] for f in found], dtype=np.uint16).reshape(-1, cells, len(DIRECTIONS)),
            np.array([f[1] for f in found], dtype=bool).reshape(-1, cells))


def with_patterns(part: Data, ids: npt.NDArray[np.uint16]) -> npt.NDArray[np.uint16]:
    """`ids` (cells_of's) with two more inputs per cell: its combination of line classes for the
    side to move and for the side waiting (engine.ai.patterns), as classes after the keys'."""
    keys = key_ids()[1]
    combos = np.zeros((len(ids), SIZE * SIZE, 2), dtype=np.uint16)
    for row, state, me in fit.replayed(part):
        combos[row, :, 0] = keys + state.pkey[me]
        combos[row, :, 1] = keys + patterns.NCOMBO + state.pkey[3 - me]
    return np.concatenate([ids, combos], axis=2)


def compare(parts: list[Data], args: argparse.Namespace) -> tuple[float, float, int, float | None]:
    """The held-out log-loss of training.net's model on the patterns, then with the keys seen in
    args.min_count fitted positions added, how many keys that is, and with args.per_cell, the
    held-out log-loss of a CellNet on what it names (PER_CELL)."""
    xs, ks, ws, ys, held = [], [], [], [], []
    for part in parts:
        x, w = net.features(part)
        xs.append(x)
        ws.append(w)
        ks.append(features(part))
        ys.append(np.asarray(part["result"], dtype=np.float64))
        held.append(held_out(part))
    x, keys, w = sp.vstack(xs).tocsr(), sp.vstack(ks).tocsr(), np.vstack(ws)
    y, out = np.concatenate(ys), np.concatenate(held)
    seen = np.asarray((keys[~out] > 0).sum(axis=0)).ravel()
    keys = keys[:, np.flatnonzero(seen >= args.min_count)]
    print(f"{len(y)} positions, {int(out.sum())} held out; {keys.shape[1]} classes of keys "
          f"seen in {args.min_count} or more fitted positions", flush=True)

    def scale_of(m: sp.csr_matrix) -> npt.NDArray[np.float64]:
        return np.sqrt(np.asarray(m.multiply(m).mean(axis=0)).ravel()) + 1e-6

    scale = scale_of(x)
    print("the patterns alone:", flush=True)
    fitted, alone = net.train((x @ sp.diags(1.0 / scale)).tocsr(), w, y, out, args)
    both = sp.hstack([x, keys]).tocsr()
    scale = np.concatenate([scale, np.maximum(scale_of(keys), args.key_floor)])
    start = {**fitted,
             "linear": np.concatenate([fitted["linear"][:-1], np.zeros(keys.shape[1]),
                                       fitted["linear"][-1:]]),
             "hidden": np.vstack([fitted["hidden"], np.zeros((keys.shape[1], args.hidden))])}
    print("with the keys:", flush=True)
    keyed = argparse.Namespace(**{**vars(args), "lr": args.key_lr})
    _, with_keys = net.train((both @ sp.diags(1.0 / scale)).tocsr(), w, y, out, keyed, start=start)
    per_cell = None
    if args.per_cell:
        read = [cells_of(part) for part in parts]
        ids, empty = np.concatenate([r[0] for r in read]), np.concatenate([r[1] for r in read])
        classes = key_ids()[1]
        if args.per_cell == "both":
            ids = np.concatenate([with_patterns(part, r[0]) for part, r in zip(parts, read,
                                                                                strict=True)])
            classes += 2 * patterns.NCOMBO
        print(f"a net per cell on {PER_CELL[args.per_cell]}:", flush=True)
        _, per_cell = train_cells(ids, empty, y, out, args, classes)
    return alone, with_keys, keys.shape[1], per_cell


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", help="training.selfplay or training.games files")
    parser.add_argument("--min-count", type=int, default=100,
                        help="fitted positions a class of keys must be seen in to be counted")
    parser.add_argument("--key-floor", type=float, default=4.0,
                        help="the least a key's count is divided by (its unit-size scale above it)")
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--lr", type=float, default=2e-3, help="Adam's first step, patterns alone")
    parser.add_argument("--key-lr", type=float, default=5e-4, help="the same with the keys")
    parser.add_argument("--decay", type=float, default=0.6)
    parser.add_argument("--l2", type=float, default=1e-3)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-cell", choices=sorted(PER_CELL),
                        help="also fit a net per cell (CellNet) on the keys alone, or on the "
                             "keys and each cell's two combinations of line classes")
    parser.add_argument("--cell-width", type=int, default=16, help="CellNet's numbers per cell")
    parser.add_argument("--cell-l2", type=float, default=1e-4, help="CellNet's L2 penalty")
    args = parser.parse_args(argv)
    if min(args.hidden, args.epochs, args.batch, args.min_count, args.cell_width) < 1 or (
            args.key_floor <= 0):
        parser.error("--hidden, --epochs, --batch, --min-count and --cell-width must be at "
                     "least 1, --key-floor above 0")
    start = time.perf_counter()
    parts = []
    for path in args.data:
        try:
            with np.load(path) as data:
                parts.append({k: data[k] for k in data.files})
        except (OSError, ValueError) as error:
            parser.error(f"{path}: not a data file ({error})")
    missing = [p for p, part in zip(args.data, parts, strict=True) if "game_moves" not in part]
    if missing:
        parser.error(f"{', '.join(missing)}: no games' moves to read the keys from")
    if len({str(p["rule"]) for p in parts}) != 1:
        parser.error("the data mixes rules")
    alone, with_keys, n, per_cell = compare(parts, args)
    cells = "" if per_cell is None else (
        f"; a net per cell on {PER_CELL[args.per_cell]} {per_cell:.4f}")
    print(f"held-out log-loss: the patterns alone {alone:.4f}; with {n} classes of keys "
          f"{with_keys:.4f} ({with_keys - alone:+.4f}){cells}; "
          f"{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
