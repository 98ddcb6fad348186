"""The database going away under a running bot (the real process, through the Discord double):
a PostgreSQL server stopped and started again, an SQLite file locked by another program. Every
click and command meanwhile gets a private answer within Discord's deadline, in the member's
language; the log says it once (one WARNING when lost, one INFO when back) with no traceback;
the games go on afterwards and the clocks that ran out meanwhile are settled."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from collections.abc import Awaitable, Callable

from testkit.boards import board_of, first_empty, refusal
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.members import MANAGE_GUILD, accepted_game
from testkit.postgres import PostgresServer

UNREACHABLE = "caro cannot reach its database right now; nothing was changed"
UNREACHABLE_VI = "caro tạm thời không kết nối được cơ sở dữ liệu"
LOST = re.compile(r" WARNING .*database .* unreachable \(")
BACK = re.compile(r" INFO .*database .* reachable again after (\d+\.\d) s")
# The turn clock of the game between members: it runs out while the database is away.
CLOCK_MINUTES = 0.1
CLOCK_SECONDS = CLOCK_MINUTES * 60

def log_lines(bot: BotHandle, pattern: re.Pattern[str]) -> list[str]:
    return [line for line in bot.log_text().splitlines() if pattern.search(line)]


async def wait_for_log(bot: BotHandle, pattern: re.Pattern[str], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = log_lines(bot, pattern)
        if found:
            return found[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"no {pattern.pattern!r} in the log\n--- bot log ---\n{bot.log_text()}")


async def survive_an_outage(
    bot: BotHandle, go_away: Callable[[], Awaitable[None]], come_back: Callable[[], Awaitable[None]]
) -> None:
    double = bot.double
    admin, alice, bob, carol = (double.add_member(n) for n in ("admin", "alice", "bob", "carol"))
    minh = double.add_member("minh", locale="vi")
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert (await admin.slash("caro settings", timeout=CLOCK_MINUTES)).ephemeral
    vs_ai = (await carol.slash("caro start", size="3x3", difficulty="easy")).message
    board = await accepted_game(alice, bob)
    assert (await alice.click(board, "B2")).callback_type == 7  # Bob's clock runs
    clock_started = time.monotonic()

    await go_away()
    # A click on a board, a click against the AI and a command: each told privately, within
    # Discord's 3 s (the double records a late answer as a violation, which fails the test).
    assert UNREACHABLE in refusal(await bob.click(board, "A1"))
    empty = board_of(vs_ai, 3).move_name(first_empty(board_of(vs_ai, 3)))
    assert UNREACHABLE in refusal(await carol.click(vs_ai, empty))
    assert UNREACHABLE_VI in refusal(await minh.slash("caro stats"))
    assert UNREACHABLE in refusal(await alice.slash("caro start", difficulty="easy"))
    # Bob's clock runs out while the database is away.
    await asyncio.sleep(max(0.0, CLOCK_SECONDS + 0.5 - (time.monotonic() - clock_started)))
    await come_back()

    back = await wait_for_log(bot, BACK, timeout=10)
    # The clock that ran out meanwhile is settled once the database is back.
    await board.wait_for(lambda m: "ran out of time" in text_of(m), timeout=15)
    assert f"**<@{alice.id}> wins: <@{bob.id}> ran out of time.**" in text_of(board)
    # The game against the AI goes on from where it was: nothing of the refused click was kept.
    assert (await carol.click(vs_ai, empty)).callback_type == 7
    await vs_ai.wait_for(lambda m: "Your turn" in text_of(m) or "**" in text_of(m), timeout=20)
    assert board_of(vs_ai, 3).ply >= 2

    lost = log_lines(bot, LOST)
    assert len(lost) == 1, lost
    assert len(log_lines(bot, BACK)) == 1
    assert float(BACK.search(back)[1]) < CLOCK_SECONDS + 5  # type: ignore[index]
    assert not log_lines(bot, re.compile(r" ERROR ")), bot.log_text()
    assert "Traceback" not in bot.log_text()


async def test_a_stopped_postgresql_server_is_told_once_and_the_bot_goes_on_when_it_is_back(
    own_postgres: PostgresServer, start_bot: StartBot
) -> None:
    dsn = own_postgres.create_database("caro_outage")
    bot = await start_bot(CARO_DATABASE_URL=dsn, CARO_MIN_TIMEOUT_SECONDS="1")

    async def go_away() -> None:
        await asyncio.to_thread(own_postgres.halt)

    async def come_back() -> None:
        await asyncio.to_thread(own_postgres.resume)

    await survive_an_outage(bot, go_away, come_back)


async def test_an_sqlite_file_locked_by_another_program_is_told_once_and_the_bot_goes_on(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_MIN_TIMEOUT_SECONDS="1")
    held: list[sqlite3.Connection] = []

    async def go_away() -> None:
        other = sqlite3.connect(bot.db_path, isolation_level=None, timeout=10)
        other.execute("BEGIN EXCLUSIVE")
        held.append(other)

    async def come_back() -> None:
        other = held.pop()
        other.execute("ROLLBACK")
        other.close()

    await survive_an_outage(bot, go_away, come_back)
