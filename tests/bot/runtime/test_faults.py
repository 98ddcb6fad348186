"""Faults a bot in many servers meets: interactions delivered twice or out of order, players
clicking at the same moment, Discord answering 429 and 500, and the bot killed at random moments.
All through the double against the real bot process."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from pathlib import Path
from typing import Any

from bot.runtime.loop_lag import lag_summary
from engine.support.stats import percentile
from testkit.bot_process import BotHandle, StartBot
from testkit.faults import (
    CrashCampaign,
    free_cells,
    game_id_of,
    is_over,
    launch,
    players_turn,
    result_of,
    settle,
    shutdown,
    stats_problems,
    stones_of,
    stored_moves,
    text_of,
)
from testkit.sqlite_rows import player_result


def refused(result: Any) -> str:
    assert result.callback_type == 4 and result.ephemeral, result
    return str(result.content)


async def your_turn(message: Any, timeout: float = 20) -> Any:
    return await message.wait_for(lambda m: players_turn(m) or is_over(m), timeout=timeout)


def callbacks_for(double: Any, interaction_id: str) -> int:
    return sum(
        1 for r in double.requests
        if r.method == "POST" and r.path.startswith(f"/interactions/{interaction_id}/")
    )


# ----------------------------------------------------------------- duplicates and ordering
async def test_an_interaction_delivered_twice_is_answered_and_applied_once(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    start = await alice.slash("caro start", difficulty="easy")
    assert start.message is not None
    await double.redeliver(start.interaction_id)
    await settle(double)
    assert running_bot.db_counts()["games"] == 1
    assert callbacks_for(double, start.interaction_id) == 1

    message = start.message
    click = await alice.click(message, "B2")
    assert click.callback_type == 7
    await double.redeliver(click.interaction_id)
    await double.redeliver(click.interaction_id)
    message = await your_turn(message)
    await settle(double)
    game = game_id_of(message)
    moves = stored_moves(running_bot.db_path, game)
    assert len(moves) == 2 and moves[0] == ("B2", False) and moves[1][1] is True
    assert callbacks_for(double, click.interaction_id) == 1
    assert stones_of(message) == {"B2": "X", moves[1][0]: "O"}

    # The game's last click, delivered twice, still counts the result once.
    while not is_over(message):
        last = await alice.click(message, free_cells(message)[0])
        await double.redeliver(last.interaction_id)
        message = await your_turn(message)
    await settle(double)
    assert running_bot.db_counts()["results"] == 1
    assert stats_problems(running_bot.db_path) == []


async def test_clicks_arriving_out_of_order_apply_one_move(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    start = await alice.slash("caro start", difficulty="easy", size="4x4")
    message = start.message
    assert message is not None
    # Alice clicks A1 then D4 on the same drawing; the later click reaches the bot first.
    first_id, second_id = double.ids.next(), double.ids.next()
    a1, d4 = (b["custom_id"] for b in (message.button("A1"), message.button("D4")))
    later, earlier = await asyncio.gather(
        alice.click_custom_id(message, d4, interaction_id=second_id),
        alice.click_custom_id(message, a1, interaction_id=first_id),
    )
    results = sorted([later, earlier], key=lambda r: r.callback_type)
    assert [r.callback_type for r in results] == [4, 7]
    assert "out of date" in refused(results[0]) or "Wait for the AI" in refused(results[0])
    message = await your_turn(message)
    await settle(double)
    moves = stored_moves(running_bot.db_path, game_id_of(message))
    assert len(moves) == 2 and moves[0][0] in ("A1", "D4")
    assert {c for c, s in stones_of(message).items() if s == "X"} == {moves[0][0]}

    # A click from an older drawing arriving after the game moved on changes nothing.
    before = running_bot.db_counts()
    stale = await alice.click_custom_id(message, a1 if moves[0][0] == "D4" else d4)
    assert "out of date" in refused(stale)
    assert running_bot.db_counts() == before


async def test_two_people_clicking_at_once(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    start = await alice.slash("caro start", difficulty="easy")
    message = start.message
    assert message is not None
    mine, theirs = await asyncio.gather(alice.click(message, "A1"), bob.click(message, "C3"))
    assert mine.callback_type == 7
    assert "not your game" in refused(theirs)
    message = await your_turn(message)
    # The same player double-clicking two cells: one applies.
    free = free_cells(message)
    both = await asyncio.gather(alice.click(message, free[0]), alice.click(message, free[1]))
    assert sorted(r.callback_type for r in both) == [4, 7]
    await your_turn(message)
    await settle(double)
    moves = stored_moves(running_bot.db_path, game_id_of(message))
    assert len(moves) == 4 and [by_ai for _, by_ai in moves.values()] == [False, True] * 2

    # Two /caro start at once from one player: one game.
    other = double.add_channel("other")
    starts = await asyncio.gather(
        *(alice.slash("caro start", channel_id=other) for _ in range(3))
    )
    assert sorted(bool(r.ephemeral) for r in starts) == [False, True, True]
    assert running_bot.db_rows(
        "SELECT COUNT(*) FROM games WHERE channel_id = ? AND status = 'active'", (int(other),)
    ) == [(1,)]


# ----------------------------------------------------------------- Discord answering 429 / 500
async def test_rate_limits_and_server_errors_are_retried_and_the_board_stays_true(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    callback = r"^/interactions/\d+/[^/]+/callback$"
    # The board's first post: rate limited once, then accepted. Against "normal", which is not a
    # quick level, the AI's answer is an edit of its own (easy's comes in the click's response).
    double.fail_next("POST", callback, status=429, retry_after=0.4)
    start = await alice.slash("caro start", difficulty="normal", size="4x4", first="me")
    assert start.callback_type == 4 and not start.ephemeral
    message = start.message
    assert message is not None

    # A click whose acknowledgement first meets a 500, and whose AI answer (an edit of the
    # original response) meets a 429 and a 500 before it goes through.
    double.fail_next("POST", callback, status=500)
    double.fail_next("PATCH", r"/messages/@original$", status=429, retry_after=0.3)
    double.fail_next("PATCH", r"/messages/@original$", status=500)
    click = await alice.click(message, "B2")
    assert click.callback_type == 7
    message = await your_turn(message)
    await settle(double, 0.5)
    statuses = [r.status for r in double.requests if r.method == "PATCH"]
    assert statuses[:3] == [429, 500, 200]

    # Every further edit of this game meets one 500 first: play to the end.
    while not is_over(message):
        double.fail_next("PATCH", r"/messages/", status=500)
        result = await alice.click(message, free_cells(message)[0])
        assert result.callback_type == 7
        message = await message.wait_for(
            lambda m: (players_turn(m) or is_over(m)) and "thinking" not in text_of(m), timeout=20
        )
    await settle(double, 0.5)
    # What alice sees is what is stored.
    moves = stored_moves(running_bot.db_path, game_id_of(message))
    assert stones_of(message) == {
        cell: ("O" if by_ai else "X") for cell, by_ai in moves.values()
    }
    rows = running_bot.db_rows(f"SELECT status, {player_result()} FROM games")
    assert rows == [("finished", result_of(message))]
    assert running_bot.db_counts()["results"] == 1


# ----------------------------------------------------------------- SIGKILL at random moments
KILLS = 6


async def test_killed_at_random_moments_nothing_acknowledged_is_lost(tmp_path: Path) -> None:
    double, bot = await launch(tmp_path / "bot")
    try:
        campaign = CrashCampaign(double, bot, random.Random(6), players=4)
        problems: list[str] = []
        for _ in range(KILLS):
            problems += await campaign.round(campaign.rng.uniform(0.3, 2.5))
        assert problems == []
        acked = sum(len(seat.acked) for seat in campaign.seats)
        finished = sum(len(seat.finished) for seat in campaign.seats)
        assert acked >= KILLS, "the players hardly played: the scenario proves little"
        assert campaign.unexpected_violations() == []
        await settle(double)
        assert campaign.check_database() == []
        # Finished games are counted once each, whoever saw them.
        assert bot.db_counts()["results"] >= finished
    finally:
        problems = await shutdown(double, bot, allow_violations=True)
    assert problems == []
    # The AI workers of every killed bot exit on their own (they check for their parent).
    for _ in range(50):
        if not campaign.leftover_workers():
            break
        await asyncio.sleep(0.1)
    assert campaign.leftover_workers() == []


# ----------------------------------------------------------------- the loop-lag metric
def test_loop_lag_summary_reports_max_p99_and_mean() -> None:
    lags = [0.001] * 98 + [0.030, 0.250]
    assert percentile(sorted(lags), 0.99) == 0.030
    assert lag_summary(lags, 5.0) == (
        "loop lag over 5.0 s: max 250.0 ms, p99 30.0 ms, mean 3.78 ms (100 samples)"
    )


async def test_the_bot_logs_its_loop_lag_when_asked(start_bot: StartBot) -> None:
    bot = await start_bot(CARO_LOOP_LAG_LOG="0.5")
    alice = bot.double.add_member("alice")
    await alice.slash("caro help")
    await asyncio.sleep(1.6)
    reports = re.findall(r"caro\.metrics: loop lag over ([\d.]+) s: max ([\d.]+) ms", bot.log_text())
    assert len(reports) >= 2
    assert all(0.5 <= float(seconds) < 1.5 and float(worst) >= 0 for seconds, worst in reports)


async def test_a_board_discord_refused_to_redraw_is_drawn_again_shortly(
    running_bot: BotHandle,
) -> None:
    from testkit.faults import free_cells, players_turn

    double = running_bot.double
    alice = double.add_member("alice")
    # Not easy: a quick level's answer that comes within the click's short wait is drawn with
    # the move in the click's own response, and no edit would be left to refuse.
    start = await alice.slash("caro start", difficulty="normal", size="3x3")
    # Both ways of drawing the AI's answer fail once: the interaction's token is refused, then
    # the message endpoint answers 404 (Discord having a bad moment).
    double.fail_next("PATCH", r"/messages/", status=401, times=1)
    double.fail_next("PATCH", r"/messages/", status=404, times=1)
    clicked = await alice.click(start.message, free_cells(start.message)[0])
    assert clicked.callback_type == 7
    message = await start.message.wait_for(players_turn, timeout=20)
    assert len(free_cells(message)) == 7  # the player's move and the AI's answer are both shown
    assert "could not draw the AI's move" in running_bot.log_text()


async def test_a_command_answered_after_discords_three_seconds_logs_one_line(
    tmp_path: Path,
) -> None:
    from testkit.discord_double.interactions import InteractionFailed
    from testkit.faults import launch, shutdown

    double, bot = await launch(tmp_path / "bot")
    try:
        # Every answer is now late for Discord (an overloaded bot): the callback is refused with
        # 10062 Unknown interaction, and there is no one left to tell.
        double.response_deadline = 0.0
        with contextlib.suppress(InteractionFailed):
            await double.add_member("alice").slash("caro help")
        await asyncio.sleep(1.0)
    finally:
        problems = await shutdown(double, bot, allow_violations=True)
    assert problems == []  # no traceback: one warning line instead
    assert "a command was answered too late for Discord" in bot.log_text()
