"""A puzzle's board as a message: the position (a picture with a pannable window of cells on a big
board, a grid of cells on a small one), what the last move did, and the controls; and the
puzzle leaderboard. Drawn from the session and the engine's check; no decisions are made here."""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from typing import Any

import discord

from bot.game.puzzle_model import AttemptOutcome, AttemptResult, PuzzleStanding
from bot.game.puzzles import Session
from bot.i18n.texts import text_in
from bot.ui import drawing
from bot.ui.buttons import EMPTY_LABEL, PuzzleCell, PuzzleGiveUp, PuzzlePan, PuzzleType
from bot.ui.payloads import ButtonPayload, Payload, gallery_payload, row_payload, text_payload
from bot.ui.pictures import DEFAULT_THEME, ButtonColour, Theme, render_board, theme_named
from bot.ui.window import Window, follow, initial_window
from engine import Board, Mark
from engine.analysis.puzzles import MoveCheck, Refutation, Verdict
from engine.game.notation import cell_name
from engine.game.types import Cell

Translate = Callable[..., str]
PICTURE = "puzzle.png"
MAX_BUTTON_SIDE = 5  # Discord: 5 buttons per action row, 5 rows of cells at most
_STYLE = {colour: discord.ButtonStyle[colour.value] for colour in ButtonColour}
SECONDARY, DANGER, PRIMARY = (
    discord.ButtonStyle.secondary,
    discord.ButtonStyle.danger,
    discord.ButtonStyle.primary,
)
_PAN_LABELS = {"left": "\u2b05", "up": "\u2b06", "down": "\u2b07", "right": "\u27a1"}


@dataclass(frozen=True, slots=True)
class Shown:
    """What the last event did, for the board's text: a move judged, the result of a finished
    attempt, or a surrender."""

    check: MoveCheck | None = None
    result: AttemptResult | None = None
    gave_up: bool = False


def translator(locale: str) -> Translate:
    return functools.partial(text_in, locale)


def uses_picture(board: Board) -> bool:
    return board.rows > MAX_BUTTON_SIDE or board.cols > MAX_BUTTON_SIDE


def window_for(board: Board, window: Window | None) -> Window:
    """The window of cells over a big board: `window` (panned), else around the last move."""
    if window is not None:
        return window.clamp(board.rows, board.cols)
    return initial_window(board).clamp(board.rows, board.cols)


def puzzle_parts(
    session: Session,
    shown: Shown = Shown(),
    *,
    window: Window | None = None,
    theme: str = DEFAULT_THEME,
    edit: bool = False,
) -> dict[str, Any]:
    """Keyword arguments that draw the puzzle on a message (send, or edit with `edit`)."""
    tr = translator(session.attempt.locale)
    board = session.board()
    marked = _marked(session, shown)
    components: list[Payload] = [text_payload(puzzle_text(session, shown, tr))]
    parts: dict[str, Any] = {}
    look = theme_named(theme)
    live = session.attempt.open
    if uses_picture(board):
        shown_window = window_for(board, window) if live else None
        if live and window is None and board.last_move is not None:
            assert shown_window is not None
            shown_window = follow(shown_window, board.last_move, board)
        shown_board, numbered = _with_line(board, shown)
        png = render_board(
            shown_board, last_move=True, highlight=marked or None, window=shown_window,
            theme=look.name, players=legend(session, tr), numbered=numbered,
        )
        picture = discord.File(io.BytesIO(png), filename=PICTURE)
        parts["attachments" if edit else "files"] = [picture]
        components.append(gallery_payload(f"attachment://{PICTURE}"))
        if live:
            assert shown_window is not None
            grid = shown_window.grid()
            components += [row_payload(r) for r in _cells(session, board, grid, look)]
            components.append(row_payload(_pan_row(session, board, shown_window, tr)))
    else:
        grid = [[(r, c) for c in range(board.cols)] for r in range(board.rows)]
        shown_board, _ = _with_line(board, shown)
        components += [
            row_payload(r) for r in _cells(session, shown_board, grid, look, marked, live)
        ]
    if live:
        components.append(row_payload([
            PuzzleGiveUp.button(
                tr("puzzle.give_up"), DANGER, attempt=session.attempt.id, ply=session.ply
            )
        ]))
    parts["view"] = drawing.layout(components)
    if edit:
        parts.update(content=None, embeds=[])
    return parts


def legend(session: Session, tr: Translate) -> tuple[str, str]:
    """Who plays X and who plays O in the picture's key: the member finds the win, the engine
    defends."""
    you, defender = tr("puzzle.legend.you"), tr("puzzle.legend.defender")
    return (you, defender) if session.puzzle.puzzle.to_move is Mark.X else (defender, you)


def _with_line(board: Board, shown: Shown) -> tuple[Board, list[Cell]]:
    """The board with a refutation's line played on it, so the picture shows why a move fails,
    and the stones of that line in order from the member's move, to number them."""
    check = shown.check
    if check is None or check.verdict is not Verdict.WRONG:
        return board, []
    work = board.copy()
    numbered = [check.move]
    for cell in check.line:
        if work.is_over() or work[cell] is not None:
            break
        work.push(cell)
        numbered.append(cell)
    return work, numbered


def _marked(session: Session, shown: Shown) -> set[Cell]:
    check = shown.check
    if check is None:
        return set()
    if check.verdict is Verdict.WRONG:
        return {check.move, *check.line}
    if check.verdict is Verdict.SOLVED:
        outcome = session.board().outcome()
        return set(outcome.line) if outcome is not None else {check.move}
    return set()


def _cells(
    session: Session,
    board: Board,
    grid: Sequence[Sequence[Cell]],
    look: Theme,
    marked: Set[Cell] = frozenset(),
    live: bool = True,
) -> list[list[ButtonPayload]]:
    styles = {"X": _STYLE[look.x_button], "O": _STYLE[look.o_button]}
    windowed = uses_picture(board)
    attempt, ply = session.attempt.id, session.ply
    rows: list[list[ButtonPayload]] = []
    for line in grid:
        items: list[ButtonPayload] = []
        for cell in line:
            mark = board[cell]
            name = cell_name(cell)
            if mark is None:
                label, style = (name if windowed else EMPTY_LABEL), SECONDARY
            else:
                label, style = mark.name, styles[mark.name]
            if cell in marked:
                label = f"[{label}]"
            items.append(
                PuzzleCell.button(
                    label, style, not live or mark is not None, attempt=attempt, ply=ply,
                    cell=name,
                )
            )
        rows.append(items)
    return rows


def _pan_row(session: Session, board: Board, window: Window, tr: Translate) -> list[ButtonPayload]:
    attempt, ply, code = session.attempt.id, session.ply, window.encode()
    items = [
        PuzzlePan.button(
            label, SECONDARY, not window.can_pan(direction, board.rows, board.cols),
            attempt=attempt, ply=ply, window=code, direction=direction,
        )
        for direction, label in _PAN_LABELS.items()
    ]
    items.append(PuzzleType.button(tr("button.type"), PRIMARY, attempt=attempt, ply=ply))
    return items


def puzzle_text(session: Session, shown: Shown, tr: Translate) -> str:
    puzzle = session.puzzle.puzzle
    attacker = puzzle.to_move
    lines = [
        tr(
            f"puzzle.title.{session.attempt.kind.value}",
            id=session.puzzle.id,
            user=f"<@{session.attempt.user_id}>",
        ),
        tr(
            "puzzle.task",
            mark=attacker.name,
            spec=session.board().spec,
            difficulty=puzzle.difficulty,
            proof=tr(f"puzzle.proof.{puzzle.kind.value}"),
            rating=f"{session.puzzle.skill.mu:.1f}",
        ),
    ]
    check = shown.check
    defender = attacker.other.name
    if check is not None:
        move = cell_name(check.move)
        if check.verdict is Verdict.WINNING:
            assert check.reply is not None
            lines.append(tr("puzzle.still_wins", move=move, mark=defender,
                            reply=cell_name(check.reply)))
        elif check.verdict is Verdict.SOLVED:
            lines.append(tr("puzzle.solved", move=move))
        elif check.verdict is Verdict.WRONG:
            lines.append(_refutation(check, defender, tr))
    if shown.gave_up:
        lines.append(tr("puzzle.gave_up", line=" ".join(puzzle.line)))
    if shown.result is not None:
        lines.append(_result_line(shown.result, tr))
    elif session.attempt.open and check is None:
        lines.append(tr("puzzle.find"))
    if session.attempt.open:
        lines.append(tr("puzzle.your_move", mark=attacker.name))
    return "\n".join(lines)


def _refutation(check: MoveCheck, defender: str, tr: Translate) -> str:
    move = cell_name(check.move)
    line = " ".join(cell_name(c) for c in check.line)
    if check.reason is Refutation.DRAW or check.reply is None:
        return tr("puzzle.wrong.draw", move=move)
    reply = cell_name(check.reply)
    if check.reason is Refutation.DEFENDER_WINS:
        return tr("puzzle.wrong.defender_wins", move=move, mark=defender, reply=reply, line=line)
    return tr("puzzle.wrong.holds", move=move, mark=defender, reply=reply, line=line)


def _result_line(result: AttemptResult, tr: Translate) -> str:
    after = result.after
    if not result.attempt.rated:
        return tr("puzzle.not_rated")
    if result.attempt.outcome is AttemptOutcome.SOLVED:
        key = "puzzle.rated.solved"
    elif result.before.streak:
        key = "puzzle.rated.failed"
    else:
        # No streak to end: a miss without one says nothing about streaks.
        key = "puzzle.rated.failed.no_streak"
    return tr(
        key,
        before=f"{result.before.skill.mu:.1f}",
        after=f"{after.skill.mu:.1f}",
        streak=after.streak,
        best=after.best_streak,
    )


def standing_line(standing: PuzzleStanding, tr: Translate) -> str:
    return tr(
        "puzzle.standing",
        rating=f"{standing.skill.mu:.1f}",
        sigma=f"{standing.skill.sigma:.1f}",
        solved=standing.solved,
        failed=standing.failed,
        streak=standing.streak,
        best=standing.best_streak,
    )


def leaderboard_embed(
    rows: Sequence[PuzzleStanding], mine: PuzzleStanding, tr: Translate, min_attempts: int
) -> discord.Embed:
    if rows:
        description = "\n".join(
            tr(
                "puzzle.board.line",
                rank=rank,
                user=f"<@{row.user_id}>",
                score=f"{row.skill.conservative:.1f}",
                rating=f"{row.skill.mu:.1f}",
                solved=row.solved,
                attempts=row.attempts,
            )
            for rank, row in enumerate(rows, start=1)
        )
    else:
        description = tr("puzzle.board.empty", minimum=min_attempts)
    embed = discord.Embed(title=tr("puzzle.board.title"), description=description)
    embed.add_field(name=tr("puzzle.board.you"), value=standing_line(mine, tr), inline=False)
    embed.set_footer(text=tr("puzzle.board.rule", minimum=min_attempts))
    return embed


__all__ = [
    "PICTURE",
    "Shown",
    "leaderboard_embed",
    "legend",
    "puzzle_parts",
    "puzzle_text",
    "standing_line",
    "translator",
    "uses_picture",
    "window_for",
]
