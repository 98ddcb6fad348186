"""The /caro group (bot/cogs/group.py), through the Discord double and the real bot process: its
commands are registered again only when they changed."""

from __future__ import annotations

import sqlite3

from testkit.bot_process import BotHandle, StartBot


def command_puts(bot: BotHandle) -> int:
    return sum(
        1 for r in bot.double.requests if r.method == "PUT" and r.path.endswith("/commands")
    )


async def test_commands_are_registered_again_only_when_they_changed(start_bot: StartBot) -> None:
    bot = await start_bot()
    assert command_puts(bot) == 1
    await bot.restart()
    assert command_puts(bot) == 1
    assert "commands unchanged since the last sync" in bot.log_text()
    # A schema this version did not register (an older version's) is registered again.
    await bot.stop()
    with sqlite3.connect(bot.db_path) as db:
        db.execute("UPDATE meta SET value = 'older' WHERE key = 'commands_hash'")
    await bot.start()
    assert command_puts(bot) == 2
    alice = bot.double.add_member("alice")
    assert (await alice.slash("caro help")).ephemeral
