"""The signal of rows written (bot.storage.outbox_rows.heard_payload / heard_of): the edits
carried whole within what a NOTIFY holds, the rest left to the sender's pass, and a signal this
version cannot read taken as a plain wake."""

from __future__ import annotations

import json

import pytest

from bot.game.outbox_model import Heard, NewPost, PostKind
from bot.storage.outbox_rows import HEARD_BYTES, heard_of, heard_payload, written_row

GUILD = 41771983423143936
CHANNEL = 222


def board(game: int) -> NewPost:
    return NewPost(GUILD, CHANNEL, PostKind.GAME_BOARD, {"game": game, "guild": GUILD}, 100.5)


def test_a_signal_carries_the_edits_whole_and_the_new_messages_only_as_a_wake() -> None:
    edit = written_row(board(7), 1, "caro0123")
    message = written_row(
        NewPost(GUILD, CHANNEL, PostKind.TURN_PING, {"game": 7, "member": 5, "stage": 3}, 100.0),
        2, "caro4567")
    assert heard_of(heard_payload([edit])) == Heard((edit,), others=False)
    assert heard_of(heard_payload([message, edit])) == Heard((edit,), others=True)
    assert heard_of(heard_payload([message])) == Heard((), others=True)


def test_rows_past_what_a_signal_holds_are_left_to_the_pass() -> None:
    rows = [written_row(board(game), game, f"caro{game:08d}") for game in range(1, 200)]
    payload = heard_payload(rows)
    heard = heard_of(payload)
    assert len(payload.encode()) < 8000  # PostgreSQL's limit on a NOTIFY payload
    assert len(payload) <= HEARD_BYTES + 40
    assert heard.others
    assert 0 < len(heard.rows) < len(rows)
    assert list(heard.rows) == rows[: len(heard.rows)]


@pytest.mark.parametrize("payload", [
    "",
    "not json",
    "[]",
    '{"rows": []}',
    '{"rows": [], "others": 1}',
    '{"rows": [[1, 2, 3]], "others": false}',
    '{"rows": [[true, 2, 3, "game_board", {}, "n", 1.0]], "others": false}',
    '{"rows": [[1, 2, 3, "turn_ping", {}, "n", 1.0]], "others": false}',
    '{"rows": [[1, 2, 3, "no_such_kind", {}, "n", 1.0]], "others": false}',
    '{"rows": [[1, 2, 3, "game_board", [], "n", 1.0]], "others": false}',
    '{"rows": [[1, 2, 3, "game_board", {}, 5, 1.0]], "others": false}',
    '{"rows": [[1, 2, 3, "game_board", {}, "n", "soon"]], "others": false}',
])
def test_a_signal_this_version_cannot_read_only_wakes(payload: str) -> None:
    assert heard_of(payload) == Heard()


def test_a_signal_is_compact_json() -> None:
    value = json.loads(heard_payload([written_row(board(7), 1, "caro0123")]))
    assert value == {
        "rows": [[1, GUILD, CHANNEL, "game_board", {"game": 7, "guild": GUILD}, "caro0123", 100.5]],
        "others": False,
    }
