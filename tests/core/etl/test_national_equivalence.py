"""The national build's figures do not depend on how it computes them (issue 14, item 8: the parts load's speed).

A small national store is built from real files that meet every precedence rule: Guanajuato's homicide
cells (``incidents``, subtipo level) against the parts' tipo-level «Homicidio», robo a institución
bancaria (one subtipo of the parts' «Robo»), Irapuato's JSON (subtipos beside the tipo rows), the state
file (state rows the municipal cells replace), the Guanajuato parquet and the same rows in the parts (one
key in two files). Every table of the version, every table of its query database and the metadata's
coverage are fingerprinted and compared with the fingerprints the earlier path (a staged batch, precedence
by UPDATEs, the query database recomputing the coverage) published from the same files:
``tests/fixtures/etl/nacional/parts_equivalence.json``.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from core.clock import FixedClock
from core.config import load_settings
from core.etl import SourceSpec, query_db, run_etl
from core.etl.merge import DB_ONLY, sql_literal
from core.etl.publish import Depot
from core.etl.query_cells import CELLS, COVERED
from core.etl.state_sums import STATE_ROWS
from core.etl.state_sums import TABLE as STATE_SUMS
from tests.conftest import FIXTURES

RAW = FIXTURES.parent.parent / "data" / "raw"
SNAPSHOT = FIXTURES / "etl" / "nacional" / "parts_equivalence.json"
REAL = load_settings().national_parts
STATES = ("Guanajuato", "Colima", "Tabasco")  # Tabasco: a negative cell
YEARS = (2019, 2020, 2024, 2025)  # before and inside the homicide file, the state file's last year, after it
META_KEYS = ("content_hash", "min_date", "max_date", "coverage", "coverage_municipal", "annual_series", "row_counts")
HASHED = ("coverage", "coverage_municipal")
# incidents folded and the state rows sorted for the national tools after the snapshot was taken (tests/core/etl/test_state_sums.py)
DERIVED = {STATE_SUMS, STATE_ROWS}
# incidents' curated cells and the observations a tipo row covers, stored apart since incidents became a view of them
# and of the observations (docs/decisions/0015, session 21): incidents itself is fingerprinted as before
DERIVED |= {CELLS, COVERED}
# The names a place or a crime answers to come from catalogs/, not from the build: they grow with the vocabulary
# («Edo. de Mex.», session 20; «robo de carro» moved to alias_prensa.json, session 21; «a mano armada», session 22)
# without any figure moving, so
# the digest leaves them out.
VOCABULARY = {"places": ("aliases",), "crimes": ("sinonimos",), "methods": ("sinonimos",)}


def make_parts(folder: Path) -> Path:
    """Three states' rows of the real parts in four years, as two parts (a part per pair of years)."""
    folder.mkdir(parents=True, exist_ok=True)
    names = ", ".join(f"'{s}'" for s in STATES)
    for i, years in enumerate((YEARS[:2], YEARS[2:])):
        duckdb.sql(
            f"""COPY (SELECT * FROM read_parquet('{REAL}/part.*.parquet')
                      WHERE Entidad::VARCHAR IN ({names}) AND year(Fecha) IN {years})
                TO '{folder / f"part.{i}.parquet"}' (FORMAT parquet)"""
        )
    return folder


def specs(parts: Path) -> list[SourceSpec]:
    """The catalogue, Guanajuato's cells, its parquet, Irapuato's JSON, the state file, then the parts."""
    return [
        SourceSpec(RAW / "nacional" / "municipios_inegi_mg2023.csv"),
        SourceSpec(RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"),
        SourceSpec(RAW / "sesnsp" / "gto_robo_institucion_bancaria_2015-2024.csv", coverage="2015-01:2024-12"),
        SourceSpec(RAW / "sesnsp" / "gto_municipal_tipo_modalidad_2015-01_2025-05.parquet"),
        SourceSpec(RAW / "sesnsp" / "irapuato_idm_nm_2015-2025.json"),
        SourceSpec(RAW / "nacional" / "estatal_idefc_2015-01_2024-11.csv"),
        SourceSpec(parts, display_name=parts.name),
    ]


def _table_print(con, relation: str, table: str) -> dict:
    """Columns with their types, rows, and two order-free digests of the rows (vocabulary columns left out)."""
    cols = [f"{name} {kind}" for name, kind, *_ in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()]
    skip = VOCABULARY.get(table)
    rows = f"(SELECT * EXCLUDE ({', '.join(skip)}) FROM {relation})" if skip else relation
    n, x, s = con.execute(
        f"SELECT count(*), coalesce(bit_xor(hash(t)), 0), coalesce(sum(hash(t) % 1000000007), 0) FROM {rows} t"
    ).fetchone()
    return {"columns": cols, "rows": n, "xor": str(x), "sum": str(s)}


def _sha(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def fingerprint(folder: Path) -> dict:
    """Every Parquet table, query-database table and view of a version folder, and its metadata's figures."""
    con = duckdb.connect()
    out = {"parquet": {}, "query_db": {}}
    for path in sorted(folder.glob("*.parquet")):
        out["parquet"][path.stem] = _table_print(con, f"read_parquet({sql_literal(path)})", path.stem)
    con.execute(f"ATTACH {sql_literal(folder / 'store.duckdb')} AS q (READ_ONLY)")
    for (table,) in con.execute(
        """SELECT table_name FROM duckdb_tables() WHERE database_name = 'q'
           UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = 'q' ORDER BY 1"""
    ).fetchall():
        out["query_db"][table] = _table_print(con, f"q.{table}", table)
    # a version keeps the tables merge.DB_ONLY names only in its query database (docs/decisions/0015, sessions 20
    # and 24): read as every reader reads them (query_db.relation), they are fingerprinted as their Parquet was
    for table in DB_ONLY:
        if table not in out["parquet"]:
            out["parquet"][table] = _table_print(con, query_db.relation(con, folder, table), table)
    con.close()
    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    # The coverage maps are long: their canonical JSON's hash stands for them.
    out["metadata"] = {k: meta.get(k) if k not in HASHED else _sha(meta.get(k)) for k in META_KEYS}
    return out


def build(tmp_path: Path) -> Path:
    """Publish the small national store and return its version folder."""
    settings = load_settings(tmp_path / "data")
    parts = make_parts(tmp_path / "partes")
    result = run_etl(specs(parts), settings, clock=FixedClock(datetime(2026, 1, 15, 12)))
    assert result.published
    return Depot(settings.store_dir).version_dir(result.dataset_version)


@pytest.mark.slow
@pytest.mark.skipif(not REAL.is_dir(), reason="sin las partes nacionales (CASANDRA_NATIONAL_PARTS)")
def test_the_national_build_publishes_the_figures_of_the_earlier_path(tmp_path):
    folder = build(tmp_path)
    # a version keeps the tables merge.DB_ONLY names only in its query database (docs/decisions/0015, sessions 20, 24)
    assert not [table for table in DB_ONLY if (folder / f"{table}.parquet").exists()]
    got = fingerprint(folder)
    want = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for part in ("parquet", "query_db"):
        assert sorted(set(got[part]) - DERIVED) == sorted(want[part])
        for table in want[part]:
            assert got[part][table] == want[part][table], (part, table)
    for key in META_KEYS:
        assert got["metadata"][key] == want["metadata"][key], key


if __name__ == "__main__":  # writes the snapshot from the code as it is: run only with the earlier path checked out
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        SNAPSHOT.write_text(json.dumps(fingerprint(build(Path(tmp))), indent=1, ensure_ascii=False), encoding="utf-8")
