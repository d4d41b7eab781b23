"""Audit connections: one per thread and file, kept open, dropped when the file is replaced."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from core.audit import connection as audit_conn
from core.audit.log import AuditLog


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
