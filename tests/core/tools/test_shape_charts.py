"""The charts and Spanish leads of the everyday-shape tools (15-19), from real envelopes: each fits its shape."""

from __future__ import annotations

import pytest

from core import api
from core.ask.charts import chart_spec, plotly_figure, shape_of
from core.ask.compose import compose

CASES = [
    # (tool_id, args, shape, chart check, words the answer says)
    (15, {"entidad_id": "GTO.MUN.CELAYA", "enfoque": "minimo"}, "extremes",
     lambda c: c["type"] == "bar" and {"2023-06", "2023-03", "2023-10"} <= set(c["highlight"]),
     "fueron marzo de 2023 y octubre de 2023, con 19 cada uno"),
    (15, {"entidad_id": "GTO.MUN.CELAYA", "por": "anio", "from": "2020-01-01", "to": "2025-11-30"}, "extremes",
     lambda c: c["partial"] == ["2025"], "El año con más"),
    (16, {"entidad_id": "GTO", "condicion": "sin"}, "presence",
     lambda c: sum(d["municipios"] for d in c["data"]) == 46, "no registraron ningún"),
    (16, {"entidad_id": "GTO", "condicion": "con"}, "presence",
     lambda c: c["x"] == "label" and "map" in c, "registraron al menos un"),
    (17, {"entidad_id": "GTO.MUN.CELAYA"}, "breakdown",
     lambda c: c["y"] == ["porcentaje", "porcentaje_estado"] and c["barmode"] == "group", "Por modalidad"),
    (18, {"entidad_id": "GTO.MUN.LEON", "from": "2020-01-01", "to": "2025-11-30"}, "annual_series",
     lambda c: c["x"] == "anio" and c["partial"] == [2025], "2025 es parcial"),
    (19, {"entidad_id": "GTO", "entidades": ["GTO.MUN.LEON", "GTO.MUN.CELAYA"]}, "places",
     lambda c: [d["label"] for d in c["data"]] == ["León", "Celaya", "Guanajuato"] and c["barmode"] == "group",
     "Tasa estatal de Guanajuato"),
]  # fmt: skip


@pytest.mark.parametrize(("tool_id", "args", "shape", "fits", "says"), CASES)
def test_chart_and_lead(bundled_settings, tool_id, args, shape, fits, says):
    window = {"from": "2023-01-01", "to": "2023-12-31"}
    crime = {"delito": "homicidio_doloso"}
    plan = {"plan": [{"tool_id": tool_id, "args": {**window, **crime, **args}}]}
    result = api.execution(plan, settings=bundled_settings)
    env = result.last
    assert env["status"] == "ok", env.get("error")
    assert shape_of(env) == shape
    chart = chart_spec(env, result.envelopes)
    assert fits(chart), chart
    assert plotly_figure(chart).data
    answer = compose("pregunta", result.envelopes, metadata=api.metadata(bundled_settings))
    assert says in answer.text and not answer.blocked, answer.text
