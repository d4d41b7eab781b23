"""What every national tool (21-23, core/tools/national.py) keeps: the envelope contract, the series it names and the
country as a place; the tools' own figures are tested in test_states.py, test_victims.py and test_federal.py."""

from __future__ import annotations

import json

import pytest

from core import api
from core.ask.compose import compose
from core.engine.envelope_schema import validate_envelope
from tests.conftest import FIXTURES

PLANS = sorted((FIXTURES / "national").glob("*.json"))
SERIES = {
    "ranking_estados": ("carpetas", "comun", "IDFC"),
    "victimas_sexo_edad": ("victimas", "comun", "IDFC"),
    "fuero_federal": ("carpetas", "federal", "IDEFF"),
}


@pytest.mark.parametrize("path", PLANS, ids=[p.stem for p in PLANS])
def test_each_plan_fixture_gives_a_contract_envelope_naming_its_series(bundled_settings, path):
    env = api.execution(json.loads(path.read_text(encoding="utf-8")), settings=bundled_settings).last
    validate_envelope(env)
    name = env["tool"].split("@")[0]
    assert name == path.stem
    medida, fuero, metodologia = SERIES[name]
    for block in (env["meta"], env["metrics"]):
        assert (block["medida"], block["fuero"], block["metodologia"]) == (medida, fuero, metodologia)
        assert block["vigente"] is True and block["fuente"]
    assert all(f in env["summary"]["headline"] for f in env["metrics"]["fuente"])


def test_the_country_as_the_place_asked(bundled_settings):
    plan = {"plan": [{"tool_id": 21, "args": {"lugar_id": "MX", "clave_delito": "narcomenudeo",
                                              "desde": "2023-01-01", "hasta": "2023-12-31"}}]}  # fmt: skip
    result = api.execution(plan, settings=bundled_settings)
    met = result.last["metrics"]
    assert (
        met["posicion"] is None
        and met["conteo"] == met["conteo_nacional"] == result.last["data"]["inline"]["rows"][-1][3]
    )
    answer = compose("¿Qué estados tienen más narcomenudeo?", result.envelopes, metadata=api.metadata(bundled_settings))
    assert "Estados con más narcomenudeo" in answer.text and "Guanajuato (19,876)" in answer.text
