"""The published dataset: the read-only store, its entities and crime taxonomy."""
