"""Execution: the document's [6,9] example, filters, envelopes field by field, relaxed retry, audit."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from core import api
from core.audit.log import AuditLog
from core.dataset.store import Store
from core.engine.envelope import jsonable

EXAMPLE = """[6,9]
entidad_id: GTO
delito: homicidio_doloso
nivel: hijos
medida: tasa_per_100k
top_k: 10
from: 2024-01-01
to:   2024-12-31
"""
META_KEYS = {
    "schema_version",
    "tool_version",
    "dataset_version",
    "anchor_date",
    "date_range_effective",
    "range_adjusted",
    "timing_ms",
    "query_hash",
}


def independent_rates(settings, year=2024):
    """Homicidio doloso 2024 per municipality ÷ CONAPO 2024, straight from the Parquet tables."""
    store = Store(settings)
    return {
        eid: (n, round(n / p * 100_000, 2))
        for eid, n, p in store.query(
            """SELECT i.entidad_id, sum(i.eventos), any_value(p.poblacion) FROM incidents i
           JOIN population p ON p.entidad_id = i.entidad_id AND p.anio = ? AND p.fuente = 'CONAPO'
           WHERE i.delito = 'homicidio_doloso' AND year(i.fecha) = ? GROUP BY 1""",
            [year, year],
        )
    }


def test_the_document_example_adapted_to_our_data(bundled_settings):
    result = api.execution(EXAMPLE, settings=bundled_settings)
    assert result.status == "ok" and len(result.envelopes) == 2
    rank, evidence = result.envelopes
    assert rank["tool"] == "rank_por_delito@1.1.0" and evidence["tool"] == "listar_evidencia@1.0.0"
    assert [c["name"] for c in rank["data"]["inline"]["columns"]] == ["entidad_id", "label", "conteo", "tasa_per_100k"]
    expected = independent_rates(bundled_settings)
    rows = rank["data"]["inline"]["rows"]
    assert len(rows) == 10
    assert [r[3] for r in rows] == sorted((v[1] for v in expected.values()), reverse=True)[:10]
    for eid, _label, n, t in rows:
        assert (n, t) == expected[eid]
    assert set(rank["meta"]) >= META_KEYS
    assert rank["meta"]["query_hash"] == evidence["meta"]["query_hash"] and rank["meta"]["query_hash"].startswith(
        "sha256:"
    )
    assert rank["meta"]["anchor_date"] == "2025-11-30" and rank["meta"]["range_adjusted"] is False
    assert rank["summary"]["headline"].startswith("Top Homicidio doloso (tasa_per_100k)")
    assert rank["data"]["artifacts"]["tables"] == {}  # ten rows: the envelope holds the whole table
    assert rank["evidence"][0]["table"] == "incidents" and rank["evidence"][0]["total"] > 0
    ev_rows = evidence["data"]["inline"]["rows"]
    assert sum(r[6] for r in ev_rows) == evidence["metrics"]["eventos"] == sum(r[2] for r in rows)
    assert set(rank["evidence"][0]["ids"]) == {r[0] for r in ev_rows}


RANK_ALL = {
    "tool_id": 11,
    "args": {
        "entidad_id": "GTO",
        "delito": "homicidio_doloso",
        "nivel": "hijos",
        "top_k": 46,
        "from": "2024-01-01",
        "to": "2024-12-31",
    },
}


@pytest.mark.parametrize(
    "plan, tool, max_rows, rows, file",
    [
        ([RANK_ALL], "agrupar_por_entidad", 50, 46, False),
        ([RANK_ALL, {"tool_id": 9, "args": {"limit": 300}}], "listar_evidencia", 200, 300, True),
    ],
)
def test_a_full_table_file_only_when_the_inline_rows_are_cut(bundled_settings, plan, tool, max_rows, rows, file):
    env = api.execution({"plan": plan}, settings=bundled_settings).last
    inline, tables = env["data"]["inline"], env["data"]["artifacts"]["tables"]
    assert inline["limit_notice"] == {"applied": file, "max_rows": max_rows, "total_rows": rows}
    assert len(inline["rows"]) == min(rows, max_rows)
    if not file:
        assert tables == {}
        return
    address = tables[f"{tool}_full"]
    assert address.startswith("artifact://tables/")
    table = pq.read_table(bundled_settings.artifacts_dir / address.removeprefix("artifact://"))
    assert table.num_rows == rows and table.column_names == [c["name"] for c in inline["columns"]]
    shown = table.slice(0, max_rows).to_pylist()
    assert [[jsonable(v) for v in r.values()] for r in shown] == inline["rows"]


def test_same_plan_same_query_hash(bundled_settings):
    a = api.execution(EXAMPLE, settings=bundled_settings).last["meta"]["query_hash"]
    b = api.execution(EXAMPLE.replace("top_k: 10", "top_k:10"), settings=bundled_settings).last["meta"]["query_hash"]
    c = api.execution(EXAMPLE.replace("top_k: 10", "top_k: 5"), settings=bundled_settings).last["meta"]["query_hash"]
    assert a == b != c


@pytest.mark.parametrize(
    "entity,nivel,expected",
    [
        ("GTO", "actual", [("GTO", 2553)]),
        ("GTO.MUN.LEON", "actual", [("GTO.MUN.LEON", 596)]),
        ("GTO.MUN.LEON", "hijos", [("GTO.MUN.LEON", 596)]),
    ],
)
def test_nivel_actual_returns_the_entity_itself(bundled_settings, entity, nivel, expected):
    plan = {
        "plan": [
            {
                "tool_id": 6,
                "args": {
                    "entidad_id": entity,
                    "nivel": nivel,
                    "delito": "homicidio_doloso",
                    "from": "2024-01-01",
                    "to": "2024-12-31",
                },
            }
        ]
    }
    rows = api.execution(plan, settings=bundled_settings).last["data"]["inline"]["rows"]
    assert [(r[0], r[2]) for r in rows] == expected


def test_filters_narrow_the_working_set(bundled_settings):
    plan = {
        "plan": [
            {"tool_id": 1, "args": {"entidad_id": "GTO"}},
            {"tool_id": 2, "args": {"from": "2024-01-01", "to": "2024-12-31"}},
            {"tool_id": 3, "args": {"delito": "homicidio_doloso"}},
            {"tool_id": 4, "args": {"metodo": "con_arma_de_fuego"}},
            {"tool_id": 6, "args": {"top_k": 3}},
        ]
    }
    result = api.execution(plan, settings=bundled_settings)
    assert result.status == "ok" and len(result.envelopes) == 5
    assert result.envelopes[0]["data"]["inline"]["rows"] == [["GTO", "Guanajuato", "hijos", 46]]
    assert result.envelopes[2]["data"]["inline"]["rows"][0][:2] == ["homicidio_doloso", "Homicidio doloso"]
    expected = dict(
        Store(bundled_settings).query(
            """SELECT entidad_id, sum(eventos) FROM incidents WHERE delito = 'homicidio_doloso'
           AND metodo = 'con_arma_de_fuego' AND year(fecha) = 2024 GROUP BY 1"""
        )
    )
    for eid, _, n, _ in result.last["data"]["inline"]["rows"]:
        assert n == expected[eid]


def test_violence_filter_and_top_entidades_share(bundled_settings):
    plan = {
        "plan": [
            {"tool_id": 4, "args": {"violencia": "con"}},
            {
                "tool_id": 7,
                "args": {
                    "entidad_id": "GTO",
                    "delito": "robo_a_institucion_bancaria",
                    "from": "2015-01-01",
                    "to": "2024-12-31",
                    "top_k": 46,
                },
            },
        ]
    }
    env = api.execution(plan, settings=bundled_settings).last
    rows = env["data"]["inline"]["rows"]
    assert sum(r[2] for r in rows) == 21  # README: con violencia, 21 over 10 years
    assert abs(sum(r[4] for r in rows if r[4]) - 100) < 0.1


def _one_value(entidad: str, delito: str, metodo: str, year: int) -> dict:
    args = {"entidad_id": entidad, "nivel": "actual", "delito": delito, "metodo": metodo}
    return {"plan": [{"tool_id": 6, "args": {**args, "from": f"{year}-01-01", "to": f"{year}-12-31"}}]}


def test_zero_rows_get_one_relaxed_retry(bundled_settings):
    """Doctor Mora: no homicidio doloso con arma de fuego in 2024 (12 over the series), so its one 2024 case."""
    plan = _one_value("GTO.MUN.DOCTOR_MORA", "homicidio_doloso", "con_arma_de_fuego", 2024)
    env = api.execution(plan, settings=bundled_settings).last
    assert env["meta"]["retry"] == {"attempts": 2, "relaxed": ["metodo=con_arma_de_fuego"], "rows": 1}
    assert env["data"]["inline"]["rows"][0][2] == 1
    assert any("sin ese filtro" in w for w in env["meta"]["warnings"])


@pytest.mark.parametrize(
    ("entidad", "delito", "metodo", "year", "who"),
    [
        ("GTO", "homicidio_doloso", "no_especificado", 2024, "Guanajuato"),  # shared data README: 0 every month
        ("GTO.MUN.CELAYA", "robo", "robo_de_motocicleta_con_violencia", 2021, "Celaya"),
    ],
)
def test_a_structural_zero_is_kept_and_said(bundled_settings, entidad, delito, metodo, year, who):
    """A modalidad the place reports as 0 in every published month is answered 0 with why, never relaxed to the
    whole crime (a number the question did not ask for)."""
    env = api.execution(_one_value(entidad, delito, metodo, year), settings=bundled_settings).last
    assert "retry" not in env["meta"]
    assert [r[2] for r in env["data"]["inline"]["rows"]] in ([0], [])
    assert any(w.startswith(f"{who} registra 0 casos") and "no prueba" in w for w in env["meta"]["warnings"])


def test_every_execution_is_audited_and_the_chain_verifies(bundled_settings):
    before = AuditLog.for_settings(bundled_settings).count()
    result = api.execution(
        EXAMPLE, settings=bundled_settings, user="ana@example.org", role="analista", question="¿top?"
    )
    bad = api.execution({"plan": [{"tool_id": 99}]}, settings=bundled_settings)
    log = AuditLog.for_settings(bundled_settings)
    assert log.count() == before + 2
    rec = log.get(result.last["meta"]["job_id"])
    assert rec.user == "ana@example.org" and rec.status == "ok" and rec.query_hash == result.last["meta"]["query_hash"]
    assert rec.payload["plan"]["plan"][0]["tool_id"] == 6 and rec.payload["timings_ms"]["validate"] >= 0
    assert rec.payload["row_counts"]["rank_por_delito@1.1.0"] == 10
    assert rec.payload["effective_ranges"]["rank_por_delito@1.1.0"] == {"from": "2024-01-01", "to": "2024-12-31"}
    assert log.get(bad.last["meta"]["job_id"]).status == "error"
    assert log.verify().ok


def test_metadata_and_dataset_info(bundled_settings):
    meta = api.metadata(bundled_settings)
    assert set(meta) == {"dataset_version", "min_date", "max_date", "updated_at"}
    info = api.dataset_info(bundled_settings)
    assert info["data_available_until"] == info["max_date"] == "2025-11-30" and "coverage" in info


@pytest.mark.parametrize(
    "target,details",
    [
        ("core.engine.validate._validate", "Error interno al validar el plan."),
        ("core.engine.execute.validate_plan", "Error interno al validar el plan."),
        ("core.engine.execute.run_validated", "Error interno al ejecutar el plan."),
    ],
)
def test_the_last_resort_turns_any_failure_into_an_envelope(bundled_settings, monkeypatch, target, details):
    """A safety net, not the fix: a bug below execute_plan is a COMPUTE_ERROR envelope, never a traceback."""

    def boom(*args, **kwargs):
        raise RecursionError("secret /work/main/core internals")

    monkeypatch.setattr(target, boom)
    env = api.execute_plan(EXAMPLE, settings=bundled_settings)
    assert env["status"] == "error" and env["error"]["code"] == "COMPUTE_ERROR"
    assert env["error"]["details"] == details and env["error"]["hints"]
    assert "secret" not in str(env) and "/work" not in str(env) and "Traceback" not in str(env)
