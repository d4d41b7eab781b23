"""A new upload layout is one registered class: the toy one in tests/fixtures/toy_layout loads with no edit to core."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import duckdb
import pytest

from core.errors import ValidacionError
from core.etl import SourceSpec, run_etl
from core.etl.layouts import detect_layout, registered_layouts, unregister_layout
from core.etl.publish import Depot
from tests.conftest import FIXTURES, version_table

ROOT = FIXTURES.parents[1]

TOY = FIXTURES / "toy_layout"
TOY_MODULE = "tests.fixtures.toy_layout.layout"
CSV = TOY / "resumen.csv"
HEADER = CSV.read_text(encoding="utf-8").splitlines()[0].split(",")


@pytest.fixture
def toy():
    """Import the toy module (which registers its layout); unregister it afterwards."""
    module = importlib.import_module(TOY_MODULE)
    try:
        yield module.ResumenMunicipal
    finally:
        unregister_layout(module.ResumenMunicipal)
        sys.modules.pop(TOY_MODULE, None)


def _table(settings, table: str, sql: str) -> list[tuple]:
    return duckdb.sql(sql.format(t=version_table(settings.store_dir, table))).fetchall()


def test_unknown_until_registered(toy):
    unregister_layout(toy)
    with pytest.raises(ValidacionError, match="No se reconoce el formato"):
        detect_layout(HEADER, "resumen.csv")
    importlib.reload(sys.modules[TOY_MODULE])  # registers a fresh class again
    assert detect_layout(HEADER, "resumen.csv").name == "resumen_municipal"


def test_registered_after_the_built_ins_and_detected_by_its_header(toy):
    names = [c.name for c in registered_layouts("csv")]
    assert names[-1] == "resumen_municipal"
    layout = detect_layout(HEADER, "resumen.csv")
    assert isinstance(layout, toy)
    assert layout.columns == ("periodo", "cve_municipio", "delito", "eventos")
    assert layout.describe() == {"formato": "resumen_municipal", "formato_descripcion": toy.label}


def test_refusal_lists_the_new_layout(toy):
    with pytest.raises(ValidacionError) as err:
        detect_layout(["a", "b"], "x.csv")
    assert err.value.hints[-1] == toy.hint


def test_toy_file_loads_through_the_normal_etl(toy, empty_settings, clock):
    result = run_etl([SourceSpec(CSV)], empty_settings, clock=clock)
    assert result.published
    report = result.summary["archivos"][0]
    assert (report["formato"], report["formato_descripcion"]) == ("resumen_municipal", toy.label)
    assert (report["filas"], report["celdas"], report["celdas_validas"]) == (6, 6, 5)
    assert report["filas_en_cuarentena"] == 1
    assert report["motivos_cuarentena"] == {"delito desconocido": 1}
    assert result.summary["row_counts"]["quarantine"] == 1
    rows = _table(
        empty_settings,
        "incidents",
        "SELECT delito, cve_municipio, count(*), sum(eventos) FROM {t} GROUP BY ALL ORDER BY ALL",
    )
    assert rows == [("homicidio_doloso", "11020", 3, 31), ("violencia_familiar", "11007", 2, 10)]
    coverage = _table(empty_settings, "coverage", "SELECT delito, desde, hasta FROM {t} ORDER BY delito")
    # A long layout owns the file's inferred coverage for every crime it carries.
    assert report["cobertura"] == {"origen": "inferida", "desde": "2023-01-01", "hasta": "2023-03-01"}
    assert [(d, str(a), str(b)) for d, a, b in coverage] == [
        ("homicidio_doloso", "2023-01-01", "2023-03-01"),
        ("violencia_familiar", "2023-01-01", "2023-03-01"),
    ]
    sources = Depot(empty_settings.store_dir).metadata()["sources"]
    assert [(s["archivo"], s["formato"]) for s in sources] == [("resumen.csv", "resumen_municipal")]


@pytest.mark.slow  # python -m core etl in a subprocess
@pytest.mark.parametrize("setting,code", [("", 2), (TOY_MODULE, 0)])
def test_the_cli_finds_the_layout_through_the_setting(tmp_path, setting, code):
    """``python -m core etl`` in a fresh process: refused, until CASANDRA_LAYOUT_MODULES names the module."""
    env = {**os.environ, "CASANDRA_LAYOUT_MODULES": setting}
    proc = subprocess.run(
        [sys.executable, "-m", "core", "--data-dir", str(tmp_path), "etl", "--quiet", str(CSV)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == code, proc.stderr[-500:]
    if code:
        assert "No se reconoce el formato del archivo resumen.csv" in proc.stderr
        return
    summary = json.loads(proc.stdout)
    assert summary["archivos"][0]["formato"] == "resumen_municipal"
    assert summary["row_counts"]["incidents"] == 5
