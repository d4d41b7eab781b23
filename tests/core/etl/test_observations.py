"""One number per cell (core/etl/observations.py, docs/decisions/0011): finer level first, then the newer cut."""

from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import pytest

from core.clock import FixedClock
from core.etl import SourceSpec, run_etl
from core.etl.publish import Depot
from tests.conftest import FIXTURES

STATE = FIXTURES / "etl" / "nacional" / "estatal_idefc_mini.csv"
LEON = FIXTURES / "etl" / "leon_revision.csv"  # León, homicidio doloso con arma de fuego, 2024 (a wide file)
CLOCK = FixedClock(datetime(2026, 4, 1, tzinfo=UTC))


def _rows(settings, sql: str) -> list[tuple]:
    path = Depot(settings.store_dir).table_path("observations")
    return duckdb.sql(sql.replace("{t}", f"read_parquet('{path}')")).fetchall()


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
