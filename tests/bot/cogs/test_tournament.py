"""Tournaments through the Discord double and the real bot process (bot/cogs/tournament/): a
16-player Swiss of AI entries killed in the middle of a round and ending as worked by hand, on
SQLite and on PostgreSQL; members joining with the buttons, playing their games and the
organiser's controls; the refusals a member gets."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable
from typing import Any

import asyncpg

from testkit.boards import refusal, resign
from testkit.bot_process import BotHandle, StartBot, text_of
from testkit.members import MANAGE_GUILD
from tests.bot.game.test_tournaments import ENTRY_ORDER, HAND_WORKED_ROUNDS, SEEDED

ROUND_TIMEOUT = 90.0


class Database:
    """The bot's database, read as the test's own client: SQLite's file or PostgreSQL."""

    def __init__(self, bot: BotHandle, dsn: str | None) -> None:
        self.bot = bot
        self.dsn = dsn

    async def rows(self, sql: str) -> list[tuple[Any, ...]]:
        if self.dsn is None:
            with sqlite3.connect(self.bot.db_path) as db:
                return db.execute(sql).fetchall()
        connection = await asyncpg.connect(self.dsn)
        try:
            return [tuple(r) for r in await connection.fetch(sql)]
        finally:
            await connection.close()


async def posted(bot: BotHandle, check: Callable[[str], bool], timeout: float) -> Any:
    """The first message in the channel whose text passes `check`, waiting for it."""
    found: list[Any] = []

    def seen() -> bool:
        found[:] = [m for m in bot.double.messages() if check(text_of(m))]
        return bool(found)

    assert await bot.double.store.changes.wait_until(seen, timeout), (
        f"no such message within {timeout} s\n--- bot log ---\n{bot.log_text()[-4000:]}"
    )
    return found[0]


def count(bot: BotHandle, check: Callable[[str], bool]) -> int:
    return sum(1 for m in bot.double.messages() if check(text_of(m)))


async def swiss_of_sixteen_through_a_kill(bot: BotHandle, db: Database) -> None:
    alice, bob = bot.double.add_member("alice"), bot.double.add_member("bob")
    created = await alice.slash(
        "caro tournament create", format="swiss", rounds=4, size="4x4k3", starts_in=60
    )
    assert created.callback_type == 4 and not created.ephemeral
    announcement = created.message
    assert announcement.embeds[0]["title"] == "Tournament #1"
    assert [b["label"] for b in announcement.buttons] == ["Join", "Leave"]
    denied = refusal(await bob.slash("caro tournament add_ai", level="hard"))
    assert "Only the tournament's organiser" in denied
    for level in ENTRY_ORDER:
        added = await alice.slash("caro tournament add_ai", level=level)
        assert "entered tournament #1" in text_of(added)
    await announcement.wait_for(lambda m: "(16/64)" in str(m.embeds[0]["fields"][0]["name"]))
    started = await alice.slash("caro tournament start")
    assert "starts now" in text_of(started)
    await posted(bot, lambda t: "Tournament #1 has begun. Round 1:" in t, 20)

    # Killed once round 2 is paired and under way: nothing is lost, nothing paired twice.
    async def round_two() -> bool:
        return bool(await db.rows("SELECT 1 FROM tournament_pairings WHERE round = 2"))

    for _ in range(int(ROUND_TIMEOUT * 10)):
        if await round_two():
            break
        await asyncio.sleep(0.1)
    assert await round_two(), bot.log_text()[-4000:]
    await bot.restart(kill=True)

    final = await posted(bot, lambda t: "Tournament #1 is over" in t, 4 * ROUND_TIMEOUT)
    pairings = await db.rows(
        "SELECT round, board, x, o, outcome, game_id FROM tournament_pairings"
        " ORDER BY round, board"
    )
    played = [
        [(x, o) for r, _, x, o, _, _ in pairings if r == number] for number in range(1, 5)
    ]
    assert played == [
        [(SEEDED[x - 1], SEEDED[o - 1]) for x, o in round_] for round_ in HAND_WORKED_ROUNDS
    ]
    assert all(outcome == "x" for *_, outcome, _ in pairings)
    games = await db.rows("SELECT id, status FROM games WHERE tournament_id = 1")
    # A game made just before the kill and never bound to its pairing was abandoned after the
    # restart, unplayed; every other game is its pairing's and was played to the end.
    bound = {g for *_, g in pairings}
    assert sorted(bound) == sorted(g for g, status in games if status != "abandoned")
    assert {status for g, status in games if g in bound} == {"finished"}
    assert not bound & {g for g, status in games if status == "abandoned"}
    # Each round's standings were posted once, the final once, with its picture.
    for number in (1, 2, 3):
        assert count(bot, lambda t, n=number: f"round {n} of 4 is over" in t) <= 1
    assert count(bot, lambda t: "Tournament #1 is over" in t) == 1
    assert "🥇 AI hard #4" in text_of(final)  # P10: the fourth hard entry, seeded tenth
    assert final.attachments and final.attachments[0]["filename"] == "standings.png"
    await announcement.wait_for(lambda m: m.embeds[0]["description"].endswith("Finished."))


async def test_a_swiss_of_sixteen_ai_players_survives_a_kill_on_sqlite(start_bot: StartBot) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05")
    await swiss_of_sixteen_through_a_kill(bot, Database(bot, None))


async def test_a_swiss_of_sixteen_ai_players_survives_a_kill_on_postgresql(
    postgres_dsn: str, start_bot: StartBot
) -> None:
    # postgres_dsn first: the bot (start_bot) is stopped before its database is dropped.
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05", CARO_DATABASE_URL=postgres_dsn)
    await swiss_of_sixteen_through_a_kill(bot, Database(bot, postgres_dsn))


async def test_members_join_with_the_buttons_and_play_their_round_robin(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05")
    double = bot.double
    alice, bob, carol, dave = (double.add_member(n) for n in ("alice", "bob", "carol", "dave"))
    created = await alice.slash(
        "caro tournament create", format="round_robin", size="3x3", turn_seconds=600,
        rated=False,
    )
    announcement = created.message
    joined = await bob.click(announcement, "Join")
    assert joined.callback_type == 7
    assert bob.mention in str(announcement.refresh().embeds[0]["fields"][0]["value"])
    assert "already in" in refusal(await bob.click(announcement, "Join"))
    assert "not in this tournament" in refusal(await carol.click(announcement, "Leave"))
    await carol.click(announcement, "Join")
    assert "Only the tournament's organiser" in refusal(await carol.slash("caro tournament start"))
    # A Join copied onto another message is refused.
    other = (await dave.slash("caro start")).message
    forged = await dave.click_custom_id(other, "caro:tj:1")
    assert forged.ephemeral
    await alice.slash("caro tournament start")
    first = await posted(bot, lambda t: bob.mention in t and carol.mention in t and "X" in t, 20)
    assert "Tournament #1 has begun. Round 1:" in text_of(
        await posted(bot, lambda t: "has begun" in t, 5)
    )
    # Bob resigns; the one round of two players is over and the tournament with it.
    await resign(bob, first)
    final = await posted(bot, lambda t: "Tournament #1 is over" in t, ROUND_TIMEOUT)
    assert f"🥇 {carol.mention}" in text_of(final)
    assert "Join" not in [b["label"] for b in announcement.refresh().buttons]


async def test_the_server_tournament_role_may_run_anyones_tournament(start_bot: StartBot) -> None:
    bot = await start_bot()
    double = bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    alice.permissions = str(int(alice.permissions) | MANAGE_GUILD)
    await bob.slash("caro tournament create", format="swiss")
    carol = double.add_member("carol")
    assert "Only the tournament's organiser" in refusal(
        await carol.slash("caro tournament cancel")
    )
    role = double.add_role("referees")
    saved = await alice.slash("caro settings", tournament_role=role)
    assert f"Tournament role: <@&{role}>" in text_of(saved)
    carol.roles.append(role)
    cancelled = await carol.slash("caro tournament cancel")
    assert f"cancelled by {carol.mention}" in text_of(cancelled)
    assert "no tournament under way" in refusal(await carol.slash("caro tournament cancel"))


async def test_a_removed_player_loses_the_game_on_its_board(start_bot: StartBot) -> None:
    bot = await start_bot()
    double = bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    announcement = (await alice.slash("caro tournament create", format="swiss")).message
    await bob.click(announcement, "Join")
    await carol.click(announcement, "Join")
    await alice.slash("caro tournament start")
    board = await posted(bot, lambda t: bob.mention in t and carol.mention in t and "X" in t, 20)
    removed = await alice.slash("caro tournament remove", player=bob.mention)
    assert f"{bob.mention} was removed from tournament #1." in text_of(removed)
    ended = await board.wait_for(lambda m: "wins" in text_of(m), timeout=10)
    assert all(b.get("disabled") for b in ended.buttons if "caro:m:" in str(b.get("custom_id")))
    final = await posted(bot, lambda t: "Tournament #1 is over" in t, ROUND_TIMEOUT)
    assert f"🥇 {carol.mention}" in text_of(final)
    # Named by its number once it is over: nothing more to remove.
    late = await alice.slash("caro tournament remove", player=bob.mention, tournament=1)
    assert "This tournament is over." in refusal(late)


async def test_an_organiser_removing_their_opponent_has_their_game_played_out(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    double = bot.double
    alice, bob = double.add_member("alice"), double.add_member("bob")
    announcement = (await alice.slash("caro tournament create", format="swiss")).message
    await alice.click(announcement, "Join")
    await bob.click(announcement, "Join")
    await alice.slash("caro tournament start")
    board = await posted(bot, lambda t: alice.mention in t and bob.mention in t and "X" in t, 20)
    removed = text_of(await alice.slash("caro tournament remove", player=bob.mention))
    assert f"{bob.mention} was removed from tournament #1." in removed
    assert f"Their game against {alice.mention} is played out" in removed
    # Bob's game goes on (no result written): he wins it when Alice resigns.
    assert "wins" not in text_of(board.refresh())
    await resign(alice, board)
    final = await posted(bot, lambda t: "Tournament #1 is over" in t, ROUND_TIMEOUT)
    assert f"🥇 {bob.mention}" in text_of(final)


async def test_a_member_over_their_cap_of_tournaments_is_refused_privately(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    double = bot.double
    bob, lan = double.add_member("bob"), double.add_member("lan", locale="vi")
    for member in (bob, lan):
        for _ in range(2):
            created = await member.slash("caro tournament create", format="swiss")
            assert not created.ephemeral
    assert "You already have 2 tournaments that are not over" in refusal(
        await bob.slash("caro tournament create", format="arena")
    )
    assert "Bạn đã có 2 giải chưa kết thúc" in refusal(
        await lan.slash("caro tournament create", format="arena")
    )
    # A member with Manage Server is held only by the server's cap.
    bob.permissions = str(int(bob.permissions) | MANAGE_GUILD)
    assert not (await bob.slash("caro tournament create", format="arena")).ephemeral


async def test_members_join_an_arena_under_way_and_get_a_game(start_bot: StartBot) -> None:
    bot = await start_bot()
    double = bot.double
    alice, bob, carol, dave, erin = (
        double.add_member(n) for n in ("alice", "bob", "carol", "dave", "erin")
    )
    created = await alice.slash(
        "caro tournament create", format="arena", minutes=5, size="3x3", rated=False
    )
    announcement = created.message
    await bob.click(announcement, "Join")
    await carol.click(announcement, "Join")
    await alice.slash("caro tournament start")
    await posted(bot, lambda t: bob.mention in t and carol.mention in t and "X" in t, 20)
    # Under way, the arena keeps its Join button for newcomers.
    assert [b["label"] for b in announcement.refresh().buttons] == ["Join", "Leave"]
    assert (await dave.click(announcement, "Join")).callback_type == 7
    assert (await erin.click(announcement, "Join")).callback_type == 7
    await posted(bot, lambda t: dave.mention in t and erin.mention in t and "X" in t, 20)
    await bob.click(announcement, "Leave")
    assert "cannot join it again" in refusal(await bob.click(announcement, "Join"))


async def test_a_tournament_starting_at_once_is_refused_privately_and_nothing_is_made(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    alice, lan = bot.double.add_member("alice"), bot.double.add_member("lan", locale="vi")
    said = refusal(await alice.slash("caro tournament create", format="swiss", starts_in=0))
    assert "at least 1 minute from now" in said and "/caro tournament start" in said
    assert "ít nhất 1 phút" in refusal(
        await lan.slash("caro tournament create", format="arena", starts_in=0)
    )
    assert "no tournament yet" in refusal(await alice.slash("caro tournament standings"))
    assert not [m for m in bot.double.messages() if "cancelled" in text_of(m)]
    assert not (await alice.slash("caro tournament create", format="swiss", starts_in=1)).ephemeral


async def test_the_standings_of_the_last_tournament_answer_once_it_is_over(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    double = bot.double
    alice, bob, carol = (double.add_member(n) for n in ("alice", "bob", "carol"))
    created = await alice.slash("caro tournament create", format="round_robin", rated=False)
    await bob.click(created.message, "Join")
    await carol.click(created.message, "Join")
    await alice.slash("caro tournament start")
    board = await posted(bot, lambda t: bob.mention in t and carol.mention in t and "X" in t, 20)
    await resign(bob, board)
    await posted(bot, lambda t: "Tournament #1 is over" in t, ROUND_TIMEOUT)

    asked = await alice.slash("caro tournament standings")
    assert asked.callback_type == 5 and not asked.ephemeral
    shown = await asked.message.wait_for(lambda m: bool(m.attachments), timeout=20)
    assert "Tournament #1 is over" in text_of(shown)
    assert shown.attachments[0]["filename"] == "standings.png"


async def test_a_board_of_two_ai_entries_names_its_tournament_round_and_entries_and_has_no_stop(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(CARO_WATCH_DELAY_SECONDS="0.05")
    alice = bot.double.add_member("alice")
    created = await alice.slash(
        "caro tournament create", format="swiss", rounds=1, size="4x4k3", starts_in=60
    )
    for _ in range(2):
        await alice.slash("caro tournament add_ai", level="easy")
    await alice.slash("caro tournament start")
    board = await posted(bot, lambda t: "Moves played" in t, 20)
    final = await posted(bot, lambda t: "Tournament #1 is over" in t, ROUND_TIMEOUT)
    link = f"https://discord.com/channels/{bot.double.guild_id}/{created.message.channel_id}"
    lines = text_of(board.refresh()).splitlines()
    assert lines[1] == f"[Tournament #1]({link}/{created.message.id}), round 1 of 1."
    # Named as the tournament's posts name them, the second entry of a level by its number.
    assert lines[2] in ("AI easy (X) vs AI easy #2 (O)", "AI easy #2 (X) vs AI easy (O)")
    assert "AI easy #2" in text_of(final)
    # No drawing of it ever offered Stop, which only refused: the tournament ends its games.
    sent = [
        r.json for r in bot.double.requests
        if r.method in ("POST", "PATCH") and r.json and "Moves played" in str(r.json)
    ]
    assert sent and not any('"caro:s:' in json.dumps(body) for body in sent)
    assert "Stop" not in [b["label"] for b in board.buttons]


async def test_the_has_begun_post_comes_before_round_ones_boards(start_bot: StartBot) -> None:
    bot = await start_bot()
    alice, bob = bot.double.add_member("alice"), bot.double.add_member("bob")
    await alice.slash(
        "caro tournament create", format="swiss", rounds=1, size="4x4k3", starts_in=60
    )
    for member in (alice, bob):
        await member.click(bot.double.messages()[0], "Join")
    for _ in range(2):
        await alice.slash("caro tournament add_ai", level="easy")
    await alice.slash("caro tournament start")
    await posted(bot, lambda t: "has begun" in t, 20)
    boards = lambda: [m for m in bot.double.messages() if "Moves played" in text_of(m)]  # noqa: E731
    assert await bot.double.store.changes.wait_until(lambda: len(boards()) == 2, 20)
    # In the channel's order: the post that lists round 1's pairings, then their boards.
    order = [m.id for m in bot.double.messages()]
    begun = next(m.id for m in bot.double.messages() if "has begun" in text_of(m))
    assert all(order.index(begun) < order.index(board.id) for board in boards())


async def test_a_tournament_game_against_an_easy_ai_gives_no_hint(start_bot: StartBot) -> None:
    bot = await start_bot()
    alice = bot.double.add_member("alice")
    created = await alice.slash(
        "caro tournament create", format="swiss", rounds=1, size="4x4k3", starts_in=60
    )
    await alice.click(created.message, "Join")
    await alice.slash("caro tournament add_ai", level="easy")
    await alice.slash("caro tournament start")
    board = await posted(bot, lambda t: alice.mention in t and "Moves played" in t, 20)
    assert "Hint" not in [b["label"] for b in board.buttons]
    # Nor from the keyboard, nor with a button made by hand: the engine would play for her.
    said = "A tournament's games get no hints: the engine would be playing for you."
    assert refusal(await alice.slash("caro hint")) == said
    game = next(b["custom_id"] for b in board.buttons if b.get("custom_id", "").startswith("caro:m:"))
    forged = await alice.click_custom_id(board, f"caro:h:{game.split(':')[2]}:0")
    assert refusal(forged) == said


async def test_a_casual_tournament_board_offers_no_takeback_and_no_rematch_once_over(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    alice = bot.double.add_member("alice")
    created = await alice.slash(
        "caro tournament create", format="swiss", rounds=1, size="4x4k3", rated=False,
        starts_in=60,
    )
    await alice.click(created.message, "Join")
    await alice.slash("caro tournament add_ai", level="easy")
    await alice.slash("caro tournament start")
    board = await posted(bot, lambda t: alice.mention in t and "Moves played" in t, 20)
    text = text_of(board)
    assert "_Casual: this tournament's games do not count for ratings._" in text.splitlines()
    assert "takeback" not in text
    sides = (f"{alice.mention} (X) vs AI easy (O)", f"AI easy (X) vs {alice.mention} (O)")
    assert any(side in text.splitlines() for side in sides)
    await resign(alice, board)
    ended = await board.wait_for(lambda m: "AI wins" in text_of(m), timeout=10)
    assert [b["label"] for b in ended.buttons if "caro:m:" not in str(b.get("custom_id"))] == [
        "Review"
    ]
