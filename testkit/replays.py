"""Finished games as the double shows them: the replay stepper's buttons and whether each is
enabled, the files a message carries (GIF and PNG pictures, exported records), the public message
a deferred ("thinking...") answer turned into, and a game's moves as stored."""

from __future__ import annotations

from typing import Any

from testkit.bot_process import BotHandle

GIF = b"GIF89a"
PNG = b"\x89PNG\r\n\x1a\n"
FIRST, BACK, NEXT, LAST = "\u23ee", "\u25c0", "\u25b6", "\u23ed"


def moves_in_db(bot: BotHandle, game: int) -> list[str]:
    """The cells of a game's moves in the bot's database, in order."""
    return [c for (c,) in bot.db_rows("SELECT cell FROM moves WHERE game_id = ? ORDER BY ply",
                                      (game,))]


def stepper(message: Any) -> dict[str, bool]:
    """Whether each stepper button is enabled."""
    return {b["label"]: not b.get("disabled", False) for b in message.buttons
            if str(b.get("custom_id", "")).startswith("caro:rs:")}


async def posted(result: Any) -> Any:
    """The public message a deferred ("thinking...") answer turned into."""
    assert result.callback_type == 5 and not result.ephemeral, result
    [message] = await result.followups(1, timeout=30)
    assert not message.loading
    return message


def files(message: Any) -> dict[str, bytes]:
    """A message's attachments, by file name."""
    return {a["filename"]: a["data"] for a in message.attachments}
