"""/caro settings (bot/cogs/settings.py) through the Discord double and the real bot process: a
member's own settings, the server's for those who may manage it, and refusals that save nothing."""

from __future__ import annotations

from testkit.boards import refusal
from testkit.bot_process import StartBot
from testkit.members import MANAGE_GUILD


async def test_a_member_saves_their_own_settings_and_they_outlive_a_restart(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    alice = bot.double.add_member("alice")
    shown = await alice.slash("caro settings")
    assert shown.ephemeral
    assert (
        "Your settings: board style **wood**, turn pings **on**, clock warnings **on**,"
        " language **automatic**." in str(shown.content)
    )
    saved = await alice.slash(
        "caro settings", theme="paper", pings=False, clock_warnings=False, language="vi"
    )
    # Answered in the language just chosen.
    assert "kiểu bàn cờ **giấy**, nhắc lượt **tắt**, cảnh báo giờ **tắt**" in str(saved.content)
    await bot.restart()
    assert bot.db_rows(
        "SELECT theme, turn_pings, clock_warnings, language FROM member_settings"
    ) == [("paper", 0, 0, "vi")]
    again = await alice.slash("caro settings", pings=True, language="auto")
    assert "turn pings **on**, clock warnings **off**" in str(again.content)
    assert bot.double.violations == []


async def test_another_member_keeps_the_defaults(start_bot: StartBot) -> None:
    bot = await start_bot()
    alice, bob = (bot.double.add_member(n) for n in ("alice", "bob"))
    await alice.slash("caro settings", theme="paper")
    shown = await bob.slash("caro settings")
    assert "board style **wood**" in str(shown.content)


async def test_the_server_language_needs_manage_server_and_a_refusal_saves_nothing(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    admin, bob = (bot.double.add_member(n) for n in ("admin", "bob"))
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    # Bob's own option and a server option together: refused whole, his theme is not saved.
    assert "Manage Server" in refusal(
        await bob.slash("caro settings", theme="paper", server_language="vi")
    )
    assert bot.db_rows("SELECT COUNT(*) FROM member_settings") == [(0,)]
    saved = await admin.slash("caro settings", server_language="vi")
    # The admin chose no language of their own: the server's is theirs now.
    assert "Ngôn ngữ của máy chủ: **Tiếng Việt**." in str(saved.content)
    assert bot.db_rows("SELECT language FROM guild_settings") == [("vi",)]
    # "automatic" takes the server's language away again; the clocks stay as they were.
    cleared = await admin.slash("caro settings", server_language="auto")
    assert "Server language: **automatic**." in str(cleared.content)
    assert bot.db_rows("SELECT pvp_timeout, language FROM guild_settings") == [(600.0, None)]


async def test_values_discord_would_not_offer_are_refused_naming_the_choices(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    alice = bot.double.add_member("alice")
    assert "wood, paper" in refusal(await alice.slash("caro settings", theme="neon"))
    assert "auto, en, vi" in refusal(await alice.slash("caro settings", pings=True, language="fr"))
    assert bot.db_rows("SELECT COUNT(*) FROM member_settings") == [(0,)]


async def test_settings_answer_in_vietnamese(start_bot: StartBot) -> None:
    bot = await start_bot()
    an = bot.double.add_member("an", locale="vi")
    shown = await an.slash("caro settings", theme="paper")
    assert "kiểu bàn cờ **giấy**, nhắc lượt **bật**" in str(shown.content)


async def test_pairing_across_servers_is_turned_off_by_who_may_manage_the_server(
    start_bot: StartBot,
) -> None:
    bot = await start_bot()
    admin, bob = (bot.double.add_member(n) for n in ("admin", "bob"))
    admin.permissions = str(int(admin.permissions) | MANAGE_GUILD)
    assert "Queue with other servers: **on**." in str((await bob.slash("caro settings")).content)
    assert "Manage Server" in refusal(await bob.slash("caro settings", cross_server=False))
    # Bob waits open to any server; turned off, his entry waits for this server only.
    await bob.slash("caro queue")
    saved = await admin.slash("caro settings", cross_server=False)
    assert "Queue with other servers: **off**." in str(saved.content)
    assert bot.db_rows("SELECT cross_server FROM guild_settings") == [(0,)]
    assert bot.db_rows("SELECT local FROM queue_entries") == [(1,)]
    # A member's entry made now is for this server only, whatever its scope.
    await admin.slash("caro queue", scope="any")
    assert bot.db_rows("SELECT local FROM queue_entries ORDER BY id") == [(1,), (1,)]
