"""bench.load's players: they pace their starts within the bot's own start cooldown, take turns at
a seat, and every refusal the bot answers is put down to its reason."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from bench.load import (
    Pacer,
    Player,
    Seat,
    play,
    reason_of,
    refusal_reason,
    refusal_table,
    seats_of,
)
from bot.game.cooldowns import Cooldown, Cooldowns
from bot.game.errors import UserError
from bot.i18n.texts import t


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def member_uses(pacer: Pacer | None, seed: int, uses: int = 200) -> tuple[int, float]:
    """One member starting game after game against the bot's start cooldown on a clock of its
    own: each start reaches the bot a random moment after it is sent and is answered a random
    moment after that, and the next is sent as soon as the game is over (a random, often short,
    game) and, with a pacer, once it allows. (refusals, seconds it took)."""
    rng = random.Random(seed)
    clock = Clock()
    bot = Cooldowns(clock).start
    refused = 0
    began = clock.now
    for _ in range(uses):
        if pacer is not None:
            clock.now = max(clock.now, pacer.ready_at())
        clock.now += rng.uniform(0, 0.5)  # the start on its way to the bot
        try:
            bot.hit(1, 7)
        except UserError as exc:
            assert exc.key == "error.cooldown"
            refused += 1
        clock.now += rng.uniform(0, 0.5)  # the answer on its way back
        if pacer is not None:
            pacer.answered(clock.now)
        clock.now += rng.choice([0.0, rng.uniform(0, 3), rng.uniform(0, 10)])  # the game
    return refused, clock.now - began


@pytest.mark.parametrize("seed", range(20))
def test_a_paced_member_never_starts_into_the_cooldown(seed: int) -> None:
    refused, took = member_uses(Pacer(Cooldowns().start), seed)
    assert refused == 0
    # And the pacing is not much slower than the cooldown: 200 starts at 5 per 30 s are 1,200 s,
    # plus what each start and game took.
    assert took < 1_200 + 200 * 5


def test_a_member_starting_as_soon_as_a_game_ends_meets_the_cooldown() -> None:
    # What the pacer prevents: the same member and games without it.
    refused, _ = member_uses(None, seed=1)
    assert refused > 0


def test_the_players_pace_by_the_bots_own_start_cooldown() -> None:
    bots = Cooldowns().start
    pacer = Player(member=None, level="easy").starts
    assert (pacer.rate, pacer.per) == (bots.rate, bots.per)


def test_a_pacer_lets_rate_uses_through_then_waits_from_the_first_answer() -> None:
    pacer = Pacer(Cooldown(3, 10.0))
    for at in (1.0, 2.0, 4.0):
        assert pacer.ready(at)
        pacer.answered(at + 0.5)
    assert not pacer.ready(5.0) and not pacer.ready(11.4)
    assert pacer.ready_at() == 11.5 and pacer.ready(11.5)
    pacer.answered(12.0)
    assert pacer.ready_at() == 12.5  # the second answer, 10 s later


def test_a_seat_passes_its_next_game_to_a_member_whose_cooldown_allows_it() -> None:
    first, second, third = (Player(member=name, level="easy", starts=Pacer(Cooldown(1, 10.0)))
                            for name in "abc")
    seat = Seat([first, second, third])
    assert seat.player is first
    first.starts.answered(0.0)
    second.starts.answered(1.0)
    assert seat.next_ready(2.0) is third and seat.player is third
    third.starts.answered(2.0)
    assert seat.next_ready(5.0) is None
    assert seat.next_ready(10.5) is first  # the first one's cooldown is over first


def test_seats_keep_each_seats_members_together() -> None:
    seats = seats_of([f"m{i}" for i in range(7)], ["hard", "easy"], per_seat=3)
    assert [[p.member for p in s.members] for s in seats] == [["m0", "m2", "m4"],
                                                               ["m1", "m3", "m5"]]
    assert [{p.level for p in s.members} for s in seats] == [{"hard"}, {"easy"}]


@dataclass
class FakeMessage:
    """A board the pacer can read: its headline (content) and its cell buttons."""

    content: str = "Your turn (X)."
    edits: int = 0
    payload: dict[str, Any] = field(default_factory=dict)
    buttons: list[dict[str, Any]] = field(
        default_factory=lambda: [{"custom_id": f"caro:m:1:0:{c}"} for c in ("A1", "B1")])


@dataclass
class FakeResult:
    content: str | None = None
    message: Any = None
    callback_type: int = 4
    ephemeral: bool = False


@dataclass
class FakeBot:
    """A bot that takes a member's start within a cooldown of its own (short, to run in a test)
    and ends the game at the member's first move."""

    cooldown: Cooldown
    refused: list[str] = field(default_factory=list)
    started: int = 0


@dataclass
class FakeMember:
    bot: FakeBot
    user_id: int

    async def slash(self, path: str, **options: Any) -> FakeResult:
        await asyncio.sleep(0.002)
        try:
            self.bot.cooldown.hit(1, self.user_id)
        except UserError as exc:
            self.bot.refused.append(exc.key)
            return FakeResult(t(exc.key, **exc.values), ephemeral=True)
        self.bot.started += 1
        return FakeResult(message=FakeMessage(), callback_type=4)

    async def click(self, message: FakeMessage, cell: str) -> FakeResult:
        await asyncio.sleep(0.002)
        message.content = "**You win!**"
        message.edits += 1
        return FakeResult(message=message, callback_type=7)


async def test_play_never_sends_a_start_into_the_cooldown() -> None:
    loop = asyncio.get_running_loop()
    bot = FakeBot(Cooldown(2, 0.3, loop.time))
    seats = [Seat([Player(FakeMember(bot, 3 * s + m), "easy", Pacer(Cooldown(2, 0.3)))
                   for m in range(3)]) for s in range(4)]
    figures = await play(seats, rate=200, seconds=1.5, rng=random.Random(1))
    assert bot.refused == [] and not figures.refusals
    # Games were played all along: each member can start 2 in 0.3 s, ten in 1.5 s.
    assert bot.started >= 40 and figures.finished >= 40
    assert figures.cooling_ticks > 0  # the seats did wait for their members' cooldowns


def test_refusals_are_put_down_to_the_text_the_bot_answered() -> None:
    assert reason_of(t("error.cooldown", seconds="12")) == "error.cooldown"
    assert reason_of(t("click.not_your_turn")) == "click.not_your_turn"
    assert reason_of(t("click.finished", cmd_start="/caro start")) == "click.finished"
    assert reason_of(t("error.storage_unavailable")) == "error.storage_unavailable"
    assert reason_of(t("click.taken", cell="B2")) == "click.taken"
    # Both forms of a plural text.
    for count in (1, 3):
        text = t("limit.member_ai_games", count=count)
        assert reason_of(text) == "limit.member_ai_games"
    assert reason_of("Something else entirely") == "unknown: 'Something else entirely'"


def test_a_refusal_reads_the_response_or_the_message_it_made() -> None:
    answered = FakeResult(content=t("click.stale"), ephemeral=True)
    assert refusal_reason(answered) == "click.stale"
    followed = FakeResult(message=FakeMessage(content=t("error.internal")), callback_type=5)
    assert refusal_reason(followed) == "error.internal"
    assert refusal_reason(FakeResult(callback_type=6)) == "no text (callback type 6)"


def test_the_refusal_table_says_how_many_of_what_and_why() -> None:
    import collections

    table = refusal_table(collections.Counter({("start", "error.cooldown"): 3,
                                               ("click", "click.not_your_turn"): 1}))
    assert table[0].split()[:3] == ["3", "start", "error.cooldown"]
    assert "Slow down a little" in table[0]
    assert table[1].split()[:3] == ["1", "click", "click.not_your_turn"]
    assert refusal_table(collections.Counter()) == ["none"]


def test_a_board_is_read_again_only_once_the_bot_edits_it() -> None:
    message = FakeMessage()
    player = Player(member=None, level="easy", message=message)
    assert player.board() == (False, True)
    message.content = "**You win!**"
    assert player.board() == (False, True)  # not read again: the double counts every edit
    message.edits += 1
    assert player.board() == (True, False)
    player.message = FakeMessage()  # a new game's board
    assert player.board() == (False, True)


@dataclass
class SlowMember(FakeMember):
    """A member whose clicks hold this process's loop (as a process short of CPU is held): the
    game goes on, and each click takes 20 ms of the loop."""

    async def click(self, message: FakeMessage, cell: str) -> FakeResult:
        time.sleep(0.02)
        message.edits += 1
        return FakeResult(message=message, callback_type=7)


async def test_ticks_the_process_had_no_time_for_are_dropped_not_sent_in_a_burst() -> None:
    loop = asyncio.get_running_loop()
    bot = FakeBot(Cooldown(5, 30.0, loop.time))
    seats = [Seat([Player(SlowMember(bot, s), "easy")]) for s in range(5)]
    figures = await play(seats, rate=100, seconds=1.0, rng=random.Random(1))
    # 20 ms a click leaves room for about 50 clicks a second, not the 100 asked: the rest are
    # dropped as they fall due, where a catching-up pacer would fire them back to back.
    assert figures.dropped_ticks > 20
