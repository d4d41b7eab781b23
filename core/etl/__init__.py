"""ETL: Cargador (load) → Curador (curate) → Depósito (publish)."""

from core.etl.pipeline import STAGES, EtlResult, SourceSpec, run_etl

__all__ = ["STAGES", "EtlResult", "SourceSpec", "run_etl"]
