"""A cheaper copy of a spliced helper in numba's builds (speed only; CARO_FAST_SPLICE=0 turns it
off).

numba copies a helper compiled with inline="always" (engine.ai.core.jit_spliced) into its caller
by deep-copying the helper's IR one block at a time, each block with a memo of its own. Every
block refers to the function's one scope, which holds every variable of the function, so each
block's copy takes a new copy of the whole scope: the work grows with blocks times variables,
and the core's largest bodies (the main search's, the threat searches') have thousands of
both. With one memo for the whole splice, the scope and its variables are copied once and the
copied blocks share them, as the blocks being copied do: the same IR, for less work.

numba has no option for this, so `install` wraps the one method that splices
(`InlineWorker.inline_ir`) and, while it runs, gives numba's inliner module a stand-in for the
`copy` module whose `deepcopy` shares one memo. A test checks that the inliner still copies
that way (tests/engine/support/test_splice.py): if a numba upgrade changes it, the test fails
and the wrapper lets numba copy as it does. That check reads numba's source, so it runs at the
first splice, in a build, not in every process that imports the core.
"""

from __future__ import annotations

import copy
import functools
import inspect
import os
from collections.abc import Callable
from typing import Any

SWITCH = "CARO_FAST_SPLICE"
_OFF = frozenset({"0", "false", "no", "off"})
_installed = False


class _SharedMemo:
    """Stands in for the `copy` module inside numba's inliner during one splice: every deepcopy
    called without a memo uses this one."""

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}

    def deepcopy(self, value: Any, memo: dict[int, Any] | None = None) -> Any:
        return copy.deepcopy(value, self.memo if memo is None else memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


def enabled() -> bool:
    """False when the operator set CARO_FAST_SPLICE to 0 (or false, no, off)."""
    return os.environ.get(SWITCH, "1").strip().lower() not in _OFF


def applies() -> bool:
    """Whether numba's inliner is the one this was written for: `inline_ir` copies the
    helper's blocks with the inliner module's `copy.deepcopy`."""
    from numba.core import inline_closurecall as inliner

    method = getattr(getattr(inliner, "InlineWorker", None), "inline_ir", None)
    return method is not None and _copies_block_by_block(getattr(method, "__wrapped__", method))


def _copies_block_by_block(method: Any) -> bool:
    """`applies`, for numba's own `inline_ir` given as `method`."""
    from numba.core import inline_closurecall as inliner

    if getattr(inliner, "copy", None) is not copy:
        return False
    try:
        source = inspect.getsource(method)
    except (OSError, TypeError):
        return False
    return "copy.deepcopy(" in source


def install() -> bool:
    """Share one memo per splice in numba's inliner (once per process); False when switched
    off. Where numba's inliner no longer copies as `applies` expects (checked at the first
    splice), the wrapper calls it unchanged."""
    global _installed
    if _installed:
        return True
    if not enabled():
        return False
    from numba.core import inline_closurecall as inliner

    worker: Any = getattr(inliner, "InlineWorker", None)
    original: Callable[..., Any] | None = getattr(worker, "inline_ir", None)
    if original is None:
        return False
    # Asked at the first splice, while the inliner module still holds the real `copy` module.
    fits = functools.cache(functools.partial(_copies_block_by_block, original))

    @functools.wraps(original)
    def inline_ir(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not fits():
            return original(self, *args, **kwargs)
        # numba compiles under its global compiler lock, so no other thread splices meanwhile;
        # a splice inside this one gets its own memo and gives this one's back.
        previous = getattr(inliner, "copy")  # noqa: B009 - a name numba does not export
        setattr(inliner, "copy", _SharedMemo())  # noqa: B010
        try:
            return original(self, *args, **kwargs)
        finally:
            setattr(inliner, "copy", previous)  # noqa: B010

    worker.inline_ir = inline_ir
    _installed = True
    return True


def installed() -> bool:
    return _installed
