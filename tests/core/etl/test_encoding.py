"""Encodings of uploaded files (core.etl.encoding): one file mixing UTF-8 and latin-1 lines."""

from __future__ import annotations

import pytest

from core.config import Limits
from core.dataset.store import Store
from core.errors import DatosFaltantesError
from core.etl import SourceSpec, run_etl
from core.etl.sources import open_sources, sha256_file
from tests.conftest import FIXTURES

ETL = FIXTURES / "etl"
MIXED = ETL / "mixed_encoding.csv"


def test_a_file_mixing_utf8_and_latin1_lines_is_read_line_by_line_with_a_warning(tmp_path):
    [src] = open_sources([MIXED], tmp_path / "work", Limits())
    assert (src.encoding, src.duckdb_encoding) == ("mixta", "utf-8")
    assert src.path != MIXED and src.sha256 == sha256_file(MIXED)  # a UTF-8 copy; the hash is the upload's
    text = src.path.read_text(encoding="utf-8").splitlines()
    assert [line.split(",")[4] for line in text[1:]] == [
        "Tonalá",
        "Tlajomulco de Zúñiga",
        "San Pedro Tlaquepaque",
        "Zapotlán el Grande",
        "Tlajomulco de Zúñiga",
    ]
    [warning] = src.warnings
    assert "2 líneas en UTF-8" in warning and "2 en latin-1" in warning and "línea 3" in warning


def test_mixed_lines_publish_the_right_labels_and_report_the_repair(empty_settings, clock):
    result = run_etl([SourceSpec(MIXED)], empty_settings, clock=clock)
    report = result.summary["archivos"][0]
    assert report["codificacion"] == "mixta"
    assert any("mezclaba codificaciones" in w for w in report["advertencias"])
    labels = dict(Store(empty_settings).query("SELECT cve, label FROM entities WHERE nivel = 'municipio'"))
    assert labels == {
        "14023": "Zapotlán el Grande",
        "14097": "Tlajomulco de Zúñiga",
        "14098": "San Pedro Tlaquepaque",
        "14101": "Tonalá",
    }


def test_one_line_holding_both_encodings_is_refused(tmp_path):
    with pytest.raises(DatosFaltantesError, match="línea 3") as info:
        open_sources([ETL / "mixed_encoding_one_line.csv"], tmp_path / "work", Limits())
    assert "mezcla" in info.value.details and str(tmp_path) not in info.value.details
    assert not list((tmp_path / "work").rglob("*.csv"))  # no copy is left behind


@pytest.mark.parametrize(
    "data, encoding",
    [
        ("Año,Municipio\n2020,León\n".encode(), "utf-8"),
        ("Año,Municipio\n2020,León\n".encode("latin-1"), "latin-1"),
        ("Año,Nota\n2020,Enero – Marzo\n".encode("cp1252"), "cp1252"),
        # Ñ then º in latin-1 is also valid UTF-8 (a Cyrillic letter): not a Spanish text, so one encoding.
        ("Año,Nota\n2020,AÑº\n".encode("latin-1"), "latin-1"),
    ],
)
def test_files_in_one_encoding_are_not_called_mixed(tmp_path, data, encoding):
    path = tmp_path / "uno.csv"
    path.write_bytes(data)
    [src] = open_sources([path], tmp_path / "work", Limits())
    assert (src.encoding, src.warnings) == (encoding, ())
