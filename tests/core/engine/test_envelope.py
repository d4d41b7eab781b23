"""Every tool, run on the real store, returns envelopes that match docs/contracts/001_casandra_v0.md §4.4 field
by field."""

from __future__ import annotations

import pytest

from core import api
from core.engine.envelope_schema import validate_envelope

W = {"from": "2020-01-01", "to": "2022-06-30"}
PLANS = {
    "enfoque_entidad": [{"tool_id": 1, "args": {"entidad_id": "GTO"}}],
    "filtro_fecha": [{"tool_id": 2, "args": W}],
    "filtro_tipo": [{"tool_id": 3, "args": {"delito": ["homicidio_doloso", "violacion"]}}],
    "filtro_metodo": [{"tool_id": 4, "args": {"metodo": "con_arma_de_fuego"}}],
    "filtro_frecuencia": [{"tool_id": 5, "args": {"min_eventos": 10}}],
    "rank_por_delito": [{"tool_id": 6, "args": {"entidad_id": "GTO", "delito": "homicidio_doloso", **W}}],
    "top_entidades_por_total": [{"tool_id": 7, "args": {"entidad_id": "GTO", **W}}],
    "detectar_patrones": [
        {"tool_id": 8, "args": {"entidad_id": "GTO", "delito": ["homicidio_doloso", "violencia_familiar"], **W}}
    ],
    "listar_evidencia": [
        {"tool_id": 6, "args": {"entidad_id": "GTO", "delito": "feminicidio", **W}},
        {"tool_id": 9, "args": {}},
    ],
    "detectar_anomalias": [{"tool_id": 10, "args": {"entidad_id": "GTO", "delito": "homicidio_doloso", **W}}],
    "agrupar_por_entidad": [
        {"tool_id": 11, "args": {"entidad_id": "GTO", "delito": "homicidio_doloso", "aggregate_by": "porcentaje", **W}}
    ],
    "serie_temporal": [{"tool_id": 12, "args": {"entidad_id": "GTO.MUN.LEON", "delito": "homicidio_doloso", **W}}],
    "comparar_periodos": [
        {
            "tool_id": 13,
            "args": {
                "entidad_id": "GTO",
                "delito": "homicidio_doloso",
                "from": "2021-01-01",
                "to": "2021-12-31",
                "base_from": "2020-01-01",
                "base_to": "2020-12-31",
            },
        }
    ],
    "total_anual": [
        {"tool_id": 14, "args": {"entidad_id": "GTO", "nivel": "actual", "from": "2015-01-01", "to": "2026-12-31"}}
    ],
}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_every_tool_envelope_matches_the_contract(bundled_settings, name):
    result = api.execution({"plan": PLANS[name]}, settings=bundled_settings)
    assert result.status == "ok", result.last
    for env in result.envelopes:
        validate_envelope(env)
    last = result.last
    assert last["tool"].startswith(name + "@")
    assert list(last)[:5] == ["status", "tool", "summary", "data", "evidence"]
    assert last["meta"]["dataset_version"].startswith("gx-")


def test_error_envelope_matches_the_contract(bundled_settings):
    env = api.execute_plan({"plan": [{"tool_id": 6, "args": {"top_k": -1, "medida": "x"}}]}, settings=bundled_settings)
    model = validate_envelope(env)
    assert model.status == "error" and len(model.error.problems) >= 2
