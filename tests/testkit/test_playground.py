"""The playground in a real headless browser: Debian's chromium driven by Playwright (never a
browser of Playwright's own), the real bot process behind the Discord double, a person clicking
in the page as several members."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from testkit.discord_double import DiscordDouble
from testkit.discord_double.playground import (
    TOKEN,
    BotProcess,
    Playground,
    PlaygroundError,
    parse_partial,
    parse_slash,
)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[2]
FINISHED = r"You win!|wins|Draw"


def browser_missing() -> str | None:
    try:
        import playwright.async_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e '.[test]')"
    if not Path(CHROMIUM).exists():
        return f"no chromium at {CHROMIUM} (apt-get install -y chromium)"
    return None


@pytest.fixture
async def playground(tmp_path: Path) -> AsyncIterator[Playground]:
    """The double with alice, bob and linh (Vietnamese), the real bot, and the page."""
    async with DiscordDouble(token=TOKEN) as double:
        for name, locale in (("alice", "en-US"), ("bob", "en-GB"), ("linh", "vi")):
            double.add_member(name, locale=locale)
        bot = BotProcess(double, tmp_path, tmp_path / "playground.db", {})
        place = Playground(double, bot)
        try:
            await bot.start()
            await place.start()
            yield place
        finally:
            await place.stop()
            await bot.stop()
        assert not double.violations, double.violations


@pytest.fixture
async def page(playground: Playground) -> AsyncIterator[Any]:
    missing = browser_missing()
    if missing:
        if os.environ.get("CARO_REQUIRE_BROWSER", "") not in ("", "0"):
            pytest.fail(f"{missing} and CARO_REQUIRE_BROWSER is set")
        pytest.skip(missing)
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            tab = await browser.new_page(viewport={"width": 1200, "height": 900})
            errors: list[str] = []
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            await tab.goto(playground.url)
            await tab.wait_for_selector('label[data-member="alice"] input:checked')
            yield tab
            assert not errors, errors
        finally:
            await browser.close()


async def act_as(page: Any, name: str) -> None:
    await page.click(f'label[data-member="{name}"]')
    await page.wait_for_function(
        "(n) => document.querySelector(`label[data-member='${n}'] input`).checked", arg=name)


async def slash(page: Any, text: str) -> None:
    await page.fill("#command", text)
    await page.press("#command", "Enter")
    # The input clears once the bot answered; an error stays in the alert line instead.
    await page.wait_for_function(
        "() => document.querySelector('#command').value === '' || "
        "document.querySelector('#error').textContent !== ''")
    error = await page.text_content("#error")
    assert not error, error


def last_message(page: Any) -> Any:
    return page.locator(".msg:not(.ephemeral)").last


def last_board(page: Any) -> Any:
    """The newest public message with buttons: a game's board, not the turn ping after it."""
    return page.locator(".msg:not(.ephemeral)", has=page.locator("button")).last


async def wait_text(page: Any, pattern: str, timeout: float = 20_000) -> None:
    await page.wait_for_function(
        "(p) => new RegExp(p).test(document.querySelector('#log').innerText)", arg=pattern,
        timeout=timeout)


async def click_cell(page: Any, cell: str) -> None:
    await page.locator(f'.msg:not(.ephemeral) button[data-custom-id$=":{cell}"]').last.click()


async def test_a_full_game_against_the_ai_by_clicking(page: Any) -> None:
    await slash(page, "/caro start difficulty:easy")
    await wait_text(page, r"Your turn \(X\)")
    assert "alice used /caro start" in await last_message(page).inner_text()
    for _ in range(5):
        text = await last_message(page).inner_text()
        if re.search(FINISHED, text):
            break
        moves = int(re.search(r"Moves played: (\d+)", text).group(1))  # type: ignore[union-attr]
        empty = page.locator('.msg:not(.ephemeral) button[data-custom-id^="caro:m:"]:enabled')
        labels = await empty.evaluate_all(
            "(bs) => bs.map((b) => [b.dataset.customId, b.textContent.replace(/\\u200b/g, '').trim()])")
        free = [cid for cid, label in labels if label == ""]
        await page.click(f'button[data-custom-id="{free[0]}"]')
        await page.wait_for_function(
            "(n) => { const t = [...document.querySelectorAll('.msg:not(.ephemeral)')].pop()"
            ".innerText; const m = t.match(/Moves played: (\\d+)/);"
            " return /You win!|wins|Draw/.test(t) || (m && +m[1] >= n + 2 && /Your turn/.test(t)); }",
            arg=moves, timeout=20_000)
    final = await last_message(page).inner_text()
    assert re.search(FINISHED, final), final
    assert await last_message(page).locator("button", has_text="Rematch").count() == 1
    cells = page.locator('.msg:not(.ephemeral) button[data-custom-id^="caro:m:"]')
    assert await cells.count() == 9
    assert await page.locator('.msg:not(.ephemeral) button[data-custom-id^="caro:m:"]:enabled'
                              ).count() == 0


async def test_the_used_line_and_private_notes_are_in_the_viewers_language(page: Any) -> None:
    await act_as(page, "linh")
    await slash(page, "/caro bắt-đầu độ-khó:dễ")
    await wait_text(page, r"Đến lượt bạn")
    # As a Vietnamese Discord client shows it: its own words, the command's Vietnamese name.
    assert "linh đã dùng /caro bắt-đầu" in await last_message(page).inner_text()
    await slash(page, "/caro bắt-đầu độ-khó:dễ")
    await wait_text(page, r"Chỉ bạn nhìn thấy tin nhắn này")
    # Alice, on an English client, reads the same post in English words.
    await act_as(page, "alice")
    await wait_text(page, r"linh used /caro start")


async def test_a_challenge_between_two_members_with_private_refusals(page: Any) -> None:
    await slash(page, "/caro challenge opponent:@bob")
    await wait_text(page, r"@alice challenges you")
    # Alice cannot accept her own challenge: a private reply only she sees.
    await page.locator("button", has_text="Accept").last.click()
    await wait_text(page, r"Only you can see this")
    await act_as(page, "bob")
    await page.wait_for_function(
        "() => !document.querySelector('#log').innerText.includes('Only you can see this')")
    await page.locator("button", has_text="Accept").last.click()
    await wait_text(page, r"@alice \(X\) vs @bob \(O\)")
    await click_cell(page, "B2")  # not bob's turn
    await wait_text(page, r"It is @alice's turn")
    for member, cell in [("alice", "A1"), ("bob", "B1"), ("alice", "A2"), ("bob", "B2"),
                         ("alice", "A3")]:
        await act_as(page, member)
        await wait_text(page, r"to move|wins")
        await click_cell(page, cell)
        await page.wait_for_function(
            "(c) => [...document.querySelectorAll('.msg:not(.ephemeral) button')]"
            ".some((b) => b.dataset.customId && b.dataset.customId.endsWith(':' + c) && "
            "/[XO]/.test(b.textContent))", arg=cell)
    await wait_text(page, r"@alice wins!")
    assert "Rating @alice: 1200 -> 1216" in await last_board(page).inner_text()
    # Linh reads the bot in Vietnamese.
    await act_as(page, "linh")
    await slash(page, "/caro help")
    await wait_text(page, r"Cách chơi cờ caro")


async def test_a_big_board_with_the_window_picture_and_typed_move(page: Any) -> None:
    # The size is picked from the bot's own autocomplete suggestions, as in Discord.
    await page.fill("#command", "/caro challenge opponent:@bob size:15")
    await page.dispatch_event("#command", "input")
    suggestion = page.locator("#hints div[data-choice]", has_text="15x15, 5 in a row (caro)")
    await suggestion.click()
    assert await page.input_value("#command") == "/caro challenge opponent:@bob size:15x15 "
    await slash(page, await page.input_value("#command"))
    await act_as(page, "bob")
    await wait_text(page, r"challenges you")
    await page.locator("button", has_text="Accept").last.click()
    await wait_text(page, r"15x15, 5 in a row, caro rule")
    board = last_board(page)
    picture = board.locator("img.media")
    await picture.wait_for()
    assert await picture.evaluate("(img) => img.complete && img.naturalWidth > 100")
    cells = board.locator('button[data-custom-id^="caro:m:"]')
    assert await cells.count() == 20
    before = await cells.evaluate_all("(bs) => bs.map((b) => b.dataset.customId.split(':').pop())")
    assert "H8" in before
    await act_as(page, "alice")
    await last_board(page).locator("button", has_text="\u2b07").click()  # pan down
    await page.wait_for_function(
        "(old) => { const bs = [...[...document.querySelectorAll('.msg:not(.ephemeral)')]"
        ".filter((m) => m.querySelector('button')).pop()"
        ".querySelectorAll('button[data-custom-id^=\"caro:m:\"]')];"
        " return bs.length === 20 && bs.map((b) => b.dataset.customId.split(':').pop()).join() "
        "!== old.join(); }", arg=before)
    # The typed-move form: a modal in the page, answered by the bot.
    await last_board(page).locator("button", has_text="Type a move").click()
    await page.wait_for_selector("#overlay.open")
    await page.fill("#modal input[name=cell]", "c3")
    await page.click("#modal-submit")
    await wait_text(page, r"Moves played: 1\.")
    new_picture = last_board(page).locator("img.media")
    assert await new_picture.evaluate("(img) => img.complete && img.naturalWidth > 100")


def test_typed_commands_are_read_against_the_registered_schema() -> None:
    double = DiscordDouble(token=TOKEN)
    bob = double.add_member("bob")
    double.commands[None] = [{"id": "1", "name": "caro", "type": 1, "options": [
        {"type": 1, "name": "challenge", "options": [
            {"type": 6, "name": "opponent", "required": True},
            {"type": 3, "name": "size"}, {"type": 4, "name": "minutes"},
            {"type": 5, "name": "ranked"}]}]}]
    path, options = parse_slash(double, "/caro challenge opponent:@bob size:15x15 minutes:3 "
                                        "ranked:false")
    assert path == "caro challenge"
    assert options == {"opponent": bob, "size": "15x15", "minutes": 3, "ranked": False}
    assert parse_slash(double, '/caro challenge opponent:bob size:"9 x 9"')[1]["size"] == "9 x 9"
    double.commands[None][0]["options"][0]["options"][1]["autocomplete"] = True
    assert parse_partial(double, "/caro challenge size:1") == ("caro challenge", "size",
                                                               {"size": "1"})
    assert parse_partial(double, "/caro challenge opponent:@bob size:") == (
        "caro challenge", "size", {"size": "", "opponent": bob})
    assert parse_partial(double, "/caro challenge size:9 minutes:2") is None
    assert parse_partial(double, "/caro challenge") is None
    localized = {"type": 3, "name": "level", "name_localizations": {"vi": "độ-khó"},
                 "choices": [{"name": "hard", "value": "hard",
                              "name_localizations": {"vi": "khó"}}]}
    double.commands[None][0]["options"][0]["name_localizations"] = {"vi": "thách-đấu"}
    double.commands[None][0]["options"][0]["options"].append(localized)
    assert parse_slash(double, "/caro thách-đấu opponent:@bob độ-khó:khó") == (
        "caro challenge", {"opponent": bob, "level": "hard"})
    for text, words in [("/caro challenge", "needs opponent"),
                        ("/caro challenge opponent:@zed", "no member"),
                        ("/caro challenge opponent:@bob minutes:two", "not a number"),
                        ("/caro challenge opponent:@bob colour:red", "no option 'colour'"),
                        ("/caro duel", "no subcommand 'duel'"),
                        ("/caro", "needs a subcommand"),
                        ("/chess start", "no slash command /chess"),
                        ("", "type a command")]:
        with pytest.raises(PlaygroundError, match=words):
            parse_slash(double, text)


async def test_the_playground_command_serves_the_page_and_stops_cleanly(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "testkit.discord_double.playground", "--port", "0",
        "--db", str(tmp_path / "kept.db"), cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        assert process.stdout is not None
        line = (await asyncio.wait_for(process.stdout.readline(), 90)).decode()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        async with aiohttp.ClientSession() as http:
            async with http.get(url.group(0)) as resp:
                assert resp.status == 200 and "caro playground" in await resp.text()
            async with http.get(url.group(0) + "api/world") as resp:
                world = await resp.json()
        assert [(m["name"], m["manager"]) for m in world["members"]] == [
            ("alice", False), ("bob", False), ("linh", False), ("mai", True)]
        assert [c["name"] for c in world["commands"]] == ["caro"]
        ids = {m["name"]: m["id"] for m in world["members"]}
        async with aiohttp.ClientSession() as http:
            async def slash(who: str, text: str) -> dict[str, Any]:
                async with http.post(url.group(0) + "api/slash",
                                     json={"viewer": ids[who], "text": text}) as resp:
                    return dict(await resp.json())

            async def seen(who: str) -> str:
                async with http.get(url.group(0) + "api/messages",
                                    params={"viewer": ids[who]}) as resp:
                    return json.dumps(await resp.json(), ensure_ascii=False)

            # Server settings need Manage Server: refused to alice, done for mai.
            refused = await slash("alice", "/caro settings server_language:vi")
            assert refused["result"]["ephemeral"] and "Manage Server" in await seen("alice")
            assert "error" not in await slash("mai", "/caro settings server_language:vi")
            assert "Tiếng Việt" in await seen("mai")
            # The Vietnamese names a Vietnamese client shows are typed as they are.
            started = await slash("linh", "/caro bắt-đầu độ-khó:dễ cỡ-bàn:3x3")
            assert started["result"] == {"callback_type": 4, "ephemeral": False}, started
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), 30)
    assert code == 0
    assert (tmp_path / "kept.db").exists()
    # The bot process it started went with it.
    assert not await _bot_running_on(tmp_path / "kept.db")


async def _bot_running_on(db: Path) -> bool:
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if f"CARO_DB={db}".encode() in environ:
            return True
    return False


async def test_a_busy_port_is_refused_in_one_line_before_the_bot_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "testkit.discord_double.playground", "--port", str(port),
            "--db", str(tmp_path / "never.db"), cwd=ROOT, env=env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1
    assert err.decode().strip().splitlines() == [
        f"caro playground: cannot listen on 127.0.0.1:{port}: Address already in use"]
    assert not (tmp_path / "never.db").exists()


def _page_function(name: str) -> str:
    """The text of a top-level function of the page's script."""
    page = (ROOT / "testkit/discord_double/playground.html").read_text(encoding="utf-8")
    start = page.index(f"function {name}(")
    return page[start : page.index("\n}\n", start) + 3]


@pytest.mark.skipif(not shutil.which("node"), reason="no node to run the page's script")
def test_a_relative_time_is_counted_in_the_viewers_language_one_minute_not_one_minutes() -> None:
    script = _page_function("timestamp") + """
const now = 1800000000;
Date.now = () => now * 1000;
console.log(JSON.stringify([
  timestamp(now + 60, "R", "en-US"), timestamp(now + 1, "R", "en-US"),
  timestamp(now + 120, "R", "en-US"), timestamp(now - 3600, "R", "en-GB"),
  timestamp(now + 60, "R", "vi"),
]));
"""
    shown = subprocess.run(
        ["node", "-e", script], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    assert json.loads(shown) == [
        "in 1 minute", "in 1 second", "in 2 minutes", "1 hour ago", "sau 1 phút nữa"
    ]
