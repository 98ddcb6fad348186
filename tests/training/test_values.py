"""training.values: the search's values added to a self-play file are those self-play keeps."""

from __future__ import annotations

import numpy as np
import pytest

from training import selfplay, values


def test_values_at_the_games_node_limit_are_those_self_play_kept(tmp_path) -> None:
    played, valued = tmp_path / "played.npz", tmp_path / "valued.npz"
    assert selfplay.main(["--games", "2", "--nodes", "400", "--jobs", "1", "--out", str(played)]) == 0
    data = dict(np.load(played))
    # A file of before: the same games without the search's values.
    del data["search"]
    old = tmp_path / "old.npz"
    np.savez_compressed(old, **data)
    assert values.main([str(old), "--nodes", "400", "--jobs", "1", "--out", str(valued)]) == 0
    kept, added = np.load(played)["search"], np.load(valued)
    assert len(added["search"]) == len(kept) == len(data["result"])
    np.testing.assert_array_equal(added["search"], kept)  # NaN where no search, in the same places
    assert int(added["search_nodes"]) == 400
    assert np.array_equal(added["result"], data["result"])


def test_a_file_without_game_moves_is_refused(tmp_path, capsys) -> None:
    path = tmp_path / "patterns-only.npz"
    np.savez_compressed(path, counts=np.zeros((1, 28)), result=np.ones(1), rule=np.array("freestyle"))
    with pytest.raises(SystemExit):
        values.main([str(path), "--out", str(tmp_path / "out.npz")])
    assert "no game moves" in capsys.readouterr().err
