"""`caro pbrain`: the Gomocup / piskvork engine protocol on stdin and stdout.

A manager (piskvork, liskvork, gomocup tournament scripts) starts the brain and talks to it one
line at a time: START/RECTSTART set up a board, BEGIN/TURN/BOARD ask for a move ("x,y" with x the
column and y the row, both 0-based), INFO passes time limits and the rule, END stops the process.
Protocol: https://plastovicka.github.io/protocl2en.htm

A thread reads stdin into a queue the whole time, so the brain hears the manager while it
thinks: END ends the process at once, INFO is applied once the move is sent, and any other command
abandons the move being thought about (no answer is sent for it: the manager has moved on) and is
then handled. Each move gets the turn time or its share of the match clock (INFO timeout_turn,
timeout_match, time_left), counted from the moment the command arrived.

The search is the bot's own (engine.ai at --level; impossible is the compiled core on these
boards), run in a thread: the compiled core runs without the GIL, so the reader and the main
thread go on while it thinks, and an abandoned search is ended through its Stop.

Swap2 (and swap) openings come as SWAP2BOARD, the Gomocup extension of the protocol: the stones
so far (none, three or five) and DONE; the brain answers with its part of the opening, decided
by engine.ai.openings at --level: three stones; or SWAP (it takes black), one stone (it takes
white and plays the fourth or sixth move) or, after three, two stones (the fourth and fifth, the
other side then chooses). https://gomocup.org/news/experimental-tournament-update-2020/
"""

from __future__ import annotations

import argparse
import ctypes
import math
import os
import queue
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, TextIO

from ..ai.stop import Stop
from ..game.board import Board
from ..game.openings import Action, Choice, Opening, OpeningError, OpeningState, StepKind
from ..game.types import Cell, IllegalMoveError, Level, Mark, Rule
from ..support import cores
from .choices import LEVEL_METAVAR, level_name

if TYPE_CHECKING:
    from ..ai.levels import MoveInfo

NAME = "caro"
VERSION = "0.1.0"
ABOUT = f'name="{NAME}", version="{VERSION}", author="caro team", country="Vietnam"'

MIN_SIDE, MAX_SIDE = 5, 26  # below 5 a five cannot fit; above 26 cells have no name
K = 5  # every game of the protocol is five in a row

# Bits of INFO rule (the protocol's bitmask).
RULE_EXACT, RULE_CONTINUOUS, RULE_RENJU, RULE_CARO = 1, 2, 4, 8
# Whole INFO rule values that engines read as a rule with an opening (Rapfi's numbers, which
# Yixin Board sends): freestyle five with swap, and with swap2. As bitmasks they would be renju
# with exactly five (which renju already is for black) and continuous renju (not supported).
RULE_OPENINGS: dict[int, tuple[Rule, Opening]] = {
    5: (Rule.FREESTYLE, Opening.SWAP),
    6: (Rule.FREESTYLE, Opening.SWAP2),
}
# Stones a SWAP2BOARD may carry, and the opening decisions they stand for.
SWAP2_STONES: dict[int, tuple[str, ...]] = {0: (), 3: (), 5: (Choice.PLACE_TWO.value,)}

# Time defaults until INFO says otherwise (milliseconds), as in the protocol's example brain.
DEFAULT_TIMEOUT_TURN_MS = 30_000
# How many more of our own moves a game is assumed to last when sharing out the match clock:
# short enough to spend time early, long enough never to run the clock out.
MOVES_LEFT_GUESS = 25
MIN_THINK = 0.02  # seconds: even "play fast" gets a glance at immediate wins and blocks
# Kept back from every move's time for pipe latency and the answer's way out: a fixed part and a
# share of the time (a longer search overshoots its deadline by more when it stops).
LATENCY = 0.03
LATENCY_SHARE = 0.02
# Seconds of the match clock never spent, so that a slow last move cannot lose on time.
MATCH_RESERVE = 0.1
# How long a brain may take to load the host's built cores before it answers START: managers
# give a brain's start the time to load its tables (bench.match 60 s), while a move made by the
# pure-Python search meanwhile reads a few plies where the core reads ten.
LOAD_AT_START_S = 5.0
REBUILD_BUDGET = 50_000  # pushes allowed when searching a move order for a BOARD position

# (board, seconds, stop): the move for the side to move, within `seconds` or sooner once
# `stop` is set; with how it was found (a MoveInfo), the brain tells the manager its depth.
ChooseFn = Callable[[Board, float, Stop], "Cell | MoveInfo"]
# (opening state, seconds): the brain's action at the opening's next step.
DecideFn = Callable[[OpeningState, float], Action]


class ProtocolError(ValueError):
    """A command the brain cannot act on; its message goes back after ERROR."""


def rule_from_bits(bits: int) -> tuple[Rule, list[str]]:
    """The board rule for an INFO rule value, and messages about what is not supported."""
    rule, _, notes = rule_and_opening(bits)
    return rule, notes


def rule_and_opening(bits: int) -> tuple[Rule, Opening, list[str]]:
    """The board rule and the opening for an INFO rule value (RULE_OPENINGS, else the
    protocol's bitmask), and messages about what is not supported."""
    if bits in RULE_OPENINGS:
        rule, opening = RULE_OPENINGS[bits]
        return rule, opening, []
    notes = []
    if bits & RULE_CONTINUOUS:
        notes.append("continuous games are not supported: the game ends at the first win")
    if bits & RULE_RENJU:
        return Rule.RENJU, Opening.FREE, notes
    if bits & RULE_CARO:
        return Rule.CARO, Opening.FREE, notes
    if bits & RULE_EXACT:
        return Rule.EXACT, Opening.FREE, notes
    return Rule.FREESTYLE, Opening.FREE, notes


def move_time(
    timeout_turn_ms: int, timeout_match_ms: int, time_left_ms: int | None, empty_cells: int
) -> float:
    """Seconds to think on this move: the turn limit, or a fair share of the match clock if less,
    less what the answer needs to get back to the manager."""
    # timeout_turn 0 means "as fast as possible"; timeout_match 0 means no match limit.
    limit = timeout_turn_ms / 1000 if timeout_turn_ms > 0 else MIN_THINK
    if timeout_match_ms > 0:
        # Until the manager says how much is left, the whole match clock is.
        left_ms = timeout_match_ms if time_left_ms is None else time_left_ms
        left = max(0.0, left_ms / 1000 - MATCH_RESERVE)
        moves_left = max(1, min(MOVES_LEFT_GUESS, math.ceil(empty_cells / 2)))
        limit = min(limit, left / moves_left)
    return max(MIN_THINK, limit * (1 - LATENCY_SHARE) - LATENCY)


def finished_line(rule: Rule, stones: dict[Cell, Mark]) -> list[Cell] | None:
    """A winning line already on this set of stones, if any.

    Checked up front because such a position has no legal move order at all: whichever stone of
    the line came last would have ended the game, and stones never go away.
    """
    for (r, c), mark in stones.items():
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            if stones.get((r - dr, c - dc)) is mark:
                continue  # not the first stone of its run
            run = [(r, c)]
            while stones.get((run[-1][0] + dr, run[-1][1] + dc)) is mark:
                run.append((run[-1][0] + dr, run[-1][1] + dc))
            judged = rule.for_mark(mark)
            if len(run) < K or (judged is not Rule.FREESTYLE and len(run) != K):
                continue
            if judged is Rule.CARO:
                before = stones.get((r - dr, c - dc))
                after = stones.get((run[-1][0] + dr, run[-1][1] + dc))
                if before is mark.other and after is mark.other:
                    continue
            return run
    return None


def arrange(rows: int, cols: int, rule: Rule, xs: list[Cell], os: list[Cell]) -> Board:
    """A board with these stones, pushed in an order where no push before the last ends the game.

    Stones arrive without their history, and under the exact rules a line can be a win on the
    way and not at the end (a five later made six, or closed at both ends), so the order matters;
    a depth-first search over orders finds one, trying the given order first.
    """
    if len(xs) - len(os) not in (0, 1):
        raise ProtocolError(
            f"X has {len(xs)} stone{'' if len(xs) == 1 else 's'} and O {len(os)}: X must have "
            "as many or one more"
        )
    stones = {cell: Mark.X for cell in xs} | {cell: Mark.O for cell in os}
    line = finished_line(rule, stones)
    if line is not None:
        names = " ".join(f"{c},{r}" for r, c in line)
        raise ProtocolError(f"the position is already won: {stones[line[0]]} has {names}")
    if len(stones) == rows * cols:
        raise ProtocolError("the board is full")
    board = Board(rows, cols, K, rule)
    pools = {Mark.X: list(xs), Mark.O: list(os)}
    budget = [REBUILD_BUDGET]

    def place() -> bool:
        pool = pools[board.turn]
        if not pool:
            return not pools[board.turn.other]
        for i in range(len(pool)):
            if budget[0] <= 0:
                raise ProtocolError("position too tangled to rebuild a move order")
            budget[0] -= 1
            cell = pool.pop(i)
            board.push(cell)
            if not board.is_over() and place():
                return True
            board.pop()
            pool.insert(i, cell)
        return False

    if not place():
        raise ProtocolError("no move order reaches this position without the game ending first")
    return board


def read_block(lines: Iterator[str]) -> list[str]:
    """The non-empty lines of a BOARD or SWAP2BOARD block up to DONE. Read whole before anything
    can fail, so that an error never leaves stone lines to be taken for commands."""
    block: list[str] = []
    for raw in lines:
        line = raw.strip()
        if line.upper() == "DONE":
            break
        if line:
            block.append(line)
    return block


@dataclass
class Brain:
    """The protocol state machine: feed it lines, it writes answers to `out`."""

    out: TextIO
    choose: ChooseFn
    # The opening decisions (SWAP2BOARD); the AI at normal level unless given.
    decide: DecideFn | None = None
    rows: int | None = None
    cols: int | None = None
    board: Board | None = None
    rule_bits: int = 0
    timeout_turn: int = DEFAULT_TIMEOUT_TURN_MS
    timeout_match: int = 0
    time_left: int | None = None
    info: dict[str, str] = field(default_factory=dict)
    # Set when stdin is read by a CommandReader: the search then runs in a thread that a new
    # command can cut short, and the move's time counts from the command's arrival.
    reader: CommandReader | None = None
    # Send each move's depth and nodes as a MESSAGE line before the move (--say-depth).
    say_depth: bool = False
    # The last search cut short, if it may still be unwinding (see think).
    abandoned: threading.Thread | None = None

    @property
    def rule(self) -> Rule:
        return rule_from_bits(self.rule_bits)[0]

    @property
    def opening(self) -> Opening:
        """The opening SWAP2BOARD plays: swap under INFO rule 5, else swap2."""
        return Opening.SWAP if rule_and_opening(self.rule_bits)[1] is Opening.SWAP else Opening.SWAP2

    # ----------------------------------------------------------------- output
    def send(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def send_move(self, cell: Cell) -> None:
        row, col = cell
        self.send(f"{col},{row}")

    # ----------------------------------------------------------------- input
    def run(self, lines: Iterator[str]) -> None:
        """Answer lines until END or the end of input."""
        for raw in lines:
            if not self.handle(raw, lines):
                return

    def handle(self, raw: str, lines: Iterator[str]) -> bool:
        """Act on one command line (BOARD reads its stones from `lines`); False after END."""
        line = raw.strip()
        if not line:
            return True
        command, _, rest = line.partition(" ")
        command = command.upper()
        rest = rest.strip()
        if command == "END":
            return False
        handler = self.HANDLERS.get(command)
        if handler is None:
            self.send(f"UNKNOWN command {command!r} is not supported")
            return True
        try:
            handler(self, rest, lines)
        except ProtocolError as error:
            self.send(f"ERROR {error}")
        return True

    def parse_cell(self, text: str) -> Cell:
        """A board cell from "x,y" (column, row)."""
        board = self.need_board()
        parts = text.replace(" ", "").split(",")
        try:
            x, y = (int(p) for p in parts)
        except ValueError:
            raise ProtocolError(f"bad coordinates {text!r}: expected x,y") from None
        if not (0 <= x < board.cols and 0 <= y < board.rows):
            raise ProtocolError(f"{x},{y} is off the {board.cols}x{board.rows} board")
        return y, x

    def need_board(self) -> Board:
        if self.board is None:
            raise ProtocolError("no board yet: send START first")
        return self.board

    # ----------------------------------------------------------------- commands
    def cmd_start(self, rest: str, lines: Iterator[str]) -> None:
        try:
            size = int(rest)
        except ValueError:
            raise ProtocolError(f"bad board size {rest!r}") from None
        self.new_board(size, size)

    def cmd_rectstart(self, rest: str, lines: Iterator[str]) -> None:
        try:
            width, height = (int(p) for p in rest.replace(" ", "").split(","))
        except ValueError:
            raise ProtocolError(f"bad board size {rest!r}: expected width,height") from None
        self.new_board(height, width)

    def new_board(self, rows: int, cols: int) -> None:
        if not (MIN_SIDE <= rows <= MAX_SIDE and MIN_SIDE <= cols <= MAX_SIDE):
            raise ProtocolError(
                f"unsupported board size {cols}x{rows}: "
                f"caro plays sides from {MIN_SIDE} to {MAX_SIDE}"
            )
        self.rows, self.cols = rows, cols
        self.board = Board(rows, cols, K, self.rule)
        self.send("OK")

    def cmd_restart(self, rest: str, lines: Iterator[str]) -> None:
        if self.rows is None or self.cols is None:
            raise ProtocolError("no board yet: send START first")
        self.new_board(self.rows, self.cols)

    def cmd_begin(self, rest: str, lines: Iterator[str]) -> None:
        board = self.need_board()
        if board.ply:
            raise ProtocolError("BEGIN needs an empty board: send RESTART or BOARD")
        self.reply()

    def cmd_turn(self, rest: str, lines: Iterator[str]) -> None:
        self.push(self.parse_cell(rest))
        self.reply()

    def cmd_play(self, rest: str, lines: Iterator[str]) -> None:
        # The manager imposes our own move (after a SUGGEST); we play it and confirm it.
        cell = self.parse_cell(rest)
        self.push(cell)
        self.send_move(cell)

    def push(self, cell: Cell) -> None:
        board = self.need_board()
        where = f"{cell[1]},{cell[0]}"
        if board[cell] is not None:
            raise ProtocolError(f"illegal move {where}: the cell is already taken")
        try:
            board.push(cell)
        except IllegalMoveError as error:
            raise ProtocolError(f"illegal move {where}: {error}") from None

    def cmd_board(self, rest: str, lines: Iterator[str]) -> None:
        block = read_block(lines)
        board = self.need_board()
        own: list[Cell] = []
        opp: list[Cell] = []
        problems: list[str] = []
        seen: set[Cell] = set()
        for line in block:
            parts = line.replace(" ", "").split(",")
            try:
                x, y, who = (int(p) for p in parts)
            except ValueError:
                problems.append(f"bad stone line {line!r}")
                continue
            cell = (y, x)
            if not (0 <= x < board.cols and 0 <= y < board.rows):
                problems.append(f"{x},{y} is off the board")
            elif cell in seen:
                problems.append(f"two stones on {x},{y}")
            elif who == 1:
                own.append(cell)
            elif who == 2:
                opp.append(cell)
            elif who == 3:
                problems.append(
                    f"{x},{y} is a continuous-game stone (3), which caro does not support"
                )
            else:
                problems.append(f"{x},{y} has an unknown owner {who}")
            seen.add(cell)
        if problems:
            raise ProtocolError("; ".join(problems))
        # We are to move: with equal counts we are X (first player), else the opponent started.
        if len(own) == len(opp):
            xs, os = own, opp
        elif len(opp) == len(own) + 1:
            xs, os = opp, own
        else:
            raise ProtocolError(
                f"{len(own)} own and {len(opp)} opponent stones: it cannot be our turn "
                "(we need as many stones as the opponent, or one fewer)"
            )
        self.board = arrange(board.rows, board.cols, self.rule, xs, os)
        self.reply()

    def cmd_takeback(self, rest: str, lines: Iterator[str]) -> None:
        cell = self.parse_cell(rest)
        board = self.need_board()
        if board[cell] is None:
            raise ProtocolError(f"nothing to take back at {rest}")
        if cell == board.last_move:
            board.pop()
        elif board[cell] is board.turn.other:
            # Rebuilt from a BOARD, the stones' order is ours, not the game's: rebuild without it.
            self.board = self.rebuild(board, drop=cell)
        else:
            raise ProtocolError(f"{rest} was not the last move")
        self.send("OK")

    def rebuild(self, board: Board, drop: Cell | None = None) -> Board:
        stones: dict[Mark, list[Cell]] = {Mark.X: [], Mark.O: []}
        for cell in board.moves:
            if cell != drop:
                mark = board[cell]
                assert mark is not None
                stones[mark].append(cell)
        return arrange(board.rows, board.cols, self.rule, stones[Mark.X], stones[Mark.O])

    def cmd_info(self, rest: str, lines: Iterator[str]) -> None:
        key, _, value = rest.partition(" ")
        key = key.lower()
        value = value.strip()
        self.info[key] = value
        numeric = {"timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule"}
        if key not in numeric:
            return  # evaluate, folder and future keys: nothing to do (the protocol says ignore)
        try:
            number = int(value)
        except ValueError:
            self.send(f"MESSAGE ignored INFO {key} {value!r}: not a whole number")
            return
        if key == "timeout_turn":
            self.timeout_turn = number
        elif key == "timeout_match":
            self.timeout_match = number
        elif key == "time_left":
            self.time_left = number
        elif key == "rule":
            self.set_rule(number)

    def set_rule(self, bits: int) -> None:
        rule, notes = rule_from_bits(bits)
        for note in notes:
            self.send(f"MESSAGE {note}")
        old = self.rule
        self.rule_bits = bits
        if self.board is not None and rule is not old:
            try:
                self.board = self.rebuild(self.board)
            except ProtocolError as error:
                raise ProtocolError(
                    f"the stones on the board do not fit rule {rule}: {error}"
                ) from None

    def cmd_about(self, rest: str, lines: Iterator[str]) -> None:
        self.send(ABOUT)

    def cmd_swap2board(self, rest: str, lines: Iterator[str]) -> None:
        block = read_block(lines)
        board = self.need_board()
        if len(block) not in SWAP2_STONES:
            raise ProtocolError(
                f"SWAP2BOARD carries 0, 3 or 5 stones, not {len(block)}"
            )
        start = Board(board.rows, board.cols, K, self.rule)
        for line in block:
            cell = self.parse_cell(line)
            if start[cell] is not None:
                raise ProtocolError(f"two stones on {line}")
            try:
                start.push(cell)
            except IllegalMoveError as error:
                raise ProtocolError(f"illegal stone {line}: {error}") from None
        try:
            state = OpeningState(self.opening, start, SWAP2_STONES[len(block)])
        except OpeningError as error:
            raise ProtocolError(f"the {self.opening.value} opening: {error}") from None
        self.board = start
        self.answer_opening(state)

    def answer_opening(self, state: OpeningState) -> None:
        """Take the brain's part of the opening from `state` and send it as one line."""
        seconds = move_time(
            self.timeout_turn, self.timeout_match, self.time_left, len(state.board.legal_moves)
        )
        if self.reader is not None:
            seconds = max(MIN_THINK, seconds - (time.perf_counter() - self.reader.received))
        deadline = time.perf_counter() + seconds
        decide = self.decide or ai_decider(Level.NORMAL.value, random.Random(0))
        placed: list[Cell] = []
        step = state.step
        assert step is not None
        side = step.side
        while state.step is not None and state.step.side is side:
            step = state.step
            # The decisions still to take this turn: a choice may be followed by two stones
            # (place_two) or by a move (reply, which counts what was spent before it).
            left = 3 if step.kind is StepKind.CHOOSE else step.count
            share = max(MIN_THINK, (deadline - time.perf_counter()) / left)
            action = decide(state, share)
            state = state.apply(action)
            if action.kind is StepKind.CHOOSE:
                if action.choice is Choice.PLACE_TWO:
                    continue
                break
            assert action.cell is not None
            placed.append(action.cell)
        self.board = state.board
        if placed:
            self.send(" ".join(f"{col},{row}" for row, col in placed))
            return
        x_side = state.x_side
        if state.done and x_side is side:
            # We take black: the other side moves next, with white.
            self.send("SWAP")
            return
        # We keep white and play its move now, as after a TURN.
        self.reply()

    # ----------------------------------------------------------------- thinking
    def reply(self) -> None:
        """Choose, play and send our move on the current board."""
        board = self.need_board()
        if board.is_over():
            outcome = board.outcome()
            assert outcome is not None
            result = "a draw" if outcome.winner is None else f"won by {outcome.winner}"
            raise ProtocolError(f"the game is over ({result}): no move to make")
        seconds = move_time(
            self.timeout_turn, self.timeout_match, self.time_left, len(board.legal_moves)
        )
        if self.abandoned is not None:
            # The cut search still holds the engine's tables until it has unwound (the compiled
            # core within a few hundred nodes of its Stop, Python at its next step); the wait
            # counts against this move's time like everything since the command arrived.
            self.abandoned.join()
            self.abandoned = None
        if self.reader is not None:
            spent = time.perf_counter() - self.reader.received
            seconds = max(MIN_THINK, seconds - spent)
        try:
            chosen = self.think(board, seconds)
            if chosen is None:
                return  # cut short by a new command, which is next in line
            if not isinstance(chosen, tuple):
                if self.say_depth:
                    # As Gomocup brains do: what the search reached, for the manager's log.
                    self.send(
                        f"MESSAGE depth {chosen.depth} nodes {chosen.nodes} "
                        f"time {chosen.seconds * 1000:.0f}ms"
                    )
                chosen = chosen.move
            cell = chosen
            board.push(cell)
        except Exception as error:  # a lost game beats a brain that hangs or dies
            cell = fallback_move(board)
            self.send(
                f"MESSAGE the AI failed ({type(error).__name__}: {error}); "
                f"playing {cell[1]},{cell[0]}"
            )
            board.push(cell)
        self.send_move(cell)

    def think(self, board: Board, seconds: float) -> Cell | MoveInfo | None:
        """The chooser's move, or None if a command from the manager interrupted it."""
        reader = self.reader
        stop = Stop()
        if reader is None:
            return self.choose(board, seconds, stop)
        outcome: list[Cell | MoveInfo | BaseException] = []
        done = threading.Event()
        position = board.copy()  # an abandoned search may still be unwinding on its copy

        def work() -> None:
            try:
                outcome.append(self.choose(position, seconds, stop))
            except _Interrupted:
                pass
            except BaseException as error:  # handed to the main thread, which reports it
                outcome.append(error)
            finally:
                done.set()
                reader.wake.set()

        thread = threading.Thread(target=work, name="caro-pbrain-search", daemon=True)
        reader.start_thinking()
        thread.start()
        reader.wake.wait()
        reader.stop_thinking()
        if not done.is_set():
            stop.set()  # the compiled core: it reads the flag at every node
            _interrupt(thread)  # the searches that do not read it (other levels, the solver)
            self.abandoned = thread
            return None
        result = outcome[0]
        if isinstance(result, BaseException):
            raise result
        return result

    HANDLERS: ClassVar[dict[str, Callable[[Brain, str, Iterator[str]], None]]] = {
        "START": cmd_start,
        "RECTSTART": cmd_rectstart,
        "RESTART": cmd_restart,
        "BEGIN": cmd_begin,
        "TURN": cmd_turn,
        "PLAY": cmd_play,
        "BOARD": cmd_board,
        "TAKEBACK": cmd_takeback,
        "INFO": cmd_info,
        "ABOUT": cmd_about,
        "SWAP2BOARD": cmd_swap2board,
    }


def fallback_move(board: Board) -> Cell:
    """The free cell nearest the centre: used only if the AI itself fails."""
    mid_r, mid_c = (board.rows - 1) / 2, (board.cols - 1) / 2
    return min(board.legal_moves, key=lambda c: (abs(c[0] - mid_r) + abs(c[1] - mid_c), c))


def ai_decider(level: str, rng: random.Random) -> DecideFn:
    """engine.ai.openings at `level` as the brain's opening decisions."""

    def decide(state: OpeningState, seconds: float) -> Action:
        from ..ai.openings import decide as ai_decide

        return ai_decide(state, level, rng=rng, time_limit=seconds)

    return decide


def ai_chooser(level: str, rng: random.Random, node_limit: int | None = None) -> ChooseFn:
    """engine.ai at `level` as the brain's move source (imported only when a brain starts)."""
    from ..ai import analyse_move
    from ..ai.levels import CORE_SHARE

    def choose(board: Board, seconds: float, stop: Stop) -> MoveInfo:
        # The bot's search at the same level (impossible: the compiled core), ended early by
        # `stop`. With a node limit the core starts each move from empty tables, so a move
        # depends on its position alone, not on what earlier (or abandoned) searches stored.
        # The level keeps 1 - CORE_SHARE of its time for the bot's process pool (pickling the
        # move back); here nothing follows but the answer's line, and `seconds` already leaves
        # room for that (LATENCY), so the searches get all of `seconds`.
        return analyse_move(
            board,
            level,
            rng=rng,
            time_limit=seconds / CORE_SHARE,
            node_limit=node_limit,
            stop=stop,
            fresh_tables=node_limit is not None,
            reason=False,
        )

    return choose


class _Interrupted(BaseException):
    """Raised inside an abandoned search thread to end it; never seen outside that thread."""


def _interrupt(thread: threading.Thread) -> None:
    # For the searches that do not read a Stop (the levels below impossible, the endgame
    # solver): Python has no other way to stop a thread from outside than this documented C-API
    # call. The exception is raised in the thread at its next bytecode, so a pure-Python search
    # ends within microseconds; in compiled code (the core, the solver's core) it waits until
    # that returns: the core at once through its Stop, the solver's at its own time limit. The
    # search thread is a daemon, so one that is still unwinding never keeps the process alive.
    if thread.ident is not None:
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(thread.ident), ctypes.py_object(_Interrupted)
        )


# Commands that never interrupt a search: INFO only updates settings (applied after the move).
NON_INTERRUPTING = frozenset({"", "INFO"})


class CommandReader:
    """Reads the manager's lines on a thread of its own, so they are heard during a search.

    END during a search ends the process at once (after flushing what was already written);
    other commands wake the brain's wait (see Brain.think) and queue up for the main loop.
    """

    def __init__(self, stream: TextIO, out: TextIO) -> None:
        self.stream = stream
        self.out = out
        self.lines: queue.Queue[tuple[str, float] | None] = queue.Queue()
        self.wake = threading.Event()
        self.received = time.perf_counter()  # arrival time of the last line handed out
        self._thinking = False
        self._waiting = 0  # queued lines that would interrupt a search
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, name="caro-pbrain-stdin", daemon=True)
        self._thread.start()

    def start_thinking(self) -> None:
        with self._lock:
            self.wake.clear()
            self._thinking = True
            # A command already waiting cuts the search short before it starts.
            if self._waiting:
                self.wake.set()

    def stop_thinking(self) -> None:
        with self._lock:
            self._thinking = False

    def _read(self) -> None:
        while True:
            line = self.stream.readline()
            arrived = time.perf_counter()
            if not line:
                self.lines.put(None)
                self.wake.set()  # the manager is gone: stop thinking for it
                return
            command = line.strip().partition(" ")[0].upper()
            with self._lock:
                if self._thinking and command == "END":
                    self.out.flush()
                    os._exit(0)
                self.lines.put((line, arrived))
                if command not in NON_INTERRUPTING:
                    self._waiting += 1
                    if self._thinking:
                        self.wake.set()

    def __iter__(self) -> Iterator[str]:
        while True:
            item = self.lines.get()
            if item is None:
                return
            line, self.received = item
            if line.strip().partition(" ")[0].upper() not in NON_INTERRUPTING:
                with self._lock:
                    self._waiting -= 1
            yield line


def lines_of(stream: TextIO) -> Iterator[str]:
    # readline, not iteration, so each command is handled as soon as its line arrives.
    while True:
        line = stream.readline()
        if not line:
            return
        yield line


def serve(
    inp: TextIO,
    out: TextIO,
    choose: ChooseFn,
    *,
    listen: bool = False,
    decide: DecideFn | None = None,
    say_depth: bool = False,
) -> int:
    """Answer the manager on `inp`/`out` until END or the end of input; with `listen`, stdin is
    read on a thread of its own so commands are heard while the brain thinks; with `say_depth`
    each move comes after a MESSAGE line of its depth, nodes and time."""
    if not listen:
        Brain(out=out, choose=choose, decide=decide, say_depth=say_depth).run(lines_of(inp))
        return 0
    reader = CommandReader(inp, out)
    Brain(out=out, choose=choose, decide=decide, reader=reader, say_depth=say_depth).run(
        iter(reader)
    )
    return 0


def parse_node_limit(text: str | None) -> int | None:
    """The --node-limit value; ValueError for anything but a whole number of at least 1."""
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"--node-limit must be a whole number, not {text!r}") from None
    if value < 1:
        raise ValueError(f"--node-limit must be at least 1, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--level",
        default=Level.IMPOSSIBLE.value,
        type=level_name,
        metavar=LEVEL_METAVAR,
        help=f"AI level (default: {Level.IMPOSSIBLE})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the AI's random choices (default 0)"
    )
    parser.add_argument(
        "--node-limit",
        default=None,
        help="search nodes per move instead of the clock (reproducible games; ignores INFO times)",
    )
    parser.add_argument(
        "--say-depth",
        action="store_true",
        help="send each move's depth, nodes and time as a MESSAGE line before it",
    )


def ready_cores(node_limit: int | None) -> None:
    """Make the compiled cores ready for "impossible" before the brain reads its first command,
    as far as a manager's START allows."""
    from ..ai import load_cores_when_ready, warm_up

    if node_limit is not None:
        # Reproducible moves: every one of them the compiled core's, so it is ready first.
        warm_up()
        return
    # A manager times every answer: the brain plays with the pure-Python search until the
    # compiled cores are loaded (in a thread) or, on a host that has never built them, built by
    # a process of their own (minutes) and then loaded.
    cores.set_policy(cores.Policy.FALL_BACK)
    built = cores.built()
    cores.start_background_build()
    load_cores_when_ready()
    if built:
        # Built: loading takes a second or two, within what START is given. Loaded while the
        # pure-Python search plays, it would wait for the interpreter the search holds, for
        # several moves.
        cores.wait_loaded(LOAD_AT_START_S)


def run(args: argparse.Namespace) -> int:
    # Checked before anything starts, in one line: a manager shows only the brain's first line.
    try:
        node_limit = parse_node_limit(args.node_limit)
    except ValueError as error:
        print(f"caro pbrain: {error}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    choose = ai_chooser(args.level, rng, node_limit)
    decide = ai_decider(args.level, rng)
    if Level.parse(args.level) is Level.IMPOSSIBLE:
        ready_cores(node_limit)
    return serve(sys.stdin, sys.stdout, choose, listen=True, decide=decide, say_depth=args.say_depth)
