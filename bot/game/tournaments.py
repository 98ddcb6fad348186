"""Server tournaments: creating one, entries, the organiser's controls, and running it round by
round. No Discord here: the cog posts what `advance` says is due.

Running a tournament is one step, `advance`, repeated by the cog's watcher: it starts the
tournament when its time comes, writes the results of finished games, pairs the next round (or,
in an arena, whoever is free), starts the games of the pairings that have none, and writes the
posts each change calls for (the start with round 1's pairings, a round's standings with the
next round's pairings, the final, the announcement redrawn) to the outbox in the same
transaction as the change (bot.game.outbox_model), so a stop between the two loses none. Every write in it is guarded by what it read (bot.game.ports.TournamentStore),
so a restart, or another process holding the server's shard, repeats a step at most once: a
round is paired by one call, a pairing gets one game, a result is written once. The pairings
themselves are pure functions of the seeds and the results (bot.game.pairings), so whoever pairs
a round pairs it the same way.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from bot.game import ratings
from bot.game.clocks import Clock
from bot.game.errors import UserError
from bot.game.games import GameService
from bot.game.model import ActiveGameExists, GameState, Mode, Status
from bot.game.options import MAX_TIMEOUT, GameOptions, parse_options
from bot.game.outbox import OutboxService
from bot.game.outbox_model import NewPost, PostKind
from bot.game.pairings import (
    Format,
    Game,
    Outcome,
    PairingError,
    Standing,
    arena_pairs,
    round_robin,
    standings,
    swiss_round,
)
from bot.game.ports import StandingStore, TournamentStore
from bot.game.settings import ServerSettings
from bot.game.tournament_model import (
    Entrant,
    EntryRow,
    NewPairing,
    NewTournament,
    PairingRow,
    TournamentGame,
    TournamentRow,
    TournamentStatus,
    ai_entrant,
    is_member_entrant,
    member_entrant,
    seat_of,
)
from bot.i18n.texts import TextId
from engine import Mark, Rule
from engine.game.types import Level

log = logging.getLogger("caro.bot")

MAX_PLAYERS = 64
MIN_PLAYERS = 2
MAX_SWISS_ROUNDS = 15
DEFAULT_SWISS_ROUNDS = 4
MIN_ARENA_MINUTES = 5
MAX_ARENA_MINUTES = 24 * 60
DEFAULT_ARENA_MINUTES = 30
# A tournament starting at once would find nobody but its creator entered, and be cancelled.
MIN_START_MINUTES = 1
MAX_START_MINUTES = 7 * 24 * 60
DEFAULT_START_MINUTES = 10
DEFAULT_TURN_SECONDS = 120.0
# A server's tournaments not yet over: enough for a few at once, too few to flood a channel.
MAX_LIVE_PER_SERVER = 5
# One member's tournaments not yet over, unless the server trusts them to organise (Manage
# Server or its tournament role): one member alone cannot take all of the server's places.
MAX_LIVE_PER_CREATOR = 2
# How many AI entries one tournament may hold: the AI's games run in the shared CPU pool.
MAX_AI_ENTRIES = 16
# Tournament games whose place in their tournament this process remembers, for their boards.
KNOWN_GAMES = 1024
# The statuses of a tournament that is not over.
LIVE = (TournamentStatus.OPEN, TournamentStatus.RUNNING, TournamentStatus.PAUSED)


@dataclass(frozen=True, slots=True)
class TournamentOptions:
    """What `/caro tournament create` asked for, each option as typed (None: the default)."""

    format: str
    rounds: int | None = None
    minutes: int | None = None
    size: str | None = None
    rule: str | None = None
    opening: str | None = None
    turn_seconds: int | None = None
    rated: bool = True
    starts_in: int | None = None
    max_players: int | None = None


@dataclass(frozen=True, slots=True)
class Organiser:
    """Who asks for an organiser's control, and what Discord says they may do."""

    user_id: int
    manage_server: bool = False
    roles: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Removal:
    """What removing a player did to the games under way."""

    # Lost by the removed player, to redraw.
    ended: list[GameState] = field(default_factory=list)
    # Against the organiser who removed them: played out, counting as played.
    played_out: list[GameState] = field(default_factory=list)


@dataclass(slots=True)
class Progress:
    """What one step of a tournament left for the cog to post."""

    tournament: TournamentRow
    started: bool = False
    # Games to post: new ones, and any whose board a stop or a failure left unposted.
    games: list[GameState] = field(default_factory=list)
    # A round whose standings this step wrote to the outbox.
    round_done: int | None = None
    # This step wrote the final announcement to the outbox.
    final: bool = False
    # The start came with too few entries: the tournament was cancelled.
    too_few: bool = False
    # This step wrote posts to the outbox (the sender is woken for them).
    posted: bool = False


def _bounded(value: int | None, default: int, low: int, high: int, option: str) -> int:
    if value is None:
        return default
    if not low <= value <= high:
        raise UserError(
            "tournament.bad_number", option=TextId(f"option.{option}"), low=low, high=high
        )
    return value


def game_options(row: TournamentRow) -> GameOptions:
    """The options of every game of tournament `row`."""
    return GameOptions(
        level=Level.NORMAL.value,
        rows=row.rows,
        cols=row.cols,
        k=row.k,
        rule=Rule.parse(row.rule),
        first="me",
        rated=row.rated,
        opening=row.opening,
    )


def outcome_of(state: GameState) -> Outcome:
    winner = state.row.winner
    if winner is None:
        return Outcome.DRAW
    return Outcome.X_WINS if winner is Mark.X else Outcome.O_WINS


def scored(pairings: Sequence[PairingRow]) -> list[Game]:
    """The pairings as bot.game.pairings reads them: byes and finished games."""
    return [
        Game(p.round, p.x, p.o, p.outcome) for p in pairings if p.is_bye or p.outcome is not None
    ]


class TournamentService:
    def __init__(
        self,
        store: TournamentStore,
        games: GameService,
        standings: StandingStore,
        settings: ServerSettings,
        *,
        outbox: OutboxService,
        clock: Clock = time.time,
    ) -> None:
        self._store = store
        self._outbox = outbox
        self._settings = settings
        self._games = games
        self._standings = standings
        self._clock = clock
        # One step of a tournament at a time in this process (another process's steps are kept
        # apart by the store's guards).
        self._locks: dict[int, asyncio.Lock] = {}
        # guild id -> its lock for creating a tournament (the caps are checked under it).
        self._create_locks: dict[int, asyncio.Lock] = {}
        # game id -> its place in its tournament: drawn with every move of its board, and the
        # same from the game's start to its end.
        self._games_known: dict[int, TournamentGame] = {}

    def now(self) -> float:
        return self._clock()

    # ----------------------------------------------------------------- creating
    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        creator: Organiser,
        options: TournamentOptions,
        min_turn_seconds: float,
        locale: str,
    ) -> TournamentRow:
        """A new tournament open for entries, created by `creator`; UserError naming the bad
        option, or the cap reached (the server's, or the creator's own unless the server lets
        them organise every tournament), otherwise."""
        try:
            kind = Format(options.format.strip().lower())
        except ValueError:
            raise UserError(
                "error.bad_choice",
                value=options.format[:40].replace("*", "").replace("`", "") or "(empty)",
                option=TextId("option.format"),
                choices=", ".join(f.value for f in Format),
            ) from None
        board = parse_options(None, options.size, options.rule, None, opening=options.opening)
        rounds = None
        minutes = None
        if kind is Format.SWISS:
            rounds = _bounded(options.rounds, DEFAULT_SWISS_ROUNDS, 1, MAX_SWISS_ROUNDS, "rounds")
        if kind is Format.ARENA:
            minutes = _bounded(
                options.minutes, DEFAULT_ARENA_MINUTES, MIN_ARENA_MINUTES, MAX_ARENA_MINUTES,
                "minutes",
            )
        turn = (
            DEFAULT_TURN_SECONDS
            if options.turn_seconds is None
            else float(
                _bounded(
                    options.turn_seconds, 0, int(min_turn_seconds), int(MAX_TIMEOUT),
                    "turn_seconds",
                )
            )
        )
        turn = max(turn, min_turn_seconds)
        if options.starts_in is not None and 0 <= options.starts_in < MIN_START_MINUTES:
            raise UserError("tournament.starts_too_soon", minutes=MIN_START_MINUTES)
        starts_in = _bounded(
            options.starts_in, DEFAULT_START_MINUTES, MIN_START_MINUTES, MAX_START_MINUTES,
            "starts_in",
        )
        players = _bounded(
            options.max_players, MAX_PLAYERS, MIN_PLAYERS, MAX_PLAYERS, "max_players"
        )
        new = NewTournament(
            guild_id=guild_id,
            channel_id=channel_id,
            created_by=creator.user_id,
            format=kind,
            rounds=rounds,
            minutes=minutes,
            max_players=players,
            rows=board.rows,
            cols=board.cols,
            k=board.k,
            rule=board.rule.value,
            opening=board.opening,
            turn_seconds=turn,
            rated=options.rated,
            starts_at=self.now() + starts_in * 60.0,
            locale=locale,
        )
        role = (await self._settings.timeouts(guild_id)).tournament_role
        trusted = self.organises_all(creator, role)
        # Checking the caps and creating must not interleave with another create in the same
        # server, or two creates could both pass the checks.
        async with self._create_locks.setdefault(guild_id, asyncio.Lock()):
            live = await self._store.guild_tournaments(guild_id, live_only=True)
            if len(live) >= MAX_LIVE_PER_SERVER:
                raise UserError("tournament.too_many", count=MAX_LIVE_PER_SERVER)
            mine = sum(1 for t in live if t.created_by == creator.user_id)
            if not trusted and mine >= MAX_LIVE_PER_CREATOR:
                raise UserError("tournament.too_many_mine", count=MAX_LIVE_PER_CREATOR)
            return await self._store.create_tournament(new)

    async def attach_message(self, tournament_id: int, message_id: int) -> None:
        await self._store.set_tournament_message(tournament_id, message_id)

    async def find(self, guild_id: int, tournament_id: int) -> TournamentRow:
        """Tournament `tournament_id` of this server; UserError if there is none."""
        row = await self._store.tournament(tournament_id)
        if row is None or row.guild_id != guild_id:
            raise UserError("tournament.unknown")
        return row

    async def get(self, tournament_id: int) -> TournamentRow | None:
        return await self._store.tournament(tournament_id)

    async def in_server(self, guild_id: int, *, live_only: bool) -> list[TournamentRow]:
        return await self._store.guild_tournaments(guild_id, live_only=live_only)

    async def latest(
        self, guild_id: int, channel_id: int, tournament_id: int | None
    ) -> TournamentRow:
        """The tournament whose standings a command asks for: the one it names, else the
        server's newest one not over, else the newest one played in this channel, else the
        server's newest; UserError when the server has had none."""
        if tournament_id is not None:
            return await self.find(guild_id, tournament_id)
        every = await self._store.guild_tournaments(guild_id, live_only=False)
        for row in every:
            if row.status in LIVE:
                return row
        here = [row for row in every if row.channel_id == channel_id]
        if here:
            return here[0]
        if every:
            return every[0]
        raise UserError("tournament.none_yet")

    async def chosen(self, guild_id: int, tournament_id: int | None) -> TournamentRow:
        """The tournament a command names, or the server's newest one not over when it names
        none; UserError when there is none to choose."""
        if tournament_id is not None:
            return await self.find(guild_id, tournament_id)
        live = await self._store.guild_tournaments(guild_id, live_only=True)
        if not live:
            raise UserError("tournament.none")
        return live[0]

    async def entries(self, tournament_id: int) -> list[EntryRow]:
        return await self._store.entries(tournament_id)

    # ----------------------------------------------------------------- entries
    async def join(self, tournament_id: int, user_id: int) -> TournamentRow:
        """Enter a member: before the start, or in an arena until its time is up (paired at the
        next step like anyone free)."""
        row = await self._row(tournament_id)
        if not row.takes_entries(self.now()):
            raise UserError("tournament.not_open")
        entrant = member_entrant(user_id)
        mine = next((e for e in await self._store.entries(tournament_id) if e.entrant == entrant),
                    None)
        if mine is not None:
            raise UserError("tournament.no_return" if mine.withdrawn else "tournament.already_in")
        # An arena may start between the read and the insert: its entries stay open.
        if not await self._store.add_entry(
            tournament_id, entrant, max_players=row.max_players, late=row.format is Format.ARENA
        ):
            if not (await self._row(tournament_id)).takes_entries(self.now()):
                raise UserError("tournament.not_open")
            raise UserError("tournament.full", count=row.max_players)
        return row

    async def leave(self, tournament_id: int, user_id: int) -> list[GameState]:
        """Take back an entry before the start, or withdraw from a running tournament (the game
        under way is lost); the games this ended, to redraw."""
        row = await self._row(tournament_id)
        entrant = member_entrant(user_id)
        if row.status is TournamentStatus.OPEN:
            if not await self._store.remove_entry(tournament_id, entrant):
                raise UserError("tournament.not_in")
            return []
        ended, _ = await self._withdraw(row, entrant, missing="tournament.not_in")
        return ended

    async def add_ai(self, tournament_id: int, level: str, who: Organiser) -> Entrant:
        """Enter an AI level as a player (an organiser's control)."""
        row = await self._controlled(tournament_id, who)
        if row.status is not TournamentStatus.OPEN:
            raise UserError("tournament.not_open")
        try:
            chosen = Level.parse(level)
        except ValueError:
            raise UserError(
                "error.bad_choice",
                value=level[:40].replace("*", "").replace("`", "") or "(empty)",
                option=TextId("option.difficulty"),
                choices=", ".join(lv.value for lv in Level),
            ) from None
        entries = await self._store.entries(tournament_id)
        if sum(1 for e in entries if not is_member_entrant(e.entrant)) >= MAX_AI_ENTRIES:
            raise UserError("tournament.too_many_ai", count=MAX_AI_ENTRIES)
        taken = {e.entrant for e in entries}
        entrant = ai_entrant(chosen, taken)
        if not await self._store.add_entry(tournament_id, entrant, max_players=row.max_players):
            await self._open(tournament_id)
            raise UserError("tournament.full", count=row.max_players)
        return entrant

    # ----------------------------------------------------------------- organiser controls
    def may_organise(self, row: TournamentRow, who: Organiser, role: int | None) -> bool:
        return who.user_id == row.created_by or self.organises_all(who, role)

    @staticmethod
    def organises_all(who: Organiser, role: int | None) -> bool:
        """Whether the server lets `who` organise every tournament: Manage Server, or its
        tournament role `role`."""
        return who.manage_server or (role is not None and role in who.roles)

    async def _controlled(self, tournament_id: int, who: Organiser) -> TournamentRow:
        row = await self._row(tournament_id)
        role = (await self._settings.timeouts(row.guild_id)).tournament_role
        if not self.may_organise(row, who, role):
            raise UserError("tournament.not_organiser")
        return row

    async def start_now(self, tournament_id: int, who: Organiser) -> Progress:
        row = await self._controlled(tournament_id, who)
        if row.status is not TournamentStatus.OPEN:
            raise UserError("tournament.not_open")
        async with self._lock(tournament_id):
            return self._woken(await self._start(row))

    async def pause(self, tournament_id: int, who: Organiser) -> TournamentRow:
        return await self._switch(
            tournament_id, who, TournamentStatus.RUNNING, TournamentStatus.PAUSED,
            "tournament.not_running",
        )

    async def resume(self, tournament_id: int, who: Organiser) -> TournamentRow:
        return await self._switch(
            tournament_id, who, TournamentStatus.PAUSED, TournamentStatus.RUNNING,
            "tournament.not_paused",
        )

    async def _switch(
        self,
        tournament_id: int,
        who: Organiser,
        before: TournamentStatus,
        after: TournamentStatus,
        refusal: str,
    ) -> TournamentRow:
        row = await self._controlled(tournament_id, who)
        if not await self._store.set_status(
            tournament_id, before, after, now=self.now(), posts=[self._redraw(row)]
        ):
            raise UserError(refusal)
        self._outbox.wake()
        return row

    async def remove(
        self, tournament_id: int, entrant: Entrant, who: Organiser
    ) -> Removal:
        """Remove a player: before the start their entry goes; after it, they are withdrawn and
        lose the game they are playing, unless `who` plays it: an organiser's control never
        decides their own game, which is played out and counts as played."""
        row = await self._controlled(tournament_id, who)
        if row.status is TournamentStatus.OPEN:
            if not await self._store.remove_entry(tournament_id, entrant):
                raise UserError("tournament.not_entered")
            return Removal()
        mine = member_entrant(who.user_id)
        spared = None if mine == entrant else mine
        ended, played_out = await self._withdraw(
            row, entrant, missing="tournament.not_entered", spared=spared
        )
        return Removal(ended, played_out)

    async def cancel(self, tournament_id: int, who: Organiser) -> list[GameState]:
        """Cancel a tournament that is not over: its running games end without a result. The
        games this ended, to redraw."""
        row = await self._controlled(tournament_id, who)
        async with self._lock(tournament_id):
            for before in LIVE:
                if await self._store.set_status(
                    tournament_id, before, TournamentStatus.CANCELLED, now=self.now(),
                    posts=[self._redraw(row)],
                ):
                    break
            else:
                raise UserError("tournament.over")
            self._outbox.wake()
            ended = []
            for pairing in await self._store.pairings(tournament_id):
                if pairing.game_id is not None and pairing.outcome is None:
                    state = await self._games.state(pairing.game_id)
                    if state is not None and state.active:
                        await self._games.abandon(pairing.game_id)
                        after = await self._games.state(pairing.game_id)
                        ended += [after] if after is not None else []
        return ended

    async def _withdraw(
        self,
        row: TournamentRow,
        entrant: Entrant,
        *,
        missing: str,
        spared: Entrant | None = None,
    ) -> tuple[list[GameState], list[GameState]]:
        """Withdraw `entrant`: their running games are lost, except one against `spared` (the
        organiser who removes them), which is played out. (The games lost, the games played
        out.)"""
        if row.status.over:
            raise UserError("tournament.over")
        if not await self._store.withdraw(row.id, entrant):
            raise UserError(missing)
        ended: list[GameState] = []
        played_out: list[GameState] = []
        for pairing in await self._store.pairings(row.id):
            if pairing.game_id is None or pairing.outcome is not None:
                continue
            if entrant not in (pairing.x, pairing.o):
                continue
            state = await self._games.state(pairing.game_id)
            if state is None or not state.active:
                continue
            if spared is not None and spared in (pairing.x, pairing.o):
                # A forfeit would hand the organiser a win (and rating) they did not play for.
                played_out.append(state)
                continue
            lost = await self._games.forfeit(pairing.game_id, _mark_of(state, entrant, pairing))
            ended += [lost] if lost is not None else []
        return ended, played_out

    # ----------------------------------------------------------------- standings
    async def standings(self, row: TournamentRow, *, through: int | None = None) -> list[Standing]:
        """The standings now, or (`through`) after that round."""
        entries = await self._store.entries(row.id)
        pairings = await self._store.pairings(row.id)
        if through is not None:
            pairings = [p for p in pairings if p.round <= through]
        return standings([e.entrant for e in entries], scored(pairings))

    async def pairings(self, tournament_id: int) -> list[PairingRow]:
        return await self._store.pairings(tournament_id)

    async def game_of(self, state: GameState) -> TournamentGame | None:
        """The tournament and pairing of a tournament's game; None for any other game, and for
        one whose pairing is not stored (yet)."""
        tournament_id = state.row.tournament_id
        if tournament_id is None:
            return None
        known = self._games_known.get(state.id)
        if known is not None:
            return known
        row = await self._store.tournament(tournament_id)
        if row is None:
            return None
        pairing = next(
            (p for p in await self._store.pairings(tournament_id) if p.game_id == state.id),
            None,
        )
        if pairing is None or pairing.o is None:
            return None
        found = TournamentGame(row, pairing)
        if row.message_id is not None:
            # Remembered once its announcement is known, the one part that could change.
            if len(self._games_known) >= KNOWN_GAMES:
                self._games_known.pop(next(iter(self._games_known)))
            self._games_known[state.id] = found
        return found

    # ----------------------------------------------------------------- running
    async def live(self, *, shard_id: int = 0, shard_count: int = 1) -> list[TournamentRow]:
        return await self._store.live_tournaments(shard_id=shard_id, shard_count=shard_count)

    async def advance(self, tournament_id: int) -> Progress | None:
        """One step of a tournament (see the module's docstring); None if it is over."""
        async with self._lock(tournament_id):
            row = await self._store.tournament(tournament_id)
            if row is None or row.status.over:
                return None
            if row.status is TournamentStatus.OPEN:
                if row.starts_at > self.now():
                    return Progress(row)
                return self._woken(await self._start(row))
            return self._woken(await self._run(row))

    def _woken(self, progress: Progress) -> Progress:
        if progress.posted:
            self._outbox.wake()
        return progress

    # ----------------------------------------------------------------- posts
    def _post(self, row: TournamentRow, kind: PostKind, round: int | None = None) -> NewPost:
        return self._outbox.post(
            row.guild_id, row.channel_id, kind, tournament=row.id, round=round
        )

    def _redraw(self, row: TournamentRow) -> NewPost:
        """The announcement redrawn from the database when the row is sent."""
        return self._post(row, PostKind.TOURNAMENT_ANNOUNCEMENT)

    def _lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    async def _start(self, row: TournamentRow) -> Progress:
        entries = [e for e in await self._store.entries(row.id) if not e.withdrawn]
        if len(entries) < MIN_PLAYERS:
            cancelled = await self._store.set_status(
                row.id, TournamentStatus.OPEN, TournamentStatus.CANCELLED, now=self.now(),
                posts=[self._post(row, PostKind.TOURNAMENT_TOO_FEW), self._redraw(row)],
            )
            fresh = await self._row(row.id)
            return Progress(fresh, too_few=cancelled, posted=cancelled)
        seeds = await self._seeded(row, entries)
        count = len(seeds)
        rounds = row.rounds
        if row.format is Format.SWISS:
            rounds = min(row.rounds or DEFAULT_SWISS_ROUNDS, count - 1)
        elif row.format is Format.ROUND_ROBIN:
            rounds = count - 1 if count % 2 == 0 else count
        now = self.now()
        ends_at = now + (row.minutes or 0) * 60.0 if row.format is Format.ARENA else None
        # An arena's start says when it ends; a round's start posts with round 1's pairings.
        posts = (
            [self._post(row, PostKind.TOURNAMENT_STARTED), self._redraw(row)]
            if row.format is Format.ARENA
            else []
        )
        started = await self._store.start_tournament(
            row.id, seeds, rounds=rounds, now=now, ends_at=ends_at, posts=posts
        )
        progress = await self._run(await self._row(row.id))
        progress.started = started
        progress.posted = progress.posted or started
        return progress

    async def _seeded(self, row: TournamentRow, entries: list[EntryRow]) -> list[Entrant]:
        """The entries from the highest rating down (members by their rating against members in
        this server, AI levels by their anchors), the earlier entry first among equals."""
        rating: dict[Entrant, float] = {}
        for entry in entries:
            seat = seat_of(entry.entrant)
            if isinstance(seat, int):
                standing = await self._standings.standing(row.guild_id, seat, Mode.PVP)
                rating[entry.entrant] = standing.rating
            else:
                strongest = ratings.AI_ANCHORS[Level.IMPOSSIBLE]
                rating[entry.entrant] = ratings.AI_ANCHORS.get(seat, strongest)
        ordered = sorted(entries, key=lambda e: (-rating[e.entrant], e.seed))
        return [e.entrant for e in ordered]

    async def _run(self, row: TournamentRow) -> Progress:
        progress = Progress(row)
        if row.status not in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
            return progress
        pairings = await self._store.pairings(row.id)
        entries = await self._store.entries(row.id)
        withdrawn = {e.entrant for e in entries if e.withdrawn}
        pairings = [await self._settle(row, p, withdrawn) for p in pairings]
        running = row.status is TournamentStatus.RUNNING
        if running:
            progress.games = await self._start_games(row, pairings, withdrawn)
        current = [p for p in pairings if p.round == row.round]
        round_over = all(p.done for p in current)
        if row.format is Format.ARENA:
            return await self._run_arena(row, pairings, entries, progress)
        if not round_over:
            return progress
        last = row.rounds or 0
        if row.round >= last and row.round >= 1:
            return await self._finish(row, progress)
        if not running:
            # Paused: the round's standings now, without the next round's pairings.
            await self._announce_round(row, progress)
            return progress
        paired = await self._pair_next(row, pairings, entries)
        if paired is None:
            # No pairing is possible any more (Swiss without a repeat): the tournament ends here.
            await self._announce_round(row, progress)
            return await self._finish(row, progress)
        if paired:
            progress.posted = True
            if row.round >= 1 and row.announced < row.round:
                progress.round_done = row.round
        fresh = await self._row(row.id)
        progress.tournament = fresh
        progress.games += await self._start_games(
            fresh, await self._store.pairings(row.id), withdrawn
        )
        return progress

    async def _run_arena(
        self,
        row: TournamentRow,
        pairings: list[PairingRow],
        entries: list[EntryRow],
        progress: Progress,
    ) -> Progress:
        now = self.now()
        if row.ends_at is not None and now >= row.ends_at:
            if all(p.done for p in pairings):
                return await self._finish(row, progress)
            return progress
        if row.status is not TournamentStatus.RUNNING:
            return progress
        busy = {e for p in pairings if not p.done for e in (p.x, p.o) if e is not None}
        waiting = [e.entrant for e in entries if not e.withdrawn and e.entrant not in busy]
        if len(waiting) < 2:
            return progress
        games = scored(pairings)
        points = _points(entries, games)
        pairs = arena_pairs(waiting, games, points)
        new = [NewPairing(board, pair.x, pair.o) for board, pair in enumerate(pairs)]
        if new and await self._store.add_round(row.id, row.round + 1, new):
            fresh = await self._row(row.id)
            progress.tournament = fresh
            withdrawn = {e.entrant for e in entries if e.withdrawn}
            progress.games += await self._start_games(
                fresh, await self._store.pairings(row.id), withdrawn
            )
        return progress

    async def _pair_next(
        self, row: TournamentRow, pairings: list[PairingRow], entries: list[EntryRow]
    ) -> bool | None:
        """Pair round row.round + 1; None when no pairing exists; False when another call
        paired it first."""
        number = row.round + 1
        active = [e.entrant for e in entries if not e.withdrawn]
        try:
            if row.format is Format.ROUND_ROBIN:
                seeds = [e.entrant for e in entries]
                schedule = round_robin(seeds)[number - 1]
                new = [NewPairing(b, p.x, p.o) for b, p in enumerate(schedule.pairings)]
                if schedule.bye is not None:
                    new.append(NewPairing(len(new), schedule.bye, None))
            else:
                if len(active) < 2:
                    return None
                paired = swiss_round(active, scored(pairings))
                new = [NewPairing(b, p.x, p.o) for b, p in enumerate(paired.pairings)]
                if paired.bye is not None:
                    new.append(NewPairing(len(new), paired.bye, None))
        except PairingError as exc:
            log.info("tournament %d: no round %d (%s)", row.id, number, exc)
            return None
        # The pairing, its posts and the previous round's standings (which list these pairings)
        # are one transaction: a stop leaves all of them or none.
        posts = [self._redraw(row)]
        if number == 1:
            posts.insert(0, self._post(row, PostKind.TOURNAMENT_STARTED))
        announce = self._post(row, PostKind.TOURNAMENT_ROUND, row.round) if row.round else None
        return await self._store.add_round(row.id, number, new, posts=posts, announce=announce)

    async def _announce_round(self, row: TournamentRow, progress: Progress) -> None:
        """The standings of the round just over, if no call posted them yet."""
        if row.round < 1:
            return
        post = self._post(row, PostKind.TOURNAMENT_ROUND, row.round)
        if await self._store.claim_announcement(row.id, row.round, [post]):
            progress.round_done = row.round
            progress.posted = True

    async def _finish(self, row: TournamentRow, progress: Progress) -> Progress:
        # The final announcement takes the number of the round that never comes: the last
        # round's own standings may have been claimed already (a Swiss that ran out of pairings).
        final = self._post(row, PostKind.TOURNAMENT_FINAL, row.round)
        if await self._store.claim_announcement(row.id, row.round + 1, [final]):
            progress.final = progress.posted = True
        for before in (TournamentStatus.RUNNING, TournamentStatus.PAUSED):
            finished = TournamentStatus.FINISHED
            if await self._store.set_status(
                row.id, before, finished, now=self.now(), posts=[self._redraw(row)]
            ):
                progress.posted = True
                break
        progress.tournament = await self._row(row.id)
        return progress

    async def _settle(
        self, row: TournamentRow, pairing: PairingRow, withdrawn: set[Entrant]
    ) -> PairingRow:
        """The pairing with its result written if its game has ended (or, for a withdrawn
        player's game not yet begun, lost by them), and its game released if it ended without
        one."""
        if pairing.done:
            return pairing
        if pairing.game_id is None:
            assert pairing.o is not None
            gone = [e for e in (pairing.x, pairing.o) if e in withdrawn]
            if not gone:
                return pairing
            if len(gone) == 2:
                outcome = Outcome.DRAW
            else:
                outcome = Outcome.O_WINS if gone[0] == pairing.x else Outcome.X_WINS
            await self._store.record_result(pairing.id, pairing.x, pairing.o, outcome)
            return replace(pairing, outcome=outcome)
        state = await self._games.state(pairing.game_id)
        if state is None:
            return pairing
        if state.row.status is Status.ABANDONED:
            if row.status.over:
                return pairing
            # Abandoned before it began (its board could not be posted): a new game replaces it.
            await self._store.release_game(pairing.id, pairing.game_id)
            return replace(pairing, game_id=None)
        if state.row.status is not Status.FINISHED:
            return pairing
        assert pairing.o is not None
        x, o = pairing.x, pairing.o
        if state.row.x != seat_of(x):
            # An opening rule gave X to the other player.
            x, o = o, x
        outcome = outcome_of(state)
        await self._store.record_result(pairing.id, x, o, outcome)
        return replace(pairing, x=x, o=o, outcome=outcome)

    async def _start_games(
        self, row: TournamentRow, pairings: list[PairingRow], withdrawn: set[Entrant]
    ) -> list[GameState]:
        """Games for the pairings that have none, and the running ones never posted. A pairing
        of a withdrawn player gets no game: the next step writes it as lost by them."""
        started: list[GameState] = []
        if row.status is not TournamentStatus.RUNNING:
            return started
        if any(not p.done and p.game_id is None for p in pairings):
            # A pairing without its game may have one the bot made just before a stop and never
            # bound: never posted, it never began, so it goes before the pairing gets its own.
            for game_id in await self._store.unbound_games(row.id):
                log.info("tournament %d: game %d was never bound to a pairing", row.id, game_id)
                await self._games.abandon(game_id)
        for pairing in pairings:
            if pairing.done or pairing.x in withdrawn or pairing.o in withdrawn:
                continue
            if pairing.game_id is not None:
                state = await self._games.state(pairing.game_id)
                if state is not None and state.active and state.row.message_id is None:
                    started.append(state)
                continue
            assert pairing.o is not None
            try:
                state = await self._games.start_tournament_game(
                    guild_id=row.guild_id,
                    channel_id=row.channel_id,
                    x=seat_of(pairing.x),
                    o=seat_of(pairing.o),
                    organiser=row.created_by,
                    options=game_options(row),
                    turn_seconds=row.turn_seconds,
                    tournament_id=row.id,
                    locale=row.locale,
                )
            except ActiveGameExists:
                # A member's own game in this channel is in the way: the next step tries again.
                continue
            if not await self._store.claim_game(pairing.id, state.id):
                await self._games.abandon(state.id)
                continue
            started.append(state)
        return started

    async def _open(self, tournament_id: int) -> TournamentRow:
        row = await self._row(tournament_id)
        if row.status is not TournamentStatus.OPEN:
            raise UserError("tournament.not_open")
        return row

    async def _row(self, tournament_id: int) -> TournamentRow:
        row = await self._store.tournament(tournament_id)
        if row is None:
            raise UserError("tournament.unknown")
        return row


def _points(entries: list[EntryRow], games: list[Game]) -> dict[Entrant, Fraction]:
    points = {e.entrant: Fraction(0) for e in entries}
    for game in games:
        for player in (game.x, game.o):
            if player is not None and player in points:
                points[player] += game.points(player)
    return points


def _mark_of(state: GameState, entrant: Entrant, pairing: PairingRow) -> Mark:
    """The mark `entrant` plays in its pairing's game."""
    seat = seat_of(entrant)
    if state.row.x == state.row.o:
        # Two entries of one AI level: the pairing says which is which.
        return Mark.X if entrant == pairing.x else Mark.O
    return Mark.X if state.row.x == seat else Mark.O


__all__ = [
    "MAX_PLAYERS",
    "Organiser",
    "Progress",
    "Removal",
    "TournamentOptions",
    "TournamentService",
    "game_options",
    "outcome_of",
]
