-- 0001: the audit log table, hash-chained and append-only.
-- One row per execution, chat turn, plan edit, ETL load, rollback or settings change.
-- `hash` = sha256(prev_hash + canonical JSON of every column except seq and hash);
-- the chain is checked by core.audit.AuditLog.verify().
CREATE TABLE audit_records (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL UNIQUE,
    ts TEXT NOT NULL,
    kind TEXT NOT NULL,
    user TEXT NOT NULL,
    role TEXT NOT NULL,
    question TEXT,
    status TEXT NOT NULL,
    query_hash TEXT,
    catalog_version TEXT,
    dataset_version TEXT,
    tools TEXT,
    payload TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);

-- Append-only: records can be inserted, never changed or removed.
CREATE TRIGGER audit_records_no_update
BEFORE UPDATE ON audit_records
BEGIN
    SELECT RAISE(ABORT, 'bitácora de auditoría de solo anexado: UPDATE prohibido');
END;

CREATE TRIGGER audit_records_no_delete
BEFORE DELETE ON audit_records
BEGIN
    SELECT RAISE(ABORT, 'bitácora de auditoría de solo anexado: DELETE prohibido');
END;

-- The migration history is append-only too.
CREATE TRIGGER schema_migrations_no_update
BEFORE UPDATE ON schema_migrations
BEGIN
    SELECT RAISE(ABORT, 'historial de migraciones de solo anexado: UPDATE prohibido');
END;

CREATE TRIGGER schema_migrations_no_delete
BEFORE DELETE ON schema_migrations
BEGIN
    SELECT RAISE(ABORT, 'historial de migraciones de solo anexado: DELETE prohibido');
END;
