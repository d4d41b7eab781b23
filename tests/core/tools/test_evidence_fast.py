"""Evidence folded into the tools' own statements, and tools that read only the kept incident columns.

The entity tools, serie_temporal, detectar_anomalias and seasonality give the executor the evidence
summary (first row ids, row count) from the statement that computed the result; it must
equal what the executor's own evidence query returns. And every tool must work on a store
whose ``incidents`` keeps only the key columns (labels live in entities, crimes, methods).
"""

from __future__ import annotations

import shutil
from dataclasses import replace

import duckdb
import pytest

from core import api
from core.config import load_settings
from core.engine import execute as ex
from core.tools import Evidence, ToolOutput
from core.tools.tally import Tally
from tests.core.tools import comparable

W = {"from": "2024-01-01", "to": "2024-12-31"}
KEPT = (
    "row_id",
    "fecha",
    "cve_municipio",
    "estado_id",
    "entidad_id",
    "delito",
    "metodo",
    "eventos",
    "source_file",
    "source_row",
)


def plan(*steps) -> dict:
    return {"plan": [{"tool_id": t, "args": a} for t, a in steps]}


PLANS = [
    plan(
        (6, {"entidad_id": "GTO", "delito": "homicidio_doloso", "nivel": "hijos", "top_k": 5, **W}), (9, {"limit": 5})
    ),
    plan(
        (
            6,
            {
                "entidad_id": "GTO",
                "delito": "homicidio_doloso",
                "nivel": "hijos",
                "medida": "tasa_per_100k",
                "orden": "asc",
                "top_k": 7,
                **W,
            },
        )
    ),
    plan((6, {"entidad_id": "GTO", "delito": "homicidio", "nivel": "actual", **W})),
    plan((6, {"entidad_id": "GTO.MUN.LEON", "delito": "homicidio_doloso", "nivel": "actual", **W})),
    plan((5, {"min_eventos": 20}), (7, {"entidad_id": "GTO", "nivel": "hijos", "top_k": 10, **W})),
    plan((7, {"entidad_id": "GTO", "nivel": "hijos", "top_k": 46, **W})),
    plan(
        (4, {"violencia": "con"}),
        (
            11,
            {
                "entidad_id": "GTO",
                "delito": "homicidio_doloso",
                "nivel": "hijos",
                "aggregate_by": "porcentaje",
                "top_k": 4,
                **W,
            },
        ),
    ),
    plan(
        (
            11,
            {
                "entidad_id": "GTO",
                "delito": "homicidio_doloso",
                "nivel": "hijos",
                "aggregate_by": "tasa_per_100k",
                "orden": "asc",
                **W,
            },
        )
    ),
    plan(
        (
            13,
            {
                "entidad_id": "GTO",
                "delito": "homicidio_doloso",
                "nivel": "hijos",
                "top_k": 6,
                "base_from": "2023-01-01",
                "base_to": "2023-12-31",
                **W,
            },
        ),
        (9, {"limit": 3}),
    ),
    plan(
        (
            13,
            {
                "entidad_id": "GTO",
                "delito": "homicidio",
                "nivel": "actual",
                "base_from": "2023-01-01",
                "base_to": "2023-12-31",
                **W,
            },
        )
    ),
    plan((12, {"entidad_id": "GTO", "delito": "homicidio", "from": "2015-01-01", "to": "2025-11-30"})),
    plan((12, {"entidad_id": "GTO.MUN.LEON", "delito": "homicidio_doloso", "metodo": "con_arma_de_fuego", **W})),
    plan(
        (
            10,
            {
                "entidad_id": "GTO",
                "delito": "homicidio_doloso",
                "nivel": "hijos",
                "window": 12,
                "z_threshold": 1.5,
                "top_k": 5,
                **W,
            },
        ),
        (9, {"limit": 5}),
    ),
    plan((10, {"entidad_id": "GTO", "delito": "homicidio", "nivel": "actual", "window": 12, "z_threshold": 1.0, **W})),
    plan((8, {"entidad_id": "GTO", "tipo": "coocurrencia", "min_support": 0.01, **W})),
    plan(
        (8, {"entidad_id": "GTO", "tipo": "estacionalidad", "top_k": 5, "from": "2019-01-01", "to": "2024-12-31"}),
        (9, {"limit": 5}),
    ),
    plan(
        (
            8,
            {
                "entidad_id": "GTO.MUN.LEON",
                "tipo": "estacionalidad",
                "delito": ["homicidio", "robo_a_negocio"],
                "from": "2018-01-01",
                "to": "2024-12-31",
            },
        )
    ),
    plan((14, {"entidad_id": "GTO", "nivel": "hijos", "from": "2020-01-01", "to": "2024-12-31"}), (9, {"limit": 5})),
]


def test_folded_evidence_equals_the_executor_query(bundled_settings, monkeypatch):
    checked: dict[str, int] = {}
    query_evidence = ex._evidence
    tool = {}

    def spy(ctx, out):
        got = query_evidence(ctx, out)
        ev = out.evidence
        if ev is not None and ev.ids is not None:
            plain = ToolOutput(columns=[], rows=[], headline="", evidence=replace(ev, ids=None, total=None))
            assert got == query_evidence(ctx, plain), tool["name"]
            checked[tool["name"]] = checked.get(tool["name"], 0) + 1
        return got

    run_step = ex._run_step

    def named(ctx, step):
        tool["name"] = step.spec.name
        return run_step(ctx, step)

    monkeypatch.setattr(ex, "_evidence", spy)
    monkeypatch.setattr(ex, "_run_step", named)
    for p in PLANS:
        assert api.execution(p, settings=bundled_settings).status == "ok", p
    assert {
        "rank_por_delito",
        "top_entidades_por_total",
        "agrupar_por_entidad",
        "comparar_periodos",
        "serie_temporal",
        "detectar_anomalias",
        "detectar_patrones",
    } <= set(checked)


def test_a_ranking_the_statement_decided_otherwise_falls_back_to_the_query():
    t = Tally(
        entities=[],
        counts={},
        base={},
        pops={},
        evidence_rows={"a": 3, "b": 4, "c": 5},
        top=["a", "b"],
        top_ids=[1, 2, 3],
    )
    same = t.evidence("i.estado_id = ?", ["GTO"], ["b", "a"], per_child=True)
    assert (same.ids, same.total) == ([1, 2, 3], 7) and same.params == ["GTO", "b", "a"]
    other = t.evidence("i.estado_id = ?", ["GTO"], ["a", "c"], per_child=True)
    assert other.ids is None and other.total is None and "i.entidad_id IN (?, ?)" in other.where
    none = t.evidence("i.estado_id = ?", ["GTO"], [], per_child=True)
    assert none == Evidence("i.estado_id = ?", ["GTO"])


def test_listar_evidencia_labels_places_and_lists_the_yearly_series(bundled_settings):
    result = api.execution(PLANS[-1], settings=bundled_settings)
    annual, listed = result.envelopes
    assert listed["status"] == "ok", listed.get("error")
    rows = listed["data"]["inline"]["rows"]
    assert rows and all(r[1].endswith("-01-01") and r[3] and r[5] is None for r in rows)
    assert {r[0] for r in rows} <= set(annual["evidence"][0]["ids"])
    assert listed["metrics"]["filas"] == annual["evidence"][0]["total"] == 50  # 10 municipalities × 5 years
    first = api.execution(PLANS[0], settings=bundled_settings).last
    assert all(r[3] for r in first["data"]["inline"]["rows"])


@pytest.fixture(scope="module")
def slim_settings(bundled_settings, tmp_path_factory):
    """A copy of the bundled store whose incidents keep only the key columns (no labels)."""
    settings = load_settings(tmp_path_factory.mktemp("slim") / "data")
    shutil.copytree(bundled_settings.store_dir, settings.store_dir)
    for path in settings.store_dir.glob("versions/*/incidents.parquet"):
        tmp = path.with_suffix(".slim")
        duckdb.execute(f"COPY (SELECT {', '.join(KEPT)} FROM read_parquet('{path}')) TO '{tmp}' (FORMAT parquet)")
        tmp.replace(path)
    return settings


def test_every_tool_reads_only_the_kept_incident_columns(bundled_settings, slim_settings):
    for p in PLANS:
        full = api.execution(p, settings=bundled_settings)
        slim = api.execution(p, settings=slim_settings)
        assert slim.status == "ok", (p, slim.errors)
        assert comparable(slim.envelopes) == comparable(full.envelopes), p


@pytest.mark.parametrize(("n_rows", "zero_every"), [(10, 3), (1200, 4), (0, 1)])
def test_first_ids_are_the_smallest_ids_with_events_one_past_the_limit(n_rows, zero_every):
    from core.tools import EVIDENCE_IDS, FIRST_IDS

    con = duckdb.connect()
    con.execute(
        "CREATE TABLE f AS SELECT (1000 - i) AS row_id, CASE WHEN i % ? = 0 THEN 0 ELSE 1 END AS eventos "
        "FROM range(?) t(i)",
        [zero_every, n_rows],
    )
    ids = con.execute(f"SELECT coalesce({FIRST_IDS}, []) FROM f").fetchone()[0]
    expected = sorted(1000 - i for i in range(n_rows) if i % zero_every)[: EVIDENCE_IDS + 1]
    assert ids == expected
