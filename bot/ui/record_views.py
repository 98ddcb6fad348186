"""Drawing finished games as records: the replay message (animated picture, stepper, move list),
the exported files, the AI review's turning points and /caro history's pages. Only drawing here:
what to show is decided by the game service and the cogs."""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Mapping, Sequence

import discord

from bot.game.levels import ExternalLevel
from bot.game.model import EndReason, GameState, Seat, Status
from bot.game.records import HistoryPage
from bot.i18n.texts import text_in
from bot.ui import drawing
from bot.ui.buttons import Export, Replay, ReplayStep
from bot.ui.buttons import HistoryPage as PageButton
from bot.ui.buttons import Review as ReviewButton
from bot.ui.payloads import ButtonPayload, row_payload
from bot.ui.pictures import DEFAULT_THEME, render_step
from engine import Mark
from engine.analysis.review import Review, TurningPoint, TurnKind
from engine.game.notation import cell_name, player_label
from engine.game.openings import Opening, OpeningState
from engine.game.records import Ending, GameRecord

Translate = Callable[..., str]
Players = tuple[str, str]
Named = Mapping[int, str]
"""Players called by name, never mentioned: those of another server than the one the record is
shown in (a queued game between two servers), by display name and rating."""
NOBODY_NAMED: Named = {}

REPLAY_GIF = "replay.gif"
STEP_PNG = "replay.png"
# Plies of the move list shown either side of the current move: a 26x26 game's whole list would
# not fit in a message (2000 characters).
MOVE_LIST_REACH = 40
# Turning points drawn in one review message: one embed (and picture) each, next to the summary;
# Discord takes at most 10 embeds and 10 files per message.
MAX_POINTS_SHOWN = 8
# Where a stepper button takes the replay from the position shown.
STEPS = ("f", "b", "n", "l")
SECONDARY = discord.ButtonStyle.secondary
_STEP_LABELS = {"f": "\u23ee", "b": "\u25c0", "n": "\u25b6", "l": "\u23ed"}

# How an offer is stored among an opening's decisions (engine.game.openings): "offer:H10,J7".
OFFER = "offer:"


def translator(locale: str) -> Translate:
    return functools.partial(text_in, locale)


def seat_name(state: GameState, mark: Mark, names: Mapping[int, str], tr: Translate) -> str:
    """Who played `mark`, for pictures and files: a member's display name, or the AI level."""
    level = state.level_of(mark)
    if level is not None:
        return tr("seat.ai", level=tr(f"level.{level}"))
    user = state.user_of(mark)
    assert user is not None
    return names.get(user) or tr("seat.member", id=user)


def seat_mention(
    seat: Seat, tr: Translate, external: ExternalLevel, named: Named = NOBODY_NAMED
) -> str:
    if isinstance(seat, int):
        return named.get(seat) or f"<@{seat}>"
    return tr("seat.ai", level=external.label(tr, seat))


def players_of(state: GameState, names: Mapping[int, str], tr: Translate) -> Players:
    return (seat_name(state, Mark.X, names, tr), seat_name(state, Mark.O, names, tr))


def result_text(
    state: GameState, tr: Translate, external: ExternalLevel, named: Named = NOBODY_NAMED
) -> str:
    """How the game ended, in one line, naming the winner."""
    row = state.row
    if row.status is Status.ABANDONED:
        return tr("record.result.stopped")
    if row.winner is None:
        return tr("record.result.draw")
    reason = (row.end_reason or EndReason.LINE).value
    winner = player_label(seat_mention(row.seat(row.winner), tr, external, named), row.winner)
    return tr(f"record.result.{reason}", winner=winner)


def title(state: GameState, tr: Translate) -> str:
    row = state.row
    return tr(
        "record.title",
        game=row.id,
        rows=row.rows,
        cols=row.cols,
        k=row.k,
        rule=tr(f"rulename.{row.rule}"),
    )


def players_line(
    state: GameState, tr: Translate, external: ExternalLevel, named: Named = NOBODY_NAMED
) -> str:
    return tr(
        "record.players",
        x=player_label(seat_mention(state.row.x, tr, external, named), Mark.X),
        o=player_label(seat_mention(state.row.o, tr, external, named), Mark.O),
    )


def move_list(moves: Sequence[str], current: int) -> str:
    """The moves numbered as the stones of the replay are (X plays the odd numbers):
    "1. H8 2. G8 3. I8", move `current` (from 1) in bold; a long game shows only the moves
    around it."""
    low = max(0, current - MOVE_LIST_REACH)
    high = min(len(moves), current + MOVE_LIST_REACH)
    parts: list[str] = ["…"] if low > 0 else []
    for index in range(low, high):
        name = f"**{moves[index]}**" if index + 1 == current else moves[index]
        parts.append(f"{index + 1}. {name}")
    if high < len(moves):
        parts.append("…")
    return " ".join(parts)


def opening_line(state: GameState, tr: Translate, who: Callable[[Seat], str]) -> str:
    """The opening rule of a game and the decisions taken in it, each with who took it (`who`
    names a seat), for boards and records."""
    row = state.row
    name = tr(f"openingname.{row.opening.value}")
    if not row.decisions:
        return tr("opening.line", opening=name)
    opening = state.opening or OpeningState(row.opening, state.board, row.decisions)
    # The seats are who plays X and O now; the opening knows which of its sides that is.
    seats = {opening.x_side: row.x, opening.x_side.other: row.o}
    said = [
        tr(
            "decision.offer",
            who=who(seats[side]),
            cells=token.removeprefix(OFFER).replace(",", ", "),
        )
        if token.startswith(OFFER)
        else tr(f"decision.{token}", who=who(seats[side]))
        for token, side in zip(opening.decisions, opening.deciders, strict=True)
    ]
    return tr("opening.line.decided", opening=name, decisions="; ".join(said))


# ----------------------------------------------------------------------------- replay
def replay_content(
    state: GameState,
    ply: int,
    tr: Translate,
    external: ExternalLevel,
    named: Named = NOBODY_NAMED,
) -> str:
    moves = [move.cell for move in state.row.moves]
    lines = [
        title(state, tr),
        players_line(state, tr, external, named),
        result_text(state, tr, external, named),
    ]
    if state.row.opening is not Opening.FREE:
        lines.insert(
            1, opening_line(state, tr, lambda seat: seat_mention(seat, tr, external, named))
        )
    if ply == 0:
        lines.append(tr("replay.start", count=len(moves)))
    else:
        mark = Mark.X if ply % 2 == 1 else Mark.O
        lines.append(
            tr("replay.at", ply=ply, total=len(moves), cell=moves[ply - 1], mark=mark.name)
        )
    if moves:
        lines.append(tr("replay.moves", moves=move_list(moves, ply)))
    return "\n".join(lines)


def replay_view(state: GameState, ply: int, tr: Translate) -> discord.ui.View:
    """The stepper (first, back, next, last) from position `ply`, then Export and Review."""
    total, game = state.board.ply, state.id
    steps = [
        ReplayStep.button(
            _STEP_LABELS[step],
            SECONDARY,
            ply == 0 if step in ("f", "b") else ply == total,
            game=game,
            ply=ply,
            step=step,
        )
        for step in STEPS
    ]
    files = [Export.button(tr("button.export"), game=game)]
    if state.row.status is Status.FINISHED:
        files.append(ReviewButton.button(tr("button.review"), game=game))
    return drawing.view([row_payload(steps), row_payload(files)])


def replay_gif(gif: bytes) -> discord.File:
    """The animation (drawn by picture_jobs.replay_gif, in the CPU pool) as an attachment."""
    return discord.File(io.BytesIO(gif), REPLAY_GIF)


def step_png(
    state: GameState, ply: int, players: Players, theme: str = DEFAULT_THEME
) -> discord.File:
    png = render_step(state.board, ply, players=players, numbers=True, theme=theme)
    return discord.File(io.BytesIO(png), STEP_PNG)


def target_ply(step: str, shown: int, total: int) -> int:
    """Where a stepper button goes from position `shown` of a `total`-move game."""
    return {"f": 0, "b": shown - 1, "n": shown + 1, "l": total}[step]


# ----------------------------------------------------------------------------- export
_ENDINGS = {
    EndReason.LINE: Ending.LINE,
    EndReason.FULL: Ending.FULL,
    EndReason.RESIGN: Ending.RESIGN,
    EndReason.TIMEOUT: Ending.TIMEOUT,
}


def game_record(state: GameState, players: Players) -> GameRecord:
    """The game as engine.game.records has it: moves, names, and how it ended."""
    row = state.row
    board = state.board
    over = board.outcome() is not None
    ending: Ending | None = None
    winner = None
    if not over and row.status is Status.FINISHED and row.end_reason is not None:
        ending, winner = _ENDINGS[row.end_reason], row.winner
    tags = {"Game": str(row.id), "Mode": row.mode.value}
    # The record names its opening and the decisions taken in it (the stones are its moves).
    return GameRecord.from_board(
        board, x_name=players[0], o_name=players[1], winner=winner, ending=ending, tags=tags,
        opening=row.opening, opening_decisions=row.decisions,
    )


def export_files(state: GameState, players: Players) -> list[discord.File]:
    """The game as a piskvork .psq file and as caro's own record (engine.game.records)."""
    record = game_record(state, players)
    stem = f"caro-game-{state.id}"
    return [
        discord.File(io.BytesIO(record.to_psq().encode()), f"{stem}.psq"),
        discord.File(io.BytesIO(record.to_text().encode()), f"{stem}.caro"),
    ]


# ----------------------------------------------------------------------------- review
def review_progress(state: GameState, done: int, total: int, tr: Translate) -> str:
    return "\n".join([title(state, tr), tr("review.progress", done=done, count=total)])


def _point_file(ply: int) -> str:
    return f"turn-{ply}.png"


def _line_text(cells: Sequence[tuple[int, int]], start_ply: int) -> str:
    """A line of moves numbered as in the move list, the first being move `start_ply`."""
    return " ".join(f"{n}. {cell_name(cell)}" for n, cell in enumerate(cells, start=start_ply))


def _point_title(point: TurningPoint, players: Players, tr: Translate) -> str:
    name = players[0] if point.mover is Mark.X else players[1]
    return tr(
        f"review.kind.{point.kind.value}", ply=point.ply, player=player_label(name, point.mover)
    )


def pictures_to_draw(review: Review) -> list[tuple[int, tuple[int, int] | None]]:
    """(ply, better move to shade) of each turning point review_message shows, for
    bot.ui.picture_jobs.turning_point_pictures."""
    return [
        (point.ply, point.better if point.better != point.move else None)
        for point in review.turning_points[:MAX_POINTS_SHOWN]
    ]


def review_message(
    state: GameState,
    review: Review,
    players: Players,
    pictures: Sequence[bytes],
    tr: Translate,
    external: ExternalLevel,
    named: Named = NOBODY_NAMED,
) -> tuple[str, list[discord.Embed], list[discord.File]]:
    """(text, embeds, files) of a review: a summary per player, then the turning points, each
    with its picture (`pictures`, in the order of pictures_to_draw), the move played, the better
    move and the line that follows."""
    lines = [
        title(state, tr),
        players_line(state, tr, external, named),
        result_text(state, tr, external, named),
    ]
    if not review.complete:
        lines.append(tr("review.partial", reached=len(review.move_reviews), total=len(review.moves)))
    for mark, name in zip((Mark.X, Mark.O), players, strict=True):
        s = review.summary_of(mark)
        lines.append(
            tr(
                "review.summary",
                player=player_label(name, mark),
                accuracy=f"{s.accuracy:.0f}",
                count=s.moves,
                best=s.best_moves,
                inaccuracies=s.inaccuracies,
                mistakes=s.mistakes,
                blunders=s.blunders,
            )
        )
    points = review.turning_points
    if not points:
        lines.append(tr("review.no_points"))
    else:
        lines.append(tr("review.points", count=len(points)))
    if len(points) > MAX_POINTS_SHOWN:
        rest = ", ".join(str(p.ply) for p in points[MAX_POINTS_SHOWN:])
        lines.append(tr("review.more", moves=rest))
    embeds: list[discord.Embed] = []
    files: list[discord.File] = []
    for point, png in zip(points[:MAX_POINTS_SHOWN], pictures, strict=True):
        embed = discord.Embed(
            title=_point_title(point, players, tr),
            description=tr(f"review.proof.{point.proof.value}"),
        )
        embed.add_field(name=tr("review.played"), value=cell_name(point.move))
        if point.better is not None:
            embed.add_field(name=tr("review.better"), value=cell_name(point.better))
        if point.line:
            # The line starts with the better move, played instead of move `ply`.
            embed.add_field(
                name=tr("review.line"), value=_line_text(point.line, point.ply)[:1024], inline=False
            )
        if point.refutation:
            # Where a forced win began, its line starts with that move itself; elsewhere what
            # follows the move played starts with the opponent's reply.
            began = point.kind is TurnKind.WIN_BEGAN
            embed.add_field(
                name=tr("review.win_line" if began else "review.refutation"),
                value=_line_text(point.refutation, point.ply if began else point.ply + 1)[:1024],
                inline=False,
            )
        files.append(discord.File(io.BytesIO(png), _point_file(point.ply)))
        embed.set_image(url=f"attachment://{_point_file(point.ply)}")
        embeds.append(embed)
    return "\n".join(lines), embeds, _unique(files)


def _unique(files: list[discord.File]) -> list[discord.File]:
    """One picture per move (a move can be two turning points: the loss and the win it began);
    their embeds point at the same file."""
    seen: set[str] = set()
    kept = []
    for file in files:
        if file.filename not in seen:
            seen.add(file.filename)
            kept.append(file)
    return kept


# ----------------------------------------------------------------------------- history
def history_content(
    page: HistoryPage,
    tr: Translate,
    external: ExternalLevel,
    named: Mapping[int, Named] | None = None,
) -> str:
    """The page's games, `named` saying per game id whom to call by name."""
    lines = [tr("history.title", user=f"<@{page.user_id}>", page=page.page + 1)]
    if not page.entries:
        lines.append(tr("history.empty"))
    for entry in page.entries:
        row = entry.state.row
        change = ""
        if entry.change is not None:
            delta = round(entry.change.after) - round(entry.change.before)
            change = tr("history.rating", delta=f"{delta:+d}", after=round(entry.change.after))
        lines.append(
            tr(
                "history.entry",
                game=row.id,
                result=tr(f"history.result.{entry.result.value}"),
                opponent=seat_mention(
                    entry.opponent, tr, external, (named or {}).get(row.id, NOBODY_NAMED)
                ),
                mark=entry.mark.name,
                rows=row.rows,
                cols=row.cols,
                count=row.ply,
                change=change,
            )
        )
    return "\n".join(lines)


def history_view(page: HistoryPage, tr: Translate) -> discord.ui.View:
    """Replay and Review per game (one row each), then Prev / Next."""
    games = [entry.state.id for entry in page.entries]
    replays = [Replay.button(tr("button.replay_game", game=g), game=g) for g in games]
    reviews = [ReviewButton.button(tr("button.review_game", game=g), game=g) for g in games]
    user, previous = page.user_id, page.page - 1
    pages = [
        PageButton.button(
            tr("button.prev"), SECONDARY, previous < 0, user=user, page=max(0, previous)
        ),
        PageButton.button(
            tr("button.next"), SECONDARY, not page.has_next, user=user, page=page.page + 1
        ),
    ]
    rows: list[list[ButtonPayload]] = [replays, reviews, pages]
    return drawing.view([row_payload(row) for row in rows if row])


__all__ = [
    "MAX_POINTS_SHOWN",
    "NOBODY_NAMED",
    "REPLAY_GIF",
    "Named",
    "STEPS",
    "STEP_PNG",
    "export_files",
    "game_record",
    "history_content",
    "history_view",
    "move_list",
    "pictures_to_draw",
    "players_of",
    "replay_content",
    "replay_gif",
    "replay_view",
    "result_text",
    "review_message",
    "review_progress",
    "seat_name",
    "step_png",
    "target_ply",
    "translator",
]
