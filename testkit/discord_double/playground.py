"""The playground: try caro with no Discord account.

    python -m testkit.discord_double.playground [--port 8080] [--db games.db]
        [--member name[:locale][:manager]]

starts the Discord double, the real bot process (`python -m bot`, unmodified, pointed at the double
through DISCORD_API_BASE / DISCORD_GATEWAY_URL) and a small web page on 127.0.0.1 showing the
double's channel the way a Discord client would: messages, embeds, board pictures, buttons,
private (ephemeral) replies and forms. In the page you act as any member: type slash commands
with their options (`/caro start difficulty:hard size:15x15`, or under their Vietnamese names as a
Vietnamese client shows them: `/caro bắt-đầu độ-khó:hard`), click buttons, fill in forms. One
member, the server's manager, has Manage Server: server settings and organising tournaments.

The page talks to this process in JSON:
    GET  /api/world                       members, channels, the registered commands
    GET  /api/messages?viewer=ID&channel=ID   what that member sees there, oldest first
    POST /api/slash    {viewer, channel, text}            -> {result} or {error}
    POST /api/click    {viewer, message, custom_id}       -> {result} or {error}
    POST /api/modal    {viewer, message, custom_id, values} -> {result} or {error}
    POST /api/autocomplete {viewer, channel, text}      -> {option, choices} the bot suggests
    POST /api/members  {name, locale, manager}             -> the new member
A result carries the callback type and, for a form (type 9), the modal to show.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shlex
import signal
import socket
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from testkit.discord_double.commands import (
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    USER,
    find_command,
)
from testkit.discord_double.interactions import InteractionFailed, InteractionResult
from testkit.discord_double.members import Member
from testkit.discord_double.server import DiscordDouble
from testkit.discord_double.state import Message

PAGE = Path(__file__).with_name("playground.html")
TOKEN = "playground-token"
DEFAULT_MEMBERS = ("alice:en-US", "bob:en-GB", "linh:vi", "mai:en-US:manager")
# Discord's Manage Server permission (MANAGE_GUILD): the server's settings, roles, tournaments.
MANAGE_SERVER = 1 << 5
# The words a Discord client writes around the messages, in its own language: the playground is
# that client, so the viewer's. They are the client's, not the bot's, so not in its catalogue.
CLIENT_WORDS = {
    "en": {"used": "used", "only_you": "Only you can see this", "thinking": "is thinking…"},
    "vi": {
        "used": "đã dùng",
        "only_you": "Chỉ bạn nhìn thấy tin nhắn này",
        "thinking": "đang suy nghĩ…",
    },
}
MANAGER = "manager"
# Settings passed on to the bot from the playground's own environment (the rest is the
# playground's: token, endpoints, guild, database).
PASSED_SETTINGS = ("CARO_AI_TIME_LIMIT", "CARO_AI_WORKERS", "CARO_LOG_LEVEL",
                   "CARO_CHALLENGE_SECONDS", "CARO_WATCH_DELAY_SECONDS")


class PlaygroundError(Exception):
    """Something the person typed that a Discord client would not send; shown in the page."""


def add_member(double: DiscordDouble, name: str, locale: str, *, manager: bool) -> Member:
    """A member of the server; a manager has Manage Server, as an owner or a moderator would."""
    member = double.add_member(name, locale=locale or "en-US")
    if manager:
        member.permissions = str(int(member.permissions) | MANAGE_SERVER)
    return member


def member_spec(spec: str) -> tuple[str, str, bool]:
    """"name[:locale][:manager]" -> (name, locale, manager)."""
    name, _, rest = spec.partition(":")
    locale, _, flag = rest.partition(":")
    if locale == MANAGER and not flag:
        locale, flag = "", MANAGER
    if flag not in ("", MANAGER):
        raise ValueError(f"{spec!r}: the third part can only be {MANAGER!r}")
    return name.strip().lower(), locale or "en-US", flag == MANAGER


@dataclass
class BotProcess:
    """The real bot, as a child process talking to the double; its output goes to a log file."""

    double: DiscordDouble
    workdir: Path
    db_path: Path
    extra_env: dict[str, str]
    process: asyncio.subprocess.Process | None = None

    @property
    def log_path(self) -> Path:
        return self.workdir / "bot.log"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "CARO_"))}
        env.update({k: os.environ[k] for k in PASSED_SETTINGS if k in os.environ})
        env.update(
            DISCORD_TOKEN=self.double.token,
            DISCORD_API_BASE=self.double.api_base,
            DISCORD_GATEWAY_URL=self.double.gateway_url,
            DISCORD_GUILD_ID=self.double.guild_id,
            CARO_DB=str(self.db_path),
            PYTHONUNBUFFERED="1",
        )
        env.update(self.extra_env)
        # The bot must import from this checkout even though it runs in its own directory.
        root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        return env

    async def start(self, timeout: float = 60) -> None:
        self.double.reset_ready()
        with open(self.log_path, "ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.workdir, env=self.env(), stdout=log,
                stderr=asyncio.subprocess.STDOUT, stdin=asyncio.subprocess.DEVNULL)
        ready = asyncio.ensure_future(self.double.wait_ready(timeout=timeout))
        exited = asyncio.ensure_future(self.process.wait())
        await asyncio.wait({ready, exited}, return_when=asyncio.FIRST_COMPLETED)
        exited.cancel()
        if not ready.done() or ready.exception() is not None:
            ready.cancel()
            log_text = self.log_path.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the bot did not come up (exit code {self.process.returncode})"
                               f"\n--- bot log ---\n{log_text}")

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.returncode is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 20)
        except TimeoutError:
            process.kill()
            await process.wait()


class Playground:
    def __init__(self, double: DiscordDouble, bot: BotProcess | None) -> None:
        self.double = double
        self.bot = bot
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        app = web.Application()
        app.router.add_get("/", self.page)
        app.router.add_get("/api/world", self.world)
        app.router.add_get("/api/messages", self.messages)
        app.router.add_post("/api/slash", self.slash)
        app.router.add_post("/api/click", self.click)
        app.router.add_post("/api/modal", self.modal)
        app.router.add_post("/api/members", self.add_member)
        app.router.add_post("/api/autocomplete", self.autocomplete)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ----------------------------------------------------------------- views

    async def page(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(PAGE, headers={"Cache-Control": "no-store"})

    async def world(self, request: web.Request) -> web.StreamResponse:
        d = self.double
        guild = d.guilds[d.guild_id]
        commands = d.commands.get(d.guild_id, []) + d.commands.get(None, [])
        return web.json_response({
            "guild": {"id": guild.id, "name": guild.name},
            "bot": {"id": d.bot_user["id"], "name": d.bot_user["username"]},
            "members": [self._member_json(m) for m in d.members.values()],
            "channels": [{"id": c["id"], "name": c["name"]} for c in d.guild_channels()],
            "commands": [c for c in commands if int(c.get("type", 1)) == 1],
            "violations": len(d.violations),
        })

    async def messages(self, request: web.Request) -> web.StreamResponse:
        viewer = self._member(request.query.get("viewer"))
        channel = request.query.get("channel") or self.double.channel_id
        shown = [self._message_json(m, viewer.locale) for m in viewer.messages(channel)]
        return web.json_response({"messages": shown, "client": client_words(viewer.locale)})

    async def add_member(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        name = str(body.get("name", "")).strip().lower()
        if not name.isidentifier() or len(name) > 32:
            return web.json_response({"error": "a member name is one word of letters"})
        if any(m.name == name for m in self.double.members.values()):
            return web.json_response({"error": f"there is already a member {name}"})
        member = add_member(self.double, name, str(body.get("locale") or "en-US"),
                            manager=bool(body.get("manager")))
        return web.json_response(self._member_json(member))

    # ----------------------------------------------------------------- actions

    async def slash(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        return await self._act(lambda: self._run_slash(body))

    async def click(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)

        async def run() -> InteractionResult:
            member = self._member(body.get("viewer"))
            message = self._message(body.get("message"))
            return await member.click(message, str(body.get("custom_id")))

        return await self._act(run)

    async def modal(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)

        async def run() -> InteractionResult:
            member = self._member(body.get("viewer"))
            message = self._message(body["message"]) if body.get("message") else None
            values = body.get("values")
            if not isinstance(values, dict):
                raise PlaygroundError("a form submission needs its values")
            return await member.submit_modal(message, str(body.get("custom_id")),
                                             {str(k): v for k, v in values.items()})

        return await self._act(run)

    async def autocomplete(self, request: web.Request) -> web.StreamResponse:
        """What the bot suggests for the option being typed (Discord asks as you type)."""
        body = await self._body(request)
        member = self._member(body.get("viewer"))
        partial = parse_partial(self.double, str(body.get("text", "")))
        if partial is None:
            return web.json_response({"choices": []})
        path, focused, options = partial
        channel = str(body.get("channel") or self.double.channel_id)
        try:
            result = await member.autocomplete(path, focused, channel_id=channel, **options)
        except (InteractionFailed, AssertionError) as exc:
            return web.json_response({"choices": [], "error": str(exc)})
        return web.json_response({"option": focused,
                                  "choices": (result.data or {}).get("choices") or []})

    async def _run_slash(self, body: dict[str, Any]) -> InteractionResult:
        member = self._member(body.get("viewer"))
        channel = str(body.get("channel") or self.double.channel_id)
        path, options = parse_slash(self.double, str(body.get("text", "")))
        return await member.slash(path, channel_id=channel, **options)

    async def _act(self, run: Any) -> web.StreamResponse:
        try:
            result = await run()
        except InteractionFailed:
            return web.json_response({"error": "This interaction failed"})
        except (PlaygroundError, AssertionError) as exc:
            return web.json_response({"error": str(exc)})
        out: dict[str, Any] = {"callback_type": result.callback_type,
                               "ephemeral": result.ephemeral}
        if result.modal is not None:
            out["modal"] = result.modal
        return web.json_response({"result": out})

    # ----------------------------------------------------------------- helpers

    @staticmethod
    async def _body(request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except ValueError:
            body = None
        return body if isinstance(body, dict) else {}

    def _member(self, member_id: Any) -> Member:
        member = self.double.members.get(str(member_id))
        if member is None:
            raise web.HTTPBadRequest(text=f"no member {member_id}")
        return member

    def _message(self, message_id: Any) -> Message:
        message = self.double.store.get(str(message_id))
        if message is None or message.deleted:
            raise PlaygroundError("that message is gone")
        return message

    @staticmethod
    def _member_json(member: Member) -> dict[str, Any]:
        return {"id": member.id, "name": member.name, "locale": member.locale,
                "manager": bool(int(member.permissions) & MANAGE_SERVER)}

    def _message_json(self, message: Message, locale: str) -> dict[str, Any]:
        """A message as a client in `locale` shows it."""
        payload = message.snapshot()
        meta = payload.get("interaction_metadata") or {}
        user = meta.get("user") or {}
        out: dict[str, Any] = {
            "id": message.id, "content": payload.get("content") or "",
            "embeds": payload.get("embeds") or [], "components": payload.get("components") or [],
            "attachments": [{k: a.get(k) for k in ("id", "filename", "url", "content_type")}
                            for a in payload.get("attachments") or []],
            "flags": message.flags, "ephemeral": message.ephemeral, "loading": message.loading,
            "edited": payload.get("edited_timestamp") is not None,
            "timestamp": payload.get("timestamp"),
            "author": (payload.get("author") or {}).get("username"),
        }
        interaction = self.double.interactions.get(str(meta.get("id")))
        if meta.get("type") == 2 and user and interaction is not None:
            commands = [c for cmds in self.double.commands.values() for c in cmds]
            name = command_path(interaction.payload["data"], commands, locale)
            out["command"] = {"user": user.get("username"), "name": name}
        return out


# --------------------------------------------------------------------- typed slash commands


def command_path(
    data: dict[str, Any], commands: list[dict[str, Any]] | None = None, locale: str = "en-US"
) -> str:
    """"caro start" from a slash command's data: its name and the subcommands chosen, as Discord
    shows above the reply ("alice used /caro start"), named as a client in `locale` names them
    from the registered `commands` ("linh đã dùng /caro bắt-đầu")."""
    words = [str(data.get("name", ""))]
    options = data.get("options") or []
    while options and options[0].get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP):
        words.append(str(options[0].get("name", "")))
        options = options[0].get("options") or []
    shown: list[str] = []
    level = [c for c in commands or [] if int(c.get("type", 1)) == 1]
    for word in words:
        entry = next((e for e in level if e.get("name") == word), None)
        shown.append(word if entry is None else shown_name(entry, locale))
        level = (entry or {}).get("options") or []
    return " ".join(shown)


def shown_name(entry: dict[str, Any], locale: str) -> str:
    """A command's or option's name as a client in `locale` shows it."""
    names = entry.get("name_localizations") or {}
    return str(names.get(locale) or names.get(locale.split("-")[0]) or entry["name"])


def client_words(locale: str) -> dict[str, str]:
    """The client's own words in `locale`, English where the playground has no translation."""
    return CLIENT_WORDS.get(locale.split("-")[0], CLIENT_WORDS["en"])


def parse_slash(double: DiscordDouble, text: str) -> tuple[str, dict[str, Any]]:
    """"/caro start difficulty:hard size:15x15" -> ("caro start", {...}) typed from the schema.

    Words before the first `name:` are the command path; an option's value runs to the next
    `name:` (quotes allowed), the way Discord's own input reads a typed command.
    """
    path, level, raw = _read_slash(double, text)
    schema = {o["name"]: o for o in level}
    options = {name: _typed(double, schema[name], value) for name, value in raw.items()}
    missing = [o["name"] for o in level if o.get("required") and o["name"] not in options]
    if missing:
        raise PlaygroundError(f"/{path} needs {', '.join(missing)}")
    return path, options


def parse_partial(double: DiscordDouble, text: str) -> tuple[str, str, dict[str, Any]] | None:
    """A command being typed whose last option has autocomplete: (path, that option, options
    with its partial text); None when the last thing typed is not such an option."""
    try:
        path, level, raw = _read_slash(double, text)
    except PlaygroundError:
        return None
    if not raw:
        return None
    focused = list(raw)[-1]
    schema = {o["name"]: o for o in level}
    if not schema[focused].get("autocomplete"):
        return None
    options: dict[str, Any] = {focused: raw[focused]}
    for name, value in raw.items():
        if name != focused:
            with contextlib.suppress(PlaygroundError):
                options[name] = _typed(double, schema[name], value)
    return path, focused, options


def _names(entry: dict[str, Any]) -> set[str]:
    """What a member may type for a command, option or choice: its name, or its name in any
    language the bot gave it (a Discord client shows and takes its member's language's)."""
    return {str(entry["name"]), *(str(n) for n in (entry.get("name_localizations") or {}).values())}


def _read_slash(double: DiscordDouble,
                text: str) -> tuple[str, list[dict[str, Any]], dict[str, str]]:
    """The command path, the schema of its options, and each typed option's raw text, under
    their registered names whichever language they were typed in."""
    try:
        words = shlex.split(text.strip().lstrip("/"))
    except ValueError as exc:
        raise PlaygroundError(f"cannot read that command: {exc}") from None
    if not words:
        raise PlaygroundError("type a command, e.g. /caro start difficulty:easy")
    path: list[str] = []
    raw: dict[str, str] = {}
    current: str | None = None
    for word in words:
        name, sep, value = word.partition(":")
        if sep and name.replace("_", "").replace("-", "").isalnum() and name.islower():
            current = name
            raw[name] = value
        elif current is None:
            path.append(word)
        else:
            raw[current] = f"{raw[current]} {word}".strip()
    if not path:
        raise PlaygroundError("type the command before its options, e.g. /caro start")
    top = next((c for cmds in double.commands.values() for c in cmds
                if int(c.get("type", 1)) == 1 and path[0] in _names(c)), None)
    try:
        cmd, _scope = find_command(double, top["name"] if top else path[0])
    except AssertionError as exc:
        raise PlaygroundError(str(exc)) from None
    level: list[dict[str, Any]] = cmd.get("options") or []
    registered = [str(cmd["name"])]
    for word in path[1:]:
        sub = next((o for o in level if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)
                    and word in _names(o)), None)
        if sub is None:
            names = [o["name"] for o in level if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
            raise PlaygroundError(f"/{' '.join(path)}: no subcommand {word!r} (try: "
                                  f"{', '.join(names) or 'no subcommands'})")
        registered.append(str(sub["name"]))
        level = sub.get("options") or []
    if any(o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in level):
        names = [o["name"] for o in level]
        raise PlaygroundError(f"/{' '.join(path)} needs a subcommand: {', '.join(names)}")
    aliases = {typed: str(o["name"]) for o in level for typed in _names(o)}
    for name in raw:
        if name not in aliases:
            schema = [str(o["name"]) for o in level]
            raise PlaygroundError(f"/{' '.join(path)} has no option {name!r} (it has: "
                                  f"{', '.join(schema) or 'none'})")
    return " ".join(registered), level, {aliases[name]: value for name, value in raw.items()}


def _typed(double: DiscordDouble, opt: dict[str, Any], value: str) -> Any:
    kind, name = opt["type"], opt["name"]
    for choice in opt.get("choices") or []:
        # A client picks a choice by the name it shows, and sends its value.
        if value.casefold() in {n.casefold() for n in _names(choice)}:
            return choice["value"]
    try:
        if kind == INTEGER:
            return int(value)
        if kind == NUMBER:
            return float(value)
    except ValueError:
        raise PlaygroundError(f"{name}: {value!r} is not a number") from None
    if kind == BOOLEAN:
        if value.lower() not in ("true", "false", "yes", "no"):
            raise PlaygroundError(f"{name}: true or false, not {value!r}")
        return value.lower() in ("true", "yes")
    if kind in (USER, MENTIONABLE):
        wanted = value.lstrip("@").strip("<>@!").lower()
        for member in double.members.values():
            if wanted in (member.name, member.id):
                return member
        raise PlaygroundError(f"{name}: no member {value!r}")
    if kind == CHANNEL:
        wanted = value.lstrip("#")
        for channel in double.channels.values():
            if wanted in (channel["name"], channel["id"]):
                return channel["id"]
        raise PlaygroundError(f"{name}: no channel {value!r}")
    return value


# --------------------------------------------------------------------- command line


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m testkit.discord_double.playground",
        description="Try caro in a browser: a local Discord double, the real bot, and a page "
                    "showing the channel. Nothing reaches Discord.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address the page listens on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8080,
                        help="port of the page (default 8080; 0 picks a free one)")
    parser.add_argument("--db", type=Path, default=None,
                        help="SQLite file to keep games in across runs (default: a temporary one)")
    parser.add_argument("--member", action="append", default=None,
                        metavar="NAME[:LOCALE][:manager]",
                        help="a member to act as (repeatable; default: alice, bob, linh who "
                             "speaks Vietnamese, and mai who has Manage Server); ':manager' "
                             "gives Manage Server")
    args = parser.parse_args(argv)
    for spec in args.member or ():
        try:
            member_spec(spec)
        except ValueError as exc:
            parser.error(f"--member {exc}")
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port}: a port is 0..65535")
    return args


async def run(args: argparse.Namespace, *, ready: asyncio.Event | None = None,
              stop: asyncio.Event | None = None) -> Playground:
    """Start the double, the bot and the page; serve until `stop` (or SIGINT/SIGTERM)."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    with tempfile.TemporaryDirectory(prefix="caro-playground-") as tmp:
        workdir = Path(tmp)
        db_path = args.db.resolve() if args.db else workdir / "playground.db"
        async with DiscordDouble(token=TOKEN) as double:
            for spec in args.member or DEFAULT_MEMBERS:
                name, locale, manager = member_spec(spec)
                add_member(double, name, locale, manager=manager)
            bot = BotProcess(double, workdir, db_path, {})
            playground = Playground(double, bot)
            try:
                # The page's port first: a busy one is refused before the bot is started.
                await playground.start(args.host, args.port)
                await bot.start()
                print(f"caro playground: open {playground.url} (Ctrl+C stops it)", flush=True)
                if ready is not None:
                    ready.set()
                await stop.wait()
            finally:
                await playground.stop()
                await bot.stop()
        return playground


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        asyncio.run(run(args))
    except RuntimeError as exc:
        print(f"caro playground: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"caro playground: cannot listen on {args.host}:{args.port}: {exc.strerror}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
