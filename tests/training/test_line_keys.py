"""training.line_keys: the raw line keys around each empty cell, read from the side to move's
view, held-out games chosen by their opening, and the comparison it prints."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from engine.ai import compiled, patterns
from engine.game.types import Rule
from training import line_keys, selfplay

CENTRE = 7 * 15 + 7


def key(*stones: tuple[int, int]) -> int:
    """The key with `stones` as (step from the cell, what is there): -4..-1 and 1..4."""
    steps = [s for s in range(-4, 5) if s != 0]
    return sum(what << (2 * steps.index(step)) for step, what in stones)


def count_of(counts: np.ndarray, k: int) -> int:
    return int(counts[line_keys.key_ids()[0][k]])


def test_a_key_and_the_same_line_read_the_other_way_are_one_class() -> None:
    ids, n = line_keys.key_ids()
    assert ids[key((-1, line_keys.OWN), (3, line_keys.THEIRS))] == ids[
        key((1, line_keys.OWN), (-3, line_keys.THEIRS))]
    assert ids[key((-1, line_keys.OWN))] != ids[key((-2, line_keys.OWN))]
    # 4^8 keys, each a class with its mirror image (256 read the same both ways).
    assert n == (4**8 + 4**4) // 2


def test_every_empty_cell_reads_four_lines_and_a_lone_stone_is_seen_beside_it() -> None:
    counts = line_keys.key_counts([CENTRE])
    assert counts.sum() == 4 * (15 * 15 - 1)
    # The eight cells next to the stone each read it one step away, in their direction; O is to
    # move, so it is the opponent's.
    assert count_of(counts, key((-1, line_keys.THEIRS))) == 8
    assert count_of(counts, key((-1, line_keys.OWN))) == 0
    # Two steps away, and three: eight cells each.
    assert count_of(counts, key((-2, line_keys.THEIRS))) == 8
    assert count_of(counts, key((-3, line_keys.THEIRS))) == 8


def test_the_keys_are_read_from_the_side_to_moves_view() -> None:
    # X at the centre, O in the corner: X to move, and the centre stone is its own.
    counts = line_keys.key_counts([CENTRE, 0])
    assert count_of(counts, key((-1, line_keys.OWN))) == 8
    # The corner's three neighbours read O's stone next to them, and off the board past it.
    edge = key((-4, line_keys.OFF), (-3, line_keys.OFF), (-2, line_keys.OFF), (-1, line_keys.THEIRS))
    assert count_of(counts, edge) == 3


def test_an_opening_is_held_out_in_every_file_or_in_none() -> None:
    rng = random.Random(3)
    openings = [[rng.randrange(225) for _ in range(3)] for _ in range(200)]

    def data(first: int, order: list[int]) -> dict[str, np.ndarray]:
        moves = [openings[i] + [200 + j for j in range(4)] for i in order]
        return {
            "game": np.repeat(np.arange(first, first + len(order)), 2),
            "ply": np.tile([3, 4], len(order)),
            "game_seed": np.arange(first, first + len(order)),
            "game_start": np.arange(len(order)) * 7,
            "game_moves": np.array([c for m in moves for c in m], dtype=np.int16),
        }

    one = line_keys.held_out(data(0, list(range(200))))
    # The same openings in another order, numbered otherwise, each opening's stones reordered.
    order = list(range(200))[::-1]
    other_data = data(500, order)
    for g in range(200):
        start = g * 7
        other_data["game_moves"][start:start + 3] = other_data["game_moves"][start:start + 3][::-1]
    other = line_keys.held_out(other_data)
    assert list(one[::2][order]) == list(other[::2])
    assert (one[::2] == one[1::2]).all()  # a game's positions go together
    assert 8 <= one[::2].sum() <= 35  # about a tenth


def selfplay_file(path: Path, seed: int, games: int = 40) -> Path:
    """training.selfplay's format: random games of 14 moves, their positions from ply 4."""
    rng = random.Random(seed)
    counts, windows, results, game, ply, starts, moves = [], [], [], [], [], [], []
    for g in range(games):
        cells = rng.sample([r * 15 + c for r in range(4, 11) for c in range(4, 11)], 14)
        starts.append(len(moves))
        moves += cells
        x_won = rng.random() < 0.5
        for p in range(4, 14):
            f, w, _ = selfplay._features(cells[:p], Rule.FREESTYLE)
            counts.append(f)
            windows.append(w)
            results.append(float(x_won if p % 2 == 0 else not x_won))
            game.append(g)
            ply.append(p)
    np.savez_compressed(
        path, counts=np.array(counts), windows=np.array(windows), result=np.array(results),
        game=np.array(game), ply=np.array(ply), game_seed=np.arange(games),
        game_start=np.array(starts), game_moves=np.array(moves, dtype=np.int16),
        rule=np.array("freestyle"))
    return path


def test_it_prints_the_held_out_loss_of_the_patterns_and_with_the_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(selfplay_file(tmp_path / f"{s}.npz", s)) for s in (1, 2)]
    assert line_keys.main([*files, "--min-count", "1", "--epochs", "1", "--hidden", "2"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("held-out log-loss: the patterns alone 0.")
    assert "classes of keys 0." in last


def test_a_file_without_its_games_moves_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "old.npz"
    np.savez(path, counts=np.zeros((1, 4)), rule=np.array("freestyle"))
    with pytest.raises(SystemExit):
        line_keys.main([str(path)])
    assert "no games' moves to read the keys from" in capsys.readouterr().err


def test_the_per_cell_net_follows_its_gradient() -> None:
    rng = np.random.default_rng(1)
    model = line_keys.CellNet(50, 4, 3, rng)
    for name in model.p:
        model.p[name] = model.p[name] + rng.normal(0.0, 0.05, model.p[name].shape)
    ids = rng.integers(0, 50, (5, 225, 4)).astype(np.uint16)
    empty = rng.random((5, 225)) < 0.8
    y = np.array([1.0, 0.0, 1.0, 0.5, 0.0])

    def loss() -> float:
        z = model.logits(ids, empty)
        return line_keys.net.fit.log_loss(1.0 / (1.0 + np.exp(-z)), y)

    grads = model.grads(ids, empty, y, 0.0)
    for name, values in model.p.items():
        at = tuple(int(rng.integers(0, n)) for n in values.shape)
        if name == "keys":
            at = (int(ids[0, 0, 0]), 1)  # a class the positions read
        kept = values[at]
        values[at] = kept + 1e-5
        up = loss()
        values[at] = kept - 1e-5
        down = loss()
        values[at] = kept
        assert (up - down) / 2e-5 == pytest.approx(grads[name][at], rel=1e-4, abs=1e-9), name


@pytest.mark.parametrize("inputs, said", [("keys", "the keys alone"),
                                          ("both", "the keys and the patterns")])
def test_the_per_cell_net_is_fitted_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], inputs: str, said: str
) -> None:
    files = [str(selfplay_file(tmp_path / f"{s}.npz", s)) for s in (1, 2)]
    assert line_keys.main([*files, "--min-count", "1", "--epochs", "1", "--hidden", "2",
                           "--per-cell", inputs, "--cell-width", "3"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert f"; a net per cell on {said} 0." in last


def test_the_patterns_among_the_per_cell_inputs_are_the_cores_combinations() -> None:
    moves = [CENTRE, CENTRE + 1, CENTRE + 15, CENTRE + 2]
    cells, _ = line_keys.cell_keys(moves)
    part = {"game": np.array([0]), "ply": np.array([4]), "game_seed": np.array([0]),
            "game_start": np.array([0]), "game_moves": np.array(moves, dtype=np.int16),
            "rule": np.array("freestyle")}
    both = line_keys.with_patterns(part, cells[None].astype(np.uint16))
    keys = line_keys.key_ids()[1]
    assert (both[0, :, :4] == cells).all()
    # X to move: its combinations first, then O's, each after the classes before them.
    state = compiled.new_state(compiled.geometry(15, 15, 5, Rule.FREESTYLE), moves)
    assert (both[0, :, 4] == keys + state.pkey[1]).all()
    assert (both[0, :, 5] == keys + patterns.NCOMBO + state.pkey[2]).all()
    assert len(set(both[0, :, 4].tolist())) > 1  # not every cell the same combination
