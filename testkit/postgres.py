"""A throwaway PostgreSQL server for the tests: the system's initdb + pg_ctl, a unix socket in a
temp dir, no TCP port, stopped and deleted afterwards.

    server = PostgresServer.start()          # or the session fixture `postgres_server`
    dsn = server.create_database("t1")       # postgresql://caro@/t1?host=/tmp/caro-pg-...
    server.halt(); server.resume()           # stopped under a running bot, then started again
    server.stop()                            # pg_ctl stop, then the directory is removed

PostgreSQL refuses to run as root, so when the tests run as root the server runs as the
`postgres` user if there is one, else `nobody`, and the temp dir is handed to that user.
The binaries are found in CARO_PG_BINDIR when it is set (and only there), else through
`pg_config --bindir`, the newest /usr/lib/postgresql/<version>/bin (Debian and Ubuntu keep them
off the PATH), then the PATH.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pwd
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

SUPERUSER = "caro"
# The tests' server keeps nothing it does not have to: its data is thrown away. fsync off also
# makes synchronous_commit moot (a commit waits for a WAL write, never for the disk).
THROWAWAY_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
REQUIRE_ENV = "CARO_REQUIRE_POSTGRES"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries here: the PostgreSQL tests skip (or fail when required)."""


def find_bindir() -> Path | None:
    """The directory holding initdb, pg_ctl and postgres, or None if PostgreSQL is missing."""
    candidates: list[Path] = []
    if os.environ.get("CARO_PG_BINDIR"):
        return _usable(Path(os.environ["CARO_PG_BINDIR"]))
    pg_config = shutil.which("pg_config")
    if pg_config:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True,
                                 timeout=10, check=True).stdout.strip()
            candidates.append(Path(out))

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", path.parent.name)) or (0,)

    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True)
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    return next((found for c in candidates if (found := _usable(c)) is not None), None)


def _usable(bindir: Path) -> Path | None:
    tools = ("initdb", "pg_ctl", "postgres", "createdb", "dropdb")
    return bindir if all((bindir / tool).is_file() for tool in tools) else None


def server_user() -> pwd.struct_passwd | None:
    """Whom the server runs as: None (ourselves) unless we are root, which PostgreSQL refuses."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise PostgresUnavailable("running as root and there is no `postgres` or `nobody` user "
                              "to run PostgreSQL as")


@dataclass
class PostgresServer:
    bindir: Path
    root: Path
    user: pwd.struct_passwd | None
    databases: list[str] = field(default_factory=list)
    running: bool = False
    options: str = ""

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root

    @property
    def log_path(self) -> Path:
        return self.root / "server.log"

    def dsn(self, database: str = "postgres") -> str:
        """A libpq / asyncpg URL reaching this server over its unix socket."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}"

    @classmethod
    def start(cls, settings: Mapping[str, str] | None = None) -> PostgresServer:
        """Start a new server; `settings` (name -> value) override THROWAWAY_SETTINGS or add
        to them, e.g. {"fsync": "on", "synchronous_commit": "on"} for PostgreSQL's own
        durability."""
        bindir = find_bindir()
        if bindir is None:
            raise PostgresUnavailable("PostgreSQL is not installed (no initdb/pg_ctl found; "
                                      "apt-get install postgresql)")
        user = server_user()
        root = Path(tempfile.mkdtemp(prefix="caro-pg-"))
        if user is not None:
            os.chown(root, user.pw_uid, user.pw_gid)
        server = cls(bindir, root, user)
        try:
            server._run("initdb", "-D", str(server.data_dir), "-U", SUPERUSER, "--auth=trust",
                        "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
            # No TCP at all: the socket lives in our own temp dir, so parallel test runs never
            # collide on a port.
            chosen = {"listen_addresses": "''", "unix_socket_directories":
                      f"'{server.socket_dir}'", "max_connections": "200",
                      **THROWAWAY_SETTINGS, **(settings or {})}
            server.options = " ".join(f"-c {name}={value}" for name, value in chosen.items())
            server._pg_start()
        except BaseException:
            server._remove()
            raise
        server.running = True
        atexit.register(server.stop)
        return server

    def _pg_start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data_dir), "-l", str(self.log_path),
                  "-o", self.options, "-w", "-t", "60", "start")

    def halt(self) -> None:
        """Stop the server as a restart or a failover does (fast shutdown: every connection is
        cut, the socket goes away), keeping its data for `resume`."""
        self._run("pg_ctl", "-D", str(self.data_dir), "-m", "fast", "-w", "-t", "30", "stop")

    def resume(self) -> None:
        """Start the halted server again on the same data and socket."""
        self._pg_start()

    def create_database(self, name: str) -> str:
        """A new empty database; its DSN."""
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
            raise ValueError(f"not a plain database name: {name!r}")
        self._run("createdb", "-h", str(self.socket_dir), "-U", SUPERUSER, name)
        self.databases.append(name)
        return self.dsn(name)

    def drop_database(self, name: str) -> None:
        self._run("dropdb", "-h", str(self.socket_dir), "-U", SUPERUSER, "--force",
                  "--if-exists", name)
        with contextlib.suppress(ValueError):
            self.databases.remove(name)

    def pid(self) -> int | None:
        """The postmaster's pid while it runs (from postmaster.pid)."""
        pidfile = self.data_dir / "postmaster.pid"
        try:
            return int(pidfile.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> None:
        """Stop the server (fast shutdown: connections are cut) and delete its directory."""
        if self.running:
            self.running = False
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run("pg_ctl", "-D", str(self.data_dir), "-m", "fast", "-w", "-t", "30",
                          "stop")
        self._remove()

    def _remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, tool: str, *args: str) -> None:
        kwargs: dict[str, object] = {}
        if self.user is not None:
            kwargs = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        result = subprocess.run([str(self.bindir / tool), *args], capture_output=True, text=True,
                                cwd=self.root, env=env, timeout=120, check=False,
                                **kwargs)  # type: ignore[call-overload]
        if result.returncode != 0:
            log = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
            raise subprocess.CalledProcessError(
                result.returncode, [tool, *args],
                output=result.stdout, stderr=f"{result.stderr}\n--- server log ---\n{log}")


def required() -> bool:
    """CI sets CARO_REQUIRE_POSTGRES=1: a missing PostgreSQL is then a failure, not a skip."""
    return os.environ.get(REQUIRE_ENV, "").strip() not in ("", "0", "false", "no")
