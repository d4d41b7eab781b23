"""Job API adapter (docs/contracts/001_casandra_v0.md §4.5 and §8): JobRequest → Plan → Envelope → JobResult."""

from __future__ import annotations

import pytest

from core.jobs import run_job
from tests.core.engine.hostile import deep_list


@pytest.mark.parametrize("municipio", ["León", "leon", "GTO.MUN.LEON", "León de los Aldama"])
def test_municipio_and_dates_map_to_the_canonical_names(bundled_settings, municipio):
    res = run_job(
        {
            "intent": "consulta",
            "params": {
                "municipio": municipio,
                "fecha_inicio": "2024-01-01",
                "fecha_fin": "2024-12-31",
                "delito": "homicidio_doloso",
            },
        },
        settings=bundled_settings,
    )
    assert res.ok, res.warnings
    assert res.payload["rows"][0][:3] == ["GTO.MUN.LEON", "León", 596]
    f = res.provenance["filters_applied"]
    assert (f["entidad_id"], f["from"], f["to"]) == ("GTO.MUN.LEON", "2024-01-01", "2024-12-31")
    assert res.provenance["data_available_until"] == "2025-11-30"
    assert res.provenance["dataset_version"].startswith("gx-")


@pytest.mark.parametrize(
    "output,key", [("json", "rows"), ("tabular", "rows"), ("markdown", "markdown"), ("grafico", "chart")]
)
def test_outputs(bundled_settings, output, key):
    res = run_job(
        {
            "intent": "consulta",
            "params": {"fecha_inicio": "2024-01-01", "fecha_fin": "2024-12-31", "delito": "homicidio_doloso"},
            "output": output,
        },
        settings=bundled_settings,
    )
    assert res.ok and key in res.payload


def test_tools_by_name(bundled_settings):
    res = run_job(
        {
            "intent": "analisis",
            "tools": [{"name": "rank_por_delito", "args": {"top_k": 3, "nivel": "hijos"}}],
            "params": {"fecha_inicio": "2024-01-01", "fecha_fin": "2024-12-31", "delito": "homicidio_doloso"},
        },
        settings=bundled_settings,
    )
    assert res.ok and [r[1] for r in res.payload["rows"]] == ["León", "Celaya", "Irapuato"]


@pytest.mark.parametrize(
    "request_,code",
    [
        ({"intent": "magia"}, "INVALID_PAYLOAD"),
        ({"intent": "consulta", "params": {"municipio": "Gotham"}}, "INVALID_FILTER"),
        (
            {
                "intent": "consulta",
                "params": {"delito": "feminicidio", "fecha_inicio": "2025-07-01", "fecha_fin": "2025-12-31"},
            },
            "DATA_QUALITY_ISSUE",
        ),
        ({"intent": "consulta", "tools": [{"name": "borrar_todo", "args": {}}]}, "INVALID_PAYLOAD"),
        ({"intent": "consulta", "extra": 1}, "INVALID_PAYLOAD"),
    ],
)
def test_errors_become_warnings_with_provenance(bundled_settings, request_, code):
    res = run_job(request_, settings=bundled_settings)
    assert not res.ok and res.payload is None
    assert res.error["code"] == code and res.warnings
    assert res.provenance["dataset_version"] and "filters_applied" in res.provenance


@pytest.mark.parametrize(
    "request_",
    [
        {"intent": "consulta", "tools": [{"name": "rank_por_delito", "args": {"delito": []}}]},
        {"intent": "consulta", "tools": [{"name": "rank_por_delito", "args": {"delito": {}}}]},
        {"intent": "consulta", "tools": [{"name": "rank_por_delito", "args": {"entidad_id": ["GTO"]}}]},
        {"intent": "patrones", "tools": [{"name": "detectar_anomalias", "args": {"window": "abc"}}]},
        {"intent": "patrones", "tools": [{"name": "detectar_anomalias", "args": {"z_threshold": float("nan")}}]},
        {"intent": "patrones", "tools": [{"name": "detectar_anomalias", "args": {"window": float("inf")}}]},
        {"intent": "consulta", "tools": [{"name": "rank_por_delito", "args": {"top_k": 10**5000}}]},
        {"intent": "consulta", "tools": [{"name": "rank_por_delito", "args": {"delito": deep_list(100_000)}}]},
        {"intent": "consulta", "params": {"delito": ["x" * 10_000_000]}},
        {"intent": "consulta", "tools": [{"name": ["rank"], "args": {}}]},
        {"intent": ["consulta"]},
        [1, 2, 3],
        None,
        "consulta",
    ],
    ids=[
        "delito-vacio",
        "delito-objeto",
        "entidad-lista",
        "window-texto",
        "z-nan",
        "window-inf",
        "huge-int",
        "profundo",
        "10-mb",
        "nombre-lista",
        "intent-lista",
        "lista",
        "none",
        "texto",
    ],
)
def test_hostile_requests_become_results_never_exceptions(bundled_settings, request_):
    res = run_job(request_, settings=bundled_settings)
    assert not res.ok and res.payload is None and res.warnings
    assert res.error["code"] in ("INVALID_PAYLOAD", "INVALID_FILTER", "RESOURCE_LIMIT"), res.error
    text = str(res.model_dump())
    assert not any(english in text for english in ("Input should", "Field required", "Traceback"))


@pytest.mark.parametrize("target", ["core.jobs.get_store", "core.jobs.to_plan", "core.api.execute_plan"])
def test_an_unexpected_failure_is_an_internal_error_result(bundled_settings, monkeypatch, target):
    """The adapter must never raise, even for a bug: a JobResult with a Spanish internal error."""

    def boom(*args, **kwargs):
        raise RuntimeError("secret /work/main internals")

    monkeypatch.setattr(target, boom)
    res = run_job({"intent": "consulta"}, settings=bundled_settings)
    assert not res.ok and res.error["code"] == "COMPUTE_ERROR" and res.error["http_status"] == 500
    assert res.warnings == ["Error interno al calcular el resultado."]
    assert "secret" not in str(res.model_dump()) and res.provenance["dataset"]
