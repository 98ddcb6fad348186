"""engine.support.splice: numba's splicing of a helper copies the helper's scope once, not once
per block; the switch turns it off; a numba that splices differently fails here first."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from typing import Any

import pytest

numba = pytest.importorskip("numba")

from numba.core import inline_closurecall, ir  # noqa: E402

from engine.ai import core  # noqa: E402,F401 - importing the core installs the splice
from engine.support import splice  # noqa: E402


def test_numbas_inliner_still_copies_a_spliced_helper_one_block_at_a_time() -> None:
    # If this fails after a numba upgrade, the inliner changed: install() now leaves numba
    # alone, and engine.support.splice should be looked at again (or removed).
    assert splice.applies()
    assert splice.installed() == splice.enabled()


class Counts:
    """How many times numba splices a helper and deep-copies an IR scope while a test compiles,
    with the splice of engine.support.splice or numba's own."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, shared: bool) -> None:
        self.splices = 0
        self.scopes = 0
        worker = inline_closurecall.InlineWorker
        method = worker.inline_ir if shared else worker.inline_ir.__wrapped__

        def counted_splice(inner: Any, *args: Any, **kwargs: Any) -> Any:
            self.splices += 1
            return method(inner, *args, **kwargs)

        def counted_copy(scope: Any, memo: dict[int, Any]) -> Any:
            self.scopes += 1
            # What deepcopy does for a class without __deepcopy__.
            return copy._reconstruct(scope, memo, *scope.__reduce_ex__(4))  # type: ignore[attr-defined]

        monkeypatch.setattr(worker, "inline_ir", counted_splice)
        monkeypatch.setattr(ir.Scope, "__deepcopy__", counted_copy, raising=False)


def _spliced_pair() -> Any:
    """A caller and a helper with many blocks, spliced into it (as jit_spliced does)."""

    @numba.njit(inline="always")
    def helper(n: int) -> int:
        total = 0
        for i in range(n):
            if i % 3 == 0:
                total += i
            elif i % 3 == 1:
                total -= 1
            else:
                total *= 1
            if total > 1000:
                total = total // 2
        return total

    @numba.njit
    def caller(n: int) -> int:
        return helper(n) + 1

    return caller, helper


@pytest.mark.parametrize("shared", [True, False], ids=["one-memo", "numbas-own"])
def test_a_splice_copies_the_helpers_scope_once_not_once_per_block(
    monkeypatch: pytest.MonkeyPatch, shared: bool
) -> None:
    if not splice.installed():
        pytest.skip(f"{splice.SWITCH} is off")
    counts = Counts(monkeypatch, shared)
    caller, helper = _spliced_pair()
    assert caller(100) == helper.py_func(100) + 1
    assert counts.splices >= 1
    if shared:
        # numba copies the helper twice per splice (one copy to splice, one kept as it was),
        # and with the scope its parent: four copies, however many blocks the helper has.
        assert counts.scopes == 4 * counts.splices
    else:
        assert counts.scopes > 20 * counts.splices


def test_the_switch_turns_it_off() -> None:
    code = (
        "from engine.ai import core\n"
        "from engine.support import splice\n"
        "from numba.core.inline_closurecall import InlineWorker\n"
        "print(splice.enabled(), splice.installed(), hasattr(InlineWorker.inline_ir, '__wrapped__'))\n"
    )
    env = {**os.environ, splice.SWITCH: "off"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False", "False"]
