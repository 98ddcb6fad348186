"""A local Discord double: REST (/api/v10) and the gateway websocket, speaking Discord's wire
protocol, so the real bot process (discord.py 2.7) runs against it unmodified.

    from testkit.discord_double import DiscordDouble, Member, Message, InteractionResult

    double = DiscordDouble(token="test-token")   # the only bot token accepted (401 / close 4004 else)
    await double.start()                         # aiohttp on 127.0.0.1, free port
    double.api_base      # "http://127.0.0.1:{port}/api/v10"  -> bot env DISCORD_API_BASE
    double.gateway_url   # "ws://127.0.0.1:{port}/gateway"    -> bot env DISCORD_GATEWAY_URL
    await double.wait_ready(timeout=30)  # READY sent and commands registered (PUT, global or guild)
    double.reset_ready()                 # forget both, before restarting the bot process
    double.guild_id, double.channel_id   # one guild with a text channel "general"
    double.add_channel("other")          # -> channel id (guild_id=... for another guild)

Several guilds and shards:
    g2 = double.add_guild("second", locale="vi", shard=(1, 2))  # -> guild id, on shard 1 of 2
    double.guilds[g2].channel_id         # its "general" channel; .roles, .bot_role_id, .locale
    bob = double.add_member("bob", guild_id=g2); double.join(alice, g2)  # one user, two guilds
    double.leave(alice, g2)              # GUILD_MEMBER_REMOVE (members intent only); GET member 404
    double.remove_bot(g2)                # GUILD_DELETE; out of READY, REST says Unknown Guild
    await bob.slash("caro start")        # in bob's home guild; channel_id= picks another
    double.shard_count = 2               # what GET /gateway/bot recommends (default: 1 per 1000)
    double.max_guilds_per_shard = 1      # IDENTIFY holding more guilds is closed with 4011
    await double.wait_shards(range(2), 2)  # both shards of 2 identified, READY and connected
    double.gateway.owner(guild_id)       # the session a guild's events and interactions go to
IDENTIFY carries shard [id, count] (absent: [0, 1]); each session gets READY + GUILD_CREATE for
its guilds ((guild_id >> 22) % count == id); a malformed or out-of-range shard is closed with
4010. A guild added while the bot runs gets GUILD_CREATE on its shard's session.

    alice = double.add_member("alice", locale="en-US")          # -> Member
    res = await alice.slash("caro start", difficulty="hard")     # type 2 over the gateway
    res = await alice.click(res.message, "B2")   # custom_id == "B2", or ends ":B2", or label "B2"
    res = await alice.click_custom_id(msg, "caro:forged:1")      # any custom_id
    res = await alice.submit_modal(msg_or_None, "modal-id", {"field": "value", "select": ["a"]})
    res = await alice.autocomplete("caro start", "size", size="1")   # type 4; res.data["choices"]
    alice.messages(channel_id=None)   # what alice sees: history plus her own ephemerals

Slash options are typed from the registered schema (STRING, INTEGER, NUMBER, BOOLEAN, USER or
MENTIONABLE given a Member, CHANNEL, ROLE). Choices and min/max are client-side rules, so they are
not checked unless `double.strict_choices = True`: hostile values reach the bot. Things a real
client cannot do (unknown option, missing required option, clicking a disabled button or someone
else's ephemeral message) raise AssertionError in the test instead of being sent.

Every interaction call returns once the bot answered (callback), or raises InteractionFailed (an
AssertionError) when it did not within 3 s, which is also recorded as a violation; a later
callback gets 404 10062 Unknown interaction like on Discord. The 3 s are counted on the test's
event loop minus the stretches that loop was stalled (a blocked test or an unscheduled process),
so only the bot's own slowness counts.

InteractionResult: .callback_type (4/5/6/7/9), .ephemeral, .content, .embeds, .components, .data,
    .modal (type 9), .message (4/5: the message created, ephemeral ones too; 6/7: the clicked
    message), .interaction_id, .token, `await res.followups(n, timeout)` -> list[Message].
Message (live, updated in place): .id, .channel_id, .content, .embeds, .components, .buttons,
    .button(target), .flags, .ephemeral, .loading (deferred placeholder), .attachments
    ([{filename, content_type, size, data, id, url}]), .edits, .deleted, .payload (raw JSON),
    `await msg.wait_for(predicate, timeout=10.0)`, msg.refresh().
double.messages(channel_id=None) -> non-ephemeral history, oldest first.
double.requests -> [RecordedRequest(method, path, json, time, query, status, files)], path relative
    to the API base ("/channels/1/messages"); double.violations -> [str], every Discord rule the
    bot broke (tests assert it stays empty).
double.fail_next(method, path_regex, status=429, retry_after=0.5, times=1)  # fault injection
    (path_regex is re.search'ed on the relative path; 429s carry Via and retry_after so
    discord.py retries them, 5xx are retried by discord.py after 1 s); content=regex picks the
    messages by their text; mode="after" does the call and loses its answer, mode="drop" does it
    and closes the connection unanswered, mode="hold" answers nothing and does nothing until
    `fault.release()` (it returns the Fault; `fault.held` counts the calls held)
Create Message honours nonce + enforce_nonce as Discord documents it: the same author's message
    with that nonce from the past few minutes comes back and no new one is made.
await double.redeliver(res.interaction_id)   # the same INTERACTION_CREATE again (same id/token)
alice.click_custom_id(msg, cid, interaction_id=double.ids.next())  # ids taken ahead: send the
    clicks in another order than their ids, as when they reach the bot out of order
await double.disconnect_bot(code=4000, resumable=True); await double.wait_connected()
    (resumable=False: the RESUME gets INVALID_SESSION; discord.py then waits 5 s to IDENTIFY)
double.commands[guild_id or None] -> registered commands; double.interactions[id].payload -> what
    was sent; double.gateway.identifies / .resumes; double.response_deadline (3.0) and
    double.token_lifetime (900) may be lowered for a test.
await double.stop()       # also: `async with DiscordDouble() as double:`

The bot must point discord.py at the double itself: `discord.http.Route.BASE = api_base` and
`discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)` (a non-sharded
discord.py 2.7 client never asks GET /gateway/bot; it connects to DEFAULT_GATEWAY, and later
resumes at READY's resume_gateway_url, which the double sets to its own URL).

Enforced like Discord (error answered AND a violation recorded): initial response within 3 s,
one initial response (40060), follow-ups/webhook edits only after it and within 15 min, at most
5 rows x 5 buttons (or 40 components with the Components V2 flag), custom_id 1..100 chars and
unique per message, button label <= 80, content <= 2000, <= 10 embeds (and embed limits),
updates (6/7) only for component interactions, command schemas on PUT, auth on bot routes.
"""

from testkit.discord_double.interactions import InteractionFailed, InteractionResult
from testkit.discord_double.members import Member
from testkit.discord_double.server import DiscordDouble
from testkit.discord_double.state import Message, RecordedRequest

__all__ = [
    "DiscordDouble",
    "InteractionFailed",
    "InteractionResult",
    "Member",
    "Message",
    "RecordedRequest",
]
