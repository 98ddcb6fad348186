"""/caro help (bot/ui/help_text.py, its embed in bot/cogs/help.py): built from the facts the bot
plays by (levels, presets, rules, subcommands), the same facts in both languages, and one Discord
embed."""

from __future__ import annotations

import pytest

from bot.cogs.help import help_embed
from bot.game import options, ratings
from bot.game.levels import NO_ENGINE
from bot.i18n import texts
from bot.ui import help_text
from engine.game.types import Level


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
    facts = ["3x3", "15x15", "19x19", "26x26", "800", "2000", "1200", "K=32", "H8"]
    for fact in facts:
        assert fact in english and fact in vietnamese, fact
    assert "/caro bắt-đầu" in vietnamese and "/caro start" in english
    english, vietnamese = (help_text.help_sections(loc, NO_ENGINE) for loc in ("en-US", "vi"))
    assert len(english) == len(vietnamese)


def test_help_follows_the_facts_it_is_built_from(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(help_text.SIZES, "7x7", (7, 7, 5))
    monkeypatch.setitem(help_text.AI_ANCHORS, "hard", 1650.0)
    monkeypatch.setattr(help_text, "MAX_SIDE", 30)
    for locale in ("en-US", "vi"):
        text = _help(locale)
        assert "`7x7`" in text and "1650" in text and "30x30" in text
        assert "1600" not in text


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
