"""What runs in the CPU pool's worker processes: one AI decision or a slice of a review, each
from plain picklable arguments. The UI's drawing jobs are its own (bot.ui.picture_jobs).

Kept tiny and free of Discord imports so spawned worker processes start quickly.
"""

from __future__ import annotations

import atexit
import logging
import os
import random
import threading
import time
from typing import TYPE_CHECKING, Any

from engine import Board, Rule
from engine.game.notation import cell_name
from engine.game.openings import Opening, OpeningState
from engine.game.types import Level
from engine.players.external import ExternalEngine, ExternalEngineError, supports
from engine.support import cores

log = logging.getLogger(__name__)

# What plays when the external engine cannot: it died, stalled, answered nonsense, or the board
# is not one a piskvork brain plays (k other than 5).
EXTERNAL_FALLBACK = Level.IMPOSSIBLE.value

if TYPE_CHECKING:
    from engine.analysis.review import ReviewWork

PARENT_CHECK_INTERVAL = 1.0
WORKER_NICENESS = 10


def think(board_text: str, level: str, seed: str, time_limit: float | None) -> tuple[int, int, str]:
    """The AI's move on `board_text` and the reason id for it, reproducible from `seed`."""
    from engine.ai import choose_move, explain

    board = Board.from_text(board_text)
    row, col = choose_move(board, level, rng=random.Random(seed), time_limit=time_limit)
    # A fresh copy: explain must see the position before the move, whatever the search left.
    reason = explain(Board.from_text(board_text), (row, col))
    return row, col, reason


def decide_opening(
    opening: str,
    spec: tuple[int, int, int, str],
    moves: tuple[str, ...],
    decisions: tuple[str, ...],
    level: str,
    seed: str,
    time_limit: float | None,
) -> tuple[str, tuple[str, ...], str]:
    """The AI's action at the step of an opening (engine.ai.openings.decide), from the opening's
    stones (`moves`, in order) and decisions on a board of `spec` (rows, cols, k, rule): the
    step's kind, the cells it names and the colour choice ("" if none), reproducible from
    `seed`."""
    from engine.ai.openings import decide

    rows, cols, k, rule = spec
    board = Board(rows, cols, k, Rule.parse(rule))
    for name in moves:
        board.push_name(name)
    state = OpeningState(Opening(opening), board, decisions)
    action = decide(state, level, rng=random.Random(seed), time_limit=time_limit)
    cells = action.cells if action.cell is None else (action.cell,)
    choice = "" if action.choice is None else action.choice.value
    return action.kind.value, tuple(cell_name(cell) for cell in cells), choice


# One brain process per worker process and command, kept between moves.
_ENGINES: dict[tuple[str, ...], ExternalEngine] = {}


def review_slice(work: ReviewWork, seconds: float) -> ReviewWork:
    """About `seconds` more of a game review (engine.analysis.review.continue_review): the work so far,
    as plain data, goes back to the bot between slices, so a review never holds a worker long."""
    from engine.analysis.review import continue_review

    return continue_review(work, seconds)


def review_conclude(work: ReviewWork, seconds: float) -> dict[str, Any]:
    """The finished review of `work` (turning points and their lines, within `seconds`), in its
    JSON-ready form: what the bot caches and renders."""
    from engine.analysis.review import conclude_review

    return conclude_review(work, seconds).to_dict()


def puzzle_check(board_text: str, cell: str) -> Any:
    """engine.analysis.puzzles.check_move of the attacker's `cell` on `board_text`: a MoveCheck. Until
    this worker has the compiled core its threat search proves wins by fours only, so "no win
    found after the reply" (Refutation.HOLDS) on a big board is then UNKNOWN, not WRONG: a win
    by threes may still be there."""
    from engine.analysis.puzzles import MoveCheck, Refutation, Verdict, check_move, uses_solver

    board = Board.from_text(board_text)
    checked = check_move(board, cell)
    if (
        checked.verdict is Verdict.WRONG
        and checked.reason is Refutation.HOLDS
        and not uses_solver(board)
        and not cores.usable()
    ):
        return MoveCheck(Verdict.UNKNOWN, checked.move)
    return checked


def puzzle_mine(board_text: str, source: str) -> list[dict[str, Any]]:
    """The puzzles engine.analysis.puzzles.mine proves in the finished game on `board_text`, each as
    Puzzle.to_dict()."""
    from engine.analysis.puzzles import mine

    return [p.to_dict() for p in mine(Board.from_text(board_text), source=source)]


def _close_engines() -> None:
    for engine in _ENGINES.values():
        engine.close()
    _ENGINES.clear()


atexit.register(_close_engines)


def think_external(
    board_text: str,
    seed: str,
    command: tuple[str, ...],
    turn_time: float,
    fallback_time_limit: float | None,
) -> tuple[int, int, str, bool]:
    """The external engine's move and its reason id, and whether the engine made it (False: it
    failed or cannot play this board, and the "impossible" level played instead)."""
    from engine.ai import choose_move, explain

    board = Board.from_text(board_text)
    cell: tuple[int, int] | None = None
    if supports(board):
        engine = _ENGINES.get(command)
        if engine is None or engine.turn_time != turn_time:
            if engine is not None:
                engine.close()
            engine = _ENGINES[command] = ExternalEngine(command, turn_time)
        try:
            cell = engine.move(board)
        except ExternalEngineError as error:
            log.warning("external engine failed, %s plays instead: %s", EXTERNAL_FALLBACK, error)
    if cell is None:
        cell = choose_move(
            board, EXTERNAL_FALLBACK, rng=random.Random(seed), time_limit=fallback_time_limit
        )
        used = False
    else:
        used = True
    reason = explain(Board.from_text(board_text), cell)
    return cell[0], cell[1], reason, used


def warm_up() -> bool:
    """A first job for a new worker, so that the pool starts its processes before a player's
    move needs one (the compiled core loads in the worker's own background thread: init_worker)."""
    return True


def warm_up_quick() -> bool:
    """Loads what the quick levels use (pure Python, no compiled core) in the quick worker."""
    think(Board(3, 3, 3).text(), "easy", "warm-up", None)
    return True


def exit_with_parent(parent: int) -> None:
    """Pool initializer: end this worker when the bot process `parent` is gone.

    After a SIGKILL of the bot nothing tells its workers: each holds its own end of the task
    pipe open, so it never sees EOF, and every crash would leave the workers (and
    multiprocessing's resource tracker, which waits for them) running for ever. The pid comes
    from the bot, not from getppid() here: the bot may already be dead when this runs.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_INTERVAL)
        os._exit(0)

    threading.Thread(target=watch, name="caro-exit-with-parent", daemon=True).start()


def init_worker(parent: int, load_core: bool = True) -> None:
    """Pool initializer: follow the bot's life, yield the CPU to it, and never compile.

    Searches are batch work bounded by their own time limit; the bot's event loop answers
    people and must win the CPU when both want it (bench/load.py measures the difference).
    A worker plays with the pure-Python search until this host's compiled core is built (by
    the bot's background build, or `caro-bot --prepare`), then loads it in a thread of its own
    and switches over between two moves (`load_core`; the quick levels' worker never needs it).
    """
    exit_with_parent(parent)
    if hasattr(os, "nice"):  # not on Windows, where the workers keep the bot's priority
        os.nice(WORKER_NICENESS)
    cores.set_policy(cores.Policy.FALL_BACK)
    if load_core:
        from engine.ai import load_cores_when_ready

        load_cores_when_ready()
