"""The national parts load (core/etl/layouts/municipal.py ``stage_municipal``): rows written once, totals kept.

A folder of parts is loaded set-wise: the labels resolve in small tables and the data rows are a
view over the parts that the assembly reads into the version; no table of the file's size is
written while the files are read (not even ``obs_batch``). The
totals of a national build equal a bare DuckDB aggregate over the same parts (the real parts,
when ``CASANDRA_NATIONAL_PARTS`` or the shared data folder has them).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from core.cli import main
from core.config import load_settings
from core.etl import SourceSpec, pipeline, run_etl
from core.etl.layouts.parquet_tipo import PART_STRIDE
from core.etl.publish import Depot
from tests.conftest import FIXTURES, version_table

MINI = FIXTURES / "etl" / "nacional" / "municipal_tipo_mini.parquet"
INEGI = FIXTURES.parent.parent / "data" / "raw" / "nacional" / "municipios_inegi_mg2023.csv"
MONTHS = 60  # the fixture's rows repeated over five years: the data outnumber every label table


@pytest.fixture
def big_parts(tmp_path) -> Path:
    """Two parts: the mini fixture's rows, each repeated over 60 months (900 rows)."""
    folder = tmp_path / "partes"
    folder.mkdir()
    for i, half in enumerate(("Fecha < '2020-01-01'", "Fecha >= '2020-01-01'")):
        duckdb.sql(
            f"""COPY (SELECT * FROM (
                        SELECT (last_day(DATE '2015-01-01' + INTERVAL (m) MONTH))::TIMESTAMP AS Fecha, * EXCLUDE (Fecha)
                        FROM read_parquet('{MINI}'), range({MONTHS}) t(m)) WHERE {half})
                TO '{folder / f"part.{i}.parquet"}' (FORMAT parquet)"""
        )
    return folder


def test_the_parts_rows_are_never_staged_while_loading(tmp_path, big_parts, monkeypatch):
    # Two thirds of the rows are accepted: a table of half the file's size holds the parts' rows.
    rows = duckdb.sql(f"SELECT count(*) // 2 FROM read_parquet('{big_parts}/*.parquet')").fetchall()[0][0]
    cons, big = [], []
    connect = pipeline._connect

    def kept(settings, work):
        cons.append(connect(settings, work))
        return cons[-1]

    def progress(stage, fraction, message):
        if stage == "curate" and fraction == 0.0:  # every file read: the load's tables are all still there
            # (a table of data rows carries their source_row; the catalogues' tables do not)
            big.extend(
                cons[-1]
                .execute(
                    """SELECT DISTINCT t.table_name FROM duckdb_tables() t JOIN duckdb_columns() c USING (table_name)
                       WHERE t.estimated_size >= ? AND c.column_name = 'source_row' ORDER BY 1""",
                    [rows],
                )
                .fetchall()
            )

    monkeypatch.setattr(pipeline, "_connect", kept)
    settings = load_settings(tmp_path / "data")
    result = run_etl([SourceSpec(INEGI), SourceSpec(big_parts)], settings, progress=progress)
    assert result.published
    assert big == []  # no table holds the parts' rows: they are read from the parts into the version


def _sums(sql: str) -> dict:
    return {(e, y): n for e, y, n in duckdb.sql(sql).fetchall()}


REAL = load_settings().national_parts
STATES = ("Colima", "Tabasco", "Oaxaca", "Sonora")  # Tabasco: a negative cell; Oaxaca, Sonora: odd names


@pytest.mark.slow
@pytest.mark.skipif(not REAL.is_dir(), reason="sin las partes nacionales (CASANDRA_NATIONAL_PARTS)")
def test_national_totals_equal_a_bare_aggregate_of_the_parts(tmp_path, monkeypatch, capsys):
    parts = tmp_path / "partes"
    parts.mkdir()
    names = ", ".join(f"'{s}'" for s in STATES)
    for i in range(2):  # the four states' rows of the real parts, in two parts
        duckdb.sql(
            f"""COPY (SELECT * FROM read_parquet('{REAL}/part.*.parquet')
                      WHERE Entidad::VARCHAR IN ({names}) AND (year(Fecha) % 2) = {i})
                TO '{parts / f"part.{i}.parquet"}' (FORMAT parquet)"""
        )
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(INEGI, raw / INEGI.name)
    (raw / "manifest.json").write_text(json.dumps({"files": [{"path": INEGI.name}]}), encoding="utf-8")
    monkeypatch.setenv("CASANDRA_NATIONAL_PARTS", str(parts))
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "build", "--nacional", "--raw-dir", str(raw), "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    depot = Depot(data / "nacional" / "store")
    obs = version_table(depot.root, "observations")
    places, quarantine = (depot.table_path(t) for t in ("places", "quarantine"))
    reasons = duckdb.sql(f"SELECT DISTINCT motivo FROM read_parquet('{quarantine}') ORDER BY 1").fetchall()
    assert reasons == [("conteo negativo (anomalía de origen)",), ("municipio desconocido en el catálogo INEGI",)]
    assert (
        summary["cuarentena"]["filas"]
        == duckdb.sql(f"SELECT count(*) FROM read_parquet('{quarantine}')").fetchall()[0][0]
    )
    built = _sums(
        f"""SELECT s.label, year(o.fecha), sum(o.eventos) FROM {obs} o
            JOIN read_parquet('{places}') s ON s.lugar_id = o.estado_id AND s.nivel = 'estado'
            WHERE o.nivel = 'municipio' GROUP BY ALL"""
    )
    # What the build set aside, found back in the parts by its evidence row (part × 10⁹ + row in the part):
    # the negative cell and the names no catalogue has. Built plus set aside is the bare aggregate.
    rows = f"""SELECT *, regexp_extract(filename, 'part[.]([0-9]+)[.]parquet', 1)::BIGINT * {PART_STRIDE}
                      + file_row_number + 1 AS source_row
               FROM read_parquet('{parts}/*.parquet', filename = true, file_row_number = true)"""
    aside = _sums(
        f"""SELECT r.Entidad::VARCHAR, year(r.Fecha), sum(r.Incidentes) FROM ({rows}) r
            JOIN read_parquet('{quarantine}') q USING (source_row) WHERE q.motivo LIKE 'municipio desconocido%'
            GROUP BY ALL"""
    )
    bare = _sums(
        f"""SELECT Entidad::VARCHAR, year(Fecha), sum(Incidentes) FROM read_parquet('{parts}/*.parquet')
            WHERE Incidentes >= 0 GROUP BY ALL"""
    )
    assert {k: built.get(k, 0) + aside.get(k, 0) for k in bare} == bare and len(bare) == len(STATES) * 11
    assert sum(aside.values()) < sum(bare.values()) / 50  # a few names (Oaxaca's), not a state


class _Recorded:
    """A staging connection that keeps the text of every statement it runs."""

    def __init__(self, con, log: list):
        self._con, self._log = con, log

    def execute(self, sql, *args, **kwargs):
        self._log.append(str(sql))
        self._con.execute(sql, *args, **kwargs)
        return self

    def __getattr__(self, name):
        return getattr(self._con, name)


def test_the_query_database_observations_are_written_once(tmp_path, big_parts, monkeypatch):
    # The load writes the observations into the next version's query database itself (docs/decisions/0014)
    # and nowhere else: no observations.parquet beside it (docs/decisions/0015, session 20).
    log: list[str] = []
    connect = pipeline._connect
    monkeypatch.setattr(pipeline, "_connect", lambda settings, work: _Recorded(connect(settings, work), log))
    settings = load_settings(tmp_path / "data")
    result = run_etl([SourceSpec(INEGI), SourceSpec(big_parts)], settings)
    assert result.published
    read_back = [s for s in log if re.search(r"read_parquet\('[^']*observations\.parquet'\)", s)]
    assert read_back == []
    folder = Depot(settings.store_dir).version_dir(result.dataset_version)
    con = duckdb.connect()
    con.execute(f"ATTACH '{folder / 'store.duckdb'}' AS q (READ_ONLY)")
    assert not (folder / "observations.parquet").exists()
    assert con.execute("SELECT count(*) FROM q.observations").fetchone()[0] >= 600
    assert (
        Depot(settings.store_dir).metadata()["row_counts"]["observations"]
        == result.summary["row_counts"]["observations"]
        == con.execute("SELECT count(*) FROM q.observations").fetchone()[0]
    )
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith((".", "query"))) == []  # moved, not copied
