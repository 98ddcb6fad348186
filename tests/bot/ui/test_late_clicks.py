"""A click answered after Discord's deadline (bot.ui.buttons.Click.callback): found by
bench.soak on a loaded machine, where an Accept answered after 3 s raised discord.py's NotFound
(10062 Unknown interaction) out of the router and the log got a traceback. It is now one
warning, as a command answered too late already was; any other HTTP error still propagates."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any
from unittest import mock

import discord
import pytest

from bot.game.errors import UserError
from bot.ui import buttons


def not_found(code: int) -> discord.NotFound:
    response = SimpleNamespace(status=404, reason="Not Found")
    return discord.NotFound(response, {"code": code, "message": "Unknown interaction"})


async def answered_with(error: Exception, *, refused: bool = False) -> None:
    click = buttons.parse("caro:m:1:0:A1", form=False)
    assert click is not None

    async def check(self: Any, interaction: Any) -> None:
        return None

    async def answer(interaction: Any, spec: Any, found: Any) -> None:
        if refused:
            raise UserError("click.stale")
        raise error

    async def refuse(interaction: Any, exc: UserError) -> None:
        raise error

    with mock.patch.object(type(click), "check", check), \
            mock.patch.object(buttons, "refuse", refuse):
        await click.callback(mock.Mock(), answer)


async def test_a_click_answered_too_late_is_a_warning_not_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="caro.bot"):
        await answered_with(not_found(10062))
    assert "a click was answered too late for Discord (Unknown interaction)" in caplog.text


async def test_a_refusal_answered_too_late_is_a_warning_too(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The click was refused (an out-of-date board) and the refusal itself came too late.
    with caplog.at_level(logging.WARNING, logger="caro.bot"):
        await answered_with(not_found(10062), refused=True)
    assert "a click was answered too late for Discord" in caplog.text


async def test_other_not_found_errors_still_propagate() -> None:
    with pytest.raises(discord.NotFound):
        await answered_with(not_found(10008))  # Unknown Message: a bug to see
