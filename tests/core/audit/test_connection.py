"""Audit connections: one per thread and file, kept open, dropped when the file is replaced."""

from __future__ import annotations

import contextlib
import functools
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from core.audit import connection as audit_conn
from core.audit.log import AuditLog
from core.workspace.store import Workspace


def _append(log: AuditLog, i: int = 0) -> None:
    log.append(kind="ask", user="u", role="analista", status="ok", payload={"i": i})


def test_logs_on_one_file_share_the_thread_connection(tmp_path: Path) -> None:
    path = tmp_path / "audit" / "audit.sqlite3"
    with AuditLog(path) as first:
        _append(first)
    with AuditLog(path) as second:  # what every chat turn and execution does
        _append(second, 1)
        assert second._conn() is audit_conn.thread_connection(path)
    assert AuditLog(path).count() == 2 and AuditLog(path).verify().ok


def test_each_thread_has_its_own_connection(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    log = AuditLog(path)
    mine = log._conn()
    theirs = []
    worker = threading.Thread(target=lambda: (theirs.append(log._conn()), _append(log)))
    worker.start()
    worker.join()
    assert theirs and theirs[0] is not mine
    assert log.count() == 1


def test_a_removed_audit_folder_is_recreated_not_written_into_the_void(tmp_path: Path) -> None:
    folder = tmp_path / "audit"
    path = folder / "audit.sqlite3"
    _append(AuditLog(path))
    shutil.rmtree(folder)  # a steward resets the audit folder while the app runs
    log = AuditLog(path)
    _append(log, 1)
    assert path.is_file() and log.count() == 1 and log.verify().ok


def test_disconnect_closes_and_the_next_use_reopens(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    log = AuditLog(path)
    before = log._conn()
    log.disconnect()
    assert log._conn() is not before
    _append(log)
    assert log.count() == 1


def _opened(tmp_path: Path, name: str):
    """A kept connection to a new file with a parent and a child table whose foreign key is checked at COMMIT."""
    conn = audit_conn.thread_connection(tmp_path / name)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE child (parent INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)")
    return conn


@pytest.mark.parametrize(
    ("body", "kept"),
    [("INSERT INTO parent VALUES (1)", 1), ("INSERT INTO parent VALUES (1), (1)", 0)],  # the second: a duplicate
)
def test_a_write_transaction_commits_or_rolls_back_whole(tmp_path: Path, body: str, kept: int) -> None:
    conn = _opened(tmp_path, "tx.sqlite3")
    with contextlib.suppress(sqlite3.IntegrityError), audit_conn.write_transaction(conn):
        conn.execute(body)
    assert not conn.in_transaction
    assert conn.execute("SELECT count(*) FROM parent").fetchone()[0] == kept


@pytest.mark.parametrize("opener", ["audit", "workspace"])
def test_a_failed_commit_rolls_back_and_the_kept_connection_writes_again(tmp_path: Path, opener: str) -> None:
    """A COMMIT that fails (a deferred foreign key) must not leave the kept per-thread connection mid-transaction."""
    if opener == "workspace":
        ws = Workspace(tmp_path / "ws.sqlite3")
        conn, transaction = _opened(tmp_path, "ws.sqlite3"), ws.transaction
    else:
        conn = _opened(tmp_path, "audit.sqlite3")
        transaction = functools.partial(audit_conn.write_transaction, conn)
    with pytest.raises(sqlite3.IntegrityError), transaction():
        conn.execute("INSERT INTO child VALUES (7)")  # no parent 7: refused at COMMIT
    assert not conn.in_transaction
    with transaction():
        conn.execute("INSERT INTO parent VALUES (7)")
        conn.execute("INSERT INTO child VALUES (7)")
    assert conn.execute("SELECT count(*) FROM child").fetchone()[0] == 1
