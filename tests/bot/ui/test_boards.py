"""The board's look (bot/ui/board_look.py): its choice of the pan window of a big board, which
stays where the member left it and moves only as far as the last move needs. And what the
boards (bot/ui/boards.py) read and draw for the outbox's rows."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any, cast

import discord

from bot.game.mirrors import Mirrors
from bot.game.model import GameState, load_state
from bot.ui.board_look import BoardLook, shown_window
from bot.ui.boards import Boards
from bot.ui.buttons import Pan
from bot.ui.window import Window, initial_window
from engine.game.types import Level
from testkit.states import big_game, in_tournament


class _Item:
    def __init__(self, custom_id: str) -> None:
        self.custom_id = custom_id


class _Row:
    def __init__(self, *ids: str) -> None:
        self.children = [_Item(i) for i in ids]


class _Message:
    """The part of a discord.Message the window is read from: its rows of components."""

    def __init__(self, *rows: _Row) -> None:
        self.components = list(rows)


def _boards() -> Boards:
    # A bot whose only service is where games' boards are: the mirrors read nothing here.
    mirrors = Mirrors(cast(Any, None), cast(Any, None))
    return Boards(cast(Any, SimpleNamespace(services=SimpleNamespace(mirrors=mirrors))))


def _window(boards: Boards, state: GameState, window: Window | None = None,
            message: _Message | None = None) -> Window | None:
    return boards.look.window(state, window, cast(discord.Message | None, message))


def test_a_move_inside_the_window_leaves_it_where_the_member_panned_it() -> None:
    boards = _boards()
    panned = Window(5, 5, 4, 5)
    before = big_game(["H8"])
    assert _window(boards, before, panned) == panned
    inside = big_game(["H8", "G7"])  # G7: row 6, column 6 from 0, in the panned window
    assert _window(boards, inside) == panned


def test_a_last_move_outside_the_window_moves_it_only_as_far_as_needed() -> None:
    boards = _boards()
    panned = Window(5, 5, 4, 5)
    _window(boards, big_game(["H8"]), panned)
    # K11: row 10, column 10 from 0, one line below the window and one column right of it.
    moved = _window(boards, big_game(["H8", "K11"]))
    assert moved == Window(7, 6, 4, 5)


def test_after_a_restart_the_window_is_read_off_the_clicked_message() -> None:
    shown = Window(2, 3, 4, 5)
    message = _Message(_Row("caro:m:9:1:D3"), _Row(Pan.custom_id_of(
        game=9, ply=1, window=shown.encode(), direction="down"), "caro:r:9:1"))
    assert shown_window(cast(discord.Message, message)) == shown
    state = big_game(["D3", "E4"])
    assert _window(_boards(), state, message=message) == shown
    # Without a message or a memory the first window is around the last move.
    assert _window(_boards(), state) == initial_window(state.board)
    assert shown_window(None) is None
    assert shown_window(cast(discord.Message, _Message(_Row("caro:m:9:1:A1")))) is None


def test_a_finished_game_forgets_its_window_and_its_boards() -> None:
    boards = _boards()
    _window(boards, big_game(["H8"]), Window(5, 5, 4, 5))
    finished = big_game(["H8"], status="finished")
    mirrors = boards._host.services.mirrors
    mirrors._places[finished.id] = ()
    assert _window(boards, finished) is None
    boards.forget_if_over(finished)
    assert boards.look._windows == {} and mirrors._places == {}


async def test_the_catch_up_after_a_crash_leaves_alone_the_boards_drawn_since_the_start() -> None:
    boards = _boards()
    shown: list[int] = []

    async def show(state: GameState, interaction: object) -> None:
        shown.append(state.id)

    boards.show = show  # type: ignore[method-assign]
    played = big_game(["H8", "G7"], mode="ai")
    behind = load_state(replace(played.row, id=10))
    # A member played on game 9 before the catch-up read the games: its board shows that move.
    boards.drawn(played)
    await boards.catch_up([played, behind])
    assert shown == [10]
    # Run once: the games drawn after it are no longer noted.
    boards.drawn(load_state(replace(played.row, id=11)))
    assert boards._drawn_here is None


class _Host:
    """A bot that knows no server: members have no display name to show."""

    def get_guild(self, id: int) -> None:
        return None


async def test_a_tournament_boards_picture_names_its_players_as_the_standings_do() -> None:
    look = BoardLook(cast(Any, _Host()))
    watched = big_game(["H8"], mode="watch")
    assert await look.players(watched) == ("caro AI (easy)", "caro AI (hard)")
    state, placed = in_tournament(watched, "easy#2", "hard")
    assert await look.players(state, placed) == ("AI easy #2", "AI hard")
    two_of_a_level = load_state(replace(state.row, o=Level.EASY))
    _, placed = in_tournament(two_of_a_level, "easy#2", "easy")
    assert await look.players(two_of_a_level, placed) == ("AI easy #2", "AI easy")


async def test_a_tidy_row_draws_nothing_and_reads_no_board_of_the_game() -> None:
    finished = big_game(["H8"], status="finished")
    spawned: list[object] = []

    async def state(game_id: int) -> GameState:
        return finished

    async def boards_of(game_id: int) -> list[object]:
        raise AssertionError("read where the boards are, for a row that draws none")

    def spawn(coroutine: Any) -> None:
        spawned.append(coroutine)
        coroutine.close()

    mirrors = Mirrors(cast(Any, None), cast(Any, None))
    host = SimpleNamespace(spawn=spawn, services=SimpleNamespace(
        mirrors=mirrors, games=SimpleNamespace(state=state),
        queue=SimpleNamespace(boards=boards_of)))
    boards = Boards(cast(Any, host))
    assert await boards.board_edit(finished.id, 222, tidy=True) is None
    # That server's calls to move are still settled.
    assert len(spawned) == 1
