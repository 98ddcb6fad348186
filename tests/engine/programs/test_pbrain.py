"""`caro pbrain`: the Gomocup/piskvork protocol through in-memory streams and a real subprocess."""

from __future__ import annotations

import io
import os
import queue
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import pytest

from engine import Board, Cell, Mark, Rule
from engine.ai import compiled
from engine.ai.stop import Stop
from engine.game.openings import Action, Choice, Opening, OpeningState
from engine.programs.pbrain import (
    ABOUT,
    Brain,
    ChooseFn,
    DecideFn,
    ProtocolError,
    ai_chooser,
    ai_decider,
    arrange,
    fallback_move,
    lines_of,
    move_time,
    parse_node_limit,
    rule_and_opening,
    rule_from_bits,
    serve,
)
from testkit.rules import K_RULES


class Recorder:
    """A stand-in AI: plays the free cell nearest the centre and remembers what it was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []

    def __call__(self, board: Board, seconds: float, stop: Stop) -> Cell:
        self.calls.append((board.text(), seconds))
        return fallback_move(board)


def talk(
    script: str, choose: ChooseFn | None = None, decide: DecideFn | None = None
) -> tuple[list[str], Brain]:
    """Feed the brain the lines of `script`; its answers, one per line."""
    out = io.StringIO()
    brain = Brain(out=out, choose=choose or Recorder(), decide=decide)
    brain.run(lines_of(io.StringIO(script)))
    return out.getvalue().splitlines(), brain


def xy(line: str) -> Cell:
    """(row, col) from a reply "x,y"."""
    x, y = (int(p) for p in line.split(","))
    return y, x


# ----------------------------------------------------------------- set-up commands
def test_start_about_and_end() -> None:
    replies, brain = talk("START 15\nABOUT\nEND\nABOUT\n")
    assert replies == ["OK", ABOUT]
    assert ABOUT == 'name="caro", version="0.1.0", author="caro team", country="Vietnam"'
    assert brain.board is not None and brain.board.spec == "15x15 k5 freestyle"


@pytest.mark.parametrize("size", ["4", "27", "30", "0", "-5", "x", ""])
def test_start_refuses_unsupported_sizes(size: str) -> None:
    replies, brain = talk(f"START {size}\n")
    assert len(replies) == 1 and replies[0].startswith("ERROR ")
    assert len(replies[0]) > len("ERROR ") + 5
    assert brain.board is None


def test_start_accepts_the_limits() -> None:
    assert talk("START 5\n")[0] == ["OK"]
    assert talk("START 26\n")[0] == ["OK"]


def test_rectstart_is_width_then_height() -> None:
    replies, brain = talk("RECTSTART 20,10\nBEGIN\n")
    assert replies[0] == "OK"
    assert brain.board is not None and (brain.board.rows, brain.board.cols) == (10, 20)
    x, y = (int(p) for p in replies[1].split(","))
    assert 0 <= x < 20 and 0 <= y < 10
    assert talk("RECTSTART 30,10\n")[0][0].startswith("ERROR")
    assert talk("RECTSTART 10\n")[0][0].startswith("ERROR")


def test_commands_before_start_are_errors() -> None:
    replies, _ = talk("BEGIN\nTURN 1,1\nRESTART\nTAKEBACK 1,1\nBOARD\nDONE\n")
    assert len(replies) == 5 and all(r.startswith("ERROR ") for r in replies)


def test_unknown_commands_and_blank_lines() -> None:
    replies, _ = talk("\r\n\nYXSHOWFORBID\nhello world\nSTART 15\n")
    assert replies[0].startswith("UNKNOWN ") and "YXSHOWFORBID" in replies[0]
    assert replies[1].startswith("UNKNOWN ") and "HELLO" in replies[1]
    assert replies[2] == "OK"


def test_commands_are_case_insensitive_and_crlf_tolerant() -> None:
    replies, _ = talk("start 15\r\nabout\r\nend\r\n")
    assert replies == ["OK", ABOUT]


# ----------------------------------------------------------------- moves
def test_begin_plays_first_and_turn_answers() -> None:
    chooser = Recorder()
    replies, brain = talk("START 15\nBEGIN\nTURN 0,0\nTURN 14,14\n", chooser)
    assert replies[0] == "OK"
    assert xy(replies[1]) == (7, 7)  # the recorder's centre move, in x,y order
    assert brain.board is not None
    assert brain.board.moves[:2] == ((7, 7), (0, 0))
    assert brain.board.moves[3] == (14, 14)
    assert brain.board.moves[2] == xy(replies[2]) and brain.board.moves[4] == xy(replies[3])
    assert [text.count(" ") for text, _ in chooser.calls] == [2, 4, 6]


def test_coordinates_are_column_then_row() -> None:
    # TURN 3,1 is column 3 (D), row 1 (2nd row): cell D2.
    replies, brain = talk("START 15\nTURN 3,1\n")
    assert brain.board is not None and brain.board.moves[0] == (1, 3)
    assert brain.board.move_name(brain.board.moves[0]) == "D2"


def test_illegal_opponent_moves_are_errors_and_the_brain_keeps_going() -> None:
    replies, brain = talk("START 15\nTURN 7,7\nTURN 7,7\nTURN 15,0\nTURN a,b\nTURN 1\nTURN 0,0\n")
    assert replies[0] == "OK"
    assert "," in replies[1] and not replies[1].startswith("ERROR")
    assert replies[2] == "ERROR illegal move 7,7: the cell is already taken"
    assert replies[3].startswith("ERROR 15,0 is off the 15x15 board")
    assert replies[4].startswith("ERROR bad coordinates")
    assert replies[5].startswith("ERROR bad coordinates")
    assert not replies[6].startswith("ERROR")
    assert brain.board is not None and brain.board.ply == 4


def test_begin_on_a_board_with_stones_is_an_error() -> None:
    replies, _ = talk("START 15\nTURN 7,7\nBEGIN\n")
    assert replies[2].startswith("ERROR") and "BEGIN" in replies[2]


def test_restart_empties_the_board() -> None:
    replies, brain = talk("START 10\nTURN 1,1\nRESTART\nBEGIN\n")
    assert replies[2] == "OK"
    assert brain.board is not None and brain.board.ply == 1 and brain.board.rows == 10


def test_play_imposes_our_move() -> None:
    ours = talk("START 15\nTURN 7,7\n")[0][1]
    replies, brain = talk(f"START 15\nTURN 7,7\nTAKEBACK {ours}\nPLAY 2,3\nPLAY 2,3\n")
    assert replies[2:4] == ["OK", "2,3"]
    assert replies[4].startswith("ERROR illegal move 2,3")
    assert brain.board is not None and brain.board.moves == ((7, 7), (3, 2))


def test_takeback_of_the_last_moves() -> None:
    replies, brain = talk("START 15\nTURN 0,0\n")
    ours = replies[1]
    replies, brain = talk(f"START 15\nTURN 0,0\nTAKEBACK {ours}\nTAKEBACK 0,0\nTAKEBACK 0,0\n")
    assert replies[2:4] == ["OK", "OK"]
    assert replies[4].startswith("ERROR nothing to take back")
    assert brain.board is not None and brain.board.ply == 0


def test_takeback_of_an_older_stone_is_an_error() -> None:
    replies, _ = talk("START 15\nTURN 0,0\nTAKEBACK 0,0\n")
    assert replies[2].startswith("ERROR") and "last move" in replies[2]


def test_the_game_over_is_reported_not_played_on() -> None:
    # Opponent (X) gets five in a row through TURN: there is nothing left to answer.
    script = "START 15\n" + "".join(f"TURN {x},0\n" for x in range(5))
    replies, brain = talk(script, lambda b, s, stop: (14, 14 - b.ply))
    assert brain.board is not None and brain.board.outcome() is not None
    assert replies[1:5] == ["13,14", "11,14", "9,14", "7,14"]
    assert replies[5] == "ERROR the game is over (won by X): no move to make"


def test_ai_failure_falls_back_to_a_legal_move() -> None:
    def broken(board: Board, seconds: float, stop: Stop) -> Cell:
        raise RuntimeError("boom")

    replies, brain = talk("START 15\nBEGIN\n", broken)
    assert replies[1].startswith("MESSAGE the AI failed (RuntimeError: boom)")
    assert replies[2] == "7,7"
    assert brain.board is not None and brain.board.moves == ((7, 7),)


# ----------------------------------------------------------------- BOARD
def test_board_with_equal_counts_makes_us_x() -> None:
    replies, brain = talk("START 15\nBOARD\n7,7,1\n8,8,2\n7,8,1\n6,6,2\nDONE\n")
    board = brain.board
    assert board is not None and board.ply == 5
    assert board[7, 7] is Mark.X and board[8, 7] is Mark.X  # own stones (x,y) -> (row=y, col=x)
    assert board[8, 8] is Mark.O and board[6, 6] is Mark.O
    assert board[xy(replies[1])] is Mark.X


def test_board_with_one_more_opponent_stone_makes_us_o() -> None:
    replies, brain = talk("START 15\nBOARD\n7,7,2\nDONE\n")
    board = brain.board
    assert board is not None and board[7, 7] is Mark.X
    assert board[xy(replies[1])] is Mark.O


def test_board_on_an_empty_board_is_like_begin() -> None:
    replies, brain = talk("START 15\nBOARD\nDONE\n")
    assert xy(replies[1]) == (7, 7) and brain.board is not None and brain.board.ply == 1


@pytest.mark.parametrize(
    ("stones", "words"),
    [
        ("7,7,1\n", "cannot be our turn"),
        ("7,7,2\n8,8,2\n", "cannot be our turn"),
        ("7,7,1\n7,7,2\n", "two stones"),
        ("7,7,3\n8,8,2\n", "continuous"),
        ("7,7,4\n", "unknown owner"),
        ("99,7,1\n", "off the board"),
        ("7,7\n", "bad stone line"),
        ("0,0,1\n0,1,2\n1,0,1\n1,1,2\n2,0,1\n2,1,2\n3,0,1\n3,1,2\n4,0,1\n4,1,2\n", "already won"),
    ],
)
def test_board_errors(stones: str, words: str) -> None:
    replies, brain = talk(f"START 15\nTURN 3,3\nBOARD\n{stones}DONE\nABOUT\n")
    assert replies[2].startswith("ERROR") and words in replies[2], replies[2]
    assert replies[3] == ABOUT  # still answering after the error
    assert brain.board is not None and brain.board.moves[0] == (3, 3)  # old position kept


def test_board_order_avoids_a_premature_exact_five() -> None:
    # Exact rule, our (X) six in a row on row 0: pushed in the given order the first five stones
    # would already "win"; the rebuild must find an order where it stays an overline.
    own = "".join(f"{x},0,1\n" for x in range(6))
    opp = "".join(f"{x},5,2\n" for x in (0, 2, 4, 6, 8, 10))
    replies, brain = talk(f"INFO rule 1\nSTART 15\nBOARD\n{own}{opp}DONE\n")
    board = brain.board
    assert board is not None and board.rule is Rule.EXACT
    assert all(board[0, c] is Mark.X for c in range(6))
    assert board.ply == 13 and not replies[1].startswith("ERROR")


def test_board_order_puts_caro_blockers_before_the_five() -> None:
    # Caro: our five on row 7 is closed at both ends by the opponent; the blockers come last in
    # the message, but they must be played before the five's last stone.
    own = "".join(f"{x},7,1\n" for x in range(3, 8))
    opp = "0,0,2\n14,0,2\n0,14,2\n2,7,2\n8,7,2\n"
    replies, brain = talk(f"INFO rule 8\nSTART 15\nBOARD\n{own}{opp}DONE\n")
    board = brain.board
    assert board is not None and board.rule is Rule.CARO
    assert board.ply == 11 and not replies[1].startswith("ERROR")
    assert board[7, 2] is Mark.O and board[7, 8] is Mark.O


def test_open_caro_five_is_already_won() -> None:
    own = "".join(f"{x},7,1\n" for x in range(3, 8))
    opp = "0,0,2\n14,0,2\n0,14,2\n2,7,2\n9,7,2\n"
    replies, _ = talk(f"INFO rule 8\nSTART 15\nBOARD\n{own}{opp}DONE\n")
    assert replies[1].startswith("ERROR the position is already won")


def test_takeback_after_board_rebuilds_without_the_stone() -> None:
    replies, brain = talk("START 15\nBOARD\n7,7,1\n8,8,2\nDONE\n")
    ours = replies[1]
    replies, brain = talk(f"START 15\nBOARD\n7,7,1\n8,8,2\nDONE\nTAKEBACK {ours}\nTAKEBACK 8,8\n")
    assert replies[2:] == ["OK", "OK"]
    assert brain.board is not None and brain.board.moves == ((7, 7),)


# ----------------------------------------------------------------- INFO and time
@pytest.mark.parametrize(
    ("bits", "rule", "notes"),
    [
        (0, Rule.FREESTYLE, 0),
        (1, Rule.EXACT, 0),
        (8, Rule.CARO, 0),
        (9, Rule.CARO, 0),
        (4, Rule.RENJU, 0),
        (12, Rule.RENJU, 0),
        (14, Rule.RENJU, 1),
        (2, Rule.FREESTYLE, 1),
        (3, Rule.EXACT, 1),
    ],
)
def test_rule_bits(bits: int, rule: Rule, notes: int) -> None:
    assert rule_from_bits(bits)[0] is rule
    assert len(rule_from_bits(bits)[1]) == notes


def test_info_rule_before_and_after_start() -> None:
    replies, brain = talk("INFO rule 8\nSTART 15\n")
    assert brain.board is not None and brain.board.rule is Rule.CARO and replies == ["OK"]
    replies, brain = talk("START 15\nTURN 7,7\nINFO rule 1\n")
    assert brain.board is not None and brain.board.rule is Rule.EXACT and brain.board.ply == 2
    replies, brain = talk("START 15\nINFO rule 4\n")
    assert brain.board is not None and brain.board.rule is Rule.RENJU and replies == ["OK"]


def test_info_times_set_the_thinking_time() -> None:
    chooser = Recorder()
    talk(
        "INFO timeout_turn 5000\nINFO timeout_match 0\nSTART 15\nBEGIN\n"
        "INFO timeout_match 100000\nINFO time_left 10000\nTURN 0,0\n"
        "INFO timeout_turn 0\nTURN 0,1\n"
        "INFO max_memory 83886080\nINFO folder C:\\tmp\nINFO evaluate 1,1\n",
        chooser,
    )
    seconds = [s for _, s in chooser.calls]
    assert seconds[0] == pytest.approx(5 * 0.98 - 0.03)  # the whole turn, less the way back
    # 10 s left (less 0.1 s kept in reserve) shared over 25 moves.
    assert seconds[1] == pytest.approx(9.9 / 25 * 0.98 - 0.03)
    assert seconds[2] == pytest.approx(0.02)  # timeout_turn 0: as fast as possible


def test_bad_info_numbers_are_ignored_with_a_message() -> None:
    replies, brain = talk("INFO timeout_turn soon\nSTART 15\n")
    assert replies[0].startswith("MESSAGE ignored INFO timeout_turn")
    assert brain.timeout_turn == 30_000 and replies[1] == "OK"


def test_move_time_uses_the_whole_turn_or_a_share_of_the_match_clock() -> None:
    assert move_time(1000, 0, None, 200) == pytest.approx(0.95)
    assert move_time(30_000, 180_000, 60_000, 200) == pytest.approx(59.9 / 25 * 0.98 - 0.03)
    # Late in the game fewer moves remain, so a bigger share of the clock is allowed.
    assert move_time(30_000, 180_000, 10_000, 4) == pytest.approx(9.9 / 2 * 0.98 - 0.03)
    # Before the first INFO time_left, the whole match clock is what is left.
    assert move_time(30_000, 10_000, None, 200) == pytest.approx(9.9 / 25 * 0.98 - 0.03)
    # The turn limit still caps the share when the match clock is generous.
    assert move_time(2000, 1_000_000, 900_000, 200) == pytest.approx(2 * 0.98 - 0.03)
    assert move_time(30_000, 180_000, 0, 100) == pytest.approx(0.02)
    assert move_time(30_000, 180_000, -500, 100) == pytest.approx(0.02)


# ----------------------------------------------------------------- arrange
def test_arrange_refuses_impossible_counts() -> None:
    with pytest.raises(ProtocolError):
        arrange(15, 15, Rule.FREESTYLE, [(0, 0)], [(1, 1), (2, 2)])
    with pytest.raises(ProtocolError):
        arrange(15, 15, Rule.FREESTYLE, [(0, 0), (1, 1)], [])


def test_arrange_random_positions_keep_every_stone() -> None:
    rng = random.Random(5)
    for rule in K_RULES:
        for _ in range(20):
            board = Board(9, 9, 5, rule)
            for _ in range(rng.randrange(30)):
                if board.is_over():
                    break
                board.push(rng.choice(list(board.legal_moves)))
            if board.is_over():
                board.pop()
            xs = [c for c in board.moves if board[c] is Mark.X]
            os = [c for c in board.moves if board[c] is Mark.O]
            rng.shuffle(xs)
            rng.shuffle(os)
            rebuilt = arrange(9, 9, rule, xs, os)
            assert sorted(rebuilt.moves) == sorted(board.moves)
            assert list(rebuilt.grid) == list(board.grid)
            assert rebuilt.outcome() is None


# ----------------------------------------------------------------- with the real AI
def test_real_ai_takes_the_win_and_blocks() -> None:
    choose = ai_chooser("impossible", random.Random(0), node_limit=20_000)
    # We (X) have four on row 7 open at one end: the AI must complete the five.
    own = "".join(f"{x},7,1\n" for x in range(3, 7))
    opp = "2,7,2\n0,0,2\n14,14,2\n0,14,2\n"
    replies, _ = talk(f"START 15\nBOARD\n{own}{opp}DONE\n", choose)
    assert replies[1] == "7,7"
    # The opponent (X) has four with its left end closed by us: we must block the right end.
    opp = "".join(f"{x},3,2\n" for x in range(3, 7))
    own = "2,3,1\n10,10,1\n12,12,1\n"
    replies, _ = talk(f"START 15\nBOARD\n{own}{opp}DONE\n", choose)
    assert replies[1] == "7,3"


def test_real_ai_answers_a_short_game() -> None:
    choose = ai_chooser("normal", random.Random(1), node_limit=3_000)
    replies, brain = talk("START 15\nBEGIN\nTURN 0,0\nTURN 14,0\nTURN 0,14\n", choose)
    assert replies[0] == "OK" and len(replies) == 5
    assert all(not r.startswith(("ERROR", "MESSAGE")) for r in replies[1:])
    assert brain.board is not None and brain.board.ply == 7


def test_serve_returns_zero_at_end_of_input() -> None:
    out = io.StringIO()
    assert serve(io.StringIO("START 7\n"), out, Recorder()) == 0
    assert out.getvalue() == "OK\n"


# ----------------------------------------------------------------- the real console script
def caro_command() -> list[str]:
    script = Path(sys.executable).parent / "caro"
    return [str(script)] if script.exists() else [sys.executable, "-m", "engine"]


class BrainProcess:
    """The real `caro pbrain` over pipes, driven as a manager drives it: a line, then its answer."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*caro_command(), "pbrain", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.answers: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(line.rstrip("\r\n"))
        self.answers.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 30) -> str | None:
        """The next line the brain writes (None once its stdout closed)."""
        return self.answers.get(timeout=timeout)

    def silent_for(self, seconds: float) -> bool:
        try:
            line = self.answers.get(timeout=seconds)
        except queue.Empty:
            return True
        self.answers.put(line)
        return False

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def brain_process() -> Iterator[Callable[..., BrainProcess]]:
    started: list[BrainProcess] = []

    def start(*args: str) -> BrainProcess:
        started.append(BrainProcess(*args))
        return started[-1]

    yield start
    for process in started:
        process.close()


# A middle-game position where the search has real work: nothing is forced for either side.
MIDGAME = ["BOARD", "7,7,1", "8,8,2", "6,8,1", "8,6,2", "9,9,1", "6,6,2", "DONE"]


def test_console_script_speaks_the_protocol(brain_process: Callable[..., BrainProcess]) -> None:
    brain = brain_process("--seed", "1")
    brain.send("INFO timeout_turn 300", "INFO timeout_match 0", "START 15")
    assert brain.answer() == "OK"
    brain.send("BEGIN")
    first = xy(str(brain.answer()))
    brain.send("TURN 6,6")
    second = xy(str(brain.answer()))
    brain.send("BOARD", "7,7,1", "6,6,2", "8,8,2", "DONE")
    third = xy(str(brain.answer()))
    assert all(0 <= r < 15 and 0 <= c < 15 for r, c in (first, second, third))
    assert second not in (first, (6, 6))
    assert third not in ((7, 7), (6, 6), (8, 8))
    brain.send("ABOUT")
    assert brain.answer() == ABOUT
    brain.send("BOGUS")
    assert str(brain.answer()).startswith("UNKNOWN")
    brain.send("END")
    assert brain.answer() is None
    assert brain.proc.wait(timeout=10) == 0


def test_end_while_thinking_ends_the_process_at_once(
    brain_process: Callable[..., BrainProcess],
) -> None:
    brain = brain_process()
    brain.send("INFO timeout_turn 60000", "START 15")
    assert brain.answer() == "OK"
    brain.send(*MIDGAME)
    assert brain.silent_for(1.0)  # thinking: a minute is allowed
    sent = time.perf_counter()
    brain.send("END")
    assert brain.proc.wait(timeout=10) == 0
    assert time.perf_counter() - sent < 5
    assert brain.answer() is None  # no move was sent for the abandoned search


def test_a_new_command_interrupts_the_search(
    brain_process: Callable[..., BrainProcess],
) -> None:
    brain = brain_process()
    brain.send("INFO timeout_turn 60000", "START 15")
    assert brain.answer() == "OK"
    brain.send(*MIDGAME)
    assert brain.silent_for(1.0)
    sent = time.perf_counter()
    brain.send("START 10")
    # The abandoned move is never sent; the new command is answered straight away.
    assert brain.answer(timeout=10) == "OK"
    assert time.perf_counter() - sent < 5
    # The next search waits for the abandoned one to end: it must have ended, not run on for
    # the minute it was given.
    sent = time.perf_counter()
    brain.send("INFO timeout_turn 500", "BEGIN")
    row, col = xy(str(brain.answer()))
    assert 0 <= row < 10 and 0 <= col < 10
    assert time.perf_counter() - sent < 5
    brain.send("END")
    assert brain.proc.wait(timeout=10) == 0


def test_info_while_thinking_does_not_interrupt(brain_process: Callable[..., BrainProcess]) -> None:
    brain = brain_process()
    brain.send("INFO timeout_turn 1500", "START 15")
    assert brain.answer() == "OK"
    brain.send(*MIDGAME)
    brain.send("INFO time_left 100000")
    row, col = xy(str(brain.answer()))
    assert (row, col) not in ((7, 7), (8, 8), (8, 6), (6, 8), (9, 9), (6, 6))


def test_the_turn_time_is_used_not_wasted(brain_process: Callable[..., BrainProcess]) -> None:
    # Figures are for benchmarks; this only checks the brain neither answers at a glance nor
    # runs far past the limit when it is given three seconds on an open middle game. (How much
    # of the time it hands over the search itself spends is the search's business.)
    brain = brain_process()
    brain.send("INFO timeout_turn 3000", "INFO timeout_match 0", "START 15")
    assert brain.answer() == "OK"
    sent = time.perf_counter()
    brain.send(*MIDGAME)
    xy(str(brain.answer()))
    took = time.perf_counter() - sent
    assert 1.0 < took < 5


def test_the_search_gets_the_turn_time_less_what_has_already_passed() -> None:
    # The brain behind a real stdin reader (a pipe): the chooser is handed the whole turn less
    # the way back and less the time since the command arrived.
    read_end, write_end = os.pipe()
    out = io.StringIO()
    chooser = Recorder()

    def manager(feed: TextIO) -> None:
        # Like a real manager: the next command only once the last one is answered (a command
        # or the end of input during a search would cut it short).
        for lines, answers in (("INFO timeout_turn 3000\nSTART 15\nBEGIN\n", 2),
                               ("INFO timeout_turn 0\nTURN 0,0\n", 3)):
            feed.write(lines)
            feed.flush()
            deadline = time.monotonic() + 30
            while len(out.getvalue().splitlines()) < answers and time.monotonic() < deadline:
                time.sleep(0.01)
        feed.close()

    with os.fdopen(read_end) as inp:
        writer = threading.Thread(target=manager, args=(os.fdopen(write_end, "w"),))
        writer.start()
        serve(inp, out, chooser, listen=True)
        writer.join()
    seconds = [s for _, s in chooser.calls]
    assert 3 * 0.98 - 0.03 - 0.5 < seconds[0] <= 3 * 0.98 - 0.03
    assert seconds[1] == pytest.approx(0.02)
    assert len(out.getvalue().splitlines()) == 3


def test_impossible_plays_with_the_compiled_core(monkeypatch: pytest.MonkeyPatch) -> None:
    # The bot's own strength, not the old pure-Python search (the core now leaves the GIL free,
    # so the brain can still hear the manager while it thinks).
    calls: list[Stop | None] = []
    real_think = compiled.think

    def spy(*args: object, **kwargs: object) -> compiled.CoreResult:
        stop = kwargs.get("stop")
        calls.append(stop if isinstance(stop, Stop) else None)
        return real_think(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(compiled, "think", spy)
    choose = ai_chooser("impossible", random.Random(0), node_limit=5_000)
    replies, _ = talk("START 15\n" + "\n".join(MIDGAME) + "\n", choose)
    assert len(calls) == 1 and calls[0] is not None
    assert xy(replies[1]) not in ((7, 7), (8, 8), (8, 6), (6, 8), (9, 9), (6, 6))


def run_manager(script: Callable[[TextIO, io.StringIO], None], choose: ChooseFn) -> str:
    """serve() behind a real stdin reader (a pipe) that `script` writes, as a manager does;
    what the brain answered."""
    read_end, write_end = os.pipe()
    out = io.StringIO()
    with os.fdopen(read_end) as inp:
        writer = threading.Thread(target=script, args=(os.fdopen(write_end, "w"), out))
        writer.start()
        serve(inp, out, choose, listen=True)
        writer.join()
    return out.getvalue()


def wait_for_lines(out: io.StringIO, count: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while len(out.getvalue().splitlines()) < count and time.monotonic() < deadline:
        time.sleep(0.005)


def test_a_new_command_stops_a_long_compiled_search() -> None:
    # A minute to think, cut after half a second by RESTART: the Stop reaches the compiled core,
    # the RESTART is answered and the next search (which waits for the cut one to unwind) too.
    stops: list[Stop] = []
    choose = ai_chooser("impossible", random.Random(0))
    answered: list[float] = []

    def recording(board: Board, seconds: float, stop: Stop) -> Cell:
        stops.append(stop)
        return choose(board, seconds, stop)

    def manager(feed: TextIO, out: io.StringIO) -> None:
        feed.write("INFO timeout_turn 60000\nSTART 15\n" + "\n".join(MIDGAME) + "\n")
        feed.flush()
        time.sleep(0.5)
        sent = time.perf_counter()
        feed.write("RESTART\n")
        feed.flush()
        wait_for_lines(out, 2)
        answered.append(time.perf_counter() - sent)
        feed.write("INFO timeout_turn 300\nBEGIN\n")
        feed.flush()
        wait_for_lines(out, 3)
        answered.append(time.perf_counter() - sent)
        feed.close()

    lines = run_manager(manager, recording).splitlines()
    assert lines[:2] == ["OK", "OK"]  # no move for the abandoned search
    assert len(lines) == 3 and xy(lines[2]) == (7, 7)
    assert stops[0].is_set() and not stops[1].is_set()
    # Did not hang: the cut search had a minute left (precise figures: bench/pbrain_stop.py).
    assert answered[0] < 10 and answered[1] < 10


def test_a_new_command_sets_the_stop_of_any_chooser() -> None:
    stops: list[Stop] = []

    def waits_for_its_stop(board: Board, seconds: float, stop: Stop) -> Cell:
        stops.append(stop)
        deadline = time.monotonic() + 60
        while not stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.001)
        return fallback_move(board)

    def manager(feed: TextIO, out: io.StringIO) -> None:
        feed.write("START 15\nBEGIN\n")
        feed.flush()
        wait_for_lines(out, 1)
        time.sleep(0.2)
        feed.write("RESTART\n")
        feed.flush()
        wait_for_lines(out, 2)
        feed.close()

    assert run_manager(manager, waits_for_its_stop).splitlines() == ["OK", "OK"]
    assert len(stops) == 1 and stops[0].is_set()


@pytest.mark.parametrize("value", ["0", "-5", "many"])
def test_bad_node_limit_is_refused_in_one_line(value: str) -> None:
    proc = subprocess.run(
        [*caro_command(), "pbrain", f"--node-limit={value}"],
        input="START 15\nBEGIN\nEND\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("caro pbrain: --node-limit must be")


def test_parse_node_limit() -> None:
    assert parse_node_limit(None) is None
    assert parse_node_limit("1") == 1
    for bad in ("0", "-1", "1.5", ""):
        with pytest.raises(ValueError):
            parse_node_limit(bad)


# ----------------------------------------------------------------- openings: rule numbers, SWAP2BOARD
@pytest.mark.parametrize(
    ("number", "rule", "opening"),
    [
        (0, Rule.FREESTYLE, Opening.FREE),
        (1, Rule.EXACT, Opening.FREE),
        (4, Rule.RENJU, Opening.FREE),
        (8, Rule.CARO, Opening.FREE),
        (5, Rule.FREESTYLE, Opening.SWAP),
        (6, Rule.FREESTYLE, Opening.SWAP2),
    ],
)
def test_the_rule_numbers_managers_send_name_a_rule_and_an_opening(
    number: int, rule: Rule, opening: Opening
) -> None:
    assert rule_and_opening(number)[:2] == (rule, opening)
    replies, brain = talk(f"INFO rule {number}\nSTART 15\n")
    assert replies == ["OK"] and brain.board is not None and brain.board.rule is rule


class Decisions:
    """A stand-in for the opening AI: the given actions in turn, remembering the states."""

    def __init__(self, *actions: Action) -> None:
        self.actions = list(actions)
        self.states: list[OpeningState] = []
        self.seconds: list[float] = []

    def __call__(self, state: OpeningState, seconds: float) -> Action:
        self.states.append(state)
        self.seconds.append(seconds)
        return self.actions.pop(0)


def stones(reply: str) -> list[Cell]:
    return [xy(part) for part in reply.split()]


THREE = "SWAP2BOARD\n7,7\n8,7\n9,9\nDONE\n"
FIVE = "SWAP2BOARD\n7,7\n8,7\n9,9\n8,8\n8,6\nDONE\n"


def test_swap2board_with_no_stones_is_answered_with_the_three_opening_stones() -> None:
    decide = Decisions(Action.place((7, 7)), Action.place((7, 8)), Action.place((9, 9)))
    replies, brain = talk("INFO timeout_turn 3000\nSTART 15\nSWAP2BOARD\nDONE\n", decide=decide)
    assert replies == ["OK", "7,7 8,7 9,9"]
    assert brain.board is not None and brain.board.moves == ((7, 7), (7, 8), (9, 9))
    # The turn's time is shared between the three stones: each gets its share of what is left.
    assert decide.seconds[0] <= 3.0 / 3 and max(decide.seconds) <= 3.0


def test_swap2board_three_stones_swap_means_the_brain_takes_black() -> None:
    replies, brain = talk(f"START 15\n{THREE}", decide=Decisions(Action.choose(Choice.TAKE_X)))
    assert replies == ["OK", "SWAP"]
    assert brain.board is not None and brain.board.ply == 3
    # The opponent, now white, plays the fourth stone; the brain answers as black.
    replies, brain = talk(
        f"START 15\n{THREE}TURN 6,6\n", decide=Decisions(Action.choose(Choice.TAKE_X))
    )
    assert replies[:2] == ["OK", "SWAP"] and len(replies) == 3
    assert brain.board is not None and brain.board.ply == 5


def test_swap2board_three_stones_one_move_means_the_brain_stays_white_and_plays_it() -> None:
    recorder = Recorder()
    replies, brain = talk(
        f"START 15\n{THREE}", choose=recorder, decide=Decisions(Action.choose(Choice.TAKE_O))
    )
    assert replies[0] == "OK" and len(stones(replies[1])) == 1
    assert brain.board is not None and brain.board.ply == 4
    assert brain.board.last_move == stones(replies[1])[0]
    assert recorder.calls[0][0] == "15x15 k5 freestyle H8 I8 J10"


def test_swap2board_three_stones_two_moves_place_the_fourth_and_fifth() -> None:
    decide = Decisions(
        Action.choose(Choice.PLACE_TWO), Action.place((8, 8)), Action.place((6, 8))
    )
    replies, brain = talk(f"START 15\n{THREE}", decide=decide)
    assert replies == ["OK", "8,8 8,6"]
    assert brain.board is not None and brain.board.ply == 5


def test_swap2board_five_stones_is_the_first_players_choice_of_colour() -> None:
    decide = Decisions(Action.choose(Choice.TAKE_X))
    replies, _ = talk(f"START 15\n{FIVE}", decide=decide)
    assert replies == ["OK", "SWAP"]
    state = decide.states[0]
    assert state.decisions == ("place_two",) and state.board.ply == 5
    replies, brain = talk(f"START 15\n{FIVE}", decide=Decisions(Action.choose(Choice.TAKE_O)))
    assert len(stones(replies[1])) == 1
    assert brain.board is not None and brain.board.ply == 6


@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("SWAP2BOARD\nDONE\n", "send START first"),
        ("START 15\nSWAP2BOARD\n7,7\n8,8\nDONE\n", "0, 3 or 5 stones, not 2"),
        ("START 15\nSWAP2BOARD\n7,7\n7,7\n8,8\nDONE\n", "two stones on 7,7"),
        ("START 15\nSWAP2BOARD\n7,7\n8,8\n15,1\nDONE\n", "off the 15x15 board"),
        ("START 7\nSWAP2BOARD\nDONE\n", "swap2 needs five or more in a row"),
    ],
)
def test_a_swap2board_the_brain_cannot_take_is_an_error(script: str, words: str) -> None:
    replies, _ = talk(script, decide=Decisions())
    assert replies[-1].startswith("ERROR") and words in replies[-1]


def test_the_ai_answers_every_swap2board_with_stones_the_rules_accept() -> None:
    decide = ai_decider("normal", random.Random(1))
    replies, brain = talk("INFO timeout_turn 1000\nSTART 15\nSWAP2BOARD\nDONE\n", decide=decide)
    three = stones(replies[1])
    assert len(set(three)) == 3 and brain.board is not None and brain.board.ply == 3
    lines = "".join(f"{c},{r}\n" for r, c in three)
    replies, brain = talk(
        f"INFO timeout_turn 1000\nSTART 15\nSWAP2BOARD\n{lines}DONE\n", decide=decide
    )
    assert replies[1] == "SWAP" or len(stones(replies[1])) in (1, 2)
    assert brain.board is not None and not brain.board.is_over()


def test_under_the_swap_rule_number_the_brain_never_places_two_more() -> None:
    decide = ai_decider("normal", random.Random(2))
    for seed_stones in ("7,7\n8,7\n9,9\n", "7,7\n7,8\n7,9\n", "0,0\n7,7\n14,14\n"):
        replies, _ = talk(
            f"INFO rule 5\nINFO timeout_turn 500\nSTART 15\nSWAP2BOARD\n{seed_stones}DONE\n",
            decide=decide,
        )
        assert replies[1] == "SWAP" or len(stones(replies[1])) == 1


def test_console_script_answers_swap2board(brain_process: Callable[..., BrainProcess]) -> None:
    brain = brain_process("--level", "normal", "--seed", "1")
    brain.send("INFO timeout_turn 1000", "INFO rule 1", "START 15")
    assert brain.answer() == "OK"
    brain.send("SWAP2BOARD", "DONE")
    three = stones(str(brain.answer()))
    assert len(set(three)) == 3
    brain.send("SWAP2BOARD", *(f"{c},{r}" for r, c in three), "DONE")
    answer = str(brain.answer())
    assert answer == "SWAP" or len(stones(answer)) in (1, 2)
    brain.send("END")
    assert brain.proc.wait(timeout=10) == 0


def test_say_depth_sends_each_moves_depth_and_nodes_before_it():
    out = io.StringIO()
    choose = ai_chooser("impossible", random.Random(0), node_limit=5_000)
    serve(io.StringIO("START 15\nBEGIN\nEND\n"), out, choose, say_depth=True)
    lines = out.getvalue().splitlines()
    assert lines[0] == "OK"
    assert re.fullmatch(r"MESSAGE depth \d+ nodes \d+ time \d+ms", lines[1])
    assert re.fullmatch(r"\d+,\d+", lines[2])
