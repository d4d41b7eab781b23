"""The question pipeline: a Spanish question becomes an audited answer, stage by stage."""
