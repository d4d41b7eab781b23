"""The query database's ``incidents`` (core/etl/query_cells.py): the curated cells and the observations of the states
the coverage names are stored, every other state's observations are read in place, and the rows are those of the
one table it replaced (docs/decisions/0015, session 21)."""

from __future__ import annotations

from datetime import date

import duckdb
import pytest

from core.etl import query_cells

OBS = """row_id BIGINT, fecha DATE, nivel VARCHAR, lugar_id VARCHAR, estado_id VARCHAR, medida VARCHAR, fuero VARCHAR,
    metodologia VARCHAR, tipo_key VARCHAR, delito VARCHAR, metodo VARCHAR, eventos BIGINT, vigente BOOLEAN,
    source_file VARCHAR, source_row BIGINT"""
JAN, FEB = date(2024, 1, 1), date(2024, 2, 1)


def _obs(row_id, fecha, lugar, estado, delito, tipo, eventos, nivel="municipio", vigente=True):
    return (row_id, fecha, nivel, lugar, estado, "carpetas", "comun", "IDFC", tipo, delito, "m", eventos, vigente,
            "f.parquet", row_id)  # fmt: skip


ROWS = [
    _obs(1, JAN, "GTO.MUN.LEON", "GTO", "robo", "robo", 10),  # a covered state's month
    _obs(2, FEB, "GTO.MUN.LEON", "GTO", "robo", "robo", 11),  # outside its run: estatal false
    _obs(3, JAN, "JAL.MUN.GDL", "JAL", "robo", "robo", 20),
    _obs(4, JAN, "JAL.MUN.GDL", "JAL", "robo_a_negocio", "robo", 5),  # beside its tipo row: cubre = robo
    _obs(5, JAN, "JAL.MUN.ZAP", "JAL", "lesiones", "lesiones", 7),
    _obs(6, JAN, "JAL", "JAL", "robo", "robo", 99, nivel="estado"),  # a state row: never a cell
    _obs(7, JAN, "JAL.MUN.TLQ", "JAL", "robo", "robo", 3, vigente=False),  # set aside: never a cell
]


@pytest.fixture
def con(tmp_path):
    con = duckdb.connect()
    con.execute(f"ATTACH '{tmp_path / 'q.duckdb'}' AS q")
    con.execute(f"CREATE TABLE q.observations ({OBS})")
    con.executemany(f"INSERT INTO q.observations VALUES ({', '.join('?' * 15)})", ROWS)
    con.execute("CREATE TABLE q.entities (entidad_id VARCHAR, nivel VARCHAR, cve VARCHAR, estado_id VARCHAR)")
    con.execute("INSERT INTO q.entities VALUES ('GTO.MUN.LEON', 'municipio', '11020', 'GTO')")
    con.execute("CREATE TABLE q.coverage (estado_id VARCHAR, delito VARCHAR, desde DATE, hasta DATE, origen VARCHAR)")
    con.execute("INSERT INTO q.coverage VALUES ('GTO', 'robo', DATE '2024-01-01', DATE '2024-01-01', 'observations')")
    con.execute(
        """CREATE TABLE inc AS SELECT 100::BIGINT AS row_id, DATE '2024-01-01' AS fecha, '11020' AS cve_municipio,
           'GTO' AS estado_id, 'GTO.MUN.LEON' AS entidad_id, 'robo_a_negocio' AS delito, 'm' AS metodo,
           4::BIGINT AS eventos, 'c.csv' AS source_file, 1::BIGINT AS source_row"""
    )
    con.execute(
        """CREATE TABLE crimes AS SELECT * FROM (VALUES ('robo', 'robo', 'tipo'), ('robo_a_negocio', 'robo', 'subtipo'),
           ('lesiones', 'lesiones', 'tipo')) t(delito, tipo_key, nivel)"""
    )
    query_cells.add(con, "q", "inc", "crimes")
    yield con
    con.close()


def test_incidents_is_a_view_of_every_cell_with_what_each_row_is(con):
    got = con.execute(
        "SELECT row_id, cve_municipio, entidad_id, delito, eventos, cubre, origen, estatal FROM q.incidents ORDER BY 1"
    ).fetchall()
    assert got == [
        (1, "11020", "GTO.MUN.LEON", "robo", 10, None, "observations", True),
        (2, "11020", "GTO.MUN.LEON", "robo", 11, None, "observations", False),
        (3, None, "JAL.MUN.GDL", "robo", 20, None, "observations", False),
        (4, None, "JAL.MUN.GDL", "robo_a_negocio", 5, "robo", "observations", False),
        (5, None, "JAL.MUN.ZAP", "lesiones", 7, None, "observations", False),
        (100, "11020", "GTO.MUN.LEON", "robo_a_negocio", 4, "robo", "incidents", True),
    ]
    kinds = dict(con.execute("SELECT table_name, 'table' FROM duckdb_tables() WHERE database_name = 'q'").fetchall())
    kinds |= dict(con.execute("SELECT view_name, 'view' FROM duckdb_views() WHERE database_name = 'q'").fetchall())
    assert kinds["incidents"] == "view"


def test_only_the_covered_states_observations_are_stored_twice(con):
    # Jalisco has no coverage run: its rows are read from observations in place, not copied
    stored = con.execute(f"SELECT row_id FROM q.{query_cells.CELLS} ORDER BY 1").fetchall()
    assert stored == [(1,), (2,), (100,)]
    assert con.execute(f"SELECT count(*) FROM q.{query_cells.COVERED}").fetchone()[0] == 1


def test_the_view_binds_in_its_own_database_opened_alone(con, tmp_path):
    con.execute("DETACH q")
    alone = duckdb.connect(str(tmp_path / "q.duckdb"), read_only=True, config={"enable_external_access": False})
    assert alone.execute("SELECT count(*), sum(eventos) FROM incidents WHERE estado_id = 'JAL'").fetchone() == (3, 32)
    alone.close()
