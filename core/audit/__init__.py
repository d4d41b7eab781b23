"""The Celador: the append-only, hash-chained audit log."""
