"""training.net: the model fitted is the evaluation the core plays with, once exported to its
integer tables."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
import scipy.sparse as sp

from engine.ai import compiled, core, patterns
from engine.game.types import Rule
from training import net, selfplay

# A game's first moves: X builds in the centre, O answers around it.
MOVES = [112, 113, 97, 127, 98, 82, 126, 96, 128, 140, 111, 141, 83]


def game_data(plies: list[int]) -> dict[str, np.ndarray]:
    """training.selfplay's data for positions of one game."""
    rows = [selfplay._features(MOVES[:ply], Rule.FREESTYLE) for ply in plies]
    return {"counts": np.array([r[0] for r in rows]), "windows": np.array([r[1] for r in rows]),
            "result": np.array([1.0 if p % 2 == 0 else 0.0 for p in plies]),
            "game": np.array([5] * len(plies)), "ply": np.array(plies), "game_seed": np.array([5]),
            "game_start": np.array([0]), "game_moves": np.array(MOVES, dtype=np.int16),
            "rule": np.array("freestyle")}


def exact_net(nfeat: int, rng: np.random.Generator) -> tuple[net.Model, np.ndarray]:
    """A model whose parameters the core's integers hold exactly (whole 1/400ths of a logit,
    1/1024ths of a unit, ...), so that only the core's own rounding down is left to differ, and
    the features' scale it is for."""
    scale = rng.choice([1.0, 2.0, 4.0], nfeat)
    model = net.Model(nfeat, 6, rng)
    model.p["linear"][:-1] = rng.integers(-150, 150, nfeat) * scale / net.fit.SCALE
    model.p["linear"][-1] = 50 * net.fit.WINDOW_UNIT / (net.fit.SCALE * 1024)
    model.p["hidden"] = rng.integers(-400, 400, model.p["hidden"].shape) * scale[:, None] / net.UNIT
    model.p["b1"] = rng.integers(-2000, 2000, 6) / net.UNIT
    model.p["out"] = rng.integers(-300, 300, 6) / (net.fit.SCALE * net.OUT_UNIT)
    return model, scale


def core_geometry(model: net.Model, scale: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> core.Geo:
    """The core's geometry for 15x15 freestyle, playing the model's exported tables."""
    t = net.export(model.p, scale)
    weights = patterns.Weights("test", t["cell"], t["combo"], int(t["windows"]),
                               patterns.Net(t["net_cell"], t["net_combo"], t["net_bias"], t["net_out"]))
    monkeypatch.setattr(patterns, "weights", lambda rule: weights)
    rule = Rule.FREESTYLE
    nkv, nb1, nw2 = compiled.net_tables(patterns.net_combo_values.__wrapped__(rule), t["net_bias"],
                                        t["net_out"])
    return compiled.geometry(15, 15, 5, rule)._replace(
        pkv=patterns.combo_values.__wrapped__(rule), pwin=weights.windows, nkv=nkv, nb1=nb1,
        nw2=nw2)


def test_the_core_values_a_position_as_the_fitted_model_does(monkeypatch: pytest.MonkeyPatch) -> None:
    plies = [4, 7, 10, 13]
    x, w = net.features(game_data(plies))
    model, scale = exact_net(x.shape[1], np.random.default_rng(7))
    xs = (x @ sp.diags(1.0 / scale)).tocsr()
    logits, units = model.forward(sp.hstack([xs, sp.csr_matrix(w)]).tocsr(), xs)
    assert (units > 0).any() and (units < 0).any()
    g = core_geometry(model, scale, monkeypatch)
    for ply, logit in zip(plies, logits, strict=True):
        s = compiled.new_state(g, MOVES[:ply])
        value = core.position_value(g, s, 1 if ply % 2 == 0 else 2)
        # The model's bias is the fit's intercept, which the evaluation leaves out.
        assert value == pytest.approx((logit - model.p["bias"][0]) * net.fit.SCALE, abs=2)


def test_the_averaged_model_is_the_searchs_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    plies = [3, 4, 6, 7, 9, 10, 12, 13]
    data = game_data(plies)
    prev = net.previous(data)
    # A game's first position has none before it in the data; the others, the row before.
    assert prev.tolist() == [-1, 0, -1, 2, -1, 4, -1, 6]
    x, w = net.features(data)
    model, scale = exact_net(x.shape[1], np.random.default_rng(11))
    xs = (x @ sp.diags(1.0 / scale)).tocsr()
    xa = sp.hstack([xs, sp.csr_matrix(w)]).tocsr()
    rows = np.arange(len(plies))
    averaged = model.forward(xa, xs, net._before(xs, prev, rows))[0]
    own = model.forward(xa, xs)[0]
    assert averaged[0] == own[0] and not np.allclose(averaged[1::2], own[1::2])
    g = core_geometry(model, scale, monkeypatch)
    for ply, logit in zip(plies[1::2], averaged[1::2], strict=True):
        s = compiled.new_state(g, MOVES[:ply])
        value = core.evaluate(g, s, 1 if ply % 2 == 0 else 2)
        assert value == pytest.approx((logit - model.p["bias"][0]) * net.fit.SCALE, abs=3)


def test_the_averaged_fit_follows_its_gradient() -> None:
    data = game_data([4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
    x, w = net.features(data)
    xs = (x @ sp.diags(1.0 / (abs(x).max(axis=0).toarray().ravel() + 1.0))).tocsr()
    xa = sp.hstack([xs, sp.csr_matrix(w / 1000.0)]).tocsr()
    model = net.Model(x.shape[1], 3, np.random.default_rng(5))
    before = net._before(xs, net.previous(data), np.arange(10))
    y = data["result"]
    grads = model.grads(xa, xs, y, 0.0, before)
    for key in ("linear", "hidden", "out", "b1"):
        flat = model.p[key].reshape(-1)
        for i in np.random.default_rng(1).choice(flat.size, 3, replace=False):
            keep = flat[i]
            flat[i] = keep + 1e-5
            up = model.loss(xa, xs, y, before)
            flat[i] = keep - 1e-5
            down = model.loss(xa, xs, y, before)
            flat[i] = keep
            assert grads[key].reshape(-1)[i] == pytest.approx((up - down) / 2e-5, abs=1e-6)


def test_training_keeps_the_epoch_best_on_the_held_out_games() -> None:
    x, w = net.features(game_data([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]))
    held = np.array([False] * 7 + [True] * 3)
    args = argparse.Namespace(hidden=3, seed=1, epochs=4, batch=4, lr=0.05, l2=1e-4, decay=0.6)
    params, loss = net.train(x.tocsr(), w, game_data(list(range(4, 14)))["result"], held, args)
    assert set(params) == {"linear", "bias", "hidden", "b1", "out"}
    assert params["hidden"].shape == (x.shape[1], 3)
    assert 0.0 < loss < 10.0


def test_the_step_shrinks_by_the_decay_after_each_epoch() -> None:
    data = game_data([4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
    x, w = net.features(data)
    held = np.array([False] * 10)  # nothing held out: every epoch is kept, the last one returned

    def fitted(epochs: int, decay: float) -> net.Params:
        args = argparse.Namespace(hidden=3, seed=1, epochs=epochs, batch=4, lr=0.05, l2=1e-4,
                                  decay=decay)
        return net.train(x.tocsr(), w, data["result"], held, args)[0]
    one, stopped, going = fitted(1, 0.6), fitted(3, 0.0), fitted(3, 0.6)
    # With no step after the first epoch, three epochs end where one did; with one, they move on.
    assert all(np.array_equal(one[k], stopped[k]) for k in one)
    assert not np.allclose(one["hidden"], going["hidden"])


def test_bad_sizes_are_refused(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit):
        net.main([str(tmp_path / "missing.npz"), "--hidden", "0"])
    with pytest.raises(SystemExit):
        net.main([str(tmp_path / "missing.npz"), "--hidden", str(core.NET_UNITS + 1)])
    assert f"at most {core.NET_UNITS} units" in capsys.readouterr().err
    for decay in ("0", "1.5"):
        with pytest.raises(SystemExit):
            net.main([str(tmp_path / "missing.npz"), "--decay", decay])
    assert "--decay must be above 0 and at most 1" in capsys.readouterr().err


def test_the_targets_take_their_share_from_the_search_where_it_searched() -> None:
    data = game_data([4, 5, 6])
    data["search"] = np.array([0.8, np.nan, 0.5])
    # Without a share, or without the search's chances, the targets are the results.
    assert np.array_equal(net.targets(data, 0.0), data["result"])
    assert np.array_equal(net.targets({k: v for k, v in data.items() if k != "search"}, 0.5),
                          data["result"])
    # A forced reply, which the search did not value, keeps its result.
    assert net.targets(data, 0.5).tolist() == pytest.approx([0.9, 0.0, 0.75])


def test_the_held_out_loss_is_read_against_the_results() -> None:
    data = game_data([4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
    x, w = net.features(data)
    held = np.array([False] * 7 + [True] * 3)
    args = argparse.Namespace(hidden=3, seed=1, epochs=2, batch=4, lr=0.05, l2=1e-4, decay=0.6)
    halves = np.full(10, 0.5)
    params, loss = net.train(x.tocsr(), w, halves, held, args, data["result"])
    model = net.Model(x.shape[1], 3, np.random.default_rng(0))
    model.p = params
    xa = sp.hstack([x, sp.csr_matrix(w)]).tocsr()
    assert loss == pytest.approx(model.loss(xa[7:], x.tocsr()[7:], data["result"][7:]))
    assert loss != pytest.approx(model.loss(xa[7:], x.tocsr()[7:], halves[7:]))


def test_a_search_share_outside_0_to_1_is_refused(tmp_path, capsys) -> None:
    for share in ("-0.1", "1.5"):
        with pytest.raises(SystemExit):
            net.main([str(tmp_path / "missing.npz"), "--search", share])
    assert "--search must be from 0 to 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("kind", "value", "depth", "chance"),
    [("vcf", core.WON, 0, 1.0), ("vct", 0, 0, 1.0), ("search", -core.WON - 5, 7, 0.0),
     ("search", 0, 6, 0.5), ("search", 400, 6, 1 / (1 + np.exp(-1))), ("search", 0, 0, None)],
)
def test_the_searchs_chance_reads_its_value_as_the_fit_does(kind, value, depth, chance) -> None:
    result = compiled.CoreResult(112, value, depth, 100, kind, ())
    got = selfplay.search_chance(result)
    if chance is None:  # a forced reply: no value to read
        assert np.isnan(got)
    else:
        assert got == pytest.approx(chance)


def test_a_shipped_net_read_back_exports_to_the_same_tables() -> None:
    shipped = dict(np.load(patterns.DATA / "net-freestyle.npz"))
    scale = np.random.default_rng(3).uniform(0.1, 5.0, 2 * len(net.FREE) + 2 * patterns.NCOMBO)
    tables = net.export(net.scaled(net.imported(shipped), scale), scale)
    assert all(np.array_equal(tables[k], shipped[k]) for k in tables)


def test_a_fit_from_a_net_keeps_it_when_no_epoch_beats_it() -> None:
    data = game_data([4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
    x, w = net.features(data)
    held = np.array([False] * 7 + [True] * 3)
    start = net.Model(x.shape[1], 3, np.random.default_rng(2)).p
    # A step this large throws every epoch far off: the net started from is what is left.
    args = argparse.Namespace(hidden=3, seed=1, epochs=2, batch=4, lr=50.0, l2=1e-4, decay=1.0)
    with np.errstate(over="ignore"):
        params, loss = net.train(x.tocsr(), w, data["result"], held, args, start=start)
    assert all(np.array_equal(params[k], start[k]) for k in start)
    model = net.Model(x.shape[1], 3, np.random.default_rng(0))
    model.p = start
    xa = sp.hstack([x, sp.csr_matrix(w)]).tocsr()
    assert loss == pytest.approx(model.loss(xa[7:], x.tocsr()[7:], data["result"][7:]))


def test_a_start_that_is_not_a_net_is_refused(tmp_path, capsys) -> None:
    for start in (patterns.DATA / "weights.npz", tmp_path / "missing.npz"):
        with pytest.raises(SystemExit):
            net.main([str(tmp_path / "data.npz"), "--init", str(start)])
        assert "not a net file" in capsys.readouterr().err
    # The net's units are what it starts from: another count is refused, not silently replaced.
    with pytest.raises(SystemExit):
        net.main([str(tmp_path / "data.npz"), "--init", str(patterns.DATA / "net-freestyle.npz"),
                  "--hidden", "8"])
    assert "the net of --init has 16 units" in capsys.readouterr().err
