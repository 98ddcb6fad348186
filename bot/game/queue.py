"""The queue for an opponent (`/caro queue`): joining with the member's rating, leaving, and
pairing the waiting entries (bot.game.queue_model's rules, applied by the store in one
transaction that also writes each pair's game). No Discord code here.

A member is paired with members of any server unless they asked for their own server only, or
their server turned pairing across servers off (`GuildSettings.cross_server`): such an entry is
`local`. Each process pairs the entries of its shards' servers together with every entry open to
any server (one transaction at a time, from any process); the game is made in the channel of the
one who waited longer, and a pair from two servers also gets a board in the other's channel
(bot.game.queue_model.GameBoard).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence

from bot.game import ratings
from bot.game.clocks import Clock
from bot.game.cooldowns import Cooldowns
from bot.game.errors import UserError
from bot.game.model import GameState, Mode, NewGame, load_state
from bot.game.ports import GLOBAL_SCOPE, GameStore, QueueStore, StandingStore
from bot.game.queue_model import (
    RECENT_SECONDS,
    AlreadyQueued,
    GameBoard,
    NewQueueEntry,
    PairPolicy,
    Pairs,
    QueuedGameRunning,
    QueueEntry,
    QueueKey,
    QueuePairing,
    choose_pairs,
)
from bot.game.settings import ServerSettings


def queued_game(first: QueueEntry, second: QueueEntry, *, now: float) -> NewGame:
    """The game of a pair: in the channel of `first` (who waited longer), colours drawn by lot
    (seeded by the two entries, so the same pair always draws the same way), rated as the
    entries asked when the board allows it, on the queue's turn clock."""
    key = first.key
    first_plays_x = random.Random(f"{first.id}:{second.id}").random() < 0.5
    x, o = (first, second) if first_plays_x else (second, first)
    return NewGame(
        guild_id=first.guild_id,
        channel_id=first.channel_id,
        mode=Mode.PVP,
        x=x.user_id,
        o=o.user_id,
        started_by=first.user_id,
        rows=key.rows,
        cols=key.cols,
        k=key.k,
        rule=key.rule,
        rated=key.rated and ratings.rated(Mode.PVP, key.rows, key.cols, key.k),
        deadline=now + key.turn_seconds,
        locale=first.locale,
        turn_seconds=key.turn_seconds,
    )


class QueueService:
    def __init__(
        self,
        store: QueueStore,
        games: GameStore,
        standings: StandingStore,
        settings: ServerSettings,
        *,
        clock: Clock,
        cooldowns: Cooldowns,
    ) -> None:
        self._store = store
        self._games = games
        self._standings = standings
        self._settings = settings
        self._clock = clock
        self._cooldowns = cooldowns

    async def key(self, guild_id: int, rows: int, cols: int, k: int, rule: str,
                  rated: bool) -> QueueKey:
        """The game asked for, on the server's turn clock for games between members."""
        timeouts = await self._settings.timeouts(guild_id)
        return QueueKey(rows=rows, cols=cols, k=k, rule=rule, rated=rated,
                        turn_seconds=timeouts.pvp_timeout)

    async def join(
        self,
        *,
        guild_id: int,
        channel_id: int,
        user_id: int,
        key: QueueKey,
        locale: str,
        local: bool = False,
        display_name: str = "",
    ) -> QueueEntry:
        """A waiting entry for the member, at their global rating against people; UserError if
        they wait already, play a game the queue gave them, play in this channel, or joined
        too often of late (a join and Leave loop). `local`: paired within this server only (so
        is every entry of a server that turned pairing across servers off). `display_name`:
        what a board in another server calls them."""
        if await self._games.active_game(guild_id, channel_id, user_id) is not None:
            raise UserError("error.already_playing_nolink")
        await self._check_rate(user_id)
        if not local:
            local = not (await self._settings.timeouts(guild_id)).cross_server
        standing = await self._standings.standing(GLOBAL_SCOPE, user_id, Mode.PVP)
        try:
            return await self._store.join_queue(
                NewQueueEntry(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    user_id=user_id,
                    key=key,
                    rating=standing.rating,
                    local=local,
                    locale=locale,
                    joined_at=self._clock(),
                    display_name=display_name,
                )
            )
        except AlreadyQueued:
            raise UserError("queue.already") from None
        except QueuedGameRunning:
            raise UserError("queue.playing") from None

    async def _check_rate(self, user_id: int) -> None:
        """UserError ("try again in N s") if the member joined the queue as often as the
        queue's cooldown allows within its window. Counted from the stored entries, so joins
        from any server, held by any process, count together."""
        cooldown = self._cooldowns.queue
        now = self._clock()
        joins = await self._store.joins_since(user_id, now - cooldown.per)
        if len(joins) >= cooldown.rate:
            left = cooldown.per - (now - min(joins))
            raise UserError("error.cooldown", seconds=f"{max(1, round(left))}")

    async def posted(self, entry_id: int, message_id: int) -> None:
        """The entry's message is posted: from now on it may be paired."""
        await self._store.set_queue_message(entry_id, message_id)

    async def keep_local(self, guild_id: int) -> int:
        """The server turned pairing across servers off: its waiting entries are paired within
        it only from now on; how many were open to any server."""
        return await self._store.keep_queue_local(guild_id)

    async def boards(self, game_id: int) -> list[GameBoard]:
        """The game's boards in servers other than its own."""
        return await self._store.game_boards(game_id)

    async def panned(self, game_id: int, guild_id: int) -> None:
        """The member of `guild_id` moved the pan window of their board of the game: from now
        on the process holding that server draws it (it remembers the window)."""
        await self._store.mark_panned(game_id, guild_id)

    async def boards_panned(self, game_id: int) -> tuple[list[GameBoard], frozenset[int]]:
        """The game's boards in servers other than its own, and the servers whose board of the
        game its member panned, in one trip to the database."""
        return await self._store.boards_panned(game_id)

    async def listen(self, wake: Callable[[], None]) -> None:
        """Call `wake` whenever any process pairs two members of different servers, until
        cancelled (at once on a database with no such signal)."""
        await self._store.listen_pairings(wake)

    async def unposted_boards(self, *, shard_id: int = 0, shard_count: int = 1
                              ) -> list[GameBoard]:
        """The second boards of running queued games in the shard's servers, still to post."""
        return await self._store.unposted_boards(shard_id=shard_id, shard_count=shard_count)

    async def board_game(self, guild_id: int, channel_id: int, user_id: int, *,
                         running: bool = True) -> int | None:
        """The running game the member plays from their board in this channel of another
        server than the game's (a queued game between two servers); None if none. `running`
        False: their newest such game, over or not."""
        return await self._store.board_game(guild_id, channel_id, user_id, running=running)

    async def cross_seats(self, *, shard_id: int = 0, shard_count: int = 1
                          ) -> list[QueueEntry]:
        """The queue entries of the shard's servers whose games run between two servers: the
        members who must still be in their server (and it still have the bot) for it to go on."""
        return await self._store.cross_seats(shard_id=shard_id, shard_count=shard_count)

    async def board_posted(self, board: GameBoard, message_id: int) -> None:
        await self._store.attach_board(board.game_id, board.guild_id, message_id)

    async def entry(self, entry_id: int) -> QueueEntry | None:
        return await self._store.queue_entry(entry_id)

    async def leave(self, user_id: int) -> QueueEntry:
        """Take the member's waiting entry out; UserError if none waits (never joined, left
        already, or paired meanwhile)."""
        left = await self._store.leave_queue(user_id, now=self._clock())
        if left is None:
            raise UserError("queue.not_waiting")
        return left

    async def gone(self, user_id: int) -> QueueEntry | None:
        """Take out the waiting entry of a member who left its server; None if none waits."""
        return await self._store.leave_queue(user_id, now=self._clock())

    async def leave_guild(self, guild_id: int) -> list[QueueEntry]:
        """Take out every entry waiting in a server the bot was removed from."""
        return await self._store.leave_guild_queue(guild_id, now=self._clock())

    async def waiting(self, key: QueueKey) -> int:
        """How many wait for the game `key`."""
        return await self._store.count_waiting(key)

    async def candidates(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[tuple[QueueEntry, QueueEntry]]:
        """The pairs a pairing of the shard's servers would make now, nothing written: whose
        members to check are still in their servers before pairing them."""
        found: list[tuple[QueueEntry, QueueEntry]] = []

        def look(entries: Sequence[QueueEntry], *, now: float, blocked: Pairs,
                 recent: Pairs) -> list[tuple[QueueEntry, QueueEntry]]:
            found.extend(choose_pairs(entries, now=now, blocked=blocked, recent=recent))
            return []

        await self._pair(look, shard_id=shard_id, shard_count=shard_count)
        return found

    async def pair(
        self, *, shard_id: int = 0, shard_count: int = 1, only: Collection[int] | None = None
    ) -> list[QueuePairing]:
        """Pair whoever of the shard's servers can be paired now, each pair with its game; the
        pairs made by this call. `only`: the entries (by id) that may be paired, the others
        wait as if they were not in the queue."""

        def choose(entries: Sequence[QueueEntry], *, now: float, blocked: Pairs,
                   recent: Pairs) -> list[tuple[QueueEntry, QueueEntry]]:
            if only is not None:
                entries = [entry for entry in entries if entry.id in only]
            return choose_pairs(entries, now=now, blocked=blocked, recent=recent)

        return await self._pair(choose, shard_id=shard_id, shard_count=shard_count)

    async def _pair(self, choose: PairPolicy, *, shard_id: int,
                    shard_count: int) -> list[QueuePairing]:
        now = self._clock()

        def make_game(first: QueueEntry, second: QueueEntry) -> NewGame:
            return queued_game(first, second, now=now)

        return await self._store.pair_queue(
            now=now, recent_since=now - RECENT_SECONDS, choose=choose,
            make_game=make_game, shard_id=shard_id, shard_count=shard_count,
        )

    async def waiting_counts(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[tuple[QueueEntry, int]]:
        """The posted entries waiting in the shard's servers, each with how many wait for its
        game (in every server, as `waiting` counts): what their messages should say."""
        entries = await self._store.waiting_entries(shard_id=shard_id, shard_count=shard_count)
        counts: dict[QueueKey, int] = {}
        for entry in entries:
            if entry.key not in counts:
                counts[entry.key] = await self._store.count_waiting(entry.key)
        return [(entry, counts[entry.key]) for entry in entries]

    async def unposted(self, *, shard_id: int = 0, shard_count: int = 1) -> list[GameState]:
        """The shard's queued games still to post (new, or left unposted by a stop)."""
        found = []
        for game_id in await self._store.unposted_queue_games(
            shard_id=shard_id, shard_count=shard_count
        ):
            row = await self._games.game(game_id)
            if row is not None:
                found.append(load_state(row))
        return found

    async def entries_of(self, game_id: int) -> list[QueueEntry]:
        """The two entries of a queued game, the one that waited longer first."""
        return await self._store.game_entries(game_id)


__all__ = ["QueueService", "queued_game"]
