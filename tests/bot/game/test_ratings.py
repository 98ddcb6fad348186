"""The rated rule (bot/game/ratings.py) on a real database: degenerate games (one click wins on a
tiny board) move no rating, and say so in English and Vietnamese."""

from __future__ import annotations

import pytest

from bot.game import ratings
from bot.game.levels import NO_ENGINE
from bot.game.model import Mode, MoveRef
from bot.i18n.texts import VI, t
from engine import Mark
from testkit.services import ALICE, BOB, GUILD, start
from testkit.storage_backends import Backend


@pytest.mark.parametrize(
    ("mode", "rows", "cols", "k", "rated"),
    [
        (Mode.AI, 1, 1, 1, False),
        (Mode.AI, 2, 2, 2, False),
        (Mode.AI, 26, 26, 2, False),
        (Mode.AI, 3, 10, 5, False),  # no line of 5 fits across 3 rows: only one direction
        (Mode.AI, 3, 3, 3, True),
        (Mode.PVP, 15, 15, 5, True),
        (Mode.PVP, 4, 4, 5, False),
        (Mode.WATCH, 15, 15, 5, False),
    ],
)
def test_the_rated_rule(mode: Mode, rows: int, cols: int, k: int, rated: bool) -> None:
    assert ratings.rated(mode, rows, cols, k) is rated


async def test_one_click_wins_on_a_tiny_board_move_no_rating(world, backend: Backend) -> None:
    svc, _ = world
    for _ in range(5):
        state = await start(svc, ALICE, size="1x1k1", level="impossible")
        assert not state.row.rated
        over = await svc.moves.play(MoveRef(state.id, 0, "A1"), user_id=ALICE, message_id=None)
        assert over.row.winner is Mark.X and not over.active
        assert await svc.games.rating_changes(over.id) == []
    standing = await svc.standings.standing(GUILD, ALICE, Mode.AI)
    assert standing.rating == ratings.START_RATING
    counts = await backend.row_counts()
    assert (counts["standings"], counts["rating_changes"], counts["results"]) == (0, 0, 0)


async def test_unrated_is_said_in_english_and_vietnamese(world) -> None:
    from bot.ui.render import game_content

    svc, _ = world
    tiny = await start(svc, ALICE, size="2x2k2")
    normal = await start(svc, BOB)
    assert "Unrated" in game_content(tiny, external=NO_ENGINE)
    assert "Unrated" not in game_content(normal, external=NO_ENGINE)
    assert "game.unrated" in VI and VI["game.unrated"] != t("game.unrated")
    assert "Không tính điểm" in game_content(tiny, "vi", external=NO_ENGINE)
