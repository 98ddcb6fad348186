"""What a member's place in the queue looks like: the message `/caro queue` posts (with its
Leave button), and what it turns into once they left or were paired."""

from __future__ import annotations

import discord

from bot.game.model import jump_link
from bot.game.queue_model import QueueEntry
from bot.i18n.texts import text_in
from bot.ui import drawing
from bot.ui.buttons import QueueLeave
from bot.ui.payloads import row_payload

SECONDARY = discord.ButtonStyle.secondary


def waiting_content(entry: QueueEntry, waiting: int) -> str:
    """The entry's message while it waits: the game asked for and how many wait for it."""
    key, locale = entry.key, entry.locale
    return text_in(
        locale,
        "queue.waiting",
        user=f"<@{entry.user_id}>",
        rows=key.rows,
        cols=key.cols,
        k=key.k,
        rule=text_in(locale, f"rulename.{key.rule}"),
        kind=text_in(locale, "queue.rated" if key.rated else "queue.casual"),
        count=waiting,
    )


def waiting_view(entry: QueueEntry) -> discord.ui.View:
    leave = QueueLeave.button(text_in(entry.locale, "button.leave_queue"), SECONDARY, entry=entry.id)
    return drawing.view([row_payload([leave])])


def left_content(entry: QueueEntry) -> str:
    return text_in(entry.locale, "queue.left", user=f"<@{entry.user_id}>")


def paired_content(
    entry: QueueEntry, board: tuple[int, int, int] | None, opponent: str | None = None
) -> str:
    """The entry's message once paired: a link to the game's board (guild, channel, message),
    or that it is being posted. `opponent`: how to call an opponent of another server (never
    a mention)."""
    values = {"user": f"<@{entry.user_id}>", "opponent": opponent or f"<@{entry.partner_id}>"}
    if board is None:
        return text_in(entry.locale, "queue.paired_unposted", **values)
    return text_in(entry.locale, "queue.paired", link=jump_link(*board), **values)


__all__ = ["left_content", "paired_content", "waiting_content", "waiting_view"]
