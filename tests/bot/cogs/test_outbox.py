"""The outbox (bot/cogs/outbox.py) through the Discord double and the real bot process: a final
announcement decided but never sent before a kill is posted once after the restart, on SQLite
and on PostgreSQL, and the announcement then says the tournament is over; a post whose answer
was lost is sent again and arrives once, thanks to its nonce; a post Discord will never take is
given up, said once in the log; a row claimed as the database went away goes out as soon as it is
back."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

import bot.cogs.outbox as outbox_cog
from bot.cogs.outbox import OutboxCog
from bot.game.ports import StorageUnavailable
from testkit.bot_process import BotHandle, StartBot, text_of
from tests.bot.cogs.test_outbox_sender import SenderBot
from tests.bot.cogs.test_tournament import ROUND_TIMEOUT, Database, count, posted

CREATE_MESSAGE = r"^/channels/\d+/messages$"
FINAL = "Tournament #1 is over"


async def one_round_swiss(bot: BotHandle) -> Any:
    """A Swiss of one round between two AI entries, created and filled but not started; its
    announcement."""
    alice = bot.double.add_member("alice")
    created = await alice.slash(
        "caro tournament create", format="swiss", rounds=1, size="4x4k3", starts_in=60
    )
    for level in ("easy", "hard"):
        await alice.slash("caro tournament add_ai", level=level)
    started = await alice.slash("caro tournament start")
    assert "starts now" in text_of(started)
    return created.message


async def outbox(db: Database, kind: str) -> list[tuple[Any, ...]]:
    return await db.rows(
        "SELECT sent_at IS NOT NULL, failed_at IS NOT NULL, attempts, last_error FROM outbox"
        f" WHERE kind = '{kind}' ORDER BY id"
    )


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 20.0) -> None:
    for _ in range(int(timeout * 10)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not so within {timeout} s")


async def final_killed_before_it_is_sent(bot: BotHandle, db: Database) -> None:
    # Discord holds the final's Create Message unanswered: the bot decided it, and is killed
    # before it reaches Discord.
    held = bot.double.fail_next("POST", CREATE_MESSAGE, status=500, mode="hold", content=FINAL)
    announcement = await one_round_swiss(bot)
    reached = await bot.double.store.changes.wait_until(lambda: held.held == 1, ROUND_TIMEOUT)
    assert reached, bot.log_text()[-4000:]

    async def finished() -> bool:
        return await db.rows("SELECT status FROM tournaments") == [("finished",)]

    await until(finished)
    # Decided, stored, not sent. The announcement's redrawing is an edit, which waits behind no
    # new message: it may have gone out already, or wait in the outbox too.
    assert await outbox(db, "tournament_final") == [(False, False, 0, None)]
    assert len(await outbox(db, "tournament_announcement")) == 2
    await bot.stop(signal.SIGKILL)
    held.release()
    assert count(bot, lambda t: FINAL in t) == 0

    await bot.start()
    final = await posted(bot, lambda t: FINAL in t, ROUND_TIMEOUT)
    assert final.attachments and final.attachments[0]["filename"] == "standings.png"
    await announcement.wait_for(lambda m: m.embeds[0]["description"].endswith("Finished."))
    assert [b["label"] for b in announcement.refresh().buttons] == []

    async def all_sent() -> bool:
        rows = await outbox(db, "tournament_final") + await outbox(db, "tournament_announcement")
        return all(sent for sent, *_ in rows)

    await until(all_sent)
    # Sent at its first try after the restart: the kill left its claim, which the restart took
    # over at once.
    assert await outbox(db, "tournament_final") == [(True, False, 0, None)]
    assert count(bot, lambda t: FINAL in t) == 1
    assert count(bot, lambda t: "Tournament #1 has begun" in t) == 1


async def test_a_final_decided_but_killed_before_it_is_sent_is_posted_once_after_the_restart(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05")
    await final_killed_before_it_is_sent(bot, Database(bot, None))


async def test_a_final_killed_before_it_is_sent_is_posted_once_after_the_restart_on_postgresql(
    postgres_dsn: str, start_bot: StartBot
) -> None:
    # postgres_dsn first: the bot (start_bot) is stopped before its database is dropped.
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05", CARO_DATABASE_URL=postgres_dsn)
    await final_killed_before_it_is_sent(bot, Database(bot, postgres_dsn))


async def test_a_final_whose_answer_was_lost_is_sent_again_and_arrives_once(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05")
    db = Database(bot, None)
    # Discord makes the message, and the connection drops before its answer: discord.py gives
    # up at once, and the outbox tries again with the same nonce.
    bot.double.fail_next("POST", CREATE_MESSAGE, status=500, mode="drop", content=FINAL)
    announcement = await one_round_swiss(bot)
    await announcement.wait_for(
        lambda m: m.embeds[0]["description"].endswith("Finished."), ROUND_TIMEOUT
    )

    async def sent() -> bool:
        return bool((await outbox(db, "tournament_final"))[0][0])

    await posted(bot, lambda t: FINAL in t, ROUND_TIMEOUT)
    await until(sent)
    ((done, failed, attempts, error),) = await outbox(db, "tournament_final")
    assert (done, failed, attempts) == (True, False, 1) and error
    posts = [r for r in bot.double.requests if r.method == "POST" and r.json
             and FINAL in str(r.json.get("content"))]
    assert len(posts) == 2 and posts[0].json["nonce"] == posts[1].json["nonce"]
    assert posts[0].json["enforce_nonce"] is True
    assert count(bot, lambda t: FINAL in t) == 1
    assert "trying again" in bot.log_text()


async def test_a_post_discord_never_takes_is_given_up_with_its_reason_said_once(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05")
    db = Database(bot, None)
    bot.double.fail_next("POST", CREATE_MESSAGE, status=403, content=FINAL)
    announcement = await one_round_swiss(bot)
    await announcement.wait_for(
        lambda m: m.embeds[0]["description"].endswith("Finished."), ROUND_TIMEOUT
    )
    async def failed() -> bool:
        return bool((await outbox(db, "tournament_final"))[0][1])

    await until(failed)
    ((done, failed, attempts, error),) = await outbox(db, "tournament_final")
    assert (done, failed, attempts) == (False, True, 1) and error.startswith("403")
    assert count(bot, lambda t: FINAL in t) == 0
    assert bot.log_text().count("given up: Discord refused it") == 1


async def test_a_tournament_board_whose_answer_was_lost_is_posted_once(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05")
    # The game's board is made, and the connection drops before its answer: the next step posts
    # it again with the game's nonce, and Discord hands back the board it made.
    bot.double.fail_next("POST", CREATE_MESSAGE, status=500, mode="drop", content=r"\(X\) vs")
    announcement = await one_round_swiss(bot)
    await announcement.wait_for(
        lambda m: m.embeds[0]["description"].endswith("Finished."), ROUND_TIMEOUT
    )
    boards = [r for r in bot.double.requests if r.method == "POST" and r.json
              and "(X) vs" in str(r.json.get("content"))]
    assert len(boards) == 2 and boards[0].json["nonce"] == boards[1].json["nonce"]
    assert count(bot, lambda t: "(X) vs" in t) == 1
    await posted(bot, lambda t: FINAL in t, ROUND_TIMEOUT)
    assert "no answer posting game 1" in bot.log_text()


class _OutboxAwayOnce:
    """An outbox whose database goes away at the first look for rows due, then comes back."""

    def __init__(self) -> None:
        self.changed = asyncio.Event()
        self.calls: list[str] = []
        self.away = True

    def now(self) -> float:
        return 0.0

    async def take_over(self, *, shard_id: int, shard_count: int) -> int:
        self.calls.append("take_over")
        return 0

    async def due(self, *, shard_id: int, shard_count: int) -> list[Any]:
        self.calls.append("due")
        if self.away:
            self.away = False
            raise StorageUnavailable("the database went away")
        return []

    async def next_due(self, *, shard_id: int, shard_count: int) -> None:
        return None

    async def prune(self) -> int:
        return 0


async def test_the_sender_takes_its_shards_claims_over_again_once_the_database_is_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A row this process claimed just before the database went away keeps its claim: without a
    # fresh take-over it would wait for the claim to run out (a minute) after the outage.
    monkeypatch.setattr(outbox_cog, "UNAVAILABLE_RETRY_SECONDS", 0.01)
    monkeypatch.setattr(outbox_cog, "LOOK_EVERY_S", 0.01)
    outbox = _OutboxAwayOnce()
    bot = SenderBot(outbox)
    sender = asyncio.create_task(OutboxCog(bot).send_posts())  # type: ignore[arg-type]

    async def looked_twice() -> bool:
        return outbox.calls.count("due") >= 2

    try:
        await until(looked_twice, 5.0)
    finally:
        bot.closed = True
        outbox.changed.set()
        await asyncio.wait_for(sender, 5.0)
    assert outbox.calls[:4] == ["take_over", "due", "take_over", "due"]
