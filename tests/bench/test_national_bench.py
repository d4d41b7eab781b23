"""The national section of ``make bench`` (bench/national.py): it reads the real national parts or says it skips."""

from __future__ import annotations

import json

import pytest

from bench import national, national_store, report_builds, report_national
from bench import run as bench_run
from bench.national_cases import NationalConfig, cases


@pytest.mark.parametrize("folder", ["no-existe", "vacia"])
def test_without_the_parts_the_section_says_so_and_skips(tmp_path, monkeypatch, folder):
    (tmp_path / "vacia").mkdir()
    monkeypatch.setenv("CASANDRA_NATIONAL_PARTS", str(tmp_path / folder))
    assert national_store.parts_folder() is None
    logged: list[str] = []
    out = national.run(NationalConfig(runs=1, warmup=0), tmp_path / "work", log=logged.append)
    assert out == {"omitido": national.NO_PARTS} and "CASANDRA_NATIONAL_PARTS" in logged[0]
    assert not (tmp_path / "work").exists()  # nothing built
    assert "omitida" in report_national.summary_rows(out)[0][2]
    assert "Sección omitida" in "\n".join(report_national.section(out))


def test_the_cases_cover_the_national_tools_and_read_no_synthetic_country():
    tools = {c.tool for c in cases(NationalConfig())}
    assert tools == {"ranking_estados", "victimas_sexo_edad", "fuero_federal"}
    assert "rank_por_delito" in {c.tool for c in cases(NationalConfig(estado="GTO"))}  # a state's municipalities
    assert not hasattr(national, "build_national")  # the synthetic country is gone from this section


SUMMARY = {
    "default_build_s": 24.8,
    "default_ok": True,
    "national_build_s": 120.0,
    "national_peak_rss_gb": 1.27,
    "national_rss_ok": True,
    "parts_load_s": 95.2,
    "bare_copy_s": 7.1,
    "parts_vs_copy": 13.41,
}


@pytest.mark.parametrize(
    "written,rows,text",
    [
        (None, 0, "Sin medir: `python -m bench.national_parts`"),
        ({"summary": SUMMARY}, 3, "| almacén por omisión (`python -m core build`) | 24.8 s |"),
    ],
)
def test_the_store_builds_join_the_etl_part_of_the_report(tmp_path, written, rows, text):
    path = tmp_path / "national_parts.json"
    if written:
        path.write_text(json.dumps(written), encoding="utf-8")
    summary = report_builds.load(path=path)
    assert len(report_builds.summary_rows(summary)) == rows
    assert text in "\n".join(report_builds.section(summary))


@pytest.mark.parametrize("section", [{"summary": SUMMARY}, {"omitido": "escala de prueba"}])
def test_make_bench_s_builds_section_comes_before_an_older_file(tmp_path, section):
    """``make bench`` measures item 8 itself (section «builds»); a skipped section falls back to the file."""
    path = tmp_path / "national_parts.json"
    path.write_text(json.dumps({"summary": {**SUMMARY, "default_build_s": 99.9}}), encoding="utf-8")
    summary = report_builds.load(section, path=path)
    expected = 24.8 if "summary" in section else 99.9
    assert summary["default_build_s"] == expected
    assert "builds" in bench_run.SECTIONS and bench_run.scale("toy").builds_repeats == 0
