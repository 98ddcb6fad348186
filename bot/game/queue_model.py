"""The queue for an opponent (`/caro queue`): its entries and who is paired with whom, as pure
functions of the entries waiting, so any process pairs the same way. No Discord, no database.

An entry asks for one game: a board and rule, rated or casual, a turn clock. Two entries can meet
when they ask for the same game and their servers allow it: an entry made "this server only" (or
from a server that turned cross-server pairing off) meets entries of its own server only.

Pairing, each time it runs:

1. The entries waiting longest choose first. Each takes, among the entries it can meet that are
   still free, the one closest to its rating (then the one waiting longest, then the oldest id),
   never one whose member blocked it or whom it blocked, and never a member it was paired with
   in the last hour (RECENT_SECONDS).
2. The gap between two ratings must be within what both sides accept: ACCEPTED_GAP, widened by
   GAP_STEP for every GAP_EVERY seconds the entry has waited (100 at once, 150 after 10 s, 600
   after 100 s).
3. Two members paired within the hour meet again only when nobody else either could meet is
   waiting (and their gap is accepted, as above): two accounts cannot farm rating off each
   other while others wait, and two friends alone in the queue still get their game.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.game.model import NewGame

ACCEPTED_GAP = 100.0
GAP_STEP = 50.0
GAP_EVERY = 10.0
RECENT_SECONDS = 60 * 60.0


class QueueStatus(StrEnum):
    WAITING = "waiting"
    PAIRED = "paired"
    LEFT = "left"


@dataclass(frozen=True, slots=True)
class QueueKey:
    """The game an entry asks for; only entries with equal keys meet."""

    rows: int
    cols: int
    k: int
    rule: str
    rated: bool
    turn_seconds: float


@dataclass(frozen=True, slots=True)
class NewQueueEntry:
    guild_id: int
    channel_id: int
    user_id: int
    key: QueueKey
    rating: float  # the member's rating against people when they joined
    local: bool  # True: paired with members of this server only
    locale: str
    joined_at: float
    # What a board in another server calls the member (their display name when they joined).
    display_name: str = ""


@dataclass(frozen=True, slots=True)
class QueueEntry:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    user_id: int
    key: QueueKey
    rating: float
    local: bool
    locale: str
    joined_at: float
    status: QueueStatus
    # Once paired: the member it was paired with, and when.
    partner_id: int | None = None
    paired_at: float | None = None
    game_id: int | None = None  # the game the pair plays, made with the pairing
    display_name: str = ""


@dataclass(frozen=True, slots=True)
class GameBoard:
    """A board of a game in a server other than the game's own (the game's row holds its first
    board): for a queued game between two servers, the one of the member who waited less.
    `message_id` is None until it is posted."""

    game_id: int
    guild_id: int
    channel_id: int
    user_id: int  # the player whose server it is
    message_id: int | None

    @property
    def nonce(self) -> str:
        """The nonce of its post: a retry after a lost answer makes no second message."""
        return f"caro-board-{self.game_id}"


@dataclass(frozen=True, slots=True)
class QueuePairing:
    """Two entries paired, as stored, and their game: `first` waited longer, and the game is
    posted in its channel."""

    first: QueueEntry
    second: QueueEntry
    game_id: int


class AlreadyQueued(Exception):
    """The member has an entry waiting already (one at a time, enforced by the database)."""

    def __init__(self, entry: QueueEntry) -> None:
        super().__init__(f"queue entry {entry.id} is still waiting")
        self.entry = entry


class QueuedGameRunning(Exception):
    """The member plays a game the queue gave them, still running: one at a time."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"queued game {game_id} is still running")
        self.game_id = game_id


def accepted_gap(waited: float) -> float:
    """The widest rating gap an entry that has waited `waited` seconds accepts."""
    return ACCEPTED_GAP + GAP_STEP * (max(0.0, waited) // GAP_EVERY)


def can_meet(a: QueueEntry, b: QueueEntry) -> bool:
    """Whether two entries may be paired at all, whatever their ratings: two members asking for
    the same game, with servers that allow it."""
    if a.user_id == b.user_id or a.key != b.key:
        return False
    return a.guild_id == b.guild_id or not (a.local or b.local)


def _pair_of(a: int, b: int) -> frozenset[int]:
    return frozenset((a, b))


Pairs = Collection[frozenset[int]]
"""Pairs of members, each a frozenset of two user ids."""


def choose_pairs(
    entries: Sequence[QueueEntry], *, now: float, blocked: Pairs, recent: Pairs
) -> list[tuple[QueueEntry, QueueEntry]]:
    """The pairs to make among the waiting `entries` at `now`: see the module's rules. `blocked`
    holds the pairs of members where one blocked the other, `recent` those paired within the
    hour. Each pair is (the entry that waited longer, the other)."""
    order = sorted(entries, key=lambda e: (e.joined_at, e.id))
    free = {e.id for e in order}
    pairs: list[tuple[QueueEntry, QueueEntry]] = []

    def allowed(a: QueueEntry, b: QueueEntry) -> bool:
        return can_meet(a, b) and _pair_of(a.user_id, b.user_id) not in blocked

    def close_enough(a: QueueEntry, b: QueueEntry) -> bool:
        gap = abs(a.rating - b.rating)
        return gap <= accepted_gap(now - a.joined_at) and gap <= accepted_gap(now - b.joined_at)

    for entry in order:
        if entry.id not in free:
            continue
        candidates = [
            other for other in order
            if other.id in free and allowed(entry, other) and close_enough(entry, other)
            and _pair_of(entry.user_id, other.user_id) not in recent
        ]
        if not candidates:
            continue
        best = min(candidates, key=lambda o: (abs(o.rating - entry.rating), o.joined_at, o.id))
        free -= {entry.id, best.id}
        pairs.append((entry, best))

    # A pair that met within the hour, when neither has anyone else to meet in the queue.
    for entry in order:
        if entry.id not in free:
            continue
        others = [other for other in order if other.id != entry.id and allowed(entry, other)]
        if len(others) != 1 or others[0].id not in free:
            continue
        other = others[0]
        theirs = [e for e in order if e.id != other.id and allowed(other, e)]
        if len(theirs) == 1 and close_enough(entry, other):
            free -= {entry.id, other.id}
            pairs.append((entry, other))
    return pairs


class GameMaker(Protocol):
    """The game of a pair (`first` waited longer), as the store writes it with the pairing."""

    def __call__(self, first: QueueEntry, second: QueueEntry) -> NewGame: ...


class PairPolicy(Protocol):
    """choose_pairs, as the store calls it inside its pairing transaction."""

    def __call__(
        self, entries: Sequence[QueueEntry], *, now: float, blocked: Pairs, recent: Pairs
    ) -> list[tuple[QueueEntry, QueueEntry]]: ...


__all__ = [
    "ACCEPTED_GAP",
    "GAP_EVERY",
    "GAP_STEP",
    "RECENT_SECONDS",
    "AlreadyQueued",
    "GameBoard",
    "GameMaker",
    "NewQueueEntry",
    "PairPolicy",
    "Pairs",
    "QueueEntry",
    "QueueKey",
    "QueuePairing",
    "QueuedGameRunning",
    "QueueStatus",
    "accepted_gap",
    "can_meet",
    "choose_pairs",
]
