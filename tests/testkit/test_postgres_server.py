"""The tests' own PostgreSQL: started from the system's binaries on a unix socket, reachable with
asyncpg, one fresh database per test, and gone after it is stopped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from testkit.postgres import PostgresServer, PostgresUnavailable, find_bindir, required


async def test_asyncpg_connects_to_a_fresh_database_and_runs_queries(postgres_dsn: str) -> None:
    conn = await asyncpg.connect(postgres_dsn)
    try:
        assert await conn.fetchval("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == 0
        await conn.execute("CREATE TABLE moves (game_id bigint, ply int, cell text, "
                           "UNIQUE (game_id, ply))")
        await conn.executemany("INSERT INTO moves VALUES ($1, $2, $3)",
                               [(1, 0, "h8"), (1, 1, "i9")])
        with pytest.raises(asyncpg.UniqueViolationError):
            await conn.execute("INSERT INTO moves VALUES (1, 1, 'j10')")
        assert await conn.fetchval("SELECT string_agg(cell, ',' ORDER BY ply) FROM moves") \
            == "h8,i9"
        version = await conn.fetchval("SHOW server_version_num")
        assert int(version) >= 120000
    finally:
        await conn.close()


async def test_each_test_gets_its_own_database(postgres_dsn: str,
                                               postgres_server: PostgresServer) -> None:
    # The previous test's table must not be here.
    conn = await asyncpg.connect(postgres_dsn)
    try:
        assert await conn.fetchval("SELECT to_regclass('moves')") is None
        assert await conn.fetchval("SELECT current_database()") in postgres_server.databases
    finally:
        await conn.close()


def test_server_runs_unprivileged_on_a_socket_without_tcp(postgres_server: PostgresServer) -> None:
    pid = postgres_server.pid()
    assert pid is not None
    status = Path(f"/proc/{pid}/status").read_text()
    uid = int(next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1])
    assert uid != 0, "PostgreSQL must not run as root"
    assert (postgres_server.socket_dir / ".s.PGSQL.5432").exists()
    assert "listen_addresses" not in postgres_server.dsn()


async def test_a_stopped_server_is_gone_with_its_files() -> None:
    if find_bindir() is None:
        pytest.skip("PostgreSQL is not installed")
    server = PostgresServer.start()
    dsn = server.create_database("short_lived")
    conn = await asyncpg.connect(dsn)
    assert await conn.fetchval("SELECT 1") == 1
    pid = server.pid()
    assert pid is not None and Path(f"/proc/{pid}").exists()
    server.stop()
    assert not server.root.exists()
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()
    assert conn.is_closed() or await _query_fails(conn)
    with pytest.raises((OSError, asyncpg.PostgresError)):
        await asyncpg.connect(dsn, timeout=5)


async def _query_fails(conn: asyncpg.Connection) -> bool:
    try:
        await conn.fetchval("SELECT 1")
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
        return True
    return False


def test_missing_postgres_is_reported_and_required_only_when_asked(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CARO_PG_BINDIR", str(tmp_path))  # an empty dir: not a PostgreSQL
    assert find_bindir() is None
    with pytest.raises(PostgresUnavailable, match="not installed"):
        PostgresServer.start()
    for value, expected in (("1", True), ("0", False), ("", False)):
        monkeypatch.setenv("CARO_REQUIRE_POSTGRES", value)
        assert required() is expected


def test_without_postgres_the_fixture_skips_in_one_line_and_fails_when_required(
        tmp_path: Path) -> None:
    """A one-test pytest run with no PostgreSQL in reach: skipped with the reason; the same run
    under CARO_REQUIRE_POSTGRES=1 fails."""
    root = Path(__file__).resolve().parents[2]
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import postgres_dsn, postgres_server  # noqa: F401\n")
    (tmp_path / "test_probe.py").write_text(
        "def test_needs_pg(postgres_dsn):\n    assert postgres_dsn\n")
    empty = tmp_path / "no-postgres"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "CARO_REQUIRE_POSTGRES"}
    env.update(CARO_PG_BINDIR=str(empty), PYTHONPATH=str(root))
    args = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
            str(tmp_path / "test_probe.py")]
    skipped = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=120)
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "1 skipped" in skipped.stdout
    assert "PostgreSQL is not installed" in skipped.stdout
    env["CARO_REQUIRE_POSTGRES"] = "1"
    failed = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "CARO_REQUIRE_POSTGRES is set" in failed.stdout
