"""What the game message, its buttons and the stats embeds look like, from stored state."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot import texts
from bot.config import MissingTokenError, SettingsError, load_settings
from bot.games import GameState, load_state
from bot.render import game_content, game_view, leaderboard_embed, stats_embed
from bot.storage import GameRow, LeaderRow, MoveRow, Record, UserStats
from bot.views import EMPTY_LABEL


def game(moves: list[tuple[str, bool, str | None]], *, status: str = "active",
         result: str | None = None, mark: str = "X", size: int = 3, k: int = 3) -> GameState:
    row = GameRow(
        id=7, guild_id=1, channel_id=2, message_id=3, player_id=42, player_mark=mark,
        ai_level="hard", rows=size, cols=size, k=k, rule="freestyle", status=status,
        result=result, winner=None, ply=len(moves),
        moves=tuple(MoveRow(i, cell, ai, why) for i, (cell, ai, why) in enumerate(moves)),
    )
    return load_state(row)


def buttons(state: GameState) -> list[dict[str, Any]]:
    rows = game_view(state).to_components()
    assert all(r["type"] == 1 for r in rows)
    return [b for r in rows for b in r["components"]]


def test_players_turn_shows_a_clickable_grid() -> None:
    state = game([("B2", False, None), ("A1", True, "develop")])
    content = game_content(state)
    assert content.splitlines() == [
        "**3x3, 3 in a row, freestyle**",
        "<@42> (X) vs AI (O, hard)",
        "AI played **A1**: builds up its position.",
        "Your turn (X).",
    ]
    rows = game_view(state).to_components()
    assert [len(r["components"]) for r in rows] == [3, 3, 3]
    cells = {b["custom_id"].rsplit(":", 1)[1]: b for b in buttons(state)}
    assert cells["A1"]["label"] == "O" and cells["A1"]["style"] == discord.ButtonStyle.danger.value
    assert cells["B2"]["label"] == "X" and cells["B2"]["style"] == discord.ButtonStyle.primary.value
    assert cells["A1"]["disabled"] and cells["B2"]["disabled"]
    assert cells["C3"]["label"] == EMPTY_LABEL and not cells["C3"]["disabled"]
    assert cells["C3"]["custom_id"] == "caro:m:7:2:C3"


def test_board_is_locked_while_the_ai_thinks() -> None:
    state = game([("B2", False, None)])
    assert game_content(state).endswith("The AI is thinking...")
    assert all(b["disabled"] for b in buttons(state))


def test_win_highlights_the_line_and_disables_everything() -> None:
    moves = [("A1", False, None), ("A2", True, "develop"), ("B1", False, None),
             ("B2", True, "center"), ("C1", False, None)]
    state = game(moves, status="finished", result="win")
    assert game_content(state).endswith("**You win!**")
    cells = {b["custom_id"].rsplit(":", 1)[1]: b for b in buttons(state)}
    green = sorted(name for name, b in cells.items() if b["style"] == 3)
    assert green == ["A1", "B1", "C1"]
    assert all(b["disabled"] for b in cells.values())


@pytest.mark.parametrize(("result", "line"), [("loss", "**The AI wins.**"), ("draw", "**Draw.**")])
def test_results(result: str, line: str) -> None:
    state = game([("A1", False, None)], status="finished", result=result)
    assert game_content(state).endswith(line)


def test_unknown_reason_still_renders() -> None:
    state = game([("B2", False, None), ("A1", True, "mystery")])
    assert "AI played **A1**: its choice." in game_content(state)


def test_five_by_five_fits_discord_limits() -> None:
    state = game([], size=5, k=4, mark="O")
    rows = game_view(state).to_components()
    assert len(rows) == 5 and all(len(r["components"]) == 5 for r in rows)
    assert all(len(b["custom_id"]) <= 100 for b in buttons(state))


def test_stats_and_leaderboard_embeds() -> None:
    stats = UserStats(
        overall=Record(wins=2, draws=1, losses=1),
        by_level={"easy": Record(wins=2), "impossible": Record(draws=1, losses=1)},
        points=10,
    )
    board = [LeaderRow(1, 42, 10, Record(wins=2, draws=1, losses=1))]
    embed = stats_embed("alice", stats, board).to_dict()
    assert embed["title"] == "Stats of alice"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Overall"] == "2 W / 1 D / 1 L, 4 played, win rate 50%"
    assert fields["easy"] == "2 W / 0 D / 0 L, 2 played, win rate 100%"
    assert "normal" not in fields
    assert fields["Leaderboard"] == "**1.** <@42>: 10 pts (2 W / 1 D / 1 L, 50%)"
    empty = leaderboard_embed([]).to_dict()
    assert "Nobody has finished a game" in empty["description"]


def test_every_text_id_used_exists_and_formats() -> None:
    assert texts.t("game.your_turn", mark="X") == "Your turn (X)."
    assert texts.text_in("vi-VN", "game.your_turn", mark="O") == "Your turn (O)."  # falls back
    with pytest.raises(KeyError):
        texts.t("no.such.text")


def test_settings_from_environment() -> None:
    settings = load_settings(
        {"DISCORD_TOKEN": " abc ", "DISCORD_GUILD_ID": "123", "CARO_DB": "x.db",
         "DISCORD_API_BASE": "http://h/api/v10/", "CARO_LOG_LEVEL": "debug",
         "CARO_AI_TIME_LIMIT": "2.5"}
    )
    assert (settings.token, settings.guild_id, settings.db_path) == ("abc", 123, "x.db")
    assert settings.api_base == "http://h/api/v10" and settings.ai_time_limit == 2.5
    assert "abc" not in repr(settings)
    defaults = load_settings({"DISCORD_TOKEN": "t"})
    assert (defaults.db_path, defaults.guild_id, defaults.ai_time_limit) == ("caro.db", None, None)


@pytest.mark.parametrize(
    ("env", "error", "message"),
    [
        ({}, MissingTokenError, "Reset Token"),
        ({"DISCORD_TOKEN": "t", "DISCORD_GUILD_ID": "abc"}, SettingsError, "DISCORD_GUILD_ID"),
        ({"DISCORD_TOKEN": "t", "CARO_LOG_LEVEL": "LOUD"}, SettingsError, "CARO_LOG_LEVEL"),
        ({"DISCORD_TOKEN": "t", "CARO_AI_TIME_LIMIT": "-1"}, SettingsError, "CARO_AI_TIME_LIMIT"),
    ],
)
def test_bad_settings(env: dict[str, str], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        load_settings(env)
