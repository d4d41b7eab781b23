"""The analyst's workspace: per-user state that outlives a browser session (conversations, pinned answers).

One SQLite file beside the audit log (``<data_dir>/audit/workspace.sqlite3``), its schema in the numbered
files of ``core/workspace/migrations`` applied with the audit log's mechanism (``core.audit.connection``).
"""
