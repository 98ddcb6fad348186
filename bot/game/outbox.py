"""The outbox's service: what the sender asks of it (the rows due for this process's shards, a
claim on one, sent, try again later, given up) and when it tries again. No Discord here: the
sender (bot.cogs.outbox) renders and sends, and says whether a failure may pass."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace

from bot.game.outbox_model import Heard, NewPost, PostKind, PostRow, new_nonce
from bot.game.ports import OutboxStore

# How long a sender holds a row it is sending: longer than discord.py's own retries of one call
# (five tries, 25 s of waits), so a slow send is not taken up by a second sender meanwhile.
CLAIM_SECONDS = 60.0
# How long a change's writer holds a row it sends itself (NewPost.claimed_until), and the longest
# it tries: if it has not sent the row by then (it stopped, or Discord is slow), the process
# holding the row's server takes it.
HELD_SECONDS = 15.0
HELD_SEND_SECONDS = 10.0
# The waits between tries of one row: doubling from the first, up to the last.
FIRST_RETRY_SECONDS = 1.0
LAST_RETRY_SECONDS = 300.0
# How long rows are kept once done: a sent row a day (enough to read what was sent in an
# incident), a row given up a week (for the operator to see why).
KEEP_SENT_SECONDS = 24 * 3600.0
KEEP_FAILED_SECONDS = 7 * 24 * 3600.0


def retry_delay(attempts: int) -> float:
    """The wait before the next try of a row that has failed `attempts` times (1 or more)."""
    return min(LAST_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2.0 ** max(0, attempts - 1))


class OutboxService:
    def __init__(self, store: OutboxStore, *, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock
        # Set when a change wrote a row, so the sender wakes without waiting for its next look.
        self.changed = asyncio.Event()
        # Whether the sender hears the rows every process writes (a listener is connected).
        self._hearing = False
        # The posts this process sent or gave up lately, by kind and tournament, and who waits
        # for one: a tournament's boards wait for its "has begun" post.
        self._settled: deque[tuple[PostKind, object]] = deque(maxlen=256)
        self._waiting: dict[tuple[PostKind, object], list[asyncio.Event]] = {}

    def now(self) -> float:
        return self._clock()

    def post(
        self, guild_id: int, channel_id: int, kind: PostKind, **payload: int | float | str | None
    ) -> NewPost:
        """A new row decided now (written by the caller, with the change that calls for it)."""
        return NewPost(guild_id, channel_id, kind, payload, self.now())

    def held(self, post: NewPost) -> NewPost:
        """`post` to be written held by its writer, which sends it itself right after the
        change (see NewPost.claimed_until)."""
        return replace(post, nonce=new_nonce(), claimed_until=self.now() + HELD_SECONDS)

    def quiet(self, post: NewPost) -> NewPost:
        """`post` written with a hold already run out: no process is told of it when it is
        written, and the sender of the process holding its server takes it at its next look
        (within LOOK_EVERY_S, bot.cogs.outbox). For a row that need not be quick, where the
        notification would cost the change one more trip to the database."""
        return replace(post, claimed_until=self.now())

    async def sent_itself(self, post: NewPost, message_id: int | None) -> bool:
        """A held row sent by its writer; False if it was marked already."""
        if post.nonce is None:
            raise ValueError("a row not held by its writer has no nonce to mark it by")
        return await self._store.post_sent_by_nonce(
            post.nonce, now=self.now(), message_id=message_id)

    async def hand_back(self, post: NewPost) -> None:
        """A held row its writer will not send: the sender of the process holding its server
        takes it now (told through the signal of rows written, or woken here)."""
        if post.nonce is None:
            raise ValueError("a row not held by its writer has no nonce to hand back")
        if await self._store.hand_back_post(post.nonce):
            self.written()

    def wake(self) -> None:
        self.changed.set()

    def written(self) -> None:
        """Rows were written with a change: wake the sender, unless it hears every write (the
        signal carries the rows to the process holding their server; a wake would only make
        this one's pass read its shards' rows again)."""
        if not self._hearing:
            self.wake()

    async def listen(self, heard: Callable[[Heard], None]) -> None:
        """Call `heard` whenever any process writes rows, until cancelled (at once on a
        database with no such signal)."""

        def hear(signal: Heard) -> None:
            self._hearing = True
            heard(signal)

        try:
            await self._store.listen_posts(hear)
        finally:
            self._hearing = False

    async def add(self, posts: list[NewPost]) -> None:
        await self._store.add_posts(posts)
        self.wake()

    async def due(self, *, shard_id: int, shard_count: int) -> list[PostRow]:
        return await self._store.due_posts(
            now=self.now(), shard_id=shard_id, shard_count=shard_count
        )

    async def next_due(self, *, shard_id: int, shard_count: int) -> float | None:
        return await self._store.next_post_due(shard_id=shard_id, shard_count=shard_count)

    async def take_over(self, *, shard_id: int, shard_count: int) -> int:
        """Release the shard's claimed rows: this process now holds the shard, so whoever
        claimed them stopped (a double send is harmless: each row's nonce)."""
        return await self._store.release_posts(shard_id=shard_id, shard_count=shard_count)

    async def claim(self, row: PostRow) -> bool:
        now = self.now()
        return await self._store.claim_post(row.id, now=now, until=now + CLAIM_SECONDS)

    async def sent(self, row: PostRow, message_id: int | None) -> bool:
        done = await self._store.post_sent(row.id, now=self.now(), message_id=message_id)
        self._settle(row)
        return done

    async def retry(self, row: PostRow, error: str) -> float:
        """Count a failed try; the wait before the next."""
        delay = retry_delay(row.attempts + 1)
        await self._store.post_retry(row.id, error=error[:500], retry_at=self.now() + delay)
        return delay

    async def failed(self, row: PostRow, error: str) -> None:
        await self._store.post_failed(row.id, now=self.now(), error=error[:500])
        self._settle(row)

    def _settle(self, row: PostRow) -> None:
        key = (row.kind, row.payload.get("tournament"))
        self._settled.append(key)
        for event in self._waiting.pop(key, []):
            event.set()

    async def settled(self, kind: PostKind, tournament: int, timeout: float) -> bool:
        """Wait until this process has sent (or given up) a post of `kind` for `tournament`, at
        most `timeout` seconds; whether it did. Only "when possible": a post another process
        sends, or one Discord is slow to take, is not waited for longer."""
        key = (kind, tournament)
        if key in self._settled:
            return True
        event = asyncio.Event()
        self._waiting.setdefault(key, []).append(event)
        try:
            async with asyncio.timeout(timeout):
                await event.wait()
            return True
        except TimeoutError:
            return False
        finally:
            waiters = self._waiting.get(key, [])
            if event in waiters:
                waiters.remove(event)
            if not waiters:
                self._waiting.pop(key, None)

    async def prune(self) -> int:
        now = self.now()
        return await self._store.prune_posts(
            sent_before=now - KEEP_SENT_SECONDS, failed_before=now - KEEP_FAILED_SECONDS
        )

    async def row(self, post_id: int) -> PostRow | None:
        return await self._store.post(post_id)


__all__ = [
    "CLAIM_SECONDS",
    "HELD_SECONDS",
    "HELD_SEND_SECONDS",
    "KEEP_FAILED_SECONDS",
    "KEEP_SENT_SECONDS",
    "OutboxService",
    "retry_delay",
]
