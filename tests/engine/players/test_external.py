"""engine.players.external: a piskvork brain as a move source, with caro's own `caro pbrain` as the brain,
and small scripted brains that die, stall or answer nonsense."""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine import Board, Rule
from engine.players.external import (
    EngineRefused,
    ExternalEngine,
    ExternalEngineError,
    parse_command,
    supports,
)
from testkit.engines import scripted_brain
from testkit.rules import K_RULES


def caro_pbrain(*args: str) -> list[str]:
    script = Path(sys.executable).parent / "caro"
    base = [str(script)] if script.exists() else [sys.executable, "-m", "engine"]
    return [*base, "pbrain", *args]


@pytest.fixture
def engines() -> Iterator[Callable[..., ExternalEngine]]:
    made: list[ExternalEngine] = []

    def make(command: list[str], turn_time: float = 0.5) -> ExternalEngine:
        made.append(ExternalEngine(command, turn_time))
        return made[-1]

    yield make
    for engine in made:
        engine.close()


def fake_brain(tmp_path: Path, body: str) -> list[str]:
    """A brain script: answers OK to START/RECTSTART, and runs `body` on BOARD's DONE."""
    script = tmp_path / "brain.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys, time
            for line in sys.stdin:
                word = line.strip().split(" ")[0].upper()
                if word in ("START", "RECTSTART"):
                    print("OK", flush=True)
                elif word == "DONE":
            {body}
                elif word == "END":
                    break
            """
        ).format(body=textwrap.indent(textwrap.dedent(body), " " * 8))
    )
    return [sys.executable, str(script)]


# ----------------------------------------------------------------- with caro pbrain as the brain
def test_caro_pbrain_plays_a_game_of_legal_moves(engines: Callable[..., ExternalEngine]) -> None:
    engine = engines(caro_pbrain("--level", "normal"), 0.3)
    board = Board(15, 15, 5)
    for _ in range(8):
        cell = engine.move(board)
        assert board[cell] is None
        board.push(cell)
        if board.is_over():
            break
    assert board.ply >= 8 or board.is_over()
    assert engine.running  # one process for the whole game


def test_the_brain_sees_whose_stones_are_whose(engines: Callable[..., ExternalEngine]) -> None:
    engine = engines(caro_pbrain(), 0.5)
    # X (to move) has four on row 8 with one end closed by O: the brain must complete the five.
    board = Board.from_text("15x15 k5 freestyle D8 C8 E8 A1 F8 A15 G8 O1")
    assert engine.move(board) == (7, 7)
    # O to move: X's four C3-F3 is closed at B3, so O must block at G3.
    board = Board.from_text("15x15 k5 freestyle C3 B3 D3 H8 E3 A15 F3")
    assert engine.move(board) == (2, 6)


@pytest.mark.parametrize("rule", K_RULES)
def test_rule_and_rectangular_boards_reach_the_brain(
    rule: Rule, engines: Callable[..., ExternalEngine]
) -> None:
    engine = engines(caro_pbrain(), 0.3)
    board = Board(9, 12, 5, rule)
    board.push((4, 6))
    row, col = engine.move(board)
    assert 0 <= row < 9 and 0 <= col < 12 and (row, col) != (4, 6)
    # A new size on the same process: the brain is told with START.
    square = Board(7, 7, 5, rule)
    row, col = engine.move(square)
    assert 0 <= row < 7 and 0 <= col < 7


def test_a_killed_brain_is_restarted_on_the_next_move(
    engines: Callable[..., ExternalEngine],
) -> None:
    engine = engines(caro_pbrain(), 0.3)
    board = Board(15, 15, 5)
    board.push(engine.move(board))
    assert engine._proc is not None
    engine._proc.kill()
    engine._proc.wait()
    assert not engine.running
    board.push((0, 0))
    cell = engine.move(board)
    assert board[cell] is None and engine.running


def test_close_ends_the_brain(engines: Callable[..., ExternalEngine]) -> None:
    engine = engines(caro_pbrain(), 0.3)
    engine.move(Board(15, 15, 5))
    proc = engine._proc
    assert proc is not None
    engine.close()
    assert proc.poll() is not None and not engine.running


# ----------------------------------------------------------------- failures
def test_a_brain_that_exits_is_an_error(engines: Callable[..., ExternalEngine]) -> None:
    engine = engines([sys.executable, "-c", "import sys; sys.exit(3)"])
    with pytest.raises(ExternalEngineError, match="exited"):
        engine.move(Board(15, 15, 5))
    assert not engine.running


def test_a_brain_that_closes_its_input_then_exits_reports_its_exit_code(
    engines: Callable[..., ExternalEngine],
) -> None:
    # Whether the write finds the pipe closed or the read finds the output closed, it says how it ended.
    script = "import os, sys, time; os.close(0); time.sleep(0.3); sys.exit(3)"
    engine = engines([sys.executable, "-c", script])
    with pytest.raises(ExternalEngineError, match=r"exited.*\(code 3\)"):
        engine.move(Board(15, 15, 5))
    assert not engine.running


def test_a_missing_program_is_an_error(engines: Callable[..., ExternalEngine]) -> None:
    engine = engines(["/nonexistent/pbrain-nothing"])
    with pytest.raises(ExternalEngineError, match="cannot start"):
        engine.move(Board(15, 15, 5))


def test_a_silent_brain_times_out(engines: Callable[..., ExternalEngine], tmp_path: Path) -> None:
    engine = engines(fake_brain(tmp_path, "time.sleep(60)"), 0.3)
    start = time.perf_counter()
    with pytest.raises(ExternalEngineError, match="in time"):
        engine.move(Board(15, 15, 5))
    assert time.perf_counter() - start < 10
    assert not engine.running  # the stalled brain was stopped


def test_the_start_check_passes_a_brain_that_answers_and_ends_it(
    engines: Callable[..., ExternalEngine], tmp_path: Path
) -> None:
    engine = engines(fake_brain(tmp_path, 'print("0,0", flush=True)'))
    engine.check()
    assert not engine.running  # asked to END once it answered


def test_the_start_check_times_out_on_a_silent_brain(
    engines: Callable[..., ExternalEngine],
) -> None:
    engine = engines([sys.executable, "-c", "import time; time.sleep(60)"])
    start = time.perf_counter()
    with pytest.raises(ExternalEngineError, match=r"^the engine did not answer START 15 in time$"):
        engine.check(timeout=0.5)
    assert time.perf_counter() - start < 5
    assert not engine.running


@pytest.mark.parametrize(
    "answer,words",
    [
        ("hello", "not a move"),
        ("7,7,7", "not a move"),
        ("15,3", "off the"),
        ("-1,3", "off the"),
        ("7,7", "already taken"),
        ("ERROR no idea", "refused"),
    ],
)
def test_nonsense_answers_are_errors(
    answer: str, words: str, engines: Callable[..., ExternalEngine], tmp_path: Path
) -> None:
    body = f'print("MESSAGE thinking", flush=True)\nprint("{answer}", flush=True)'
    engine = engines(fake_brain(tmp_path, body))
    board = Board(15, 15, 5)
    board.push((7, 7))
    with pytest.raises(ExternalEngineError, match=words):
        engine.move(board)
    assert not engine.running


def test_chatter_is_skipped(engines: Callable[..., ExternalEngine], tmp_path: Path) -> None:
    body = 'print("DEBUG x", flush=True)\nprint("MESSAGE y", flush=True)\nprint("3,4", flush=True)'
    engine = engines(fake_brain(tmp_path, body))
    assert engine.move(Board(15, 15, 5)) == (4, 3)


def test_boards_a_brain_cannot_play_are_refused(engines: Callable[..., ExternalEngine]) -> None:
    engine = engines(caro_pbrain())
    for board in (Board(15, 15, 4), Board(3, 3, 3), Board(4, 9, 5)):
        assert not supports(board)
        with pytest.raises(ExternalEngineError, match="five in a row"):
            engine.move(board)
    assert not engine.running  # refused before any process was started


def test_parse_command() -> None:
    assert parse_command("caro pbrain --level hard") == ["caro", "pbrain", "--level", "hard"]
    assert parse_command("'/opt/my brain/pbrain' -x") == ["/opt/my brain/pbrain", "-x"]
    for bad in ("", "   ", "'unclosed"):
        with pytest.raises(ValueError):
            parse_command(bad)


def test_the_rules_a_brain_refuses_are_left_out(
    engines: Callable[..., ExternalEngine], tmp_path: Path
) -> None:
    engine = engines(list(scripted_brain(tmp_path, known=(0, 1, 4))))
    assert engine.accepted_rules(list(Rule)) == {Rule.FREESTYLE, Rule.EXACT, Rule.RENJU}
    assert not engine.running


def test_caro_pbrain_accepts_every_rule_of_caro(engines: Callable[..., ExternalEngine]) -> None:
    assert engines(caro_pbrain()).accepted_rules(list(Rule)) == set(Rule)


def test_a_refusal_is_told_apart_from_a_failure(
    engines: Callable[..., ExternalEngine], tmp_path: Path
) -> None:
    with pytest.raises(EngineRefused, match="ERROR Unknown rule id: 8"):
        engines(list(scripted_brain(tmp_path, known=(0,)))).move(Board(15, 15, 5, Rule.CARO))
    # A brain that dies is a failure, not a refusal of the rule.
    with pytest.raises(ExternalEngineError) as failed:
        engines(fake_brain(tmp_path, "sys.exit(3)")).accepted_rules([Rule.FREESTYLE])
    assert not isinstance(failed.value, EngineRefused)
