"""The gateway websocket: HELLO, heartbeats, IDENTIFY/READY, RESUME and numbered dispatches.

Sharding as on Discord: IDENTIFY may carry `shard: [shard_id, num_shards]` (absent: [0, 1]); a
session gets the guilds with (guild_id >> 22) % num_shards == shard_id, and every event of a guild
goes to the latest session whose shard owns it (events without a guild to shard 0). A malformed
or out-of-range shard is closed with 4010, a session that would hold more than
`double.max_guilds_per_shard` guilds with 4011.

Frames go out as uncompressed JSON text even when the bot asks for zlib-stream: discord.py only
runs its decompressor on binary frames, and Discord itself accepts either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from testkit.discord_double.host import Host

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE, RESUME = 0, 1, 2, 3, 4, 6
RECONNECT, REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 7, 8, 9, 10, 11
HEARTBEAT_ACK_DELAY = 0.2  # seconds: a round trip to Discord, and then some on a busy machine
GUILD_MEMBERS_INTENT = 1 << 1
GUILD_MESSAGES_INTENT = 1 << 9
INVALID_SHARD, SHARDING_REQUIRED = 4010, 4011


@dataclass
class Session:
    id: str
    intents: int
    seq: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)
    ws: web.WebSocketResponse | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    shard: tuple[int, int] = (0, 1)
    ready: bool = False

    def owns(self, guild_id: str) -> bool:
        shard_id, num_shards = self.shard
        return (int(guild_id) >> 22) % num_shards == shard_id

    @property
    def live(self) -> bool:
        return self.ws is not None and not self.ws.closed


class Gateway:
    def __init__(self, double: Host, heartbeat_interval: int) -> None:
        self._double = double
        self.heartbeat_interval = heartbeat_interval
        self.sessions: dict[str, Session] = {}
        self.current: Session | None = None
        # Every session ever identified, oldest first: routing picks the latest owner of a guild.
        self.identified: list[Session] = []
        self.sockets: set[web.WebSocketResponse] = set()
        self.identifies = 0
        self.resumes = 0

    @property
    def connected(self) -> bool:
        cur = self.current
        return cur is not None and cur.ws is not None and not cur.ws.closed

    def owner(self, guild_id: str | None) -> Session | None:
        """The session events of this guild go to (None: shard 0's, as for DMs)."""
        for session in reversed(self.identified):
            if guild_id is None and session.shard[0] == 0:
                return session
            if guild_id is not None and session.owns(guild_id):
                return session
        return None

    def live_shards(self, num_shards: int) -> set[int]:
        """Shard ids of num_shards that have a connected session which got READY."""
        return {s.shard[0] for s in self.identified
                if s.shard[1] == num_shards and s.ready and s.live
                and self.owner_of_shard(s.shard) is s}

    def owner_of_shard(self, shard: tuple[int, int]) -> Session | None:
        return next((s for s in reversed(self.identified) if s.shard == shard), None)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self.sockets.add(ws)
        session: Session | None = None
        try:
            await self._send(ws, {"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval}})
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    if msg.type is WSMsgType.BINARY:
                        await self._reject(ws, 4002, "binary frames are not JSON")
                    break
                try:
                    payload = json.loads(msg.data)
                    op = payload["op"]
                except (ValueError, KeyError, TypeError):
                    await self._reject(ws, 4002, f"undecodable gateway payload {msg.data[:80]!r}")
                    break
                session = await self._on_op(ws, session, op, payload.get("d"))
                if ws.closed:
                    break
        finally:
            self.sockets.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
            self._double.store.changes.notify()
        return ws

    async def _on_op(self, ws: web.WebSocketResponse, session: Session | None, op: int,
                     data: Any) -> Session | None:
        if op == HEARTBEAT:
            # Discord's ACK takes a network round trip. An instant one can reach discord.py
            # before its heartbeat thread notes the send, which it then logs as a client 41 s
            # behind ("Can't keep up").
            await asyncio.sleep(HEARTBEAT_ACK_DELAY)
            await self._send(ws, {"op": HEARTBEAT_ACK, "d": None})
        elif op == IDENTIFY:
            if session is not None:
                await self._reject(ws, 4005, "IDENTIFY sent twice on one connection")
            elif not isinstance(data, dict) or data.get("token") != self._double.token:
                await self._reject(ws, 4004, "IDENTIFY with a wrong token")
            else:
                session = await self._identify(ws, data)
        elif op == RESUME:
            session = await self._resume(ws, data)
        elif session is None:
            await self._reject(ws, 4003, f"op {op} sent before IDENTIFY")
        elif op == REQUEST_MEMBERS:
            await self._members_chunk(session, data or {})
        elif op in (PRESENCE, VOICE):
            pass
        else:
            await self._reject(ws, 4001, f"unknown gateway opcode {op}")
        return session

    async def _identify(self, ws: web.WebSocketResponse,
                        data: dict[str, Any]) -> Session | None:
        double = self._double
        shard = self._shard_of(data.get("shard", [0, 1]))
        if shard is None:
            await self._reject(ws, INVALID_SHARD,
                               f"IDENTIFY with an invalid shard {data.get('shard')!r}")
            return None
        guild_ids = [g for g in double.guild_ids if double.shard_of(g, shard[1]) == shard[0]]
        if len(guild_ids) > double.max_guilds_per_shard:
            await self._reject(ws, SHARDING_REQUIRED,
                               f"IDENTIFY as shard {list(shard)} would hold {len(guild_ids)} "
                               f"guilds (at most {double.max_guilds_per_shard} per shard)")
            return None
        session = Session(id=secrets.token_hex(16), intents=int(data.get("intents") or 0), ws=ws,
                          shard=shard)
        self.sessions[session.id] = session
        self.identified.append(session)
        self.current = session
        self.identifies += 1
        ready: dict[str, Any] = {
            "v": 10,
            "user": double.bot_user,
            "user_settings": {},
            "guilds": [{"id": gid, "unavailable": True} for gid in guild_ids],
            "presences": [],
            "private_channels": [],
            "relationships": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["local"],
            "session_type": "normal",
            "session_id": session.id,
            "resume_gateway_url": double.gateway_url,
            "application": {"id": double.application_id, "flags": double.application_flags},
            "auth": {},
            "_trace": ['["discord-double",{"micros":0}]'],
        }
        if "shard" in data:
            ready["shard"] = list(shard)
        await self.dispatch("READY", ready, session=session)
        for guild_id in guild_ids:
            await self.dispatch("GUILD_CREATE", double.guild_create_payload(guild_id),
                                session=session)
        session.ready = True
        double.bot_ready = True
        double.store.changes.notify()
        return session

    @staticmethod
    def _shard_of(value: Any) -> tuple[int, int] | None:
        """[shard_id, num_shards] as Discord accepts it: two integers, 0 <= id < num."""
        if not isinstance(value, list | tuple) or len(value) != 2:
            return None
        shard_id, num_shards = value
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return None
        if num_shards < 1 or not 0 <= shard_id < num_shards:
            return None
        return shard_id, num_shards

    async def _resume(self, ws: web.WebSocketResponse, data: Any) -> Session | None:
        data = data if isinstance(data, dict) else {}
        if data.get("token") != self._double.token:
            await self._reject(ws, 4004, "RESUME with a wrong token")
            return None
        session = self.sessions.get(str(data.get("session_id")))
        if session is None:
            await self._send(ws, {"op": INVALID_SESSION, "d": False})
            return None
        old = session.ws
        session.ws = ws
        self.current = session
        self.resumes += 1
        if old is not None and not old.closed:
            await old.close(code=4000)
        last = int(data.get("seq") or 0)
        async with session.lock:
            for event in session.sent:
                if event["s"] > last:
                    await self._send(ws, event)
        await self.dispatch("RESUMED", {"_trace": ['["discord-double",{"micros":0}]']},
                            session=session)
        self._double.store.changes.notify()
        return session

    async def _members_chunk(self, session: Session, data: dict[str, Any]) -> None:
        double = self._double
        guild_id = str(data.get("guild_id", double.guild_id))
        members = double.all_member_payloads(guild_id) if guild_id in double.guilds else []
        wanted = data.get("user_ids")
        if wanted:
            wanted_ids = {str(u) for u in (wanted if isinstance(wanted, list) else [wanted])}
            members = [m for m in members if m["user"]["id"] in wanted_ids]
        query = data.get("query")
        if query:
            members = [m for m in members if m["user"]["username"].startswith(query)]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: dict[str, Any] = {
            "guild_id": guild_id,
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await self.dispatch("GUILD_MEMBERS_CHUNK", chunk, session=session)

    async def dispatch(self, event: str, data: dict[str, Any], *, session: Session | None = None,
                       guild_id: str | None = None, intent: int = 0) -> bool:
        """Send an event to a session (given, else the one whose shard owns guild_id, else
        shard 0's), kept for replay on RESUME. False if there is no such session."""
        session = session or self.owner(guild_id)
        if session is None or (intent and not session.intents & intent):
            return False
        async with session.lock:
            session.seq += 1
            frame = {"op": DISPATCH, "t": event, "s": session.seq, "d": data}
            session.sent.append(frame)
            ws = session.ws
            if ws is not None and not ws.closed:
                with contextlib.suppress(ConnectionError):
                    await self._send(ws, frame)
        return True

    async def disconnect(self, code: int, *, resumable: bool, shard_id: int | None = None) -> None:
        session = self.current
        if shard_id is not None:
            session = next((s for s in reversed(self.identified) if s.shard[0] == shard_id), None)
        if session is None:
            return
        if not resumable:
            self.sessions.pop(session.id, None)
        ws = session.ws
        if ws is not None and not ws.closed:
            await ws.close(code=code)

    async def reconnect_request(self) -> None:
        """Ask the bot to reconnect and resume (op 7), as Discord does during restarts."""
        session = self.current
        if session is not None and session.ws is not None and not session.ws.closed:
            await self._send(session.ws, {"op": RECONNECT, "d": None})

    async def close_all(self) -> None:
        for ws in list(self.sockets):
            await ws.close(code=1001)

    async def _reject(self, ws: web.WebSocketResponse, code: int, why: str) -> None:
        self._double.violate(f"gateway: {why} (closed with {code})")
        await ws.close(code=code, message=why.encode()[:120])

    @staticmethod
    async def _send(ws: web.WebSocketResponse, payload: dict[str, Any]) -> None:
        payload.setdefault("s", None)
        payload.setdefault("t", None)
        await ws.send_str(json.dumps(payload))
