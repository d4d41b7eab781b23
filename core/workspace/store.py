"""The workspace SQLite file: where it lives, its migrations, one kept connection per thread.

The file sits beside the audit log (``<settings.audit_dir>/workspace.sqlite3``) and opens like it: the
audit's per-thread connections (WAL, busy timeout) and its numbered-migration mechanism
(``core.audit.connection.apply_migrations``), over this package's own ``migrations/`` folder. Each
feature of the workspace (conversations, tablero…) is a module with its own numbered migration that
reads and writes through ``Workspace.connection`` and ``Workspace.transaction``, as a ``Feature``.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Self

from core.audit import connection as shared_conn
from core.clock import Clock, iso_utc

DB_FILENAME = "workspace.sqlite3"
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


class Workspace:
    """The per-user workspace database (created and migrated on first open)."""

    def __init__(self, path: Path, clock: Clock | None = None):
        """Open (creating and migrating if needed) the workspace file at ``path``."""
        self.path = Path(path)
        self.clock = clock or Clock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if shared_conn.needs_migration_check(self.path, MIGRATIONS_DIR):
            shared_conn.apply_migrations(self.connection(), MIGRATIONS_DIR, self.now)
            shared_conn.mark_migrated(self.path, MIGRATIONS_DIR)

    @classmethod
    def for_settings(cls, settings, clock: Clock | None = None) -> Workspace:
        """The workspace of a Settings object: ``<settings.audit_dir>/workspace.sqlite3``."""
        return cls(Path(settings.audit_dir) / DB_FILENAME, clock=clock)

    def now(self) -> str:
        """The clock's time as stored (ISO-8601 UTC, second precision)."""
        return iso_utc(self.clock.now())

    def connection(self) -> sqlite3.Connection:
        """This thread's open connection (autocommit; kept for the process like the audit's)."""
        return shared_conn.thread_connection(self.path)

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE``): committed on success, rolled back on any error."""
        return shared_conn.write_transaction(self.connection())

    def schema_version(self) -> int:
        """Highest applied migration version."""
        return max(shared_conn.applied_versions(self.connection()), default=0)

    def disconnect(self) -> None:
        """Close this thread's connection (the next use opens a new one)."""
        shared_conn.close_thread_connection(self.path)


class Feature:
    """A feature of the workspace (conversations, tablero, API tokens): its tables, over one ``Workspace``."""

    def __init__(self, workspace: Workspace):
        """The feature's rows kept in ``workspace``."""
        self.workspace = workspace

    @classmethod
    def for_settings(cls, settings) -> Self:
        """The feature over a Settings object's workspace (``Workspace.for_settings``)."""
        return cls(Workspace.for_settings(settings))
