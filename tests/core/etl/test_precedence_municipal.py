"""Which municipal observations stand aside (core/etl/precedence.py ``municipal``), read without scanning every row.

A national version holds 20 M municipal rows; the rule now reads only the states the incidents cover (named as text,
so DuckDB skips the other states' row groups) and the (place, tipo, month) whose every subtipo a finer file holds.
The rows it sets aside, and why, must be those the earlier statements (a semi-join of every tipo row against every
place of a finer file, docs/decisions/0015 session 25) set aside.
"""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from core.etl.precedence import SERIES, municipal, tipo_members

# (lugar_id, estado_id, tipo_key, delito, year, month, source_file)
PARTS = "partes"
JSON = "irapuato.json"
ROWS = {
    # Guanajuato's homicide cells (incidents) cover both subtipos in 2024: its tipo row stands aside by them
    "covered_state": [("GTO.A", "GTO", "homicidio", "homicidio", 2024, m, PARTS) for m in (1, 2, 3)],
    # Colima has no incidents; a finer file holds both homicide subtipos in March only: that month stands aside
    "finer_file_complete": [("COL.B", "COL", "homicidio", "homicidio", 2024, m, PARTS) for m in (2, 3)]
    + [("COL.B", "COL", "homicidio", s, 2024, 3, JSON) for s in ("homicidio_doloso", "homicidio_culposo")],
    # one subtipo of a tipo alone (robo de vehículo in the parts): the tipo row stands, it is the only whole number
    "finer_file_partial": [("JAL.C", "JAL", "robo", "robo", 2024, 5, PARTS)]
    + [("JAL.C", "JAL", "robo", "robo_de_vehiculo_automotor", 2024, 5, PARTS)],
    # Guanajuato: incidents hold doloso, a finer file culposo: the tipo row stands aside by that file
    "mixed": [("GTO.D", "GTO", "homicidio", "homicidio", 2024, 1, PARTS)]
    + [("GTO.D", "GTO", "homicidio", "homicidio_culposo", 2024, 1, JSON)],
}
# Guanajuato's curated coverage: homicidio doloso 2024-01..03, culposo 2024-02..03.
COVERAGE = {
    "incidents": [
        ("GTO", "homicidio_doloso", date(2024, 1, 1), date(2024, 3, 1)),
        ("GTO", "homicidio_culposo", date(2024, 2, 1), date(2024, 3, 1)),
    ],
    "none": [],
}

# The earlier statements, as they were: the reference the rule must equal.
REFERENCE = [
    f"""UPDATE new_observations o SET vigente = false, sustituida_por = 'incidents' FROM obs_inc_month m
        WHERE o.nivel = 'municipio' AND {SERIES} AND m.estado_id = o.estado_id AND m.delito = o.delito
          AND m.mes = o.fecha""",
    f"""CREATE OR REPLACE TEMP TABLE obs_fine AS
        SELECT lugar_id, delito, fecha, min(source_file) AS source_file FROM new_observations o
        WHERE o.nivel = 'municipio' AND {SERIES} AND delito IN (SELECT member FROM obs_tipo_members) GROUP BY ALL""",
    f"""CREATE OR REPLACE TEMP TABLE obs_tipo_aside AS
        WITH t AS (SELECT DISTINCT lugar_id, estado_id, delito, fecha FROM new_observations o
                   WHERE o.nivel = 'municipio' AND {SERIES} AND delito IN (SELECT tipo FROM obs_tipo_members)
                     AND (estado_id IN (SELECT estado_id FROM obs_inc_month)
                          OR lugar_id IN (SELECT lugar_id FROM obs_fine)))
        SELECT t.lugar_id, t.delito, t.fecha,
               CASE WHEN count(i.delito) = count(*) THEN 'incidents' ELSE min(f.source_file) END AS por
        FROM t JOIN obs_tipo_members mb ON mb.tipo = t.delito
        LEFT JOIN obs_inc_month i ON i.estado_id = t.estado_id AND i.delito = mb.member AND i.mes = t.fecha
        LEFT JOIN obs_fine f ON f.lugar_id = t.lugar_id AND f.delito = mb.member AND f.fecha = t.fecha
        GROUP BY ALL HAVING count(*) FILTER (WHERE i.delito IS NOT NULL OR f.delito IS NOT NULL) = count(*)""",
    f"""UPDATE new_observations o SET vigente = false, sustituida_por = a.por FROM obs_tipo_aside a
        WHERE o.nivel = 'municipio' AND {SERIES} AND o.lugar_id = a.lugar_id AND o.delito = a.delito
          AND o.fecha = a.fecha""",
]


def _con(rows: list[tuple], coverage: list[tuple]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        """CREATE TABLE new_observations (lugar_id VARCHAR, estado_id VARCHAR, tipo_key VARCHAR, delito VARCHAR,
           fecha DATE, source_file VARCHAR, nivel VARCHAR, medida VARCHAR, fuero VARCHAR, metodologia VARCHAR,
           vigente BOOLEAN, sustituida_por VARCHAR)"""
    )
    if rows:
        con.executemany(
            """INSERT INTO new_observations VALUES (?, ?, ?, ?, make_date(?, ?, 1), ?, 'municipio', 'carpetas', 'comun',
               'IDFC', TRUE, NULL)""",
            rows,
        )
    con.execute("CREATE TABLE new_coverage_month (estado_id VARCHAR, delito VARCHAR, desde DATE, hasta DATE)")
    if coverage:
        con.executemany("INSERT INTO new_coverage_month VALUES (?, ?, ?, ?)", coverage)
    return con


def _marks(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return con.execute(
        "SELECT lugar_id, delito, fecha, vigente, sustituida_por FROM new_observations ORDER BY ALL"
    ).fetchall()


@pytest.mark.parametrize("coverage", sorted(COVERAGE))
@pytest.mark.parametrize("case", [*sorted(ROWS), "all"])
def test_the_rows_set_aside_are_those_the_earlier_statements_set_aside(case, coverage):
    rows = [r for v in ROWS.values() for r in v] if case == "all" else ROWS[case]
    new = _con(rows, COVERAGE[coverage])
    municipal(new)
    old = _con(rows, COVERAGE[coverage])
    tipo_members(old)
    old.execute(
        """CREATE TEMP TABLE obs_inc_month AS
           SELECT estado_id, delito, unnest(generate_series(desde, hasta, INTERVAL 1 MONTH))::DATE AS mes
           FROM new_coverage_month"""
    )
    for statement in REFERENCE:
        old.execute(statement)
    assert _marks(new) == _marks(old)


def test_a_finer_file_that_holds_every_subtipo_sets_the_tipo_aside_outside_the_covered_states():
    con = _con(ROWS["finer_file_complete"] + ROWS["finer_file_partial"], COVERAGE["incidents"])
    municipal(con)
    aside = con.execute(
        "SELECT lugar_id, delito, fecha, sustituida_por FROM new_observations WHERE NOT vigente ORDER BY ALL"
    ).fetchall()
    assert aside == [("COL.B", "homicidio", date(2024, 3, 1), JSON)]
