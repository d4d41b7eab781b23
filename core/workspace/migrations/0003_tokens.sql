-- 0003: bearer tokens of the HTTP API (core/expositor/tokens.py). A token is kept only as the sha256 of its
-- secret (the secret is shown once, when created); a client keeps its name and role, and a revoked token stays
-- as history (revoked_at), so a name can be given a new token once the old one is revoked.
CREATE TABLE api_tokens (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    rate TEXT,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);

CREATE UNIQUE INDEX api_tokens_active_name ON api_tokens (name) WHERE revoked_at IS NULL;
