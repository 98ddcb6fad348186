"""The operator's console messages (configuration errors, start-up refusals): English only, on
purpose apart from the player catalogues in bot/locales, which translators edit for players.

A message is a `str.format` template looked up by a short id, so callers keep their wording in
one place and tests can compare whole messages."""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "no_token": (
        "caro-bot needs a Discord bot token and found none. Get one from the Discord Developer "
        "Portal (https://discord.com/developers/applications -> Applications -> your app -> Bot "
        "-> Reset Token), then put it in a file named .env in the directory you start the bot "
        "from, as a line DISCORD_TOKEN=your-token (see .env.example), or set the DISCORD_TOKEN "
        "environment variable."
    ),
    "bad_token": (
        "Discord refused the bot token (it is wrong, or it was reset). Copy a fresh one from the "
        "Developer Portal (your app -> Bot -> Reset Token) into DISCORD_TOKEN in .env."
    ),
    "bad_setting": "Setting {name} is invalid: {problem}",
    "not_a_number": "expected a whole number, got {value!r}",
    "not_positive": "expected a number of seconds above 0, got {value!r}",
    "bad_log_level": "expected DEBUG, INFO, WARNING or ERROR, got {value!r}",
    "privileged_intents": (
        "Discord refused the connection because the bot asks for an intent it is not allowed to "
        "use. caro-bot needs no privileged intents; check you are running an unmodified build."
    ),
}


def console_text(key: str, /, **values: object) -> str:
    """The console message `key`, filled with `values`; KeyError for an unknown id."""
    template = MESSAGES[key]
    return template.format(**values) if values else template
