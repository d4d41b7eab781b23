"""Issue 14 item 8 in BENCHMARKS.md's ETL part: the store builds measured by ``python -m bench.national_parts``.

Reads ``bench/out/national_parts.json`` (absent until that measurement ran): the default store's
build (target ≤ 60 s), the national store's peak RSS (≤ 2 GB) and the national parts' own load
against DuckDB's bare ``COPY (SELECT …) TO`` Parquet of the same rows (≤ 2×).
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.common import OUT_DIR
from bench.report_fmt import fmt as _f
from bench.report_fmt import ok as _ok
from bench.report_fmt import table as _table

FILE = OUT_DIR / "national_parts.json"


def load(section: dict | None = None, path: Path = FILE) -> dict | None:
    """The measurement's summary: the run's «builds» section, else ``python -m bench.national_parts``'s file."""
    if section and "summary" in section:
        return section["summary"]
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8")).get("summary")


def summary_rows(s: dict | None) -> list[list]:
    """The item-8 rows of the «Objetivos» table (none without a measurement)."""
    if not s:
        return []
    return [
        ["8", "almacén por omisión ≤ 60 s", f"{_f(s['default_build_s'])} s", _ok(s["default_ok"])],
        ["8", "almacén nacional: pico RSS ≤ 2 GB", f"{_f(s['national_peak_rss_gb'], 2)} GB", _ok(s["national_rss_ok"])],
        [
            "8",
            "partes nacionales ≤ 2× `COPY` Parquet",
            f"{_f(s['parts_vs_copy'], 1)}× ({_f(s['parts_load_s'])} s frente a {_f(s['bare_copy_s'])} s)",
            _ok(s["parts_vs_copy"] is not None and s["parts_vs_copy"] <= 2.0),
        ],
    ]


def section(s: dict | None) -> list[str]:
    """The «Construcción de los almacenes» table (a line saying how to measure it, without a measurement)."""
    out = ["### Construcción de los almacenes (issue 14, punto 8)", ""]
    if not s:
        return [*out, "Sin medir: `python -m bench.national_parts` escribe `bench/out/national_parts.json`.", ""]
    out += _table(
        ["medida", "valor"],
        [
            ["almacén por omisión (`python -m core build`)", f"{_f(s['default_build_s'])} s"],
            ["almacén nacional (`build --nacional`)", f"{_f(s['national_build_s'])} s"],
            ["pico RSS del almacén nacional", f"{_f(s['national_peak_rss_gb'], 2)} GB"],
            ["carga propia de las 36 partes (nacional − por omisión)", f"{_f(s['parts_load_s'])} s"],
            ["`COPY (SELECT …) TO` Parquet de las mismas filas", f"{_f(s['bare_copy_s'])} s"],
            ["razón partes ÷ copia", f"{_f(s['parts_vs_copy'], 1)}×"],
        ],
    )
    if s.get("load_1m"):
        load = ", ".join(f"{k} {v}" for k, v in s["load_1m"].items())
        out += ["", f"Carga promedio de 1 min al terminar cada corrida usada (2 núcleos): {load}."]
    out.append("")
    return out
