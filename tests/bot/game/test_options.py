"""Game options (bot/game/options.py): time-outs given in minutes within limits, sizes as presets
or typed up to 26x26."""

from __future__ import annotations

import pytest

from bot.game.errors import UserError
from bot.game.options import parse_options, parse_timeout


def test_timeouts_are_given_in_minutes_within_limits() -> None:
    assert parse_timeout(10, minimum_seconds=60) == 600
    assert parse_timeout(0.05, minimum_seconds=1) == 3
    with pytest.raises(UserError, match="between 1 and 10080 minutes"):
        parse_timeout(0.5, minimum_seconds=60)
    with pytest.raises(UserError, match="between"):
        parse_timeout(20000, minimum_seconds=60)


def test_sizes_are_presets_or_typed_up_to_26x26() -> None:
    from bot.game.options import parse_size

    assert parse_size(None) == (3, 3, 3)
    assert parse_size("15x15") == (15, 15, 5)
    assert parse_size(" 12 X 12 ") == (12, 12, 5)
    assert parse_size("26x20k6") == (26, 20, 6)
    assert parse_size("4x3") == (4, 3, 4)  # k is at most the longer side
    assert parse_options(None, "15x15").rule.value == "caro"  # the caro preset
    assert parse_options(None, "15x15", "freestyle").rule.value == "freestyle"
    for bad in ("27x27", "0x5", "10x10k11", "10x10k0", "x", "big"):
        with pytest.raises(UserError, match="up to 26x26"):
            parse_size(bad)
