"""Members' display names for pictures and files (the legend under a board, a replay, an exported
record), where a mention cannot be drawn.

The bot asks for no members intent, so Discord sends no member list: a name comes from an
interaction the member made, the guild's cache, or one REST request, and is remembered for a
while (names change rarely; a stale one for a few minutes is harmless).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any, Protocol

import discord

log = logging.getLogger("caro.bot")

NAME_TTL_S = 600.0
MAX_NAMES = 4096

# (guild, member) -> (expiry, name); "" for a member whose name could not be had, so that every
# redraw of their board does not ask Discord again.
_names: OrderedDict[tuple[int, int], tuple[float, str]] = OrderedDict()


class HasGuilds(Protocol):
    def get_guild(self, id: int, /) -> discord.Guild | None: ...


def remember(guild_id: int | None, user: discord.abc.User | None) -> None:
    """Keep the name of a member seen in an interaction."""
    if guild_id is None or user is None:
        return
    _store(guild_id, user.id, user.display_name)


def _store(guild_id: int, user_id: int, name: str) -> None:
    key = (guild_id, user_id)
    _names[key] = (time.monotonic() + NAME_TTL_S, name)
    _names.move_to_end(key)
    while len(_names) > MAX_NAMES:
        _names.popitem(last=False)


def _known(guild_id: int, user_id: int) -> str | None:
    found = _names.get((guild_id, user_id))
    if found is None or found[0] < time.monotonic():
        return None
    return found[1]


async def display_names(
    client: HasGuilds, guild_id: int, user_ids: Iterable[int]
) -> dict[int, str]:
    """The display names of these members of the server; a member whose name cannot be had
    (left the server, Discord unreachable) is missing from the answer."""
    names: dict[int, str] = {}
    guild = client.get_guild(guild_id)
    for user_id in user_ids:
        name = _known(guild_id, user_id)
        if name is None and guild is not None:
            member: Any = guild.get_member(user_id)
            if member is None:
                try:
                    member = await guild.fetch_member(user_id)
                except (discord.HTTPException, ValueError) as exc:
                    log.info("no display name for member %d (%s)", user_id, exc)
                    member = None
            name = "" if member is None else str(member.display_name)
            _store(guild_id, user_id, name)
        if name:
            names[user_id] = name
    return names


__all__ = ["display_names", "remember"]
