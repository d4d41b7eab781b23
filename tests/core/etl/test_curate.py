"""Curation (core.etl.curate): counts DuckDB would read too kindly, labels that make no key."""

from __future__ import annotations

import pytest

from core.config import load_settings
from core.dataset.store import Store
from core.etl import SourceSpec, run_etl
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow  # each test loads a fixture into a fresh store

ETL = FIXTURES / "etl"


@pytest.mark.parametrize("direct", [True, False], ids=["camino_directo", "camino_general"])
def test_a_count_written_with_underscores_is_quarantined(tmp_path, clock, monkeypatch, direct):
    # DuckDB's casts read '1_000' as 1000; a person's file never means it.
    monkeypatch.setenv("CASANDRA_ETL_DIRECT", "1" if direct else "0")
    settings = load_settings(tmp_path / "data")
    result = run_etl([SourceSpec(ETL / "underscore_count.csv")], settings, clock=clock)
    report = result.summary["archivos"][0]
    assert report["motivos_cuarentena"] == {"conteo no numérico": 1}
    store = Store(settings)
    assert store.query("SELECT source_row, motivo, valores FROM quarantine") == [
        (4, "conteo no numérico (marzo)", "1_000")
    ]
    assert store.query("SELECT max(eventos) FROM incidents")[0][0] < 1000
    assert report["celdas_validas"] == 8 * 12 - 1


def test_labels_that_make_no_key_are_quarantined_with_a_reason(empty_settings, clock):
    result = run_etl([SourceSpec(ETL / "empty_keys.csv")], empty_settings, clock=clock)
    report = result.summary["archivos"][0]
    assert report["filas_en_cuarentena"] == 4
    store = Store(empty_settings)
    reasons = dict(store.query("SELECT DISTINCT source_row, split_part(motivo, ' (', 1) FROM quarantine"))
    assert reasons == {
        3: "subtipo de delito sin letras ni números",
        4: "modalidad sin letras ni números",
        5: "nombre de municipio sin letras ni números",
        6: "tipo de delito sin letras ni números",
    }
    keys = store.query(
        """SELECT DISTINCT k FROM (SELECT delito AS k FROM crimes UNION ALL SELECT tipo_key FROM crimes
           UNION ALL SELECT metodo FROM methods UNION ALL SELECT entidad_id FROM entities
           UNION ALL SELECT delito FROM incidents UNION ALL SELECT metodo FROM incidents)
           WHERE k IS NULL OR k = '' OR k LIKE '%.MUN.'"""
    )
    assert keys == []
    assert store.query("SELECT count(*) FROM incidents") == [(12,)]
