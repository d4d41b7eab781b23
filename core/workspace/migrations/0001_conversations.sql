-- 0001: conversations per user. A conversation is a titled list of turns; each turn keeps the turn's
-- contracts as the `core ask --json` dict (what Consultar draws again after a reload) and the
-- validated plan with its query_hash and the data version it was answered on (what a permalink re-runs).
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    user TEXT NOT NULL,
    title TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE INDEX conversations_by_user ON conversations (user, updated_at);

CREATE TABLE conversation_turns (
    conversation_id TEXT NOT NULL REFERENCES conversations (id),
    seq INTEGER NOT NULL,
    job_id TEXT NOT NULL,
    question TEXT NOT NULL,
    query_hash TEXT,
    dataset_version TEXT,
    plan TEXT,
    turn TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);

CREATE INDEX conversation_turns_by_hash ON conversation_turns (query_hash);
