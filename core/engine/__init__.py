"""The engine: catalog, plans, validation, execution and envelopes."""
