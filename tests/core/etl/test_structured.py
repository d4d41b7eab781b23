"""The structured uploads of core/etl/structured.py: Parquet by its magic bytes, ``.json`` routed by content."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from core.config import Limits
from core.errors import ValidacionError
from core.etl.sources import open_sources

ROOT = Path(__file__).resolve().parents[3]
PARQUET = ROOT / "data/raw/sesnsp/gto_municipal_tipo_modalidad_2015-01_2025-05.parquet"
IRAPUATO = ROOT / "data/raw/sesnsp/irapuato_idm_nm_2015-2025.json"
GEO = ROOT / "data/raw/geo/gto_municipios.geojson"


def describe(path: Path, tmp_path: Path, name: str | None = None):
    (src,) = open_sources([path], tmp_path / "work", Limits(), display_names=[name or path.name])
    return src


@pytest.mark.parametrize(
    "path,name,kind,first,newline",
    [
        (PARQUET, None, "parquet", "Fecha", "\n"),
        (IRAPUATO, None, "json", "Año", "\r\n"),
        (GEO, "mapa.json", "geojson", None, "\n"),  # a FeatureCollection named .json is still a map
    ],
)
def test_files_are_routed_by_content(tmp_path, path, name, kind, first, newline):
    src = describe(path, tmp_path, name)
    assert (src.kind, src.newline) == (kind, newline)
    assert (src.header[0] if src.header else None) == first


def test_the_parquet_header_is_its_schema(tmp_path):
    assert describe(PARQUET, tmp_path).header == (
        "Fecha",
        "Entidad",
        "Municipio",
        "Bien jurídico afectado",
        "Tipo de delito",
        "Modalidad",
        "Incidentes",
    )


def test_the_json_header_is_the_keys_of_its_records(tmp_path):
    header = describe(IRAPUATO, tmp_path).header
    assert header[:5] == ("Año", "Clave_Ent", "Entidad", "Cve. Municipio", "Municipio") and header[-1] == "Diciembre"


@pytest.mark.parametrize(
    "name,data,fragment",
    [
        ("datos.parquet", b"Fecha,Entidad\n2024-01-31,Guanajuato\n", "Parquet"),
        ("datos.parquet", b"PAR1" + b"\x00" * 20, "Parquet"),
        ("datos.json", b"[1, 2]", "lista de objetos"),
        ("datos.json", b"[]", "lista de objetos"),
        ("datos.json", json.dumps([{"a": "1"}, {"b": "2"}]).encode(), "mismas claves"),
        ("datos.json", json.dumps([{"a": {"b": 1}}]).encode(), "anidados"),
        ("datos.json", b"[" * 100_000, "JSON"),
        ("datos.json", '[{"a": "León"}]'.encode("latin-1"), "UTF-8"),
    ],
)
def test_bad_structured_files_are_refused_in_spanish(tmp_path, name, data, fragment):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(ValidacionError) as err:
        describe(path, tmp_path)
    assert fragment in err.value.details


def test_a_parquet_written_by_duckdb_is_accepted(tmp_path):
    path = tmp_path / "mini.parquet"
    duckdb.sql(f"COPY (SELECT 1 AS uno, 'dos' AS dos) TO '{path}' (FORMAT parquet)")
    src = describe(path, tmp_path)
    assert (src.kind, src.header, src.size_bytes) == ("parquet", ("uno", "dos"), path.stat().st_size)
