"""Command-line choices named the way people type them: the AI levels by name, and errors that
list every choice in words (argparse's own `choices=` would show the levels' enum reprs)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ..game.types import LEVELS, Level

# The metavar of a level option: the names, as argparse shows a list of choices.
LEVEL_METAVAR = "{" + ",".join(LEVELS) + "}"


def or_list(words: Sequence[str]) -> str:
    """"a, b or c": choices as a sentence says them."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def level_name(text: str) -> str:
    """An argparse type: a level's name in any case, or an error naming every level."""
    try:
        return Level.parse(text).value
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"unknown level {text!r}: choose {or_list(LEVELS)}"
        ) from None
