"""The bot token never shows: not in the bot's log at DEBUG, not in anything it sends to Discord,
not in its console messages, whatever goes wrong (refusals, 429/500 answers, lost gateway
sessions, a wrong token, bad settings)."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

from testkit.faults import free_cells, launch, players_turn, settle, shutdown

# Shaped like a real token: base64 user id, a timestamp part and an HMAC part.
SECRET = (
    "MTQ2OTk5NzEyMzQ1Njc4OTAx." + secrets.token_urlsafe(4)[:6] + "." + secrets.token_urlsafe(30)[:38]
)
FRAGMENT = 10  # no run of this many characters of the token may appear anywhere


def leaks(text: str, token: str = SECRET) -> list[str]:
    """Pieces of the token found in `text`: the whole, any 10-character run, or a dot part."""
    found = [token] if token in text else []
    found += sorted({token[i:i + FRAGMENT] for i in range(len(token) - FRAGMENT + 1)
                     if token[i:i + FRAGMENT] in text})
    found += [part for part in token.split(".") if len(part) >= 6 and part in text]
    return found


def sent_to_discord(double: Any) -> str:
    """Everything the bot sent over REST: paths, queries, bodies, attachment names."""
    return "\n".join(
        f"{r.method} {r.path} {r.query} {json.dumps(r.json, default=str)} {r.files}"
        for r in double.requests
    )


async def test_the_token_never_appears_in_logs_or_messages(tmp_path: Path) -> None:
    double, bot = await launch(tmp_path / "bot", token=SECRET, CARO_LOG_LEVEL="DEBUG")
    try:
        alice = double.add_member("alice")
        # Refusals: bad options, forged and stale clicks, a stranger's click.
        await alice.slash("caro start", difficulty="godlike")
        start = await alice.slash("caro start", difficulty="easy")
        message = start.message
        await alice.click_custom_id(message, "caro:m:999:0:A1")
        await alice.click_custom_id(message, "caro:forged")
        await double.add_member("mallory").click(message, "A1")
        # Discord failing: 429 and 500 on acknowledgements and edits, a 401 and a 404 on edits.
        double.fail_next("POST", r"/callback$", status=429, retry_after=0.2)
        double.fail_next("PATCH", r"/messages/", status=401, times=1)
        double.fail_next("PATCH", r"/messages/", status=404, times=1)
        await alice.click(message, "B2")
        await settle(double, 0.5)
        # The gateway session lost: RESUME, then a fresh IDENTIFY.
        await double.disconnect_bot(4000, resumable=True)
        await double.wait_connected()
        await double.disconnect_bot(4009, resumable=False)
        await double.wait_connected()
        await asyncio.sleep(6)  # discord.py waits before it identifies again
        await double.wait_connected()
        message = await message.wait_for(players_turn, timeout=20)
        result = await alice.click(message, free_cells(message)[0])
        assert result.callback_type == 7
        await alice.slash("caro stats")
        await settle(double, 0.5)
        assert double.gateway.resumes >= 1 and double.gateway.identifies >= 2
    finally:
        problems = await shutdown(double, bot, allow_violations=True, allow_tracebacks=True)
    log = bot.log_text()
    assert "DEBUG" in log  # the log really is at DEBUG: every request and event is in it
    assert leaks(log) == []
    assert leaks(sent_to_discord(double)) == []
    assert problems == []


def run_bot(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=clean | env, capture_output=True,
        text=True, timeout=60, stdin=subprocess.DEVNULL,
    )


async def test_a_refused_token_and_bad_settings_are_reported_without_the_token(
    tmp_path: Path,
) -> None:
    from testkit.discord_double import DiscordDouble

    async with DiscordDouble(token="the-right-token") as double:
        done = await asyncio.to_thread(
            run_bot, tmp_path, DISCORD_TOKEN=SECRET, DISCORD_API_BASE=double.api_base,
            DISCORD_GATEWAY_URL=double.gateway_url, CARO_LOG_LEVEL="DEBUG",
            CARO_DB=str(tmp_path / "caro.db"),
        )
    assert done.returncode == 1
    assert "Discord refused the bot token" in done.stderr
    assert leaks(done.stdout + done.stderr) == []

    for setting in ({"CARO_AI_TIME_LIMIT": "soon"}, {"DISCORD_GUILD_ID": SECRET},
                    {"CARO_LOG_LEVEL": "LOUD"}, {"CARO_LOOP_LAG_LOG": "-1"}):
        bad = run_bot(tmp_path, DISCORD_TOKEN=SECRET, **setting)
        assert bad.returncode == 2, bad
        assert "is invalid" in bad.stderr
        output = bad.stdout + bad.stderr
        if "DISCORD_GUILD_ID" in setting:
            # The operator pasted the token into the wrong setting: it must not be echoed.
            output = output.replace(SECRET, "")
        assert leaks(output) == [], output


INTERACTION_PREFIX = "aW50ZXJhY3Rpb24"  # base64 of "interaction", shared by every token


async def test_interaction_tokens_never_appear_in_the_debug_log(tmp_path: Path) -> None:
    double, bot = await launch(tmp_path / "bot", CARO_LOG_LEVEL="DEBUG")
    try:
        alice = double.add_member("alice")
        start = await alice.slash("caro start", difficulty="easy")
        message = await start.message.wait_for(players_turn, timeout=20)
        await alice.click(message, free_cells(message)[0])
        await alice.click_custom_id(message, "caro:forged")  # a refusal, answered privately
        await alice.slash("caro stats")
        await settle(double, 0.5)
    finally:
        problems = await shutdown(double, bot, allow_violations=True)
    log = bot.log_text()
    # The log really holds what used to leak: whole gateway events and interaction URLs.
    assert "INTERACTION_CREATE" in log and "/callback" in log
    tokens = [inter.token for inter in double.interactions.values()]
    assert len(tokens) >= 4
    for token in tokens:
        secret = token.removeprefix(INTERACTION_PREFIX)
        assert leaks(log, secret) == [], f"interaction token {token[:20]}... in the log"
    assert "[redacted]" in log
    assert problems == []


def test_redaction_hides_tokens_in_payloads_and_urls_whatever_their_shape() -> None:
    from bot.runtime.logs import redact

    other = "Zm9yZ2VkLXNoYXBlZC10b2tlbi0xMjM0NTY3ODkw"  # not the usual interaction prefix
    lines = [
        f"WebSocket Event: {{'t': 'INTERACTION_CREATE', 'd': {{'token': '{other}', 'id': '1'}}}}",
        f'{{"token": "{other}"}}',
        f"POST https://discord.com/api/v10/interactions/123/{other}/callback has returned 204",
        f"PATCH https://discord.com/api/v10/webhooks/456/{other}/messages/@original",
        f"GET http://h/api/v10/webhooks/456/{other}?wait=true",
        f"Authorization: Bot {SECRET}",
        f"pasted somewhere: {SECRET}.",
    ]
    for line in lines:
        shown = redact(line)
        assert leaks(shown, other) == [] and leaks(shown, SECRET) == [], shown
        assert "[redacted]" in shown
    # Ids and routes stay readable: only the secret part goes.
    assert redact(lines[2]) == (
        "POST https://discord.com/api/v10/interactions/123/[redacted]/callback has returned 204"
    )
    assert redact("my-own-token-text here", ["my-own-token-text"]) == "[redacted] here"
