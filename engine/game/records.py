"""A game as a file: caro's own record form and the Gomocup/piskvork position format (.psq).

caro's record form is a few `Key: value` lines that a person can read and edit, ending in the
moves in the board's cell names; it keeps everything (size, k, rule, names, how the game ended):

    caro game record 1
    Board: 15x15 k5 caro
    X: Alice
    O: caro AI (hard)
    Result: X
    Ending: line
    Date: 2026-11-23
    Moves: H8 I9 H9 I10 H10 I11 H11 I12 H12

A game that began with an opening rule (engine.game.openings) says so on an `Opening:` line: the
opening's name, then its decisions (the colour choices and RIF's offers) in order, as in
`Opening: swap2 place_two take_o`. Its stones are the first moves. A record without the line is
a free game, as every record written before openings existed.

The .psq form is what the piskvork manager saves and the Gomocup tools read:

    Piskvorky 15x15, 0:0, 0
    8,8,0            column,row counted from 1, then milliseconds spent (caro writes 0)
    9,9,0
    ...
    Alice            the two players' names, first mover first
    caro AI (hard)
    -1

It knows only the board's size and the moves, so k and the rule are the reader's to give (five
in a row, freestyle, as in Gomocup, unless told otherwise), and a resignation is not kept; nor is
an opening: the format has no place for its name or decisions, so a .psq file reads as a free
game whose first moves are the opening's stones.
Board.text() lines ("15x15 k5 caro H8 I9") are read too.

Every reader checks each move against the rules as it replays it, and raises a RecordError
subclass naming the line that is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from .board import Board
from .notation import MAX_SIDE, cell_name, parse_size
from .openings import Opening, OpeningError, OpeningState
from .types import Cell, Mark, MoveError, Rule, quoted

TEXT_MAGIC = "caro game record 1"
PSQ_SUFFIX = ".psq"
TEXT_SUFFIX = ".caro"
# A record is read whole into memory: refuse what cannot be a game before parsing it.
MAX_RECORD_CHARS = 64_000
# Names and tag values are one line each in both forms, and shown back to people: keep them short.
MAX_VALUE_CHARS = 200


class RecordError(ValueError):
    """A file that is not a game caro can read."""


class UnknownFormatError(RecordError):
    """Neither a caro record, a .psq file nor a board text line."""


class MalformedRecordError(RecordError):
    """The format is known but a line of it is not written as the format says."""


class IllegalRecordError(RecordError):
    """Well written, but not a game: a move off the board, on a taken cell or after the end, or
    a result the moves contradict."""


class Ending(StrEnum):
    """How a game ended (or that it has not)."""

    LINE = "line"  # k in a row
    FULL = "full"  # the board filled up, or under renju black may play none of it: a draw
    RESIGN = "resign"
    TIMEOUT = "timeout"
    UNFINISHED = "unfinished"


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: the board's spec, the moves (X first), the players' names, the result and the
    opening it began with (its name and decision tokens, engine.game.openings; FREE and none for a
    game without one).

    The constructor checks that the moves can be played and that the result agrees with them:
    a game won by a line is won by that line's owner, a full board is a draw, and a resignation
    or timeout can only end a game still in progress. The opening's stones and decisions must
    replay as that opening allows.
    """

    rows: int
    cols: int
    k: int
    rule: Rule
    moves: tuple[Cell, ...]
    x_name: str = ""
    o_name: str = ""
    winner: Mark | None = None
    ending: Ending = Ending.UNFINISHED
    tags: Mapping[str, str] = field(default_factory=dict)
    opening: Opening = Opening.FREE
    opening_decisions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in (self.x_name, self.o_name, *self.tags.keys(), *self.tags.values()):
            if "\n" in name or "\r" in name or len(name) > MAX_VALUE_CHARS:
                raise IllegalRecordError(
                    f"names and tags are one line of at most {MAX_VALUE_CHARS} characters: {quoted(name)}"
                )
        for key in self.tags:
            if _TAG_KEY.fullmatch(key) is None or key.lower() in _RESERVED:
                raise IllegalRecordError(
                    f"a tag name is letters, digits, spaces, _ and - (not {', '.join(_RESERVED)}): "
                    f"{quoted(key)}"
                )
        board = self._replay(len(self.moves))
        self._check_opening(board)
        outcome = board.outcome()
        if outcome is not None:
            expected = Ending.LINE if outcome.winner is not None else Ending.FULL
            if self.ending is not expected or self.winner is not outcome.winner:
                said = f"{self.ending.value} ({self.winner or 'no winner'})"
                real = f"{expected.value} ({outcome.winner or 'no winner'})"
                raise IllegalRecordError(f"the result says {said}, but the moves end in {real}")
        elif self.ending in (Ending.LINE, Ending.FULL):
            raise IllegalRecordError(
                f"the result says the game ended by {self.ending.value}, but the moves do not end it"
            )
        elif (self.ending is Ending.UNFINISHED) != (self.winner is None):
            raise IllegalRecordError(
                "a resigned or timed-out game has a winner, and an unfinished one has none"
            )

    @classmethod
    def from_board(
        cls,
        board: Board,
        *,
        x_name: str = "",
        o_name: str = "",
        winner: Mark | None = None,
        ending: Ending | None = None,
        tags: Mapping[str, str] | None = None,
        opening: Opening = Opening.FREE,
        opening_decisions: Iterable[str] = (),
    ) -> GameRecord:
        """The record of `board`'s moves. A game the board shows over needs no result: it is read
        from the board; otherwise give `winner` and `ending` for a resignation or timeout. A game
        that began with an opening gives it and its decisions (OpeningState.decisions)."""
        outcome = board.outcome()
        if outcome is not None and ending is None:
            winner = outcome.winner
            ending = Ending.LINE if outcome.winner is not None else Ending.FULL
        return cls(
            board.rows,
            board.cols,
            board.k,
            board.rule,
            board.moves,
            _one_line(x_name),
            _one_line(o_name),
            winner,
            ending if ending is not None else Ending.UNFINISHED,
            {_one_line(key): _one_line(value) for key, value in (tags or {}).items()},
            opening,
            tuple(opening_decisions),
        )

    def board(self, ply: int | None = None) -> Board:
        """The board after the first `ply` moves (all of them by default)."""
        if ply is None:
            ply = len(self.moves)
        if not 0 <= ply <= len(self.moves):
            raise ValueError(f"ply must be from 0 to {len(self.moves)}, not {ply}")
        return self._replay(ply)

    def name_of(self, mark: Mark) -> str:
        return self.x_name if mark is Mark.X else self.o_name

    @property
    def spec(self) -> str:
        return f"{self.rows}x{self.cols} k{self.k} {self.rule.value}"

    def opening_state(self) -> OpeningState:
        """The opening as engine.game.openings replays it from the moves and the decisions: where it
        stands after the whole record (done, unless the game stopped inside it)."""
        return OpeningState(self.opening, self._replay(len(self.moves)), self.opening_decisions)

    def _check_opening(self, board: Board) -> None:
        if not isinstance(self.opening, Opening):
            raise IllegalRecordError(f"unknown opening {quoted(self.opening)}")
        if self.opening is Opening.FREE and self.opening_decisions:
            raise IllegalRecordError("a free game has no opening decisions")
        for token in self.opening_decisions:
            if not isinstance(token, str) or not token or any(ch.isspace() for ch in token):
                raise IllegalRecordError(f"an opening decision is one word: {quoted(token)}")
        try:
            OpeningState(self.opening, board, self.opening_decisions)
        except OpeningError as exc:
            raise IllegalRecordError(f"the {self.opening.value} opening: {exc}") from None

    def _replay(self, ply: int) -> Board:
        try:
            board = Board(self.rows, self.cols, self.k, self.rule)
        except ValueError as exc:
            raise IllegalRecordError(str(exc)) from None
        for number, cell in enumerate(self.moves[:ply], start=1):
            try:
                board.push(cell)
            except MoveError as exc:
                raise IllegalRecordError(f"move {number}: {exc}") from None
        return board

    # ----------------------------------------------------------------- writing
    def to_text(self) -> str:
        """caro's own record form (see the module docstring); read_record reads it back."""
        lines = [TEXT_MAGIC, f"Board: {self.spec}"]
        if self.x_name:
            lines.append(f"X: {self.x_name}")
        if self.o_name:
            lines.append(f"O: {self.o_name}")
        lines.append(
            f"Result: {self.winner.name if self.winner is not None else _NO_WINNER[self.ending]}"
        )
        lines.append(f"Ending: {self.ending.value}")
        if self.opening is not Opening.FREE:
            lines.append(f"Opening: {' '.join((self.opening.value, *self.opening_decisions))}")
        lines.extend(f"{key}: {value}" for key, value in self.tags.items())
        lines.append("Moves: " + " ".join(cell_name(cell) for cell in self.moves))
        return "\n".join(lines) + "\n"

    def to_psq(self) -> str:
        """The piskvork .psq form: size, the moves as column,row from 1, the two names. The
        format has no place for an opening: its stones are there as moves, its name and
        decisions are not."""
        lines = [f"Piskvorky {self.cols}x{self.rows}, 0:0, 0"]
        lines.extend(f"{col + 1},{row + 1},0" for row, col in self.moves)
        # piskvork reads the two lines after the moves as the players (the first mover first).
        lines.append(self.x_name or "X")
        lines.append(self.o_name or "O")
        lines.append("-1")
        return "\n".join(lines) + "\n"


_NO_WINNER = {
    Ending.FULL: "draw",
    Ending.UNFINISHED: "none",
    Ending.LINE: "none",
    Ending.RESIGN: "none",
    Ending.TIMEOUT: "none",
}


def _one_line(text: str) -> str:
    """A display name made safe for a one-line field: line breaks become spaces."""
    return " ".join(str(text).split())[:MAX_VALUE_CHARS]


# ----------------------------------------------------------------------------- reading
_PSQ_HEADER = re.compile(
    r"Piskvorky\s+(\d{1,3})\s*x\s*(\d{1,3})\s*,\s*(-?\d+)\s*:\s*(-?\d+)\s*,\s*([01])"
)
_PSQ_MOVE = re.compile(r"(-?\d{1,3})\s*,\s*(-?\d{1,3})(?:\s*,\s*-?\d{1,12})?")
_KEY_VALUE = re.compile(r"([A-Za-z][A-Za-z0-9 _-]{0,39}):\s*(.*)")
_TAG_KEY = re.compile(r"[A-Za-z](?:[A-Za-z0-9 _-]{0,38}[A-Za-z0-9_-])?")
# Keys of caro's record form that are not tags.
_RESERVED = ("board", "x", "o", "result", "ending", "opening", "moves")


def read_record(text: str, *, k: int | None = None, rule: Rule | str | None = None) -> GameRecord:
    """A game from the text of a caro record, a .psq file or a Board.text() line, told apart by
    their first line. `k` and `rule` are for formats that do not say them (.psq: five in a row,
    freestyle, unless given); a record that says them must agree with them."""
    if not isinstance(text, str):
        raise UnknownFormatError("a game record is text")
    if len(text) > MAX_RECORD_CHARS:
        raise UnknownFormatError(
            f"{len(text)} characters is too long for a game record ({MAX_RECORD_CHARS} at most)"
        )
    lines = [line.strip() for line in text.lstrip("\ufeff").splitlines()]
    first = next((line for line in lines if line), "")
    wanted_rule = Rule.parse(rule) if isinstance(rule, str) else rule
    if first.lower() == TEXT_MAGIC:
        record = _read_text(lines)
    elif first.startswith("Piskvorky"):
        return _read_psq(lines, 5 if k is None else k, wanted_rule or Rule.FREESTYLE)
    elif re.match(r"\d{1,3}[xX]\d{1,3}\s", first):
        record = _read_board_line(first)
    else:
        raise UnknownFormatError(
            "not a game record: expected a caro record (first line "
            f"{TEXT_MAGIC!r}), a piskvork .psq file or a line like '15x15 k5 caro H8 I9'"
        )
    if k is not None and k != record.k:
        raise IllegalRecordError(f"the record is a k{record.k} game, not k{k}")
    if wanted_rule is not None and wanted_rule is not record.rule:
        raise IllegalRecordError(
            f"the record is a {record.rule.value} game, not {wanted_rule.value}"
        )
    return record


def load_record(
    path: str | Path, *, k: int | None = None, rule: Rule | str | None = None
) -> GameRecord:
    """read_record on a file; OSError if it cannot be read, RecordError if it is not a game."""
    file = Path(path)
    with file.open("rb") as handle:
        data = handle.read(MAX_RECORD_CHARS * 4 + 1)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UnknownFormatError(f"{file.name} is not a text file (not UTF-8)") from None
    return read_record(text, k=k, rule=rule)


def save_record(record: GameRecord, path: str | Path) -> Path:
    """Write the record in the form its suffix names: .psq, else caro's own form."""
    file = Path(path)
    text = record.to_psq() if file.suffix.lower() == PSQ_SUFFIX else record.to_text()
    file.write_text(text, encoding="utf-8")
    return file


def _cells(board: Board, names: Iterable[str], where: str) -> None:
    for number, name in enumerate(names, start=1):
        try:
            board.push_name(name)
        except MoveError as exc:
            raise IllegalRecordError(f"{where}, move {number}: {exc}") from None


def _spec_board(spec: str, where: str) -> Board:
    parts = spec.split()
    if len(parts) != 3:
        raise MalformedRecordError(
            f"{where}: the board is written like '15x15 k5 caro', not {quoted(spec)}"
        )
    size, k_part, rule_part = parts
    try:
        if not re.fullmatch(r"[kK]\d{1,3}", k_part):
            raise ValueError(f"k is written like k5, not {quoted(k_part)}")
        rows, cols, k = parse_size(size + k_part).with_k()
        return Board(rows, cols, k, Rule.parse(rule_part))
    except ValueError as exc:
        raise MalformedRecordError(f"{where}: {exc}") from None


def _read_board_line(line: str) -> GameRecord:
    parts = line.split()
    if len(parts) < 3:
        raise MalformedRecordError(
            f"line 1: expected 'ROWSxCOLS kK RULE moves...', got {quoted(line)}"
        )
    board = _spec_board(" ".join(parts[:3]), "line 1")
    _cells(board, parts[3:], "line 1")
    return GameRecord.from_board(board)


def _read_text(lines: list[str]) -> GameRecord:
    values: dict[str, tuple[int, str]] = {}
    tags: dict[str, str] = {}
    known = set(_RESERVED)
    for number, line in enumerate(lines, start=1):
        if not line or line.lower() == TEXT_MAGIC or line.startswith("#"):
            continue
        match = _KEY_VALUE.fullmatch(line)
        if match is None:
            raise MalformedRecordError(f"line {number}: expected 'Key: value', got {quoted(line)}")
        key, value = match.group(1).strip(), match.group(2).strip()
        if key.lower() in known:
            if key.lower() in values:
                raise MalformedRecordError(f"line {number}: {key} is given twice")
            values[key.lower()] = (number, value)
        else:
            tags[key] = value
    for needed in ("board", "moves"):
        if needed not in values:
            raise MalformedRecordError(f"the record has no {needed.capitalize()}: line")
    board_line, spec = values["board"]
    board = _spec_board(spec, f"line {board_line}")
    moves_line, moves = values["moves"]
    _cells(board, moves.split(), f"line {moves_line}")

    winner: Mark | None = None
    result_line, result = values.get("result", (0, "none"))
    if result.upper() in ("X", "O"):
        winner = Mark[result.upper()]
    elif result.lower() not in ("draw", "none"):
        raise MalformedRecordError(
            f"line {result_line}: Result is X, O, draw or none, not {quoted(result)}"
        )
    ending_line, ending_text = values.get("ending", (0, ""))
    if ending_text:
        try:
            ending = Ending(ending_text.lower())
        except ValueError:
            choices = ", ".join(e.value for e in Ending)
            raise MalformedRecordError(
                f"line {ending_line}: Ending is one of {choices}, not {quoted(ending_text)}"
            ) from None
    else:
        outcome = board.outcome()
        ending = (
            Ending.UNFINISHED
            if outcome is None
            else Ending.LINE
            if outcome.winner is not None
            else Ending.FULL
        )
    if result.lower() == "draw" and ending is not Ending.FULL:
        raise IllegalRecordError(f"line {result_line}: a draw ends with a full board")
    opening = Opening.FREE
    decisions: tuple[str, ...] = ()
    if "opening" in values:
        opening_line, opening_text = values["opening"]
        words = opening_text.split()
        if not words:
            raise MalformedRecordError(f"line {opening_line}: Opening names the opening")
        try:
            opening = Opening.parse(words[0])
        except ValueError as exc:
            raise MalformedRecordError(f"line {opening_line}: {exc}") from None
        decisions = tuple(words[1:])
        try:
            OpeningState(opening, board, decisions)
        except OpeningError as exc:
            raise IllegalRecordError(f"line {opening_line}: {exc}") from None
    return GameRecord(
        board.rows,
        board.cols,
        board.k,
        board.rule,
        board.moves,
        values.get("x", (0, ""))[1],
        values.get("o", (0, ""))[1],
        winner,
        ending,
        tags,
        opening,
        decisions,
    )


def _read_psq(lines: list[str], k: int, rule: Rule) -> GameRecord:
    start = next(i for i, line in enumerate(lines) if line)
    header = _PSQ_HEADER.match(lines[start])
    if header is None:
        raise MalformedRecordError(
            f"line {start + 1}: a .psq file starts like 'Piskvorky 15x15, 0:0, 0', "
            f"not {quoted(lines[start])}"
        )
    cols, rows, swapped = int(header.group(1)), int(header.group(2)), header.group(5) == "1"
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise IllegalRecordError(
            f"line {start + 1}: caro plays boards up to {MAX_SIDE}x{MAX_SIDE}, not {cols}x{rows}"
        )
    try:
        board = Board(rows, cols, k, rule)
    except ValueError as exc:
        raise IllegalRecordError(
            f"line {start + 1}: {exc} (a .psq file does not say k: give the game's k)"
        ) from None
    index = start + 1
    while index < len(lines):
        line = lines[index]
        move = _PSQ_MOVE.fullmatch(line)
        if move is None:
            break
        x, y = int(move.group(1)), int(move.group(2))
        if not (1 <= x <= cols and 1 <= y <= rows):
            raise IllegalRecordError(f"line {index + 1}: {x},{y} is off the {cols}x{rows} board")
        try:
            board.push((y - 1, x - 1))
        except MoveError as exc:
            raise IllegalRecordError(f"line {index + 1}: {exc}") from None
        index += 1
    # What follows the moves: the two players, then the manager's own lines (an error code...).
    rest = [line for line in lines[index:] if line]
    names = [line for line in rest[:2] if not re.fullmatch(r"-?\d+(,.*)?", line)]
    first, second = (names + ["", ""])[:2]
    if swapped:
        first, second = second, first
    return GameRecord.from_board(board, x_name=_one_line(first), o_name=_one_line(second))


__all__ = [
    "PSQ_SUFFIX",
    "TEXT_MAGIC",
    "TEXT_SUFFIX",
    "Ending",
    "GameRecord",
    "IllegalRecordError",
    "MalformedRecordError",
    "RecordError",
    "UnknownFormatError",
    "load_record",
    "read_record",
    "save_record",
]
