"""`caro arena`: round-robin tournaments between AI levels, with Elo estimates and error bars.

Every pair of players meets `games` times with colours alternated. Each game draws its
randomness from its own seed string (tournament seed, pair, game index), so a tournament with
node limits instead of time limits gives the same games on every run, in any process pool order.

With an opening rule (--opening swap, swap2 or rif, engine.game.openings) the players alternate as
the opening's first player instead, each game starts with the opening played through, and the
colours are what its decisions made them. An AI level takes its own decisions
(engine.ai.openings, within its time limit); any other player (mc, random, a brain) has them
taken for it by the AI at OPENING_STAND_IN's level.
"""

from __future__ import annotations

import argparse
import atexit
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Protocol, TextIO

from ..game.board import Board
from ..game.notation import parse_size
from ..game.openings import Action, Opening, OpeningState, Side
from ..game.types import Cell, Level, Mark, Rule
from ..players.montecarlo import monte_carlo_move
from ..support.stats import percentile

if TYPE_CHECKING:
    from ..players.external import ExternalEngine

Z95 = 1.959963984540054  # two-sided 95% normal quantile
# The AI level that takes the opening decisions of a player that is not an AI level.
OPENING_STAND_IN = Level.NORMAL


class Player(Protocol):
    """Anything that picks a move: called with a private copy of the board and its own rng."""

    def __call__(self, board: Board, rng: random.Random, /) -> Cell: ...


def player_name(player: Player) -> str:
    """A player's `name` attribute, else its function name."""
    name = getattr(player, "name", None) or getattr(player, "__name__", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"player {player!r} needs a name (a `name` attribute)")
    return name


# ----------------------------------------------------------------------------------- players
@dataclass(frozen=True, slots=True)
class LevelPlayer:
    """An AI level of engine.ai, optionally with its own time or node limit."""

    level: str
    time_limit: float | None = None
    node_limit: int | None = None
    name: str = ""
    python: bool = False  # the pure-Python search, the reference the compiled core is held to

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", ("python-" if self.python else "") + self.level)

    def __call__(self, board: Board, rng: random.Random, /) -> Cell:
        from ..ai import choose_move

        return choose_move(
            board,
            self.level,
            rng=rng,
            time_limit=self.time_limit,
            node_limit=self.node_limit,
            compiled=not self.python,
        )


@dataclass(frozen=True, slots=True)
class BrainPlayer:
    """Any piskvork (Gomocup) brain, started as a child process and kept between moves: another
    engine, or caro itself from another tree (`brain:COMMAND` in --levels)."""

    command: tuple[str, ...]
    turn_time: float = 1.0
    name: str = "brain"

    def __call__(self, board: Board, rng: random.Random, /) -> Cell:
        from ..players.external import ExternalEngine

        key = (self.command, self.turn_time)
        engine = _BRAINS.get(key)
        if engine is None:
            engine = _BRAINS[key] = ExternalEngine(self.command, self.turn_time)
        return engine.move(board)


# One brain process per command in each process that plays games, closed at its exit.
_BRAINS: dict[tuple[tuple[str, ...], float], ExternalEngine] = {}


def _close_brains() -> None:
    for engine in _BRAINS.values():
        engine.close()
    _BRAINS.clear()


atexit.register(_close_brains)


@dataclass(frozen=True, slots=True)
class MonteCarloPlayer:
    """The Monte Carlo reference opponent (engine.players.montecarlo)."""

    playouts: int = 1000
    candidates_radius: int | None = 2
    name: str = "mc"

    def __call__(self, board: Board, rng: random.Random, /) -> Cell:
        return monte_carlo_move(board, rng, self.playouts, self.candidates_radius)


@dataclass(frozen=True, slots=True)
class RandomPlayer:
    """Uniformly random legal moves: the floor of every scale."""

    name: str = "random"

    def __call__(self, board: Board, rng: random.Random, /) -> Cell:
        return rng.choice(list(board.legal_moves))


def parse_player(entry: str, *, mc_playouts: int = 1000, time_limit: float | None = None,
                 node_limit: int | None = None) -> Player:
    """A player from a --levels entry: a level name, `python-LEVEL` (the level with its pure-Python
    search, as when the compiled core is not built), `mc`, `random`, or `level@SECONDS` / `mc@PLAYOUTS` for a level with its
    own time limit or an MC with its own playout count; `brain:COMMAND` for a piskvork brain with
    --time-limit per move (1 s when not given)."""
    from ..ai import LEVELS
    from ..players.external import parse_command

    if entry.strip().lower().startswith("brain:"):
        command = entry.strip()[len("brain:"):]
        return BrainPlayer(tuple(parse_command(command)), time_limit or 1.0, name=entry.strip())
    text = entry.strip().lower()
    base, _, extra = text.partition("@")
    python = base.startswith("python-")
    if python:
        base = base.removeprefix("python-")
    choices = ", ".join([*LEVELS, *(f"python-{level}" for level in LEVELS), "mc", "random"])
    if base == "random":
        if extra:
            raise ValueError(f"{entry!r}: random takes no @ setting")
        return RandomPlayer()
    if base == "mc":
        playouts = mc_playouts
        if extra:
            if not extra.isdigit() or int(extra) < 1:
                raise ValueError(f"{entry!r}: write mc@PLAYOUTS with a whole number, like mc@200")
            playouts = int(extra)
        return MonteCarloPlayer(playouts=playouts, name=text)
    if base not in LEVELS:
        raise ValueError(f"unknown player {entry!r}: choose from {choices}")
    limit = time_limit
    if extra:
        try:
            limit = float(extra)
        except ValueError:
            limit = -1.0
        if not limit > 0 or math.isinf(limit):
            raise ValueError(f"{entry!r}: write LEVEL@SECONDS with a positive time, like hard@0.2")
    return LevelPlayer(level=base, time_limit=limit, node_limit=node_limit, name=text, python=python)


# ----------------------------------------------------------------------------------- games
@dataclass(frozen=True, slots=True)
class GameSpec:
    """One game to play; picklable, so it can be sent to a worker process."""

    rows: int
    cols: int
    k: int
    rule: Rule
    pair: tuple[int, int]
    index: int
    x: Player
    o: Player
    opening: tuple[Cell, ...]
    seed: str
    # The opening rule: x is its first player (tentative X), o the second.
    opening_rule: Opening = Opening.FREE


@dataclass(frozen=True, slots=True)
class GameResult:
    pair: tuple[int, int]
    index: int
    x: str
    o: str
    winner: Mark | None
    text: str  # the whole game, Board.text() form
    move_times: dict[str, tuple[float, ...]] = field(default_factory=dict)  # seconds per move, by name
    error: str | None = None  # why the game was abandoned: such games are not scored
    opening: str = ""  # the opening rule and its decisions ("swap2 place_two take_o"), if any

    def score(self, name: str) -> float:
        """1, 0.5 or 0 for the named player."""
        if self.winner is None:
            return 0.5
        winner = self.x if self.winner is Mark.X else self.o
        return 1.0 if winner == name else 0.0


def opening_action(player: Player, state: OpeningState, rng: random.Random) -> Action:
    """The player's action at the opening's next step: an AI level's own decision within its
    time limit, the stand-in level's for any other player."""
    from ..ai.openings import decide

    if isinstance(player, LevelPlayer):
        return decide(state, player.level, rng=rng, time_limit=player.time_limit)
    return decide(state, OPENING_STAND_IN, rng=rng)


def play_opening(
    spec: GameSpec, board: Board, rngs: dict[Side, random.Random]
) -> OpeningState:
    """The opening rule played through by the two players (x first) from `board`."""
    sides = {Side.FIRST: spec.x, Side.SECOND: spec.o}
    state = OpeningState(spec.opening_rule, board)
    while state.step is not None:
        side = state.step.side
        state = state.apply(opening_action(sides[side], state, rngs[side]))
    return state


def play_game(spec: GameSpec) -> GameResult:
    """Play one game from its opening to the end. A player that raises or plays an illegal move
    has a bug, not a lost game: the game is abandoned with the error recorded, and the rest of
    the tournament goes on."""
    board = Board(spec.rows, spec.cols, spec.k, spec.rule)
    for cell in spec.opening:
        board.push(cell)
    # One random stream per side, named by the mark it starts with, so a free game draws the
    # same numbers as before openings existed.
    side_rngs = {side: random.Random(f"{spec.seed}/{mark.name}") for side, mark in
                 ((Side.FIRST, Mark.X), (Side.SECOND, Mark.O))}
    x_side = Side.FIRST
    opening = ""
    error = None
    if spec.opening_rule is not Opening.FREE:
        try:
            state = play_opening(spec, board, side_rngs)
        except Exception as exc:  # as for moves: a failing decision is a bug, reported
            names_now = f"{player_name(spec.x)} v {player_name(spec.o)}"
            error = f"the opening of {names_now} failed: {type(exc).__name__}: {exc}"
        else:
            board, x_side = state.board, state.x_side
            opening = " ".join((spec.opening_rule.value, *state.decisions))
    sides = {Side.FIRST: spec.x, Side.SECOND: spec.o}
    players = {Mark.X: sides[x_side], Mark.O: sides[x_side.other]}
    names = {mark: player_name(p) for mark, p in players.items()}
    rngs = {Mark.X: side_rngs[x_side], Mark.O: side_rngs[x_side.other]}
    times: dict[str, list[float]] = {name: [] for name in names.values()}
    while error is None and not board.is_over():
        mark = board.turn
        name = names[mark]
        start = time.perf_counter()
        try:
            cell = players[mark](board.copy(), rngs[mark])
            times[name].append(time.perf_counter() - start)
            board.push(cell)
        except Exception as exc:  # any failure of a player's code, reported with the position
            error = f"{name} failed in {board.text()}: {type(exc).__name__}: {exc}"
            break
    outcome = board.outcome()
    return GameResult(
        pair=spec.pair,
        index=spec.index,
        x=names[Mark.X],
        o=names[Mark.O],
        winner=outcome.winner if outcome is not None else None,
        text=board.text(),
        move_times={name: tuple(t) for name, t in times.items()},
        error=error,
        opening=opening,
    )


def random_opening(board: Board, plies: int, rng: random.Random,
                   square: int | None = None) -> tuple[Cell, ...]:
    """`plies` random stones in the central area, leaving the game undecided; with `square`
    (odd), in the central square of that side."""
    if plies <= 0:
        return ()
    if plies >= board.rows * board.cols:
        raise ValueError(f"an opening of {plies} stones does not fit a {board.rows}x{board.cols} board")
    if square is not None:
        if square < 1 or square % 2 == 0 or square > min(board.rows, board.cols):
            raise ValueError(f"the central square's side must be odd and fit the board, got {square}")
        if plies >= square * square:
            raise ValueError(f"an opening of {plies} stones does not fit a {square}x{square} square")
        half = square // 2
    else:
        # A central square with room to spare for the stones (about a third of the side on
        # big boards): openings vary, yet stay where real games start rather than scattered.
        half = 1
        while (2 * half + 1) ** 2 < 2 * plies and half < max(board.rows, board.cols):
            half += 1
        half = max(half, min(board.rows, board.cols) // 6)
    cr, cc = board.rows // 2, board.cols // 2
    area = [
        (r, c)
        for r in range(max(0, cr - half), min(board.rows, cr + half + 1))
        for c in range(max(0, cc - half), min(board.cols, cc + half + 1))
    ]
    for _ in range(1000):
        trial = board.copy()
        cells = rng.sample(area, min(plies, len(area)))
        for cell in cells:
            if trial.is_over():
                break
            trial.push(cell)
        if len(cells) == plies and not trial.is_over():
            return tuple(cells)
    raise ValueError(f"could not find an undecided opening of {plies} stones on {board.spec}")


def schedule(players: Sequence[Player], *, rows: int, cols: int, k: int, rule: Rule,
             games: int, seed: int = 0, openings: int = 0,
             opening_rule: Opening = Opening.FREE) -> list[GameSpec]:
    """The round robin: `games` per pair, colours alternating, and with openings each random
    opening played twice, once with each colour, so neither player gets the luckier one. With
    an opening rule the players alternate as its first player instead (it decides the colours)."""
    opening_rule.check(rows, cols, k, rule)
    if opening_rule is not Opening.FREE and openings:
        raise ValueError("random opening stones and an opening rule do not mix: choose one")
    names = [player_name(p) for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"players need different names, got {', '.join(names)}")
    if len(players) < 2:
        raise ValueError("a tournament needs at least two players")
    if games < 1:
        raise ValueError(f"games per pair must be at least 1, not {games}")
    empty = Board(rows, cols, k, rule)
    specs = []
    for a, b in combinations(range(len(players)), 2):
        for g in range(games):
            opening = random_opening(empty, openings, random.Random(f"{seed}/{a}-{b}/opening{g // 2}"))
            x, o = (players[a], players[b]) if g % 2 == 0 else (players[b], players[a])
            specs.append(GameSpec(rows, cols, k, rule, (a, b), g, x, o, opening,
                                  f"{seed}/{a}-{b}/{g}", opening_rule))
    return specs


def run_games(specs: Sequence[GameSpec], *, jobs: int = 1,
              progress: Callable[[GameResult, int, int], None] | None = None) -> list[GameResult]:
    """Play every game, in a process pool when jobs > 1; results in schedule order."""
    from ..ai import warm_up

    results: list[GameResult] = []
    if jobs <= 1:
        # The compiled core loads before the clock of the first game starts, as in the bot.
        warm_up()
        for spec in specs:
            results.append(play_game(spec))
            if progress:
                progress(results[-1], len(results), len(specs))
        return results
    with ProcessPoolExecutor(max_workers=jobs, initializer=warm_up) as pool:
        futures = [pool.submit(play_game, spec) for spec in specs]
        for done, future in enumerate(as_completed(futures), 1):
            result = future.result()
            results.append(result)
            if progress:
                progress(result, done, len(specs))
    return sorted(results, key=lambda r: (r.pair, r.index))


# ----------------------------------------------------------------------------------- ratings
def elo_from_score(p: float) -> float:
    """Elo difference that predicts score fraction p (0 < p < 1)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"an Elo difference needs a score strictly between 0 and 1, not {p}")
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_estimate(scores: Sequence[float]) -> tuple[float, float]:
    """Elo difference and its 95% error (half-width) from per-game scores (1, 0.5, 0).

    A clean sweep has no finite Elo, so the score is clipped to what it would be with one more
    game drawn (10/10 counts as 10.5/11), and the spread is then at least that of a single
    result with the clipped mean, so a sweep still gets an honest (wide) error bar, not zero."""
    n = len(scores)
    if n == 0:
        raise ValueError("no games to rate")
    mean = sum(scores) / n
    eps = 0.5 / (n + 1)
    p = min(max(mean, eps), 1.0 - eps)
    sd = statistics.pstdev(scores)
    if p != mean:
        sd = max(sd, math.sqrt(p * (1.0 - p)))
    half = Z95 * sd / math.sqrt(n)
    lo, hi = max(p - half, eps), min(p + half, 1.0 - eps)
    return elo_from_score(p), (elo_from_score(hi) - elo_from_score(lo)) / 2.0


@dataclass(frozen=True, slots=True)
class Standing:
    name: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float  # fraction of points, 0..1
    elo: float  # vs the field (the average opponent)
    elo_error: float  # 95% half-width
    anchor_elo: float | None  # head to head against the anchor player
    anchor_error: float | None
    move_ms: float  # mean thinking time per move
    move_p95_ms: float
    move_max_ms: float
    move_count: int


def _scores(results: Iterable[GameResult], name: str, against: str | None = None) -> list[float]:
    out = []
    for r in results:
        if r.error is None and name in (r.x, r.o) and (against is None or against in (r.x, r.o)) and r.x != r.o:
            out.append(r.score(name))
    return out


def standings(results: Sequence[GameResult], names: Sequence[str],
              anchor: str | None = None) -> list[Standing]:
    """One row per player, best score first (then more wins, then name)."""
    rows = []
    for name in names:
        scores = _scores(results, name)
        if not scores:
            continue
        elo, err = elo_estimate(scores)
        anchor_elo = anchor_err = None
        if anchor is not None:
            if name == anchor:
                anchor_elo, anchor_err = 0.0, 0.0
            else:
                head = _scores(results, name, anchor)
                if head:
                    anchor_elo, anchor_err = elo_estimate(head)
        times = sorted(t for r in results if r.error is None for t in r.move_times.get(name, ()))
        rows.append(
            Standing(
                name=name,
                games=len(scores),
                wins=scores.count(1.0),
                draws=scores.count(0.5),
                losses=scores.count(0.0),
                score=sum(scores) / len(scores),
                elo=elo,
                elo_error=err,
                anchor_elo=anchor_elo,
                anchor_error=anchor_err,
                move_ms=1000.0 * sum(times) / len(times) if times else 0.0,
                move_p95_ms=1000.0 * percentile(times, 0.95) if times else 0.0,
                move_max_ms=1000.0 * times[-1] if times else 0.0,
                move_count=len(times),
            )
        )
    rows.sort(key=lambda s: (-s.score, -s.wins, s.name))
    return rows


def pairwise(results: Sequence[GameResult], names: Sequence[str]) -> dict[tuple[str, str], float]:
    """Score fraction of the first name against the second, for every pair that met."""
    table = {}
    for a in names:
        for b in names:
            if a != b and (scores := _scores(results, a, b)):
                table[a, b] = sum(scores) / len(scores)
    return table


def _format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
    lines = ["  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(header, widths, strict=True)))]
    for row in rows:
        lines.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))))
    return "\n".join(lines)


def format_report(results: Sequence[GameResult], names: Sequence[str], anchor: str | None = None) -> str:
    """Standings, the pairwise score matrix and thinking time per move, as plain text."""
    table = standings(results, names, anchor)
    header = ["player", "games", "score%", "W/D/L", "Elo", "±95%"]
    if anchor is not None:
        header += [f"vs {anchor}", "±95%"]
    header += ["moves", "ms/move", "p95 ms", "max ms"]
    rows = []
    for s in table:
        row = [s.name, str(s.games), f"{100 * s.score:.1f}", f"{s.wins}/{s.draws}/{s.losses}",
               f"{round(s.elo):+d}", f"{s.elo_error:.0f}"]
        if anchor is not None:
            if s.anchor_elo is None or s.anchor_error is None:
                row += ["-", "-"]
            else:
                row += [f"{round(s.anchor_elo):+d}", f"{s.anchor_error:.0f}"]
        row += [str(s.move_count), f"{s.move_ms:.1f}", f"{s.move_p95_ms:.1f}", f"{s.move_max_ms:.1f}"]
        rows.append(row)
    ordered = [s.name for s in table]
    matrix = pairwise(results, names)
    matrix_rows = [[a, *(("-" if a == b else f"{100 * matrix[a, b]:.0f}" if (a, b) in matrix else "")
                         for b in ordered)] for a in ordered]
    parts = [
        _format_table(header, rows),
        "",
        "score % of row against column:",
        _format_table(["", *ordered], matrix_rows),
    ]
    failed = [r for r in results if r.error is not None]
    if failed:
        parts += ["", f"{len(failed)} game(s) abandoned and not counted:"]
        parts += [f"  {r.x} v {r.o} #{r.index}: {r.error}" for r in failed]
    return "\n".join(parts)


# ----------------------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", default="9x9", help="board size ROWSxCOLS, or ROWSxCOLSkK (default 9x9)")
    parser.add_argument("--k", type=int, default=5, help="stones in a row to win (default 5)")
    parser.add_argument("--rule", default="freestyle", help="freestyle, exact, caro or renju")
    parser.add_argument(
        "--levels",
        default="easy,normal,hard,impossible",
        help="comma-separated players: AI levels, python-LEVEL (the level with its pure-Python "
        "search), mc, random; level@SECONDS for a level with its "
        "own time limit, mc@PLAYOUTS, brain:COMMAND for a piskvork (Gomocup) engine "
        "(default easy,normal,hard,impossible)",
    )
    parser.add_argument("--games", type=int, default=40, help="games per pair (default 40)")
    parser.add_argument("--mc-playouts", type=int, default=1000, help="playouts per candidate for mc")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per AI move")
    parser.add_argument("--node-limit", type=int, default=None,
                        help="search nodes per AI move (with no time limit, games are reproducible)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument("--jobs", type=int, default=2, help="games played in parallel (default 2)")
    parser.add_argument("--openings", type=int, default=0,
                        help="random stones near the centre before each game pair (default 0)")
    parser.add_argument("--opening", default="free", type=opening_name,
                        metavar="{" + ",".join(o.value for o in Opening) + "}",
                        help="opening rule each game starts with, the players alternating as its "
                        "first player; the AI takes each side's decisions (default free)")
    parser.add_argument("--anchor", default=None,
                        help="player whose head-to-head Elo is shown too (default: first listed)")
    parser.add_argument("--games-out", default=None, help="write every game's text to this file")


def opening_name(text: str) -> Opening:
    """--opening: an opening's name, in any case; the error lists the choices."""
    try:
        return Opening.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    try:
        rows, cols, k = parse_size(args.size).with_k(args.k)
        rule = Rule.parse(args.rule)
        Board(rows, cols, k, rule)
        if args.mc_playouts < 1:
            raise ValueError("--mc-playouts must be at least 1")
        if args.time_limit is not None and not args.time_limit > 0:
            raise ValueError("--time-limit must be positive")
        if args.node_limit is not None and args.node_limit < 1:
            raise ValueError("--node-limit must be at least 1")
        if args.jobs < 1:
            raise ValueError("--jobs must be at least 1")
        entries = [e for e in args.levels.split(",") if e.strip()]
        players = [parse_player(e, mc_playouts=args.mc_playouts, time_limit=args.time_limit,
                                node_limit=args.node_limit) for e in entries]
        names = [player_name(p) for p in players]
        anchor = (args.anchor or names[0]).lower() if names else None
        if anchor is not None and anchor not in names:
            raise ValueError(f"--anchor {args.anchor!r} is not one of the players ({', '.join(names)})")
        specs = schedule(players, rows=rows, cols=cols, k=k, rule=rule, games=args.games,
                         seed=args.seed, openings=args.openings, opening_rule=args.opening)
    except ValueError as exc:
        print(f"caro arena: error: {exc}", file=sys.stderr)
        return 2
    # Opened now, not after the tournament: a bad path must not cost an hour of games.
    try:
        games_out = open(args.games_out, "w", encoding="utf-8") if args.games_out else None  # noqa: SIM115
    except OSError as exc:
        print(f"caro arena: error: cannot write --games-out {args.games_out}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        return _play(args, specs, names, anchor, (rows, cols, k, rule), games_out)
    finally:
        if games_out is not None:
            games_out.close()


def _play(args: argparse.Namespace, specs: list[GameSpec], names: list[str], anchor: str | None,
          shape: tuple[int, int, int, Rule], games_out: TextIO | None) -> int:
    rows, cols, k, rule = shape

    start = time.perf_counter()

    def progress(result: GameResult, done: int, total: int) -> None:
        if result.error is not None:
            outcome = f"abandoned: {result.error}"
        elif result.winner is None:
            outcome = "draw"
        else:
            outcome = f"{result.x if result.winner is Mark.X else result.o} won"
        print(f"[{done}/{total} {time.perf_counter() - start:6.1f}s] {result.x} (X) v {result.o} (O): "
              f"{outcome}", file=sys.stderr, flush=True)

    results = run_games(specs, jobs=args.jobs, progress=progress)
    elapsed = time.perf_counter() - start
    start_of_games = (f"opening {args.opening.value}" if args.opening is not Opening.FREE
                      else f"openings {args.openings}")
    print(f"{rows}x{cols} k{k} {rule.value}, {args.games} games per pair, seed {args.seed}, "
          f"{start_of_games}, {len(results)} games in {elapsed:.0f}s")
    print(format_report(results, names, anchor))
    if games_out is not None:
        for r in results:
            opening = f" (opening {r.opening})" if r.opening else ""
            games_out.write(f"{r.x} v {r.o}{opening}: {r.text}\n")
    return 0
