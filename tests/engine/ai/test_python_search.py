"""The levels with their pure-Python search (what plays while the compiled core is not built)
stay playable in the arena, as the reference the core is held to."""

import random

from engine.game.board import Board
from engine.programs.arena import LevelPlayer, parse_player


def test_arena_parses_python_level_as_the_pure_python_player():
    player = parse_player("python-impossible@0.3")
    assert isinstance(player, LevelPlayer)
    assert player.python and player.level == "impossible" and player.time_limit == 0.3
    assert player.name == "python-impossible@0.3"


def test_python_impossible_blocks_an_open_four_threat_on_a_big_board():
    board = Board.from_text("15x15 k5 freestyle H8 A1 H9 A2 H10")
    move = parse_player("python-impossible@0.3")(board.copy(), random.Random(0))
    # O to move against an open three: only a stone on its line, next to it or one beyond, stops
    # an open four next move.
    assert move in {(5, 7), (6, 7), (10, 7), (11, 7)}
