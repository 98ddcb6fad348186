"""`caro play`: a game in the terminal, two people at one keyboard or one person against the AI.

The game loop only talks through `input_fn` / `output_fn`, so tests drive whole games with
scripted input; the AI is imported only when a computer player actually moves, so two people can
play even where engine.ai is missing.

With --opening (swap, swap2, rif: engine.game.openings) the game starts with the opening: the first
player (--first) places its stones, the other decides who plays which colour, and so on, each
step asked for at the keyboard (a cell, a choice, two offered cells, one of the offers) or
decided by the AI (engine.ai.openings); the game then goes on with the colours it gave.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..game.board import Board
from ..game.notation import column_letter, parse_size
from ..game.openings import (
    Action,
    Choice,
    Opening,
    OpeningError,
    OpeningState,
    Side,
    Step,
    StepKind,
)
from ..game.records import GameRecord, save_record
from ..game.types import LEVELS, Cell, Mark, MoveError, Outcome, Rule
from .choices import level_name, or_list

# An hour per move is already far past any use; it also bounds what the search is asked to plan.
MAX_TIME_LIMIT = 3600.0

HELP = "Type a cell like B2, 'undo' to take back your last move, or 'quit'."
OPENING_HELP = (
    "The opening: place a stone with a cell like H8; choose with x, o or two (place two more);"
    " offer places like 'J10 G6'; pick an offered place by its cell. 'quit' ends the game."
)
# What a person may type for each colour choice.
CHOICE_WORDS: dict[str, Choice] = {
    "x": Choice.TAKE_X,
    "take_x": Choice.TAKE_X,
    "o": Choice.TAKE_O,
    "take_o": Choice.TAKE_O,
    "two": Choice.PLACE_TWO,
    "place_two": Choice.PLACE_TWO,
}

InputFn = Callable[[str], str]
OutputFn = Callable[[str], None]


@dataclass
class Computer:
    """An AI player: a level of engine.ai with its own random stream, so games replay exactly."""

    level: str
    rng: random.Random
    time_limit: float | None = None

    def decide(self, state: OpeningState) -> Action:
        """The AI's action at the opening's next step."""
        from ..ai.openings import decide  # lazily, as for moves

        return decide(state, self.level, rng=self.rng, time_limit=self.time_limit)

    def choose(self, board: Board) -> tuple[Cell, str | None]:
        """The move and a short reason code for it (None if the AI gives none)."""
        from .. import ai  # lazily: human play must not need the AI package

        move = ai.choose_move(board.copy(), self.level, rng=self.rng, time_limit=self.time_limit)
        try:
            reason: str | None = ai.explain(board, move)
        except (AttributeError, ValueError):
            reason = None
        return move, reason


# None stands for a person at the keyboard.
Players = Mapping[Mark, Computer | None]


def terminal_output(line: str) -> None:
    print(line, flush=True)


def terminal_input(prompt: str) -> str:
    """A line typed at `prompt`; piped input is echoed, as a terminal would have shown it, so the
    transcript reads naturally."""
    text = input(prompt)
    if not sys.stdin.isatty():
        print(text)
    return text


def render(board: Board, line: Sequence[Cell] = ()) -> str:
    """The board with coordinates; the last move is bracketed, like `.[X].`, and the stones of a
    winning `line` are parenthesised instead: `(X)` on each row, `(X X X)` along a row."""
    width = len(str(board.rows))
    lines = [" " * width + "".join(" " + column_letter(c) for c in range(board.cols))]
    symbols = {0: ".", int(Mark.X): "X", int(Mark.O): "O"}
    last = board.last_move
    winning: dict[int, list[int]] = {}
    for r, c in line:
        winning.setdefault(r, []).append(c)
    for r in range(board.rows):
        # Each cell is a separator then a symbol; the separators around the last move become
        # [ ], those around the winning stones of this row (one cell, or a run along the row)
        # become ( ).
        seps = [" "] * (board.cols + 1)
        if r in winning:
            seps[min(winning[r])] = "("
            seps[max(winning[r]) + 1] = ")"
        elif last is not None and last[0] == r and not line:
            seps[last[1]] = "["
            seps[last[1] + 1] = "]"
        row = board.grid[r * board.cols : (r + 1) * board.cols]
        body = "".join(seps[c] + symbols[v] for c, v in enumerate(row)) + seps[board.cols]
        lines.append(f"{r + 1:>{width}}{body}".rstrip())
    return "\n".join(lines)


def describe_result(board: Board, outcome: Outcome) -> str:
    if outcome.winner is None:
        return "Draw"
    return f"{outcome.winner} wins: " + " ".join(board.move_name(c) for c in outcome.line)


def example_cell(board: Board) -> str:
    """A cell to show in the prompt: the free cell nearest the centre, so the hint is playable."""
    mid_r, mid_c = (board.rows - 1) / 2, (board.cols - 1) / 2
    best = min(board.legal_moves, key=lambda c: (abs(c[0] - mid_r) + abs(c[1] - mid_c), c))
    return board.move_name(best)


def _undo(board: Board, players: Players, floor: int = 0) -> int:
    """Take back moves until a person who has moved is to move again; returns plies taken back.
    The first `floor` plies (an opening's stones) are never taken back."""
    humans = {mark for mark, player in players.items() if player is None}
    # A person's earlier move must exist, or undo would just hand the AI its opening again.
    if not any((Mark.X if i % 2 == 0 else Mark.O) in humans for i in range(floor, board.ply)):
        return 0
    taken = 0
    while board.ply > floor:
        mover = board.turn.other  # the side that made the last move
        board.pop()
        taken += 1
        if mover in humans:
            break
    return taken


def play_game(
    board: Board, players: Players, input_fn: InputFn, output_fn: OutputFn, *, floor: int = 0
) -> Outcome | None:
    """Play from `board` until the end; returns the outcome, or None if a person quit (or EOF).
    `undo` never takes back the first `floor` plies (the opening's)."""
    output_fn(HELP)
    while True:
        outcome = board.outcome()
        if outcome is not None:
            output_fn(render(board, outcome.line))
            output_fn(describe_result(board, outcome))
            return outcome
        mark = board.turn
        player = players.get(mark)
        if player is not None:
            # The search may take seconds on big boards: say so rather than seem stuck.
            output_fn(f"{mark} ({player.level}) is thinking…")
            move, reason = player.choose(board)
            name = board.move_name(move)
            board.push(move)
            because = f" ({reason})" if reason else ""
            output_fn(f"{mark} ({player.level}) plays {name}{because}")
            continue
        output_fn(render(board))
        try:
            text = input_fn(f"{mark} to move (e.g. {example_cell(board)}): ")
        except EOFError:
            output_fn("")
            output_fn("Bye.")
            return None
        command = text.strip().lower()
        if command in ("quit", "exit", "q"):
            output_fn("Bye.")
            return None
        if command in ("help", "?"):
            output_fn(HELP)
            continue
        if command == "undo":
            taken = _undo(board, players, floor)
            output_fn(
                f"Took back {taken} move{'s' if taken != 1 else ''}."
                if taken
                else "Nothing to undo."
            )
            continue
        try:
            board.push_name(text)
        except MoveError as error:
            output_fn(f"{error}. Try again.")


# ----------------------------------------------------------------- the opening
# The two players of an opening, by side; None stands for a person at the keyboard.
Sides = Mapping[Side, Computer | None]

SIDE_NAMES = {Side.FIRST: "First player", Side.SECOND: "Second player"}


def players_of(state: OpeningState, sides: Sides) -> dict[Mark, Computer | None]:
    """Who plays X and O once the opening's choices are made."""
    return {Mark.X: sides.get(state.x_side), Mark.O: sides.get(state.x_side.other)}


def describe_action(state: OpeningState, action: Action) -> str:
    """What an action did, in words, for the transcript."""
    board = state.board
    if action.kind is StepKind.CHOOSE:
        assert action.choice is not None
        return {
            Choice.TAKE_X: "takes X",
            Choice.TAKE_O: "takes O",
            Choice.PLACE_TWO: "places two more stones",
        }[action.choice]
    if action.kind is StepKind.OFFER:
        return "offers " + " ".join(board.move_name(c) for c in action.cells)
    assert action.cell is not None
    if action.kind is StepKind.SELECT:
        return f"picks {board.move_name(action.cell)} for X"
    return f"places {board.turn} on {board.move_name(action.cell)}"


def step_prompt(state: OpeningState, step: Step) -> str:
    """The question a person is asked at `step`."""
    board = state.board
    who = SIDE_NAMES[step.side]
    if step.kind is StepKind.PLACE:
        more = f" ({step.count} to place)" if step.count > 1 else ""
        return f"{who}: place {board.turn}{more} (e.g. {example_cell(board)}): "
    if step.kind is StepKind.CHOOSE:
        words = {Choice.TAKE_X: "x (take X)", Choice.TAKE_O: "o (take O)",
                 Choice.PLACE_TWO: "two (place two more stones)"}
        return f"{who}: choose {or_list([words[c] for c in step.choices])}: "
    if step.kind is StepKind.OFFER:
        return f"{who} (X): offer {step.count} place{'s' if step.count > 1 else ''} for X's next stone: "
    offered = ", ".join(board.move_name(c) for c in step.offers)
    return f"{who} (O): pick X's stone from {offered}: "


def parse_opening_input(state: OpeningState, step: Step, text: str) -> Action:
    """The action a person typed at `step`; ValueError saying what was expected."""
    board = state.board
    words = text.replace(",", " ").split()
    if step.kind is StepKind.CHOOSE:
        choice = CHOICE_WORDS.get(text.strip().lower())
        if choice is None or choice not in step.choices:
            allowed = ", ".join(w for w, c in CHOICE_WORDS.items() if c in step.choices)
            raise ValueError(f"type one of {allowed}")
        return Action.choose(choice)
    if not words:
        raise ValueError("type a cell like H8")
    try:
        cells = [board.parse_move(word) for word in words]
    except MoveError as error:
        raise ValueError(str(error)) from None
    if step.kind is StepKind.OFFER:
        return Action.offer(cells)
    if len(cells) != 1:
        raise ValueError("type one cell")
    if step.kind is StepKind.SELECT:
        return Action.select(cells[0])
    return Action.place(cells[0])


def play_opening(
    state: OpeningState, sides: Sides, input_fn: InputFn, output_fn: OutputFn
) -> tuple[OpeningState, bool]:
    """Play the opening through, a person typing each of their steps and the AI deciding its
    own. Returns the state reached and whether the opening was finished (False: a person quit,
    or the input ended)."""
    output_fn(f"Opening {state.opening.value}. {OPENING_HELP}")
    while True:
        step = state.step
        if step is None:
            x_player = sides.get(state.x_side)
            ai = f" (the AI, {x_player.level})" if x_player is not None else ""
            output_fn(
                f"The opening is over: the {SIDE_NAMES[state.x_side].lower()}{ai} plays X."
            )
            return state, True
        computer = sides.get(step.side)
        who = SIDE_NAMES[step.side]
        if computer is not None:
            output_fn(f"{who} ({computer.level}) is thinking…")
            action = computer.decide(state)
            output_fn(f"{who} ({computer.level}) {describe_action(state, action)}")
            state = state.apply(action)
            continue
        output_fn(render(state.board))
        try:
            text = input_fn(step_prompt(state, step))
        except EOFError:
            output_fn("")
            output_fn("Bye.")
            return state, False
        command = text.strip().lower()
        if command in ("quit", "exit", "q"):
            output_fn("Bye.")
            return state, False
        if command in ("help", "?"):
            output_fn(OPENING_HELP)
            continue
        if command == "undo":
            output_fn("The opening's stones and choices cannot be taken back.")
            continue
        try:
            action = parse_opening_input(state, step, text)
            after = state.apply(action)
        except (ValueError, OpeningError) as error:
            output_fn(f"{error}. Try again.")
            continue
        output_fn(f"{who} {describe_action(state, action)}")
        state = after


# ----------------------------------------------------------------- command line
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", default="3x3", help="ROWSxCOLS, e.g. 3x3 (default), 15x15, 9x7")
    parser.add_argument(
        "--k", type=int, default=None, help="stones in a row to win (default: min(5, longest side))"
    )
    parser.add_argument("--rule", default="freestyle", help="freestyle (default), exact, caro or renju")
    parser.add_argument(
        "--vs", default="human", type=opponent, metavar="{human," + ",".join(LEVELS) + "}",
        help="opponent (default: human)",
    )
    parser.add_argument(
        "--first",
        default="me",
        choices=("me", "ai", "random"),
        help="who plays X against the AI, or with --opening who is its first player (default: me)",
    )
    parser.add_argument(
        "--opening", default="free", type=opening_name,
        metavar="{" + ",".join(o.value for o in Opening) + "}",
        help="the opening rule the game starts with: swap, swap2 (five in a row, 9x9 or more), "
        "rif (renju, 15x15) or free (default: none)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed for the AI's choices and --first random"
    )
    parser.add_argument(
        "--time-limit", type=seconds_per_move, default=None, metavar="SECONDS",
        help=f"seconds per AI move, above 0 and at most {MAX_TIME_LIMIT:g} (default: the level's)",
    )
    parser.add_argument(
        "--save", default=None, metavar="FILE",
        help="write the game to FILE when it ends or you quit, as a caro record (a .psq name: "
        "piskvork's form), for `caro review FILE` and `caro replay FILE`",
    )


def opponent(text: str) -> str:
    """--vs: "human" or a level name, in any case; the error lists every choice by name."""
    if text.strip().lower() == "human":
        return "human"
    try:
        return level_name(text)
    except argparse.ArgumentTypeError:
        choices = or_list(["human", *LEVELS])
        raise argparse.ArgumentTypeError(f"unknown opponent {text!r}: choose {choices}") from None


def opening_name(text: str) -> Opening:
    """--opening: an opening's name, in any case; the error lists the choices."""
    try:
        return Opening.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def seconds_per_move(text: str) -> float:
    """--time-limit: refused up front, where the search would only fail after the first move."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_TIME_LIMIT:  # also false for nan
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds above 0 and at most {MAX_TIME_LIMIT:g}, got {text!r}"
        )
    return value


def build_game(args: argparse.Namespace) -> tuple[Board, dict[Mark, Computer | None], int]:
    """The board, the players and the seed in use, from parsed arguments; ValueError if bad."""
    rows, cols, k = parse_size(args.size).with_k(args.k)
    board = Board(rows, cols, k, Rule.parse(args.rule))
    # Checked before the game: the opening must fit the board, k and rule.
    getattr(args, "opening", Opening.FREE).check(rows, cols, k, board.rule)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    rng = random.Random(seed)
    players: dict[Mark, Computer | None] = {Mark.X: None, Mark.O: None}
    if args.vs != "human":
        first = args.first if args.first != "random" else rng.choice(("me", "ai"))
        ai_mark = Mark.O if first == "me" else Mark.X
        players[ai_mark] = Computer(args.vs, rng, args.time_limit)
    return board, players, seed


def check_save_path(path: str) -> None:
    """--save: refused before the game, not after it (ValueError saying why)."""
    file = Path(path)
    if file.is_dir():
        raise ValueError(f"--save {path}: is a folder; give a file name such as {file / 'game.caro'}")
    if not file.parent.is_dir():
        raise ValueError(f"--save {path}: the folder {file.parent} does not exist")


def game_record(
    board: Board, players: Players, seed: int, opening: OpeningState | None = None
) -> GameRecord:
    """The game so far as a record; one that was quit is saved as unfinished. `opening` is the
    opening it began with (its decisions are recorded; its stones are the first moves)."""
    def name(mark: Mark) -> str:
        player = players.get(mark)
        return "" if player is None else f"caro AI ({player.level})"

    tags = {"Date": datetime.date.today().isoformat()}
    if any(player is not None for player in players.values()):
        tags["Seed"] = str(seed)  # with --seed, the same moves get the same answers
    return GameRecord.from_board(
        board,
        x_name=name(Mark.X),
        o_name=name(Mark.O),
        tags=tags,
        opening=opening.opening if opening is not None else Opening.FREE,
        opening_decisions=opening.decisions if opening is not None else (),
    )


def save_game(
    board: Board, players: Players, seed: int, path: str, opening: OpeningState | None = None
) -> int:
    try:
        save_record(game_record(board, players, seed, opening), path)
    except OSError as error:
        print(f"caro play: cannot save the game to {path}: {error.strerror or error}",
              file=sys.stderr)
        return 1
    print(f"Saved to {path}: `caro review {path}` or `caro replay {path}` shows it again.")
    return 0


@dataclass
class Session:
    """The game being played at the keyboard: what --save writes however it ends."""

    board: Board
    players: dict[Mark, Computer | None]
    seed: int
    opening: OpeningState | None = None

    def play(self) -> None:
        if self.opening is not None:
            sides = {Side.FIRST: self.players[Mark.X], Side.SECOND: self.players[Mark.O]}
            # Kept current as the opening goes, so a game quit inside it is saved as it stood.
            state, finished = play_opening(self.opening, sides, terminal_input, terminal_output)
            self.opening, self.board = state, state.board
            self.players = players_of(state, sides)
            if not finished:
                return
        floor = self.board.ply if self.opening is not None else 0
        play_game(self.board, self.players, terminal_input, terminal_output, floor=floor)

    def save(self, path: str) -> int:
        return save_game(self.board, self.players, self.seed, path, self.opening)


def run(args: argparse.Namespace) -> int:
    try:
        board, players, seed = build_game(args)
        if args.save is not None:
            check_save_path(args.save)
    except ValueError as error:
        print(f"caro play: {error}", file=sys.stderr)
        return 2
    opening: Opening = args.opening
    session = Session(board, players, seed)
    print(f"caro {board.rows}x{board.cols}, {board.k} in a row, rule {board.rule}. X moves first.")
    ai = [(mark, p) for mark, p in players.items() if p is not None]
    if opening is not Opening.FREE:
        session.opening = OpeningState(opening, board)
        if ai:
            mark, computer = ai[0]
            mine = "second" if mark is Mark.X else "first"
            print(f"You are the {mine} player of the {opening.value} opening; the AI "
                  f"({computer.level}) is the other. Seed {seed}.")
    elif ai:
        mark, computer = ai[0]
        print(f"You play {mark.other}; the AI ({computer.level}) plays {mark}. Seed {seed}.")

    try:
        session.play()
    except BrokenPipeError:
        # The reader went away (`caro play | head`): silence the flush at exit too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if args.save is not None:
            session.save(args.save)
        return 1
    except KeyboardInterrupt:
        # Ctrl-C ends the game like quit does: what was played is still saved.
        if args.save is not None:
            session.save(args.save)
        raise
    if args.save is not None:
        return session.save(args.save)
    return 0
