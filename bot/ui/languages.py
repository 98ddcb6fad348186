"""Which language the bot writes to a member in, one rule for every reply, ping and warning:
the language they chose for caro, else their server's default, else their Discord client's if
the bot speaks it, else English (bot.i18n.texts.choose_language). A game's public text (its
board) follows the server's default first, then its starter's.

Commands are named as Discord shows them to the reader, which follows their Discord client
(bot.i18n.translator.locale_of), whatever language the text around them is in."""

from __future__ import annotations

import logging
from typing import Any, Protocol, cast

import discord

from bot.game.ports import StorageUnavailable
from bot.game.preferences import MemberPreferences
from bot.game.services import Services
from bot.game.settings import ServerSettings
from bot.i18n.texts import choose_language, command_names, text_in
from bot.i18n.translator import locale_of

log = logging.getLogger("caro.bot")


class _Host(Protocol):
    @property
    def services(self) -> Services: ...


# Where an interaction keeps its member's language once resolved: one lookup per interaction,
# however many texts its answer holds.
_RESOLVED = "caro.language"


class Languages(Protocol):
    """What choosing a member's language reads: their own setting and their server's."""

    @property
    def preferences(self) -> MemberPreferences: ...

    @property
    def settings(self) -> ServerSettings: ...


async def member_language(
    services: Languages,
    guild_id: int | None,
    user_id: int,
    *,
    client: str | None,
    public: bool = False,
) -> str:
    """The language to write to member `user_id` of server `guild_id` in (`client`: their
    Discord client's locale, None when not known). `public`: for a text the whole channel reads
    that this member starts (a board), where the server's default comes first."""
    own = (await services.preferences.member(user_id)).language
    server = None
    if guild_id is not None and (public or own is None):
        server = (await services.settings.timeouts(guild_id)).language
    if public:
        return choose_language(server, own, client)
    return choose_language(own, server, client)


async def language(interaction: discord.Interaction[Any], *, public: bool = False) -> str:
    """The language to answer `interaction`'s member in (see member_language)."""
    key = (_RESOLVED, public)
    found = interaction.extras.get(key)
    if isinstance(found, str):
        return found
    try:
        found = await member_language(
            cast("_Host", interaction.client).services,
            interaction.guild_id,
            interaction.user.id,
            client=locale_of(interaction),
            public=public,
        )
    except Exception as exc:
        # The settings cannot be read (the database is failing): the member still gets their
        # answer, which may be the error itself, in their Discord client's language. The
        # database being away was logged once already, when it was lost.
        if not isinstance(exc, StorageUnavailable):
            log.warning("could not read a member's language settings (%r)", exc)
        return choose_language(None, None, locale_of(interaction))
    interaction.extras[key] = found
    return found


async def challenge_language(interaction: discord.Interaction[Any], opponent_id: int) -> str:
    """The language of a challenge, and of the board it becomes: the server's default first, as
    for every public post; else the language the challenged member chose for caro, since the
    challenge is written to them; else the challenger's (their own, then their client's)."""
    services = cast("_Host", interaction.client).services
    try:
        server = None
        if interaction.guild_id is not None:
            server = (await services.settings.timeouts(interaction.guild_id)).language
        theirs = None if server else (await services.preferences.member(opponent_id)).language
    except Exception as exc:
        # As in `language`: the challenger's language below, which copes with the database.
        if not isinstance(exc, StorageUnavailable):
            log.warning("could not read the challenged member's language (%r)", exc)
        server = theirs = None
    if server or theirs:
        return choose_language(server, theirs, None)
    return await language(interaction, public=True)


async def reply_text(interaction: discord.Interaction[Any], key: str, /, **values: object) -> str:
    """The text `key` for `interaction`'s member: in their language, its commands named as their
    Discord client shows them."""
    return text_in(
        await language(interaction), key, **{**command_names(locale_of(interaction)), **values}
    )


__all__ = ["challenge_language", "language", "member_language", "reply_text"]
