"""The query database's state sums (core/etl/state_sums.py): ``incidents`` folded and the común carpetas' state rows."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from core.config import load_settings
from core.dataset.store import Store
from core.etl import query_db, state_sums
from core.etl.publish import Depot
from tests.conftest import with_parquet_tables


def _query_db(settings, tmp_path) -> duckdb.DuckDBPyConnection:
    # a copy: the store of an earlier test in this process may hold the file open with another configuration
    depot = Depot(settings.store_dir)
    copy = tmp_path / f"copy-{len(list(tmp_path.glob('copy-*')))}-{query_db.FILE}"
    shutil.copyfile(depot.version_dir(depot.current_id()) / query_db.FILE, copy)
    return duckdb.connect(str(copy), read_only=True)


@pytest.fixture
def rewritten_settings(bundled_settings, tmp_path):
    """A copy of the bundled store whose query database is written again from the version's Parquet files
    (as published before session 20, with its observations.parquet)."""
    settings = load_settings(tmp_path / "data")
    shutil.copytree(bundled_settings.store_dir, settings.store_dir)
    with_parquet_tables(settings.store_dir)
    for path in settings.store_dir.glob(f"versions/*/{query_db.FILE}"):
        path.unlink()
    Store(settings).query("SELECT 1")  # query_db.ensure -> write
    return settings


@pytest.mark.parametrize("which", ["load", "rewritten"])
def test_the_state_sums_are_incidents_grouped_by_state_crime_modalidad_and_month(
    bundled_settings, rewritten_settings, which, tmp_path
):
    # written by the load (query_db.attach_new + fill) and by query_db.write alike
    con = _query_db(bundled_settings if which == "load" else rewritten_settings, tmp_path)
    got = con.execute(f"SELECT * FROM {state_sums.TABLE} ORDER BY ALL").fetchall()
    want = con.execute(f"{state_sums.fold()} ORDER BY ALL").fetchall()
    assert got == want and len(got) > 1000
    total = con.execute(f"SELECT sum(eventos) FROM {state_sums.TABLE}").fetchone()
    assert total == con.execute("SELECT sum(eventos) FROM incidents").fetchone()
    # one row per cell: a state month of one crime and modalidad is one number
    keys = con.execute(
        f"SELECT count(*) = count(DISTINCT (estado_id, delito, metodo, fecha)) FROM {state_sums.TABLE}"
    ).fetchone()
    assert keys == (True,)
    con.close()


@pytest.mark.parametrize("which", ["load", "rewritten"])
def test_the_state_rows_are_the_comun_carpetas_state_rows_of_observations(
    bundled_settings, rewritten_settings, which, tmp_path
):
    con = _query_db(bundled_settings if which == "load" else rewritten_settings, tmp_path)
    digest = "SELECT count(*), bit_xor(hash(t)), sum(hash(t) % 1000000007) FROM ({}) t"
    got = con.execute(digest.format(f"SELECT * FROM {state_sums.STATE_ROWS}")).fetchone()
    want = con.execute(digest.format(f"SELECT * FROM observations WHERE {state_sums.STATE_ROWS_WHERE}")).fetchone()
    assert got == want and got[0] > 1000
    con.close()


@pytest.mark.parametrize("table", [state_sums.TABLE, state_sums.STATE_ROWS])
def test_both_tables_are_stored_in_crime_then_month_order(bundled_settings, table, tmp_path):
    # a question's crime and window read a few row groups, not the table
    con = _query_db(bundled_settings, tmp_path)
    stored = con.execute(f"SELECT delito, fecha FROM {table}").fetchall()
    assert stored == sorted(stored)
    con.close()


def test_adding_the_state_sums_twice_keeps_one_table(tmp_path):
    con = duckdb.connect()
    con.execute(f"ATTACH '{tmp_path / 'q.duckdb'}' AS q")
    con.execute(
        """CREATE TABLE q.incidents AS SELECT * FROM (VALUES
           ('GTO', 'secuestro', 'secuestro_expres', DATE '2024-01-01', 2::BIGINT, 'b.csv'),
           ('GTO', 'secuestro', 'secuestro_expres', DATE '2024-01-01', 3::BIGINT, 'a.csv'),
           ('GTO', 'secuestro', 'secuestro_expres', DATE '2024-02-01', 0::BIGINT, 'a.csv'))
           t(estado_id, delito, metodo, fecha, eventos, source_file)"""
    )
    con.execute(
        """CREATE TABLE q.observations (nivel VARCHAR, medida VARCHAR, fuero VARCHAR, metodologia VARCHAR,
                                        lugar_id VARCHAR, delito VARCHAR, metodo VARCHAR, fecha DATE)"""
    )
    state_sums.add(con, "q")
    state_sums.add(con, "q")
    rows = con.execute(f"SELECT fecha, eventos, files FROM q.{state_sums.TABLE} ORDER BY fecha").fetchall()
    assert [(str(r[0]), int(r[1]), r[2]) for r in rows] == [
        ("2024-01-01", 5, "a.csv, b.csv"),
        ("2024-02-01", 0, "a.csv"),
    ]
