"""The direct IDM_NM path gives exactly what the general path gives, and steps aside when it must.

Each case writes a small IDM_NM file (the first lines of the bundled homicide file, then
one mutation), loads it with the direct path allowed and with it forbidden, and compares
the summaries and every published table row by row.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest

from core.config import load_settings
from core.etl import SourceSpec, direct, run_etl
from core.etl import pipeline as etl_pipeline
from core.etl.publish import Depot
from tests.conftest import RAW, version_table

pytestmark = pytest.mark.slow  # loads whole IDM_NM files through both ETL paths

HOMICIDE = RAW / "sesnsp" / "IDM_NM_gto_homicidio_2020-2025.csv"
HEAD = HOMICIDE.read_text(encoding="utf-8").splitlines()[:41]  # header + 40 lines
TABLES = ("incidents", "annual", "population", "entities", "crimes", "methods", "coverage")


def _swap(line: str, index: int, value: str) -> str:
    cells = line.split(",")
    cells[index] = value
    return ",".join(cells)


# (case, mutate(lines) -> lines, direct path expected to take the file)
CASES = [
    ("limpio", lambda ls: ls, True),
    ("mes vacío", lambda ls: ls[:5] + [_swap(ls[5], 20, "")] + ls[6:], True),
    ("conteo decimal", lambda ls: ls[:5] + [_swap(ls[5], 12, "3.5")] + ls[6:], False),
    ("conteo negativo", lambda ls: ls[:5] + [_swap(ls[5], 12, "-2")] + ls[6:], False),
    ("conteo con texto", lambda ls: ls[:5] + [_swap(ls[5], 12, "n/d")] + ls[6:], False),
    ("año inválido", lambda ls: ls[:5] + [_swap(ls[5], 0, "1850")] + ls[6:], False),
    ("municipio nuevo con nombre", lambda ls: ls[:5] + [_swap(ls[5], 3, "11999")] + ls[6:], True),
    ("estado inexistente", lambda ls: ls[:5] + [_swap(ls[5], 3, "99001")] + ls[6:], False),
    ("municipio de otra entidad", lambda ls: ls[:5] + [_swap(ls[5], 3, "14039")] + ls[6:], False),
    ("línea repetida", lambda ls: ls + [ls[7]], False),
    ("columna de más", lambda ls: ls[:5] + [ls[5] + ",7"] + ls[6:], False),
    ("tipo vacío", lambda ls: ls[:5] + [_swap(ls[5], 6, "")] + ls[6:], False),
    ("municipio con otro nombre", lambda ls: ls[:5] + [_swap(ls[5], 4, "Leon de los Aldama")] + ls[6:], True),
]


def _load(tmp: Path, csv: Path, allow_direct: bool, used: list) -> tuple[dict, dict]:
    settings = replace(load_settings(tmp), etl_direct=allow_direct)
    real = direct.load_direct

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        used.append(out is not None)
        return out

    etl_pipeline.direct.load_direct = spy
    try:
        result = run_etl([SourceSpec(csv)], settings)
    finally:
        etl_pipeline.direct.load_direct = real
    tables = {}
    depot = Depot(settings.store_dir)
    tables["content_hash"] = depot.metadata()["content_hash"]  # the digest sees the same cells
    for t in TABLES:
        con = duckdb.connect()
        tables[t] = sorted(map(repr, con.execute(f"SELECT * FROM {version_table(depot.root, t, con)}").fetchall()))
        con.close()
    return result.summary, tables


def _comparable(summary: dict) -> dict:
    out = json.loads(json.dumps(summary, default=str))
    for key in ("load_id", "dataset_version"):
        out.pop(key, None)
    return out


@pytest.mark.parametrize("case,mutate,takes", CASES, ids=[c[0] for c in CASES])
def test_direct_and_general_paths_agree(tmp_path, case, mutate, takes):
    csv = tmp_path / "IDM_NM_caso.csv"
    csv.write_text("\n".join(mutate(list(HEAD))) + "\n", encoding="utf-8")
    used: list[bool] = []
    fast_summary, fast_tables = _load(tmp_path / "directa", csv, True, used)
    slow_summary, slow_tables = _load(tmp_path / "general", csv, False, [])
    assert used == [takes], case
    assert _comparable(fast_summary) == _comparable(slow_summary)
    for t in TABLES + ("content_hash",):
        assert fast_tables[t] == slow_tables[t], t


def test_direct_path_only_for_the_original_layout():
    from core.etl.layouts import detect_layout

    header = HEAD[0].split(",")
    assert detect_layout(header, "x.csv").direct_ready()
    assert not detect_layout(header + ["Extra"], "x.csv").direct_ready()
    reduced = [""] + [h for h in header if h not in ("Entidad", "Bien jurídico afectado")]
    assert detect_layout(reduced, "x.csv").name == "reducido"  # a reduced file has no direct path
