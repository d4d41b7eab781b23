"""Smoke run of the benchmarks at toy size: 3 municipalities × 2 crimes × 1 year and a ~1 MB CSV.

Not a measurement: it checks that every benchmark function runs, that the JSON has its
shape, that each tool's answer equals the hand-written SQL, and that the report renders.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from bench import etl_throughput, national, report, synth
from bench import run as bench_run
from core.etl.publish import Depot
from tests.conftest import FIXTURES

MINI = FIXTURES / "etl" / "nacional" / "municipal_tipo_mini.parquet"

pytestmark = pytest.mark.slow  # builds a national store and a synthetic country and runs the benchmark harness


@pytest.fixture(scope="module")
def profile_dir(bundled_settings):
    depot = Depot(bundled_settings.store_dir)
    return depot.version_dir(depot.current_id())


def test_generator_is_deterministic_latin1_idm_nm(tmp_path, profile_dir):
    profile = synth.load_profile(profile_dir)
    a = synth.generate(tmp_path / "a", profile, {"15": 2}, [2024], ["homicidio_doloso"], population=False)
    b = synth.generate(tmp_path / "b", profile, {"15": 2}, [2024], ["homicidio_doloso"], population=False)
    data = (tmp_path / "a" / "IDM_NM_sintetico.csv").read_bytes()
    assert data == (tmp_path / "b" / "IDM_NM_sintetico.csv").read_bytes()
    header = data.split(b"\n", 1)[0].decode("latin-1")
    assert header.split(",") == synth.HEADER
    assert "México" in data.decode("latin-1") and b"M\xe9xico" in data  # latin-1, not UTF-8
    assert a["rows"] == 2 * 4 and a["cells"] == a["rows"] * 12 == b["cells"]
    assert len(synth.sesnsp_rows()) == 98


def test_benchmarks_toy_size(tmp_path, profile_dir, monkeypatch):
    profile = synth.load_profile(profile_dir)
    sc = bench_run.scale("toy")
    parts = tmp_path / "partes"  # the national section reads parts: here the mini fixture as the only one
    parts.mkdir()
    shutil.copy(MINI, parts / "part.0.parquet")
    monkeypatch.setenv("CASANDRA_NATIONAL_PARTS", str(parts))
    cfg = replace(sc.national, estado="GTO", years=[2023, 2024])  # Guanajuato's municipal cells are bundled
    nat = national.run(cfg, tmp_path / "national", log=lambda m: None, profile=profile, reuse=False)
    assert nat["store"]["archivos_partes"] == 1 and nat["store"]["row_counts"]["observations"] > 0
    national_tools = {"ranking_estados", "victimas_sexo_edad", "fuero_federal"}
    assert national_tools <= {c["herramienta"] for c in nat["casos"]}
    # The national tools answer like their SQL; the municipal ones over Guanajuato also read its subtipo cells
    # beside the parquet's tipo rows, whose one-number-per-cell rule the hand-written SQL does not repeat.
    bad = [
        (c["caso"], c.get("error") or c.get("diferencia"))
        for c in nat["casos"]
        if "error" in c or (c["herramienta"] in national_tools and not c["respuestas_iguales"])
    ]
    assert not bad, bad
    for c in nat["casos"]:
        assert {"tool_ms", "execute_ms", "sql_ms", "ratio_p50", "ratio_p95", "desglose"} <= set(c)
        assert c["tool_ms"]["n"] == cfg.runs and c["sql_ms"]["p95"] is not None
    etl = etl_throughput.run(sc.etl, tmp_path / "etl", profile, log=lambda m: None)
    assert 0.5e6 < etl["archivo"]["bytes"] < 2e6
    assert [r["returncode"] for r in etl["etl"]["corridas"]] == [0]
    assert etl["etl"]["corridas"][0]["row_counts"]["incidents"] == etl["archivo"]["cells"]
    assert [r["returncode"] for r in etl["copia_duckdb"]["corridas"]] == [0]
    assert etl["ratio_p50"] > 0 and etl["etl"]["pico_rss_mb_max"] > 0
    results = {
        "generado": "hoy",
        "escala": "toy",
        "maquina": bench_run.machine(),
        "duracion_total_s": 1.0,
        "secciones": {"national": nat, "etl": etl, "browser": {"omitido": bench_run.NOT_YET}},
    }
    json.dumps(results, default=str)
    md = report.render(results)
    assert "## Objetivos" in md and "### Razones" in md and "## Pendientes" in md
    # issue 14 §8's decided targets: ≤ 1.0× the bare unpivot and ≤ 2.5× the copy (not the old ≤ 1.5× the copy)
    assert "ETL ≤ 1.0× el despivote" in md and "ETL ≤ 2.5× la copia" in md and "≤ 1.5×" not in md
