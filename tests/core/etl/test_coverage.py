"""The coverage of a monthly file (core.etl.coverage): the steward's months, parsed and refused in Spanish; the months
a load leaves incomplete for the state."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from core.errors import ValidacionError
from core.etl.coverage import iso_date, mark_partial_months, parse_coverage, parse_month


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2015-01", (2015, 1)), (" 2024-12 ", (2024, 12)), ("2020-7", (2020, 7))],
)
def test_a_month_is_year_and_month(text, expected):
    assert parse_month(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, None),
        ("", None),
        ("2015-01:2024-12", (date(2015, 1, 1), date(2024, 12, 1))),
        ("2020-03:2020-03", (date(2020, 3, 1), date(2020, 3, 1))),
    ],
)
def test_a_coverage_is_its_first_and_last_month(text, expected):
    assert parse_coverage(text) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("2015-13:2016-01", "Mes inválido"),
        ("enero:2016-01", "Mes inválido"),
        ("2015-01", "Cobertura inválida"),
        ("2015-01:2016-01:2017-01", "Cobertura inválida"),
        ("2024-12:2015-01", "Cobertura invertida"),
    ],
)
def test_a_bad_coverage_is_refused_in_spanish(text, fragment):
    with pytest.raises(ValidacionError, match=fragment):
        parse_coverage(text)


@pytest.mark.parametrize(("value", "expected"), [(date(2024, 1, 1), "2024-01-01"), (None, None)])
def test_report_dates_are_iso(value, expected):
    assert iso_date(value) == expected


# The next version's cells as a view that refuses to be read: a statement that scans them fails.
UNREADABLE_CELLS = """CREATE OR REPLACE VIEW new_incidents AS
    SELECT 'GTO' AS estado_id, 'homicidio_doloso' AS delito, DATE '2024-01-01' AS fecha, '11020' AS cve_municipio
    FROM range(1) WHERE error('se leyeron las celdas ' || range) IS NULL"""


def _staged(covered: bool) -> duckdb.DuckDBPyConnection:
    """A load of one León cell for 2024-01 over a version whose Guanajuato covers homicidio doloso or nothing."""
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE cur_entities AS SELECT 'GTO' AS estado_id, 'municipio' AS nivel, cve FROM "
        "(VALUES ('11020'), ('11017')) t(cve)"
    )
    con.execute("""CREATE TABLE cur_coverage (estado_id VARCHAR, delito VARCHAR, granularity VARCHAR, desde DATE,
                   hasta DATE, meses INTEGER)""")
    con.execute("CREATE TABLE cur_incidents (estado_id VARCHAR, delito VARCHAR, fecha DATE, cve_municipio VARCHAR)")
    if covered:
        con.execute(
            "INSERT INTO cur_coverage VALUES ('GTO', 'homicidio_doloso', 'month', '2023-01-01', '2023-12-01', 12)"
        )
        con.execute("""INSERT INTO cur_incidents SELECT 'GTO', 'homicidio_doloso', m::DATE, cve
                       FROM generate_series(DATE '2023-01-01', DATE '2023-12-01', INTERVAL 1 MONTH) g(m),
                            (VALUES ('11020'), ('11017')) t(cve)""")
    con.execute("""CREATE TABLE owned AS SELECT 1 AS load_seq, 'GTO' AS estado_id, 'homicidio_doloso' AS delito,
                   DATE '2024-01-01' AS fecha, 'cells' AS kind""")
    return con


@pytest.mark.parametrize("covered", [False, True])
def test_partial_months_read_the_cells_only_when_some_crime_has_a_usual_month(covered):
    # A first load (no version covers its crimes) has no usual month to judge against: the national file's
    # 29 M cells were counted per month for nothing (11 s). Only a covered crime reads the cells.
    con = _staged(covered)
    con.execute(UNREADABLE_CELLS)
    if covered:
        with pytest.raises(duckdb.Error, match="se leyeron las celdas"):
            mark_partial_months(con)
        return
    mark_partial_months(con)
    assert con.execute("SELECT count(*) FROM partial_months").fetchone()[0] == 0


def test_a_month_with_fewer_than_half_the_usual_municipalities_is_partial():
    con = _staged(covered=True)
    con.execute("""CREATE VIEW new_incidents AS SELECT 'GTO' AS estado_id, 'homicidio_doloso' AS delito,
                   DATE '2024-01-01' AS fecha, '11020' AS cve_municipio""")
    con.execute("INSERT INTO cur_entities VALUES ('GTO', 'municipio', '11001'), ('GTO', 'municipio', '11002')")
    con.execute("""INSERT INTO cur_incidents SELECT 'GTO', 'homicidio_doloso', m::DATE, cve
                   FROM generate_series(DATE '2023-01-01', DATE '2023-12-01', INTERVAL 1 MONTH) g(m),
                        (VALUES ('11001'), ('11002')) t(cve)""")
    mark_partial_months(con)
    assert con.execute("SELECT estado_id, delito, fecha, municipios, habituales FROM partial_months").fetchall() == [
        ("GTO", "homicidio_doloso", date(2024, 1, 1), 1, 4)
    ]
