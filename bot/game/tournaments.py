"""What members and organisers do with a server's tournaments: creating one, entries, and the
organiser's controls (adding an AI, starting, pausing, resuming, removing a player, cancelling).
No Discord here.

The running of a tournament, one guarded step at a time, is bot.game.tournament_runner's: an
organiser's start and cancel take its lock, and every change here that the announcement shows
writes the runner's redraw of it to the outbox in the change's own transaction. What is shown of
a tournament (the one a command names, its entries and standings) is
bot.game.tournament_reads'.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from bot.game.clocks import Clock
from bot.game.errors import UserError
from bot.game.games import GameService
from bot.game.model import GameState
from bot.game.options import MAX_TIMEOUT, parse_options
from bot.game.outbox import OutboxService
from bot.game.pairings import Format
from bot.game.ports import TournamentStore
from bot.game.settings import ServerSettings
from bot.game.tournament_model import (
    LIVE,
    Entrant,
    NewTournament,
    PairingRow,
    TournamentRow,
    TournamentStatus,
    ai_entrant,
    is_member_entrant,
    member_entrant,
    seat_of,
)
from bot.game.tournament_reads import TournamentReads
from bot.game.tournament_runner import (
    DEFAULT_SWISS_ROUNDS,
    MIN_PLAYERS,
    Progress,
    TournamentRunner,
)
from bot.i18n.texts import TextId
from engine import Mark
from engine.game.types import Level

MAX_PLAYERS = 64
MAX_SWISS_ROUNDS = 15
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


def _bounded(value: int | None, default: int, low: int, high: int, option: str) -> int:
    if value is None:
        return default
    if not low <= value <= high:
        raise UserError(
            "tournament.bad_number", option=TextId(f"option.{option}"), low=low, high=high
        )
    return value


class TournamentService:
    """Creating tournaments, entries, and the organiser's controls."""

    def __init__(
        self,
        store: TournamentStore,
        reads: TournamentReads,
        runner: TournamentRunner,
        games: GameService,
        settings: ServerSettings,
        *,
        outbox: OutboxService,
        clock: Clock = time.time,
    ) -> None:
        self._store = store
        self._reads = reads
        self._runner = runner
        self._outbox = outbox
        self._settings = settings
        self._games = games
        self._clock = clock
        # guild id -> its lock for creating a tournament (the caps are checked under it).
        self._create_locks: dict[int, asyncio.Lock] = {}

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

    # ----------------------------------------------------------------- entries
    async def join(self, tournament_id: int, user_id: int) -> TournamentRow:
        """Enter a member: before the start, or in an arena until its time is up (paired at the
        next step like anyone free)."""
        row = await self._reads.row(tournament_id)
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
            if not (await self._reads.row(tournament_id)).takes_entries(self.now()):
                raise UserError("tournament.not_open")
            raise UserError("tournament.full", count=row.max_players)
        return row

    async def leave(self, tournament_id: int, user_id: int) -> list[GameState]:
        """Take back an entry before the start, or withdraw from a running tournament (the game
        under way is lost); the games this ended, to redraw."""
        row = await self._reads.row(tournament_id)
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
        row = await self._reads.row(tournament_id)
        role = (await self._settings.timeouts(row.guild_id)).tournament_role
        if not self.may_organise(row, who, role):
            raise UserError("tournament.not_organiser")
        return row

    async def start_now(self, tournament_id: int, who: Organiser) -> Progress:
        row = await self._controlled(tournament_id, who)
        if row.status is not TournamentStatus.OPEN:
            raise UserError("tournament.not_open")
        return await self._runner.start(row)

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
            tournament_id, before, after, now=self.now(), posts=[self._runner.redraw(row)]
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
        async with self._runner.lock(tournament_id):
            for before in LIVE:
                if await self._store.set_status(
                    tournament_id, before, TournamentStatus.CANCELLED, now=self.now(),
                    posts=[self._runner.redraw(row)],
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

    async def _open(self, tournament_id: int) -> TournamentRow:
        row = await self._reads.row(tournament_id)
        if row.status is not TournamentStatus.OPEN:
            raise UserError("tournament.not_open")
        return row


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
    "Removal",
    "TournamentOptions",
    "TournamentService",
]
