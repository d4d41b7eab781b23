"""The optional national store (core/etl/national.py): a folder of Parquet parts read as one source, ``build --nacional``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from core.cli import main
from core.config import Limits
from core.errors import ValidacionError
from core.etl.layouts.parquet_tipo import PART_STRIDE
from core.etl.publish import Depot
from core.etl.sources import open_sources
from tests.conftest import FIXTURES, version_table

MINI = FIXTURES / "etl" / "nacional" / "municipal_tipo_mini.parquet"
INEGI = FIXTURES.parent.parent / "data" / "raw" / "nacional" / "municipios_inegi_mg2023.csv"


@pytest.fixture
def parts(tmp_path) -> Path:
    """Two parts of the same schema: the mini fixture and its León rows a year later."""
    folder = tmp_path / "partes"
    folder.mkdir()
    shutil.copy(MINI, folder / "part.0.parquet")
    duckdb.sql(
        f"""COPY (SELECT Fecha + INTERVAL 1 YEAR AS Fecha, * EXCLUDE (Fecha) FROM read_parquet('{MINI}')
                  WHERE Municipio = 'León') TO '{folder / "part.1.parquet"}' (FORMAT parquet)"""
    )
    return folder


def test_a_folder_of_parts_is_one_parquet_source(tmp_path, parts):
    (src,) = open_sources([parts], tmp_path / "work", Limits())
    assert (src.kind, src.path, src.header[0]) == ("parquet", parts / "*.parquet", "Fecha")


def test_a_folder_with_other_files_is_refused(tmp_path, parts):
    (parts / "notas.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(ValidacionError, match=r"solo archivos \.parquet"):
        open_sources([parts], tmp_path / "work", Limits())


def test_build_nacional_makes_a_store_of_its_own(tmp_path, parts, monkeypatch, capsys):
    raw = tmp_path / "raw"
    raw.mkdir()
    shutil.copy(INEGI, raw / INEGI.name)
    (raw / "manifest.json").write_text(json.dumps({"files": [{"path": INEGI.name}]}), encoding="utf-8")
    monkeypatch.setenv("CASANDRA_NATIONAL_PARTS", str(parts))
    data = tmp_path / "data"
    assert main(["--data-dir", str(data), "build", "--nacional", "--raw-dir", str(raw), "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "published"
    assert Depot(data / "store").current_id() is None  # the default store is not touched
    obs = version_table(data / "nacional" / "store", "observations")
    rows = duckdb.sql(
        f"""SELECT source_row // {PART_STRIDE} AS part, count(*) FROM {obs}
            WHERE lugar_id = 'GTO.MUN.LEON' GROUP BY 1 ORDER BY 1"""
    ).fetchall()
    assert rows == [(0, 4), (1, 4)]  # León's rows of each part (the NULL count of each is never a zero)


def test_build_nacional_without_the_parts_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CASANDRA_NATIONAL_PARTS", str(tmp_path / "no-existe"))
    assert main(["--data-dir", str(tmp_path / "data"), "build", "--nacional", "--quiet"]) == 2
    assert "CASANDRA_NATIONAL_PARTS" in capsys.readouterr().err
