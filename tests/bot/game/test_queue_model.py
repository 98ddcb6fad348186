"""The queue's pairing rules (bot/game/queue_model.py), as pure functions: the closest rating
among the entries that can meet, a rating gap that widens with waiting, never a blocked pair,
the same pair not twice within the hour while anyone else waits, and servers kept apart when an
entry asks for its own server only."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.game.queue_model import (
    QueueEntry,
    QueueKey,
    QueueStatus,
    accepted_gap,
    can_meet,
    choose_pairs,
)

KEY = QueueKey(rows=15, cols=15, k=5, rule="freestyle", rated=True, turn_seconds=600.0)
NOW = 1000.0


def entry(n: int, rating: float, *, waited: float = 0.0, guild: int = 1, local: bool = False,
          key: QueueKey = KEY) -> QueueEntry:
    return QueueEntry(
        id=n, guild_id=guild, channel_id=guild * 10, message_id=None, user_id=100 + n, key=key,
        rating=rating, local=local, locale="en-US", joined_at=NOW - waited,
        status=QueueStatus.WAITING,
    )


def ids(pairs: list[tuple[QueueEntry, QueueEntry]]) -> list[tuple[int, int]]:
    return [(a.id, b.id) for a, b in pairs]


def pair(*members: int) -> frozenset[int]:
    return frozenset(100 + m for m in members)


@pytest.mark.parametrize(("waited", "gap"), [(0, 100), (9.9, 100), (10, 150), (35, 250),
                                             (100, 600)])
def test_the_accepted_gap_is_100_and_50_more_per_10_seconds_waited(
    waited: float, gap: float
) -> None:
    assert accepted_gap(waited) == gap


def test_the_entry_waiting_longest_meets_the_closest_rating() -> None:
    entries = [entry(1, 1200, waited=5), entry(2, 1290), entry(3, 1230), entry(4, 1180)]
    # 1 chooses first: 4 is 20 away, 3 is 30; then 2 (joined with 3, the older id) meets 3.
    assert ids(choose_pairs(entries, now=NOW, blocked=(), recent=())) == [(1, 4), (2, 3)]


def test_a_gap_too_wide_for_either_side_waits_until_both_have_waited_enough() -> None:
    old, new = entry(1, 1200, waited=60), entry(2, 1400)
    # The old entry accepts 400, the new one only 100: no pair yet.
    assert choose_pairs([old, new], now=NOW, blocked=(), recent=()) == []
    # After 19 s the new one accepts 150; after 20 s, 200: the gap.
    assert choose_pairs([old, new], now=NOW + 19, blocked=(), recent=()) == []
    assert ids(choose_pairs([old, new], now=NOW + 20, blocked=(), recent=())) == [(1, 2)]


def test_a_blocked_pair_is_never_made_whatever_the_wait() -> None:
    entries = [entry(1, 1200, waited=3600), entry(2, 1200, waited=3600)]
    assert choose_pairs(entries, now=NOW, blocked={pair(1, 2)}, recent=()) == []


def test_a_pair_of_the_last_hour_waits_while_someone_else_can_be_met() -> None:
    entries = [entry(1, 1200, waited=20), entry(2, 1200, waited=10), entry(3, 1250)]
    # 2 is closer to 1, but they met within the hour: 1 meets 3.
    assert ids(choose_pairs(entries, now=NOW, blocked=(), recent={pair(1, 2)})) == [(1, 3)]


def test_a_pair_of_the_last_hour_meets_again_when_nobody_else_waits() -> None:
    entries = [entry(1, 1200, waited=20), entry(2, 1220)]
    assert ids(choose_pairs(entries, now=NOW, blocked=(), recent={pair(1, 2)})) == [(1, 2)]
    # Someone else waits for the same game, if too far in rating to meet yet: no rematch.
    far = entry(3, 2000)
    assert choose_pairs([*entries, far], now=NOW, blocked=(), recent={pair(1, 2)}) == []


def test_only_entries_for_the_same_game_meet() -> None:
    casual = replace(KEY, rated=False)
    entries = [entry(1, 1200), entry(2, 1200, key=casual), entry(3, 1200, key=casual)]
    assert ids(choose_pairs(entries, now=NOW, blocked=(), recent=())) == [(2, 3)]


def test_an_entry_for_its_own_server_meets_only_its_server() -> None:
    here, there = entry(1, 1200, guild=1, local=True), entry(2, 1200, guild=2)
    assert not can_meet(here, there) and not can_meet(there, here)
    assert can_meet(here, entry(3, 1200, guild=1))
    assert can_meet(there, entry(4, 1200, guild=3))
    entries = [here, there, entry(3, 1200, guild=1), entry(4, 1200, guild=3)]
    assert sorted(ids(choose_pairs(entries, now=NOW, blocked=(), recent=()))) == [(1, 3), (2, 4)]


def test_a_member_is_never_paired_with_themselves() -> None:
    one, again = entry(1, 1200), replace(entry(2, 1200), user_id=101)
    assert choose_pairs([one, again], now=NOW, blocked=(), recent=()) == []


def test_nobody_is_paired_twice_in_a_crowd() -> None:
    entries = [entry(n, 1000 + 37 * (n % 11), waited=n % 7 * 10) for n in range(1, 60)]
    pairs = choose_pairs(entries, now=NOW, blocked={pair(1, 2)}, recent={pair(3, 4)})
    seen = [e.id for p in pairs for e in p]
    assert len(seen) == len(set(seen)) and len(pairs) >= 20
