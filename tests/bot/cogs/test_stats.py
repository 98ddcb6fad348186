"""Records and ratings (bot/cogs/stats.py), through the Discord double and the real bot process:
`/caro stats` with the server's leaderboard after games won, drawn and lost, its rating chart,
`/caro leaderboard`, and a rating season run end to end across a restart."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from PIL import Image

from bot.game.model import Mode, RatingLine
from bot.game.ratings import AI_ANCHORS, updated
from bot.game.seasons import SeasonLength, season_of, soft_reset
from bot.ui.pictures import DEFAULT_THEME
from bot.ui.rating_chart import rating_chart
from engine.solve.solver import perfect_move
from testkit.boards import cells, first_empty, play_out, refusal, resign
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.members import MANAGE_GUILD
from testkit.replays import PNG, files
from testkit.sqlite_rows import player_result


async def test_win_draw_and_loss_then_stats_and_leaderboard(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice = double.add_member("alice")
    # Nobody has played: the table against people, saying which it is and how to get on it.
    empty = (await alice.slash("caro leaderboard")).embeds[0]
    assert empty["title"].startswith("Leaderboard: this server, against people")
    assert empty["description"] == (
        "Nobody has 3 rated games against people here yet. To get on this table, challenge a"
        " member: `/caro challenge`."
    )

    win = await alice.slash("caro start", difficulty="easy")
    assert win.callback_type == 4 and not win.ephemeral
    assert "vs AI (O, easy)" in str(text_of(win)) and "Your turn (X)." in str(text_of(win))
    end = await play_out(alice, win.message, perfect_move)
    assert "**You win!**" in text_of(end)
    green = [b for b in cells(end) if b["style"] == 3]
    assert len(green) == 3 and all(b["label"] == "X" for b in green)
    assert all(b["disabled"] for b in cells(end))
    assert [b["label"] for b in end.buttons if b not in cells(end)] == ["Rematch", "Review"]

    draw = await alice.slash("caro start", difficulty="impossible")
    end = await play_out(alice, draw.message, perfect_move)
    assert "**Draw.**" in text_of(end)
    # No winning line: the one green cell is the last move.
    assert len([b for b in cells(end) if b["style"] == 3]) == 1

    loss = await alice.slash("caro start", difficulty="impossible", first="ai")
    assert "vs AI (X, impossible)" in str(text_of(loss)) and "thinking" in str(text_of(loss))
    end = await play_out(alice, loss.message, first_empty)
    assert "**The AI wins.**" in text_of(end)
    assert re.search(r"AI played \*\*[A-C][1-3]\*\*: completes a winning line\.", text_of(end))

    stats = await alice.slash("caro stats")
    assert stats.callback_type == 4
    embed = stats.embeds[0]
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    # Elo against the AI's anchors: a win over easy, a draw and a loss against impossible.
    easy, impossible = AI_ANCHORS["easy"], AI_ANCHORS["impossible"]
    rating = updated(updated(updated(1200, easy, "win"), impossible, "draw"), impossible, "loss")
    assert fields[f"against the AI: rating {round(rating)}"] == (
        "1 W / 1 D / 1 L, 3 played, win rate 33%"
    )
    assert fields["vs AI easy"] == "1 W / 0 D / 0 L, 1 played, win rate 100%"
    assert fields["vs AI impossible"] == "0 W / 1 D / 1 L, 2 played, win rate 0%"
    assert not any(name.startswith("against people") for name in fields)

    bob = double.add_member("bob")
    about_alice = await bob.slash("caro stats", user=alice)
    assert about_alice.embeds[0]["title"].lower() == "stats of alice"
    own = await bob.slash("caro stats")
    assert "No finished games" in own.embeds[0]["description"]
    board = await bob.slash("caro leaderboard", mode="ai")
    # Seasons are monthly unless the server chose otherwise: the current one is shown, and in
    # a member's first season it holds what the all-time rating does.
    month = season_of(SeasonLength.MONTHLY, datetime.now(UTC))
    assert month is not None
    assert board.embeds[0]["title"] == f"Leaderboard: this server, against the AI, season {month.name}"
    assert board.embeds[0]["description"] == (
        f"**1.** <@{alice.id}>: {round(rating)} (1 W / 1 D / 1 L)"
    )
    assert "Listed after 3 rated games" in board.embeds[0]["footer"]["text"]
    # Asked for no mode, the leaderboard is the table this server plays: only the AI so far.
    default = await bob.slash("caro leaderboard")
    assert default.embeds[0]["title"] == board.embeds[0]["title"]
    assert default.embeds[0]["description"] == board.embeds[0]["description"]
    people = await bob.slash("caro leaderboard", scope="global", mode="pvp")
    assert "Nobody has 3 rated games" in people.embeds[0]["description"]
    # Each board says which games it counts.
    assert (
        "Counts the rated games of this server's members here, queued games against members of"
        " other servers included." in board.embeds[0]["footer"]["text"])
    assert people.embeds[0]["footer"]["text"].endswith("Counts every rated game of every server.")
    helped = await bob.slash("caro help")
    assert helped.ephemeral and "k of your marks in a row" in helped.embeds[0]["description"]

    assert running_bot.db_counts()["results"] == 3
    rows = running_bot.db_rows(f"SELECT status, {player_result()} FROM games ORDER BY id")
    assert rows == [("finished", "win"), ("finished", "draw"), ("finished", "loss")]


async def test_stats_show_the_record_and_the_server_leaderboard(running_bot: BotHandle) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    for _ in range(3):  # three rated games against the AI: enough to be listed
        start = await alice.slash("caro start", difficulty="easy")
        assert (await resign(alice, start.message)).callback_type == 7
    own = await alice.slash("caro stats")
    assert own.callback_type == 4 and len(own.embeds) == 2
    record, board = own.embeds
    assert record["title"] == "Stats of Alice"
    fields = {f["name"]: f["value"] for f in record["fields"]}
    rating = 1200.0
    for _ in range(3):
        rating = updated(rating, AI_ANCHORS["easy"], "loss")
    shown = round(rating)  # 1114
    assert fields[f"against the AI: rating {shown}"] == "0 W / 0 D / 3 L, 3 played, win rate 0%"
    assert fields["vs AI easy"] == "0 W / 0 D / 3 L, 3 played, win rate 0%"
    assert board["title"] == "Top 10 of this server"
    lines = {f["name"]: f["value"] for f in board["fields"]}
    assert lines["against the AI"] == f"**1.** <@{alice.id}>: {shown} (0 W / 0 D / 3 L)"
    assert lines["against people"].startswith("Nobody has 3 rated games against people here yet.")
    assert "Listed after 3 rated games" in board["footer"]["text"]
    # Someone else's stats: their (empty) record, and the same server leaderboard.
    other = await bob.slash("caro stats", user=alice)
    assert [e["title"] for e in other.embeds] == ["Stats of Alice", "Top 10 of this server"]
    newcomer = await alice.slash("caro stats", user=bob)
    assert newcomer.embeds[0]["description"] == "No finished games in this server yet."
    assert newcomer.embeds[1]["fields"] == board["fields"]
    alone = await alice.slash("caro leaderboard", mode="ai")
    assert alone.embeds[0]["description"] == lines["against the AI"]


async def resign_to_easy(member: Any, games: int) -> None:
    for _ in range(games):
        start = await member.slash("caro start", difficulty="easy")
        assert (await resign(member, start.message)).callback_type == 7


async def test_stats_after_rated_games_carry_the_rating_chart_of_each_pool(
    running_bot: BotHandle,
) -> None:
    double = running_bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    await resign_to_easy(alice, 3)
    stats = await alice.slash("caro stats")
    # The stats answer at once; the chart, drawn in the CPU pool, is added to them.
    assert stats.callback_type == 4 and len(stats.embeds) == 2
    shown = await stats.message.wait_for(lambda m: bool(m.attachments), timeout=30)
    chart = files(shown)["rating.png"]
    assert chart.startswith(PNG) and Image.open(io.BytesIO(chart)).size == (800, 400)
    [attachment] = shown.payload["attachments"]
    assert attachment["description"] == "Alice's rating over their last rated games"
    record, board = shown.embeds
    assert record["title"] == "Stats of Alice" and board["title"] == "Top 10 of this server"
    assert record["image"]["url"] == "attachment://rating.png"
    # Her one pool, against the AI: the all-time line and this season's, the same games.
    ratings = [1200.0]
    for _ in range(3):
        ratings.append(updated(ratings[-1], AI_ANCHORS["easy"], "loss"))
    month = season_of(SeasonLength.MONTHLY, datetime.now(UTC))
    assert month is not None
    lines = [RatingLine(Mode.AI, None, tuple(ratings)), RatingLine(Mode.AI, month.name,
                                                                   tuple(ratings))]
    assert chart == rating_chart(lines, "en", DEFAULT_THEME)

    # Another member sees her chart too; one with no rated game gets no chart, only the word.
    about = await bob.slash("caro stats", user=alice)
    seen = await about.message.wait_for(lambda m: bool(m.attachments), timeout=30)
    assert files(seen)["rating.png"] == chart
    none = await bob.slash("caro stats")
    assert none.embeds[0]["description"] == "No finished games in this server yet."
    later = await alice.slash("caro stats")
    await later.message.wait_for(lambda m: bool(m.attachments), timeout=30)
    assert none.message.attachments == [] and "image" not in none.message.embeds[0]


async def test_a_season_ends_and_its_final_standings_stay_viewable_after_a_restart(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    double = bot.double
    admin, alice = double.add_member("admin"), double.add_member("alice")
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    shown = await alice.slash("caro settings")
    assert "Rating seasons: **monthly**." in str(shown.content)

    # Three games lost last month. The bot runs on the real clock, so the clock is moved by
    # moving what it stored: those games finished, and their season is, last month.
    await resign_to_easy(alice, 3)
    now = season_of(SeasonLength.MONTHLY, datetime.now(UTC))
    last = season_of(SeasonLength.MONTHLY, datetime.now(UTC).replace(day=1) - timedelta(days=1))
    assert now is not None and last is not None
    await bot.stop()
    bot.db_rows("UPDATE games SET finished_at = ?", (f"{last.starts.isoformat()}T12:00:00.000Z",))
    bot.db_rows("UPDATE season_standings SET season = ?, starts = ?",
                (last.name, last.starts.isoformat()))
    await bot.start()

    # This month: three more, from last month's rating pulled halfway back to 1200.
    await resign_to_easy(alice, 3)
    ended = 1200.0
    for _ in range(3):
        ended = updated(ended, AI_ANCHORS["easy"], "loss")
    rating = soft_reset(1200.0, ended)
    for _ in range(3):
        rating = updated(rating, AI_ANCHORS["easy"], "loss")
    current = await alice.slash("caro leaderboard", mode="ai")
    assert current.embeds[0]["title"] == f"Leaderboard: this server, against the AI, season {now.name}"
    assert current.embeds[0]["description"] == f"**1.** <@{alice.id}>: {round(rating)} (0 W / 0 D / 3 L)"
    assert "keeping 50% of its distance from 1200" in current.embeds[0]["footer"]["text"]

    # Last month's final standings, by name; its name and this month's are suggested.
    past = await alice.slash("caro leaderboard", mode="ai", season=last.name)
    assert past.embeds[0]["title"] == f"Leaderboard: this server, against the AI, season {last.name}"
    assert past.embeds[0]["description"] == f"**1.** <@{alice.id}>: {round(ended)} (0 W / 0 D / 3 L)"
    suggested = await alice.autocomplete("caro leaderboard", "season", season="")
    assert [c["value"] for c in suggested.data["choices"]] == [now.name, last.name, "all"]
    assert suggested.data["choices"][2]["name"] == "all time"
    # All time: the six games, never reset.
    all_time = 1200.0
    for _ in range(6):
        all_time = updated(all_time, AI_ANCHORS["easy"], "loss")
    every = await alice.slash("caro leaderboard", mode="ai", season="all")
    assert every.embeds[0]["title"] == "Leaderboard: this server, against the AI"
    assert every.embeds[0]["description"] == f"**1.** <@{alice.id}>: {round(all_time)} (0 W / 0 D / 6 L)"

    # Names that are no season here get a short private answer.
    assert "no standings for season **2020-01**" in refusal(
        await alice.slash("caro leaderboard", season="2020-01")
    )
    assert "is not a season" in refusal(await alice.slash("caro leaderboard", season="Octember"))
    assert "belong to one server" in refusal(
        await alice.slash("caro leaderboard", scope="global", season=last.name)
    )

    # Seasons off (Manage Server only): the leaderboard is the all-time one again; the past
    # seasons stay viewable.
    assert "Manage Server" in refusal(await alice.slash("caro settings", season_length="off"))
    saved = await admin.slash("caro settings", season_length="off")
    assert saved.ephemeral and "Rating seasons: **off**." in str(saved.content)
    await bot.restart()
    plain = await alice.slash("caro leaderboard", mode="ai")
    assert plain.embeds[0]["title"] == "Leaderboard: this server, against the AI"
    again = await alice.slash("caro leaderboard", mode="ai", season=last.name)
    assert again.embeds[0]["description"] == past.embeds[0]["description"]
