"""What the game message, its buttons and the stats embeds look like, from stored state."""

from __future__ import annotations

import string
from dataclasses import replace
from typing import Any

import discord
import pytest

import bot.cogs  # noqa: F401  (the feature cogs register the buttons the drawing makes)
from bot.game.levels import NO_ENGINE
from bot.game.model import (
    GameState,
    Mode,
    RatedRow,
    RatingChange,
    Record,
    Standing,
    Status,
    UserStats,
    load_state,
)
from bot.game.pairings import Format
from bot.game.ratings import AI_ANCHORS
from bot.i18n import texts
from bot.runtime.config import MissingTokenError, SettingsError, load_settings
from bot.ui.buttons import EMPTY_LABEL
from bot.ui.pictures import THEMES
from bot.ui.render import (
    game_content,
    game_view,
    leaderboard_embed,
    server_leaderboard_embed,
    stats_embed,
)
from engine import Mark
from engine.game.openings import Opening
from engine.game.types import Level
from testkit.discord_double.state import iter_components
from testkit.states import big_game, game, in_tournament

TEXT_DISPLAY, MEDIA_GALLERY = 10, 12
# The tests that draw run with CARO_FAST_DRAWING on and off: both ways draw the same board.
both_drawings = pytest.mark.usefixtures("fast_drawing")


def all_buttons(state: GameState) -> list[dict[str, Any]]:
    view = game_view(state, external=NO_ENGINE)
    return [c for c in iter_components(view.to_components()) if c["type"] == 2]


def buttons(state: GameState) -> list[dict[str, Any]]:
    """The cell buttons (not the controls row)."""
    return [b for b in all_buttons(state) if b["custom_id"].startswith("caro:m:")]


def controls(state: GameState) -> list[str]:
    return [b["label"] for b in all_buttons(state) if not b["custom_id"].startswith("caro:m:")]


def action_rows(state: GameState) -> list[int]:
    """Buttons per action row; fails on anything but rows at the top level (a plain message)."""
    rows = game_view(state, external=NO_ENGINE).to_components()
    assert all(r["type"] == 1 for r in rows)
    return [len(r["components"]) for r in rows]


def v2_layout(state: GameState) -> list[Any]:
    """A Components V2 message: the top-level component types, each row given as its number of
    buttons; checks the 40-component limit Discord puts on such messages."""
    view = game_view(state, external=NO_ENGINE)
    assert isinstance(view, discord.ui.LayoutView)
    components = view.to_components()
    assert sum(1 for _ in iter_components(components)) <= 40
    return [len(c["components"]) if c["type"] == 1 else c["type"] for c in components]


@both_drawings
def test_players_turn_shows_a_clickable_grid() -> None:
    state = game([("B2", False, None), ("A1", True, "develop")])
    content = game_content(state, external=NO_ENGINE)
    assert content.splitlines() == [
        "**3x3, 3 in a row, freestyle**",
        "<@42> (X) vs AI (O, hard)",
        "Moves played: 2.",
        "AI played **A1**: builds up its position.",
        "Your turn (X).",
    ]
    assert action_rows(state) == [3, 3, 3, 1]
    assert controls(state) == ["Resign"]  # no hints against the hard AI
    cells = {b["custom_id"].rsplit(":", 1)[1]: b for b in buttons(state)}
    # A1, the AI's answer, is the last move: green, as the theme's picture would mark it.
    assert cells["A1"]["label"] == "O" and cells["A1"]["style"] == discord.ButtonStyle.success.value
    assert cells["B2"]["label"] == "X" and cells["B2"]["style"] == discord.ButtonStyle.primary.value
    assert cells["A1"]["disabled"] and cells["B2"]["disabled"]
    assert cells["C3"]["label"] == EMPTY_LABEL and not cells["C3"]["disabled"]
    assert cells["C3"]["custom_id"] == "caro:m:7:2:C3"


@both_drawings
def test_board_is_locked_while_the_ai_thinks() -> None:
    state = game([("B2", False, None)])
    assert game_content(state, external=NO_ENGINE).endswith("The AI is thinking...")
    assert all(b["disabled"] for b in buttons(state))


@both_drawings
def test_win_highlights_the_line_and_disables_everything() -> None:
    moves = [("A1", False, None), ("A2", True, "develop"), ("B1", False, None),
             ("B2", True, "center"), ("C1", False, None)]
    state = game(moves, status="finished", result="win")
    assert game_content(state, external=NO_ENGINE).endswith("**You win!**")
    cells = {b["custom_id"].rsplit(":", 1)[1]: b for b in buttons(state)}
    green = sorted(name for name, b in cells.items() if b["style"] == 3)
    assert green == ["A1", "B1", "C1"]
    assert all(b["disabled"] for b in cells.values())
    assert controls(state) == ["Rematch", "Review"]


@pytest.mark.parametrize(("result", "line"), [("loss", "**The AI wins.**"), ("draw", "**Draw.**")])
def test_results(result: str, line: str) -> None:
    state = game([("A1", False, None)], status="finished", result=result)
    assert game_content(state, external=NO_ENGINE).endswith(line)


def test_unknown_reason_still_renders() -> None:
    state = game([("B2", False, None), ("A1", True, "mystery")])
    assert "AI played **A1**: its choice." in game_content(state, external=NO_ENGINE)


@both_drawings
def test_five_by_five_fits_discord_limits_with_its_controls() -> None:
    state = game([], size=5, k=4, mark="O")
    # Five rows of cells and a row of controls: a Components V2 layout, the text on top.
    assert v2_layout(state) == [TEXT_DISPLAY, 5, 5, 5, 5, 5, 1]
    assert controls(state) == ["Resign"]
    text = game_view(state, external=NO_ENGINE).to_components()[0]["content"]
    assert text == game_content(state, external=NO_ENGINE)
    assert text.endswith("The AI is thinking...")
    assert all(len(b["custom_id"]) <= 100 for b in buttons(state))
    easy = game([("C3", False, None)], size=5, k=4)
    easy = load_state(replace(easy.row, o=Level.EASY))
    assert v2_layout(easy) == [TEXT_DISPLAY, 5, 5, 5, 5, 5, 2]
    assert controls(easy) == ["Resign", "Hint"]
    done = game([("C3", False, None)], size=5, k=4, status="finished", result="loss")
    assert v2_layout(done) == [TEXT_DISPLAY, 5, 5, 5, 5, 5, 2]
    assert controls(done) == ["Rematch", "Review"]
    assert all(b["disabled"] for b in buttons(done))


@both_drawings
def test_four_by_four_keeps_a_plain_message_with_resign_and_hint() -> None:
    state = load_state(replace(game([], size=4, k=4).row, o=Level.NORMAL))
    assert action_rows(state) == [4, 4, 4, 4, 2]
    assert controls(state) == ["Resign", "Hint"]


def test_stats_and_leaderboard_embeds() -> None:
    stats = UserStats(
        overall=Record(wins=2, draws=1, losses=1),
        by_level={"easy": Record(wins=2), "impossible": Record(draws=1, losses=1)},
    )
    standings = {
        "ai": Standing(1234.4, Record(wins=2, draws=1, losses=1)),
        "pvp": Standing(1200.0, Record()),
    }
    embed = stats_embed("alice", stats, standings, external=NO_ENGINE).to_dict()
    assert embed["title"] == "Stats of alice"
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["against the AI: rating 1234"] == "2 W / 1 D / 1 L, 4 played, win rate 50%"
    assert fields["vs AI easy"] == "2 W / 0 D / 0 L, 2 played, win rate 100%"
    assert "vs AI normal" not in fields and not any("people" in name for name in fields)
    board = leaderboard_embed([RatedRow(1, 42, 1250.6, Record(wins=3))], "global", "ai").to_dict()
    assert board["title"] == "Leaderboard: all servers, against the AI"
    assert board["description"] == "**1.** <@42>: 1251 (3 W / 0 D / 0 L)"
    empty = leaderboard_embed([]).to_dict()
    assert "Nobody has 3 rated games" in empty["description"]
    server = server_leaderboard_embed(
        {"pvp": [], "ai": [RatedRow(1, 42, 1250.6, Record(wins=3))]}
    ).to_dict()
    assert server["title"] == "Top 10 of this server"
    assert [(f["name"], f["value"]) for f in server["fields"]] == [
        ("against people", "Nobody has 3 rated games against people here yet. To get on this"
         " table, challenge a member: `/caro challenge`."),
        ("against the AI", "**1.** <@42>: 1251 (3 W / 0 D / 0 L)"),
    ]
    assert "Listed after 3 rated games" in server["footer"]["text"]
    # The AI levels' anchors are the ladder's (bot.game.ladder), in both languages.
    anchors = ", ".join(f"{level.value} {AI_ANCHORS[level]:g}" for level in Level)
    assert f"players rated {anchors}." in board["footer"]["text"]
    assert f"players rated {anchors}." in server["footer"]["text"]
    vi_board = leaderboard_embed([], locale="vi").to_dict()["footer"]["text"]
    assert f"khó {AI_ANCHORS[Level.HARD]:g}" in vi_board
    vietnamese = stats_embed("an", stats, standings, "vi", external=NO_ENGINE).to_dict()
    assert vietnamese["title"] == "Thống kê của an"
    assert "đấu với máy: điểm xếp hạng 1234" in {f["name"] for f in vietnamese["fields"]}


def test_every_text_id_used_exists_and_formats() -> None:
    assert texts.t("game.your_turn", mark="X") == "Your turn (X)."
    assert texts.text_in("vi", "game.your_turn", mark="O") == "Đến lượt bạn (O)."
    assert texts.text_in("ja", "game.your_turn", mark="O") == "Your turn (O)."  # falls back
    with pytest.raises(KeyError):
        texts.t("no.such.text")


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_vietnamese_catalogue_is_complete_with_the_same_placeholders() -> None:
    missing = sorted(set(texts.EN) - set(texts.VI))
    assert missing == []
    assert sorted(set(texts.VI) - set(texts.EN)) == []
    differ = [k for k in texts.EN if _placeholders(texts.EN[k]) != _placeholders(texts.VI[k])]
    assert differ == []
    # Discord's rule for localized command and option names: lower case, no spaces, <= 32.
    for key, name in texts.VI.items():
        if key.startswith(("cmdname.", "optname.")):
            assert name == name.lower() and " " not in name and 1 <= len(name) <= 32, key


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
    assert (defaults.min_timeout, defaults.challenge_seconds, defaults.watch_delay) == (
        60.0, 300.0, 1.5,
    )
    tests = load_settings({"DISCORD_TOKEN": "t", "CARO_MIN_TIMEOUT_SECONDS": "1",
                           "CARO_CHALLENGE_SECONDS": "2", "CARO_WATCH_DELAY_SECONDS": "0.2"})
    assert (tests.min_timeout, tests.challenge_seconds, tests.watch_delay) == (1.0, 2.0, 0.2)


@pytest.mark.parametrize(
    ("env", "error", "message"),
    [
        ({}, MissingTokenError, "Reset Token"),
        ({"DISCORD_TOKEN": "t", "DISCORD_GUILD_ID": "abc"}, SettingsError, "DISCORD_GUILD_ID"),
        ({"DISCORD_TOKEN": "t", "CARO_LOG_LEVEL": "LOUD"}, SettingsError, "CARO_LOG_LEVEL"),
        ({"DISCORD_TOKEN": "t", "CARO_AI_TIME_LIMIT": "-1"}, SettingsError, "CARO_AI_TIME_LIMIT"),
        ({"DISCORD_TOKEN": "t", "CARO_MIN_TIMEOUT_SECONDS": "soon"}, SettingsError,
         "CARO_MIN_TIMEOUT_SECONDS"),
        ({"DISCORD_TOKEN": "t", "CARO_WATCH_DELAY_SECONDS": "0"}, SettingsError,
         "CARO_WATCH_DELAY_SECONDS"),
    ],
)
def test_bad_settings(env: dict[str, str], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        load_settings(env)


@both_drawings
def test_a_big_board_gets_a_window_of_cells_pan_controls_and_resign() -> None:
    state = big_game(["H8", "A1"])
    # Text, picture, a 4x5 window, the pan row, the Resign row.
    assert v2_layout(state) == [TEXT_DISPLAY, MEDIA_GALLERY, 5, 5, 5, 5, 5, 1]
    picture = game_view(state, external=NO_ENGINE).to_components()[1]["items"][0]["media"]["url"]
    assert picture == "attachment://board.png"
    window = [b["custom_id"].rsplit(":", 1)[1] for b in buttons(state)]
    assert window[:5] == ["A1", "B1", "C1", "D1", "E1"]  # the window follows the last move
    assert controls(state) == ["\u2b05", "\u2b06", "\u2b07", "\u27a1", "Type a move", "Resign"]
    ids = [b["custom_id"] for b in all_buttons(state)]
    assert "caro:p:9:2:w0.0:down" in ids and "caro:r:9:2" in ids and len(set(ids)) == len(ids)
    assert all(len(i) <= 100 for i in ids)
    disabled = {b["label"] for b in all_buttons(state) if b.get("disabled")}
    assert "\u2b05" in disabled and "\u2b06" in disabled  # nothing to the left or above
    assert "<@42> to move (X)." in game_content(state, external=NO_ENGINE)
    against_easy = load_state(replace(state.row, mode=Mode.AI, o=Level.EASY))
    # The AI (O) moved last: the player's turn, so Hint is there too, within 40 components.
    assert v2_layout(against_easy) == [TEXT_DISPLAY, MEDIA_GALLERY, 5, 5, 5, 5, 5, 2]
    assert controls(against_easy)[-2:] == ["Resign", "Hint"]


@both_drawings
def test_a_finished_big_board_and_a_watched_one_show_no_cells() -> None:
    done = big_game(["H8", "A1", "I8", "A2", "J8", "A3", "K8", "A4", "L8"], status="finished")
    assert controls(done) == ["Rematch", "Review"] and buttons(done) == []
    assert v2_layout(done) == [TEXT_DISPLAY, MEDIA_GALLERY, 2]
    assert "**<@42> wins!**" in game_content(done, external=NO_ENGINE)
    watched = big_game(["H8"], mode="watch")
    assert v2_layout(watched) == [TEXT_DISPLAY, MEDIA_GALLERY, 1]
    assert [(b["label"], b["custom_id"]) for b in all_buttons(watched)] == [("Stop", "caro:s:9")]
    assert "AI easy (X) vs AI hard (O)" in game_content(watched, external=NO_ENGINE)
    assert "AI hard (O) is thinking..." in game_content(watched, external=NO_ENGINE)
    stopped = load_state(replace(watched.row, status=Status.ABANDONED))
    assert all_buttons(stopped) == []
    assert game_content(stopped, external=NO_ENGINE).endswith("**Stopped before the end.**")


@both_drawings
def test_a_small_watched_game_has_a_stop_button() -> None:
    row = replace(game([("B2", True, "center")]).row, mode=Mode.WATCH, x=Level.EASY)
    watched = load_state(row)
    assert action_rows(watched) == [3, 3, 3, 1]
    assert controls(watched) == ["Stop"]
    assert all(b["disabled"] for b in buttons(watched))


def test_empty_cells_in_a_big_boards_window_say_which_cell_they_are() -> None:
    state = big_game(["H8", "A1"])
    labels = {b["custom_id"].rsplit(":", 1)[1]: b["label"] for b in buttons(state)}
    assert labels["A1"] == "O" and labels["B1"] == "B1" and labels["E4"] == "E4"
    # A small board is all cells: its empty ones stay blank.
    small = game([("B2", False, None)])
    small_labels = {b["custom_id"].rsplit(":", 1)[1]: b["label"] for b in buttons(small)}
    assert small_labels["A1"] == EMPTY_LABEL and small_labels["B2"] == "X"


# ----------------------------------------------------------------------------- themes
def themed_cells(state: GameState, theme: str) -> dict[str, dict[str, Any]]:
    view = game_view(state, external=NO_ENGINE, theme=theme)
    return {
        c["custom_id"].rsplit(":", 1)[1]: c
        for c in iter_components(view.to_components())
        if c["type"] == 2 and c["custom_id"].startswith("caro:m:")
    }


@pytest.mark.parametrize("name", sorted(THEMES))
def test_the_buttons_show_x_o_and_the_last_move_in_the_colours_of_the_theme(name: str) -> None:
    look = THEMES[name]
    state = big_game(["H8", "A1", "B2"])
    cells = themed_cells(state, name)
    assert cells["A1"]["style"] == discord.ButtonStyle[look.o_button.value].value
    if look.marked_button is None:
        # The last move keeps its side's colour and says it is the last in its label.
        assert cells["B2"]["label"] == "[X]"
        assert cells["B2"]["style"] == discord.ButtonStyle[look.x_button.value].value
    else:
        assert cells["B2"]["label"] == "X"
        assert cells["B2"]["style"] == discord.ButtonStyle[look.marked_button.value].value
    # A board of buttons alone marks its last move the same way.
    small = game([("B2", False, None), ("A1", True, "develop")])
    small_cells = themed_cells(small, name)
    assert small_cells["B2"]["style"] == discord.ButtonStyle[look.x_button.value].value
    if look.marked_button is None:
        assert small_cells["A1"]["label"] == "[O]"
        assert small_cells["A1"]["style"] == discord.ButtonStyle[look.o_button.value].value
    else:
        assert small_cells["A1"]["label"] == "O"
        assert small_cells["A1"]["style"] == discord.ButtonStyle[look.marked_button.value].value


def test_a_won_small_board_in_the_high_contrast_theme_brackets_the_line_instead_of_greening_it(
) -> None:
    moves = [("A1", False, None), ("A2", True, "develop"), ("B1", False, None),
             ("B2", True, "center"), ("C1", False, None)]
    state = game(moves, status="finished", result="win")
    cells = themed_cells(state, "contrast")
    assert sorted(n for n, b in cells.items() if b["label"] == "[X]") == ["A1", "B1", "C1"]
    assert not any(b["style"] == discord.ButtonStyle.success.value for b in cells.values())


@pytest.mark.parametrize("locale", ["en-US", "vi"])
@pytest.mark.parametrize("name", sorted(THEMES))
def test_a_big_board_says_what_its_colours_mean_in_its_theme(name: str, locale: str) -> None:
    state = big_game(["H8", "A1"])
    view = game_view(state, locale, external=NO_ENGINE, theme=name)
    text = view.to_components()[0]["content"]
    assert texts.text_in(locale, f"theme.key.{name}") in text.splitlines()
    others = [texts.text_in(locale, f"theme.key.{other}") for other in THEMES if other != name]
    assert not any(other in text for other in others)
    # A board of buttons alone has no picture to explain.
    small = game([("B2", False, None)])
    assert "theme.key" not in game_content(small, external=NO_ENGINE, theme=name)
    assert all(
        texts.text_in("en-US", f"theme.key.{other}") not in game_content(small, external=NO_ENGINE)
        for other in THEMES
    )


@both_drawings
def test_an_openings_choice_has_its_buttons_and_rifs_offers_are_marked() -> None:
    swap2 = big_game(["H8", "H9", "I8"])
    choosing = load_state(replace(swap2.row, opening=Opening.SWAP2))
    # O's member (43) chooses: the cells are locked, the choices take the Hint's place.
    assert controls(choosing)[-4:] == ["Resign", "Take X", "Take O", "Place two more"]
    assert all(b.get("disabled") for b in buttons(choosing))
    assert v2_layout(choosing) == [TEXT_DISPLAY, MEDIA_GALLERY, 5, 5, 5, 5, 5, 4]
    text = game_content(choosing, external=NO_ENGINE)
    assert "Opening (swap2): <@43>: take X, take O or place two more." in text
    assert "caro:oc:9:3:3:place_two" in [b["custom_id"] for b in all_buttons(choosing)]
    rif = big_game(["H8", "H9", "I9", "J12"])
    # An empty cell in the window the board shows (around the last move) is offered.
    shown = [b["custom_id"].rsplit(":", 1)[1] for b in buttons(rif) if not b.get("disabled")]
    cell = next(name for name in shown if name not in ("H8", "H9", "I9", "J12"))
    offering = load_state(
        replace(rif.row, rule="renju", opening=Opening.RIF, decisions=("take_x", f"offer:{cell}"))
    )
    # 42 took X (the seats say who plays X now), 43 placed the fourth stone (O); 42 offered one
    # place and offers one more.
    text = game_content(offering, external=NO_ENGINE)
    assert f"<@42> offers 2 places for X's stone 5 (offered so far: {cell})." in text
    # Each decision says who took it.
    assert f"Opening: RIF (renju) (<@42> took X; <@42> offered {cell})." in text
    [marked] = [b for b in buttons(offering) if b["custom_id"].endswith(f":{cell}")]
    [plain] = [b for b in buttons(rif) if b["custom_id"].endswith(f":{cell}")]
    # Marked like the last move: another colour, or where the theme has none, brackets.
    assert (marked["style"], marked["label"]) != (plain["style"], plain["label"])


# ----------------------------------------------------------------------------- telling the truth
@both_drawings
def test_a_small_board_between_members_marks_and_names_the_last_move() -> None:
    row = replace(game([("B2", False, None), ("A1", False, None)]).row, mode=Mode.PVP, o=43)
    state = load_state(row)
    assert "Last move: **A1** by <@43> (O)." in game_content(state, external=NO_ENGINE).splitlines()
    vietnamese = game_content(state, "vi", external=NO_ENGINE)
    assert "Nước vừa đi: **A1** của <@43> (O)." in vietnamese.splitlines()
    cells = {b["custom_id"].rsplit(":", 1)[1]: b for b in buttons(state)}
    assert cells["A1"]["style"] == discord.ButtonStyle.success.value
    assert cells["B2"]["style"] == discord.ButtonStyle.primary.value


def test_a_watched_ai_defends_against_the_other_sides_threat_not_the_spectators() -> None:
    row = replace(
        game([("B2", True, "center"), ("A1", True, "defend")]).row,
        mode=Mode.WATCH,
        x=Level.EASY,
    )
    text = game_content(load_state(row), external=NO_ENGINE)
    assert "AI hard played **A1**: defends against X's threat." in text
    assert "your" not in text
    blocked = replace(row, moves=(*row.moves[:1], replace(row.moves[1], reason="block")))
    assert "blocks X's winning line" in game_content(load_state(blocked), external=NO_ENGINE)


def test_a_rating_that_rounds_to_the_same_number_says_why() -> None:
    moves = [("A1", False, None), ("B1", True, "develop")]
    state = game(moves, status="finished", result="loss")
    state = load_state(replace(state.row, guild_id=1))
    # Elo expected the loss against a far stronger opponent: it costs a third of a point.
    lost = RatingChange(42, 1, Mode.AI, 1200.0, 1199.68)
    assert game_content(state, changes=[lost], external=NO_ENGINE).endswith(
        "Rating <@42>: 1200 -> 1200 (-0.3: the ratings expected this result, so it moves them"
        " by less than half a point)."
    )
    moved = RatingChange(42, 1, Mode.AI, 1200.0, 1171.0)
    assert game_content(state, changes=[moved], external=NO_ENGINE).endswith(
        "Rating <@42>: 1200 -> 1171."
    )


# ----------------------------------------------------------------------------- tournament games
def test_a_tournament_game_names_its_tournament_round_and_entries_as_its_standings_do() -> None:
    row = replace(game([("B2", True, "center")]).row, mode=Mode.WATCH, x=Level.HARD)
    state, placed = in_tournament(load_state(row), "hard", "hard#2")
    text = game_content(state, external=NO_ENGINE, tournament=placed)
    lines = text.splitlines()
    assert lines[1] == "[Tournament #5](https://discord.com/channels/1/2/77), round 2 of 3."
    assert lines[2] == "AI hard (X) vs AI hard #2 (O)"
    assert "AI hard played **B2**: takes the centre." in lines
    assert lines[-1] == "AI hard #2 (O) is thinking..."
    # The same text on a layout board, and in Vietnamese.
    layout = game_view(state, external=NO_ENGINE, tournament=placed, layout=True)
    assert layout.to_components()[0]["content"] == text
    vietnamese = game_content(state, "vi", external=NO_ENGINE, tournament=placed).splitlines()
    assert vietnamese[1] == "[Giải #5](https://discord.com/channels/1/2/77), vòng 2/3."
    assert vietnamese[2] == "Máy khó (X) đấu với Máy khó #2 (O)"
    assert vietnamese[-1] == "Máy khó #2 (O) đang nghĩ..."
    won = load_state(replace(state.row, status=Status.FINISHED, winner=Mark.O))
    assert game_content(won, external=NO_ENGINE, tournament=placed).endswith(
        "**AI hard #2 (O) wins.**"
    )
    # A member against an AI entry; an arena names no round; no stored announcement, no link.
    member, placed = in_tournament(
        game([("B2", False, None)]), "42", "easy#3", format=Format.ARENA, message=None
    )
    lines = game_content(member, external=NO_ENGINE, tournament=placed).splitlines()
    assert lines[1:3] == ["Tournament #5 (arena).", "<@42> (X) vs AI easy #3 (O)"]


def test_an_opening_that_swapped_colours_swaps_the_entries_names_on_the_board() -> None:
    row = replace(game([]).row, mode=Mode.PVP, x=43, o=42)
    state, placed = in_tournament(load_state(row), "42", "43")
    assert "<@43> (X) vs <@42> (O)" in game_content(state, external=NO_ENGINE, tournament=placed)


@both_drawings
def test_a_tournament_games_board_offers_no_stop_rematch_or_takeback() -> None:
    row = replace(game([("B2", True, "center")]).row, mode=Mode.WATCH, x=Level.EASY)
    watched = load_state(row)
    assert controls(watched) == ["Stop"]
    in_tournament = load_state(replace(watched.row, tournament_id=5))
    assert controls(in_tournament) == []
    assert all(b["disabled"] for b in buttons(in_tournament))
    finished = game([("A1", False, None)], status="finished", result="loss", size=4)
    assert controls(finished) == ["Rematch", "Review"]
    assert controls(load_state(replace(finished.row, tournament_id=5))) == ["Review"]
    casual = load_state(replace(game([], size=4).row, rated=False))
    assert "takebacks are allowed" in game_content(casual, external=NO_ENGINE)
    for locale, said in (
        ("en-US", "_Casual: this tournament's games do not count for ratings._"),
        ("vi", "_Chơi vui: các ván của giải này không tính điểm._"),
    ):
        text = game_content(
            load_state(replace(casual.row, tournament_id=5)), locale, external=NO_ENGINE
        )
        assert said in text.splitlines()
        assert "takeback" not in text and "đi lại" not in text


def test_each_leaderboard_says_which_games_it_counts() -> None:
    here = "Counts the rated games of this server's members here, queued games against members" \
        " of other servers included."
    everywhere = "Counts every rated game of every server."
    footer = {
        name: embed.to_dict()["footer"]["text"].split("\n")
        for name, embed in (
            ("server", leaderboard_embed([], "server")),
            ("season", leaderboard_embed([], "server", season="2026-11")),
            ("global", leaderboard_embed([], "global")),
            ("stats", server_leaderboard_embed({"pvp": []})),
            ("vi", leaderboard_embed([], "global", locale="vi")),
        )
    }
    assert footer["server"][1] == footer["season"][1] == footer["stats"][1] == here
    assert footer["global"][1] == everywhere
    assert footer["vi"][1] == "Tính mọi ván tính điểm của mọi máy chủ."


def test_one_picture_is_rendered_once_for_the_two_boards_that_show_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bot.ui import render
    from bot.ui.window import Window

    drawn: list[object] = []
    real = render.render_board

    def counted(*args: Any, **kwargs: Any) -> bytes:
        drawn.append(kwargs.get("window"))
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "render_board", counted)
    state = big_game(["H8", "I9", "H9"])
    first = render.board_file(state, Window(5, 5, 4, 5), ("alice", "dave"))
    second = render.board_file(state, Window(5, 5, 4, 5), ("alice", "dave"))
    assert len(drawn) == 1 and first.fp.read() == second.fp.read()
    # Anything the picture shows drawn otherwise is another picture.
    render.board_file(state, Window(6, 5, 4, 5), ("alice", "dave"))
    render.board_file(state, Window(5, 5, 4, 5), ("alice", "carol"))
    render.board_file(big_game(["H8", "I9", "H10"]), Window(5, 5, 4, 5), ("alice", "dave"))
    render.board_file(state, Window(5, 5, 4, 5), ("alice", "dave"), theme="paper")
    assert len(drawn) == 5
