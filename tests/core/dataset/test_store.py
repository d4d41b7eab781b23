"""The Consultor: read-only, one connection per process, a cursor per thread."""

from __future__ import annotations

import hashlib
import shutil
import threading
from pathlib import Path

import duckdb
import pytest

from core.config import load_settings
from core.dataset.store import Store, get_store
from core.errors import DatosFaltantesError
from core.etl import SourceSpec, query_db, run_etl
from core.etl.merge import DB_ONLY
from core.etl.publish import TABLES
from tests.conftest import FIXTURES, RAW, with_parquet_tables


def test_empty_store_says_so_in_spanish(empty_settings):
    store = Store(empty_settings)
    assert store.is_empty()
    with pytest.raises(DatosFaltantesError, match="No hay datos publicados"):
        store.metadata()
    with pytest.raises(DatosFaltantesError):
        store.cursor()


# The probe of issue 12 (item 8): every way a SQL statement could write, reach another file or
# change the connection. {v} is the version folder, {out} a folder outside the data.
PROBE = [
    "COPY incidents TO '{v}/incidents.parquet' (FORMAT parquet)",
    "COPY incidents TO '{v}/nuevo.csv'",
    "COPY (SELECT 1) TO '{out}/fuga.parquet' (FORMAT parquet)",
    "ATTACH '{v}/otra.duckdb' AS otra",
    "ATTACH '{out}/otra.duckdb' AS otra",
    "ATTACH ':memory:' AS mem",
    "EXPORT DATABASE '{v}/export'",
    "EXPORT DATABASE '{out}/export'",
    "CREATE TABLE t AS SELECT 1 AS x",
    "CREATE VIEW incidents_2 AS SELECT * FROM incidents",
    "CREATE OR REPLACE VIEW incidents AS SELECT 1 AS eventos",
    "CREATE TEMP TABLE incidents AS SELECT 1 AS eventos",
    "CREATE TEMP VIEW t AS SELECT 1 AS x",
    "CREATE TEMP MACRO f(x) AS x",
    "CREATE MACRO f(x) AS x",
    "CREATE SCHEMA s",
    "CREATE SEQUENCE q",
    "DROP VIEW incidents",
    "DROP TABLE incidents",
    "DROP TABLE IF EXISTS entities",
    "ALTER TABLE incidents RENAME TO x",
    "INSERT INTO incidents SELECT * FROM incidents LIMIT 1",
    "UPDATE incidents SET eventos = 0",
    "DELETE FROM incidents",
    "TRUNCATE incidents",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_parquet('{v}/incidents.parquet')",
    "SELECT * FROM glob('/etc/*')",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "SET lock_configuration = false",
    "RESET lock_configuration",
    "SET allowed_directories = ['/']",
    "SET memory_limit = '1GB'",
    "SET search_path = 'temp'",
    "SET VARIABLE x = 1",
    "PRAGMA enable_profiling",
    "PRAGMA threads = 1",
    "CHECKPOINT",
    "VACUUM",
    "DETACH store",
    "USE memory",
    "BEGIN TRANSACTION",
    "CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 's')",
    "SELECT 1; DROP VIEW incidents",
]
CANARY = "SELECT count(*), sum(eventos) FROM incidents"


def snapshot(folder: Path) -> dict[str, str]:
    """Hash of every file under a folder."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def probe_settings(bundled_settings, tmp_path_factory):
    """A private copy of the bundled store: the probe must not touch the shared one."""
    settings = load_settings(tmp_path_factory.mktemp("probe") / "data")
    shutil.copytree(bundled_settings.store_dir, settings.store_dir)
    return settings


@pytest.mark.parametrize("via", ["cursor", "query"])
@pytest.mark.parametrize("statement", PROBE)
def test_the_store_cannot_write_reach_files_or_change_itself(probe_settings, tmp_path, statement, via):
    store = Store(probe_settings)
    folder = store.depot.version_dir(store.dataset_version)
    before, canary = snapshot(folder), store.query(CANARY)
    sql = statement.format(v=folder, out=tmp_path)
    with pytest.raises(duckdb.Error):
        if via == "cursor":
            store.cursor().execute(sql).fetchall()
        else:
            store.query(sql)
    assert snapshot(folder) == before
    assert not list(tmp_path.iterdir())
    # The same thread's cursor still reads the published tables, and so does a new store.
    assert store.query(CANARY) == canary
    assert Store(probe_settings).query(CANARY) == canary


@pytest.mark.parametrize(
    "setting, value",
    [
        ("access_mode", "read_only"),
        ("enable_external_access", False),
        ("lock_configuration", True),
        ("temp_directory", ""),
    ],
)
def test_cursors_have_the_store_settings(bundled_settings, setting, value):
    cur = Store(bundled_settings).cursor()
    assert cur.execute(f"SELECT current_setting('{setting}')").fetchall()[0][0] == value


# The query database's incidents is the curated cells plus the standing municipal observations (decision 0012),
# with three more columns; its coverage adds the observations' runs. Every other table is its Parquet file.
EXTRA_COLUMNS = {"incidents": ["cubre", "origen", "estatal"], "coverage": ["origen"]}
PARQUET_ROWS = {"incidents": "origen = 'incidents'", "coverage": "origen = 'incidents'"}


def _as_text(column: tuple) -> tuple:
    """A DESCRIBE row with an ENUM read as the VARCHAR it is to every reader (core/etl/query_cells.py: _store)."""
    return (column[0], "VARCHAR", *column[2:]) if str(column[1]).startswith("ENUM(") else column


def test_the_query_database_holds_the_parquet_tables(bundled_settings):
    store = Store(bundled_settings)
    folder = store.depot.version_dir(store.dataset_version)
    con = duckdb.connect()
    for table in TABLES:
        if table in DB_ONLY:  # kept only in the query database (docs/decisions/0015, session 20)
            assert not (folder / f"{table}.parquet").exists() and store.query(f"SELECT count(*) FROM {table}")[0][0]
            continue
        parquet = f"read_parquet('{folder / f'{table}.parquet'}')"
        described = con.execute(f"DESCRIBE SELECT * FROM {parquet}").fetchall()
        extra = EXTRA_COLUMNS.get(table, [])
        columns = [_as_text(c) for c in store.query(f"DESCRIBE {table}")]
        assert columns[: len(described)] == described
        assert [c[0] for c in columns[len(described) :]] == extra
        names = ", ".join(f'"{c[0]}"' for c in described)
        where = f"WHERE {PARQUET_ROWS[table]}" if table in PARQUET_ROWS else ""
        rows = store.query(f"SELECT {names} FROM {table} {where} ORDER BY ALL")
        expected = con.execute(f"SELECT * FROM {parquet} ORDER BY ALL").fetchall()
        assert rows == expected  # the curated rows are the Parquet's; the observations' runs are marked apart


# The curated cells of incidents.parquet inside the query database's wider incidents (decision 0012).
CURATED_COUNT = "SELECT count(*) FROM incidents WHERE origen = 'incidents'"
CURATED_FEMINICIDIOS = "SELECT sum(eventos) FROM incidents WHERE delito = 'feminicidio' AND origen = 'incidents'"


@pytest.fixture
def legacy_settings(bundled_settings, tmp_path):
    """A copy of the bundled store as published before versions carried their query database."""
    settings = load_settings(tmp_path / "data")
    shutil.copytree(bundled_settings.store_dir, settings.store_dir)
    with_parquet_tables(settings.store_dir)  # those versions had every table as Parquet
    for path in settings.store_dir.glob(f"versions/*/{query_db.FILE}"):
        path.unlink()
    return settings


def test_a_version_without_its_query_database_gets_it_once(legacy_settings):
    store = Store(legacy_settings)
    folder = store.depot.version_dir(store.dataset_version)
    assert store.query(CURATED_COUNT) == [(48727,)]
    built = folder / query_db.FILE
    stamp = built.stat().st_mtime_ns
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []  # no temporary file left
    assert Store(legacy_settings).query(CURATED_COUNT) == [(48727,)]
    assert built.stat().st_mtime_ns == stamp  # not rebuilt


def test_a_version_whose_query_database_cannot_be_built_is_refused_in_spanish(legacy_settings, monkeypatch):
    def read_only_folder(folder, con=None):
        raise PermissionError(13, "Permission denied", str(folder))

    monkeypatch.setattr(query_db, "write", read_only_folder)
    with pytest.raises(DatosFaltantesError, match="sin su base de consulta") as info:
        Store(legacy_settings).query("SELECT 1")
    assert str(legacy_settings.store_dir) not in str(info.value) + " ".join(info.value.hints)


def test_a_version_that_lost_its_query_database_is_refused_in_spanish(bundled_settings, tmp_path):
    # since docs/decisions/0015's session 20 a version keeps its observations only there: no Parquet to rebuild from
    settings = load_settings(tmp_path / "data")
    shutil.copytree(bundled_settings.store_dir, settings.store_dir)
    for path in settings.store_dir.glob(f"versions/*/{query_db.FILE}"):
        path.unlink()
    with pytest.raises(DatosFaltantesError, match="sin su base de consulta") as info:
        Store(settings).query("SELECT 1")
    assert str(settings.store_dir) not in str(info.value) + " ".join(info.value.hints)
    assert not list(settings.store_dir.glob(f"versions/*/{query_db.FILE}"))  # nothing half-written left


def test_one_cursor_per_thread(bundled_settings):
    store = get_store(bundled_settings)
    assert get_store(bundled_settings) is store
    seen, errors = {}, []

    def work(i):
        try:
            cur = store.cursor()
            assert store.cursor() is cur
            seen[i] = (cur, store.query(CURATED_FEMINICIDIOS)[0][0])
        except Exception as exc:  # noqa: BLE001 - any failure in a thread is collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len({id(c) for c, _ in seen.values()}) == 8  # objects kept alive, ids distinct
    assert {n for _, n in seen.values()} == {192}


def test_refresh_follows_a_new_publication(empty_settings, clock):
    run_etl([SourceSpec(RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv")], empty_settings, clock=clock)
    store = Store(empty_settings)
    first = store.dataset_version
    old_cursor = store.cursor()
    run_etl([SourceSpec(FIXTURES / "etl" / "leon_revision.csv")], empty_settings, clock=clock)
    assert store.refresh() != first
    assert store.dataset_version != first
    # A cursor handed out before keeps reading its own (immutable) version.
    assert old_cursor.execute("SELECT count(*) FROM incidents").fetchone()[0] > 0
