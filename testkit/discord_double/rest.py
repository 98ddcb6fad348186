"""REST under /api/v10: the routes discord.py calls, answered with Discord's shapes and errors."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import mimetypes
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from testkit.discord_double.host import Host
from testkit.discord_double.interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MODAL_SUBMIT,
    Interaction,
)
from testkit.discord_double.rules import (
    FieldError,
    choice_errors,
    command_errors,
    describe,
    form_body,
    message_errors,
    modal_errors,
    nonce_errors,
)
from testkit.discord_double.state import EPHEMERAL, LOADING, Message, RecordedRequest

API_PREFIX = re.compile(r"^/api/v(?:9|10)(/.*)$")
RATE_LIMIT = 50
RATE_WINDOW = 1.0


class ApiError(Exception):
    def __init__(self, status: int, code: int, message: str, *, violation: str | None = None,
                 body: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body or {"message": message, "code": code}
        self.violation = violation


@dataclass
class Call:
    method: str
    path: str
    query: dict[str, str]
    json: Any
    files: list[tuple[int, str, str, bytes]] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.method} {self.path}"


Handler = Callable[..., Awaitable[Any]]


def json_response(body: Any, status: int = 200) -> web.Response:
    # Exactly "application/json": discord.py only decodes bodies with that exact content type.
    return web.Response(body=json.dumps(body).encode(), status=status,
                        headers={"Content-Type": "application/json"})


def invalid_form(call: Call, errors: list[FieldError], prefix: tuple[str | int, ...] = ()) -> ApiError:
    return ApiError(400, 50035, "Invalid Form Body", body=form_body(errors, prefix),
                    violation=f"{call.where}: Invalid Form Body: {describe(errors)}")


@dataclass
class Fault:
    """A REST call answered otherwise than Discord normally would. `mode` says when: "refuse"
    (answered with `status`, nothing done), "after" (done, then answered with `status`: the
    answer was lost), "drop" (done, then the connection closed with no answer), "hold" (not
    answered, nothing done, until `release()`; then answered with `status`)."""

    method: str
    pattern: re.Pattern[str]
    status: int
    retry_after: float
    times: int
    mode: str = "refuse"
    content: re.Pattern[str] | None = None
    held: int = 0
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def matches(self, method: str, path: str, body: Any) -> bool:
        if self.times <= 0 or self.method not in (method, "*") or not self.pattern.search(path):
            return False
        if self.content is None:
            return True
        text = body.get("content") if isinstance(body, dict) else None
        return isinstance(text, str) and self.content.search(text) is not None

    def release(self) -> None:
        """Let the held calls go (answered with `status`, nothing done)."""
        self.released.set()


class Rest:
    def __init__(self, double: Host) -> None:
        self.d = double
        # The calls to answer otherwise (fail_next), and those of them that hold calls.
        self._faults: list[Fault] = []
        self._held: list[Fault] = []
        self._buckets: dict[str, list[float]] = {}
        route = self._route
        self.routes: list[tuple[str, re.Pattern[str], Handler, bool]] = [
            route("GET", r"/users/@me", self.get_me),
            route("GET", r"/users/(?P<user_id>\d+)", self.get_user),
            route("GET", r"/gateway/bot", self.gateway_bot),
            route("GET", r"/gateway", self.gateway_plain, auth=False),
            route("GET", r"/oauth2/applications/@me", self.application),
            route("GET", r"/applications/@me", self.application),
            route("GET", r"/applications/(?P<app>\d+)/commands", self.get_commands),
            route("PUT", r"/applications/(?P<app>\d+)/commands", self.put_commands),
            route("GET", r"/applications/(?P<app>\d+)/guilds/(?P<guild>\d+)/commands",
                  self.get_commands),
            route("PUT", r"/applications/(?P<app>\d+)/guilds/(?P<guild>\d+)/commands",
                  self.put_commands),
            route("POST", r"/interactions/(?P<iid>\d+)/(?P<token>[^/]+)/callback", self.callback,
                  auth=False),
            route("POST", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)", self.followup, auth=False),
            route("GET", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>@original|\d+)",
                  self.webhook_get, auth=False),
            route("PATCH", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>@original|\d+)",
                  self.webhook_edit, auth=False),
            route("DELETE", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>@original|\d+)",
                  self.webhook_delete, auth=False),
            route("GET", r"/channels/(?P<cid>\d+)", self.get_channel),
            route("GET", r"/channels/(?P<cid>\d+)/messages", self.channel_history),
            route("POST", r"/channels/(?P<cid>\d+)/messages", self.channel_post),
            route("GET", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", self.channel_get),
            route("PATCH", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", self.channel_edit),
            route("DELETE", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", self.channel_delete),
            route("POST", r"/channels/(?P<cid>\d+)/typing", self.typing),
            route("GET", r"/guilds/(?P<guild>\d+)", self.get_guild),
            route("GET", r"/guilds/(?P<guild>\d+)/channels", self.guild_channels),
            route("GET", r"/guilds/(?P<guild>\d+)/roles", self.guild_roles),
            route("GET", r"/guilds/(?P<guild>\d+)/members/(?P<user_id>\d+)", self.get_member),
        ]

    @staticmethod
    def _route(method: str, pattern: str, handler: Handler,
               auth: bool = True) -> tuple[str, re.Pattern[str], Handler, bool]:
        return method, re.compile(f"^{pattern}$"), handler, auth

    # ----------------------------------------------------------------- faults (fail_next)

    def fail_next(self, method: str, path_regex: str, status: int = 429, retry_after: float = 0.5,
                  times: int = 1, *, mode: str = "refuse", content: str | None = None) -> Fault:
        """Answer the next `times` matching REST calls (with `content`: those whose message text
        matches it) otherwise: with `status` (429 carries retry_after), as `mode` says (see
        Fault)."""
        if mode not in ("refuse", "after", "drop", "hold"):
            raise ValueError(f"no fault mode {mode!r}")
        fault = Fault(method.upper(), re.compile(path_regex), status, retry_after, times, mode,
                      None if content is None else re.compile(content))
        self._faults.append(fault)
        if mode == "hold":
            self._held.append(fault)
        return fault

    def take_fault(self, method: str, path: str, body: Any = None) -> Fault | None:
        for fault in self._faults:
            if fault.matches(method, path, body):
                fault.times -= 1
                if fault.times == 0:
                    self._faults.remove(fault)
                return fault
        return None

    def release_held(self) -> None:
        """Let every held call go (the double is stopping)."""
        for fault in self._held:
            fault.release()

    # ----------------------------------------------------------------- plumbing

    async def handle(self, request: web.Request) -> web.StreamResponse:
        d = self.d
        m = API_PREFIX.match(request.path)
        path = m.group(1) if m else request.path
        call = Call(request.method, path, dict(request.query), None)
        record = RecordedRequest(call.method, path, None, asyncio.get_running_loop().time(),
                                 query=call.query)
        d.requests.append(record)
        response: web.StreamResponse
        try:
            await self._read_body(request, call)
            record.json = call.json
            record.files = [f[1] for f in call.files]
            fault = self.take_fault(call.method, path, call.json)
            if fault is None:
                response = await self._dispatch(request, call, m is not None)
            elif fault.mode == "hold":
                fault.held += 1
                d.store.changes.notify()
                await fault.released.wait()
                response = self._fault_response(fault)
            elif fault.mode in ("after", "drop"):
                # Done as asked; only the answer is lost.
                await self._dispatch(request, call, m is not None)
                if fault.mode == "drop" and request.transport is not None:
                    request.transport.close()
                response = self._fault_response(fault)
            else:
                response = self._fault_response(fault)
        except ApiError as err:
            if err.violation:
                d.violate(err.violation)
            response = json_response(err.body, status=err.status)
        record.status = response.status
        self._rate_headers(response, call)
        d.store.changes.notify()
        return response

    async def _dispatch(self, request: web.Request, call: Call, versioned: bool) -> web.StreamResponse:
        allowed: list[str] = []
        for method, pattern, handler, auth in self.routes if versioned else []:
            match = pattern.match(call.path)
            if match is None:
                continue
            if method != call.method:
                allowed.append(method)
                continue
            if auth:
                self._check_auth(request, call)
            result = await handler(call, **match.groupdict())
            if isinstance(result, web.StreamResponse):
                return result
            if result is None:
                return web.Response(status=204)
            return json_response(result)
        if allowed:
            raise ApiError(405, 0, "405: Method Not Allowed",
                           violation=f"{call.where}: method not allowed (Discord has {allowed})")
        raise ApiError(404, 0, "404: Not Found",
                       violation=f"{call.where}: route unknown to the double (and maybe to Discord)")

    def _check_auth(self, request: web.Request, call: Call) -> None:
        header = request.headers.get("Authorization")
        if header != f"Bot {self.d.token}":
            why = "no Authorization header" if header is None else "a wrong bot token"
            raise ApiError(401, 0, "401: Unauthorized", violation=f"{call.where}: {why}")

    async def _read_body(self, request: web.Request, call: Call) -> None:
        if not request.can_read_body:
            return
        ctype = request.content_type
        if ctype == "multipart/form-data":
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                name = getattr(part, "name", None) or ""
                raw = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    call.json = self._parse_json(call, raw)
                elif m := re.fullmatch(r"files\[(\d+)\]", name):
                    filename = getattr(part, "filename", None) or f"file{m.group(1)}"
                    content_type = part.headers.get("Content-Type", "application/octet-stream")
                    if content_type == "application/octet-stream":
                        content_type = mimetypes.guess_type(filename)[0] or content_type
                    call.files.append((int(m.group(1)), filename, content_type, bytes(raw)))
                else:
                    raise ApiError(400, 50035, "Invalid Form Body",
                                   violation=f"{call.where}: unexpected multipart field {name!r}")
        else:
            raw = await request.read()
            if raw:
                call.json = self._parse_json(call, raw)

    @staticmethod
    def _parse_json(call: Call, raw: bytes | bytearray) -> Any:
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise ApiError(400, 50109, "The request body contains invalid JSON.",
                           violation=f"{call.where}: body is not JSON") from exc

    def _rate_headers(self, response: web.StreamResponse, call: Call) -> None:
        # One bucket per route shape and major parameter, like Discord's X-RateLimit-Bucket.
        shape = re.sub(r"/\d{15,}", "/{id}", call.path)
        major = re.match(r"/(channels|guilds|webhooks|interactions)/(\d+)", call.path)
        key = f"{call.method} {shape} {major.group(2) if major else ''}"
        now = time.time()
        window = [t for t in self._buckets.get(key, []) if now - t < RATE_WINDOW]
        window.append(now)
        self._buckets[key] = window
        reset_after = RATE_WINDOW - (now - window[0])
        headers = response.headers
        headers["Via"] = "1.1 google"
        if response.status == 429:
            return
        headers["X-RateLimit-Limit"] = str(RATE_LIMIT)
        headers["X-RateLimit-Remaining"] = str(max(0, RATE_LIMIT - len(window)))
        headers["X-RateLimit-Reset"] = f"{now + reset_after:.3f}"
        headers["X-RateLimit-Reset-After"] = f"{reset_after:.3f}"
        headers["X-RateLimit-Bucket"] = hashlib.md5(key.encode()).hexdigest()

    @staticmethod
    def _fault_response(fault: Any) -> web.Response:
        if fault.status == 429:
            body = {"message": "You are being rate limited.", "retry_after": fault.retry_after,
                    "global": False}
            resp = json_response(body, status=429)
            resp.headers["Retry-After"] = str(max(1, math.ceil(fault.retry_after)))
            resp.headers["X-RateLimit-Scope"] = "user"
            resp.headers["X-RateLimit-Limit"] = str(RATE_LIMIT)
            resp.headers["X-RateLimit-Remaining"] = "0"
            resp.headers["X-RateLimit-Reset-After"] = f"{fault.retry_after:.3f}"
            return resp
        message = {500: "500: Internal Server Error", 502: "502: Bad Gateway",
                   503: "503: Service Unavailable"}.get(fault.status, f"{fault.status}: Error")
        return json_response({"message": message, "code": 0}, status=fault.status)

    async def attachment(self, request: web.Request) -> web.StreamResponse:
        att_id = request.match_info["attachment"]
        for msg in self.d.store.order:
            data = msg.attachment_data(att_id)
            if data is not None:
                ctype = next((a.get("content_type") for a in msg.payload["attachments"]
                              if str(a["id"]) == att_id), None)
                return web.Response(body=data, content_type=ctype or "application/octet-stream")
        return web.Response(status=404)

    # ----------------------------------------------------------------- identity

    async def get_me(self, call: Call) -> Any:
        return self.d.bot_user

    async def get_user(self, call: Call, user_id: str) -> Any:
        d = self.d
        if user_id == d.bot_user["id"]:
            return d.bot_user
        if user_id == d.owner["id"]:
            return d.owner
        member = d.members.get(user_id)
        if member is None:
            raise ApiError(404, 10013, "Unknown User", violation=f"{call.where}: unknown user")
        return member.user

    async def gateway_bot(self, call: Call) -> Any:
        return {"url": self.d.gateway_url, "shards": self.d.recommended_shards,
                "session_start_limit": {"total": 1000, "remaining": 999,
                                        "reset_after": 14400000, "max_concurrency": 1}}

    async def gateway_plain(self, call: Call) -> Any:
        return {"url": self.d.gateway_url}

    async def application(self, call: Call) -> Any:
        d = self.d
        return {
            "id": d.application_id, "name": "caro", "icon": None, "description": "",
            "summary": "", "type": None, "hook": True, "bot_public": True,
            "bot_require_code_grant": False, "verify_key": "0" * 64, "owner": d.owner,
            "flags": d.application_flags, "team": None, "rpc_origins": [],
            "interactions_endpoint_url": None, "role_connections_verification_url": None,
            "event_webhooks_url": None, "event_webhooks_status": 1, "tags": [],
            "install_params": None, "integration_types_config": {"0": {}},
            "approximate_guild_count": len(d.guild_ids), "approximate_user_install_count": 0,
            "redirect_uris": [], "bot": d.bot_user, "is_monetized": False,
        }

    # ----------------------------------------------------------------- commands

    def _check_app(self, call: Call, app: str) -> None:
        if app != self.d.application_id:
            raise ApiError(403, 50001, "Missing Access",
                           violation=f"{call.where}: application id {app} is not the bot's")

    def _check_guild(self, call: Call, guild: str | None) -> None:
        if guild is not None and guild not in self.d.guild_ids:
            raise ApiError(403, 50001, "Missing Access",
                           violation=f"{call.where}: the bot is not in guild {guild}")

    async def get_commands(self, call: Call, app: str, guild: str | None = None) -> Any:
        self._check_app(call, app)
        self._check_guild(call, guild)
        return self.d.commands.get(guild, [])

    async def put_commands(self, call: Call, app: str, guild: str | None = None) -> Any:
        self._check_app(call, app)
        self._check_guild(call, guild)
        errors = command_errors(call.json)
        if errors:
            raise invalid_form(call, errors)
        d = self.d
        previous = {(int(c.get("type", 1)), c["name"]): c for c in d.commands.get(guild, [])}
        stored = []
        for cmd in call.json:
            kind = int(cmd.get("type", 1))
            old = previous.get((kind, cmd["name"]))
            entry = {
                "id": old["id"] if old else d.ids.next(),
                "application_id": d.application_id,
                "version": d.ids.next(),
                "default_member_permissions": None,
                "type": kind,
                "name": cmd["name"],
                "name_localizations": None,
                "description": cmd.get("description", ""),
                "description_localizations": None,
                "dm_permission": True,
                "contexts": None,
                "integration_types": [0],
                "nsfw": False,
            } | {k: v for k, v in cmd.items() if v is not None}
            if guild is not None:
                entry["guild_id"] = guild
                entry.pop("dm_permission", None)
            stored.append(entry)
        d.commands[guild] = stored
        d.command_puts += 1
        return stored

    # ----------------------------------------------------------------- interactions

    def _interaction(self, call: Call, iid: str, token: str) -> Interaction:
        inter = self.d.interactions.get(iid)
        if inter is None or inter.token != token:
            raise ApiError(404, 10062, "Unknown interaction",
                           violation=f"{call.where}: no such interaction id/token")
        return inter

    async def callback(self, call: Call, iid: str, token: str) -> Any:
        d = self.d
        inter = self._interaction(call, iid, token)
        elapsed = d.clock.elapsed(inter.dispatched_at)
        if inter.acknowledged:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.",
                           violation=f"{inter.description}: second initial response "
                                     f"(type {self._type_of(call)}) after type {inter.callback_type}")
        if inter.failed or elapsed > d.response_deadline:
            if not inter.failed:
                inter.failed = True
                inter.done.set()
            raise ApiError(404, 10062, "Unknown interaction",
                           violation=f"{inter.description}: initial response after {elapsed:.2f} s "
                                     f"(limit {d.response_deadline:g} s)")
        body = call.json if isinstance(call.json, dict) else {}
        kind = self._type_of(call)
        data = body.get("data") or {}
        allowed = {4, 5, 9}
        if d.is_component_message_interaction(inter):
            allowed |= {6, 7}
        if inter.kind == MODAL_SUBMIT:
            allowed.discard(9)
        if inter.kind == AUTOCOMPLETE:
            allowed = {8}
        if kind not in allowed:
            raise invalid_form(call, [FieldError(("type",), "INTERACTION_RESPONSE_TYPE_INVALID",
                                                 f"Response type {kind} is not valid for a "
                                                 f"{inter.description.split(' ', 1)[1]} "
                                                 f"(allowed: {sorted(allowed)})")])
        if kind in (4, 7):
            errors = message_errors(data, creating=kind == 4, files=len(call.files))
            if errors:
                raise invalid_form(call, errors, ("data",))
        elif kind == 9:
            errors = modal_errors(data)
            if errors:
                raise invalid_form(call, errors, ("data",))
        elif kind == 8:
            errors = choice_errors(data)
            if errors:
                raise invalid_form(call, errors, ("data",))
        self._check_files(call)
        member_id = inter.user_id
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        if kind == 4:
            atts, files = self._attachments(call, data, inter.channel_id, None)
            inter.original = d.new_message(
                inter.channel_id, data, attachments=atts, files=files,
                visible_to=member_id if ephemeral else None,
                msg_type=20 if inter.kind == APPLICATION_COMMAND else 0, interaction=inter)
        elif kind == 5:
            inter.original = d.new_message(
                inter.channel_id, {"content": ""}, attachments=[], files={},
                visible_to=member_id if ephemeral else None,
                msg_type=20 if inter.kind == APPLICATION_COMMAND else 0, interaction=inter,
                extra_flags=LOADING)
        elif kind in (6, 7):
            inter.original = inter.source_message
            if kind == 7 and inter.source_message is not None:
                atts, files = self._attachments(call, data, inter.channel_id, inter.source_message)
                d.edit_message(inter.source_message, data, attachments=atts, files=files)
        elif kind == 9:
            inter.modal = data
            d.remember_modal(member_id, data)
        inter.callback_type = kind
        inter.response_data = data
        inter.done.set()
        if call.query.get("with_response") not in ("true", "1", "True"):
            return None
        return self._callback_response(inter)

    @staticmethod
    def _type_of(call: Call) -> Any:
        return call.json.get("type") if isinstance(call.json, dict) else None

    def _callback_response(self, inter: Interaction) -> dict[str, Any]:
        info: dict[str, Any] = {"id": inter.id, "type": inter.kind}
        out: dict[str, Any] = {"interaction": info}
        kind = inter.callback_type
        msg = inter.original
        if msg is not None and kind in (4, 5, 7):
            info["response_message_id"] = msg.id
            info["response_message_loading"] = kind == 5
            info["response_message_ephemeral"] = msg.ephemeral
            out["resource"] = {"type": kind, "message": msg.snapshot()}
        return out

    def _check_files(self, call: Call) -> None:
        size = sum(len(f[3]) for f in call.files)
        if size > 10 * 1024 * 1024:
            raise ApiError(413, 40005, "Request entity too large",
                           violation=f"{call.where}: {size} bytes of files (limit 10 MiB)")

    def _attachments(self, call: Call, data: dict[str, Any], channel_id: str,
                     existing: Message | None) -> tuple[list[dict[str, Any]], dict[str, bytes]]:
        """The message's attachment list after this call, and the bytes of the new files."""
        new_by_index = {f[0]: f for f in call.files}
        files: dict[str, bytes] = {}
        kept = list(existing.payload.get("attachments") or []) if existing is not None else []

        def upload(index: int, description: Any) -> dict[str, Any]:
            _, filename, ctype, raw = new_by_index[index]
            att_id = self.d.ids.next()
            files[att_id] = raw
            url = f"http://127.0.0.1:{self.d.port}/attachments/{channel_id}/{att_id}/{filename}"
            att = {"id": att_id, "filename": filename, "size": len(raw), "url": url,
                   "proxy_url": url, "content_type": ctype}
            if description:
                att["description"] = description
            return att

        if "attachments" in data and data["attachments"] is not None:
            out = []
            by_id = {str(a["id"]): a for a in kept}
            for entry in data["attachments"]:
                ident = str(entry.get("id"))
                if ident in by_id:
                    out.append(by_id[ident])
                elif ident.isdigit() and int(ident) in new_by_index:
                    out.append(upload(int(ident), entry.get("description")))
            return out, files
        if existing is not None and not call.files:
            return kept, files
        return kept + [upload(i, None) for i in sorted(new_by_index)], files

    def _webhook_interaction(self, call: Call, app: str, token: str) -> Interaction:
        d = self.d
        inter = d.interactions_by_token.get(token)
        if inter is None or app != d.application_id:
            raise ApiError(404, 10015, "Unknown Webhook",
                           violation=f"{call.where}: no interaction webhook with that token")
        age = d.clock.elapsed(inter.dispatched_at)
        if age > d.token_lifetime:
            raise ApiError(401, 50027, "Invalid Webhook Token",
                           violation=f"{inter.description}: webhook used {age:.0f} s after the "
                                     f"interaction (tokens last {d.token_lifetime:g} s)")
        if not inter.acknowledged:
            raise ApiError(404, 10015, "Unknown Webhook",
                           violation=f"{inter.description}: {call.method} on the interaction "
                                     "webhook before any initial response")
        return inter

    async def followup(self, call: Call, app: str, token: str) -> Any:
        d = self.d
        inter = self._webhook_interaction(call, app, token)
        data = call.json if isinstance(call.json, dict) else {}
        errors = message_errors(data, creating=True, files=len(call.files))
        if errors:
            raise invalid_form(call, errors)
        self._check_files(call)
        original = inter.original
        if inter.callback_type == 5 and original is not None and original.loading \
                and not original.deleted:
            # Discord fills the "thinking" placeholder with the first follow-up.
            atts, files = self._attachments(call, data, inter.channel_id, original)
            body = {k: v for k, v in data.items() if k != "flags"}
            d.edit_message(original, body, attachments=atts, files=files)
            message = original
        else:
            atts, files = self._attachments(call, data, inter.channel_id, None)
            ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
            message = d.new_message(inter.channel_id, data, attachments=atts, files=files,
                                    visible_to=inter.user_id if ephemeral else None,
                                    interaction=inter)
        inter.followups.append(message)
        if call.query.get("wait") in ("1", "true", "True"):
            return message.snapshot()
        return None

    def _webhook_message(self, call: Call, inter: Interaction, mid: str) -> Message:
        if mid == "@original":
            msg = inter.original
        else:
            candidates = [inter.original, inter.source_message, *inter.followups]
            msg = next((m for m in candidates if m is not None and m.id == mid), None)
        if msg is None or msg.deleted:
            raise ApiError(404, 10008, "Unknown Message",
                           violation=f"{inter.description}: {call.method} webhook message {mid} "
                                     "that does not exist (or was deleted)")
        return msg

    async def webhook_get(self, call: Call, app: str, token: str, mid: str) -> Any:
        inter = self._webhook_interaction(call, app, token)
        return self._webhook_message(call, inter, mid).snapshot()

    async def webhook_edit(self, call: Call, app: str, token: str, mid: str) -> Any:
        inter = self._webhook_interaction(call, app, token)
        msg = self._webhook_message(call, inter, mid)
        data = call.json if isinstance(call.json, dict) else {}
        errors = message_errors(self._merged_flags(msg, data), creating=False)
        if errors:
            raise invalid_form(call, errors)
        self._check_files(call)
        atts, files = self._attachments(call, data, msg.channel_id, msg)
        self.d.edit_message(msg, data, attachments=atts, files=files)
        return msg.snapshot()

    async def webhook_delete(self, call: Call, app: str, token: str, mid: str) -> Any:
        inter = self._webhook_interaction(call, app, token)
        self.d.delete_message(self._webhook_message(call, inter, mid))
        return None

    @staticmethod
    def _merged_flags(msg: Message, data: dict[str, Any]) -> dict[str, Any]:
        # An edit is judged with the message's V2 flag, which cannot be removed once set.
        flags = int(data.get("flags") or 0) | (msg.flags & (1 << 15))
        return data | {"flags": flags}

    # ----------------------------------------------------------------- channels and guild

    def _channel(self, call: Call, cid: str) -> dict[str, Any]:
        channel = self.d.channels.get(cid)
        if channel is None:
            raise ApiError(404, 10003, "Unknown Channel", violation=f"{call.where}: unknown channel")
        return channel

    def _channel_message(self, call: Call, cid: str, mid: str) -> Message:
        self._channel(call, cid)
        msg = self.d.store.get(mid)
        if msg is None or msg.deleted or msg.channel_id != cid or msg.visible_to is not None:
            raise ApiError(404, 10008, "Unknown Message",
                           violation=f"{call.where}: no such message in the channel "
                                     "(ephemeral messages are not reachable this way)")
        return msg

    async def get_channel(self, call: Call, cid: str) -> Any:
        return self._channel(call, cid)

    async def channel_history(self, call: Call, cid: str) -> Any:
        self._channel(call, cid)
        history = self.d.store.channel_history(cid)
        before, after = call.query.get("before"), call.query.get("after")
        if before:
            history = [m for m in history if int(m.id) < int(before)]
        if after:
            history = [m for m in history if int(m.id) > int(after)]
        limit = max(1, min(100, int(call.query.get("limit", 50))))
        picked = history[:limit] if after else history[-limit:]
        return [m.snapshot() for m in reversed(picked)]

    async def channel_post(self, call: Call, cid: str) -> Any:
        self._channel(call, cid)
        data = call.json if isinstance(call.json, dict) else {}
        errors = message_errors(data, creating=True, files=len(call.files))
        errors += nonce_errors(data)
        if errors:
            if any(e.code == "EMPTY_MESSAGE" for e in errors) and len(errors) == 1:
                raise ApiError(400, 50006, "Cannot send an empty message",
                               violation=f"{call.where}: empty message")
            raise invalid_form(call, errors)
        author = str(self.d.bot_user["id"])
        nonce = data.get("nonce")
        if nonce is not None and data.get("enforce_nonce"):
            # As Discord documents it: the message this author made with this nonce in the past
            # few minutes comes back, and no new one is made.
            made = self.d.message_by_nonce(author, str(nonce))
            if made is not None:
                return made.snapshot()
        self._check_files(call)
        atts, files = self._attachments(call, data, cid, None)
        message = self.d.new_message(cid, data, attachments=atts, files=files)
        if nonce is not None:
            message.payload["nonce"] = nonce
            self.d.remember_nonce(author, str(nonce), message)
        return message.snapshot()

    async def channel_get(self, call: Call, cid: str, mid: str) -> Any:
        return self._channel_message(call, cid, mid).snapshot()

    async def channel_edit(self, call: Call, cid: str, mid: str) -> Any:
        msg = self._channel_message(call, cid, mid)
        if msg.author_id != self.d.bot_user["id"]:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user",
                           violation=f"{call.where}: editing someone else's message")
        data = call.json if isinstance(call.json, dict) else {}
        errors = message_errors(self._merged_flags(msg, data), creating=False)
        if errors:
            raise invalid_form(call, errors)
        self._check_files(call)
        atts, files = self._attachments(call, data, cid, msg)
        self.d.edit_message(msg, data, attachments=atts, files=files)
        return msg.snapshot()

    async def channel_delete(self, call: Call, cid: str, mid: str) -> Any:
        msg = self._channel_message(call, cid, mid)
        if msg.author_id != self.d.bot_user["id"]:
            raise ApiError(403, 50013, "Missing Permissions",
                           violation=f"{call.where}: deleting someone else's message needs "
                                     "MANAGE_MESSAGES")
        self.d.delete_message(msg)
        return None

    async def typing(self, call: Call, cid: str) -> Any:
        self._channel(call, cid)
        return None

    def _guild(self, call: Call, guild: str) -> None:
        if guild not in self.d.guild_ids:
            raise ApiError(404, 10004, "Unknown Guild", violation=f"{call.where}: unknown guild")

    async def get_guild(self, call: Call, guild: str) -> Any:
        self._guild(call, guild)
        payload = self.d.guild_payload(guild)
        if call.query.get("with_counts") in ("1", "true"):
            count = len(self.d.all_member_payloads(guild))
            payload |= {"approximate_member_count": count, "approximate_presence_count": count}
        return payload

    async def guild_channels(self, call: Call, guild: str) -> Any:
        self._guild(call, guild)
        return self.d.guild_channels(guild)

    async def guild_roles(self, call: Call, guild: str) -> Any:
        self._guild(call, guild)
        return list(self.d.guilds[guild].roles)

    async def get_member(self, call: Call, guild: str, user_id: str) -> Any:
        self._guild(call, guild)
        d = self.d
        if user_id == d.bot_user["id"]:
            return d.bot_member_payload(guild)
        member = d.members.get(user_id)
        if member is None or guild not in member.guild_ids:
            # No violation: a bot cannot know that a member left without the privileged
            # GUILD_MEMBERS intent, and asking is how it finds out.
            raise ApiError(404, 10007, "Unknown Member")
        return member.member_payload()
