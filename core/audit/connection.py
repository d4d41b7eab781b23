"""Connections to the audit SQLite file: one per thread and file, kept open for the process.

Opening a connection (connect, WAL switch, pragmas, migration check) and closing it (the
close checkpoints the WAL) cost ~1.7 ms per audit record when each record opened its own
``AuditLog``; a kept connection appends in ~0.1 ms. Connections stay per thread (SQLite
objects must not cross threads; Streamlit sessions are threads) and per process (a forked
child opens its own). A connection is dropped when its file was replaced or removed, so a
reset audit folder never swallows records into an unlinked file.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from core.audit.records import BUSY_TIMEOUT_MS, discover_migrations

_local = threading.local()  # per thread: {path: (connection, pid, inode)}
_migrated: set[tuple[str, int, str]] = set()  # (path, inode, migrations folder) this process checked
_migrated_lock = threading.Lock()


def _pool() -> dict:
    pool = getattr(_local, "pool", None)
    if pool is None:
        pool = _local.pool = {}
    return pool


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def thread_connection(path: Path) -> sqlite3.Connection:
    """This thread's open connection to the audit file at ``path`` (opened on first use)."""
    key = str(path)
    pool = _pool()
    held = pool.get(key)
    if held is not None:
        conn, pid, inode = held
        if pid == os.getpid() and inode is not None and inode == _inode(path):
            return conn
        if pid == os.getpid():
            conn.close()
        del pool[key]
    conn = sqlite3.connect(key, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=True)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_MS)}")
    set_wal(conn)
    # Under WAL, NORMAL is durable against application crashes and avoids an fsync per
    # commit; that is what keeps several concurrent writers fast.
    conn.execute("PRAGMA synchronous = NORMAL")
    pool[key] = (conn, os.getpid(), _inode(path))
    return conn


def close_thread_connection(path: Path) -> None:
    """Close this thread's connection to ``path`` (the next use opens a new one)."""
    held = _pool().pop(str(path), None)
    if held is not None and held[1] == os.getpid():
        held[0].close()


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction on a kept connection: committed on success, rolled back on any error (or failed commit).

    ``BEGIN IMMEDIATE`` takes the file's write lock at once (waiting up to the busy timeout), so two writers
    never both read and then fail to upgrade; a rollback leaves the kept connection usable for the next one."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def needs_migration_check(path: Path, migrations_dir: Path) -> bool:
    """Whether this process has not yet checked this file against these migrations."""
    return (str(path), _inode(path) or 0, str(migrations_dir)) not in _migrated


def mark_migrated(path: Path, migrations_dir: Path) -> None:
    """Remember that the file's migrations are applied (same migrations, same file: no need to look again)."""
    with _migrated_lock:
        _migrated.add((str(path), _inode(path) or 0, str(migrations_dir)))


def applied_versions(conn: sqlite3.Connection) -> set[int]:
    """The migration versions recorded in the file's ``schema_migrations`` (empty for a new file)."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").fetchone()
    if not exists:
        return set()
    return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}


def apply_migrations(conn: sqlite3.Connection, migrations_dir: Path, now: Callable[[], str]) -> None:
    """Apply the folder's pending ``NNNN_name.sql`` migrations in order, once, even with several processes opening.

    Shared by every SQLite file of the app that keeps its schema in numbered migrations (the audit log,
    ``core.workspace``); ``now()`` gives each migration's ``applied_at``."""
    migrations = discover_migrations(migrations_dir)
    if {m.version for m in migrations} <= applied_versions(conn):
        return
    with write_transaction(conn):
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        applied = applied_versions(conn)  # re-read under the write lock
        for migration in migrations:
            if migration.version in applied:
                continue
            for statement in migration.statements():
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, now()),
            )


def set_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL; retried because the switch can answer 'locked' without waiting."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() == "wal":
                return
            raise sqlite3.OperationalError(f"no se pudo activar WAL (modo {mode})")
        except sqlite3.OperationalError as exc:
            transient = "locked" in str(exc) or "busy" in str(exc)
            if not transient or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
