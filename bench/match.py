"""A match between two Gomocup (piskvork) brains: a gauntlet against a reference engine, or a
sequential test (SPRT) between two builds of caro.

    python -m bench.match --first "caro=.venv/bin/caro pbrain --level impossible" \\
        --second "rapfi=/tmp/rapfi/src/Rapfi/build/pbrain-rapfi" --games 100 --jobs 2
    python -m bench.match --first "new=.venv/bin/caro pbrain" --second "old=../old/.venv/bin/caro pbrain" \\
        --sprt 0,20 --games 400 --turn 0.2

Each brain runs as its own process, one per game in progress, started in its command's folder
(Rapfi reads its config.toml from there) and spoken to as a Gomocup manager does: START, the
INFO lines (turn time, no match clock, rule, and any given with `--info NAME=KEY VALUE`, such as
Rapfi's "STRENGTH 60"), the opening and each move after it as BOARD, then TURN. With
`--keep-brains` each of the `--jobs` keeps its two brains running from one game to the next
(RESTART between games, as piskvork does), where starting a process would cost more than the
moves of a fast game; a brain that failed in a game is started afresh for the next.
Openings are seeded random stones in the centre (`--square N`: in the central N×N square); each
is played twice, once with each brain on each colour, so neither gets the luckier side.
`--balanced` keeps only openings whose value, by caro's own search at a node limit, is within
that many points of even. `--openings FILE` keeps them: the first match writes the file, later
ones read it (a match between other builds plays the same openings without searching for them
again).

A move counts from the line sent to the answer read back. One later than the turn time plus
`--grace` loses the game (a time-out; a brain's first move of a game, which also pays for its
start, may take FIRST_GRACE more); every move's time is kept, and the report gives the
p50 / p99 / slowest and how many went past the turn time itself. A move that is illegal (taken,
off the board, a renju forbidden point for black) loses too. Whatever a brain says between the
request and its answer (MESSAGE lines: Rapfi's depth, value and principal variation) is kept per
move in `--log`, a JSON line per game.

Printed: wins, draws and losses of the first brain, its score with the 95% error bar as Elo, and
with `--sprt ELO0,ELO1` the log-likelihood ratio of the sequential test (trinomial model,
alpha = beta = 0.05 unless given), which ends the match as soon as it is decided.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import queue
import random
import re
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import IO

from engine.game.board import Board
from engine.game.types import Cell, IllegalMoveError, Rule
from engine.programs.arena import elo_estimate, random_opening
from engine.support.stats import percentile

RULE_BITS = {Rule.FREESTYLE: 0, Rule.EXACT: 1, Rule.RENJU: 4, Rule.CARO: 8}
START_TIMEOUT = 60.0  # a first start may build or load caches
FIRST_GRACE = 5.0  # seconds past the turn time allowed for a brain's first move of a game
SETTLE = 0.05  # seconds between a brain's answer and the next request to it


@dataclass(frozen=True, slots=True)
class Brain:
    name: str
    argv: list[str]
    cwd: str
    info: tuple[str, ...] = ()  # more INFO lines for each game, such as "STRENGTH 60" (Rapfi)


def parse_brain(text: str) -> Brain:
    """NAME=COMMAND; the brain starts in the folder of its program."""
    name, sep, command = text.partition("=")
    if not sep or not name or not command.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=COMMAND, got {text!r}")
    argv = shlex.split(command)
    program = argv[0]
    folder = os.path.dirname(os.path.abspath(program)) if os.sep in program else os.getcwd()
    if os.sep in program:
        argv[0] = os.path.abspath(program)
    return Brain(name, argv, folder)


class BrainError(Exception):
    pass


class Process:
    """One running brain: lines in, lines out (read by a thread so a silence can be timed)."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.proc = subprocess.Popen(
            brain.argv, cwd=brain.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.answered = 0.0  # when its last answer was read
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        with contextlib.suppress(OSError, ValueError):
            for line in self.proc.stdout:
                self.lines.put(line.strip())
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("".join(line + "\n" for line in lines))
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise BrainError(f"{self.brain.name} is gone") from None

    def answer(self, deadline: float, chatter: list[str]) -> str:
        """The next line that is not chatter, by `deadline`; chatter goes into `chatter`."""
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                raise BrainError(f"{self.brain.name} did not answer in time") from None
            if line is None:
                raise BrainError(f"{self.brain.name} exited")
            head = line.split(" ", 1)[0].upper()
            if head in ("MESSAGE", "DEBUG", "SUGGEST", "UNKNOWN"):
                chatter.append(line)
                continue
            if head == "ERROR":
                raise BrainError(f"{self.brain.name} answered {line[:200]}")
            if line:
                self.answered = time.perf_counter()
                return line

    def close(self) -> None:
        with contextlib.suppress(BrainError):
            self.send("END")
        try:
            self.proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class Game:
    index: int
    opening: tuple[Cell, ...]
    black: str  # the brain that moves first after the opening's stones
    white: str
    winner: str | None = None  # a brain's name, None for a draw
    reason: str = ""
    moves: list[dict[str, object]] = field(default_factory=list)


class Kept:
    """The brains each worker thread keeps between its games (`--keep-brains`)."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._all: list[Process] = []
        self._lock = threading.Lock()
        self.started = 0  # processes started, for the report

    def _mine(self) -> dict[str, Process]:
        mine: dict[str, Process] | None = getattr(self._local, "procs", None)
        if mine is None:
            mine = self._local.procs = {}
        return mine

    def take(self, brain: Brain) -> tuple[Process, bool]:
        """This thread's running process of `brain` (True: to be restarted), or a new one."""
        proc = self._mine().pop(brain.name, None)
        if proc is not None and proc.proc.poll() is None:
            return proc, True
        if proc is not None:
            proc.close()
        return self.new(brain), False

    def new(self, brain: Brain) -> Process:
        proc = Process(brain)
        with self._lock:
            self._all.append(proc)
            self.started += 1
        return proc

    def give_back(self, proc: Process) -> None:
        self._mine()[proc.brain.name] = proc

    def close(self) -> None:
        with self._lock:
            for proc in self._all:
                if proc.proc.poll() is None:
                    proc.close()


def _open(procs: dict[str, Process], kept: Kept | None, brains: dict[str, Brain], name: str,
          size: int) -> None:
    """Start brain `name` for a game (START, or RESTART for one kept from the last game); a
    kept brain that does not answer its RESTART is replaced by a new process."""
    brain = brains[name]
    proc, restart = kept.take(brain) if kept is not None else (Process(brain), False)
    procs[name] = proc
    if restart:
        with contextlib.suppress(BrainError):
            time.sleep(max(0.0, proc.answered + SETTLE - time.perf_counter()))
            proc.send("RESTART")
            if proc.answer(time.perf_counter() + START_TIMEOUT, []).upper() == "OK":
                return
        proc.close()
        assert kept is not None
        proc = procs[name] = kept.new(brain)
    proc.send(f"START {size}")
    reply = proc.answer(time.perf_counter() + START_TIMEOUT, [])
    if reply.upper() != "OK":
        raise BrainError(f"{name} answered {reply!r} to START")


def play(game: Game, brains: dict[str, Brain], size: int, rule: Rule, turn: float,
         grace: float, kept: Kept | None = None) -> Game:
    board = Board(size, size, 5, rule)
    for stone in game.opening:
        board.push(stone)
    # The first mover after the opening plays the stones of the player to move.
    order = [game.black, game.white] if board.ply % 2 == 0 else [game.white, game.black]
    procs: dict[str, Process] = {}
    started: set[str] = set()
    answered: dict[str, float] = {}
    failed = True  # until the game ends on the board: a brain may be mid-answer
    try:
        for name in order:
            _open(procs, kept, brains, name, size)
            procs[name].send(*info_lines(turn, rule, brains[name].info))
        while not board.is_over():
            name = order[(board.ply - len(game.opening)) % 2]
            proc = procs[name]
            first = name not in started
            if first:
                request = board_request(board)
                started.add(name)
            else:
                r, c = board.last_move  # type: ignore[misc]
                request = [f"TURN {c},{r}"]
            chatter: list[str] = []
            # A brain may still be winding its search down just after it answered (Rapfi
            # ignores a TURN that arrives then): give it a moment, not counted against it.
            time.sleep(max(0.0, answered.get(name, 0.0) + SETTLE - time.perf_counter()))
            sent = time.perf_counter()
            proc.send(*request)
            try:
                # A brain's first answer of a game may also pay for its start (tables, caches).
                reply = proc.answer(sent + turn + (FIRST_GRACE if first else grace), chatter)
            except BrainError as error:
                game.winner = order[1 - order.index(name)]
                game.reason = f"{name}: {error}"
                return game
            answered[name] = time.perf_counter()
            spent = answered[name] - sent
            cell = reply_cell(reply, size)
            game.moves.append({"by": name, "move": reply, "seconds": round(spent, 4),
                               "said": chatter})
            try:
                if cell is None:
                    raise IllegalMoveError(f"not a move: {reply!r}")
                board.push(cell)
            except IllegalMoveError as error:
                game.winner = order[1 - order.index(name)]
                game.reason = f"{name} played {reply}: {error}"
                return game
        outcome = board.outcome()
        assert outcome is not None
        if outcome.winner is None:
            game.reason = "draw"
        else:
            # The last stone made the line.
            game.winner = game.moves[-1]["by"]  # type: ignore[assignment]
            game.reason = "five"
        failed = False
        return game
    finally:
        for proc in procs.values():
            if kept is None or failed:
                proc.close()
            else:
                kept.give_back(proc)


def info_lines(turn: float, rule: Rule, extra: Sequence[str] = ()) -> list[str]:
    """What a brain is told before a game: the turn time, no match clock, no memory limit, the
    rule, then `extra` (such as Rapfi's "STRENGTH 60")."""
    return [f"INFO timeout_turn {int(turn * 1000)}", "INFO timeout_match 0", "INFO max_memory 0",
            f"INFO rule {RULE_BITS[rule]}", *(f"INFO {line}" for line in extra)]


def board_request(board: Board) -> list[str]:
    """The position as a BOARD request to the side to move (1: its stones, 2: the other's)."""
    mover = board.turn
    stones = [f"{c},{r},{1 if board[(r, c)] is mover else 2}" for r, c in board.moves]
    return ["BOARD", *stones, "DONE"]


def reply_cell(reply: str, size: int) -> Cell | None:
    """The cell of a brain's answer "x,y", or None when it is no cell of the board."""
    match = re.fullmatch(r"\s*(\d+)\s*,\s*(\d+)\s*", reply)
    if not match:
        return None
    x, y = int(match[1]), int(match[2])
    return (y, x) if x < size and y < size else None


def stored_openings(path: str | None, count: int, size: int) -> list[tuple[Cell, ...]] | None:
    """The first `count` openings of the file at `path` (a list of openings, each a list of
    [row, column]); None when there is no such file. SystemExit for one that holds too few
    or cells off the board."""
    if path is None or not os.path.exists(path):
        return None
    with open(path) as stored:
        found = [tuple((int(r), int(c)) for r, c in cells) for cells in json.load(stored)]
    if len(found) < count:
        raise SystemExit(f"{path} holds {len(found)} openings; {count} are needed")
    if any(not (0 <= r < size and 0 <= c < size) for cells in found for r, c in cells):
        raise SystemExit(f"{path} has a cell off a {size}x{size} board")
    return found[:count]


def openings(count: int, size: int, rule: Rule, stones: int, seed: int, balanced: int | None,
             nodes: int, square: int | None = None) -> list[tuple[Cell, ...]]:
    """`count` distinct seeded openings; with `balanced`, only those caro's search values within
    that many points of even for the side to move (at `nodes` nodes, from empty tables); with
    `square`, their stones in the central square of that side (see random_opening)."""
    empty = Board(size, size, 5, rule)
    # The seed without a square is the one earlier matches drew with: their openings stay.
    tail = "" if square is None else f"/square{square}"
    rng = random.Random(f"bench.match/{size}/{rule.value}/{stones}/{seed}{tail}")
    found: list[tuple[Cell, ...]] = []
    seen: set[frozenset[Cell]] = set()
    tries = 0
    while len(found) < count:
        tries += 1
        if tries > 100 * count + 1000:
            raise SystemExit(f"could not find {count} balanced openings; raise --balanced")
        cells = random_opening(empty, stones, rng, square)
        key = frozenset(cells)
        if key in seen:
            continue
        seen.add(key)
        if balanced is not None:
            from engine.ai import compiled

            board = empty.copy()
            for cell in cells:
                board.push(cell)
            result = compiled.think(board, None, node_limit=nodes, fresh=True)
            if abs(result.value) > balanced:
                continue
        found.append(cells)
    return found


# ------------------------------------------------------------------------------ statistics
def sprt_llr(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The log-likelihood ratio of H1 (Elo elo1) against H0 (elo0), trinomial (draws kept apart)
    with the draw rate estimated from the games: the GSPRT of fishtest and c-gomoku-cli."""
    n = wins + draws + losses
    if n == 0 or wins == 0 or losses == 0:
        return 0.0
    w, d = wins / n, draws / n
    score = w + d / 2
    var = (w + d / 4) - score * score
    if var <= 0:
        return 0.0

    def expected(elo: float) -> float:
        return 1 / (1 + 10 ** (-elo / 400))

    s0, s1 = expected(elo0), expected(elo1)
    return (s1 - s0) * (2 * score - s0 - s1) / (2 * var / n)


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=parse_brain, required=True, help="NAME=COMMAND")
    parser.add_argument("--second", type=parse_brain, required=True, help="NAME=COMMAND")
    parser.add_argument("--games", type=int, default=100, help="at most this many (even)")
    parser.add_argument("--jobs", type=int, default=2, help="games at once")
    parser.add_argument("--turn", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--grace", type=float, default=0.5,
                        help="seconds past the turn before a move loses on time")
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--rule", choices=[r.value for r in RULE_BITS], default="freestyle")
    parser.add_argument("--stones", type=int, default=3, help="stones of each opening")
    parser.add_argument("--square", type=int, default=None,
                        help="the openings' stones in the central square of this (odd) side")
    parser.add_argument("--balanced", type=int, default=None,
                        help="keep openings caro values within this many points of even")
    parser.add_argument("--balance-nodes", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sprt", default=None, help="ELO0,ELO1: stop once the test decides")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--log", default=None, help="a JSON line per game to this file")
    parser.add_argument("--openings", default=None,
                        help="a JSON file of openings: read if it exists, else written once found")
    parser.add_argument("--info", action="append", default=[], metavar="NAME=KEY VALUE",
                        help="one more INFO line for that brain each game (Rapfi: "
                             "\"rapfi=STRENGTH 60\"); may be repeated")
    parser.add_argument("--keep-brains", action="store_true",
                        help="keep each brain's process from one game to the next (RESTART)")
    args = parser.parse_args(argv)
    if args.first.name == args.second.name:
        parser.error("the two brains need different names")
    rule = Rule(args.rule)
    brains = {args.first.name: args.first, args.second.name: args.second}
    for extra in args.info:
        name, sep, line = extra.partition("=")
        if not sep or name not in brains or not line.strip() or "\n" in line:
            parser.error(f"--info wants NAME=KEY VALUE for one of the brains, got {extra!r}")
        brains[name] = dataclasses.replace(brains[name], info=(*brains[name].info, line.strip()))
    pairs = max(1, args.games // 2)
    opens = stored_openings(args.openings, pairs, args.size)
    if opens is None:
        try:
            opens = openings(pairs, args.size, rule, args.stones, args.seed, args.balanced,
                             args.balance_nodes, args.square)
        except ValueError as exc:  # a --square or --stones the board cannot hold
            parser.error(str(exc))
        if args.openings:
            with open(args.openings, "w") as out:
                json.dump([[list(cell) for cell in cells] for cells in opens], out)
    games = []
    for i, cells in enumerate(opens):
        games.append(Game(2 * i, cells, args.first.name, args.second.name))
        games.append(Game(2 * i + 1, cells, args.second.name, args.first.name))
    sprt = None
    if args.sprt:
        elo0, elo1 = (float(x) for x in args.sprt.split(","))
        sprt = (elo0, elo1, *sprt_bounds(args.alpha, args.beta))
    log: IO[str] | None = open(args.log, "a") if args.log else None  # noqa: SIM115
    first = args.first.name
    done: list[Game] = []
    verdict = ""
    print(f"{first} against {args.second.name}: {len(games)} games at most, {args.turn:g} s a "
          f"move, {args.size}x{args.size} {rule.value}, {args.jobs} at a time", flush=True)
    kept = Kept() if args.keep_brains else None
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        waiting = iter(games)
        running: set[Future[Game]] = set()
        for game in waiting:
            running.add(pool.submit(play, game, brains, args.size, rule, args.turn, args.grace,
                                    kept))
            if len(running) >= args.jobs:
                break
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                game = future.result()
                done.append(game)
                if log:
                    log.write(json.dumps({
                        "index": game.index, "size": args.size, "rule": rule.value,
                        "opening": game.opening, "black": game.black,
                        "white": game.white, "winner": game.winner, "reason": game.reason,
                        "moves": game.moves}) + "\n")
                    log.flush()
                w, d, lo = _wdl(done, first)
                line = f"game {game.index + 1:>3}: {game.winner or 'draw'} ({game.reason}, " \
                       f"{len(game.moves)} moves)  {first} +{w} ={d} -{lo}"
                if sprt:
                    llr = sprt_llr(w, d, lo, sprt[0], sprt[1])
                    line += f"  LLR {llr:+.2f} [{sprt[2]:.2f}, {sprt[3]:.2f}]"
                    if not verdict and (llr <= sprt[2] or llr >= sprt[3]):
                        verdict = "H1 accepted" if llr >= sprt[3] else "H0 accepted"
                print(line, flush=True)
            if verdict:
                for future in running:
                    future.cancel()
                continue
            for game in waiting:
                running.add(pool.submit(play, game, brains, args.size, rule, args.turn,
                                        args.grace, kept))
                if len(running) >= args.jobs:
                    break
    if kept is not None:
        kept.close()
        print(f"{kept.started} brain processes started for {len(done)} games", flush=True)
    if log:
        log.close()
    report(done, first, args.second.name, args.turn, sprt, verdict)
    return 0


def _wdl(games: list[Game], name: str) -> tuple[int, int, int]:
    wins = sum(g.winner == name for g in games)
    draws = sum(g.winner is None for g in games)
    return wins, draws, len(games) - wins - draws


def report(games: list[Game], first: str, second: str, turn: float,
           sprt: tuple[float, float, float, float] | None, verdict: str) -> None:
    w, d, lo = _wdl(games, first)
    scores = [1.0 if g.winner == first else 0.5 if g.winner is None else 0.0 for g in games]
    elo, err = elo_estimate(scores)
    n = len(games)
    print(f"\n{first} against {second}: {n} games, +{w} ={d} -{lo}, "
          f"score {100 * sum(scores) / n:.1f}%, Elo {elo:+.0f} ± {err:.0f} (95%)")
    as_black = [s for g, s in zip(games, scores, strict=True) if g.black == first]
    if as_black and len(as_black) < n:
        print(f"  {first} moving first after the opening: {100 * sum(as_black) / len(as_black):.1f}%"
              f"; second: {100 * (sum(scores) - sum(as_black)) / (n - len(as_black)):.1f}%")
    for name in (first, second):
        times = sorted(float(m["seconds"]) for g in games for m in g.moves  # type: ignore[arg-type]
                       if m["by"] == name)
        if not times:
            continue
        over = sum(t > turn for t in times)
        lost = sum(1 for g in games if g.reason.startswith(f"{name}:"))
        print(f"  {name}: {len(times)} moves, p50 {percentile(times, 0.5):.3f} s, p99 "
              f"{percentile(times, 0.99):.3f} s, slowest {times[-1]:.3f} s, {over} past the turn "
              f"time, {lost} games lost on time or by a failure")
        depths = [d for g in games for m in g.moves if m["by"] == name
                  for d in _depths(m["said"])]  # type: ignore[arg-type]
        if depths:
            depths.sort()
            print(f"  {name} says its depth: median {percentile(depths, 0.5):g}, "
                  f"p10 {percentile(depths, 0.1):g}, p90 {percentile(depths, 0.9):g}")
    if sprt:
        llr = sprt_llr(w, d, lo, sprt[0], sprt[1])
        print(f"  SPRT elo0={sprt[0]:g} elo1={sprt[1]:g}: LLR {llr:+.2f} "
              f"[{sprt[2]:.2f}, {sprt[3]:.2f}] {verdict or 'undecided'}")


_DEPTH = re.compile(r"\bdepth\s+(?:\d+-)?(\d+)", re.IGNORECASE)


def _depths(said: list[str]) -> list[float]:
    """The last depth a brain said for a move (Rapfi: "MESSAGE depth 12-20 ev ..."; caro:
    "MESSAGE depth 12 ...")."""
    found = [float(m[1]) for line in said for m in [_DEPTH.search(line)] if m]
    return found[-1:]


if __name__ == "__main__":
    sys.exit(main())
