"""A municipality's own coverage (core/etl/precedence.py ``place_coverage_sql``): its months of a crime as runs.

The runs are computed from one bitstring per municipality and crime (the national load's 14 M distinct cells are
never deduplicated one by one); they must be the runs a distinct over its rows gives, which is how they were
computed before: broken months, a tipo counting its subtipos' rows, the state's covered months left out, a
month carried by two modalidades counted once.
"""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from core.etl.precedence import SERIES, month_bounds, place_coverage_sql

# (lugar_id, estado_id, tipo_key, delito, metodo, year, month, vigente)
ROWS = {
    "unbroken": [("A", "GTO", "robo", "robo", m, 2024, mo, True) for m in ("x", "y") for mo in range(1, 13)],
    "broken": [("A", "GTO", "robo", "robo", "x", 2024, mo, True) for mo in (1, 2, 3, 7, 8, 12)]
    + [("A", "GTO", "robo", "robo", "x", 2025, 1, True)],
    "subtipo_and_tipo": [("B", "GTO", "robo", "robo_a_negocio", "x", 2023, mo, True) for mo in (11, 12)]
    + [("B", "GTO", "robo", "robo", "x", 2024, mo, True) for mo in (1, 3)],
    "state_months_left_out": [("C", "COL", "extorsion", "extorsion", "x", 2020, mo, True) for mo in range(1, 7)],
    "set_aside_rows_ignored": [("D", "GTO", "robo", "robo", "x", 2021, mo, mo % 2 == 0) for mo in range(1, 9)],
}
# Colima's extorsión is covered by the state from March to April 2020: those months are not the place's own.
STATE_COVERAGE = [("COL", "extorsion", "month", date(2020, 3, 1), date(2020, 4, 1), 2)]

# How the runs were computed before (one distinct per cell): the reference the new statement must equal.
REFERENCE = f"""
    WITH state AS (SELECT estado_id, delito AS k, unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS fecha
                   FROM cov),
    own AS (
      SELECT o.estado_id, o.lugar_id, o.delito AS k, o.fecha FROM obs o
      ANTI JOIN state s ON s.estado_id = o.estado_id AND s.k = o.delito AND s.fecha = o.fecha
      WHERE o.nivel = 'municipio' AND o.vigente AND {SERIES}
      UNION
      SELECT o.estado_id, o.lugar_id, o.tipo_key, o.fecha FROM obs o
      ANTI JOIN state s ON s.estado_id = o.estado_id AND s.k = o.tipo_key AND s.fecha = o.fecha
      WHERE o.nivel = 'municipio' AND o.vigente AND {SERIES} AND o.tipo_key <> o.delito)
    SELECT lugar_id, k AS delito, min(fecha) AS desde, max(fecha) AS hasta, count(*)::INTEGER AS meses
    FROM (SELECT *, (year(fecha) * 12 + month(fecha))
                 - row_number() OVER (PARTITION BY lugar_id, k ORDER BY fecha) AS grp FROM own)
    GROUP BY lugar_id, k, grp ORDER BY delito, lugar_id, desde"""


def _con(rows: list[tuple]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        """CREATE TABLE obs (lugar_id VARCHAR, estado_id VARCHAR, tipo_key VARCHAR, delito VARCHAR, metodo VARCHAR,
           fecha DATE, vigente BOOLEAN, nivel VARCHAR, medida VARCHAR, fuero VARCHAR, metodologia VARCHAR)"""
    )
    if rows:
        con.executemany(
            "INSERT INTO obs VALUES (?, ?, ?, ?, ?, make_date(?, ?, 1), ?, 'municipio', 'carpetas', 'comun', 'IDFC')",
            rows,
        )
    con.execute(
        "CREATE TABLE cov (estado_id VARCHAR, delito VARCHAR, granularity VARCHAR, desde DATE, hasta DATE, meses INT)"
    )
    con.executemany("INSERT INTO cov VALUES (?, ?, ?, ?, ?, ?)", STATE_COVERAGE)
    return con


@pytest.mark.parametrize("case", sorted(ROWS))
def test_place_runs_equal_a_distinct_over_the_cells(case):
    con = _con(ROWS[case])
    got = con.execute(
        f"SELECT * FROM ({place_coverage_sql('obs', 'ent', 'cov', month_bounds(con, 'obs'))}) ORDER BY 2, 1, 3"
    ).fetchall()
    assert got == con.execute(REFERENCE).fetchall()


def test_place_runs_of_broken_months():
    con = _con(ROWS["broken"] + ROWS["subtipo_and_tipo"] + ROWS["state_months_left_out"])
    got = con.execute(
        f"SELECT * FROM ({place_coverage_sql('obs', 'ent', 'cov', month_bounds(con, 'obs'))}) ORDER BY 2, 1, 3"
    ).fetchall()
    runs = {(lugar, k): [] for lugar, k, *_ in got}
    for lugar, k, desde, hasta, meses in got:
        runs[lugar, k].append((desde.isoformat(), hasta.isoformat(), meses))
    assert runs[("A", "robo")] == [
        ("2024-01-01", "2024-03-01", 3),
        ("2024-07-01", "2024-08-01", 2),
        ("2024-12-01", "2025-01-01", 2),
    ]
    # the tipo counts its subtipo's months: November 2023 to January 2024 unbroken, then March
    assert runs[("B", "robo")] == [("2023-11-01", "2024-01-01", 3), ("2024-03-01", "2024-03-01", 1)]
    assert runs[("C", "extorsion")] == [("2020-01-01", "2020-02-01", 2), ("2020-05-01", "2020-06-01", 2)]


def test_month_bounds_of_an_empty_table():
    con = _con([])
    assert month_bounds(con, "obs") is None
