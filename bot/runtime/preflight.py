"""Checks before the bot connects to Discord, and the one-line messages for what Discord refuses.

A database that cannot be opened is found here, naming the path and CARO_DB (or the URL and
CARO_DATABASE_URL), rather than as `sqlite3.OperationalError` or an asyncpg error after logging
in. The database is only read here (an SQLite file opened read-only, never created; a PostgreSQL
server logged in to and asked its schema version): the storage layer creates and migrates it
once the checks pass. The operator's external engine (CARO_ENGINE_CMD) is started once and asked
the protocol's START, so a command that cannot play is found here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import socket
import sqlite3
import tempfile
from dataclasses import replace
from urllib.parse import parse_qs, urlsplit

import aiohttp
import asyncpg  # type: ignore[import-untyped]

from bot.game.levels import ExternalEngineSettings
from bot.game.ports import StorageError
from bot.runtime.logs import one_line, redact
from bot.storage import is_postgres_url, sqlite_path
from bot.storage.postgres import MIGRATIONS_DIR as POSTGRES_MIGRATIONS
from bot.storage.postgres.connection import connect_reason, shown_dsn
from bot.storage.sqlite import migration_files
from engine import Rule
from engine.players.external import ExternalEngine, ExternalEngineError

SQLITE_HEADER = b"SQLite format 3\x00"
# The tables every caro SQLite database has had since its first schema version.
CARO_TABLES = frozenset({"games", "moves", "results"})
CONNECT_TIMEOUT = 10.0
INVITE_SCOPES = "bot+applications.commands"
# Send Messages, Embed Links, Attach Files: what README "Running the bot" asks for.
INVITE_PERMISSIONS = 2048 + 16384 + 32768


class PreflightError(Exception):
    """A setting points somewhere unusable (exit 2); the message names the setting."""


class DatabaseUnreachable(PreflightError):
    """Nothing answered at the database's address (exit 1, not 2): the setting may well be
    right and the server down or not started yet, so a supervisor that starts the bot again on
    a failure (systemd's Restart=on-failure with RestartPreventExitStatus=2) brings it back once
    the database is up."""


class Unreachable(Exception):
    """Discord (or what a setting points at) could not be reached (exit 1)."""


def check_database(path: str) -> None:
    """Refuse a database (CARO_DB, or CARO_DATABASE_URL) the bot could not open, write or
    migrate, in one line."""
    if "://" in path:
        if is_postgres_url(path):
            check_postgres(path)
            return
        try:
            path = str(sqlite_path(path))
        except StorageError as exc:
            raise PreflightError(f"Setting CARO_DATABASE_URL is invalid: {exc}") from None
        check_sqlite(path, "CARO_DATABASE_URL")
        return
    check_sqlite(path, "CARO_DB")


def check_postgres(url: str) -> None:
    """Refuse a PostgreSQL database the bot could not reach, log in to, or use (a schema newer
    than this version of caro), in one line without the password."""
    shown = shown_dsn(url)
    try:
        version = asyncio.run(_postgres_schema_version(url))
    except (OSError, TimeoutError) as exc:
        # Nothing answered: the URL may well be right and the server down, so this is not
        # reported as an invalid setting.
        question = "is the host name right?" if isinstance(exc, socket.gaierror) else (
            "is it running?")
        raise DatabaseUnreachable(
            f"Cannot reach PostgreSQL at {postgres_address(url)} ({unreached_reason(exc)}): "
            f"{question} (CARO_DATABASE_URL is {shown})"
        ) from None
    except (asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as exc:
        reason = redact(connect_reason(exc), [urlsplit(url).password or ""])
        raise PreflightError(
            f"Setting CARO_DATABASE_URL is invalid: cannot use the database {shown} ({reason})"
        ) from None
    known = len(migration_files(POSTGRES_MIGRATIONS))
    if version > known:
        raise PreflightError(
            f"The database {shown} (CARO_DATABASE_URL) has schema version {version}, newer than "
            f"this version of caro knows ({known}): upgrade caro or use another database"
        )


def postgres_address(url: str) -> str:
    """Where asyncpg connects for `url`: host:port, or the path of a unix socket."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    try:
        url_port = parts.port
    except ValueError:
        url_port = None
    # As libpq reads them: the query's host and port first, then the URL's, then PGHOST/PGPORT.
    host = ((query.get("host") or [""])[0] or parts.hostname or os.environ.get("PGHOST")
            or "localhost")
    port = (query.get("port") or [""])[0] or url_port or os.environ.get("PGPORT") or 5432
    if host.startswith("/"):
        return f"{host.rstrip('/')}/.s.PGSQL.{port}"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def unreached_reason(exc: BaseException) -> str:
    """Why nothing answered, in lower case to sit inside a sentence: "connection refused"."""
    if isinstance(exc, OSError) and not isinstance(exc, socket.gaierror) and exc.errno:
        return os.strerror(exc.errno).lower()
    return network_reason(exc)


async def _postgres_schema_version(url: str) -> int:
    con = await asyncpg.connect(url, timeout=CONNECT_TIMEOUT)
    try:
        if await con.fetchval("SELECT to_regclass('schema_migrations')") is None:
            return 0  # an empty database: migrated on start
        return int(await con.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))
    finally:
        await con.close()


def check_sqlite(path: str, setting: str) -> None:
    """Refuse an SQLite file the bot could not open, write or migrate, in one line."""
    shown = os.path.abspath(path)
    where = f"Setting {setting} is invalid: {shown}"
    folder = os.path.dirname(shown)
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise PreflightError(f"{where}: the folder {folder} {what}")
    if os.path.isdir(shown):
        raise PreflightError(f"{where} is a directory; give a file path such as {shown}/caro.db")
    if os.path.exists(shown) and not os.path.isfile(shown):
        raise PreflightError(f"{where} is not a regular file")
    # SQLite writes its -wal and -shm files next to the database, so the folder itself must be
    # writable even when the file exists. A real probe, because os.access() says yes to root
    # on a read-only file system.
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".caro-write-check-"):
            pass
    except OSError as exc:
        reason = exc.strerror or one_line(exc)
        raise PreflightError(f"{where}: cannot write in {folder} ({reason})") from None
    if not os.path.exists(shown):
        return  # created on start
    try:
        with open(shown, "rb+") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as exc:
        reason = exc.strerror or one_line(exc)
        raise PreflightError(f"{where}: cannot open it for reading and writing ({reason})") from None
    if header == b"":
        return  # an empty file is an empty SQLite database
    if header != SQLITE_HEADER:
        raise PreflightError(f"{where} is not an SQLite database")
    try:
        db = sqlite3.connect(f"file:{shown}?mode=ro", uri=True)
        try:
            db.execute("PRAGMA schema_version").fetchone()
            ok = db.execute("PRAGMA quick_check").fetchone()
            (version,) = db.execute("PRAGMA user_version").fetchone()
            tables = [name for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                " ORDER BY name"
            )]
        finally:
            db.close()
    except sqlite3.Error as exc:
        if "locked" in str(exc):
            raise PreflightError(
                f"The database {shown} ({setting}) is locked by another program: is another "
                "caro-bot running on it?"
            ) from None
        raise PreflightError(f"{where}: SQLite cannot read it ({exc})") from None
    if ok is None or ok[0] != "ok":
        problem = ok[0] if ok else "no answer"
        raise PreflightError(f"{where}: the database is damaged ({problem})")
    # caro's first migration makes these and records its number in user_version in the same
    # transaction, so a caro database has both or neither. Tables without that record are
    # another program's: migrating would fail half-way or, worse, write into its data.
    known = len(migration_files())
    if (tables and version == 0) or (0 < version <= known and not CARO_TABLES.issubset(tables)):
        shown_tables = ", ".join(tables[:3]) + (", ..." if len(tables) > 3 else "")
        raise PreflightError(
            f"The database {shown} ({setting}) is not caro's: it is another program's SQLite "
            f"file (tables {shown_tables or 'none'}, no caro schema); it was left untouched. "
            f"Point {setting} at a new file, or at an existing caro database"
        )
    if version > known:
        # Tables of a newer version may not mean what this code thinks: refuse before writing.
        raise PreflightError(
            f"The database {shown} ({setting}) has schema version {version}, newer than this "
            f"version of caro knows ({known}): upgrade caro or use another database"
        )


def check_engine(engine: ExternalEngineSettings | None) -> ExternalEngineSettings | None:
    """The external engine (CARO_ENGINE_CMD) with the rules it plays, asked of it once here;
    PreflightError, in one line, if it cannot be started, does not answer the protocol's START
    with OK in time, or plays none of caro's rules: otherwise every game against it would fall
    back to another level, and the operator would learn why only from warnings in the log."""
    if engine is None:
        return None
    brain = ExternalEngine(engine.command, engine.time_limit)
    command = shlex.join(engine.command)
    try:
        brain.check()
        rules = brain.accepted_rules(list(Rule))
    except ExternalEngineError as exc:
        raise PreflightError(
            f"The external engine {command} (CARO_ENGINE_CMD) failed its "
            f"start-up check: {exc}. Fix the command, or remove CARO_ENGINE_CMD to run without it"
        ) from None
    finally:
        brain.close()
    if not rules:
        raise PreflightError(
            f"The external engine {command} (CARO_ENGINE_CMD) refused every rule caro plays"
            f" ({', '.join(rule.value for rule in Rule)}): remove CARO_ENGINE_CMD, or use an"
            " engine that plays one of them"
        )
    return replace(engine, rules=rules)


async def check_reachable(url: str, setting: str, overridden: bool, what: str) -> None:
    """Open (and close) a TCP connection to the host of `url`: DNS, routing, a listener."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme in ("https", "wss") else 80)
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port), timeout=CONNECT_TIMEOUT
        )
    except (OSError, TimeoutError) as exc:
        reason = network_reason(exc)
        raise Unreachable(unreachable_message(what, url, setting, overridden, reason)) from None
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()


def network_reason(exc: BaseException) -> str:
    """Why a connection failed, in words: DNS, refused, unreachable, timed out."""
    if isinstance(exc, aiohttp.WSServerHandshakeError):
        return f"no websocket there (HTTP {exc.status} {exc.message})"
    cause = getattr(exc, "os_error", None) or exc  # aiohttp wraps the OSError
    if isinstance(cause, socket.gaierror):
        return f"DNS lookup failed ({cause.strerror})"
    if isinstance(cause, TimeoutError):
        return "no answer in time"
    if isinstance(cause, OSError) and cause.errno:
        # asyncio's strerror is "Connect call failed (...)"; the errno says why.
        return os.strerror(cause.errno)
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror
    return one_line(exc)


def unreachable_message(what: str, url: str, setting: str, overridden: bool, reason: str) -> str:
    source = f"set by {setting}" if overridden else f"the default; {setting} sets another"
    return f"Could not reach {what} at {url} ({source}): {reason}."


def guild_refused_message(guild_id: int, application_id: int | None) -> str:
    invite = (
        "https://discord.com/oauth2/authorize?client_id="
        f"{application_id if application_id is not None else '<your application id>'}"
        f"&scope={INVITE_SCOPES}&permissions={INVITE_PERMISSIONS}"
    )
    return (
        f"Discord refused the slash commands for server {guild_id} (DISCORD_GUILD_ID): the bot "
        "is not in that server, or was invited without the applications.commands scope. "
        f"Invite it with {invite} (or fix or clear DISCORD_GUILD_ID)."
    )
