"""Smoke run of the browser benchmark (item 5) at toy size: one question, one repeat, in Chromium.

Not a measurement: it checks that the server starts, that the ask is timed up to a rendered
answer (chart and table drawn), that the JSON has its shape and that BENCHMARKS.md renders
the section. Marked ``browser``: skips without /usr/bin/chromium, fails under CI=true.
"""

from __future__ import annotations

import json

import pytest

from bench import browser, browser_report, report
from bench import run as bench_run
from bench.common import ROOT
from tests.browser.conftest import unavailable

TOP5 = "¿Cuáles son los 5 municipios con más homicidios dolosos en 2024?"


@pytest.fixture
def chromium_ready() -> None:
    ok, why = browser.available()
    if not ok:
        unavailable(why)


@pytest.mark.browser
def test_browser_bench_times_one_rendered_answer(tmp_path, chromium_ready):
    res = browser.run(tmp_path, log=lambda m: None, questions=browser.QUESTIONS[:1], repeats=1)
    assert "error" not in res and not res["fallas"], res.get("error") or res["fallas"]
    (case,) = res["casos"]
    (sample,) = case["muestras"]
    assert case["caso"] == "ranking" and case["ms"]["n"] == 1 and case["pregunta"] == TOP5
    assert sample["graficas"] >= 1 and sample["tablas"] >= 1  # the answer's chart and table were drawn
    assert 0 < sample["ms"] < browser.ANSWER_TIMEOUT_MS and sample["servidor_ms"] > 0
    assert sample["repetida"] is False
    assert res["carga_inicial_ms"] > 0 and res["recarga_ms"]["n"] == 1
    assert res["cumple_p95"] == (res["total_ms"]["p95"] <= browser.TARGET_P95_MS)
    json.dumps(res)
    md = report.render(
        {
            "generado": "hoy",
            "escala": "toy",
            "maquina": bench_run.machine(),
            "duracion_total_s": 1.0,
            "secciones": {"browser": res},
        }
    )
    (row,) = [line for line in md.splitlines() if line.startswith("| 5 |")]
    assert "p95" in row and "primera carga" in row
    assert "## 5. Navegador" in md and TOP5 in md and "punto 5" not in md  # «Sin medir …: punto 5» is gone


@pytest.mark.slow  # runs the benchmark harness end to end (browser section, toy size)
def test_browser_bench_is_omitted_without_chromium(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(browser, "CHROMIUM", tmp_path / "no-chromium")
    assert bench_run.main(["--only", "browser", "--scale", "toy", "--out", str(tmp_path), "--md", ""]) == 0
    assert "Chromium no está instalado" in capsys.readouterr().out
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["secciones"]["browser"]["omitido"].startswith("Chromium no está instalado")
    md = report.render(data)
    assert "omitido: Chromium no está instalado" in md and "## 5. Navegador" in md


def _measured(p95_ms: float) -> dict:
    """A measured browser section as ``browser.run`` writes it, one case, slow enough to be pending."""
    ms = {"n": 1, "p50": p95_ms, "p95": p95_ms, "max": p95_ms}
    sample = {"pregunta": TOP5, "ms": p95_ms, "graficas": 1, "tablas": 1, "repetida": False}
    case = {
        "caso": "ranking",
        "pregunta": TOP5,
        "ms": ms,
        "listo_ms": ms,
        "ms_playwright": ms,
        "servidor_ms": ms,
        "cumple_p95": False,
        "muestras": [sample],
    }
    return {
        "navegador": "Chromium",
        "playwright": "1",
        "streamlit": "1",
        "repeticiones": 1,
        "carga_promedio": [0.1, 0.2],
        "arranque_servidor_s": 1.0,
        "carga_inicial_ms": 900.0,
        "recarga_ms": ms,
        "casos": [case],
        "total_ms": ms,
        "cumple_p95": False,
        "fallas": [],
    }


@pytest.mark.parametrize("claim", ["segunda ejecución", "primera ejecución", "st.rerun()` de Consultar"])
def test_the_bench_texts_say_a_question_runs_the_page_once(claim):
    """Consultar draws the answer in the run that asked (ui/turns.py): no text may describe a second run."""
    md = "\n".join(browser_report.section(_measured(3000.0)) + browser_report.pending(_measured(3000.0), 1))
    readme = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    assert "Una pregunta corre el guion una sola vez" in md and "hasta «Listo» p50 ms" in md
    for text in (md, " ".join(readme.split()), " ".join(browser.__doc__.split())):
        assert claim not in text
    assert "st.rerun()`` after the turn" not in browser.__doc__
