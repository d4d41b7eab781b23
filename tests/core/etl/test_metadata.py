"""The version's metadata (core.etl.metadata): a municipality's own runs of curated cells outside its state's coverage."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from core.etl.metadata import place_cells_sql

UNREADABLE_CELLS = """CREATE VIEW new_incidents AS
    SELECT 'GTO.MUN.LEON' AS entidad_id, 'GTO' AS estado_id, 'homicidio_doloso' AS delito, DATE '2024-12-01' AS fecha
    FROM range(1) WHERE error('se leyeron las celdas ' || range) IS NULL"""
CELLS = """CREATE VIEW new_incidents AS
    SELECT 'GTO.MUN.LEON' AS entidad_id, 'GTO' AS estado_id, 'homicidio_doloso' AS delito, m::DATE AS fecha
    FROM generate_series(DATE '2024-01-01', DATE '2024-12-01', INTERVAL 1 MONTH) g(m)"""


def _staged(coverage_to: str) -> duckdb.DuckDBPyConnection:
    """León's 2024 cells (summary per state, crime and month) and the state's coverage up to ``coverage_to``."""
    con = duckdb.connect()
    con.execute("""CREATE TABLE new_incidents_summary AS SELECT 1 AS load_seq, 'GTO' AS estado_id,
                   'homicidio_doloso' AS delito, m::DATE AS fecha, 1 AS n
                   FROM generate_series(DATE '2024-01-01', DATE '2024-12-01', INTERVAL 1 MONTH) g(m)""")
    con.execute(
        "CREATE TABLE new_coverage_month AS SELECT 'GTO' AS estado_id, 'homicidio_doloso' AS delito, "
        "'month' AS granularity, DATE '2015-01-01' AS desde, ?::DATE AS hasta, 0 AS meses",
        [coverage_to],
    )
    return con


def test_cells_inside_the_states_coverage_are_never_read():
    # The national file's 29 M cells were deduplicated (14 s) to find that no month lies outside the coverage.
    con = _staged("2024-12-01")
    con.execute(UNREADABLE_CELLS)
    assert place_cells_sql(con) is None


@pytest.mark.parametrize(
    ("coverage_to", "runs"),
    [
        ("2024-11-01", [(date(2024, 12, 1), date(2024, 12, 1), 1)]),
        ("2023-12-01", [(date(2024, 1, 1), date(2024, 12, 1), 12)]),
    ],
)
def test_a_municipalitys_months_outside_the_coverage_are_its_own_runs(coverage_to, runs):
    con = _staged(coverage_to)
    con.execute(CELLS)
    sql = place_cells_sql(con)
    assert [tuple(r[2:]) for r in con.execute(sql).fetchall()] == runs
    assert {r[:2] for r in con.execute(sql).fetchall()} == {("GTO.MUN.LEON", "homicidio_doloso")}
