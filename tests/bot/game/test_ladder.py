"""The AI levels' ladder (bot/game/ladder.py): the fit of the measured games, the anchors derived
from it in bot/game/ratings.py, and the tool that measures it again (bench/ladder.py)."""

from __future__ import annotations

import math

import pytest

from bot.game import ladder, ratings
from bot.game.ladder import Pairing
from engine.game.types import Level


def test_the_anchors_are_the_fit_of_the_measured_table_rounded_to_50() -> None:
    fitted = ladder.fit(ladder.MEASURED, pin=ratings.LADDER_PIN, at=ratings.START_RATING)
    expected = {level: 50.0 * math.floor(fitted[level].rating / 50.0 + 0.5) for level in Level}
    assert expected == ratings.AI_ANCHORS
    assert list(ratings.AI_ANCHORS) == list(Level)
    assert all(value % 50 == 0 for value in ratings.AI_ANCHORS.values())


def test_the_levels_are_ordered_and_normal_is_a_new_members_rating() -> None:
    anchors = [ratings.AI_ANCHORS[level] for level in Level]
    assert anchors == sorted(anchors) and len(set(anchors)) == len(anchors)
    assert ratings.AI_ANCHORS[Level.NORMAL] == ratings.START_RATING
    assert ratings.LADDER[Level.NORMAL].error == 0.0
    # A new member is offered the pinned level by the adaptive difficulty.
    assert ratings.nearest_level(ratings.START_RATING) is ratings.LADDER_PIN


def test_the_table_measures_every_level_and_names_its_conditions() -> None:
    names = ladder.players(ladder.MEASURED)
    assert set(Level) <= set(names)
    for pairing in ladder.MEASURED:
        assert pairing.games > 0 and pairing.conditions
    # Rapfi, measured against impossible, is on the same scale, above every level.
    assert ratings.LADDER["rapfi"].rating > ratings.LADDER[Level.IMPOSSIBLE].rating


def test_one_pairing_is_the_smoothed_score_as_elo() -> None:
    pairing = Pairing("a", "b", 30, 4, 16)  # 32 of 50
    elo, error = pairing.elo()
    p = (32 + 0.5) / 51  # one drawn game added
    assert elo == pytest.approx(400 * math.log10(p / (1 - p)))
    assert error == pytest.approx(1.959964 * 400 / math.log(10) / math.sqrt(51 * p * (1 - p)))


def test_a_clean_sweep_has_a_finite_rating_and_a_wide_interval() -> None:
    elo, error = Pairing("a", "b", 20, 0, 0).elo()
    assert elo == pytest.approx(400 * math.log10(20.5 / 0.5))
    assert math.isfinite(elo) and error > 200
    assert Pairing("b", "a", 0, 0, 20).elo()[0] == pytest.approx(-elo)


def test_the_fit_recovers_the_ratings_that_made_the_results() -> None:
    truth = {"a": 1000.0, "b": 1200.0, "c": 1500.0}

    def games(x: str, y: str, n: int) -> Pairing:
        p = 1 / (1 + 10 ** ((truth[y] - truth[x]) / 400))
        return Pairing(x, y, round(p * n), 0, n - round(p * n))

    table = [games("b", "a", 100_000), games("c", "b", 100_000), games("c", "a", 100_000)]
    fitted = ladder.fit(table, pin="b", at=1200.0)
    for name, rating in truth.items():
        assert fitted[name].rating == pytest.approx(rating, abs=1.0)
    assert fitted["b"].error == 0.0 and 0 < fitted["a"].error < 10
    assert fitted["c"].games == 200_000


def test_the_fit_uses_every_pairing_not_only_a_chain() -> None:
    chain = [Pairing("b", "a", 30, 0, 20), Pairing("c", "b", 30, 0, 20)]
    lone = ladder.fit(chain, pin="a", at=0.0)
    # c also beat a far more often than the chain predicts: c rises, and b's interval narrows.
    more = ladder.fit([*chain, Pairing("c", "a", 50, 0, 0)], pin="a", at=0.0)
    assert more["c"].rating > lone["c"].rating
    assert more["b"].error < lone["b"].error


def test_the_fit_refuses_what_it_cannot_rate() -> None:
    with pytest.raises(ValueError, match="connecting"):
        ladder.fit([Pairing("a", "b", 1, 0, 1), Pairing("c", "d", 1, 0, 1)], pin="a", at=0.0)
    with pytest.raises(ValueError, match="pinned"):
        ladder.fit([Pairing("a", "b", 1, 0, 1)], pin="z", at=0.0)
    with pytest.raises(ValueError, match="no games"):
        ladder.fit([Pairing("a", "b", 0, 0, 0)], pin="a", at=0.0)


def test_head_to_head_adds_both_directions() -> None:
    table = [Pairing("a", "b", 3, 1, 2), Pairing("b", "a", 4, 0, 1), Pairing("a", "c", 9, 0, 0)]
    both = ladder.head_to_head(table, "a", "b")
    assert both is not None and (both.wins, both.draws, both.losses) == (4, 1, 6)
    assert ladder.head_to_head(table, "b", "c") is None


@pytest.mark.parametrize(("rating", "anchor"), [(1224.9, 1200.0), (1225.0, 1250.0),
                                                (-24.0, 0.0), (1837.0, 1850.0)])
def test_rounded_to_50(rating: float, anchor: float) -> None:
    assert ladder.rounded(rating) == anchor


def test_bench_ladder_measures_and_prints_the_anchors(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import ladder as bench_ladder

    code = bench_ladder.main(["--size", "5x5", "--k", "4", "--openings", "0",
                              "--pairs", "normal-easy:2,hard-normal:2,impossible-hard:2,hard-easy:2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "normal v easy: 2 games" in out
    assert "rapfi" not in out  # measured on 15x15: not carried over to another board
    assert "anchors (rounded to 50): easy" in out and "normal 1200" in out
    assert "Pairing(Level.NORMAL, Level.EASY," in out
    assert bench_ladder.main(["--size", "5x5", "--k", "4", "--openings", "0", "--pairs",
                              "hard-normal:2", "--outside", "rapfi-hard:3/0/1"]) == 0
    assert "rapfi v hard: 4 games, +3 =0 -1" in capsys.readouterr().out
    assert bench_ladder.main(["--pairs", "easy-easy"]) == 2
    assert bench_ladder.main(["--outside", "rapfi:1/2/3"]) == 2
