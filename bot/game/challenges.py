"""Challenges between two members: sending one (within the cooldown and the limits, one pending
per pair), answering it (accepting starts the game), and closing the ones nobody answered. No
Discord code here."""

from __future__ import annotations

import asyncio
import random

from bot.game import ratings
from bot.game.blocks import Blocks
from bot.game.clocks import Clocks
from bot.game.cooldowns import Cooldowns
from bot.game.errors import UserError
from bot.game.games import Limits
from bot.game.model import (
    ActiveGameExists,
    ChallengeFirst,
    ChallengePending,
    ChallengeRow,
    ChallengeStatus,
    GameState,
    Mode,
    NewChallenge,
    NewGame,
    jump_link,
    load_state,
)
from bot.game.options import GameOptions
from bot.game.ports import ChallengeStore, GameStore

CHALLENGE_SECONDS = 5 * 60.0


class ChallengeService:
    def __init__(
        self,
        store: ChallengeStore,
        games: GameStore,
        clocks: Clocks,
        *,
        limits: Limits,
        cooldowns: Cooldowns,
        challenge_seconds: float = CHALLENGE_SECONDS,
        blocks: Blocks,
    ) -> None:
        self._store = store
        self._games = games
        self._clocks = clocks
        self.limits = limits
        self.cooldowns = cooldowns
        self.challenge_seconds = challenge_seconds
        self._blocks = blocks
        # Checking a limit and creating the challenge must not interleave with another challenge
        # in the same server, or two could both pass the check.
        self._guild_locks: dict[int, asyncio.Lock] = {}

    async def challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        opponent_is_bot: bool,
        options: GameOptions,
        locale: str,
    ) -> ChallengeRow:
        """A new pending challenge; UserError if it cannot be made: a block between the two
        (either way round), over a cooldown or a limit, a player busy in this channel, or a
        challenge between the two already waiting in this server (whichever of them sent it, in
        whichever channel: the one waiting is named instead, and nobody is pinged twice)."""
        if opponent_id == challenger_id:
            raise UserError("challenge.self")
        if opponent_is_bot:
            raise UserError("challenge.bot")
        await self._blocks.check_challenge(challenger_id, opponent_id)
        self.cooldowns.challenge.hit(guild_id, challenger_id)
        for user in (challenger_id, opponent_id):
            running = await self._games.active_game(guild_id, channel_id, user)
            if running is not None:
                key = "error.already_playing_nolink" if user == challenger_id else "challenge.busy"
                raise UserError(key, user=f"<@{user}>")
        async with self._guild_locks.setdefault(guild_id, asyncio.Lock()):
            sent, received = await self._store.pending_challenges(
                challenger_id=challenger_id, opponent_id=opponent_id
            )
            if sent >= self.limits.challenges_per_challenger:
                raise UserError(
                    "limit.challenges_sent", count=self.limits.challenges_per_challenger
                )
            if received >= self.limits.challenges_per_challenged:
                raise UserError("limit.challenges_received", user=f"<@{opponent_id}>")
            try:
                created = await self._create_challenge(
                    guild_id, channel_id, challenger_id, opponent_id, options, locale
                )
            except ChallengePending as exc:
                waiting = exc.challenge
                link = (
                    f"<#{waiting.channel_id}>"
                    if waiting.message_id is None
                    else jump_link(waiting.guild_id, waiting.channel_id, waiting.message_id)
                )
                raise UserError("challenge.pending", user=f"<@{opponent_id}>", link=link) from None
            self._clocks.deadlines_changed.set()
            return created

    async def _create_challenge(
        self,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        options: GameOptions,
        locale: str,
    ) -> ChallengeRow:
        now = self._clocks.now()
        return await self._store.create_challenge(
            NewChallenge(
                guild_id=guild_id,
                channel_id=channel_id,
                challenger_id=challenger_id,
                opponent_id=opponent_id,
                rows=options.rows,
                cols=options.cols,
                k=options.k,
                rule=options.rule.value,
                first=ChallengeFirst(options.first),
                locale=locale,
                deadline=now + self.challenge_seconds,
                rated=options.rated,
                opening=options.opening,
            ),
            now=now,
        )

    async def attach_challenge_message(self, challenge_id: int, message_id: int) -> None:
        await self._store.set_challenge_message(challenge_id, message_id)

    async def answer_challenge(
        self, challenge_id: int, user_id: int, *, accept: bool, rng: random.Random
    ) -> tuple[ChallengeRow, GameState | None]:
        """Accept (a new game) or decline a pending challenge; only the challenged may answer."""
        found = await self._store.challenge(challenge_id)
        if found is None:
            raise UserError("click.no_game")
        withdrawing = user_id == found.challenger_id and not accept
        if user_id != found.opponent_id and not withdrawing:
            raise UserError("challenge.not_for_you", user=f"<@{found.opponent_id}>")
        if found.status is not ChallengeStatus.PENDING or found.deadline <= self._clocks.now():
            raise UserError("challenge.closed")
        if not accept:
            if not await self._store.close_challenge(challenge_id, ChallengeStatus.DECLINED):
                raise UserError("challenge.closed")
            return await self._challenge_row(challenge_id), None
        challenger_first = found.first is ChallengeFirst.ME or (
            found.first is ChallengeFirst.RANDOM and rng.random() < 0.5
        )
        x, o = (
            (found.challenger_id, found.opponent_id)
            if challenger_first
            else (found.opponent_id, found.challenger_id)
        )
        new = NewGame(
            guild_id=found.guild_id,
            channel_id=found.channel_id,
            mode=Mode.PVP,
            x=x,
            o=o,
            started_by=found.challenger_id,
            rows=found.rows,
            cols=found.cols,
            k=found.k,
            rule=found.rule,
            rated=found.rated and ratings.rated(Mode.PVP, found.rows, found.cols, found.k),
            locale=found.locale,
            # The challenge message becomes the board: the game is never seen without a message
            # (an unposted game would be abandoned by a /caro start racing this accept).
            message_id=found.message_id,
            # X goes first: the opening's first player, as `first` chose.
            opening=found.opening,
        )
        try:
            row = await self._store.accept_challenge(challenge_id, await self._clocks.with_clock(new))
        except ActiveGameExists:
            raise UserError("challenge.someone_busy") from None
        if row is None:
            raise UserError("challenge.closed")
        return await self._challenge_row(challenge_id), load_state(row)

    async def find_challenge(self, challenge_id: int) -> ChallengeRow | None:
        return await self._store.challenge(challenge_id)

    async def expire_challenges(
        self, *, shard_id: int = 0, shard_count: int = 1
    ) -> list[ChallengeRow]:
        """Close the shard's challenges nobody answered in time; the ones this call closed."""
        closed: list[ChallengeRow] = []
        due = await self._store.due_challenges(
            self._clocks.now(), shard_id=shard_id, shard_count=shard_count
        )
        for found in due:
            if await self._store.close_challenge(found.id, ChallengeStatus.EXPIRED):
                closed.append(await self._challenge_row(found.id))
        return closed

    async def _challenge_row(self, challenge_id: int) -> ChallengeRow:
        found = await self._store.challenge(challenge_id)
        assert found is not None
        return found


__all__ = ["CHALLENGE_SECONDS", "ChallengeService"]
