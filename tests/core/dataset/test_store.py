"""The Consultor: read-only, one connection per process, a cursor per thread."""

from __future__ import annotations

import threading

import duckdb
import pytest

from core.dataset.store import Store, get_store
from core.errors import DatosFaltantesError
from core.etl import SourceSpec, run_etl
from tests.conftest import FIXTURES, RAW


def test_empty_store_says_so_in_spanish(empty_settings):
    store = Store(empty_settings)
    assert store.is_empty()
    with pytest.raises(DatosFaltantesError, match="No hay datos publicados"):
        store.metadata()
    with pytest.raises(DatosFaltantesError):
        store.cursor()


@pytest.mark.parametrize(
    "statement",
    [
        "COPY incidents TO '/tmp/casandra-leak.parquet'",
        "SELECT * FROM read_csv('/etc/passwd')",
        "ATTACH '/tmp/casandra-other.duckdb'",
        "SET enable_external_access = true",
        "INSTALL httpfs",
    ],
)
def test_store_connection_cannot_reach_other_files(bundled_settings, statement):
    store = Store(bundled_settings)
    with pytest.raises(duckdb.Error):
        store.cursor().execute(statement)


@pytest.mark.parametrize(
    "setting, value",
    [
        ("parquet_metadata_cache", True),  # a session-level SET would leave the cursors without it
        ("enable_external_access", False),
        ("lock_configuration", True),
    ],
)
def test_cursors_have_the_store_settings(bundled_settings, setting, value):
    cur = Store(bundled_settings).cursor()
    assert cur.execute(f"SELECT current_setting('{setting}')").fetchall()[0][0] == value


def test_one_cursor_per_thread(bundled_settings):
    store = get_store(bundled_settings)
    assert get_store(bundled_settings) is store
    seen, errors = {}, []

    def work(i):
        try:
            cur = store.cursor()
            assert store.cursor() is cur
            seen[i] = (cur, store.query("SELECT sum(eventos) FROM incidents WHERE delito = 'feminicidio'")[0][0])
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
