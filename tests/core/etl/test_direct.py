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
from core.etl import SourceSpec, direct, query_db, run_etl
from core.etl import pipeline as etl_pipeline
from core.etl.publish import Depot
from tests.conftest import RAW, version_table, with_parquet_tables

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
    # the query database too: a first load's direct path writes its incidents_cells and state sums itself
    con = duckdb.connect(str(depot.version_dir(depot.current_id()) / query_db.FILE), read_only=True)
    for (t,) in con.execute(
        "SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal"
    ).fetchall():
        rows = f"SELECT * EXCLUDE (load_id, loaded_at) FROM {t}" if t == "quarantine" else f"SELECT * FROM {t}"
        tables[f"query_db.{t}"] = (
            con.execute(f"DESCRIBE {t}").fetchall(),
            sorted(map(repr, con.execute(rows).fetchall())),
        )
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
    assert {t for t in fast_tables if t.startswith("query_db.")} >= {"query_db.incidents_cells", "query_db.incidents"}
    assert set(fast_tables) == set(slow_tables)
    for t in fast_tables:
        assert fast_tables[t] == slow_tables[t], t


def _written_parquet(monkeypatch) -> list:
    """The Parquet files the direct path writes (its cells, when they are not the whole next version)."""
    written = []
    real = direct._write

    def spy(con, table, path):
        written.append(path.name)
        return real(con, table, path)

    monkeypatch.setattr(direct, "_write", spy)
    return written


def test_a_first_load_of_one_file_writes_its_cells_once(tmp_path, monkeypatch):
    # docs/decisions/0015, session 24: straight into the next version's query database, no Parquet copy of them
    csv = tmp_path / "IDM_NM_caso.csv"
    csv.write_text("\n".join(HEAD) + "\n", encoding="utf-8")
    written = _written_parquet(monkeypatch)
    settings = load_settings(tmp_path / "data")
    result = run_etl([SourceSpec(csv)], settings)
    depot = Depot(settings.store_dir)
    folder = depot.version_dir(result.dataset_version)
    assert written == [] and not (folder / "incidents.parquet").exists()
    con = duckdb.connect(str(folder / query_db.FILE), read_only=True)
    cells = con.execute("SELECT count(*), count(DISTINCT row_id) FROM incidents_cells").fetchone()
    assert cells == (result.summary["row_counts"]["incidents"],) * 2 == (480,) * 2
    con.close()
    # a second file beside it: the direct path writes its own cells as Parquet, merged into the version as before
    other = tmp_path / "IDM_NM_otro.csv"
    other.write_text("\n".join([HEAD[0]] + [_swap(line, 0, "2019") for line in HEAD[1:]]) + "\n", encoding="utf-8")
    again = run_etl([SourceSpec(csv), SourceSpec(other)], load_settings(tmp_path / "data2"))
    assert written == ["direct_1.parquet", "direct_2.parquet"] and again.summary["row_counts"]["incidents"] == 960


@pytest.mark.parametrize("kept", ["query_db", "parquet_and_query_db", "parquet"])
def test_the_next_load_reads_the_cells_wherever_the_version_keeps_them(tmp_path, kept):
    csv = tmp_path / "IDM_NM_caso.csv"
    csv.write_text("\n".join(HEAD) + "\n", encoding="utf-8")
    settings = load_settings(tmp_path / "data")
    first = run_etl([SourceSpec(csv)], settings)
    if kept != "query_db":  # a version published before session 24 (with_parquet_tables: its cells as Parquet)
        with_parquet_tables(settings.store_dir)
        if kept == "parquet":
            (Depot(settings.store_dir).version_dir(first.dataset_version) / query_db.FILE).unlink()
    same = run_etl([SourceSpec(csv)], settings)
    assert not same.published and same.summary["cambios"]["totales"]["iguales"] == 480
    revised = tmp_path / "IDM_NM_revision.csv"
    revised.write_text("\n".join([HEAD[0], _swap(HEAD[1], 12, "999")]) + "\n", encoding="utf-8")
    changed = run_etl([SourceSpec(revised)], settings)
    assert changed.summary["cambios"]["totales"] == {"agregadas": 0, "eliminadas": 0, "cambiadas": 1, "iguales": 479}
    con = duckdb.connect()
    rel = version_table(settings.store_dir, "incidents", con)
    assert con.execute(f"SELECT count(*), count(DISTINCT row_id), max(eventos) FROM {rel}").fetchone()[:2] == (480, 480)
    assert con.execute(f"SELECT count(*) FROM {rel} WHERE eventos = 999").fetchone()[0] == 1
    con.close()


def test_direct_path_only_for_the_original_layout():
    from core.etl.layouts import detect_layout

    header = HEAD[0].split(",")
    assert detect_layout(header, "x.csv").direct_ready()
    assert not detect_layout(header + ["Extra"], "x.csv").direct_ready()
    reduced = [""] + [h for h in header if h not in ("Entidad", "Bien jurídico afectado")]
    assert detect_layout(reduced, "x.csv").name == "reducido"  # a reduced file has no direct path
