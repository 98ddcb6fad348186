"""What the services need from a database, whatever the backend (SQLite for one process,
PostgreSQL for many): one port per aggregate, each with the rules its backends keep. Only model
types and plain Python values cross them, never a driver's types.

Background work (AI moves owed, boards to redraw, run-out clocks, expired challenges) is asked for
per shard (`shard_id` of `shard_count`; a guild's shard is (guild_id >> 22) % shard_count, as
Discord assigns it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.game.model import (
    ChallengeRow,
    ChallengeStatus,
    Finish,
    GameRow,
    GuildSettings,
    MemberSettings,
    Mode,
    NewChallenge,
    NewGame,
    RatedRow,
    RatingChange,
    Standing,
    UserStats,
)
from bot.game.outbox_model import Heard, NewPost, PostRow
from bot.game.pairings import Outcome
from bot.game.puzzle_model import (
    AttemptOutcome,
    AttemptResult,
    AttemptRow,
    NewAttempt,
    NewPuzzle,
    PuzzleRow,
    PuzzleStanding,
)
from bot.game.queue_model import (
    GameBoard,
    GameMaker,
    NewQueueEntry,
    PairPolicy,
    QueueEntry,
    QueueKey,
    QueuePairing,
)
from bot.game.ratings import RatingUpdate
from bot.game.seasons import Season
from bot.game.tournament_model import (
    Entrant,
    EntryRow,
    NewPairing,
    NewTournament,
    PairingRow,
    TournamentRow,
    TournamentStatus,
)
from engine import Mark

GLOBAL_SCOPE = 0  # the standings scope of the cross-server leaderboard
# A bot restarted by a supervisor is back within seconds; games that ended this recently get their
# final board redrawn at start, in case the crash came between storing and drawing it. A busy bot
# finishes hundreds of games in a few minutes, so the window stays short.
REDRAW_FINISHED_WITHIN = 120.0
# How soon background work (clocks, tournaments, puzzle mining, AI moves owed) tries again while
# the database is away: it comes back on its own, and the work goes on from where it was.
UNAVAILABLE_RETRY_SECONDS = 2.0

RatePolicy = Callable[[GameRow, Mark | None, Mapping[int, float]], list[RatingUpdate]]
"""(finished game, winner, members' ratings before) -> updates: bot.game.ratings.game_updates."""


class StorageError(Exception):
    """The database cannot be used (missing, not a database, from a newer version, a broken
    migration); str() is one line naming the place and the reason."""


class StorageUnavailable(StorageError):
    """The database cannot be reached for now: its server stopped or restarting, the file locked
    by another program, the disk full or failing. The call that raised it changed nothing (its
    transaction, if it had begun one, is rolled back by the database), so the same action can be
    tried again once the database is back. Constraint violations and bugs never raise it."""


class MoveOutcome(StrEnum):
    STORED = "stored"
    STALE = "stale"  # the game moved on, had moves taken back, or ended: nothing written
    LATE = "late"  # the mover's clock had run out at the time of the move: nothing written


@dataclass(frozen=True, slots=True)
class Answer:
    """The AI's reply to a member's move, stored in the same write as the move (see add_move)."""

    cell: str
    reason: str


@dataclass(frozen=True, slots=True)
class Finished:
    """A game as its finishing write left it: the row with every move, and its rating changes
    (ordered as `rating_changes` returns them; none if unrated). The board of the end needs
    both, and on a busy database each read back is one more wait."""

    game: GameRow
    changes: tuple[RatingChange, ...]


@dataclass(frozen=True, slots=True)
class LiveCounts:
    """Running games in one server, for the limits on AI work."""

    member_ai_games: int  # running games of one member against the AI, in this server
    guild_ai_games: int  # running games against the AI in this server
    guild_watches: int  # running AI-vs-AI games in this server


class GameStore(Protocol):
    """Running and finished games, their moves and seats.

    - A member holds at most one seat in running games per channel, a channel at most one running
      watch, enforced by the database (two processes may race).
    - Finishing a game, its result, its stats and its rating changes are one transaction, so a
      game counts exactly once.
    - A move is stored only if the game is running at the position it was judged on (exactly
      `ply` moves played after exactly `takebacks` takebacks: a move count alone names another
      position once moves were taken back and played again), and the clock of the member to
      move had not run out at `now`.
    """

    async def create_game(self, new: NewGame) -> GameRow:
        """Insert a running game; ActiveGameExists if a member's seat or the watch slot of the
        channel is taken."""
        ...

    async def create_game_within(
        self, new: NewGame, admit: Callable[[LiveCounts], None]
    ) -> GameRow:
        """create_game after its checks, as one step: ActiveGameExists if a running game holds a
        member's seat or the channel's watch slot (before anything else), then `admit` is given
        the server's live counts for the game's starter and raises to refuse the game. No other
        start in the server passes the same checks meanwhile, so two cannot both take the last
        place; starts in other servers, and moves, do not wait for it."""
        ...

    async def game(self, game_id: int) -> GameRow | None: ...
    async def set_message(self, game_id: int, message_id: int) -> None: ...
    async def abandon_game(self, game_id: int) -> bool: ...
    async def active_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None: ...
    async def active_watch(self, guild_id: int, channel_id: int) -> GameRow | None: ...
    async def last_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None: ...
    async def live_counts(self, guild_id: int, user_id: int) -> LiveCounts: ...

    async def add_move(
        self,
        game_id: int,
        ply: int,
        cell: str,
        *,
        by_ai: bool,
        now: float,
        reason: str | None = None,
        finish: Finish | None = None,
        deadline: float | None = None,
        rate: RatePolicy | None = None,
        answer: Answer | None = None,
        takebacks: int = 0,
        posts: Sequence[NewPost] = (),
    ) -> MoveOutcome | Finished:
        """Store move number `ply` and, with `answer`, the AI's reply to it as move `ply` + 1
        (both or neither; `finish` and `deadline` then follow the reply): STORED, or with
        `finish` the finished game; STALE or LATE (nothing written) as MoveOutcome says.
        `takebacks`: the takebacks of the position the move was judged on (GameRow.takebacks);
        a game that has had another number is at another position, and the move is STALE. A
        move after the stored deadline is LATE even before the deadline watcher has run.
        `posts` (the redraws of the game's boards in other servers) are written with the move,
        in the same transaction, or not at all."""
        ...

    async def add_decision(
        self,
        game_id: int,
        ply: int,
        before: tuple[str, ...],
        after: tuple[str, ...],
        *,
        swap: bool,
        now: float,
        deadline: float | None,
    ) -> MoveOutcome:
        """Replace the opening's decisions `before` with `after` and set the clock to
        `deadline`, with `swap` exchanging the X and O seats, all in one write: STORED, or
        (nothing written) STALE unless the game runs at move count `ply` with exactly `before`
        stored, LATE if its clock had run out at `now`. Of two writers of the same decision,
        from any processes, one wins."""
        ...

    async def finish_game(
        self,
        game_id: int,
        finish: Finish,
        *,
        rate: RatePolicy,
        ply: int | None = None,
        due_by: float | None = None,
        not_due_at: float | None = None,
        decisions: tuple[str, ...] | None = None,
        posts: Sequence[NewPost] = (),
    ) -> Finished | None:
        """Finish a running game and count its result, and write `posts` in the same
        transaction; None (nothing written) if it was not running, or failed a condition (see
        the backends). With `decisions`, only if its opening's stored decisions are exactly
        these: a decision may have swapped the seats, and the winner was named from the seats
        as they were."""
        ...

    async def add_hint(self, game_id: int, ply: int) -> bool: ...


class TakebackStore(Protocol):
    """Taking moves back in casual games: the request, its answer, and the takeback itself.

    - A request is asked once per position: a declined one is not asked again at that move count.
    - A takeback is one transaction (the moves removed, the clock set, the count raised), and two
      takebacks of the same position, from any processes, undo it once.
    """

    async def ask_takeback(
        self, game_id: int, ply: int, *, now: float, posts: Sequence[NewPost] = ()
    ) -> bool:
        """Open a request to take the last move back at move count `ply`, and write `posts` to
        the outbox, in one transaction; False (nothing written) unless the game runs at `ply`
        with its clock running at `now` and no request was asked at `ply` before (a declined one
        is not asked again)."""
        ...

    async def decline_takeback(
        self, game_id: int, ply: int, posts: Sequence[NewPost] = ()
    ) -> bool:
        """Close the open request asked at move count `ply`, and write `posts`, in one
        transaction; False (nothing written) if there is none (the game moved on or ended, or it
        was answered)."""
        ...

    async def take_back(
        self,
        game_id: int,
        ply: int,
        to_ply: int,
        *,
        now: float,
        deadline: float | None,
        limit: int,
        requested: bool,
        posts: Sequence[NewPost] = (),
    ) -> GameRow | None:
        """Remove the moves from `to_ply` on, set the clock of the member then to move to
        `deadline`, count one takeback and write `posts`, in one transaction; the game after it, or None
        (nothing written) unless the game runs at `ply` with its clock running at `now`, has had
        fewer than `limit` takebacks, and (with `requested`) has an open request asked at `ply`.
        Two takebacks of the same position, from any processes, undo it once."""
        ...


class ClockStore(Protocol):
    """The turn clocks of running games. A run-out clock handed to one caller is not handed to
    another process at the same time, so no game is finished on time twice; a clock's low-time
    warning is claimed once, so no member is warned twice for one turn."""

    async def due_games(
        self, now: float, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[GameRow]:
        """Running games of the shard whose clock ran out by `now`, claimed for this caller."""
        ...

    async def next_deadline(self, *, shard_id: int = 0, shard_count: int = 1) -> float | None:
        """The earliest running clock of any game or pending challenge of the shard."""
        ...

    async def set_deadline(self, game_id: int, ply: int, deadline: float | None) -> bool: ...

    async def unwarned_clocks(
        self, until: float, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[GameRow]:
        """Running games of the shard whose clock runs out by `until` and whose low-time
        warning of that clock nobody claimed yet, soonest first."""
        ...

    async def next_unwarned_clock(
        self, after: float, *, shard_id: int = 0, shard_count: int = 1
    ) -> float | None:
        """The earliest running clock of the shard running out after `after` whose low-time
        warning nobody claimed yet."""
        ...

    async def claim_warning(
        self, game_id: int, deadline: float, posts: Sequence[NewPost] = ()
    ) -> bool:
        """Claim the low-time warning of `game_id`'s clock that runs out at `deadline`: True
        for exactly one caller per clock, whatever processes ask, and only while the game
        still runs on that clock (a new clock has a new deadline, so each turn is warned once,
        a restart in between included). The winner writes `posts` (the warning) to the outbox
        in the same transaction."""
        ...


class ChallengeStore(Protocol):
    """Challenges between two members.

    - Two members have at most one pending challenge between them per server, checked and
      written in one step (two processes may race).
    - An expired challenge handed to one caller is not handed to another process at the same
      time, so none is closed twice.
    """

    async def create_challenge(self, new: NewChallenge, *, now: float) -> ChallengeRow:
        """Store a new pending challenge; ChallengePending (nothing written) if the same two
        members, either way round, have one pending in the server whose time has not run out
        by `now`. Checking and writing are one step: two challenges sent at the same moment,
        from any processes, make one."""
        ...

    async def challenge(self, challenge_id: int) -> ChallengeRow | None: ...
    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None: ...
    async def close_challenge(self, challenge_id: int, status: ChallengeStatus) -> bool: ...
    async def accept_challenge(self, challenge_id: int, new: NewGame) -> GameRow | None:
        """Create the challenge's game and mark it accepted in one transaction; None (nothing
        written) if it was no longer pending; ActiveGameExists if a seat is taken."""
        ...

    async def due_challenges(
        self, now: float, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[ChallengeRow]:
        """Pending challenges of the shard whose time ran out by `now`, claimed for this
        caller."""
        ...

    async def pending_challenges(self, *, challenger_id: int, opponent_id: int) -> tuple[int, int]:
        """(pending challenges sent by challenger_id, pending challenges to opponent_id)."""
        ...


class StandingStore(Protocol):
    """Results and ratings per server and across servers (GLOBAL_SCOPE): a read model, written
    only by finishing a game (GameStore)."""

    async def standing(self, scope: int, user_id: int, mode: Mode) -> Standing: ...
    async def rated_leaderboard(
        self, scope: int, mode: Mode, *, min_games: int, limit: int = 10
    ) -> list[RatedRow]: ...
    async def season_leaderboard(
        self, guild_id: int, season: str, mode: Mode, *, min_games: int, limit: int = 10
    ) -> list[RatedRow]:
        """A server's standings in one season (by name), kept when the season is over."""
        ...

    async def seasons(self, guild_id: int) -> list[Season]:
        """The seasons with standings in this server, newest first."""
        ...

    async def rating_changes(self, game_id: int) -> list[RatingChange]: ...
    async def rating_history(
        self, scope: int, user_id: int, mode: Mode, *, limit: int, season: str | None = None
    ) -> list[float]:
        """The member's rating before the first of their last `limit` rated games in `scope`
        and `mode` and after each, oldest first (in the order the games finished); empty if
        they have none. With `season`, in that season of the server `scope`: only the games
        counted since this version stores season changes (migration season_rating_changes)."""
        ...

    async def user_stats(self, guild_id: int, user_id: int) -> UserStats: ...


class SettingStore(Protocol):
    """Per-server settings (the turn clocks, the default language) and each member's own."""

    async def guild_settings(self, guild_id: int, default: GuildSettings) -> GuildSettings: ...
    async def save_guild_settings(self, guild_id: int, settings: GuildSettings) -> None: ...
    async def member_settings(self, user_id: int) -> MemberSettings:
        """What the member saved, or MemberSettings() if they never saved any."""

    async def save_member_settings(self, user_id: int, settings: MemberSettings) -> None: ...


class ReviewStore(Protocol):
    """Finished games as records, and the cached AI review of a game."""

    async def finished_games(
        self, guild_id: int, user_id: int, *, limit: int, offset: int = 0
    ) -> list[GameRow]:
        """The finished games (status 'finished') `user_id` played in this server, newest
        (highest id) first: the games of this server, and the games of another server they
        played from their board in this one (a queued game between two servers)."""
        ...

    async def board_in(self, game_id: int, guild_id: int) -> bool:
        """Whether game `game_id` had a board in `guild_id` other than its own: its member of
        that server played it from there (a queued game between two servers)."""
        ...

    async def review(self, game_id: int, node_limit: int) -> str | None:
        """The cached AI review (JSON text) of `game_id` made with `node_limit`, if any."""
        ...

    async def save_review(self, game_id: int, node_limit: int, data: str) -> None:
        """Cache the review of `game_id` (one per game: a newer one replaces it)."""
        ...


class MetaStore(Protocol):
    """Facts about the installation, and the work a process picks up for its shards."""

    async def get_meta(self, key: str) -> str | None: ...
    async def set_meta(self, key: str, value: str) -> None: ...
    async def games_awaiting_ai(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[GameRow]: ...
    async def games_to_redraw(
        self, finished_within: float = REDRAW_FINISHED_WITHIN, *, shard_id: int = 0,
        shard_count: int = 1,
    ) -> list[GameRow]: ...


class PuzzleStore(Protocol):
    """Puzzles (a server's own, guild_id, and the shared set, None), members' attempts, their
    puzzle ratings and each server's daily puzzle.

    - A position is stored once per scope, whoever adds it and however often.
    - A member has at most one open attempt per server; opening one abandons the other in the
      same transaction.
    - An attempt's moves change only from the moves the caller read (two clicks, from any
      processes, advance it once); finishing it, its rating and the puzzle's are one
      transaction, and a puzzle is rated at most once per member and server.
    - The daily puzzle of a server and UTC date is claimed by one insert: every caller, from any
      process, gets the same one.
    """

    async def add_puzzles(self, guild_id: int | None, puzzles: list[NewPuzzle], *,
                          now: float) -> int:
        """Store the puzzles not stored in this scope yet; how many were new."""
        ...

    async def count_puzzles(self, guild_id: int | None) -> int:
        """Puzzles stored in exactly this scope (None: the shared set)."""
        ...

    async def puzzle(self, puzzle_id: int) -> PuzzleRow | None: ...
    async def server_puzzles(self, guild_id: int) -> list[PuzzleRow]:
        """Every puzzle a member of this server may be shown: its own and the shared set."""
        ...

    async def nearest_unsolved(self, guild_id: int, user_id: int, mu: float) -> PuzzleRow | None:
        """The puzzle of this server whose rating is nearest `mu` that the member has not
        finished a rated attempt of."""
        ...

    async def failed_puzzle(self, guild_id: int, user_id: int) -> PuzzleRow | None:
        """The puzzle the member failed longest ago and has not solved since, if any."""
        ...

    async def claim_daily(self, guild_id: int, day: str, offset: int) -> PuzzleRow | None:
        """The server's puzzle of `day`: the one claimed before, or else the one at `offset`
        (taken modulo their number) of the server's puzzles in id order; None if it has none."""
        ...

    async def start_attempt(self, new: NewAttempt) -> AttemptRow:
        """Open an attempt, abandoning the member's open one in this server."""
        ...

    async def attempt(self, attempt_id: int) -> AttemptRow | None: ...
    async def set_attempt_message(self, attempt_id: int, message_id: int) -> None: ...
    async def advance_attempt(
        self, attempt_id: int, before: tuple[str, ...], after: tuple[str, ...]
    ) -> bool:
        """Set an open attempt's moves to `after` if they are still `before`."""
        ...

    async def finish_attempt(
        self,
        attempt_id: int,
        before: tuple[str, ...],
        moves: tuple[str, ...],
        outcome: AttemptOutcome,
        *,
        now: float,
    ) -> AttemptResult | None:
        """Finish an open attempt whose moves are still `before`, with `moves` and `outcome`,
        rating it (bot.game.puzzle_model.after_attempt) when it is the member's first finished
        attempt of that puzzle in the server; None (nothing written) otherwise."""
        ...

    async def newest_finished_game(self) -> int:
        """The highest id of a finished game (0 if none): where mining starts at a start."""
        ...

    async def finished_games_after(self, game_id: int, *, limit: int) -> list[GameRow]:
        """Finished rated games with an id above `game_id`, oldest first: games to mine."""
        ...

    async def puzzle_standing(self, guild_id: int, user_id: int) -> PuzzleStanding: ...
    async def puzzle_leaderboard(
        self, guild_id: int, *, min_attempts: int, limit: int = 10
    ) -> list[PuzzleStanding]:
        """Members of the server with at least `min_attempts` rated attempts, by conservative
        rating (mu - 3 sigma), best first."""
        ...


class TournamentStore(Protocol):
    """Tournaments, their entries and their pairings (bot.game.tournament_model).

    - Every change is guarded by what the caller read, so two processes (or a process and its
      restart) that try the same step do it once: a round is paired by the one call that moves
      `round` from n-1 to n, in the same transaction as its pairings; a pairing takes one game;
      a result is written once; a round's standings are announced by the one call that claims it.
    - Entries change only while the tournament is open (withdrawing: until it is over).
    """

    async def create_tournament(self, new: NewTournament) -> TournamentRow: ...
    async def tournament(self, tournament_id: int) -> TournamentRow | None: ...
    async def set_tournament_message(self, tournament_id: int, message_id: int) -> None: ...
    async def guild_tournaments(self, guild_id: int, *, live_only: bool) -> list[TournamentRow]:
        """The server's tournaments, newest first; with `live_only`, those not over."""
        ...

    async def live_tournaments(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[TournamentRow]:
        """The shard's tournaments that are open, running or paused."""
        ...

    async def entries(self, tournament_id: int) -> list[EntryRow]:
        """Every entry, withdrawn ones included, by seed."""
        ...

    async def add_entry(
        self, tournament_id: int, entrant: Entrant, *, max_players: int, late: bool = False
    ) -> bool:
        """Enter `entrant` while the tournament is open (with `late`, also while it runs or is
        paused) and has fewer than `max_players` entries not withdrawn; False (nothing written)
        if it is not, is full, or has the entry already."""
        ...

    async def remove_entry(self, tournament_id: int, entrant: Entrant) -> bool:
        """Take an entry back while the tournament is open; False if there was none or it is not
        open."""
        ...

    async def withdraw(self, tournament_id: int, entrant: Entrant) -> bool:
        """Withdraw an entry from a tournament that is not over (it is paired no more); False if
        it was not entered or was withdrawn already."""
        ...

    async def start_tournament(
        self,
        tournament_id: int,
        seeds: list[Entrant],
        *,
        rounds: int | None,
        now: float,
        ends_at: float | None,
        posts: Sequence[NewPost] = (),
    ) -> bool:
        """Move an open tournament to running, with its entries seeded in the order `seeds` (all
        of those not withdrawn; the withdrawn ones follow) and its number of rounds set, and
        `posts` written to the outbox, in one transaction; False (nothing written) if it was not
        open, or `seeds` is not its entries (one joined or left since they were read: read them
        again)."""
        ...

    async def set_status(
        self,
        tournament_id: int,
        before: TournamentStatus,
        after: TournamentStatus,
        *,
        now: float,
        posts: Sequence[NewPost] = (),
    ) -> bool:
        """Change the status from `before` (finished_at is set when `after` is over) and write
        `posts` to the outbox, in one transaction; False (nothing written) if it was not
        `before`."""
        ...

    async def add_round(
        self,
        tournament_id: int,
        round: int,
        pairings: list[NewPairing],
        *,
        posts: Sequence[NewPost] = (),
        announce: NewPost | None = None,
    ) -> bool:
        """Store round `round`'s pairings, move the tournament's round from `round` - 1 to
        `round` and write `posts` to the outbox, in one transaction, while it is running; with
        `announce` (the previous round's standings), claim round `round` - 1's announcement as
        claim_announcement does and, if this call moved it, write `announce` too. False (nothing
        written) if another call paired it first or the tournament is not running."""
        ...

    async def pairings(self, tournament_id: int) -> list[PairingRow]:
        """Every pairing so far, by round and board."""
        ...

    async def claim_game(self, pairing_id: int, game_id: int) -> bool:
        """Bind a game to a pairing that has none; False if it had one already."""
        ...

    async def unbound_games(self, tournament_id: int) -> list[int]:
        """The running games of the tournament that no pairing holds (the bot stopped between
        making a game and binding it to its pairing), by id."""
        ...

    async def release_game(self, pairing_id: int, game_id: int) -> bool:
        """Unbind `game_id` from its pairing (the game was abandoned before it began), so the
        pairing gets a new game; False if the pairing had another game or a result."""
        ...

    async def record_result(
        self, pairing_id: int, x: Entrant, o: Entrant, outcome: Outcome
    ) -> bool:
        """Write a pairing's result, with the colours the players ended with; False if it had one
        already."""
        ...

    async def claim_announcement(
        self, tournament_id: int, round: int, posts: Sequence[NewPost] = ()
    ) -> bool:
        """Claim the posting of round `round`'s standings (or, for the final round, the final
        announcement): True for the one call that moves `announced` up to `round`, which writes
        `posts` (the announcement itself) to the outbox in the same transaction."""
        ...


class OutboxStore(Protocol):
    """The posts the bot makes on its own (bot.game.outbox_model), from the decision to the
    send. Rules: a row is written in the transaction of the change that calls for it (the other
    ports take `posts`); a row is handed to one sender at a time (`claim_post`), until its claim
    runs out; a row sent or failed for good is never handed out again."""

    async def add_posts(self, posts: Sequence[NewPost]) -> None:
        """Write `posts` on their own (a change with no row of its own to guard them)."""
        ...

    async def listen_posts(self, heard: Callable[[Heard], None]) -> None:
        """Call `heard` whenever any process writes rows, with the edits among them whole where
        the signal carries them (and with none after each (re)connection: rows may have been
        written meanwhile), until cancelled; returns at once where there is no such signal
        (SQLite)."""
        ...

    async def due_posts(
        self, *, now: float, shard_id: int = 0, shard_count: int = 1, limit: int = 50
    ) -> list[PostRow]:
        """The shard's unsent rows whose next try is due at `now` and that no sender holds, in
        the order they were written, at most `limit`."""
        ...

    async def next_post_due(self, *, shard_id: int = 0, shard_count: int = 1) -> float | None:
        """When the shard's next unsent row falls due (None: none is waiting)."""
        ...

    async def claim_post(self, post_id: int, *, now: float, until: float) -> bool:
        """Hold an unsent row until `until`; False if another sender holds it (its claim not
        run out at `now`), or it was sent or failed meanwhile."""
        ...

    async def release_posts(self, *, shard_id: int = 0, shard_count: int = 1) -> int:
        """Drop the claims on the shard's unsent rows (their holder stopped: the process that
        now holds the shard sends them); how many."""
        ...

    async def post_sent(self, post_id: int, *, now: float, message_id: int | None) -> bool:
        """Mark a row sent (with the message made, if any); False if it was marked already."""
        ...

    async def post_sent_by_nonce(
        self, nonce: str, *, now: float, message_id: int | None
    ) -> bool:
        """Mark the row of `nonce` sent: its writer sent it itself (NewPost.claimed_until);
        False if it was marked already."""
        ...

    async def hand_back_post(self, nonce: str) -> bool:
        """Release the row of `nonce`, which its writer held to send itself and did not: any
        sender may take it now, and the processes listening are told of it as of a row just
        written. False if it was sent or given up meanwhile."""
        ...

    async def post_retry(self, post_id: int, *, error: str, retry_at: float) -> None:
        """Count a failed try of an unsent row, keep its reason, release it and try again at
        `retry_at`."""
        ...

    async def post_failed(self, post_id: int, *, now: float, error: str) -> None:
        """Give up on an unsent row for good (Discord will never take it), with the reason."""
        ...

    async def post(self, post_id: int) -> PostRow | None: ...

    async def prune_posts(self, *, sent_before: float, failed_before: float) -> int:
        """Delete the rows sent before `sent_before` and those failed before `failed_before`;
        how many."""
        ...


class BlockOutcome(StrEnum):
    ADDED = "added"
    ALREADY = "already"  # the member had blocked them before: nothing written
    FULL = "full"  # the member blocks as many members as allowed: nothing written


class BlockStore(Protocol):
    """The members each member blocked, in every server: a blocked member cannot challenge them,
    and neither side is paired with the other. Rules: a block is stored once per member and way
    round; a member blocks at most `limit` others, counted in the transaction that adds one (two
    blocks sent at once cannot both take the last place)."""

    async def block(self, user_id: int, blocked_id: int, *, now: float, limit: int
                    ) -> BlockOutcome: ...
    async def unblock(self, user_id: int, blocked_id: int) -> bool:
        """Lift a block; False if there was none."""
        ...

    async def blocked(self, user_id: int) -> list[int]:
        """The members `user_id` blocked, the oldest block first."""
        ...

    async def blocked_between(self, a: int, b: int) -> bool:
        """Whether either member blocked the other."""
        ...


class QueueStore(Protocol):
    """The queue for an opponent (bot.game.queue_model).

    - A member has at most one waiting entry, enforced by the database (two joins at once, from
      any processes, make one), and none while a game the queue gave them runs.
    - Pairing is one transaction that no other pairing interleaves with, from any process: an
      entry is paired at most once, and never after its member left (a leave racing a pairing
      finds the entry paired, or takes it out before the pairing reads it).
    """

    async def join_queue(self, new: NewQueueEntry) -> QueueEntry:
        """A new waiting entry; AlreadyQueued (nothing written) if the member has one,
        QueuedGameRunning if a game the queue gave them still runs."""
        ...

    async def leave_queue(self, user_id: int, *, now: float) -> QueueEntry | None:
        """Take the member's waiting entry out (as it is now: left); None if none was waiting."""
        ...

    async def leave_guild_queue(self, guild_id: int, *, now: float) -> list[QueueEntry]:
        """Take every entry waiting in the server out (the bot was removed from it): the
        entries as they are now (left), oldest first; paired entries and their games stay."""
        ...

    async def queue_entry(self, entry_id: int) -> QueueEntry | None: ...
    async def waiting_entry(self, user_id: int) -> QueueEntry | None: ...
    async def set_queue_message(self, entry_id: int, message_id: int) -> None: ...
    async def waiting_entries(self, *, shard_id: int = 0, shard_count: int = 1
                              ) -> list[QueueEntry]:
        """The entries waiting in the shard's servers whose message is posted, oldest first."""
        ...

    async def count_waiting(self, key: QueueKey) -> int:
        """How many entries wait for the game `key`, in every server."""
        ...

    async def pair_queue(
        self,
        *,
        now: float,
        recent_since: float,
        choose: PairPolicy,
        make_game: GameMaker,
        shard_id: int = 0,
        shard_count: int = 1,
    ) -> list[QueuePairing]:
        """In one transaction: read the waiting entries of the shard's servers whose message is
        posted, the blocks between their members and the pairs of them paired since
        `recent_since`; let `choose` pick the pairs; for each, write the game `make_game` gives
        (unposted: no message yet) and mark both entries paired (with the partner, `now` and the
        game). A pair whose game cannot be written (a seat in that channel is taken) is left
        waiting. The pairs as now stored. A pair of two servers also writes the board to post in
        the second server, and wakes listen_pairings in every process."""
        ...

    async def listen_pairings(self, wake: Callable[[], None]) -> None:
        """Call `wake` whenever any process pairs two members of different servers (and once
        after each (re)connection), until cancelled; returns at once where there is no such
        signal (SQLite)."""
        ...

    async def unposted_queue_games(self, *, shard_id: int = 0, shard_count: int = 1) -> list[int]:
        """The running games of the queue in the shard's servers with no board yet (new ones,
        and any a stop left unposted), by id."""
        ...

    async def game_entries(self, game_id: int) -> list[QueueEntry]:
        """The two entries a queued game was made for, the one that waited longer first."""
        ...

    async def game_boards(self, game_id: int) -> list[GameBoard]:
        """The game's boards in servers other than its own (posted or not), by server."""
        ...

    async def mark_panned(self, game_id: int, guild_id: int) -> None:
        """The member of `guild_id` moved the pan window of their board of the game."""
        ...

    async def boards_panned(self, game_id: int) -> tuple[list[GameBoard], frozenset[int]]:
        """In one read: the game's boards in servers other than its own (as game_boards), and
        the servers whose member moved the pan window of their board of the game."""
        ...

    async def unposted_boards(self, *, shard_id: int = 0, shard_count: int = 1
                              ) -> list[GameBoard]:
        """The boards of running games in the shard's servers not posted yet (a pairing across
        servers writes one for the member who waited less), oldest game first."""
        ...

    async def attach_board(self, game_id: int, guild_id: int, message_id: int) -> None:
        """The game's board in `guild_id` is posted as `message_id`."""
        ...

    async def board_game(self, guild_id: int, channel_id: int, user_id: int, *,
                         running: bool = True) -> int | None:
        """The running game whose board in another server than its own is in this channel for
        this member (a queued game between two servers), by id; None if none. `running` False:
        the newest such game, over or not."""
        ...

    async def joins_since(self, user_id: int, since: float) -> list[float]:
        """When the member joined the queue (any server, any status) after `since`."""
        ...

    async def cross_seats(self, *, shard_id: int = 0, shard_count: int = 1
                          ) -> list[QueueEntry]:
        """The entries of the shard's servers whose games are running between two servers:
        whose members must still be in their servers for the game to go on."""
        ...

    async def keep_queue_local(self, guild_id: int) -> int:
        """Mark the server's waiting entries as paired within the server only (it turned
        pairing across servers off); how many changed."""
        ...


class Storage(Protocol):
    """One database: a repository per aggregate over one connection (or pool)."""

    @property
    def games(self) -> GameStore: ...
    @property
    def takebacks(self) -> TakebackStore: ...
    @property
    def clocks(self) -> ClockStore: ...
    @property
    def challenges(self) -> ChallengeStore: ...
    @property
    def standings(self) -> StandingStore: ...
    @property
    def settings(self) -> SettingStore: ...
    @property
    def reviews(self) -> ReviewStore: ...
    @property
    def meta(self) -> MetaStore: ...
    @property
    def puzzles(self) -> PuzzleStore: ...
    @property
    def tournaments(self) -> TournamentStore: ...
    @property
    def outbox(self) -> OutboxStore: ...
    @property
    def blocks(self) -> BlockStore: ...
    @property
    def queue(self) -> QueueStore: ...

    async def close(self) -> None: ...
    async def schema_version(self) -> int: ...
