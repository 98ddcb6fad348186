"""Tournaments as stored: the tournament, its entries and its pairings. No Discord and no database
here; the pairing rules are bot.game.pairings', the running of a tournament
bot.game.tournament_runner's.

An entry is a member or an AI level. Its id (`Entrant`) is a string, as bot.game.pairings wants:
a member's Discord id in digits, or an AI level's name with a number when the level is entered
more than once ("hard", "hard#2"). The same string names the entry in every stored pairing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.game.model import AiLevel, GameState, Seat, parse_ai_level
from bot.game.pairings import Format, Game, Outcome
from engine import Mark
from engine.game.openings import Opening

Entrant = str


class TournamentStatus(StrEnum):
    OPEN = "open"  # taking entries until it starts
    RUNNING = "running"
    PAUSED = "paused"  # running games go on; no new pairing until it resumes
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def over(self) -> bool:
        return self in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)


# The statuses of a tournament that is not over.
LIVE = (TournamentStatus.OPEN, TournamentStatus.RUNNING, TournamentStatus.PAUSED)


def member_entrant(user_id: int) -> Entrant:
    return str(user_id)


def ai_entrant(level: AiLevel, taken: set[Entrant]) -> Entrant:
    """The id of one more entry of `level`: its name, then "name#2", "name#3"..."""
    name = level.value
    number = 1
    entrant = name
    while entrant in taken:
        number += 1
        entrant = f"{name}#{number}"
    return entrant


def seat_of(entrant: Entrant) -> Seat:
    """The seat an entry takes in a game: a member's id, or the AI level it names."""
    if entrant.isdigit():
        return int(entrant)
    return parse_ai_level(entrant.partition("#")[0])


def is_member_entrant(entrant: Entrant) -> bool:
    return entrant.isdigit()


@dataclass(frozen=True, slots=True)
class NewTournament:
    guild_id: int
    channel_id: int
    created_by: int
    format: Format
    rounds: int | None  # Swiss: the chosen number; round-robin: set at the start; arena: None
    minutes: int | None  # arena: how long it runs
    max_players: int
    rows: int
    cols: int
    k: int
    rule: str
    opening: Opening
    turn_seconds: float
    rated: bool
    starts_at: float
    locale: str = "en-US"


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None  # the announcement that carries the Join button
    created_by: int
    format: Format
    rounds: int | None
    minutes: int | None
    max_players: int
    rows: int
    cols: int
    k: int
    rule: str
    opening: Opening
    turn_seconds: float
    rated: bool
    starts_at: float
    locale: str
    status: TournamentStatus
    round: int  # the last round paired (an arena: the last batch of pairings); 0 before
    announced: int  # the last round whose standings were posted
    started_at: float | None
    ends_at: float | None  # an arena's end
    finished_at: float | None

    @property
    def joins_late(self) -> bool:
        """Whether members may still join after the start: an arena under way takes newcomers
        until its time is up, as they are paired whenever they are free."""
        return self.format is Format.ARENA and self.status in (
            TournamentStatus.RUNNING,
            TournamentStatus.PAUSED,
        )

    def takes_entries(self, now: float) -> bool:
        """Whether a member may join at `now`: before the start, or in an arena before its end."""
        if self.status is TournamentStatus.OPEN:
            return True
        return self.joins_late and self.ends_at is not None and now < self.ends_at


@dataclass(frozen=True, slots=True)
class EntryRow:
    entrant: Entrant
    seed: int  # the order of entry; the starting order is set from ratings at the start
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class PairingRow:
    """A game of a round (or, with `o` None, a bye). `x` and `o` are who played X and O in the
    end (an opening rule may swap them); `outcome` is from X's side, None until it is known."""

    id: int
    round: int
    board: int
    x: Entrant
    o: Entrant | None
    game_id: int | None
    outcome: Outcome | None

    @property
    def is_bye(self) -> bool:
        return self.o is None

    @property
    def done(self) -> bool:
        return self.o is None or self.outcome is not None


@dataclass(frozen=True, slots=True)
class TournamentGame:
    """A game's place in its tournament, as its board names it: the tournament and the pairing
    the game was made for."""

    tournament: TournamentRow
    pairing: PairingRow

    @property
    def round(self) -> int:
        return self.pairing.round

    def entrant(self, state: GameState, mark: Mark) -> Entrant:
        """The entry that plays `mark` in `state`, the pairing's game. An opening rule may have
        given X to the other player; two entries of one AI level play no opening, and the
        pairing says which is which."""
        assert self.pairing.o is not None  # a bye has no game
        x, o = self.pairing.x, self.pairing.o
        if seat_of(x) != state.row.x:
            x, o = o, x
        return x if mark is Mark.X else o


@dataclass(frozen=True, slots=True)
class NewPairing:
    board: int
    x: Entrant
    o: Entrant | None


def scored(pairings: Sequence[PairingRow]) -> list[Game]:
    """The pairings as bot.game.pairings reads them: byes and finished games."""
    return [
        Game(p.round, p.x, p.o, p.outcome) for p in pairings if p.is_bye or p.outcome is not None
    ]


__all__ = [
    "LIVE",
    "EntryRow",
    "Entrant",
    "NewPairing",
    "NewTournament",
    "PairingRow",
    "TournamentGame",
    "TournamentRow",
    "TournamentStatus",
    "ai_entrant",
    "is_member_entrant",
    "member_entrant",
    "scored",
    "seat_of",
]
