"""Shared fixtures: isolated data folders and one bundled store per test worker."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.cli import load_manifest
from core.clock import FixedClock
from core.config import DEFAULT_DATA_DIR, Settings, load_settings
from core.etl import query_db, run_etl
from core.etl.publish import Depot

FIXTURES = Path(__file__).parent / "fixtures"
RAW = DEFAULT_DATA_DIR / "raw"


def version_table(store_dir: Path, table: str, con=None) -> str:
    """A table of the current version of ``store_dir`` as a relation of ``con`` (DuckDB's default connection).

    Its Parquet file, or the version's query database when it keeps the table only there (``merge.DB_ONLY``)."""
    import duckdb

    depot = Depot(store_dir)
    relation = query_db.relation(con or duckdb.default_connection(), depot.version_dir(depot.current_id()), table)
    assert relation, f"the current version has no {table}"
    return relation


def with_parquet_tables(store_dir: Path) -> None:
    """Turn every version of ``store_dir`` into one published before session 20: ``observations.parquet`` and
    ``incidents.parquet`` (the curated cells) beside its query database (docs/decisions/0015, sessions 20 and
    24), as the compatibility path reads them."""
    import duckdb

    from core.etl.query_cells import CELLS, curated_sql

    for db in Path(store_dir).glob(f"versions/*/{query_db.FILE}"):
        con = duckdb.connect(str(db), read_only=True)
        con.execute(f"COPY observations TO '{db.parent / 'observations.parquet'}' (FORMAT parquet)")
        con.execute(f"COPY {curated_sql(CELLS)} TO '{db.parent / 'incidents.parquet'}' (FORMAT parquet)")
        con.close()


@pytest.fixture
def clock() -> FixedClock:
    """A fixed instant so versions and audit records are reproducible."""
    return FixedClock(datetime(2026, 1, 15, 12, 0, tzinfo=UTC))


@pytest.fixture
def empty_settings(tmp_path: Path) -> Settings:
    """Settings over an empty data folder."""
    return load_settings(tmp_path / "data")


@pytest.fixture(scope="session")
def bundled_settings(tmp_path_factory) -> Settings:
    """A store built once from every bundled file (data/raw/manifest.json)."""
    settings = load_settings(tmp_path_factory.mktemp("bundled") / "data")
    run_etl(load_manifest(RAW), settings, clock=FixedClock(datetime(2026, 1, 15, 12, 0, tzinfo=UTC)))
    return settings
