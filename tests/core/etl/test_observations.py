"""One number per cell (core/etl/observations.py, docs/decisions/0011): finer level first, then the newer cut."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest

from core.clock import FixedClock
from core.dataset.store import Store
from core.etl import SourceSpec, query_db, run_etl
from core.etl.publish import Depot
from tests.conftest import FIXTURES, version_table, with_parquet_tables

STATE = FIXTURES / "etl" / "nacional" / "estatal_idefc_mini.csv"
LEON = FIXTURES / "etl" / "leon_revision.csv"  # León, homicidio doloso con arma de fuego, 2024 (a wide file)
CLOCK = FixedClock(datetime(2026, 4, 1, tzinfo=UTC))


def _rows(settings, sql: str) -> list[tuple]:
    return duckdb.sql(sql.replace("{t}", version_table(settings.store_dir, "observations"))).fetchall()


def _newer_cut(tmp_path, december: int, january: int):
    """The state file of a later cut: Guanajuato's December 2024 published, January revised."""
    text = STATE.read_bytes().decode("latin-1")
    old = "2024,11,Guanajuato,La vida y la Integridad corporal,Homicidio,Homicidio doloso,Con arma de fuego,190,"
    assert text.count(old) == 1
    line = next(x for x in text.split("\r\n") if x.startswith(old))
    new = line.replace(",190,", f",{january},", 1)[: -len(",")] + f",{december}"
    path = tmp_path / "estatal_corte_nuevo.csv"
    path.write_bytes(text.replace(line, new).encode("latin-1"))
    return path


@pytest.mark.parametrize(
    "where,expected",
    [
        # León's municipal cells cover Guanajuato's homicidio doloso 2024: the state rows stand aside.
        ("lugar_id = 'GTO' AND delito = 'homicidio_doloso'", [(False, "municipal", 11)]),
        # No municipal data for Jalisco, nor for Guanajuato's violencia familiar here: the state rows stand.
        ("lugar_id = 'JAL'", [(True, None, 11)]),
        ("lugar_id = 'GTO' AND delito = 'violencia_familiar'", [(True, None, 12)]),
    ],
)
def test_finer_level_first(empty_settings, where, expected):
    run_etl([SourceSpec(LEON), SourceSpec(STATE)], empty_settings, clock=CLOCK)
    sql = f"SELECT vigente, sustituida_por, count(*) FROM {{t}} WHERE {where} GROUP BY ALL"
    assert _rows(empty_settings, sql) == expected


def test_finer_level_first_whatever_the_order_of_the_loads(empty_settings):
    run_etl([SourceSpec(STATE)], empty_settings, clock=CLOCK)
    sql = "SELECT vigente, count(*) FROM {t} WHERE lugar_id = 'GTO' AND delito = 'homicidio_doloso' GROUP BY ALL"
    assert _rows(empty_settings, sql) == [(True, 11)]
    run_etl([SourceSpec(LEON)], empty_settings, clock=CLOCK)
    assert _rows(empty_settings, sql) == [(False, 11)]


def test_newer_cut_first(empty_settings, tmp_path):
    run_etl([SourceSpec(STATE)], empty_settings, clock=CLOCK)
    newer = _newer_cut(tmp_path, december=125, january=191)
    run_etl([SourceSpec(newer)], empty_settings, clock=CLOCK)
    sql = """SELECT month(fecha), eventos, corte, source_file FROM {t}
             WHERE lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND month(fecha) IN (1, 2, 12) ORDER BY 1"""
    expected = [
        (1, 191, datetime(2024, 12, 1).date(), "estatal_corte_nuevo.csv"),
        (2, 150, datetime(2024, 12, 1).date(), "estatal_corte_nuevo.csv"),
        (12, 125, datetime(2024, 12, 1).date(), "estatal_corte_nuevo.csv"),
    ]
    assert _rows(empty_settings, sql) == expected
    # Loading the older cut again afterwards changes nothing: the newer cut keeps every cell it holds.
    run_etl([SourceSpec(STATE)], empty_settings, clock=CLOCK)
    assert _rows(empty_settings, sql) == expected
    assert _rows(empty_settings, "SELECT count(*), count(DISTINCT row_id) FROM {t}") == [(56, 56)]


def test_the_same_files_again_publish_nothing(empty_settings):
    first = run_etl([SourceSpec(LEON), SourceSpec(STATE)], empty_settings, clock=CLOCK)
    again = run_etl([SourceSpec(LEON), SourceSpec(STATE)], empty_settings, clock=CLOCK)
    assert first.published and not again.published
    assert again.summary["status"] == "unchanged"


# A version published before session 20 kept its observations as Parquet (and may not have its query database yet);
# one published since keeps them only in its query database (core/etl/merge.py DB_ONLY, docs/decisions/0015).
NEWER_CUT = """SELECT month(fecha), eventos, source_file FROM {t}
               WHERE lugar_id = 'GTO' AND delito = 'homicidio_doloso' AND month(fecha) IN (1, 12) ORDER BY 1"""


def _as_published_before(store_dir, query_db_too: bool) -> None:
    with_parquet_tables(store_dir)
    if not query_db_too:
        for db in store_dir.glob(f"versions/*/{query_db.FILE}"):
            db.unlink()


@pytest.mark.parametrize("kept", ["query_db", "parquet_and_query_db", "parquet"])
def test_the_next_load_reads_the_observations_wherever_the_version_keeps_them(empty_settings, tmp_path, kept):
    first = run_etl([SourceSpec(STATE)], empty_settings, clock=CLOCK)
    folder = Depot(empty_settings.store_dir).version_dir(first.dataset_version)
    assert not (folder / "observations.parquet").exists()
    if kept != "query_db":
        _as_published_before(empty_settings.store_dir, query_db_too=kept == "parquet_and_query_db")
    # the same file again: the current observations are read whole, so nothing changed
    assert not run_etl([SourceSpec(STATE)], empty_settings, clock=CLOCK).published
    run_etl([SourceSpec(_newer_cut(tmp_path, december=125, january=191))], empty_settings, clock=CLOCK)
    assert _rows(empty_settings, NEWER_CUT) == [
        (1, 191, "estatal_corte_nuevo.csv"),
        (12, 125, "estatal_corte_nuevo.csv"),
    ]
    assert _rows(empty_settings, "SELECT count(*), count(DISTINCT row_id) FROM {t}") == [(56, 56)]


def test_a_rollback_to_a_version_published_with_its_parquet_observations(empty_settings, tmp_path):
    depot = Depot(empty_settings.store_dir)
    first = run_etl([SourceSpec(STATE)], empty_settings, clock=CLOCK)
    _as_published_before(empty_settings.store_dir, query_db_too=False)
    newer = _newer_cut(tmp_path, december=125, january=191)
    second = run_etl([SourceSpec(newer)], empty_settings, clock=CLOCK)
    assert not (depot.version_dir(second.dataset_version) / "observations.parquet").exists()
    depot.rollback(first.dataset_version, "2026-04-02T00:00:00+00:00")
    assert _rows(empty_settings, NEWER_CUT) == [(1, 190, "estatal_idefc_mini.csv")]
    # the Consultor opens the older version: its query database is written once from its Parquet files
    assert Store(empty_settings).query("SELECT count(*) FROM observations") == [(55,)]
    # and back to the newer version, whose observations are only in its query database
    depot.rollback(second.dataset_version, "2026-04-03T00:00:00+00:00")
    assert _rows(empty_settings, NEWER_CUT)[0] == (1, 191, "estatal_corte_nuevo.csv")
    assert not run_etl([SourceSpec(newer)], empty_settings, clock=CLOCK).published
