-- 0003: the log's identity. A random id drawn once per file; the anchor kept outside the file
-- (core/audit/seal.py) names it, so a deleted or replaced file is told apart from emptied rows.
CREATE TABLE audit_meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

INSERT INTO audit_meta (name, value) VALUES ('log_id', lower(hex(randomblob(16))));

CREATE TRIGGER audit_meta_no_update
BEFORE UPDATE ON audit_meta
BEGIN
    SELECT RAISE(ABORT, 'identidad de la bitácora de solo anexado: UPDATE prohibido');
END;

CREATE TRIGGER audit_meta_no_delete
BEFORE DELETE ON audit_meta
BEGIN
    SELECT RAISE(ABORT, 'identidad de la bitácora de solo anexado: DELETE prohibido');
END;
