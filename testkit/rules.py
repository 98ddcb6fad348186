"""The rules the m,n,k tests run under: every rule but renju, which is five in a row only (k = 5)
and has its own scenarios (tests/engine/test_renju_rule.py, tests/engine/game/test_renju.py)."""

from __future__ import annotations

from engine import Rule

K_RULES: tuple[Rule, ...] = tuple(rule for rule in Rule if rule is not Rule.RENJU)
