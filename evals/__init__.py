"""The evaluation harness and its question sets (outside the engine)."""
