"""An external engine: any brain that speaks the piskvork (Gomocup) protocol, as a move source.

The brain runs as a child process and is kept between moves. Every move sends the whole
position (START/RECTSTART when the board size changes, INFO for the time and rule, then
BOARD...DONE), so nothing depends on the brain remembering an earlier game, and a restarted brain
picks up where the last one died. What comes back is checked like any user input: a reply that
is not "x,y" on an empty cell, an ERROR, a silence past the time limit or a brain that exits all
raise ExternalEngineError, after which the brain is stopped (and started afresh on the next move).
The caller decides what to play instead (the bot plays its own "impossible" move).

Protocol: https://plastovicka.github.io/protocl2en.htm. Brains play five in a row only, so
only boards with k = 5 and sides of at least 5 can be asked.
"""

from __future__ import annotations

import contextlib
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Sequence

from ..game.board import Board
from ..game.types import Cell, Rule

__all__ = [
    "EngineRefused",
    "ExternalEngine",
    "ExternalEngineError",
    "parse_command",
    "supports",
]

K = 5
MIN_SIDE = 5
# Seconds the brain has to start and answer START (loading tables or JIT caches can be slow).
START_TIMEOUT = 15.0
# Seconds past the turn limit allowed for the pipe and the brain's own overshoot.
GRACE = 0.5
# INFO rule as the managers send it: 0 freestyle, 1 exactly five ("standard"), 4 renju, 8 caro.
# Brains differ in which they accept (Rapfi takes 0, 1, 4 and the swap numbers, and answers ERROR
# to 8), so the bot asks each rule once at start (ExternalEngine.accepted_rules).
RULE_BITS = {Rule.FREESTYLE: 0, Rule.EXACT: 1, Rule.RENJU: 4, Rule.CARO: 8}
# Lines a brain may send at any time besides its answer; they are skipped.
CHATTER = ("MESSAGE", "DEBUG", "SUGGEST", "UNKNOWN")


class ExternalEngineError(Exception):
    """The external brain did not give a legal move: it died, timed out or answered nonsense."""


class EngineRefused(ExternalEngineError):
    """The brain answered ERROR: it runs, but will not do what it was asked (a rule it does not
    play, say)."""


def parse_command(text: str) -> list[str]:
    """The argv of an engine command line (shell quoting rules, no shell run); ValueError if
    empty or badly quoted."""
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise ValueError(f"cannot read the engine command {text!r}: {error}") from None
    if not argv:
        raise ValueError("the engine command is empty")
    return argv


def supports(board: Board) -> bool:
    """Whether a piskvork brain can play this board: five in a row, sides of at least 5."""
    return board.k == K and board.rows >= MIN_SIDE and board.cols >= MIN_SIDE


class ExternalEngine:
    """One brain process. Not thread-safe: one move at a time (one per AI worker process)."""

    def __init__(self, command: Sequence[str], turn_time: float) -> None:
        if not command:
            raise ValueError("the engine command is empty")
        if not turn_time > 0:
            raise ValueError(f"turn_time must be positive, not {turn_time!r}")
        self.command = list(command)
        self.turn_time = turn_time
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._size: tuple[int, int] | None = None

    # ----------------------------------------------------------------- process
    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _start(self) -> None:
        try:
            proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                # Brains log freely on stderr; nobody reads it, so it must not fill a pipe.
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as error:
            reason = error.strerror or str(error)
            raise ExternalEngineError(f"cannot start {self.command[0]!r}: {reason}") from None
        self._proc = proc
        self._lines = queue.Queue()
        self._size = None
        threading.Thread(
            target=self._read, args=(proc, self._lines), name="caro-external-stdout", daemon=True
        ).start()

    @staticmethod
    def _read(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        # A thread of its own, so that a silent brain can be timed out.
        assert proc.stdout is not None
        try:
            for line in proc.stdout:
                lines.put(line.strip())
        except (OSError, ValueError):
            pass
        lines.put(None)

    def close(self) -> None:
        """Ask the brain to end (END), then make sure it has."""
        proc = self._proc
        self._proc = None
        self._size = None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.write("END\n")
                proc.stdin.flush()
            except (OSError, ValueError):
                pass
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _fail(self, message: str) -> ExternalEngineError:
        self.close()
        return ExternalEngineError(message)

    def _send(self, *lines: str) -> None:
        proc = self._proc
        assert proc is not None and proc.stdin is not None
        try:
            proc.stdin.write("".join(line + "\n" for line in lines))
            proc.stdin.flush()
        except (OSError, ValueError):
            # A closed pipe means it has exited or is about to: say how it ended if it has.
            code = None
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = proc.wait(timeout=1.0)
            raise self._fail(f"the engine exited; its input pipe is closed (code {code})") from None

    def _answer(self, deadline: float, what: str) -> str:
        """The brain's next line that is not chatter, by `deadline` (a perf_counter time)."""
        while True:
            left = deadline - time.perf_counter()
            try:
                line = self._lines.get(timeout=max(0.0, left))
            except queue.Empty:
                raise self._fail(f"the engine did not answer {what} in time") from None
            if line is None:
                code = None
                if self._proc is not None:
                    # Its output closed as it exited: wait a moment to tell how it ended.
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        code = self._proc.wait(timeout=1.0)
                raise self._fail(f"the engine exited while asked for {what} (code {code})")
            if not line or line.split(" ", 1)[0].upper() in CHATTER:
                continue
            if line.upper().startswith("ERROR"):
                self.close()
                raise EngineRefused(f"the engine refused {what}: {line[:200]}")
            return line

    def check(self, size: int = 15, timeout: float = START_TIMEOUT) -> None:
        """Start the brain, ask `START size` and expect OK within `timeout` seconds, then end
        it: ExternalEngineError, in one line, if it cannot be started or does not answer so."""
        self.close()
        self._start()
        try:
            self._send(f"START {size}")
            reply = self._answer(time.perf_counter() + timeout, f"START {size}")
            if reply.upper() != "OK":
                raise ExternalEngineError(f"the engine answered {reply[:200]!r} to START {size}")
        finally:
            self.close()

    def accepted_rules(self, rules: Sequence[Rule], size: int = 15) -> frozenset[Rule]:
        """The rules among `rules` the brain plays: each is asked for one move on a `size`
        board holding one stone, and a rule it answers with ERROR is left out (a brain that
        does not know a rule number says so, then plays freestyle). ExternalEngineError if it
        fails otherwise (it cannot start, dies or stays silent)."""
        accepted = set()
        for rule in rules:
            board = Board(size, size, K, rule)
            board.push((size // 2, size // 2))
            try:
                self.move(board)
            except EngineRefused:
                continue
            accepted.add(rule)
        self.close()
        return frozenset(accepted)

    # ----------------------------------------------------------------- playing
    def move(self, board: Board) -> Cell:
        """The brain's move on `board` (which is not changed); ExternalEngineError if it fails."""
        if not supports(board):
            raise ExternalEngineError(
                f"a piskvork engine plays five in a row on sides of {MIN_SIDE} or more, "
                f"not {board.spec}"
            )
        if board.is_over():
            raise ExternalEngineError("the game is over: there is no move to ask for")
        if not self.running:
            self.close()
            self._start()
        if self._size != (board.rows, board.cols):
            if board.rows == board.cols:
                self._send(f"START {board.cols}")
            else:
                self._send(f"RECTSTART {board.cols},{board.rows}")
            reply = self._answer(time.perf_counter() + START_TIMEOUT, "START")
            if reply.upper() != "OK":
                raise self._fail(f"the engine answered {reply[:200]!r} to START")
            self._size = (board.rows, board.cols)
        turn_ms = max(1, int(self.turn_time * 1000))
        mover = board.turn
        stones = []
        for row, col in board.moves:
            owner = 1 if board[(row, col)] is mover else 2
            stones.append(f"{col},{row},{owner}")
        self._send(
            f"INFO timeout_turn {turn_ms}",
            "INFO timeout_match 0",
            f"INFO rule {RULE_BITS[board.rule]}",
            "BOARD",
            *stones,
            "DONE",
        )
        reply = self._answer(time.perf_counter() + self.turn_time + GRACE, "a move")
        return self._cell(board, reply)

    def _cell(self, board: Board, reply: str) -> Cell:
        parts = reply.replace(" ", "").split(",")
        try:
            x, y = (int(p) for p in parts)
        except ValueError:
            raise self._fail(f"the engine answered {reply[:200]!r}, not a move x,y") from None
        if not (0 <= x < board.cols and 0 <= y < board.rows):
            raise self._fail(f"the engine played {x},{y}, off the {board.cols}x{board.rows} board")
        if board[(y, x)] is not None:
            raise self._fail(f"the engine played {x},{y}, which is already taken")
        return y, x

