"""The workspace file: beside the audit, migrated with the audit's numbered-migration mechanism."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.audit import connection as shared_conn
from core.audit.records import discover_migrations
from core.config import load_settings
from core.expositor.tokens import Tokens
from core.workspace.conversations import Conversations
from core.workspace.store import DB_FILENAME, MIGRATIONS_DIR, Feature, Workspace
from core.workspace.tablero import Board


def test_the_workspace_lives_beside_the_audit_log(tmp_path: Path) -> None:
    settings = load_settings(tmp_path)
    ws = Workspace.for_settings(settings)
    assert ws.path == settings.audit_dir / DB_FILENAME
    assert ws.path.exists()


def test_every_migration_of_the_folder_is_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "ws.sqlite3"
    ws = Workspace(path)
    versions = [m.version for m in discover_migrations(MIGRATIONS_DIR)]
    assert versions[0] == 1 and versions == sorted(versions)
    assert ws.schema_version() == versions[-1]
    shared_conn.close_thread_connection(path)
    shared_conn._migrated.clear()  # a new process: checks again, applies nothing twice
    again = Workspace(path)
    rows = again.connection().execute("SELECT version FROM schema_migrations").fetchall()
    assert sorted(r[0] for r in rows) == versions


@pytest.mark.parametrize("table", ["conversations", "conversation_turns"])
def test_migration_0001_creates_the_conversation_tables(tmp_path: Path, table: str) -> None:
    ws = Workspace(tmp_path / "ws.sqlite3")
    found = ws.connection().execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))
    assert found.fetchone()


def test_a_failed_transaction_writes_nothing(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws.sqlite3")
    with pytest.raises(sqlite3.IntegrityError), ws.transaction() as conn:
        conn.execute(
            "INSERT INTO conversations (id, user, title, created_at, updated_at) VALUES ('a', 'u', 't', 'x', 'x')"
        )
        conn.execute(
            "INSERT INTO conversations (id, user, title, created_at, updated_at) VALUES ('a', 'u', 't', 'x', 'x')"
        )
    assert ws.connection().execute("SELECT count(*) FROM conversations").fetchone()[0] == 0


def test_the_audit_log_migrates_through_the_same_function(tmp_path: Path, monkeypatch) -> None:
    from core.audit.log import AuditLog

    seen = []
    real = shared_conn.apply_migrations
    monkeypatch.setattr(
        shared_conn, "apply_migrations", lambda conn, folder, now: (seen.append(folder), real(conn, folder, now))
    )
    AuditLog(tmp_path / "audit.sqlite3")
    Workspace(tmp_path / "ws.sqlite3")
    assert [f.parent.name for f in seen] == ["audit", "workspace"]


@pytest.mark.parametrize("feature", [Conversations, Board, Tokens])
def test_every_feature_opens_over_the_settings_workspace(tmp_path: Path, feature: type[Feature]) -> None:
    settings = load_settings(tmp_path)
    opened = feature.for_settings(settings)
    assert isinstance(opened, feature) and isinstance(opened, Feature)
    assert opened.workspace.path == settings.audit_dir / DB_FILENAME
    with opened.workspace.transaction() as conn:  # one write path: BEGIN IMMEDIATE … COMMIT
        assert conn.in_transaction
    assert not opened.workspace.connection().in_transaction
