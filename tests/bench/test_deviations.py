"""bench.deviations on logs written here: the brain's moves that were not the opponent's
expected reply and after which the opponent's value rose, and the compiled search asked on
them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import deviations
from bench.deviations import Deviation
from engine.game.notation import cell_name
from engine.game.types import Cell, Rule

OPENING: list[Cell] = [(7, 7), (7, 8), (8, 7)]


def move(by: str, cell: Cell, value: str | None = None,
         line: tuple[Cell, ...] = ()) -> dict[str, object]:
    said = ["MESSAGE depth 9 nodes 1000 time 500ms"]
    if value is not None:
        said = [f"MESSAGE Depth 20-30 | Eval {value} | Node 900K",
                "MESSAGE Bestline " + " ".join(cell_name(c) for c in (cell, *line))]
    row, col = cell
    return {"by": by, "move": f"{col},{row}", "seconds": 0.5, "said": said}


def game(index: int, moves: list[dict[str, object]], winner: str | None) -> dict[str, object]:
    return {"index": index, "size": 15, "rule": "freestyle", "opening": OPENING,
            "black": "caro", "white": "rapfi", "winner": winner, "reason": "five", "moves": moves}


# Rapfi (white) moves first after the opening. caro's first move is not the reply Rapfi expected
# and Rapfi's value rises by 170; its second is the expected reply; its third is not, but the
# value rises by 30 only; its fourth comes after a forced result and is not read.
GAME = game(0, [
    move("rapfi", (6, 6), "-20", line=((9, 9),)),
    move("caro", (0, 0)),
    move("rapfi", (5, 5), "150", line=((9, 9),)),
    move("caro", (9, 9)),
    move("rapfi", (4, 4), "160", line=((10, 10),)),
    move("caro", (0, 14)),
    move("rapfi", (3, 3), "190", line=((10, 10),)),
    move("caro", (14, 0)),
    move("rapfi", (2, 2), "+M9", line=((10, 10),)),
], "rapfi")


def write(tmp_path: Path, *records: dict[str, object]) -> Path:
    log = tmp_path / "games.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    return log


def test_a_move_other_than_the_expected_reply_that_raises_the_value_is_a_deviation() -> None:
    found, read, same = deviations.deviations([GAME], "caro", jump=100, plies=60)
    # caro's fourth move is not read: the value after it is a forced result.
    assert (read, same) == (3, 1)
    assert found == [Deviation(game=0, after_opening=1, before=(*OPENING, (6, 6)),
                               rule=Rule.FREESTYLE, size=15, played=(0, 0), expected=(9, 9),
                               value_before=-20, value_after=150, lost=True)]


def test_a_smaller_jump_counts_the_smaller_rise_and_fewer_plies_read_fewer_moves() -> None:
    found, _, _ = deviations.deviations([GAME], "caro", jump=30, plies=60)
    assert [d.played for d in found] == [(0, 0), (0, 14)]
    found, read, _ = deviations.deviations([GAME], "caro", jump=30, plies=2)
    assert (read, [d.played for d in found]) == (1, [(0, 0)])


def test_a_line_that_does_not_start_with_the_opponents_move_is_not_read() -> None:
    stale = move("rapfi", (6, 6), "-20", line=((9, 9),))
    stale["said"] = [*stale["said"][:1], "MESSAGE Bestline " + cell_name((5, 5)) + " J10"]
    moves = [stale, *GAME["moves"][1:]]
    found, read, same = deviations.deviations([game(0, moves, "rapfi")], "caro", 100, 60)
    assert (found, read, same) == ([], 2, 1)


def test_the_other_brains_moves_are_not_read() -> None:
    assert deviations.deviations([GAME], "rapfi", jump=100, plies=60) == ([], 0, 0)


def test_the_report_asks_the_compiled_search_on_each_deviation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert deviations.main([str(write(tmp_path, GAME)), "--name", "caro", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "caro: 3 moves with the opponent's values around them; the expected reply at 1 (33%); " \
           "deviations of 100+ points: 1" in out
    assert "game 1 move 1: played A1, expected" in out
    assert "asked 1: the search now chooses the expected reply at" in out
    assert "values: played " in out


def test_logs_without_the_brain_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        deviations.main([str(write(tmp_path, GAME)), "--name", "someone"])


def test_the_tally_of_shapes_says_what_the_move_played_blocks_against_the_expected_reply() -> None:
    # O to move, X with an open three on row 7 (7,6)-(7,8): (7,5) and (7,9) block it; a far
    # corner blocks nothing and makes nothing.
    before: tuple[Cell, ...] = ((7, 6), (0, 0), (7, 7), (0, 14), (7, 8))
    blocked = Deviation(0, 3, before, Rule.FREESTYLE, 15, played=(14, 14), expected=(7, 9),
                        value_before=0, value_after=300, lost=True)
    tally = deviations.shapes([blocked])
    assert (tally.blocks_more, tally.blocks_less) == (0, 1)
    assert tally.makes_more == 0
    mirrored = Deviation(0, 3, before, Rule.FREESTYLE, 15, played=(7, 9), expected=(14, 14),
                         value_before=0, value_after=300, lost=True)
    assert (deviations.shapes([mirrored]).blocks_more,
            deviations.shapes([mirrored]).blocks_less) == (1, 0)
