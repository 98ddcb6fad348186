"""/caro help (bot/ui/help_text.py, its embed in bot/cogs/help.py): built from the facts the bot
plays by (levels, presets, rules, subcommands), the same facts in both languages, and one Discord
embed."""

from __future__ import annotations

import pytest

from bot.cogs.help import help_embed
from bot.game import ladder, options, ratings
from bot.game.levels import NO_ENGINE
from bot.i18n import texts
from bot.ui import help_text
from engine.game.types import LEVELS, Level


def _help(locale: str) -> str:
    return "\n".join(f"{title}\n{body}" for title, body in help_text.help_sections(locale, NO_ENGINE))


@pytest.mark.parametrize("locale", ["en-US", "vi"])
def test_help_mentions_every_level_preset_rule_and_subcommand(locale: str) -> None:
    text = _help(locale)
    for level in Level:
        assert texts.text_in(locale, f"level.{level.value}") in text, level
        assert f"{ratings.AI_ANCHORS[level.value]:g}" in text, level
    assert texts.text_in(locale, "level.adaptive") in text
    for preset in options.SIZES:
        assert f"`{preset}`" in text, preset
    for rule in options.RULES:
        assert texts.text_in(locale, f"rule.{rule}") in text, rule
    for name in help_text.subcommands():
        assert f"**{help_text.command(locale, name)}**" in text, name
    # Big and typed sizes, the largest board and the typed-move button.
    assert "26x26" in text and "12x12k4" in text
    assert texts.text_in(locale, "button.type") in text


def test_help_lists_exactly_the_subcommands_of_the_caro_group() -> None:
    from discord import app_commands

    from bot.cogs import FEATURES

    # The commands each feature cog declares; the bot moves them under /caro when it loads them.
    # A subgroup (/caro puzzle) is listed, and so is each of its commands as "<group>_<name>".

    declared = []
    for cog in FEATURES:
        for command in cog.__cog_app_commands__:  # type: ignore[attr-defined]
            declared.append(command.name)
            if isinstance(command, app_commands.Group):
                declared += [f"{command.name}_{sub.name}" for sub in command.commands]
    assert sorted(help_text.subcommands()) == sorted(declared)


def test_both_languages_carry_the_same_facts() -> None:
    english, vietnamese = _help("en-US"), _help("vi")
    anchors = [f"{ratings.AI_ANCHORS[level]:g}" for level in Level]
    facts = ["3x3", "15x15", "19x19", "26x26", *anchors, "1200", "K=32", "H8"]
    for fact in facts:
        assert fact in english and fact in vietnamese, fact
    assert "/caro bắt-đầu" in vietnamese and "/caro start" in english
    english, vietnamese = (help_text.help_sections(loc, NO_ENGINE) for loc in ("en-US", "vi"))
    assert len(english) == len(vietnamese)


def test_help_follows_the_facts_it_is_built_from(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(help_text.SIZES, "7x7", (7, 7, 5))
    measured = f"{ratings.AI_ANCHORS['hard']:g}"
    monkeypatch.setitem(help_text.AI_ANCHORS, "hard", 1675.0)
    monkeypatch.setattr(help_text, "MAX_SIDE", 30)
    for locale in ("en-US", "vi"):
        text = _help(locale)
        assert "`7x7`" in text and "30x30" in text
        hard = _level_line(locale, text, Level.HARD)
        assert "1675" in hard and measured not in hard


def _level_line(locale: str, text: str, level: Level) -> str:
    (line,) = [line for line in text.splitlines()
               if line.startswith(f"- **{texts.text_in(locale, f'level.{level.value}')}**")]
    return line


@pytest.mark.parametrize("locale", ["en-US", "vi"])
def test_help_describes_each_level_from_the_measured_ladder(locale: str) -> None:
    """Each level's line gives its derived anchor and its measured score against the level rated
    next below it; the text after the levels says how many games the ratings come from."""
    text = _help(locale)
    levels = sorted(Level, key=lambda level: ratings.AI_ANCHORS[level])
    assert _level_line(locale, text, levels[0]).endswith(f"{ratings.AI_ANCHORS[levels[0]]:g}")
    for weaker, level in zip(levels, levels[1:], strict=False):
        games = ladder.head_to_head(ladder.MEASURED, level, weaker)
        assert games is not None
        line = _level_line(locale, text, level)
        assert f"{ratings.AI_ANCHORS[level]:g}" in line, line
        assert f"{games.score:.0%}" in line and texts.text_in(locale, f"level.{weaker}") in line
    between = sum(p.games for p in ladder.MEASURED
                  if p.first.split("@")[0] in LEVELS and p.second.split("@")[0] in LEVELS)
    assert texts.text_in(locale, "help.levels.ladder", games=between, size=ladder.LADDER_SIZE,
                         level=texts.text_in(locale, "level.normal"), start="1200") in text


def test_help_follows_a_new_measurement(monkeypatch: pytest.MonkeyPatch) -> None:
    """A re-measured table changes the anchors and the help's scores at once: nothing in the
    texts is a number typed by hand."""
    table = (ladder.Pairing(Level.HARD, Level.NORMAL, 7, 2, 1, "test"),
             *(p for p in ladder.MEASURED if {p.first, p.second} != {Level.HARD, Level.NORMAL}))
    fitted = ladder.fit(table, pin=ratings.LADDER_PIN, at=ratings.START_RATING)
    monkeypatch.setattr(help_text, "MEASURED", table)
    for level, anchor in ladder.anchors(fitted).items():
        monkeypatch.setitem(help_text.AI_ANCHORS, level, anchor)
    line = _level_line("en-US", _help("en-US"), Level.HARD)
    assert f"rated {ladder.anchors(fitted)[Level.HARD]:g}; scores 80% against normal" in line


def test_help_fits_one_discord_embed() -> None:
    for locale in ("en-US", "vi"):
        embed = help_embed(NO_ENGINE, locale).to_dict()
        fields = embed.get("fields", [])
        assert embed["title"] == texts.text_in(locale, "help.title")
        assert texts.text_in(locale, "help.game") == embed["description"]
        assert len(fields) <= 25 and len(embed["description"]) <= 4096
        for field in fields:
            assert 1 <= len(field["name"]) <= 256 and 1 <= len(field["value"]) <= 1024
        total = (
            len(embed["title"])
            + len(embed["description"])
            + sum(len(f["name"]) + len(f["value"]) for f in fields)
        )
        assert total <= 6000
