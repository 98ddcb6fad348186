"""The bot's wiring (bot/runtime/client.py) through the Discord double and the real bot process:
commands answered while the AI thinks, and the AI's pending move resumed by the next process."""

from __future__ import annotations

import signal

from testkit.boards import ply_of
from testkit.bot_process import StartBot, text_of


async def test_stats_answered_while_the_ai_thinks_and_pending_move_resumed(
    start_bot: StartBot,
) -> None:
    # A 3 s budget makes "impossible" think for seconds on 5x5, like a slow machine would.
    bot = await start_bot(CARO_AI_TIME_LIMIT="3")
    double = bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    start = await alice.slash("caro start", difficulty="impossible", size="5x5")
    message = start.message
    await alice.click(message, "A1")
    assert "The AI is thinking" in text_of(message)  # messages are live: updated in place

    stats = await bob.slash("caro stats")
    assert stats.callback_type == 4
    # The stats answer came back while the board still waits for the AI's move.
    assert "The AI is thinking" in text_of(message)
    message = await message.wait_for(lambda m: "Your turn" in text_of(m), timeout=20)
    edit_times = [r.time for r in double.requests if r.method == "PATCH"]
    stats_time = next(
        r.time for r in double.requests
        if r.method == "POST" and f"/interactions/{stats.interaction_id}/" in r.path
    )
    assert edit_times and stats_time < max(edit_times)

    # The player moves, the bot dies before the AI answers, a new process finishes that move.
    await alice.click(message, "B2")
    assert "thinking" in text_of(message)
    code = await bot.stop(signal.SIGKILL)  # no chance to answer
    assert code == -signal.SIGKILL
    await bot.start()
    message = await message.wait_for(lambda m: "Your turn" in text_of(m), timeout=30)
    assert ply_of(message) == 4
    patched = [
        r for r in double.requests
        if r.method == "PATCH" and r.path.endswith(f"/channels/{double.channel_id}/messages/{message.id}")
    ]
    assert patched, "the resumed move is drawn through the channel message endpoint"
    assert bot.db_rows("SELECT COUNT(*) FROM moves") == [(4,)]
