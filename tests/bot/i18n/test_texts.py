"""Translations: the gettext catalogues in bot/i18n/locales, their check, the tools that keep them
whole (bot/i18n/catalogue.py), the texts in a member's language (texts.py), the command
translator (translator.py) and the English-only console messages. One file for the package: its
tests share the copies of the shipped catalogues they change. /caro help is in
tests/bot/ui/test_help_text.py."""

from __future__ import annotations

import ast
import re
import shutil
import tomllib
from pathlib import Path

import discord
import pytest
from babel.messages.catalog import Catalog
from discord import app_commands

from bot.i18n import catalogue, texts
from bot.i18n.catalogue import CatalogueError, load, problems
from bot.i18n.translator import CatalogueTranslator
from bot.runtime.config import SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[3]
LOCALES = ROOT / "bot" / "i18n" / "locales"


def _copy_locales(tmp_path: Path) -> Path:
    target = tmp_path / "locales"
    shutil.copytree(LOCALES, target)
    return target


def _write_language(directory: Path, locale: str, translate: dict[str, str]) -> Path:
    """A catalogue for `locale` with every id of the template; `translate` maps an id to its
    text, the others a copy of the English."""
    loaded = load(directory)
    catalog = Catalog(locale=locale.split("_")[0], domain=catalogue.DOMAIN)
    for key, english in loaded.source.items():
        forms = loaded.source_plurals.get(key)
        if forms is None:
            catalog.add(english, translate.get(key, english), context=key)
            continue
        # A plural entry: as many forms as the language has, the first for one thing.
        more = [translate.get(key, forms[1])] * (catalog.num_plurals - 1)
        catalog.add(forms, (translate.get(key, forms[0]), *more), context=key)
    path = catalogue.catalogue_path(directory, locale)
    catalogue._write(path, catalog)
    return path


# ------------------------------------------------------------------ the shipped catalogues


def test_every_locale_has_every_key_with_the_same_placeholders_and_no_extra() -> None:
    assert "vi" in texts.LOADED.translations
    for locale, translated in texts.LOADED.translations.items():
        assert set(translated) == set(texts.EN), locale
        for key, text in translated.items():
            assert catalogue.placeholders(text) == catalogue.placeholders(texts.EN[key]), key
    assert problems(texts.LOADED) == []


def test_the_check_command_passes_on_the_shipped_catalogues(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert catalogue._main(["check"]) == 0
    assert capsys.readouterr().out == ""


def test_vietnamese_command_names_are_unchanged() -> None:
    names = {key: texts.text_in("vi", key) for key in texts.EN if key.startswith("cmdname.")}
    assert names == {
        "cmdname.caro": "caro",
        "cmdname.start": "bắt-đầu",
        "cmdname.challenge": "thách-đấu",
        "cmdname.watch": "xem-máy-đấu",
        "cmdname.resign": "đầu-hàng",
        "cmdname.hint": "gợi-ý",
        "cmdname.rematch": "đấu-lại",
        "cmdname.settings": "cài-đặt",
        "cmdname.stats": "thống-kê",
        "cmdname.leaderboard": "bảng-xếp-hạng",
        "cmdname.help": "hướng-dẫn",
        "cmdname.replay": "phát-lại",
        "cmdname.review": "phân-tích",
        "cmdname.history": "lịch-sử",
        "cmdname.board": "bàn-cờ",
        "cmdname.takeback": "đi-lại",
        "cmdname.puzzle": "câu-đố",
        "cmdname.puzzle_play": "chơi",
        "cmdname.puzzle_daily": "hằng-ngày",
        "cmdname.puzzle_retry": "thử-lại",
        "cmdname.puzzle_leaderboard": "bảng-xếp-hạng",
        "cmdname.tournament": "giải-đấu",
        "cmdname.tournament_create": "tạo",
        "cmdname.tournament_add_ai": "thêm-máy",
        "cmdname.tournament_standings": "bảng-điểm",
        "cmdname.tournament_start": "bắt-đầu",
        "cmdname.tournament_pause": "tạm-dừng",
        "cmdname.tournament_resume": "tiếp-tục",
        "cmdname.tournament_remove": "loại",
        "cmdname.tournament_cancel": "hủy",
        "cmdname.block": "chặn",
        "cmdname.unblock": "bỏ-chặn",
        "cmdname.queue": "hàng-chờ",
    }


def test_vietnamese_tournament_rounds_are_vong_not_van() -> None:
    # "Ván" is one game; a tournament's round is a "vòng".
    def vi(key: str, **values: object) -> str:
        return texts.text_in("vi", key, **values)

    assert vi("optname.rounds") == "số-vòng"
    assert vi("cmd.tournament_create.rounds") == "Thụy Sĩ: số vòng (mặc định 4)"
    swiss = texts.TextId("format.swiss")
    assert vi("tournament.swiss_rounds", format=swiss, rounds=1) == "Thụy Sĩ, số vòng: 1"
    assert vi("tournament.started", id=2) == "Giải #2 đã bắt đầu. Vòng 1:"
    assert vi("tournament.round_done", id=2, round=1, rounds=3) == "Giải #2: vòng 1/3 đã xong."
    assert vi("tournament.next_round", round=2) == "Vòng 2:"
    assert vi("tournament.status.running", round=1, rounds=3) == "Đang chơi vòng 1/3."
    assert vi("tournament.picture.after", round=1, rounds=3) == "sau vòng 1/3"
    assert vi("game.tournament", tournament="Giải #2", round=1, rounds=1) == "Giải #2, vòng 1/1."
    bad = vi("tournament.bad_number", option=texts.TextId("option.rounds"), low=1, high=15)
    assert bad == "số vòng phải từ 1 đến 15."
    assert vi("tournament.not_running") == "Giải này hiện không diễn ra."


def test_vietnamese_names_the_ai_one_way_as_the_board_does() -> None:
    # The board says "máy (O, dễ)", a watch and a tournament "Máy dễ": no text says "AI".
    loaded = texts.LOADED.translations["vi"]
    ai = re.compile(r"\bAI\b")
    english = {key: text for key, text in texts.EN.items() if ai.search(str(text))}
    saying_ai = sorted(key for key in english if ai.search(str(loaded.get(key, ""))))
    assert saying_ai == []
    assert texts.text_in("vi", "seat.ai", level="dễ") == "Máy dễ"
    assert texts.text_in("vi", "tournament.ai_entry", level="dễ") == "Máy dễ"
    assert texts.text_in("vi", "puzzle.legend.defender") == "Máy (phòng thủ)"


def test_text_in_picks_the_catalogue_of_the_locale_and_falls_back_to_english() -> None:
    assert texts.t("game.turn", user="A", mark="X") == "A to move (X)."
    assert texts.text_in("vi", "game.turn", user="A", mark="X") == "Đến lượt A (X)."
    assert texts.text_in("vi-VN", "game.turn", user="A", mark="X") == "Đến lượt A (X)."
    assert texts.text_in("en-GB", "game.turn", user="A", mark="X") == "A to move (X)."
    assert texts.text_in("ja", "game.turn", user="A", mark="X") == "A to move (X)."
    option = texts.TextId("option.size")
    assert "cỡ bàn" in texts.text_in("vi", "error.bad_choice", value="7", option=option, choices="")
    with pytest.raises(KeyError):
        texts.text_in("vi", "no.such.text")


def test_counts_take_the_plural_form_of_each_language() -> None:
    # English has a form for one and one for more; Vietnamese one form for any number.
    assert texts.text_in("en-US", "review.busy", count=1) == (
        "You are already waiting for 1 review: ask again when it is done."
    )
    assert texts.text_in("en-US", "review.busy", count=2) == (
        "You are already waiting for 2 reviews: ask again when they are done."
    )
    assert texts.text_in("en-US", "replay.start", count=1) == "The empty board (1 move in all)."
    assert texts.text_in("en-US", "replay.start", count=0) == "The empty board (0 moves in all)."
    assert texts.text_in("vi", "replay.start", count=1) == "Bàn cờ trống (tổng cộng 1 nước)."
    assert texts.text_in("vi", "replay.start", count=7) == "Bàn cờ trống (tổng cộng 7 nước)."
    assert "1 game against the AI" in texts.text_in("en", "limit.member_ai_games", count=1)
    assert texts.LOADED.plural_counts["vi"] == 1
    # A count inside a sentence with two of them, in the sentence's language.
    minutes = {"pvp": texts.Counted("count.minutes", 10.0), "ai": texts.Counted("count.minutes", 1)}
    assert "by default 10 minutes per move against a person, 1 minute against the AI" in (
        texts.text_in("en", "help.clock", settings="s", resign="r", **minutes)
    )
    assert "mặc định 10 phút mỗi nước khi đấu với người, 1 phút khi đấu với máy" in (
        texts.text_in("vi", "help.clock", settings="s", resign="r", **minutes)
    )
    with pytest.raises(TypeError, match="plural text"):
        texts.text_in("en", "review.busy")


def test_every_text_counting_things_is_a_plural_entry() -> None:
    # "{count} games" as one template reads "1 games"; such texts are gettext plural entries.
    counting = re.compile(r"\{count\} (?:[\w-]+ )?(?:games|moves|minutes|reviews|challenges)\b")
    for key, english in texts.EN.items():
        if counting.search(english):
            assert key in texts.LOADED.source_plurals, (key, english)
    assert len(texts.LOADED.source_plurals) >= 10


def test_the_check_reports_plural_entries_of_the_wrong_shape(tmp_path: Path) -> None:
    directory = _copy_locales(tmp_path)
    path = catalogue.catalogue_path(directory, "vi")
    text = path.read_text(encoding="utf-8")
    # Two forms where Vietnamese has one: refused as the file is read, naming it.
    busy = 'msgstr[0] "Bạn đang chờ {count} bản phân tích: hãy hỏi lại khi chúng xong."\n'
    starts = 'msgstr[0] "Bàn cờ trống (tổng cộng {count} nước)."\n'
    assert busy in text and starts in text
    path.write_text(text.replace(busy, busy + 'msgstr[1] "{count} bản"\n'), encoding="utf-8")
    with pytest.raises(CatalogueError, match="caro.po: msg has more translations than num_plurals"):
        load(directory)
    # The count renamed in the only form: the check names the entry.
    path.write_text(text.replace(starts, starts.replace("{count}", "{total}")), encoding="utf-8")
    assert problems(load(directory)) == [
        "vi: replay.start: placeholders ['total'] differ from the English ['count']",
    ]


def test_console_messages_are_english_and_not_in_the_player_catalogues() -> None:
    assert not [key for key in texts.EN if key.startswith("console.")]
    with pytest.raises(SettingsError) as refused:
        load_settings({"DISCORD_TOKEN": "x", "DISCORD_GUILD_ID": "abc"})
    assert str(refused.value) == (
        "Setting DISCORD_GUILD_ID is invalid: expected a server id (a whole number written with "
        "the digits 0-9), got 'abc'"
    )


def test_catalogue_files_are_package_data_of_the_wheel() -> None:
    """Every file under bot/i18n/locales matches a package-data pattern, so `pip install` ships it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["bot"]
    bot_dir = ROOT / "bot"
    shipped = {path for pattern in patterns for path in bot_dir.glob(pattern)}
    present = {path for path in LOCALES.rglob("*") if path.is_file()}
    assert present and present <= shipped
    assert any(path.suffix == ".po" for path in present)


# ------------------------------------------------------------------ adding a language


def test_adding_a_language_is_adding_a_file(tmp_path: Path) -> None:
    directory = _copy_locales(tmp_path)
    _write_language(directory, "ja", {"game.turn": "{user} の番です ({mark})"})
    _write_language(directory, "pt_BR", {"button.resign": "Desistir"})
    loaded = load(directory)
    assert set(loaded.translations) == {"vi", "ja", "pt_BR"}
    assert problems(loaded) == []
    japanese = loaded.lookup("ja")
    assert japanese is not None and japanese["game.turn"] == "{user} の番です ({mark})"
    # Discord spells it pt-BR, gettext pt_BR.
    brazilian = loaded.lookup("pt-BR")
    assert brazilian is not None and brazilian["button.resign"] == "Desistir"
    assert loaded.lookup("en-US") is None and loaded.lookup("fr") is None
    # A file for a language serves each of its regions Discord has.
    _write_language(directory, "es", {"button.resign": "Rendirse"})
    spanish = load(directory)
    for locale in ("es-ES", "es-419"):
        found = spanish.lookup(locale)
        assert found is not None and found["button.resign"] == "Rendirse"


async def test_the_translator_serves_a_new_language_from_its_file(tmp_path: Path) -> None:
    directory = _copy_locales(tmp_path)
    _write_language(directory, "ja", {"cmdname.start": "開始", "cmd.start": "AIと対局する"})
    translator = CatalogueTranslator(load(directory))
    context = app_commands.TranslationContext(
        location=app_commands.TranslationContextLocation.command_name, data=None
    )
    name = app_commands.locale_str("start", key="cmdname.start")
    assert await translator.translate(name, discord.Locale.japanese, context) == "開始"
    assert await translator.translate(name, discord.Locale.vietnamese, context) == "bắt-đầu"
    # English is the base text Discord already has; a language with no file stays English.
    assert await translator.translate(name, discord.Locale.american_english, context) is None
    assert await translator.translate(name, discord.Locale.french, context) is None
    untagged = app_commands.locale_str("start")
    assert await translator.translate(untagged, discord.Locale.japanese, context) is None


async def test_the_default_translator_uses_the_shipped_catalogues() -> None:
    context = app_commands.TranslationContext(
        location=app_commands.TranslationContextLocation.other, data=None
    )
    text = app_commands.locale_str("Start a game", key="cmd.start")
    translated = await CatalogueTranslator().translate(text, discord.Locale.vietnamese, context)
    assert translated == "Bắt đầu một ván với máy trong kênh này"


# ------------------------------------------------------------------ the check finds defects


def test_the_check_reports_every_kind_of_defect(tmp_path: Path) -> None:
    directory = _copy_locales(tmp_path)
    path = _write_language(
        directory,
        "de",
        {
            "game.turn": "{spieler} ist dran ({mark})",  # a placeholder renamed
            "cmdname.start": "Starte Spiel",  # not a Discord command name
            "cmd.start": "x" * 101,  # too long for Discord
            "game.clock": "",  # untranslated
        },
    )
    catalog = catalogue._read(path)
    catalog.add("Gone", "Weg", context="no.longer.used")
    message = catalog.get(texts.EN["game.hints"], context="game.hints")
    assert message is not None
    message.flags.add("fuzzy")
    catalogue._write(path, catalog)
    found = problems(load(directory))
    assert "de: game.clock: not translated" in found
    assert any(line.startswith("de: game.turn: placeholders ['mark', 'spieler']") for line in found)
    assert any(
        line.startswith("de: cmdname.start: 'Starte Spiel' is not a Discord") for line in found
    )
    assert "de: cmd.start: 101 characters; Discord allows 1-100" in found
    assert any(line.startswith("de: no.longer.used: not in caro.pot") for line in found)
    assert any(line.startswith("de: game.hints: marked fuzzy") for line in found)
    assert len(found) == 6
    assert catalogue._main(["--dir", str(directory), "check"]) == 1


def test_untranslated_and_fuzzy_texts_show_in_english(tmp_path: Path) -> None:
    directory = _copy_locales(tmp_path)
    path = _write_language(directory, "de", {"game.clock": "", "game.hints": "Tipps: {count}."})
    catalog = catalogue._read(path)
    message = catalog.get(texts.EN["game.hints"], context="game.hints")
    assert message is not None
    message.flags.add("fuzzy")
    catalogue._write(path, catalog)
    german = load(directory).lookup("de")
    assert german is not None
    assert "game.clock" not in german and "game.hints" not in german
    assert "button.resign" in german


def test_a_malformed_catalogue_is_refused_with_its_file(tmp_path: Path) -> None:
    directory = _copy_locales(tmp_path)
    broken = catalogue.catalogue_path(directory, "vi")
    broken.write_text('msgctxt "a"\nmsgid "x"\nmsgstr "y"\nmsgtxt "b"\n', encoding="utf-8")
    with pytest.raises(CatalogueError, match="caro.po"):
        load(directory)
    no_id = catalogue.catalogue_path(directory, "vi")
    no_id.write_text('msgid "Resign"\nmsgstr "Chịu thua"\n', encoding="utf-8")
    with pytest.raises(CatalogueError, match="without msgctxt"):
        load(directory)


# ------------------------------------------------------------------ maintenance tools


OLD_STYLE_TEXTS = """
EN: dict[str, str] = {
    "console.no_token": "No token.",
    "console.db_locked": "The database {path} is locked.",
    "game.turn": "{user} to move ({mark}).",
    "cooldown.wait": "Slow down: try again {when}.",
}
VI: dict[str, str] = {
    "console.no_token": "Không có token.",
    "console.db_locked": "Cơ sở dữ liệu {path} bị khóa.",
    "game.turn": "Đến lượt {user} ({mark}).",
    "cooldown.wait": "Chậm lại: thử lại {when}.",
}
CATALOGUES = {"en": EN, "vi": VI}
"""


def test_import_dicts_brings_new_ids_of_an_old_texts_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _copy_locales(tmp_path)
    old = tmp_path / "texts.py"
    old.write_text(OLD_STYLE_TEXTS, encoding="utf-8")
    assert catalogue._main(["--dir", str(directory), "import-dicts", str(old)]) == 0
    out = capsys.readouterr().out
    assert "added cooldown.wait" in out
    # A console message is the operator's: named, never made a player text.
    assert "not imported: console.db_locked is a console message" in out
    assert "not imported: console.no_token is a console message" in out
    loaded = load(directory)
    assert loaded.source["cooldown.wait"] == "Slow down: try again {when}."
    vietnamese = loaded.lookup("vi")
    assert vietnamese is not None and vietnamese["cooldown.wait"] == "Chậm lại: thử lại {when}."
    assert problems(loaded) == []
    assert not [key for key in loaded.source if key.startswith("console.")]
    # Running it again changes nothing.
    before = catalogue.catalogue_path(directory, "vi").read_bytes()
    assert catalogue._main(["--dir", str(directory), "import-dicts", str(old)]) == 0
    assert catalogue.catalogue_path(directory, "vi").read_bytes() == before


def test_add_puts_an_id_in_every_language_untranslated_where_not_given(tmp_path: Path) -> None:
    directory = _copy_locales(tmp_path)
    _write_language(directory, "ja", {})
    code = catalogue._main(
        [
            "--dir",
            str(directory),
            "add",
            "game.draw_offer",
            "{user} offers a draw.",
            "vi={user} mời hòa.",
        ]
    )
    assert code == 0
    loaded = load(directory)
    assert loaded.lookup("vi") == {**texts.VI, "game.draw_offer": "{user} mời hòa."}
    assert problems(loaded) == ["ja: game.draw_offer: not translated"]


def test_reword_keeps_the_translation_marked_fuzzy_until_checked(tmp_path: Path) -> None:
    directory = _copy_locales(tmp_path)
    marked = catalogue.reword(directory, "game.clock", "The clock runs out {when}.")
    assert marked == ["vi"]
    loaded = load(directory)
    assert loaded.source["game.clock"] == "The clock runs out {when}."
    assert list(loaded.source) == list(texts.EN)  # the file keeps its order
    vietnamese = loaded.lookup("vi")
    assert vietnamese is not None and "game.clock" not in vietnamese
    assert problems(loaded) == [
        "vi: game.clock: marked fuzzy (check the translation, then unmark it)"
    ]
    with pytest.raises(KeyError):
        catalogue.reword(directory, "no.such.text", "x")


# Functions that take a text id (text_in and tr as their locale's translator): a literal id in a
# call to one of them must be in the catalogues, so a branch that adds a text in code but not in
# bot/i18n/locales fails here rather than in front of a player.
TEXT_ID_FUNCTIONS = {"t", "text_in", "tr", "_s", "UserError", "TextId"}


def _literal_text_ids(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name not in TEXT_ID_FUNCTIONS:
            continue
        for arg in node.args[:2]:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "." in arg.value:
                found.append((node.lineno, arg.value))
    return found


def test_every_literal_text_id_in_the_bot_is_in_the_catalogues() -> None:
    used = {
        (str(path.relative_to(ROOT)), line, key)
        for path in sorted((ROOT / "bot").rglob("*.py"))
        for line, key in _literal_text_ids(path)
    }
    assert len(used) > 50  # the scan sees the bot's calls at all
    assert sorted(entry for entry in used if entry[2] not in texts.EN) == []


def test_the_language_is_the_members_then_the_servers_then_their_clients_then_english() -> None:
    assert texts.choose_language("en", "vi", "vi") == "en"
    assert texts.choose_language(None, "vi", "en-US") == "vi"
    assert texts.choose_language(None, None, "vi") == "vi"
    # A client language the bot has no catalogue for: English.
    assert texts.choose_language(None, None, "ja") == texts.DEFAULT_LOCALE
    assert texts.choose_language(None, None, "en-GB") == "en-GB"
    assert texts.choose_language(None, None, None) == texts.DEFAULT_LOCALE


def test_commands_are_named_as_the_readers_discord_client_shows_them() -> None:
    assert texts.command_name("vi", "start") == "/caro bắt-đầu"
    assert texts.command_name("en-US", "start") == "/caro start"
    assert texts.command_name("ja", "challenge") == "/caro challenge"  # no catalogue: English
    # The text's language and the command's are independent.
    english_text = texts.text_in("en-US", "click.finished", **texts.command_names("vi"))
    assert english_text == "This game is over. Start a new one with `/caro bắt-đầu`."
    vietnamese_text = texts.text_in("vi", "click.finished", **texts.command_names("en-US"))
    assert vietnamese_text.endswith("`/caro start`.")


def test_no_text_names_a_command_in_english_words() -> None:
    # A command written out ("`/caro start`") would show an English name to every reader; texts
    # name commands through {cmd_<name>} placeholders. /caro help's long body is the one
    # legacy text left.
    for locale in texts.CATALOGUES:
        for key in texts.EN:
            if key == "help.body":
                continue
            found = texts.CATALOGUES[locale].get(key, "")
            assert "`/caro " not in found, (locale, key)


def test_the_settings_refusal_names_server_settings() -> None:
    # Members change their own settings without Manage Server; only the server's need it.
    assert texts.text_in("en-US", "error.no_permission") == (
        "Only members with the Manage Server permission can change server settings."
    )
    assert texts.text_in("vi", "error.no_permission") == (
        "Chỉ thành viên có quyền Quản lý máy chủ mới đổi được cài đặt của máy chủ."
    )


def test_a_tournament_range_error_names_its_option_as_code() -> None:
    # Not a sentence starting with the bare lower-case option name.
    for option, low, high, said in (("rounds", 1, 15, "`rounds` must be from 1 to 15."),
                                    ("minutes", 5, 1440, "`minutes` must be from 5 to 1440.")):
        name = texts.TextId(f"option.{option}")
        assert texts.t("tournament.bad_number", option=name, low=low, high=high) == said


def test_the_leaderboard_mode_says_it_falls_back_to_the_ai_table() -> None:
    # /caro leaderboard without a mode shows the AI table while nobody is on the people one.
    assert "or the AI while nobody is on that table" in texts.t("cmd.leaderboard.mode")
    assert "hoặc với máy khi bảng với người chưa có ai" in texts.text_in(
        "vi", "cmd.leaderboard.mode"
    )
