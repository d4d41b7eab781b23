-- 0002: indexes for the list filters of AuditLog.list / count (date window, user + kind).
CREATE INDEX ix_audit_records_ts ON audit_records(ts);
CREATE INDEX ix_audit_records_user_kind ON audit_records(user, kind);
