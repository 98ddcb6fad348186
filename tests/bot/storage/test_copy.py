"""Moving up from SQLite to PostgreSQL: every game, move, result, rating, challenge, setting and
meta fact is copied; games that were running before the copy play on after it, on PostgreSQL;
a target that is not empty is refused untouched."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from bot.game.errors import UserError
from bot.game.model import ActiveGameExists, Mode, MoveRef, NewGame
from bot.game.options import parse_options
from bot.game.pairings import Format
from bot.game.ports import StorageError
from bot.game.services import build_services
from bot.game.tournament_model import NewPairing, NewTournament
from bot.storage import PostgresStorage, SqliteStorage
from bot.storage.copy import TABLES, copy_database
from engine import Mark
from engine.game.openings import Opening
from testkit.thinkers import Thinker
from testkit.worlds import ALICE, BOB, CAROL, DAVE, GUILD, Clock, old_world

ROOT = Path(__file__).resolve().parents[3]


async def everything(store: SqliteStorage | PostgresStorage, ids: dict[str, int]) -> dict:
    """What the bot can read back of every game, challenge, rating, stat and setting."""
    from bot.game.model import GuildSettings

    users = (ALICE, BOB, CAROL, DAVE)
    default = GuildSettings(pvp_timeout=1.0, ai_timeout=1.0)
    return {
        "games": [await store.games.game(i) for i in range(1, 40)],
        "challenges": [await store.challenges.challenge(i) for i in range(1, 10)],
        "changes": [await store.standings.rating_changes(i) for i in range(1, 40)],
        "standings": [await store.standings.standing(scope, u, mode) for scope in (GUILD, 0)
                      for u in users for mode in (Mode.AI, Mode.PVP)],
        "boards": [await store.standings.rated_leaderboard(scope, mode, min_games=0)
                   for scope in (GUILD, 0) for mode in (Mode.AI, Mode.PVP)],
        "stats": [await store.standings.user_stats(GUILD, u) for u in users],
        "seasons": [(s, await store.standings.season_leaderboard(GUILD, s.name, mode, min_games=0))
                    for s in await store.standings.seasons(GUILD) for mode in (Mode.AI, Mode.PVP)],
        "settings": await store.settings.guild_settings(GUILD, default),
        "meta": await store.meta.get_meta("commands_hash"),
        "live": [await store.games.active_game(GUILD, c, u) for c in range(1, 12) for u in users],
        "tournaments": await store.tournaments.guild_tournaments(GUILD, live_only=False),
        "entries": [await store.tournaments.entries(t) for t in range(1, 4)],
        "pairings": [await store.tournaments.pairings(t) for t in range(1, 4)],
    }


def swiss_on(channel: int) -> NewTournament:
    return NewTournament(
        guild_id=GUILD, channel_id=channel, created_by=ALICE, format=Format.SWISS, rounds=None,
        minutes=None, max_players=4, rows=9, cols=9, k=5, rule="freestyle",
        opening=Opening.FREE, turn_seconds=20.0, rated=False, starts_at=50.0,
    )


async def a_running_tournament(store: SqliteStorage) -> int:
    """A tournament in its first round, with a game under way on channel 11; its game's id."""
    tours = store.tournaments
    t = await tours.create_tournament(swiss_on(11))
    await tours.set_tournament_message(t.id, 4242)
    for entrant in (str(ALICE), str(BOB), "hard"):
        assert await tours.add_entry(t.id, entrant, max_players=4)
    assert await tours.withdraw(t.id, "hard")
    assert await tours.start_tournament(t.id, [str(BOB), str(ALICE)], rounds=2, now=60.0,
                                        ends_at=None)
    assert await tours.add_round(t.id, 1, [NewPairing(1, str(BOB), str(ALICE))])
    game = await store.games.create_game(NewGame(
        guild_id=GUILD, channel_id=11, mode=Mode.PVP, x=BOB, o=ALICE, started_by=BOB, rows=9,
        cols=9, k=5, rule="freestyle", rated=False, tournament_id=t.id, turn_seconds=20.0,
    ))
    [pairing] = await tours.pairings(t.id)
    assert await tours.claim_game(pairing.id, game.id)
    assert await tours.claim_announcement(t.id, 1)
    return game.id


@pytest.fixture
async def old_sqlite(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """An SQLite database of the previous schema, with games of every mode in every state, then
    migrated and given a past rating season and a season length."""
    path = tmp_path / "caro.db"
    ids = old_world(path)
    store = await SqliteStorage.open(path)
    try:
        ids["tournament_game"] = await a_running_tournament(store)
    finally:
        await store.close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO season_standings (guild_id, season, starts, user_id, mode, rating,"
                   " wins, draws, losses) VALUES (?, '2026-10', '2026-10-01', ?, 'ai', 1210.0,"
                   " 1, 0, 1)", (GUILD, ALICE))
        db.execute("UPDATE guild_settings SET season_length = 'quarterly'")
    return path, ids


async def test_everything_is_copied_and_live_games_play_on_in_postgres(
    old_sqlite: tuple[Path, dict[str, int]], postgres_dsn: str
) -> None:
    path, ids = old_sqlite
    counts = await copy_database(f"sqlite:///{path}", postgres_dsn)
    assert counts["games"] == len([k for k in ids if not k.startswith("challenge_")])
    with sqlite3.connect(path) as db:
        for table in TABLES:
            assert counts[table] == db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    source = await SqliteStorage.open(path)
    target = await PostgresStorage.open(postgres_dsn)
    try:
        assert await everything(target, ids) == await everything(source, ids)
        assert counts["moves"] > 0 and counts["rating_changes"] > 0 and counts["challenges"] > 0
        assert counts["tournaments"] == 1 and counts["tournament_pairings"] == 1
        assert await target.tournaments.live_tournaments() == await (
            source.tournaments.live_tournaments())
        copied = await target.games.game(ids["tournament_game"])
        assert copied is not None and (copied.tournament_id, copied.turn_seconds) == (1, 20.0)

        # The games that were running play on, through the game service, on PostgreSQL.
        clock = Clock()
        svc = build_services(target, Thinker(), clock=clock)
        state = await svc.moves.play(MoveRef(ids["ai_active"], 2, "C3"), user_id=ALICE,
                                 message_id=101)
        assert state.ai_to_move
        answered = await svc.moves.ai_move(ids["ai_active"], member=ALICE)
        assert answered is not None and answered.board.ply == 4
        pvp = await svc.games.state(ids["pvp_active"])
        assert pvp is not None and pvp.mover_id == ALICE and pvp.mark_of(BOB) is Mark.X
        with pytest.raises(UserError, match="turn"):
            await svc.moves.play(MoveRef(ids["pvp_active"], 1, "A1"), user_id=BOB, message_id=106)
        # Bob's seat came along: no second game for him in that channel.
        with pytest.raises(ActiveGameExists):
            await svc.games.start(guild_id=GUILD, channel_id=5, player_id=BOB,
                              options=parse_options("easy", "3x3"), rng=random.Random(1))
        before = await svc.standings.standing(0, ALICE, pvp.mode)
        over = await svc.games.resign(ids["pvp_active"], BOB)
        assert over.row.winner is Mark.O
        changes = await svc.games.rating_changes(over.id)
        assert len(changes) == 4
        alice_global = next(c for c in changes if c.user_id == ALICE and c.scope == 0)
        assert alice_global.before == before.rating  # rated from the copied rating
        assert (await svc.standings.standing(0, ALICE, pvp.mode)).rating == alice_global.after
        # The copied pending challenge is accepted into a new game with a fresh id.
        _, accepted = await svc.challenges.answer_challenge(ids["challenge_pending"], DAVE, accept=True,
                                                   rng=random.Random(1))
        assert accepted is not None and accepted.id > max(ids.values())
        # The tournaments' ids continue after the copied one.
        assert (await target.tournaments.create_tournament(swiss_on(11))).id == 2
        fresh = await svc.games.start(guild_id=GUILD, channel_id=9, player_id=CAROL,
                                  options=parse_options("easy", "3x3"), rng=random.Random(2))
        assert fresh.id > accepted.id
    finally:
        await source.close()
        await target.close()


async def test_a_target_that_is_not_empty_is_refused_untouched(
    old_sqlite: tuple[Path, dict[str, int]], postgres_dsn: str
) -> None:
    path, _ = old_sqlite
    await copy_database(path, postgres_dsn)
    con = await asyncpg.connect(postgres_dsn)
    try:
        before = await con.fetchval("SELECT COUNT(*) FROM moves")
        with pytest.raises(StorageError, match="is not empty") as refused:
            await copy_database(path, postgres_dsn)
        assert "\n" not in str(refused.value)
        assert await con.fetchval("SELECT COUNT(*) FROM moves") == before
    finally:
        await con.close()


async def test_the_copy_command_copies_once_and_then_refuses(
    old_sqlite: tuple[Path, dict[str, int]], postgres_dsn: str
) -> None:
    path, _ = old_sqlite
    command = [sys.executable, "-m", "bot.storage.copy", "--from", f"sqlite:///{path}",
               "--to", postgres_dsn]
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARO_")}
    first = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env,
                           timeout=120, check=False)
    assert first.returncode == 0, first.stderr
    assert "games" in first.stdout and "moves" in first.stdout
    again = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env,
                           timeout=120, check=False)
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1 and "not empty" in again.stderr
    wrong = subprocess.run([*command[:4], "postgresql://nobody@/x", "--to", postgres_dsn],
                           capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
                           check=False)
    assert wrong.returncode == 2 and "source must be an SQLite database" in wrong.stderr
