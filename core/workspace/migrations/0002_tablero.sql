-- 0002: the tablero (board) of each user: answers pinned from Consultar or Explorar. A tile keeps the validated
-- plan it re-runs on the current data version, and what the answer said when it was pinned (its lead sentence, a
-- digest of its result rows and the data version), so the board shows the value then and now side by side.
CREATE TABLE board_tiles (
    id TEXT PRIMARY KEY,
    user TEXT NOT NULL,
    title TEXT NOT NULL,
    origin TEXT NOT NULL,
    link TEXT,
    query_hash TEXT NOT NULL,
    plan TEXT NOT NULL,
    notes TEXT NOT NULL,
    dataset_version TEXT,
    value TEXT NOT NULL,
    rows_digest TEXT,
    pinned_at TEXT NOT NULL,
    UNIQUE (user, query_hash)
);

CREATE INDEX board_tiles_by_user ON board_tiles (user, pinned_at);
