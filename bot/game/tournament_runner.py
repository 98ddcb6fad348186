"""Running a tournament: one step, `advance`, repeated by the cog's watcher. No Discord here.

A step starts the tournament when its time comes, writes the results of finished games, pairs
the next round (or, in an arena, whoever is free), starts the games of the pairings that have
none, and writes the posts each change calls for (the start with round 1's pairings, a round's
standings with the next round's pairings, the final, the announcement redrawn) to the outbox in
the same transaction as the change (bot.game.outbox_model), so a stop between the two loses none.
Every write in it is guarded by what it read (bot.game.ports.TournamentStore), so a restart, or
another process holding the server's shard, repeats a step at most once: a round is paired by one
call, a pairing gets one game, a result is written once. The pairings themselves are pure
functions of the seeds and the results (bot.game.pairings), so whoever pairs a round pairs it the
same way.

What members and organisers do is bot.game.tournaments' (an organiser's start and cancel take
this runner's lock); what is shown of a tournament, bot.game.tournament_reads'.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

from bot.game import ratings
from bot.game.clocks import Clock
from bot.game.games import GameService
from bot.game.model import ActiveGameExists, GameState, Mode, Status
from bot.game.options import GameOptions
from bot.game.outbox import OutboxService
from bot.game.outbox_model import NewPost, PostKind
from bot.game.pairings import (
    Format,
    Game,
    Outcome,
    PairingError,
    arena_pairs,
    round_robin,
    swiss_round,
)
from bot.game.ports import StandingStore, TournamentStore
from bot.game.tournament_model import (
    Entrant,
    EntryRow,
    NewPairing,
    PairingRow,
    TournamentRow,
    TournamentStatus,
    scored,
    seat_of,
)
from bot.game.tournament_reads import TournamentReads
from engine import Mark, Rule
from engine.game.types import Level

log = logging.getLogger("caro.bot")

MIN_PLAYERS = 2
DEFAULT_SWISS_ROUNDS = 4


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



class TournamentRunner:
    """Steps tournaments forward (see the module's docstring), one step of a tournament at a
    time in this process; another process's steps are kept apart by the store's guards."""

    def __init__(
        self,
        store: TournamentStore,
        reads: TournamentReads,
        games: GameService,
        standings: StandingStore,
        *,
        outbox: OutboxService,
        clock: Clock = time.time,
    ) -> None:
        self._store = store
        self._reads = reads
        self._outbox = outbox
        self._games = games
        self._standings = standings
        self._clock = clock
        self._locks: dict[int, asyncio.Lock] = {}

    def now(self) -> float:
        return self._clock()

    def lock(self, tournament_id: int) -> asyncio.Lock:
        """One step (or an organiser's start or cancel) of a tournament at a time."""
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    async def live(self, *, shard_id: int = 0, shard_count: int = 1) -> list[TournamentRow]:
        return await self._store.live_tournaments(shard_id=shard_id, shard_count=shard_count)

    async def advance(self, tournament_id: int) -> Progress | None:
        """One step of a tournament (see the module's docstring); None if it is over."""
        async with self.lock(tournament_id):
            row = await self._store.tournament(tournament_id)
            if row is None or row.status.over:
                return None
            if row.status is TournamentStatus.OPEN:
                if row.starts_at > self.now():
                    return Progress(row)
                return self._woken(await self._start(row))
            return self._woken(await self._run(row))

    async def start(self, row: TournamentRow) -> Progress:
        """Start the open tournament `row` now (an organiser's control), or cancel it with too
        few entries."""
        async with self.lock(row.id):
            return self._woken(await self._start(row))

    def _woken(self, progress: Progress) -> Progress:
        if progress.posted:
            self._outbox.wake()
        return progress

    def _post(self, row: TournamentRow, kind: PostKind, round: int | None = None) -> NewPost:
        return self._outbox.post(
            row.guild_id, row.channel_id, kind, tournament=row.id, round=round
        )

    def redraw(self, row: TournamentRow) -> NewPost:
        """The announcement redrawn from the database when the row is sent."""
        return self._post(row, PostKind.TOURNAMENT_ANNOUNCEMENT)

    async def _start(self, row: TournamentRow) -> Progress:
        entries = [e for e in await self._store.entries(row.id) if not e.withdrawn]
        if len(entries) < MIN_PLAYERS:
            cancelled = await self._store.set_status(
                row.id, TournamentStatus.OPEN, TournamentStatus.CANCELLED, now=self.now(),
                posts=[self._post(row, PostKind.TOURNAMENT_TOO_FEW), self.redraw(row)],
            )
            fresh = await self._reads.row(row.id)
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
            [self._post(row, PostKind.TOURNAMENT_STARTED), self.redraw(row)]
            if row.format is Format.ARENA
            else []
        )
        started = await self._store.start_tournament(
            row.id, seeds, rounds=rounds, now=now, ends_at=ends_at, posts=posts
        )
        progress = await self._run(await self._reads.row(row.id))
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
        fresh = await self._reads.row(row.id)
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
            fresh = await self._reads.row(row.id)
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
        posts = [self.redraw(row)]
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
                row.id, before, finished, now=self.now(), posts=[self.redraw(row)]
            ):
                progress.posted = True
                break
        progress.tournament = await self._reads.row(row.id)
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


def _points(entries: list[EntryRow], games: list[Game]) -> dict[Entrant, Fraction]:
    points = {e.entrant: Fraction(0) for e in entries}
    for game in games:
        for player in (game.x, game.o):
            if player is not None and player in points:
                points[player] += game.points(player)
    return points
