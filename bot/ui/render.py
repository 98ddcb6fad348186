"""Message text, buttons and embeds drawn from stored state. No decisions are made here."""

from __future__ import annotations

import functools
import io
import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

import discord

from bot.game.hints import offers_hints
from bot.game.levels import STAND_IN, ExternalLevel, played_by_stand_in
from bot.game.model import (
    AiLevel,
    ChallengeRow,
    External,
    GameState,
    Mode,
    RatedRow,
    RatingChange,
    Record,
    Seat,
    Standing,
    Status,
    UserStats,
    jump_link,
)
from bot.game.pairings import Format
from bot.game.ports import GLOBAL_SCOPE
from bot.game.ratings import AI_ANCHORS, LEADERBOARD_MIN_GAMES, START_RATING, rated
from bot.game.seasons import SOFT_RESET_KEEP
from bot.game.tournament_model import TournamentGame
from bot.i18n.texts import EN, command_names, text_in
from bot.ui import drawing
from bot.ui.buttons import (
    EMPTY_LABEL,
    Accept,
    Cell,
    Decide,
    Decline,
    Hint,
    Pan,
    Rematch,
    Resign,
    ResignConfirm,
    ResignKeep,
    Review,
    Stop,
    TakebackAccept,
    TakebackDecline,
    TypeMove,
)
from bot.ui.payloads import (
    ButtonPayload,
    Payload,
    gallery_payload,
    row_payload,
    text_payload,
)
from bot.ui.pictures import DEFAULT_THEME, ButtonColour, Players, Theme, render_board, theme_named
from bot.ui.record_views import opening_line, seat_mention
from bot.ui.tournaments import entrant_label
from bot.ui.window import Window, initial_window
from engine import Mark
from engine.game.notation import cell_name
from engine.game.openings import RIF_OFFERS, Choice, Opening, StepKind
from engine.game.types import LEVELS

Translate = Callable[..., str]
BOARD_FILENAME = "board.png"

LEADERBOARD_SIZE = 10
MAX_BUTTON_SIDE = 5  # Discord allows 5 buttons per action row

_STYLE = {colour: discord.ButtonStyle[colour.value] for colour in ButtonColour}
SECONDARY, DANGER = discord.ButtonStyle.secondary, discord.ButtonStyle.danger
PRIMARY, SUCCESS = discord.ButtonStyle.primary, discord.ButtonStyle.success
# Every drawing names all its cells; the names of the boards in play, computed once.
_cell_names = functools.lru_cache(maxsize=4096)(cell_name)


def game_content(
    state: GameState,
    locale: str | None = None,
    changes: Sequence[RatingChange] = (),
    *,
    external: ExternalLevel,
    theme: str = DEFAULT_THEME,
    tournament: TournamentGame | None = None,
    names: Mapping[int, str] | None = None,
) -> str:
    """_game_content; each member of `names` is called by their name there instead of being
    mentioned (a player of another server, on a board of a game between two servers)."""
    content = _game_content(
        state, locale, changes, external=external, theme=theme, tournament=tournament,
        elsewhere=frozenset(names or ()),
    )
    for user_id, name in (names or {}).items():
        content = content.replace(f"<@{user_id}>", name)
    return content


def _game_content(
    state: GameState,
    locale: str | None = None,
    changes: Sequence[RatingChange] = (),
    *,
    external: ExternalLevel,
    theme: str = DEFAULT_THEME,
    tournament: TournamentGame | None = None,
    elsewhere: frozenset[int] = frozenset(),
) -> str:
    """The game message: the board's rules, its tournament and round (a tournament's game), both
    sides, the move count, the key to the picture's and the buttons' colours in `theme` (big
    boards), the last AI move with its reason, and whose turn it is (with the clock) or how it
    ended. `external` names the external engine's seat; a tournament's entries are named as its
    standings name them. `elsewhere`: the players of other servers than the board's."""
    tr = _translator(locale or state.row.locale)
    row = state.row
    lines = [
        tr("game.title", rows=row.rows, cols=row.cols, k=row.k, rule=tr(f"rulename.{row.rule}")),
    ]
    if tournament is not None:
        lines.append(_tournament_line(tournament, tr))
    lines += [
        _players_line(state, tr, external, tournament),
        tr("game.moves", ply=state.board.ply),
    ]
    if row.opening is not Opening.FREE:

        def who(seat: Seat) -> str:
            entry = _entry_name(state, Mark.X if seat == row.x else Mark.O, tr, tournament)
            return seat_mention(seat, tr, external) if entry is None else entry

        lines.append(opening_line(state, tr, who))
    if uses_image(state):
        # The picture and its buttons side by side: one line says what their colours mean.
        lines.append(tr(f"theme.key.{theme_named(theme).name}"))
    if not row.rated and state.mode != Mode.WATCH:
        if not rated(state.mode, row.rows, row.cols, row.k):
            # Too small to be lost by the side moving first (see bot.game.ratings.rated).
            lines.append(tr("game.unrated"))
        elif row.tournament_id is not None:
            # Its organiser made the tournament casual; a tournament's moves stand all the same.
            lines.append(tr("game.casual.tournament"))
        else:
            # Big enough to be rated: the members asked for a casual game.
            lines.append(tr("game.casual", **command_names(locale or row.locale)))
    last = state.last_ai_move
    if last is not None:
        cell, reason = last
        reason = reason.removeprefix(STAND_IN)
        reason_text = tr(f"reason.{reason}" if f"reason.{reason}" in EN else "reason.unknown")
        if state.mode == Mode.WATCH:
            # X makes the odd-numbered moves, so the parity of the move count names the mover.
            last_mark = Mark.X if state.board.ply % 2 == 1 else Mark.O
            # A spectator has no threat of their own: say whose threat the move answers.
            if f"reason.watch.{reason}" in EN:
                reason_text = tr(f"reason.watch.{reason}", mark=last_mark.other.name)
            entry = _entry_name(state, last_mark, tr, tournament)
            if entry is not None:
                lines.append(
                    tr("game.ai_moved.named", player=entry, cell=cell, reason=reason_text)
                )
            else:
                level = _level(tr, state.level_of(last_mark), external)
                lines.append(
                    tr("game.ai_moved.watch", level=level, cell=cell, reason=reason_text)
                )
        else:
            lines.append(tr("game.ai_moved", cell=cell, reason=reason_text))
    played = _members_last_move(state, tr)
    if played is not None:
        lines.append(played)
    stand_ins = [move.cell for move in row.moves if played_by_stand_in(move.reason)]
    if stand_ins:
        lines.append(
            tr(
                "game.stand_ins",
                level=tr(f"level.{external.fallback.value}"),
                engine=external.label(tr, External.ENGINE, playing=False),
                moves=", ".join(stand_ins),
            )
        )
    if row.hints:
        lines.append(tr("game.hints", count=row.hints))
    if row.status == "finished":
        lines.append(_result_line(state, tr, external, tournament))
        lines += [
            _rating_line(change, tr, globally=change.user_id in elsewhere)
            for change in shown_changes(changes, elsewhere)
        ]
    elif row.status == "abandoned":
        lines.append(tr("game.watch.stopped" if state.mode == Mode.WATCH else "game.abandoned"))
    elif state.opening is not None:
        lines.append(_opening_status(state, tr, external, tournament))
        if row.deadline is not None:
            lines.append(tr("game.clock", when=f"<t:{math.ceil(row.deadline)}:R>"))
    elif state.ai_to_move:
        turn = state.board.turn
        entry = _entry_name(state, turn, tr, tournament)
        if state.mode == Mode.WATCH and entry is not None:
            lines.append(tr("game.ai_thinking.named", player=entry, mark=turn.name))
        elif state.mode == Mode.WATCH:
            level = _level(tr, state.level_of(turn), external)
            lines.append(tr("game.ai_thinking.watch", level=level, mark=turn.name))
        else:
            lines.append(tr("game.ai_thinking"))
    else:
        mover = state.mover_id
        if state.mode == Mode.AI:
            lines.append(tr("game.your_turn", mark=state.player_mark.name))
        else:
            lines.append(tr("game.turn", user=f"<@{mover}>", mark=state.board.turn.name))
        if row.deadline is not None:
            lines.append(tr("game.clock", when=f"<t:{math.ceil(row.deadline)}:R>"))
    return "\n".join(lines)


def _tournament_line(game: TournamentGame, tr: Translate) -> str:
    """Which tournament and round the game is of, the tournament's name a link to its
    announcement (where its Join, Leave and status are)."""
    row = game.tournament
    name = tr("tournament.title", id=row.id)
    if row.message_id is not None:
        name = f"[{name}]({jump_link(row.guild_id, row.channel_id, row.message_id)})"
    if row.format is Format.ARENA:
        # An arena pairs whoever is free: its batches of pairings are no rounds to a player.
        return tr("game.tournament.arena", tournament=name)
    return tr(
        "game.tournament", tournament=name, round=game.round, rounds=row.rounds or game.round
    )


def _entry_name(
    state: GameState, mark: Mark, tr: Translate, tournament: TournamentGame | None
) -> str | None:
    """Who plays `mark` as the tournament's standings name them ("AI hard #2"); None outside a
    tournament."""
    if tournament is None:
        return None
    return entrant_label(tournament.entrant(state, mark), tr)


def _members_last_move(state: GameState, tr: Translate) -> str | None:
    """Where the last move went and who played it, when a member did on a board of buttons: a
    big board's picture marks it, and an AI's move has a line of its own. Boards this small
    have no opening, so the mark that moved names the member."""
    moves = state.row.moves
    if not moves or moves[-1].by_ai or uses_image(state):
        return None
    mark = Mark.X if state.board.ply % 2 == 1 else Mark.O
    user = state.user_of(mark)
    if user is None:
        return None
    return tr("game.last_move", user=f"<@{user}>", cell=moves[-1].cell, mark=mark.name)


def shown_changes(
    changes: Sequence[RatingChange], elsewhere: frozenset[int] = frozenset()
) -> list[RatingChange]:
    """The rating changes a board shows: each member's in their own server (the board's), then
    the global one of each player of another server (`elsewhere`), who has no rating in the
    board's server."""
    return [c for c in changes if c.scope != GLOBAL_SCOPE and c.user_id not in elsewhere] + [
        c for c in changes if c.scope == GLOBAL_SCOPE and c.user_id in elsewhere
    ]


def _rating_line(change: RatingChange, tr: Translate, *, globally: bool = False) -> str:
    """A member's rating before and after the game (`globally`: their global rating); when the
    two round to the same number, the change itself and why it is so small (Elo moves little on
    a result it expected)."""
    before, after = round(change.before), round(change.after)
    key = "game.rating" if before != after else "game.rating.expected"
    if globally:
        key = key.replace("game.rating", "game.rating.global")
    delta = f"{change.after - change.before:+.1f}"
    return tr(key, user=f"<@{change.user_id}>", before=before, after=after, change=delta)


def _opening_status(
    state: GameState,
    tr: Translate,
    external: ExternalLevel,
    tournament: TournamentGame | None = None,
) -> str:
    """What the opening waits for, and from whom: "Opening (swap2): @Alice places stone 2 of
    3 (O)"."""
    opening = state.opening
    step = None if opening is None else opening.step
    assert opening is not None and step is not None
    mark = state.acting_mark
    member = state.user_of(mark)
    who = _entry_name(state, mark, tr, tournament)
    if who is None:
        who = f"<@{member}>" if member is not None else _level(tr, state.level_of(mark), external)
    name = tr(f"openingname.{opening.opening.value}")
    board = state.board
    if step.kind is StepKind.PLACE:
        return tr(
            "opening.status.place",
            opening=name,
            who=who,
            number=board.ply + 1,
            total=board.ply + step.count,
            mark=board.turn.name,
        )
    if step.kind is StepKind.CHOOSE:
        key = "opening.status.choose_three" if Choice.PLACE_TWO in step.choices else "opening.status.choose"
        return tr(key, opening=name, who=who)
    offered = ", ".join(_cell_names(cell) for cell in step.offers)
    if step.kind is StepKind.OFFER:
        return tr(
            "opening.status.offer",
            opening=name,
            who=who,
            places=RIF_OFFERS,
            stone=board.ply + 1,
            offered=offered or "-",
        )
    return tr("opening.status.select", opening=name, who=who, cells=offered)


def _offered(state: GameState) -> tuple[tuple[int, int], ...]:
    """The places offered so far in a RIF opening's fifth-stone step, marked on the board."""
    step = None if state.opening is None else state.opening.step
    return () if step is None else step.offers


def _choosing(state: GameState) -> bool:
    step = None if state.opening is None else state.opening.step
    return step is not None and step.kind is StepKind.CHOOSE


def _players_line(
    state: GameState, tr: Translate, external: ExternalLevel, tournament: TournamentGame | None
) -> str:
    if tournament is not None:
        # Whatever the mode, both sides by the names the tournament's posts give them.
        return tr(
            "game.players.pvp",
            x=_entry_name(state, Mark.X, tr, tournament),
            o=_entry_name(state, Mark.O, tr, tournament),
        )
    if state.mode == Mode.PVP:
        return tr(
            "game.players.pvp",
            x=f"<@{state.user_of(Mark.X)}>",
            o=f"<@{state.user_of(Mark.O)}>",
        )
    if state.mode == Mode.WATCH:
        return tr(
            "game.players.watch",
            x_level=_level(tr, state.level_of(Mark.X), external),
            o_level=_level(tr, state.level_of(Mark.O), external),
        )
    return tr(
        "game.players",
        player=f"<@{state.user_of(state.player_mark)}>",
        player_mark=state.player_mark.name,
        ai_mark=state.ai_mark.name,
        level=_level(tr, state.ai_level, external),
    )


def _result_line(
    state: GameState, tr: Translate, external: ExternalLevel, tournament: TournamentGame | None
) -> str:
    row = state.row
    reason = row.end_reason or "line"
    result = state.result_of(state.player_mark)
    if row.winner is None:
        return tr("game.result.draw")
    if state.mode == Mode.AI:
        if result == "loss" and reason in ("resign", "timeout"):
            return tr(f"game.result.ai.{reason}")
        return tr(f"game.result.{result}")
    winner = row.winner
    if state.mode == Mode.WATCH:
        entry = _entry_name(state, winner, tr, tournament)
        if entry is not None:
            return tr("game.result.named", player=entry, mark=winner.name)
        return tr("game.result.watch.line", level=_level(tr, state.level_of(winner), external),
                  mark=winner.name)
    key = f"game.result.pvp.{reason if reason in ('resign', 'timeout') else 'line'}"
    return tr(
        key,
        winner=f"<@{state.user_of(winner)}>",
        loser=f"<@{state.user_of(winner.other)}>",
    )


def has_window(state: GameState) -> bool:
    """Whether a big board is drawn with a pan window of cells: a running game a member plays."""
    return state.active and state.mode != Mode.WATCH


def uses_image(state: GameState) -> bool:
    """Whether the board is too big for a grid of buttons and is drawn as a picture instead."""
    return state.board.rows > MAX_BUTTON_SIDE or state.board.cols > MAX_BUTTON_SIDE


def board_file(
    state: GameState,
    window: Window | None = None,
    players: Players | None = None,
    theme: str = DEFAULT_THEME,
) -> discord.File:
    """The board picture in `theme`: last move marked, the winning line, the button window
    outlined, and with `players` (who plays X, who plays O) a legend saying whose stones are
    which."""
    board = state.board
    outcome = board.outcome()
    highlight = outcome.line if outcome is not None else (_offered(state) or None)
    key = (board.rows, board.cols, board.k, board.rule, board.moves, highlight, window, players,
           theme)
    png = _recent_pictures.get(key)
    if png is None:
        png = render_board(
            board,
            last_move=True,
            highlight=highlight,
            window=window,
            players=players,
            theme=theme,
        )
        _recent_pictures[key] = png
        if len(_recent_pictures) > RECENT_PICTURES:
            _recent_pictures.popitem(last=False)
    else:
        _recent_pictures.move_to_end(key)
    return discord.File(io.BytesIO(png), filename=BOARD_FILENAME)


# The pictures drawn last, by what they show (render_board gives the same bytes for the same
# input): the two boards of a game between two servers show one picture, and the process of a
# move draws both (bot.ui.other_boards).
RECENT_PICTURES = 16
_recent_pictures: OrderedDict[tuple[object, ...], bytes] = OrderedDict()


def uses_layout(state: GameState) -> bool:
    """Whether the message is a Components V2 layout rather than text plus 5 action rows.

    A running game needs its controls on every board: a 5-row grid plus a row of Resign/Hint,
    or a big board's 4-row window plus a row of pan arrows and one of Resign/Hint, is more than
    the 5 action rows of a plain message. V2 allows 40 components, enough for both. Discord never
    takes the V2 flag off a message, so this depends on the board's size alone, not on the state.
    """
    return uses_image(state) or state.board.rows >= MAX_BUTTON_SIDE


def game_view(
    state: GameState,
    locale: str | None = None,
    window: Window | None = None,
    changes: Sequence[RatingChange] = (),
    layout: bool = False,
    *,
    external: ExternalLevel,
    theme: str = DEFAULT_THEME,
    tournament: TournamentGame | None = None,
    names: Mapping[int, str] | None = None,
) -> discord.ui.View | discord.ui.LayoutView:
    """The components of a game: one button per cell (boards up to 5x5) or a pannable window of
    cells over the picture (bigger boards), then the controls: Resign (and Hint against the easy
    and normal AI) while the game runs, Stop in an AI-vs-AI game, Rematch at the end. A
    tournament's game has neither Stop nor Rematch: it is the tournament's to end, and played
    once.

    On a V2 layout (see uses_layout; or `layout`, for a message that already is one) the text
    and the picture are components too. The cells' colours are `theme`'s, as on its picture."""
    tr = _translator(locale or state.row.locale)
    look = theme_named(theme)
    # A game between two servers (some players named, not mentioned) has no Rematch: a new
    # challenge would be between members of two servers.
    rows = [
        row_payload(items)
        for items in _button_rows(state, tr, window, look, rematch=not names)
    ]
    if not (layout or uses_layout(state)):
        return drawing.view(rows)
    components: list[Payload] = [
        text_payload(
            game_content(
                state, locale, changes, external=external, theme=look.name,
                tournament=tournament, names=names,
            )
        )
    ]
    if uses_image(state):
        components.append(gallery_payload(f"attachment://{BOARD_FILENAME}"))
    return drawing.layout([*components, *rows])


Buttons = list[ButtonPayload]


def _button_rows(
    state: GameState, tr: Translate, window: Window | None, look: Theme, *, rematch: bool = True
) -> list[Buttons]:
    board = state.board
    # A colour choice of an opening is taken with its buttons, not on the board.
    players_turn = state.mover_id is not None and not _choosing(state)
    rows: list[Buttons] = []
    if not uses_image(state):
        grid = [[(r, c) for c in range(board.cols)] for r in range(board.rows)]
        rows += _cell_rows(state, grid, players_turn, look)
    elif has_window(state):
        window = (window or initial_window(board)).clamp(board.rows, board.cols)
        rows += _cell_rows(state, window.grid(), players_turn, look)
        rows.append(_pan_controls(state, window, players_turn, tr))
    controls = _game_controls(state, tr) if state.active else _end_controls(state, tr, rematch)
    if controls:
        rows.append(controls)
    return rows


def _cell_rows(
    state: GameState,
    grid: Sequence[Sequence[tuple[int, int]]],
    players_turn: bool,
    look: Theme,
) -> list[Buttons]:
    board = state.board
    outcome = board.outcome()
    highlighted = set(outcome.line) if outcome is not None else set()
    # The last move is marked as the winning line is, in the colour the theme's picture marks
    # it with: a board of buttons has no picture, and in a big board's window it is hard to spot.
    if board.last_move is not None:
        highlighted.add(board.last_move)
    # The places offered for RIF's fifth stone, marked like the last move.
    highlighted.update(_offered(state))
    styles = {Mark.X: _STYLE[look.x_button], Mark.O: _STYLE[look.o_button]}
    marked = _STYLE[look.marked_button] if look.marked_button is not None else None
    # A board has up to 25 cells here: the loop is the drawing's cost, so it is kept bare.
    draw, name = Cell.button, _cell_names
    windowed = uses_image(state)
    game, ply, locked = state.id, board.ply, not players_turn
    rows: list[Buttons] = []
    for line in grid:
        items: Buttons = []
        for cell in line:
            mark = board[cell]
            if mark is None:
                # In a window of a big board an empty cell says which it is ("H8"): the member
                # cannot count rows and columns from the picture at a glance.
                label = name(cell) if windowed else EMPTY_LABEL
                style = discord.ButtonStyle.secondary
            else:
                label, style = mark.name, styles[mark]
            if cell in highlighted:
                if marked is not None:
                    style = marked
                else:
                    # Colour alone would not tell every player: the label says it.
                    label = f"[{label}]"
            items.append(
                draw(label, style, locked or mark is not None, game=game, ply=ply, cell=name(cell))
            )
        rows.append(items)
    return rows


def _game_controls(state: GameState, tr: Translate) -> Buttons:
    if state.mode == Mode.WATCH:
        if state.row.tournament_id is not None:
            # Only its organiser ends a tournament's game, by removing a player or cancelling.
            return []
        return [Stop.button(tr("button.stop"), DANGER, game=state.id)]
    game, ply = state.id, state.board.ply
    items: Buttons = [Resign.button(tr("button.resign"), DANGER, game=game, ply=ply)]
    if state.opening is not None:
        # In an opening the choice buttons take the hint's place: the AI gives no hint there.
        if _choosing(state) and state.mover_id is not None:
            step = state.opening.step
            assert step is not None
            stage = state.stage
            items += [
                Decide.button(
                    tr(f"button.{choice.value}"),
                    PRIMARY,
                    game=game,
                    ply=ply,
                    stage=stage,
                    choice=choice.value,
                )
                for choice in step.choices
            ]
        return items
    if offers_hints(state):
        items.append(
            Hint.button(tr("button.hint"), SECONDARY, state.mover_id is None, game=game, ply=ply)
        )
    return items


def _end_controls(state: GameState, tr: Translate, rematch: bool = True) -> Buttons:
    items: Buttons = []
    if (
        rematch
        and state.row.status == Status.FINISHED
        and state.mode in (Mode.AI, Mode.PVP)
        and state.row.tournament_id is None
    ):
        # A tournament's pairings decide who plays whom again.
        items.append(
            Rematch.button(tr("button.rematch"), SUCCESS, game=state.id, ply=state.board.ply)
        )
    if state.row.status == Status.FINISHED:
        # Every finished board, whatever its mode, offers the AI's review of the game.
        items.append(Review.button(tr("button.review"), game=state.id))
    return items


_PAN_LABELS = {"left": "\u2b05", "up": "\u2b06", "down": "\u2b07", "right": "\u27a1"}


def _pan_controls(
    state: GameState, window: Window, players_turn: bool, tr: Translate
) -> Buttons:
    board = state.board
    game, ply, encoded = state.id, board.ply, window.encode()
    items: Buttons = [
        Pan.button(
            label,
            SECONDARY,
            not window.can_pan(direction, board.rows, board.cols),
            game=game,
            ply=ply,
            window=encoded,
            direction=direction,
        )
        for direction, label in _PAN_LABELS.items()
    ]
    items.append(
        TypeMove.button(tr("button.type"), PRIMARY, not players_turn, game=game, ply=ply)
    )
    return items


def challenge_content(challenge: ChallengeRow, locale: str | None = None) -> str:
    tr = _translator(locale or challenge.locale)
    names = {
        "challenger": f"<@{challenge.challenger_id}>",
        "opponent": f"<@{challenge.opponent_id}>",
    }
    if challenge.status == "pending":
        text = tr(
            "challenge.text",
            rows=challenge.rows,
            cols=challenge.cols,
            k=challenge.k,
            rule=tr(f"rulename.{challenge.rule}"),
            first=tr(f"challenge.first.{challenge.first}", **names),
            when=f"<t:{math.ceil(challenge.deadline)}:R>",
            **names,
        )
        if not challenge.rated:
            text += " " + tr("challenge.casual")
        return text
    return tr(f"challenge.{challenge.status}", link="", **names).rstrip(": ")


def challenge_view(challenge: ChallengeRow, locale: str | None = None) -> discord.ui.View:
    tr = _translator(locale or challenge.locale)
    if challenge.status != "pending":
        return drawing.view([])
    return drawing.view([
        row_payload([
            Accept.button(tr("button.accept"), SUCCESS, challenge=challenge.id),
            Decline.button(tr("button.decline"), DANGER, challenge=challenge.id),
        ])
    ])


def takeback_request_content(
    state: GameState, requester: int, opponent: int, *, locale: str | None = None,
    name: str | None = None,
) -> str:
    """The public line asking `opponent` to let `requester` take back the last move of `state`
    (at its move count), in the game's language or `locale`. `name`: how to call the requester
    where they cannot be mentioned (the other server of a game between two)."""
    tr = _translator(locale or state.row.locale)
    return tr(
        "takeback.asked",
        user=name or f"<@{requester}>",
        opponent=f"<@{opponent}>",
        cell=state.row.moves[-1].cell,
    )


def takeback_request_view(state: GameState, locale: str | None = None) -> discord.ui.View:
    """Accept and Decline of a takeback request asked at the move count of `state`."""
    tr = _translator(locale or state.row.locale)
    game, ply = state.id, state.board.ply
    return drawing.view([
        row_payload([
            TakebackAccept.button(tr("button.accept"), SUCCESS, game=game, ply=ply),
            TakebackDecline.button(tr("button.decline"), DANGER, game=game, ply=ply),
        ])
    ])


def resign_question(state: GameState, locale: str) -> tuple[str, discord.ui.View]:
    """The private question a Resign click asks, and its Yes and No for the game at the move
    count of `state`: a stray click on the board loses nothing."""
    tr = _translator(locale)
    game, ply = state.id, state.board.ply
    buttons = [
        ResignConfirm.button(tr("button.resign_confirm"), DANGER, game=game, ply=ply),
        ResignKeep.button(tr("button.resign_keep"), SECONDARY, game=game),
    ]
    return tr("resign.question"), drawing.view([row_payload(buttons)])


def _record_line(record: Record, tr: Translate) -> str:
    return tr(
        "stats.line",
        wins=record.wins,
        draws=record.draws,
        losses=record.losses,
        games=record.games,
        rate=f"{record.win_rate:.0%}",
    )


def leaderboard_text(
    rows: Sequence[RatedRow], mode: Mode, locale: str = "en-US", client: str | None = None
) -> str:
    """The ranked lines of `mode`'s table; with none, which table it is and how to get on it,
    the commands named as a Discord client in `client` shows them (by default `locale`)."""
    tr = _translator(locale)
    if not rows:
        names = command_names(client or locale)
        return tr(f"board.empty.{mode}", count=LEADERBOARD_MIN_GAMES, **names)
    return "\n".join(
        tr(
            "board.line",
            rank=row.rank,
            user=f"<@{row.user_id}>",
            rating=round(row.rating),
            wins=row.record.wins,
            draws=row.record.draws,
            losses=row.record.losses,
        )
        for row in rows
    )


def leaderboard_embed(
    rows: Sequence[RatedRow],
    scope: str = "server",
    mode: Mode = Mode.PVP,
    locale: str = "en-US",
    client: str | None = None,
    *,
    season: str | None = None,
) -> discord.Embed:
    """A leaderboard: all-time, or one season of the server (by name) with how seasons start;
    its footer says how it ranks and which games it counts."""
    tr = _translator(locale)
    where = {"scope": tr(f"scope.{scope}"), "mode": tr(f"mode.{mode}")}
    embed = discord.Embed(
        title=tr("board.title", **where)
        if season is None
        else tr("board.season_title", season=season, **where),
        description=leaderboard_text(rows, mode, locale, client),
    )
    rule = f"{board_rule(tr)}\n{tr(f'board.counts.{scope}')}"
    if season is not None:
        reset = tr("board.season_rule", start=f"{START_RATING:g}", keep=f"{SOFT_RESET_KEEP:.0%}")
        rule = f"{rule}\n{reset}"
    embed.set_footer(text=rule)
    return embed


def board_rule(tr: Callable[..., str]) -> str:
    """How a leaderboard ranks: Elo, the AI levels' anchors (bot.game.ladder's fit, so a new
    measurement shows at once) and the games it takes to be listed."""
    anchors = {level: f"{AI_ANCHORS[level]:g}" for level in LEVELS}
    return tr("board.rule", count=LEADERBOARD_MIN_GAMES, **anchors)


def server_leaderboard_embed(
    boards: Mapping[Mode, Sequence[RatedRow]], locale: str = "en-US", client: str | None = None
) -> discord.Embed:
    """This server's top players per mode, shown under a player's stats."""
    tr = _translator(locale)
    embed = discord.Embed(title=tr("board.server_title", count=LEADERBOARD_SIZE))
    for mode, rows in boards.items():
        embed.add_field(
            name=tr(f"mode.{mode}"), value=leaderboard_text(rows, mode, locale, client), inline=False
        )
    embed.set_footer(text=f"{board_rule(tr)}\n{tr('board.counts.server')}")
    return embed


def stats_embed(
    name: str,
    stats: UserStats,
    standings: Mapping[Mode, Standing],
    locale: str = "en-US",
    *,
    external: ExternalLevel,
) -> discord.Embed:
    """Rating and record per mode (against people, against the AI), then per AI level."""
    tr = _translator(locale)
    embed = discord.Embed(title=tr("stats.title", name=name))
    played = [mode for mode in (Mode.PVP, Mode.AI) if _games(standings.get(mode))]
    if not played and stats.overall.games == 0:
        embed.description = tr("stats.none")
    for mode in played:
        standing = standings[mode]
        assert standing.record is not None
        embed.add_field(
            name=tr("stats.mode", mode=tr(f"mode.{mode}"), rating=round(standing.rating)),
            value=_record_line(standing.record, tr),
            inline=False,
        )
    levels: tuple[AiLevel, ...] = (*LEVELS, External.ENGINE)
    for level in levels:
        record = stats.by_level.get(level)
        if record is not None and record.games:
            embed.add_field(
                name=tr("stats.level", level=external.label(tr, level, playing=False)),
                value=_record_line(record, tr),
                inline=False,
            )
    # The rating rule is the footer of the server leaderboard sent with these stats.
    return embed


def _games(standing: Standing | None) -> int:
    return 0 if standing is None or standing.record is None else standing.record.games


def _level(tr: Translate, level: AiLevel | None, external: ExternalLevel) -> str:
    """The name of the AI at a seat (callers ask only about seats an AI holds)."""
    assert level is not None
    return external.label(tr, level)


def _translator(locale: str) -> Translate:
    return functools.partial(text_in, locale)
