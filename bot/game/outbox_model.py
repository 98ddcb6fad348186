"""The posts the bot makes on its own, as stored in the outbox. No Discord and no database here:
the services write a `NewPost` in the same transaction as the change that calls for it, and the
bot's sender (bot.cogs.outbox) renders each one from the database, sends it and marks it sent.

A post is sent at least once: a stop between the decision and the send, or a call Discord
refused or never answered, leaves its row unsent, and the sender tries again. It is posted at
most once: each row carries a nonce, and Discord returns the message it already made with that
nonce (within a few minutes) instead of making a second one.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

# What Discord accepts as a nonce: up to 25 characters.
NONCE_LENGTH = 25
_NONCE_PREFIX = "caro"


class PostKind(StrEnum):
    """What a row asks for. New messages are rendered when sent; an edit is re-derived from the
    database when it is processed, so the message ends in the state stored."""

    TOURNAMENT_TOO_FEW = "tournament_too_few"  # cancelled at its start: too few entries
    TOURNAMENT_STARTED = "tournament_started"  # begun, with round 1's pairings
    TOURNAMENT_ROUND = "tournament_round"  # a round's standings, with the next round's pairings
    TOURNAMENT_FINAL = "tournament_final"  # the final standings
    TOURNAMENT_ANNOUNCEMENT = "tournament_announcement"  # an edit: the announcement redrawn
    CLOCK_WARNING = "clock_warning"  # the member to move: their clock runs low
    # An edit: a game's board in one server redrawn after a change drawn on its board in
    # another (a queued game between two servers).
    GAME_BOARD = "game_board"
    # The member to move in a game between two servers, called in their own server's channel
    # by the process holding it (which removes the call when the turn passes).
    TURN_PING = "turn_ping"
    # The member of a game between two servers, told in their own channel that their opponent
    # can no longer play from their server (left it, or it removed the bot) and forfeited.
    OPPONENT_GONE = "opponent_gone"
    # A takeback in a casual game between two servers: the request, with its Accept and Decline,
    # in the asked member's own channel; the answer in the asker's.
    TAKEBACK_REQUEST = "takeback_request"
    TAKEBACK_ANSWER = "takeback_answer"

    @property
    def is_edit(self) -> bool:
        return self in (PostKind.TOURNAMENT_ANNOUNCEMENT, PostKind.GAME_BOARD)


Payload = Mapping[str, int | float | str | None]


def game_nonce(game_id: int) -> str:
    """The nonce of a game's first board, posted by the bot on its own (a tournament's game): the
    game's row is the intent (a running game with no message yet), so a post tried again after
    a lost answer makes no second board."""
    return f"{_NONCE_PREFIX}-game-{game_id}"


def new_nonce() -> str:
    """A nonce no other post shares: random, so a database rebuilt from scratch (its ids counted
    again from 1) never meets a nonce Discord still remembers."""
    token = secrets.token_hex((NONCE_LENGTH - len(_NONCE_PREFIX)) // 2)
    return f"{_NONCE_PREFIX}{token}"


@dataclass(frozen=True, slots=True)
class NewPost:
    """A post to make in `channel_id` of `guild_id`; `payload` is what its renderer reads back
    (ids, a round), not the text, so the text is in the language and state of the send."""

    guild_id: int
    channel_id: int
    kind: PostKind
    payload: Payload
    at: float  # when it was decided (unix seconds)
    # Set for a row its writer sends itself right after the change (the other board of a game
    # between two servers, drawn by the process of the click): the row is written with this
    # nonce and held by its writer until `claimed_until`, so no other sender takes it meanwhile;
    # if the writer stops or fails, the row goes to the server's own process after that. A row
    # nobody need hurry for is written with a hold already run out (OutboxService.quiet).
    nonce: str | None = None
    claimed_until: float | None = None

    @property
    def heard(self) -> bool:
        """Whether the processes listening are told of the row when it is written: not when its
        writer holds it, nor when it is quiet (its hold run out already)."""
        return self.claimed_until is None

    @property
    def sent_by_writer(self) -> bool:
        """Whether its writer sends it itself (OutboxService.held): held, by the nonce it
        chose."""
        return self.nonce is not None and self.claimed_until is not None

    def payload_json(self) -> str:
        return json.dumps(dict(self.payload), sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class PostRow:
    id: int
    guild_id: int
    channel_id: int
    kind: PostKind
    payload: Payload
    nonce: str
    created_at: float
    attempts: int  # sends tried and failed so far
    last_error: str | None

    def number(self, key: str) -> int:
        """An integer of the payload (a tournament's id, a round)."""
        value = self.payload.get(key)
        if not isinstance(value, int):
            raise ValueError(f"post {self.id} ({self.kind}): no integer {key!r} in its payload")
        return value

    def real(self, key: str) -> float:
        """A number of the payload (a deadline)."""
        value = self.payload.get(key)
        if not isinstance(value, int | float):
            raise ValueError(f"post {self.id} ({self.kind}): no number {key!r} in its payload")
        return float(value)


def payload_of(text: str) -> Payload:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"a post's payload is not an object: {text[:80]!r}")
    return value


@dataclass(frozen=True, slots=True)
class Heard:
    """What a sender hears when any process writes rows. `rows`: the edits among them, whole (a
    row just written is known in full), so the process holding each one's server hands it to its
    channel's sender at once rather than at its next pass over the shard's rows. `others`:
    whether rows were written that it does not carry (new messages, which wait for their
    channel's earlier ones, or more than one signal holds), which the pass finds."""

    rows: tuple[PostRow, ...] = ()
    others: bool = True


__all__ = [
    "NONCE_LENGTH",
    "Heard",
    "NewPost",
    "Payload",
    "PostKind",
    "PostRow",
    "game_nonce",
    "new_nonce",
    "payload_of",
]
