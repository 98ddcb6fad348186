"""The operator's external engine (CARO_ENGINE_CMD) as an AI level, through the Discord double
and the real bot process, with caro's own `caro pbrain` as the brain: offered under its name,
played to the end and rated at its own anchor; a brain that dies gives way to "impossible" with
a warning; a game outlives the operator removing the engine; an engine that cannot start or
does not answer START stops the bot at start with one line."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.game.ratings import AI_ANCHORS, updated
from engine.game.types import Level
from testkit.boards import first_empty, is_over, play_out, refusal
from testkit.bot_process import TOKEN, BotHandle, StartBot, text_of
from testkit.engines import caro_pbrain, scripted_brain
from testkit.startup import closed_port, run_bot

# Five in a row on the largest board that still shows every cell as a button.
SIZE = "5x5k5"


def engine_env(command: str, **extra: str) -> dict[str, str]:
    return {
        "CARO_ENGINE_CMD": command,
        "CARO_ENGINE_NAME": "Embryo",
        "CARO_ENGINE_RATING": "2300",
        "CARO_ENGINE_TIME_LIMIT": "1",
        **extra,
    }


def level_choices(bot: BotHandle, command: str, option: str) -> list[dict[str, Any]]:
    """The choices of `option` of `/caro <command>` as the bot registered them."""
    registered = [c for cs in bot.double.commands.values() for c in cs if c["name"] == "caro"]
    assert registered, bot.double.commands
    sub = next(o for o in registered[0]["options"] if o["name"] == command)
    return list(next(o for o in sub["options"] if o["name"] == option)["choices"])


def start_with_engine(tmp_path: Path, command: str) -> subprocess.CompletedProcess[str]:
    """The bot process started with `command` as its engine, against a closed port for Discord:
    a bot that went on past the engine's check would say so (exit 1)."""
    return run_bot(
        tmp_path, DISCORD_TOKEN=TOKEN, CARO_DB=str(tmp_path / "caro.db"),
        DISCORD_API_BASE=f"http://127.0.0.1:{closed_port()}/api/v10", CARO_ENGINE_CMD=command,
    )


RECORD = {"win": "1 W / 0 D / 0 L", "draw": "0 W / 1 D / 0 L", "loss": "0 W / 0 D / 1 L"}


def result_of(bot: BotHandle, mark: str) -> str:
    """The result of the only game for the member playing `mark`."""
    winner = bot.db_rows("SELECT winner FROM games")[0][0]
    return "draw" if winner is None else "win" if winner == mark else "loss"


def ai_rating(stats: Any) -> tuple[float, dict[str, str]]:
    fields = {f["name"]: f["value"] for f in stats.embeds[0]["fields"]}
    name = next(n for n in fields if n.startswith("against the AI: rating "))
    return float(name.rsplit(" ", 1)[1]), fields


async def test_a_game_against_the_external_engine_to_the_end_rated_at_its_anchor(
    start_bot: StartBot,
) -> None:
    bot = await start_bot(**engine_env(shlex.join(caro_pbrain())))
    bot.double.strict_choices = True  # the double refuses a level the bot did not register
    choices = level_choices(bot, "start", "difficulty")
    assert [c["value"] for c in choices] == [
        "easy", "normal", "hard", "impossible", "external", "adaptive"
    ]
    assert {"name": "Embryo", "value": "external"} in [
        {"name": c["name"], "value": c["value"]} for c in choices
    ]
    assert "external" in [c["value"] for c in level_choices(bot, "watch", "x_level")]

    alice = bot.double.add_member("alice")
    small = await alice.slash("caro start", difficulty="external")
    assert "Embryo plays five in a row on boards of 5x5 and up" in refusal(small)

    game = await alice.slash("caro start", difficulty="external", size=SIZE, first="ai")
    assert game.callback_type == 4 and not game.ephemeral, game
    assert "vs AI (X, Embryo)" in str(text_of(game))
    end = await play_out(alice, game.message, first_empty, k=5)
    assert is_over(end)
    assert bot.db_rows("SELECT x_level, status FROM games") == [("external", "finished")]
    result = result_of(bot, "O")

    rating, fields = ai_rating(await alice.slash("caro stats"))
    assert round(rating) == round(updated(1200, 2300, result))
    assert fields["vs AI Embryo"].startswith(RECORD[result])
    # The brain made the AI's moves. On a machine this busy a move may now and then miss its time
    # limit plus grace and fall back (the next test covers that), but not most of them.
    ai_moves = bot.db_rows("SELECT COUNT(*) FROM moves WHERE by_ai = 1")[0][0]
    assert bot.log_text().count("Embryo did not move") < ai_moves / 2

    helped = await alice.slash("caro help")
    levels = next(f["value"] for f in helped.embeds[0]["fields"] if f["name"] == "AI levels")
    assert "**Embryo**: an external engine set up by this bot's operator" in levels
    assert "rated 2300" in levels


async def test_a_brain_that_dies_gives_way_to_impossible_with_a_warning_and_the_board_says_so(
    start_bot: StartBot, tmp_path: Path
) -> None:
    # It passes the start-up questions (on 15x15), then dies on every move of a small game.
    dead_brain = shlex.join(scripted_brain(tmp_path, die_below=15))
    bot = await start_bot(**engine_env(dead_brain))
    alice = bot.double.add_member("alice")
    game = await alice.slash("caro start", difficulty="external", size=SIZE, first="ai")
    assert "vs AI (X, Embryo)" in str(text_of(game))
    end = await play_out(alice, game.message, first_empty, k=5)
    assert is_over(end)
    log = bot.log_text()
    assert "Embryo did not move on 5x5 k5 freestyle: impossible played instead" in log
    assert "external engine failed" in log  # the worker's reason: the brain exited
    moves = bot.db_rows("SELECT COUNT(*) FROM moves WHERE by_ai = 1")[0][0]
    assert log.count("Embryo did not move") == moves
    # Every move impossible made in the engine's seat is named on the board.
    cells = [c for (c,) in bot.db_rows("SELECT cell FROM moves WHERE by_ai = 1 ORDER BY ply")]
    assert f"Played by impossible in Embryo's place: {', '.join(cells)}." in text_of(end)


async def test_a_game_outlives_the_engine_being_removed(start_bot: StartBot) -> None:
    bot = await start_bot(**engine_env(shlex.join(caro_pbrain())))
    alice = bot.double.add_member("alice")
    game = await alice.slash("caro start", difficulty="external", size=SIZE)
    assert "vs AI (O, Embryo)" in str(text_of(game))

    # The operator takes the engine out and restarts: the level is no longer offered, and the
    # running game goes on with impossible in the engine's seat, which its board says.
    del bot.extra_env["CARO_ENGINE_CMD"]
    await bot.restart()
    assert "external" not in [c["value"] for c in level_choices(bot, "start", "difficulty")]
    end = await play_out(alice, game.message, first_empty, k=5)
    shown = text_of(end)
    assert "impossible (in place of the external engine, which is no longer set up)" in shown
    assert "an external engine game goes on without CARO_ENGINE_CMD" in bot.log_text()
    # Rated against the level that played it.
    result = result_of(bot, "X")
    rating, fields = ai_rating(await alice.slash("caro stats"))
    assert round(rating) == round(updated(1200, AI_ANCHORS[Level.IMPOSSIBLE], result))
    assert fields["vs AI external engine"].startswith(RECORD[result])

    rematch = await alice.click(end, "Rematch")
    assert "no longer set up on this bot" in refusal(rematch)


async def test_the_engine_is_offered_only_for_the_rules_it_accepts(
    start_bot: StartBot, tmp_path: Path
) -> None:
    # Like Rapfi: freestyle (0) and exactly five (1), and ERROR to the caro rule's number.
    bot = await start_bot(**engine_env(shlex.join(scripted_brain(tmp_path, known=(0, 1)))))
    assert "external engine 'Embryo' offered for the rules it plays: freestyle, exact" in (
        bot.log_text()
    )
    alice = bot.double.add_member("alice")
    refused = refusal(await alice.slash("caro start", difficulty="external", size="15x15"))
    assert refused == (
        "Embryo cannot play this rule (caro rule); it plays freestyle, exact. Choose one of"
        " those with the rule option, or another difficulty."
    )
    watch = await alice.slash("caro watch", x_level="external", size=SIZE, rule="caro")
    assert "Embryo cannot play this rule" in refusal(watch)
    game = await alice.slash(
        "caro start", difficulty="external", size=SIZE, rule="exact", first="ai"
    )
    end = await play_out(alice, game.message, first_empty, k=5)
    assert is_over(end)
    # The engine made every move of its seat: nothing was played in its place.
    assert "did not move" not in bot.log_text()
    assert "in Embryo's place" not in text_of(end)


def test_an_engine_that_refuses_every_rule_stops_the_bot_with_one_line(tmp_path: Path) -> None:
    command = shlex.join(scripted_brain(tmp_path, known=()))
    done = start_with_engine(tmp_path, command)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"The external engine {command} (CARO_ENGINE_CMD) refused every rule caro plays"
        " (freestyle, exact, caro, renju): remove CARO_ENGINE_CMD, or use an engine that plays"
        " one of them\n"
    )


async def test_the_external_engine_plays_a_watched_game_by_name(start_bot: StartBot) -> None:
    bot = await start_bot(**engine_env(shlex.join(caro_pbrain())),
                          CARO_WATCH_DELAY_SECONDS="0.1")
    alice = bot.double.add_member("alice")
    watch = await alice.slash("caro watch", x_level="external", o_level="hard", size=SIZE)
    assert watch.callback_type == 4, watch
    assert "AI Embryo (X) vs AI hard (O)" in str(text_of(watch))
    end = await watch.message.wait_for(is_over, timeout=90)
    assert "AI Embryo (X) vs AI hard (O)" in text_of(end)
    assert bot.db_rows("SELECT x_level, o_level, status FROM games") == [
        ("external", "hard", "finished")
    ]
    ai_moves = bot.db_rows("SELECT COUNT(*) FROM moves WHERE by_ai = 1")[0][0]
    # Fewer fallbacks than half of the engine's own moves (it plays X: about half of them).
    assert bot.log_text().count("Embryo did not move") < ai_moves / 4


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("/no/such/engine", "cannot start '/no/such/engine': No such file or directory"),
        (shlex.join([sys.executable, "-c", "import sys; sys.exit(3)"]),
         "the engine exited while asked for START 15 (code 3)"),
        (shlex.join([sys.executable, "-c", "input(); print('ERROR unsupported size')"]),
         "the engine refused START 15: ERROR unsupported size"),
        (shlex.join([sys.executable, "-c", "input(); print('hello')"]),
         "the engine answered 'hello' to START 15"),
    ],
)
def test_an_engine_that_cannot_start_stops_the_bot_with_one_line(
    tmp_path: Path, command: str, problem: str
) -> None:
    done = start_with_engine(tmp_path, command)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        f"The external engine {command} (CARO_ENGINE_CMD) failed its start-up check: {problem}. "
        "Fix the command, or remove CARO_ENGINE_CMD to run without it\n"
    )
    assert not (tmp_path / "caro.db").exists()
