"""The game model: who plays, how a game stands and how it ended. No Discord and no database here.

A game has two seats, X and O; each holds a member (their Discord id) or an AI level
(`engine.game.types.Level`, the one definition of the level names, or `External.ENGINE`, the
operator's external engine). The mode says which kind of game it
is; the member who started a game is kept apart from its seats, so a member who only watches two
AIs play is never taken for a player.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from bot.game.seasons import DEFAULT_SEASON_LENGTH, SeasonLength
from engine import Board, Mark, Rule
from engine.game.openings import Opening, OpeningState
from engine.game.types import Level


class External(StrEnum):
    """The operator's piskvork brain (CARO_ENGINE_CMD) as an AI seat. Its stored id stays the
    same whatever the operator names it, and a stored game keeps it after the operator removes
    the engine (then "impossible" plays in its place: see bot.game.levels)."""

    ENGINE = "external"


def shard_of_guild(guild_id: int, shard_count: int) -> int:
    """The shard Discord sends a guild's events to (the process holding it does its work)."""
    return (guild_id >> 22) % shard_count


AiLevel = Level | External
"""An AI that can sit at a seat: a level of caro's own engine, or the external engine."""

Seat = int | AiLevel
"""Who sits at X or O: a member's Discord id, or an AI level."""


def parse_ai_level(text: str) -> AiLevel:
    """An AI level from its id ("hard", "external"), case-insensitive; ValueError otherwise."""
    if isinstance(text, str) and text.strip().lower() == External.ENGINE.value:
        return External.ENGINE
    return Level.parse(text)


class Mode(StrEnum):
    AI = "ai"  # a member against an AI level
    PVP = "pvp"  # two members
    WATCH = "watch"  # two AI levels; a member started it and watches


class Status(StrEnum):
    ACTIVE = "active"
    FINISHED = "finished"  # ended by the rules, a resignation or a clock: it has a result
    ABANDONED = "abandoned"  # ended without a result (never posted, or a watch stopped)


class EndReason(StrEnum):
    LINE = "line"
    FULL = "full"
    RESIGN = "resign"
    TIMEOUT = "timeout"


class Result(StrEnum):
    """A game's outcome from one side's point of view."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    @property
    def flipped(self) -> Result:
        if self is Result.WIN:
            return Result.LOSS
        if self is Result.LOSS:
            return Result.WIN
        return self


class ChallengeStatus(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    EXPIRED = "expired"


class ChallengeFirst(StrEnum):
    """Who plays X in a challenge's game."""

    ME = "me"  # the challenger
    THEM = "them"  # the challenged member
    RANDOM = "random"  # drawn when the challenge is accepted


def is_member(seat: Seat) -> bool:
    return isinstance(seat, int)


@dataclass(frozen=True, slots=True)
class MoveRow:
    ply: int
    cell: str  # cell name, e.g. "B2"
    by_ai: bool
    reason: str | None  # engine.ai.explain's id of why the AI chose it; None for members


@dataclass(frozen=True, slots=True)
class GameRow:
    """A stored game."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    mode: Mode
    x: Seat
    o: Seat
    started_by: int
    rows: int
    cols: int
    k: int
    rule: str
    status: Status
    winner: Mark | None
    end_reason: EndReason | None
    rated: bool  # whether finishing it moves ratings and counts in the stats (see ratings.rated)
    ply: int
    moves: tuple[MoveRow, ...]
    deadline: float | None = None  # unix time the member to move loses on time
    hints: int = 0
    locale: str = "en-US"
    takebacks: int = 0  # moves taken back so far (bot.game.takebacks limits them)
    # The move count at which a member last asked to take their move back (None: never), and
    # whether that request still waits for the other member's answer.
    takeback_asked: int | None = None
    takeback_open: bool = False
    # The opening rule (engine.game.openings) and the decisions taken in it so far (its stones are
    # moves). The seats are always who plays X and O now: a choice that gives X to the other
    # player swaps them.
    opening: Opening = Opening.FREE
    decisions: tuple[str, ...] = ()
    # A tournament's game: its tournament, and the turn time the tournament set (None: the
    # server's clock for the mode).
    tournament_id: int | None = None
    turn_seconds: float | None = None

    @property
    def takeback_pending(self) -> bool:
        """Whether a takeback request waits for its answer at the game's move count (any move
        since, or the game ending, leaves it answering nothing)."""
        return self.takeback_open and self.takeback_asked == self.ply and self.status is Status.ACTIVE

    def seat(self, mark: Mark) -> Seat:
        return self.x if mark is Mark.X else self.o

    @property
    def members(self) -> tuple[int, ...]:
        """The members playing in it (none in a watch)."""
        return tuple(s for s in (self.x, self.o) if isinstance(s, int))


@dataclass(frozen=True, slots=True)
class NewGame:
    guild_id: int
    channel_id: int
    mode: Mode
    x: Seat
    o: Seat
    started_by: int
    rows: int
    cols: int
    k: int
    rule: str
    rated: bool
    deadline: float | None = None
    locale: str = "en-US"
    # The message the board will live in when it is known at creation (an accepted challenge
    # becomes its game's board): a game with a message is never taken for an unposted one.
    message_id: int | None = None
    opening: Opening = Opening.FREE
    tournament_id: int | None = None
    turn_seconds: float | None = None

    def __post_init__(self) -> None:
        members = [s for s in (self.x, self.o) if is_member(s)]
        expected = {Mode.AI: 1, Mode.PVP: 2, Mode.WATCH: 0}[self.mode]
        if len(members) != expected or (len(members) == 2 and members[0] == members[1]):
            raise ValueError(f"a {self.mode} game cannot have the seats {self.x!r}, {self.o!r}")


@dataclass(frozen=True, slots=True)
class Finish:
    """How a game ended, written together with its last move (or a resignation or time-out)."""

    winner: Mark | None
    reason: EndReason = EndReason.LINE


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int
    rows: int
    cols: int
    k: int
    rule: str
    first: ChallengeFirst
    locale: str
    status: ChallengeStatus
    deadline: float
    game_id: int | None
    # False: the challenger asked for a casual game (no rating; takebacks allowed).
    rated: bool = True
    opening: Opening = Opening.FREE


@dataclass(frozen=True, slots=True)
class NewChallenge:
    guild_id: int
    channel_id: int
    challenger_id: int
    opponent_id: int
    rows: int
    cols: int
    k: int
    rule: str
    first: ChallengeFirst
    locale: str
    deadline: float
    rated: bool = True  # False: a casual game was asked for
    opening: Opening = Opening.FREE


@dataclass(frozen=True, slots=True)
class Record:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class Standing:
    """A member's rating and record in one mode, in one server or globally."""

    rating: float
    record: Record | None = None


@dataclass(frozen=True, slots=True)
class RatedRow:
    rank: int
    user_id: int
    rating: float
    record: Record


@dataclass(frozen=True, slots=True)
class RatingChange:
    user_id: int
    scope: int
    mode: Mode
    before: float
    after: float


@dataclass(frozen=True, slots=True)
class RatingLine:
    """A member's rating over their last rated games in one pool: a mode, all time (`season`
    None) or one season of the server. `ratings` holds the rating before the first of those
    games and after each, oldest first; the last is the current rating."""

    mode: Mode
    season: str | None
    ratings: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class UserStats:
    overall: Record
    by_level: dict[str, Record]


@dataclass(frozen=True, slots=True)
class GuildSettings:
    pvp_timeout: float  # seconds a member has for one move against another member
    ai_timeout: float  # seconds a member has for one move against the AI
    # The server's default language (a catalogue locale such as "vi"); None: not set.
    language: str | None = None
    # How long its rating seasons last (bot.game.seasons).
    season_length: SeasonLength = DEFAULT_SEASON_LENGTH
    # Members with this role may run any of the server's tournaments (None: creators and
    # members who may manage the server only).
    tournament_role: int | None = None
    # Whether its members may be paired with members of other servers by the queue.
    cross_server: bool = True


class BoardStyle(StrEnum):
    """The board themes a member may pick for the pictures of their games."""

    WOOD = "wood"
    PAPER = "paper"
    CONTRAST = "contrast"  # high contrast, safe for colour-blind players
    NIGHT = "night"


# The theme of a member who never chose one.
DEFAULT_STYLE = BoardStyle.WOOD


@dataclass(frozen=True, slots=True)
class MemberSettings:
    """What one member chose for themselves, in every server."""

    theme: BoardStyle | None = None  # None: the installation's default theme
    turn_pings: bool = True  # mention them when it is their turn against another member
    clock_warnings: bool = True  # warn them when their turn clock runs low
    language: str | None = None  # a catalogue locale ("en-US", "vi"); None: not chosen

    @property
    def style(self) -> BoardStyle:
        """The theme their pictures are drawn in: their own, else the default."""
        return self.theme or DEFAULT_STYLE


class ActiveGameExists(Exception):
    """A member (or the channel's watch slot) already has a running game here."""

    def __init__(self, game: GameRow) -> None:
        super().__init__(f"game {game.id} is still running")
        self.game = game


class ChallengePending(Exception):
    """Two members already have a challenge waiting for an answer in this server."""

    def __init__(self, challenge: ChallengeRow) -> None:
        super().__init__(f"challenge {challenge.id} is still waiting for an answer")
        self.challenge = challenge


def jump_link(guild_id: int, channel_id: int, message_id: int) -> str:
    """The link that opens a message in Discord."""
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


@dataclass(frozen=True, slots=True)
class MoveRef:
    """A member's move as sent: which game, which drawing of the board (its ply), which cell."""

    game_id: int
    ply: int
    cell: str


# No opening places more stones than this before its last decision (swap2 and RIF: five).
OPENING_PLIES = 5


def opening_of(row: GameRow, board: Board) -> OpeningState | None:
    """The opening of a game with `board`'s stones and the row's decisions while it is under
    way; None in a free game or once it is over."""
    if row.opening is Opening.FREE or board.ply > OPENING_PLIES:
        return None
    state = OpeningState(row.opening, board, row.decisions)
    return None if state.done else state


@dataclass(frozen=True, slots=True)
class GameState:
    """A stored game with its board rebuilt from the stored moves, and its opening while one is
    under way (`opening`: built here, from the row's decisions and the board's stones)."""

    row: GameRow
    board: Board
    opening: OpeningState | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.opening is None and self.row.opening is not Opening.FREE:
            object.__setattr__(self, "opening", opening_of(self.row, self.board))

    @property
    def acting_mark(self) -> Mark:
        """The seat whose turn it is, by the mark it plays now: in an opening the player of its
        step (the seats already follow the colour choices), then the side to move."""
        opening = self.opening
        if opening is None:
            return self.board.turn
        return Mark.X if opening.to_act is opening.x_side else Mark.O

    @property
    def stage(self) -> int:
        """How far the game got: its moves, plus in an opening each choice and each place
        offered. Every action raises it (a takeback aside), so of two drawings of one game the
        later has the higher stage."""
        offered = sum(
            len(token.split(",")) for token in self.row.decisions if token.startswith("offer:")
        )
        choices = sum(1 for token in self.row.decisions if not token.startswith("offer:"))
        return self.board.ply + offered + choices

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def mode(self) -> Mode:
        return self.row.mode

    @property
    def active(self) -> bool:
        return self.row.status is Status.ACTIVE

    @property
    def player_mark(self) -> Mark:
        """The member's mark against the AI; X in the other modes (where both sides are alike)."""
        if self.mode is Mode.AI and not is_member(self.row.x):
            return Mark.O
        return Mark.X

    @property
    def ai_mark(self) -> Mark:
        """The other side from player_mark."""
        return self.player_mark.other

    @property
    def ai_level(self) -> AiLevel | None:
        """The level of the AI a member plays against (None in the other modes)."""
        return self.level_of(self.ai_mark) if self.mode is Mode.AI else None

    @property
    def starter_id(self) -> int:
        return self.row.started_by

    def user_of(self, mark: Mark) -> int | None:
        """The member playing `mark`, or None if an AI plays it."""
        seat = self.row.seat(mark)
        return seat if isinstance(seat, int) else None

    def level_of(self, mark: Mark) -> AiLevel | None:
        """The AI level playing `mark`, or None if a member plays it."""
        seat = self.row.seat(mark)
        return None if isinstance(seat, int) else seat

    def mark_of(self, user_id: int) -> Mark | None:
        """The mark `user_id` plays in this game, or None if they do not play in it."""
        for mark in (Mark.X, Mark.O):
            if self.user_of(mark) == user_id:
                return mark
        return None

    def opponent_of(self, user_id: int) -> int | None:
        """The member `user_id` plays against, None if it is an AI or they do not play."""
        mark = self.mark_of(user_id)
        return None if mark is None else self.user_of(mark.other)

    def result_of(self, mark: Mark) -> Result | None:
        """`mark`'s result; None until the game finished."""
        if self.row.status is not Status.FINISHED:
            return None
        if self.row.winner is None:
            return Result.DRAW
        return Result.WIN if self.row.winner is mark else Result.LOSS

    @property
    def mover_id(self) -> int | None:
        """The member whose turn it is; None if the game is over or an AI is to move."""
        if not self.active or self.board.is_over():
            return None
        return self.user_of(self.acting_mark)

    @property
    def ai_to_move(self) -> bool:
        if not self.active or self.board.is_over():
            return False
        return self.level_of(self.acting_mark) is not None

    @property
    def last_ai_move(self) -> tuple[str, str] | None:
        """(cell name, reason id) of the AI's latest move, if it has moved."""
        for move in reversed(self.row.moves):
            if move.by_ai:
                return move.cell, move.reason or "unknown"
        return None


def load_state(row: GameRow) -> GameState:
    board = Board(row.rows, row.cols, row.k, Rule.parse(row.rule))
    for move in row.moves:
        board.push_name(move.cell)
    return GameState(row=row, board=board)


def finish_of(board: Board) -> Finish | None:
    """How the game on `board` ended by the rules, None while it goes on."""
    outcome = board.outcome()
    if outcome is None:
        return None
    if outcome.winner is None:
        return Finish(winner=None, reason=EndReason.FULL)
    return Finish(winner=outcome.winner, reason=EndReason.LINE)
