"""The games: starting them (within the cooldowns and the limits), reading them, and ending them.
No Discord code here.

The moves of a running game, the AI's turns and the opening's steps are bot.game.moves'. Changes
to one game are serialised with the game's lock (bot.game.cache) whichever of the two makes them.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.game import ratings
from bot.game.cache import GameCache
from bot.game.clocks import Clocks
from bot.game.cooldowns import Cooldowns
from bot.game.errors import UserError
from bot.game.levels import ExternalLevel
from bot.game.mirrors import Mirrors
from bot.game.model import (
    AiLevel,
    EndReason,
    Finish,
    GameRow,
    GameState,
    Mode,
    NewGame,
    RatingChange,
    Seat,
    load_state,
    parse_ai_level,
)
from bot.game.options import (
    ADAPTIVE,
    GameOptions,
)
from bot.game.outbox_model import NewPost
from bot.game.ports import GameStore, LiveCounts, RatePolicy, StandingStore
from bot.i18n.texts import TextId
from engine import Board, Mark, Rule
from engine.game.openings import Opening
from engine.game.types import Level
from engine.players.external import supports


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps on what one member (or one server) may keep running, so one member cannot take the
    AI's capacity or flood another member with challenges. A member has at most one game per
    channel and a channel at most one watch anyway; these bound the rest."""

    ai_games_per_member: int = 3  # running games against the AI, per member in one server
    ai_games_per_server: int = 40  # running games against the AI in one server
    watches_per_server: int = 4  # running AI-vs-AI games in one server
    challenges_per_challenger: int = 3  # pending challenges one member has sent
    challenges_per_challenged: int = 5  # pending challenges waiting for one member's answer


DEFAULT_LIMITS = Limits()


def _ai_level(name: str, options: GameOptions, external: ExternalLevel) -> AiLevel:
    """The AI of a chosen level for a game with `options`; UserError for the external engine
    once it is no longer set up (a rematch, or a command sent before the operator removed it),
    or on a board or under a rule it does not play (it would never make a move of its own)."""
    level = parse_ai_level(name)
    if isinstance(level, Level):
        return level
    engine = external.engine
    if engine is None:
        raise UserError("error.external_gone")
    if not supports(Board(options.rows, options.cols, options.k, options.rule)):
        raise UserError("error.external_board", name=engine.name)
    if not external.plays(options.rule):
        raise UserError(
            "error.external_rule",
            name=engine.name,
            rule=TextId(f"rulename.{options.rule.value}"),
            rules=", ".join(rule.value for rule in Rule if rule in engine.rules),
        )
    return level


class GameService:
    """The games' lifecycle: starting them (within the cooldowns and the limits), reading them,
    ending them (resigned, stopped, forfeited, abandoned) and their rematches. Changes to one game
    are serialised by its lock in the cache."""

    def __init__(
        self,
        store: GameStore,
        clocks: Clocks,
        cache: GameCache,
        standings: StandingStore,
        *,
        limits: Limits = DEFAULT_LIMITS,
        cooldowns: Cooldowns,
        external: ExternalLevel,
        rate: RatePolicy,
        mirrors: Mirrors | None = None,
    ) -> None:
        self._store = store
        # The other servers' boards of a game between two, redrawn through rows written with
        # the resignation.
        self._mirrors = mirrors
        # The operator's external engine: which games may seat it.
        self.external = external
        # The rating policy of a finished game (the external engine's anchor bound in).
        self._rate = rate
        self._clocks = clocks
        self._cache = cache
        self._standings = standings
        self.limits = limits
        # Taken in the actions below (start, start_watch; the challenges take theirs) rather
        # than by the commands, so that a button or a Rematch reaching an action meets the same
        # rate as its command.
        self.cooldowns = cooldowns

    # ----------------------------------------------------------------- starting games
    async def start(
        self,
        *,
        guild_id: int,
        channel_id: int,
        player_id: int,
        options: GameOptions,
        rng: random.Random,
        locale: str = "en-US",
    ) -> GameState:
        """A new game against the AI; ActiveGameExists if the member has one in this channel,
        UserError if a limit on running AI games is reached."""
        level: AiLevel
        if options.level == ADAPTIVE:
            standing = await self._standings.standing(guild_id, player_id, Mode.AI)
            level = ratings.nearest_level(standing.rating)
        else:
            level = _ai_level(options.level, options, self.external)
        self.cooldowns.start.hit(guild_id, player_id)
        player_first = options.first == "me" or (options.first == "random" and rng.random() < 0.5)
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            mode=Mode.AI,
            x=player_id if player_first else level,
            o=level if player_first else player_id,
            started_by=player_id,
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            rated=options.rated and ratings.rated(Mode.AI, options.rows, options.cols, options.k),
            locale=locale,
            # The member is the opening's first player when they play X first.
            opening=options.opening,
        )

        def admit(counts: LiveCounts) -> None:
            if counts.member_ai_games >= self.limits.ai_games_per_member:
                raise UserError("limit.member_ai_games", count=self.limits.ai_games_per_member)
            if counts.guild_ai_games >= self.limits.ai_games_per_server:
                raise UserError("limit.server_ai_games", count=self.limits.ai_games_per_server)

        # The member's own running game in this channel is reported as ActiveGameExists (with
        # its link) before any limit: the store checks it first. The store also keeps another
        # start in the server from passing the same checks meanwhile.
        return await self._create(new, admit)

    async def start_watch(
        self,
        *,
        guild_id: int,
        channel_id: int,
        starter_id: int,
        x_level: str,
        o_level: str,
        options: GameOptions,
        locale: str = "en-US",
    ) -> GameState:
        """A new AI-vs-AI game that `starter_id` watches; ActiveGameExists if the channel has one
        running, UserError if the server's limit on watches is reached."""
        x = _ai_level(x_level, options, self.external)
        o = _ai_level(o_level, options, self.external)
        self.cooldowns.watch.hit(guild_id, starter_id)
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            mode=Mode.WATCH,
            x=x,
            o=o,
            started_by=starter_id,
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            rated=False,
            locale=locale,
        )

        def admit(counts: LiveCounts) -> None:
            if counts.guild_watches >= self.limits.watches_per_server:
                raise UserError("limit.server_watches", count=self.limits.watches_per_server)

        # The channel's running watch is reported before the limit: the store checks it first.
        return await self._create(new, admit)

    async def start_tournament_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        x: Seat,
        o: Seat,
        organiser: int,
        options: GameOptions,
        turn_seconds: float,
        tournament_id: int,
        locale: str,
    ) -> GameState:
        """A tournament's game between two entries (members or AI levels); ActiveGameExists if a
        member has another running game in the channel. No cooldown or limit applies: the
        tournament started it, not a member. Two AIs play a free opening (an AI-vs-AI game has
        no one to take an opening's steps through the board)."""
        members = sum(1 for seat in (x, o) if isinstance(seat, int))
        mode = (Mode.WATCH, Mode.AI, Mode.PVP)[members]
        new = NewGame(
            guild_id=guild_id,
            channel_id=channel_id,
            mode=mode,
            x=x,
            o=o,
            started_by=next((s for s in (x, o) if isinstance(s, int)), organiser),
            rows=options.rows,
            cols=options.cols,
            k=options.k,
            rule=options.rule.value,
            rated=(
                options.rated
                and mode is not Mode.WATCH
                and ratings.rated(mode, options.rows, options.cols, options.k)
            ),
            locale=locale,
            opening=options.opening if mode is not Mode.WATCH else Opening.FREE,
            tournament_id=tournament_id,
            turn_seconds=turn_seconds,
        )
        return await self._create(new)

    async def forfeit(self, game_id: int, loser: Mark) -> GameState | None:
        """End a running game as lost by `loser` (a player removed from a tournament); None if
        it was not running."""
        async with self._cache.lock(game_id):
            state = await self.state(game_id)
            if state is None or not state.active:
                return None
            finish = Finish(winner=loser.other, reason=EndReason.RESIGN)
            finished = await self._store.finish_game(
                game_id, finish, rate=self._rate, ply=state.board.ply,
                decisions=state.row.decisions,
            )
            return None if finished is None else self._cache.finished(finished)

    async def _create(
        self, new: NewGame, admit: Callable[[LiveCounts], None] | None = None
    ) -> GameState:
        """Create `new` with its first clock; with `admit`, after the store's checks (see
        GameStore.create_game_within)."""
        timed = await self._clocks.with_clock(new)
        row = (await self._store.create_game(timed) if admit is None
               else await self._store.create_game_within(timed, admit))
        state = load_state(row)
        self._cache.remember(state)
        return state

    async def active_game(self, guild_id: int, channel_id: int, player_id: int) -> GameRow | None:
        return await self._store.active_game(guild_id, channel_id, player_id)

    async def last_game(self, guild_id: int, channel_id: int, user_id: int) -> GameRow | None:
        """The member's most recent game in a channel in which they played, running or not."""
        return await self._store.last_game(guild_id, channel_id, user_id)

    async def attach_message(self, game_id: int, message_id: int) -> None:
        try:
            await self._store.set_message(game_id, message_id)
        except BaseException:
            self._cache.drop(game_id)
            raise
        self._cache.attached(game_id, message_id)

    async def abandon(self, game_id: int) -> None:
        self._cache.drop(game_id)
        await self._store.abandon_game(game_id)

    async def state(self, game_id: int, *, keep: bool = False) -> GameState | None:
        """The game as stored. With `keep` (its board was just posted by this process, whose
        members click there next) it is kept as the newest known here, and so is where its
        boards are: the first click then reads neither."""
        state = await self._cache.read(self._store, game_id, keep=keep)
        if keep and state is not None and self._mirrors is not None:
            await self._mirrors.learn(state)
        return state

    async def running_game_of(self, game_id: int, user_id: int) -> tuple[GameState, Mark]:
        """The running game `game_id` and the mark `user_id` plays in it; UserError if it is
        gone, not theirs or over."""
        return running(await self.state(game_id), user_id)

    # ----------------------------------------------------------------- ending games
    async def resign(
        self,
        game_id: int,
        user_id: int,
        *,
        expected_ply: int | None = None,
        posts: Callable[[GameState], Awaitable[list[NewPost]]] | None = None,
    ) -> GameState:
        """`user_id` gives the game up; the other side wins. The outbox rows `posts` gives for
        the game are written with the resignation; by default, in a game between two servers,
        the redraws of its boards in the others (the caller draws the game's own board)."""
        async with self._cache.lock(game_id):
            state, mark = await self.running_game_of(game_id, user_id)
            ply = state.board.ply if expected_ply is None else expected_ply
            finish = Finish(winner=mark.other, reason=EndReason.RESIGN)
            now = self._clocks.now()
            written = await posts(state) if posts is not None else await self._other_boards(state)
            finished = await self._store.finish_game(
                game_id, finish, rate=self._rate, ply=ply, not_due_at=now,
                decisions=state.row.decisions, posts=written,
            )
            if finished is None:
                if state.row.deadline is not None and state.row.deadline <= now:
                    # The member to move already lost on time: that result stands, and the
                    # deadline watcher is woken to write and draw it.
                    self._clocks.deadlines_changed.set()
                    raise UserError("click.finished")
                raise UserError("click.stale")
            if self._mirrors is not None:
                self._mirrors.written(written)
            return self._cache.finished(finished)

    async def _other_boards(self, state: GameState) -> list[NewPost]:
        """The outbox rows that redraw a game's boards in servers other than its own (a game
        between two servers; none for any other)."""
        return [] if self._mirrors is None else await self._mirrors.posts(state, state.row.guild_id)

    async def stop_watch(self, game_id: int, user_id: int, *, may_manage: bool) -> GameState:
        """End a running AI-vs-AI game as abandoned (nobody is rated). Only its starter, or a
        member who may manage the channel's messages, may stop it."""
        async with self._cache.lock(game_id):
            state = await self.state(game_id)
            if state is None:
                raise UserError("click.no_game")
            if state.mode is not Mode.WATCH:
                raise UserError("watch.not_watch")
            if state.row.tournament_id is not None:
                raise UserError("tournament.no_stop")
            if user_id != state.starter_id and not may_manage:
                raise UserError("watch.stop_denied", user=f"<@{state.starter_id}>")
            if not state.active:
                raise UserError("click.finished")
            if not await self._store.abandon_game(game_id):
                raise UserError("click.finished")
            return await self._reload(game_id)

    async def rematch_options(self, game_id: int, user_id: int) -> tuple[GameState, GameOptions]:
        """The finished game `user_id` played in, and the options of its rematch: same board,
        colours swapped."""
        state = await self.state(game_id)
        if state is None:
            raise UserError("click.no_game")
        mark = state.mark_of(user_id)
        if mark is None:
            raise UserError("click.not_your_game")
        if state.active:
            raise UserError("rematch.still_running")
        if state.row.tournament_id is not None:
            # The tournament pairs its own games; a rematch would be a game outside it.
            raise UserError("rematch.tournament")
        if state.mode is Mode.PVP:
            first = "them" if mark is Mark.X else "me"
        else:
            first = "ai" if mark is Mark.X else "me"
        level = state.ai_level
        options = GameOptions(
            level=(level or Level.NORMAL).value,
            rows=state.row.rows,
            cols=state.row.cols,
            k=state.row.k,
            rule=Rule.parse(state.row.rule),
            first=first,
            # A casual game's rematch is casual too.
            rated=state.row.rated
            or not ratings.rated(state.mode, state.row.rows, state.row.cols, state.row.k),
            opening=state.row.opening,
        )
        return state, options

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        known = self._cache.changes(game_id)
        if known is not None:
            return list(known)
        return await self._standings.rating_changes(game_id)

    async def _reload(self, game_id: int) -> GameState:
        state = await self.state(game_id)
        assert state is not None  # games are never deleted
        if not state.active:
            self._cache.forget(game_id)
        return state


def running(state: GameState | None, user_id: int) -> tuple[GameState, Mark]:
    """The running game `state` and the mark `user_id` plays in it; UserError if it is gone, not
    theirs or over."""
    if state is None:
        raise UserError("click.no_game")
    mark = state.mark_of(user_id)
    if mark is None:
        raise UserError("click.not_your_game")
    if not state.active:
        raise UserError("click.finished")
    return state, mark


__all__ = [
    "DEFAULT_LIMITS",
    "GameService",
    "Limits",
    "running",
]
