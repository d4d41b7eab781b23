"""The Celador's audit log: an append-only, sealed hash-chained SQLite journal (docs/contracts/001_casandra_v0.md §7).

One record per execution, chat turn, plan edit, ETL load, rollback or settings change.
Records live in ``<audit_dir>/audit.sqlite3`` (WAL mode, ``busy_timeout``) so the Streamlit
app and CLI commands can append at the same time. Triggers forbid UPDATE and DELETE; every
record carries ``hash = hmac-sha256(key, prev_hash + canonical_json(fields))`` over all its
fields except ``seq`` and ``hash``, with a key and an anchor (the head's seq and hash) kept
outside the file (``core.audit.seal``), so ``verify`` finds an edited record even when the
attacker drops the triggers and recomputes the hashes, and a deleted tail, emptied log or
deleted file. Logs written before the seal keep their plain ``sha256:`` records, checked with
the old rule. Appending (reading the chain head, inserting, moving the anchor) happens under
one lock and one ``BEGIN IMMEDIATE`` transaction, so concurrent writers never fork the chain.

The schema changes only through the numbered files in ``core/audit/migrations``
(``0001_init.sql``, ``0002_…``), applied in order at open and recorded in
``schema_migrations``. The free-form ``payload`` keeps the normalized plan (docs/contracts/000_query_plan.md §6),
``timings_ms`` per step, row counts, effective date ranges and errors.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TextIO, Unpack

from core import csv_export
from core.audit import connection as audit_conn
from core.audit import seal as audit_seal
from core.audit import verify as audit_verify
from core.audit.records import (  # noqa: F401  (re-exported: the audit API lives here)
    _COLUMNS,
    _FILTERS,
    _HASHED,
    _TABLE,
    BUSY_TIMEOUT_MS,
    DB_FILENAME,
    GENESIS_HASH,
    MIGRATIONS_DIR,
    AuditFilters,
    AuditRecord,
    Migration,
    VerifyResult,
    _bound,
    _like_pattern,
    _record,
    _tools_column,
    _tools_tuple,
    _where,
    canonical_json,
    discover_migrations,
    record_hash,
)
from core.clock import Clock, iso_utc


class AuditLog:
    """Append-only, sealed hash-chained audit log in one SQLite file (safe across processes)."""

    def __init__(self, path: Path, clock: Clock | None = None, keys_dir: Path | None = None):
        """Open (creating and migrating if needed) the log at ``path``; its seal lives in ``keys_dir``.

        Without ``keys_dir`` the seal goes to ``keys/`` next to the file; the app's log keeps it outside the
        audit folder (``Settings.audit_keys_dir``)."""
        self.path = Path(path)
        self.clock = clock or Clock()
        self.seal = audit_seal.Seal(Path(keys_dir) if keys_dir else self.path.parent / "keys", self.path.stem)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if audit_conn.needs_migration_check(self.path, MIGRATIONS_DIR):
            self._migrate()
            audit_conn.mark_migrated(self.path, MIGRATIONS_DIR)

    @classmethod
    def for_settings(cls, settings, clock: Clock | None = None) -> AuditLog:
        """The log of a Settings object: ``<settings.audit_dir>/audit.sqlite3``, sealed in ``audit_keys_dir``."""
        return cls(Path(settings.audit_dir) / DB_FILENAME, clock=clock, keys_dir=settings.audit_keys_dir)

    # -- connections -------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection, kept open for the process (see ``core.audit.connection``)."""
        return audit_conn.thread_connection(self.path)

    def close(self) -> None:
        """End this use of the log; the thread's connection stays open for the next record."""

    def disconnect(self) -> None:
        """Really close this thread's connection to the file (the next use opens a new one)."""
        audit_conn.close_thread_connection(self.path)

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    # -- migrations --------------------------------------------------------------------

    def _migrate(self) -> None:
        """Apply pending migrations in order, once, even with several processes opening."""
        audit_conn.apply_migrations(self._conn(), MIGRATIONS_DIR, lambda: iso_utc(self.clock.now()))

    def schema_version(self) -> int:
        """Highest applied migration version (0 for an empty database)."""
        row = self._conn().execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        return int(row[0])

    def migrations(self) -> list[tuple[int, str, str]]:
        """Applied migrations as ``(version, name, applied_at)`` in order."""
        return [
            tuple(row)
            for row in self._conn().execute("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
        ]

    # -- writing -----------------------------------------------------------------------

    def append(
        self,
        *,
        kind: str,
        user: str,
        role: str,
        status: str,
        payload: dict,
        question: str | None = None,
        query_hash: str | None = None,
        catalog_version: str | None = None,
        dataset_version: str | None = None,
        tools: Sequence[str] = (),
        job_id: str | None = None,
    ) -> AuditRecord:
        """Append one record at the head of the chain and return it as stored."""
        for name, value in (("kind", kind), ("user", user), ("role", role), ("status", status)):
            if not isinstance(value, str) or not value:
                raise ValueError(f"Campo de auditoría '{name}' vacío o no es texto")
        for name, value in (
            ("question", question),
            ("query_hash", query_hash),
            ("catalog_version", catalog_version),
            ("dataset_version", dataset_version),
        ):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"Campo de auditoría '{name}' debe ser texto o None")
        if not isinstance(payload, dict):
            raise ValueError("El payload de auditoría debe ser un dict")
        if isinstance(tools, str):
            tools = (tools,)
        tool_names = tuple(tools)
        for tool in tool_names:
            if not isinstance(tool, str) or not tool or "," in tool:
                raise ValueError(f"Nombre de herramienta inválido para auditoría: {tool!r}")
        job_id = uuid.uuid4().hex if job_id is None else job_id
        if not isinstance(job_id, str) or not job_id:
            raise ValueError("job_id vacío o no es texto")
        payload_text = canonical_json(payload)
        normalized_payload = json.loads(payload_text)  # what reading the row back gives
        fields_in = {
            "job_id": job_id,
            "kind": kind,
            "user": user,
            "role": role,
            "question": question,
            "status": status,
            "query_hash": query_hash,
            "catalog_version": catalog_version,
            "dataset_version": dataset_version,
            "tools": list(tool_names),
            "payload": normalized_payload,
        }
        with self.seal.locked():
            conn = self._conn()
            key = audit_seal.sealing_key(self.seal, conn)
            seq, digest, fields = self._insert(conn, key, job_id, fields_in, tool_names, payload_text)
            audit_seal.advance(self.seal, conn, key, seq, digest, fields["prev_hash"])
        return AuditRecord(
            seq=seq,
            **dict(fields, tools=tool_names, payload=normalized_payload),
            hash=digest,
        )

    def _insert(
        self, conn: sqlite3.Connection, key: bytes, job_id: str, fields_in: dict, tools: tuple, payload_text: str
    ) -> tuple[int, str, dict]:
        """Insert one sealed record at the head in one write transaction; its seq, hash and hashed fields."""
        try:
            with audit_conn.write_transaction(conn):
                head = conn.execute(f"SELECT hash FROM {_TABLE} ORDER BY seq DESC LIMIT 1").fetchone()
                fields = dict(fields_in, ts=iso_utc(self.clock.now()), prev_hash=head[0] if head else GENESIS_HASH)
                digest = audit_seal.record_mac(key, fields["prev_hash"], fields)
                row = dict(fields, tools=_tools_column(tools), payload=payload_text, hash=digest)
                cursor = conn.execute(
                    f"INSERT INTO {_TABLE} ({', '.join(_COLUMNS[1:])}) VALUES ({', '.join('?' for _ in _COLUMNS[1:])})",
                    [row[name] for name in _COLUMNS[1:]],
                )
                seq = cursor.lastrowid
        except sqlite3.IntegrityError as exc:  # rolled back by write_transaction
            if "job_id" in str(exc):
                raise ValueError(f"job_id duplicado en la bitácora de auditoría: {job_id}") from exc
            raise
        return seq, digest, fields

    # -- reading -----------------------------------------------------------------------

    def get(self, job_id: str) -> AuditRecord | None:
        """The record with this ``job_id``, or None."""
        row = self._conn().execute(f"SELECT {', '.join(_COLUMNS)} FROM {_TABLE} WHERE job_id = ?", (job_id,)).fetchone()
        return _record(row) if row else None

    def _select(self, filters: dict, *, newest_first: bool, limit: int | None, offset: int) -> Iterator[AuditRecord]:
        for name, value in (("limit", limit), ("offset", offset)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"'{name}' debe ser un entero no negativo")
        where, params = _where(**filters)
        sql = (
            f"SELECT {', '.join(_COLUMNS)} FROM {_TABLE}{where} "
            f"ORDER BY seq {'DESC' if newest_first else 'ASC'} LIMIT ? OFFSET ?"
        )
        params += [-1 if limit is None else limit, offset]
        for row in self._conn().execute(sql, params):
            yield _record(row)

    def list(self, *, limit: int | None = 200, offset: int = 0, **filters: Unpack[AuditFilters]) -> list[AuditRecord]:
        """Records matching every filter, newest first (``text`` searches question and payload; limit None = all)."""
        return [*self._select(filters, newest_first=True, limit=limit, offset=offset)]

    def count(self, **filters: Unpack[AuditFilters]) -> int:
        """Number of records matching the same filters as ``list``."""
        where, params = _where(**filters)
        return int(self._conn().execute(f"SELECT count(*) FROM {_TABLE}{where}", params).fetchone()[0])

    # -- checking ----------------------------------------------------------------------

    def verify(self) -> VerifyResult:
        """Check every record with its rule, then the anchor; name what was done and the first bad record."""
        return audit_verify.check(self._conn(), self.seal)

    def reanchor(self, *, user: str, role: str, reason: str) -> AuditRecord:
        """Accept the log as it is now: an audited record of the finding, then the anchor at the new head.

        For a tail, rows or a file knowingly lost (restored from a backup, a crash); an edited record stays
        reported, and a lost key cannot be replaced this way."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError("Indique el motivo para volver a anclar la bitácora de auditoría")
        found = self.verify()
        record = self.append(
            kind="audit_reanchor",
            user=user,
            role=role,
            status="ok",
            payload={"reason": reason.strip(), "verify": asdict(found)},
        )
        with self.seal.locked():
            key = audit_seal.sealing_key(self.seal, self._conn())
            audit_seal.reanchor(self.seal, self._conn(), key)
        return record

    # -- exporting ---------------------------------------------------------------------

    def export(self, fmt: str, out: TextIO, **filters: Unpack[AuditFilters]) -> int:
        """Write matching records in chain order as ``json`` (a list) or ``csv``; return rows written."""
        if fmt not in ("json", "csv"):
            raise ValueError(f"Formato de exportación desconocido: {fmt!r} (use json o csv)")
        records = self._select(filters, newest_first=False, limit=None, offset=0)
        written = 0
        if fmt == "json":
            out.write("[")
            for record in records:
                out.write(",\n" if written else "\n")
                out.write(json.dumps(record.as_dict(), ensure_ascii=False, sort_keys=True, default=str))
                written += 1
            out.write("\n]\n" if written else "]\n")
            return written
        writer = csv_export.writer(out)  # formula-leading cells quoted (OWASP); csv_export.restore undoes it
        writer.writerow(_COLUMNS)
        for record in records:
            row = record.as_dict()
            row["tools"] = _tools_column(record.tools)
            row["payload"] = canonical_json(record.payload)
            writer.writerow(["" if row[name] is None else row[name] for name in _COLUMNS])
            written += 1
        return written
