"""Tournament rows as both backends store them (the same columns on SQLite and PostgreSQL), read
back into the model, and the one place the columns are listed."""

from __future__ import annotations

from bot.game.pairings import Format, Outcome
from bot.game.tournament_model import (
    EntryRow,
    NewTournament,
    PairingRow,
    TournamentRow,
    TournamentStatus,
)
from bot.storage.rows import Row
from engine.game.openings import Opening

TOURNAMENT_COLUMNS = (
    "id, guild_id, channel_id, message_id, created_by, format, rounds, minutes, max_players,"
    " rows, cols, k, rule, opening, turn_seconds, rated, starts_at, locale, status, round,"
    " announced, started_at, ends_at, finished_at"
)
# The columns a new tournament is inserted with, in tournament_values' order.
TOURNAMENT_INSERT_COLUMNS = (
    "guild_id, channel_id, created_by, format, rounds, minutes, max_players, rows, cols, k,"
    " rule, opening, turn_seconds, rated, starts_at, locale"
)
ENTRY_COLUMNS = "entrant, seed, withdrawn"
PAIRING_COLUMNS = "id, round, board, x, o, game_id, outcome"
# The statuses of a tournament that is not over, as an SQL list.
LIVE = "('open', 'running', 'paused')"
# A tournament's running games that no pairing holds; {0} is the backend's first placeholder.
UNBOUND_GAMES = (
    "SELECT g.id FROM games g WHERE g.tournament_id = {0} AND g.status = 'active'"
    " AND NOT EXISTS (SELECT 1 FROM tournament_pairings p WHERE p.game_id = g.id) ORDER BY g.id"
)


def tournament_values(new: NewTournament) -> tuple[object, ...]:
    return (
        new.guild_id, new.channel_id, new.created_by, new.format.value, new.rounds,
        new.minutes, new.max_players, new.rows, new.cols, new.k, new.rule, new.opening.value,
        new.turn_seconds, new.rated, new.starts_at, new.locale,
    )


def _number(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def _id(value: object) -> int | None:
    return None if value is None else int(value)  # type: ignore[call-overload]


def tournament_of(row: Row) -> TournamentRow:
    return TournamentRow(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        message_id=_id(row["message_id"]),
        created_by=int(row["created_by"]),
        format=Format(row["format"]),
        rounds=_id(row["rounds"]),
        minutes=_id(row["minutes"]),
        max_players=int(row["max_players"]),
        rows=int(row["rows"]),
        cols=int(row["cols"]),
        k=int(row["k"]),
        rule=str(row["rule"]),
        opening=Opening(row["opening"]),
        turn_seconds=float(row["turn_seconds"]),
        rated=bool(row["rated"]),
        starts_at=float(row["starts_at"]),
        locale=str(row["locale"]),
        status=TournamentStatus(row["status"]),
        round=int(row["round"]),
        announced=int(row["announced"]),
        started_at=_number(row["started_at"]),
        ends_at=_number(row["ends_at"]),
        finished_at=_number(row["finished_at"]),
    )


def entry_of(row: Row) -> EntryRow:
    return EntryRow(
        entrant=str(row["entrant"]), seed=int(row["seed"]), withdrawn=bool(row["withdrawn"])
    )


def pairing_of(row: Row) -> PairingRow:
    return PairingRow(
        id=int(row["id"]),
        round=int(row["round"]),
        board=int(row["board"]),
        x=str(row["x"]),
        o=None if row["o"] is None else str(row["o"]),
        game_id=_id(row["game_id"]),
        outcome=None if row["outcome"] is None else Outcome(row["outcome"]),
    )


def seed_order(seeds: list[str], entries: list[EntryRow]) -> list[tuple[str, int]] | None:
    """(entrant, new seed) for every entry at the start: the entries in play in the order
    `seeds`, then the withdrawn ones in their old order; None if `seeds` is not exactly the
    entries in play (one joined or left since the caller read them)."""
    playing = {e.entrant for e in entries if not e.withdrawn}
    if len(seeds) != len(set(seeds)) or set(seeds) != playing:
        return None
    withdrawn = [e.entrant for e in sorted(entries, key=lambda e: e.seed) if e.withdrawn]
    return [(entrant, seed) for seed, entrant in enumerate([*seeds, *withdrawn])]
